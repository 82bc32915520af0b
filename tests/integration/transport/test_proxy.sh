# HTTP proxies (--proxy, the environment as curl reads it): Debian's
# tinyproxy, started here on loopback in the foreground, in front of
# volley-target. Counted exactly against the target's request log and
# tinyproxy's own log: http:// requests in absolute-form, https:// through
# CONNECT with TLS (SNI, keep-alive inside the tunnel) to the TLS target, a
# flow, the variables (http_proxy, not HTTP_PROXY; HTTPS_PROXY; NO_PROXY),
# credentials (tinyproxy's BasicAuth), a proxy that refuses CONNECT (a
# connect failure with its status as the reason) and one that is down.
# tinyproxy closes each client connection after its response (it keeps no
# connection alive to clients), so http:// runs through it are
# --no-keepalive; the tunnels of https:// stay open.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

command -v tinyproxy > /dev/null || { echo "no tinyproxy (Debian's tinyproxy, TEST_PACKAGES)" >&2; exit 1; }

start_target --log "$T/plain.log"
PLAIN=$PORT PLAIN_PID=$TPID
tls_certs || exit 1
start_target --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY" --log "$T/tls.log" --tls-log "$T/hs.log"
SECURE=$PORT SECURE_PID=$TPID

# The targets' logs are complete once they have exited: their counts are
# checked at the end (later FILE ERE N WHAT).
LATER=()
later() { LATER+=("$1" "$2" "$3" "$4"); }

# start_tinyproxy NAME [DIRECTIVE...]: tinyproxy on a free loopback port,
# its log in $T/NAME.log (LogLevel Connect: a line per request and tunnel);
# sets TP_PORT. Each DIRECTIVE is a line of its config.
start_tinyproxy() {
    local name=$1 attempt pid
    shift
    for attempt in 1 2 3 4 5; do
        TP_PORT=$(tls_free_port)
        {
            printf 'Port %s\nListen 127.0.0.1\nTimeout 30\nAllow 127.0.0.1\nMaxClients 200\n' "$TP_PORT"
            printf 'LogFile "%s"\nLogLevel Connect\nDisableViaHeader Yes\n' "$T/$name.log"
            printf '%s\n' "$@"
        } > "$T/$name.conf"
        timeout -k 5 100 tinyproxy -d -c "$T/$name.conf" > "$T/$name.out" 2>&1 &
        pid=$!
        TARGET_PIDS+=("$pid")
        tls_wait_listen "$TP_PORT" "$pid" && return 0
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    echo "tinyproxy did not start: $(tail -3 "$T/$name.out")" >&2
    exit 1
}

# count FILE ERE: lines of FILE that match.
count() { grep -cE -- "$2" "$1" || true; }

start_nginx_h2 || exit 1 # HTTP/2 over TLS (h2_lib.sh)
start_tinyproxy tp "ConnectPort $SECURE" "ConnectPort $H2_PORT"
OK_PROXY=http://127.0.0.1:$TP_PORT
start_tinyproxy deny "ConnectPort 443"
DENY_PROXY=http://127.0.0.1:$TP_PORT
start_tinyproxy auth "ConnectPort $SECURE" "BasicAuth volley s3cret"
AUTH_PROXY=127.0.0.1:$TP_PORT

# http:// through the proxy: absolute-form, every request through it once.
run_complete abs 40 -c 4 --no-keepalive --proxy "$OK_PROXY" "http://127.0.0.1:$PLAIN/abs"
check_eq "$(count "$T/tp.log" "Request \(file descriptor [0-9]+\): GET http://127\.0\.0\.1:$PLAIN/abs HTTP/1\.1$")" 40 \
    "absolute-form: the proxy's count"
later "$T/plain.log" " GET /abs$" 40 "absolute-form: the target's count"
check_eq "$(jv abs target.proxy)" "$OK_PROXY" "absolute-form: the JSON's proxy"
check_grep "$T/abs.out" "^Running 40 requests @ http://127\.0\.0\.1:$PLAIN/abs through proxy http://127\.0\.0\.1:[0-9]+$" \
    "absolute-form: the header names the proxy"

