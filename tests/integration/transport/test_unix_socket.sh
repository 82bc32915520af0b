# --unix-socket: nginx (Debian's, as other tests run it) listening on Unix
# domain sockets only: plain HTTP/1.1, h2c and TLS with HTTP/2 by ALPN.
# Counted exactly against nginx's access log (one line per request): -n
# with -c 1 and -c 10 kept alive, a flow, --h2c, https with --http2 (SNI
# and Host from the URL); the bad paths and --source refused at start.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"

nginx=${NGINX:-/usr/sbin/nginx}
[ -x "$nginx" ] || { echo "no $nginx (nginx-light, PACKAGES)" >&2; exit 1; }
tls_certs || exit 1
d=$T/ng
mkdir -p "$d/tmp"
PLAIN=$T/plain.sock H2C=$T/h2c.sock TLS=$T/tls.sock
{ nginx_prelude "$d" nginx; cat <<EOF
    log_format sock '\$server_protocol \$request_method \$uri \$http_host \$ssl_server_name \$status';
    access_log $T/access.log sock;
    keepalive_requests 100000;
    server {
        listen unix:$PLAIN;
        listen unix:$H2C http2;
        listen unix:$TLS ssl http2;
        ssl_certificate $TLS_CERT;
        ssl_certificate_key $TLS_KEY;
        location / { return 200 "hello world"; }
    }
}
EOF
} > "$d/nginx.conf"
timeout -k 5 100 "$nginx" -p "$d" -e "$T/nginx.err" -c "$d/nginx.conf" > "$T/nginx.out" 2>&1 &
NGINX_PID=$!
TARGET_PIDS+=("$NGINX_PID")
for _ in $(seq 1 250); do
    [ -S "$PLAIN" ] && [ -S "$H2C" ] && [ -S "$TLS" ] && break
    kill -0 "$NGINX_PID" 2>/dev/null || break
    sleep 0.02
done
[ -S "$TLS" ] || { echo "nginx did not start: $(tail -3 "$T/nginx.err" "$T/nginx.out")" >&2; exit 1; }

# access LINE-ERE [N]: the requests nginx logged that match. nginx logs a
# request after sending its response, so a line may land a moment after
# volley has read it: with N, wait (up to 5 s) for N lines first.
access() {
    local i n
    for i in $(seq 1 250); do
        n=$(grep -cE -- "$1" "$T/access.log" || true)
        [ -z "${2:-}" ] || [ "$n" -ge "$2" ] && break
        sleep 0.02
    done
    echo "$n"
}

# One connection, then ten kept alive: every request once, Host from the URL.
run_complete c1 200 -c 1 --unix-socket "$PLAIN" "http://example.test/c1"
check_eq "$(access "^HTTP/1\.1 GET /c1 example\.test - 200$" 200)" 200 "-c 1: nginx's count"
check_eq "$(jv c1 connections_opened)" 1 "-c 1: one connection"
run_complete c10 2000 -c 10 -t 2 --unix-socket "$PLAIN" "http://example.test:8080/c10"
check_eq "$(access "^HTTP/1\.1 GET /c10 example\.test:8080 - 200$" 2000)" 2000 "-c 10: nginx's count"
check_eq "$(jv c10 connections_opened)" 10 "-c 10: ten connections kept alive"
check_eq "$(jv c10 target.unix_socket)" "$PLAIN" "the JSON's unix_socket"
check_eq "$(jv c10 target.address)" "unix:$PLAIN" "the JSON's address"
check_grep "$T/c10.out" "^Running 2000 requests @ http://example\.test:8080/c10 over unix socket $T/plain\.sock$" \
    "the header names the socket"
run_complete noka 30 -c 3 --no-keepalive --unix-socket "$PLAIN" "http://example.test/noka"
check_eq "$(access " /noka " 30)" 30 "a new connection per request: nginx's count"
check_eq "$(jv noka connections_opened)" 30 "a new connection per request: 30 connections"

# A flow over the socket.
mkdir -p "$T/s"
cat > "$T/s/flow.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/flow-a", {name = "a"})
  u:check(r.status == 200, "a is 200")
  u:post("/flow-b", {form = {n = "1"}, name = "b"})
end
return s
EOF
runv flow -s "$T/s/flow.lua" --iterations 40 -c 4 --unix-socket "$PLAIN" "http://example.test/"
check_eq "$RC" 0 "flow: exit status ($(head -c 300 "$T/flow.err"))"
check_eq "$(access "^HTTP/1\.1 GET /flow-a example\.test" 40)" 40 "flow: GETs"
check_eq "$(access "^HTTP/1\.1 POST /flow-b example\.test" 40)" 40 "flow: POSTs"

# HTTP/2 over the socket: h2c with prior knowledge, and TLS choosing h2 by
# ALPN with SNI from the URL.
run_complete h2c 300 -c 2 --h2c --streams 8 --unix-socket "$H2C" "http://example.test/h2c"
check_eq "$(access "^HTTP/2\.0 GET /h2c example\.test - 200$" 300)" 300 "--h2c: nginx's count"
run_complete tls 300 -c 3 --http2 --unix-socket "$TLS" "https://localhost/tls"
check_eq "$(access "^HTTP/2\.0 GET /tls localhost localhost 200$" 300)" 300 "https --http2: nginx's count, SNI localhost"
check_eq "$(jv tls tls.alpn)" h2 "https --http2: ALPN h2"
run_complete tls1 50 -c 2 --unix-socket "$TLS" "https://localhost/tls1"
check_eq "$(access "^HTTP/1\.1 GET /tls1 localhost localhost 200$" 50)" 50 "https over HTTP/1.1: nginx's count"

# Refused at start, one line each, nothing sent.
before=$(wc -l < "$T/access.log")
runv missing -n 1 --unix-socket "$T/nope.sock" "http://example.test/"
check_eq "$RC" 2 "a missing socket: exit status"
check_grep "$T/missing.err" "^volley: --unix-socket: $T/nope\.sock: no such file$" "a missing socket: the line"
runv notsock -n 1 --unix-socket "$d/nginx.conf" "http://example.test/"
check_eq "$RC" 2 "not a socket: exit status"
check_grep "$T/notsock.err" "^volley: --unix-socket: $d/nginx\.conf: not a socket$" "not a socket: the line"
runv source -n 1 --source 127.0.0.1 --unix-socket "$PLAIN" "http://example.test/"
check_eq "$RC" 2 "--source: exit status"
check_grep "$T/source.err" "^volley: --unix-socket: cannot be combined with --source" "--source: the line"
runv proxy -n 1 --proxy http://127.0.0.1:9 --unix-socket "$PLAIN" "http://example.test/"
check_eq "$RC" 2 "--proxy: exit status"
check_grep "$T/proxy.err" "^volley: --proxy: cannot be combined with --unix-socket" "--proxy: the line"
check_eq "$(wc -l < "$T/access.log")" "$before" "refused runs sent nothing"
# The environment's proxy does not apply to a socket (curl's rule too).
http_proxy=http://127.0.0.1:9 run_complete envproxy 5 --unix-socket "$PLAIN" "http://example.test/envproxy"
check_eq "$(access " /envproxy " 5)" 5 "http_proxy set: still the socket"

finish
