# Reports that show what went wrong (issue 23), against a server that
# answers badly on purpose (py/misanswer.py): read failures by cause (in
# the text report, the JSON and `volley report` of it), the first error
# body of a run whose every response had one 4xx/5xx status, with its hint,
# and --show-errors N's list on stderr and in the JSON.
source "$TESTLIB"

PY=$(dirname "$TESTLIB")/py
python3 "$PY/misanswer.py" "$T/mis.port" 60 &
TARGET_PIDS+=($!)
wait_port_file "$T/mis.port" "$!" || { echo "misanswer.py did not start" >&2; exit 1; }
MPORT=$(cat "$T/mis.port")
M=http://127.0.0.1:$MPORT

# jreasons NAME MEMBER: a JSON member's reasons as "reason=count;..." and
# its other count.
jreasons() {
    python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print(";".join("%s=%d" % (r["reason"], r["count"]) for r in v["reasons"]) + " other=%d" % v["other"])
PY
}

# 1. Read failures by cause: each path's failures under one reason, on
# the line under Failed requests and in the JSON's read_failures, which
# `volley report` reads back.
for c in "drop:closed before the response" "head:closed in the head" "reset:reset by peer" \
    "cut:body cut short at 5 of 100 bytes" "cutchunk:body cut short at 5 bytes (chunked)"; do
    path=${c%%:*} why=${c#*:}
    run_volley "r_$path" -n 4 -c 1 "$M/$path"
    check_no_response "r_$path" "$path" "4 requests failed: read 4"
    check_eq "$(grep -A1 '^  Failed requests:' "$T/r_$path.out" | tail -n 1)" "    read: $why (4)" "$path: the read reason line"
    check_eq "$(jreasons "r_$path" read_failures)" "$why=4 other=0" "$path: read_failures in the JSON"
    "$VOLLEY" report "$T/r_$path.json" > "$T/r_$path.rep" 2> /dev/null || true
    check_grep "$T/r_$path.rep" "^    read: ${why//[()]/.} \(4\)$" "$path: volley report shows the reason"
done
# A run without read failures has no reasons and no reason line.
run_volley r_ok -n 6 -c 1 "$M/"
check_eq "$(jreasons r_ok read_failures)" " other=0" "no read failure: no reasons"
if grep -q '    read:' "$T/r_ok.out"; then fail "no read failure: a read reason line"; else ok; fi

# 2. Every response one 4xx/5xx status: the first one's body (escaped,
# bounded) and the hint it implies, under the Non-2xx line; in the JSON's
# error_samples (the first non-2xx response alone without --show-errors),
# which `volley report` reads back. nginx's answer to plain HTTP on its
# TLS port first.
first400='  Every response was 400; the first one'"'"'s body began: "<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>The plain HTTP..."'
run_volley e_400 -n 5 -c 2 "$M/plain400"
check_eq "$RC" 0 "every response 400: exit status"
check_eq "$(grep -A2 '^  Non-2xx or 3xx responses: 5$' "$T/e_400.out" | tail -n 2)" "$first400
  Hint: plain HTTP reached a TLS port: use https:// in the URL" "every response 400: the first body and the hint"
check_eq "$(jget "$T/e_400.json" error_samples | python3 -c 'import ast, sys; v = ast.literal_eval(sys.stdin.read()); print(len(v), v[0]["status"], v[0]["status_line"], v[0]["headers"][0], v[0]["cut"])')" \
    "1 400 HTTP/1.1 400 Bad Request Server: nginx False" "every response 400: error_samples in the JSON"
"$VOLLEY" report "$T/e_400.json" > "$T/e_400.rep" 2> /dev/null || true
check_eq "$(grep -A1 '^  Every response' "$T/e_400.rep")" "$first400
  Hint: plain HTTP reached a TLS port: use https:// in the URL" "every response 400: volley report shows them"
# A 500's body escaped (a quote as it is, a control byte as \x01), and the status's hint.
run_volley e_500 -n 3 -c 1 "$M/status/500"
check_eq "$(grep -A2 '^  Non-2xx' "$T/e_500.out" | tail -n 2)" '  Every response was 500; the first one'"'"'s body began: "failed: "500"\n\x01"
  Hint: the server failed on the request: its log should say why' "every response 500"
# Two statuses, or 2xx ones mixed in: no such line.
run_volley e_mix -n 4 -c 1 "$M/"
if grep -q 'Every response was' "$T/e_mix.out"; then fail "2xx responses: an error body line"; else ok; fi
check_eq "$(jget "$T/e_mix.json" error_samples)" "[]" "2xx responses: no error samples"
cat > "$T/two.txt" <<TARGETS
GET $M/status/404
GET $M/status/500
TARGETS
run_volley e_two -n 4 -c 1 --targets "$T/two.txt"
if grep -q 'Every response was' "$T/e_two.out"; then fail "two error statuses: an error body line"; else ok; fi

# 3. --show-errors N: the first N failed or non-2xx responses after the
# report, on stderr, each with its status, head lines and body's
# beginning (escaped), or a failure's kind and reason; in the JSON too.
run_volley s_500 -n 5 -c 1 --show-errors 2 "$M/status/500"
check_eq "$RC" 0 "--show-errors: exit status"
check_eq "$(cat "$T/s_500.err")" 'volley: the first 2 failed or non-2xx responses (--show-errors 2):
  1. status 500
     HTTP/1.1 500 Whatever
     X-Volley-Test: /status/500
     Content-Length: 15
     body: "failed: "500"\n\x01"
  2. status 500
     HTTP/1.1 500 Whatever
     X-Volley-Test: /status/500
     Content-Length: 15
     body: "failed: "500"\n\x01"' "--show-errors 2: the list on stderr"
check_eq "$(python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["error_samples"]; print(len(v), v[1]["status"], v[1]["headers"], repr(v[1]["body"]))' "$T/s_500.json")" \
    "2 500 ['X-Volley-Test: /status/500', 'Content-Length: 15'] 'failed: \"500\"\\n\\x01'" "--show-errors 2: error_samples in the JSON"
run_volley s_reset -n 3 -c 1 --show-errors 5 "$M/reset"
check_eq "$(head -n 4 "$T/s_reset.err")" 'volley: the first 3 failed or non-2xx responses (--show-errors 5):
  1. failed (read): reset by peer
  2. failed (read): reset by peer
  3. failed (read): reset by peer' "--show-errors 5: failures with their reasons"
check_eq "$(python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["error_samples"]; print(len(v), v[0])' "$T/s_reset.json")" \
    "3 {'status': None, 'failed': 'read', 'reason': 'reset by peer'}" "--show-errors: a failure in the JSON"
run_volley s_one -n 2 -c 1 -q --show-errors 1 "$M/status/404"
check_eq "$(head -n 2 "$T/s_one.err")" 'volley: the first failed or non-2xx response (--show-errors 1):
  1. status 404' "--show-errors 1 with -q"
run_volley s_none -n 3 -c 1 --show-errors 3 "$M/"
check_eq "$(cat "$T/s_none.err")" "volley: --show-errors: no request failed and every response was 2xx" "--show-errors, nothing to show"
# Without --show-errors nothing of it on stderr.
check_eq "$(wc -c < "$T/e_500.err")" 0 "no --show-errors: nothing on stderr"
for bad in 0 101 x; do
    run_volley s_bad -n 1 --show-errors "$bad" "$M/"
    check_eq "$RC" 2 "--show-errors $bad: exit status"
done

finish