# https:// through CONNECT: TLS to the target inside the tunnel, SNI its
# host, 10 connections kept alive: one tunnel each.
run_complete tunnel 400 -c 10 -t 2 --proxy "$OK_PROXY" "https://localhost:$SECURE/tunnel"
later "$T/tls.log" " GET /tunnel$" 400 "CONNECT: the target's count"
check_eq "$(jv tunnel connections_opened)" 10 "CONNECT: 10 connections"
check_eq "$(count "$T/tp.log" "Request \(file descriptor [0-9]+\): CONNECT localhost:$SECURE HTTP/1\.1$")" 10 \
    "CONNECT: a tunnel per connection in the proxy's log"
check_eq "$(( $(jv tunnel tls.handshakes.full) + $(jv tunnel tls.handshakes.resumed) ))" 10 "CONNECT: a handshake per tunnel"
later "$T/hs.log" " localhost http/1\.1$" 10 "CONNECT: SNI and ALPN as without a proxy"

# HTTP/2 by ALPN inside the tunnel: nginx counts every stream.
run_complete h2 300 -c 2 --http2 --streams 10 --proxy "$OK_PROXY" "$h2url/"
check_eq "$(jv h2 tls.alpn)" null "--http2: no probe through the tunnel, so no ALPN known before the run"
check_eq "$(jv h2 connections_opened)" 2 "--http2: 2 connections"
check_eq "$(jv h2 http2.connections)" 2 "--http2: both spoke HTTP/2"
check_eq "$(count "$T/tp.log" "CONNECT 127\.0\.0\.1:$H2_PORT HTTP/1\.1$")" 2 "--http2: a tunnel per connection"
later "$T/nginx_h2.access" "^HTTP/2\.0 GET / 200 " 300 "--http2: nginx's count"

# Two shards through the proxy, merged: the proxy and its address kept.
for i in 0 1; do
    runv "shard$i" -n 12 --run-id px --shard "$i/2" -c 2 --no-keepalive --proxy "$OK_PROXY" "http://127.0.0.1:$PLAIN/shard"
    check_eq "$(jv "shard$i" requests.completed)" 6 "shard $i: its half"
done
RC=0
timeout -s KILL 60 "$VOLLEY" merge -q "$T/shard0.json" "$T/shard1.json" --json "$T/merged.json" 2> "$T/merged.err" || RC=$?
check_eq "$RC" 0 "merged shards: exit status ($(head -c 300 "$T/merged.err"))"
json_flatten < "$T/merged.json" > "$T/merged.flat"
check_eq "$(jv merged target.proxy)" "$OK_PROXY" "merged shards: the proxy"
check_eq "$(jv merged target.address)" "${OK_PROXY#http://}" "merged shards: the proxy's address"
check_eq "$(jv merged requests.completed)" 12 "merged shards: completed"

# A flow through the proxy: every request of every iteration.
mkdir -p "$T/s"
cat > "$T/s/flow.lua" <<'EOF'
local s = {}
function s.user(u)
  u:get("/flow-a", {name = "a"})
  u:post("/flow-b", {json = {n = 1}, name = "b"})
end
return s
EOF
runv flow -s "$T/s/flow.lua" --iterations 12 -c 3 --no-keepalive --proxy "$OK_PROXY" "http://127.0.0.1:$PLAIN/"
check_eq "$RC" 0 "flow: exit status ($(head -c 300 "$T/flow.err"))"
check_eq "$(count "$T/tp.log" "GET http://127\.0\.0\.1:$PLAIN/flow-a HTTP")" 12 "flow: GETs through the proxy"
check_eq "$(count "$T/tp.log" "POST http://127\.0\.0\.1:$PLAIN/flow-b HTTP")" 12 "flow: POSTs through the proxy"
later "$T/plain.log" " POST /flow-b$" 12 "flow: the target's count"

# A wrk-style script's wrk.format, through the proxy.
printf 'request = function() return wrk.format("GET", "/wrk") end\n' > "$T/s/wrk.lua"
run_complete wrk 8 -s "$T/s/wrk.lua" -c 2 --no-keepalive --proxy "$OK_PROXY" "http://127.0.0.1:$PLAIN/"
check_eq "$(count "$T/tp.log" "GET http://127\.0\.0\.1:$PLAIN/wrk HTTP")" 8 "wrk.format: absolute-form"

