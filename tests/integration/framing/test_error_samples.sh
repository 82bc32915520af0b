# The samples of failed and non-2xx responses (--show-errors, the report's
# first error body) are taken the same way whatever framing read the
# response, and hold its body as it arrived, not only its first read: over
# HTTP/1.1 a body that comes 200 ms after its head (volley-target's
# /late/N) is in the sample; over HTTP/2 (h2c to nginx) a 404 is sampled
# at all (it used to say "every response was 2xx").
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

start_target
run_volley split -n 2 -c 1 --show-errors 3 "http://127.0.0.1:$PORT/late/503"
stop_target
check_eq "$RC" 0 "split: exit status"
check_eq "$(cat "$T/split.err")" 'volley: the first 2 failed or non-2xx responses (--show-errors 3):
  1. status 503
     HTTP/1.1 503 Service Unavailable
     Content-Type: text/plain
     Content-Length: 11
     body: "hello world"
  2. status 503
     HTTP/1.1 503 Service Unavailable
     Content-Type: text/plain
     Content-Length: 11
     body: "hello world"' "split: the bodies on stderr"
check_grep "$T/split.out" "^  Every response was 503; the first one's body began: \"hello world\"$" \
    "split: the first error body"
check_eq "$(jget "$T/split.json" error_samples | python3 -c 'import ast, sys; v = ast.literal_eval(sys.stdin.read()); print(len(v), v[1]["body"], v[1]["cut"])')" \
    "2 hello world False" "split: error_samples in the JSON"

if start_nginx_h2 --h2c; then
    run_volley h2 -n 3 -c 1 --h2c --show-errors 2 "$h2url/static/nosuch"
    check_eq "$RC" 0 "h2c 404: exit status"
    check_eq "$(head -n 3 "$T/h2.err")" 'volley: the first 2 failed or non-2xx responses (--show-errors 2):
  1. status 404
     HTTP/1.1 404 ' "h2c 404: sampled"
    check_grep "$T/h2.err" '^     server: nginx' "h2c 404: its fields"
    check_grep "$T/h2.err" '^     body: "<html>.*404 Not Found' "h2c 404: its body"
    check_grep "$T/h2.out" "^  Every response was 404; the first one's body began: \"<html>" "h2c 404: the first error body"
    check_grep "$T/h2.out" "^  Hint: the server has nothing at this path" "h2c 404: the hint"
else
    echo "skip: nginx with HTTP/2 missing"
fi

finish
