# A connection keeps the backoff rule of the framing it speaks: --http2 to
# a TLS server that chooses HTTP/1.1 by ALPN resets the connect backoff once
# connected, as HTTP/1.1 does, not once a stream is answered, as HTTP/2
# does (over HTTP/1.1 none ever is: the backoff used to grow across the
# server's outages for the life of the run). The server (py/tls_misbehave.py
# outages) answers one request per connection and refuses connects for
# 300 ms after each: every outage starts the backoff from 10 ms again, so
# each has at least 3 refused connects (0, 10 and 30 ms in); a backoff
# carried over from the outage before starts at 320 ms or more, and the
# later outages have 1 each. Each refused connect is a failed request of
# -n's 20: at least 3 failed for each answered (up to the last) leaves 5
# answered at most, so at least twice as many failed as answered; 1 for
# each after the first outage's 5 or so makes it about 8 and 12.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"

tls_certs || exit 1

for mode in h1 fallback; do
    start_py_tls outages
    args=(-n 20 -c 1 -t 1 --timeout 5s --no-probe)
    [ "$mode" = fallback ] && args+=(--http2)
    runv "$mode" "${args[@]}" "$pyurl/"
    kill "$PY_PID" 2>/dev/null || true
    wait "$PY_PID" 2>/dev/null || true
    check_eq "$RC" 0 "$mode: exit status ($(tail -c 300 "$T/$mode.err"))"
    adds_up "$mode"
    answered=$(jv "$mode" requests.completed)
    check_ge "$answered" 1 "$mode: answered"
    check_eq "$(jv "$mode" errors.connect)" "$((20 - answered))" "$mode: the others refused"
    check_ge "$(jv "$mode" errors.connect)" "$((2 * answered))" "$mode: refused connects, 3 or more an outage"
done
check_eq "$(jv fallback http2.http1_fallbacks)" "$(jv fallback requests.completed)" \
    "fallback: each connection in HTTP/1.1"

finish