# --targets (encoded before the proxy is known): each target's request in
# absolute-form, as many as the file's order gives each.
printf 'GET http://127.0.0.1:%s/tg-a\nPOST http://127.0.0.1:%s/tg-b\n' "$PLAIN" "$PLAIN" > "$T/targets.txt"
run_complete targets 10 -c 2 --no-keepalive --targets "$T/targets.txt" --proxy "$OK_PROXY"
check_eq "$(count "$T/tp.log" "GET http://127\.0\.0\.1:$PLAIN/tg-a HTTP/1\.1$")" 5 "--targets: the first target's"
check_eq "$(count "$T/tp.log" "POST http://127\.0\.0\.1:$PLAIN/tg-b HTTP/1\.1$")" 5 "--targets: the second target's"

# The environment: http_proxy (lower case) is read, HTTP_PROXY is not.
http_proxy=$OK_PROXY run_complete env_lower 6 --no-keepalive "http://127.0.0.1:$PLAIN/env-lower"
check_eq "$(count "$T/tp.log" "GET http://127\.0\.0\.1:$PLAIN/env-lower HTTP")" 6 "http_proxy: through the proxy"
HTTP_PROXY=$OK_PROXY run_complete env_upper 6 --no-keepalive "http://127.0.0.1:$PLAIN/env-upper"
check_eq "$(count "$T/tp.log" "env-upper")" 0 "HTTP_PROXY: not read for http://"
later "$T/plain.log" " GET /env-upper$" 6 "HTTP_PROXY: straight to the target"
check_eq "$(jv env_upper target.proxy)" 0 "HTTP_PROXY: no proxy in the JSON"
# HTTPS_PROXY for https://; NO_PROXY names the host to go past it.
HTTPS_PROXY=$OK_PROXY run_complete env_https 5 -c 1 "https://127.0.0.1:$SECURE/env-https"
check_eq "$(count "$T/tp.log" "CONNECT 127\.0\.0\.1:$SECURE HTTP")" 1 "HTTPS_PROXY: one tunnel"
http_proxy=$OK_PROXY NO_PROXY=localhost,127.0.0.0/8 run_complete env_no 6 --no-keepalive "http://127.0.0.1:$PLAIN/env-no"
check_eq "$(count "$T/tp.log" "env-no")" 0 "NO_PROXY: past the proxy"
later "$T/plain.log" " GET /env-no$" 6 "NO_PROXY: the target's count"
http_proxy=$OK_PROXY run_complete env_off 3 --no-keepalive --proxy '' "http://127.0.0.1:$PLAIN/env-off"
check_eq "$(count "$T/tp.log" "env-off")" 0 "--proxy '': no proxy whatever the environment says"

# volley ab: ab's -X (the full URL to the proxy, ab's way), and no proxy
# from the environment, as ab reads none.
RC=0
timeout -s KILL 60 "$VOLLEY" ab -n 6 -c 2 -X "127.0.0.1:${OK_PROXY##*:}" "http://127.0.0.1:$PLAIN/ab-x" \
    > "$T/ab_x.out" 2> "$T/ab_x.err" || RC=$?
check_eq "$RC" 0 "ab -X: exit status ($(head -c 300 "$T/ab_x.err"))"
check_eq "$(count "$T/tp.log" "GET http://127\.0\.0\.1:$PLAIN/ab-x HTTP/1\.0$")" 6 "ab -X: through the proxy"
RC=0
http_proxy=$OK_PROXY timeout -s KILL 60 "$VOLLEY" ab -n 6 "http://127.0.0.1:$PLAIN/ab-env" \
    > "$T/ab_env.out" 2> "$T/ab_env.err" || RC=$?
check_eq "$RC" 0 "ab with http_proxy set: exit status ($(head -c 300 "$T/ab_env.err"))"
check_eq "$(count "$T/tp.log" "ab-env")" 0 "ab with http_proxy set: not through it"
later "$T/plain.log" " GET /ab-env$" 6 "ab with http_proxy set: straight to the target"

# Credentials from the URL: Proxy-Authorization Basic, on requests and on
# CONNECT; never in the report or the JSON.
run_complete auth_abs 4 --no-keepalive --proxy "http://volley:s3cret@$AUTH_PROXY" "http://127.0.0.1:$PLAIN/auth"
later "$T/plain.log" " GET /auth$" 4 "credentials: accepted by the proxy"
run_complete auth_tls 4 -c 1 --proxy "http://volley:s3cret@$AUTH_PROXY" "https://127.0.0.1:$SECURE/auth"
later "$T/tls.log" " GET /auth$" 4 "credentials: CONNECT accepted"
check_eq "$(cat "$T"/auth_*.json "$T"/auth_*.out | grep -c s3cret)" 0 "credentials: not in the report or the JSON"
runv noauth -n 3 -c 1 --proxy "http://$AUTH_PROXY" "https://127.0.0.1:$SECURE/noauth"
check_eq "$(jv noauth errors.connect)" 3 "no credentials: connect failures"
check_eq "$(jv noauth connect_failures.reasons.0.reason)" "proxy: CONNECT refused: 407 Proxy Authentication Required" \
    "no credentials: the proxy's 407 as the reason"

# A proxy that refuses the tunnel: each request a connect failure with the
# proxy's status as the reason, counted, and the run ends.
runv refused -n 5 -c 1 --proxy "$DENY_PROXY" "https://127.0.0.1:$SECURE/refused"
check_no_response refused "refused CONNECT" "5 requests failed: connect 5"
adds_up refused
check_eq "$(jv refused connect_failures.reasons.0.reason)" "proxy: CONNECT refused: 403 Access violation" \
    "refused CONNECT: the reason in the JSON"
check_eq "$(jv refused connect_failures.reasons.0.count)" 5 "refused CONNECT: counted"
check_grep "$T/refused.out" "^    connect: proxy: CONNECT refused: 403 Access violation \(5\)$" "refused CONNECT: the report's line"
later "$T/tls.log" "refused" 0 "refused CONNECT: nothing reached the target"

# A proxy that is down: the probe names it (exit 1); without the probe the
# connects fail, counted, until --timeout gives up: no hang.
DOWN=$(tls_free_port)
runv down -n 5 --proxy "http://127.0.0.1:$DOWN" "https://127.0.0.1:$SECURE/"
check_eq "$RC" 1 "proxy down: exit status"
check_grep "$T/down.err" "^volley: proxy http://127\.0\.0\.1:$DOWN \(--proxy\): 127\.0\.0\.1:$DOWN: connection refused$" \
    "proxy down: the probe names the proxy"
runv down_run -d 20s --no-probe --timeout 1s --proxy "http://127.0.0.1:$DOWN" "http://127.0.0.1:$PLAIN/down"
check_eq "$RC" 1 "proxy down, no probe: exit status"
check_ge "$(jv down_run errors.connect)" 1 "proxy down, no probe: connect failures counted"
adds_up down_run
check_grep "$T/down_run.err" "^volley: proxy http://127\.0\.0\.1:$DOWN at 127\.0\.0\.1:$DOWN: unreachable for longer than --timeout" \
    "proxy down, no probe: the stop names the proxy"
later "$T/plain.log" " GET /down$" 0 "proxy down: nothing reached the target"

# What cannot go through a proxy, refused at once.
runv bad_scheme -n 1 --proxy socks5://127.0.0.1:1 "http://127.0.0.1:$PLAIN/"
check_eq "$RC" 2 "socks5: exit status"
check_grep "$T/bad_scheme.err" "^volley: --proxy: socks5://127\.0\.0\.1:1: only http:// proxies are supported" "socks5: the line"
runv h2c -n 1 --h2c --proxy "$OK_PROXY" "http://127.0.0.1:$PLAIN/"
check_eq "$RC" 2 "--h2c through a proxy: exit status"
check_grep "$T/h2c.err" "--h2c\) does not go through a proxy" "--h2c through a proxy: the line"
http_proxy=http://127.0.0.1:99999 runv bad_env -n 1 "http://127.0.0.1:$PLAIN/"
check_eq "$RC" 2 "bad http_proxy: exit status"
check_grep "$T/bad_env.err" "^volley: http_proxy: http://127\.0\.0\.1:99999: bad port" "bad http_proxy: names the variable"

kill "$PLAIN_PID" "$SECURE_PID" "$H2_PID"
wait "$PLAIN_PID" "$SECURE_PID" "$H2_PID" 2>/dev/null || true
for ((i = 0; i < ${#LATER[@]}; i += 4)); do
    check_eq "$(count "${LATER[i]}" "${LATER[i + 1]}")" "${LATER[i + 2]}" "${LATER[i + 3]}"
done
finish
