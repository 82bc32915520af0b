# HTTP/2 connection lifecycle: -R against a server that closes idle
# connections (the schedule's idle stack, no overflow under ASan); servers
# on whose connections no stream can open (no SETTINGS, a limit of 0
# streams, whether the first stream was refused, answered or ignored, or
# the limit lowered to 0 later), given up within --timeout and retried
# with the connect backoff; and streams the server refuses or leaves unprocessed (REFUSED_STREAM,
# GOAWAY with last stream id 0), retried a bounded number of times, then
# failed with the server's reason. Exact counts against the servers' own.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

tls_certs || exit 1

nginx_h2_count() { grep -c '^HTTP/2.0 ' "$T/nginx_h2.access" || true; }

# -R, 4 streams on each of 2 connections, arrivals 250 ms apart: every
# connection waits on the schedule with its 4 free streams, and nginx
# closes it after 100 ms idle (GOAWAY, then the close); it then waits
# again, its entries still on the idle stack (before the fix: one entry
# too many, a heap-buffer-overflow under ASan). Every request is counted
# once and nginx answered each completed one.
for mode in --h2c --http2; do
    if [ "$mode" = --h2c ]; then start_nginx_h2 --h2c "keepalive_timeout 100ms;" || continue
    else start_nginx_h2 "keepalive_timeout 100ms;" || continue; fi
    name=idle${mode#--}
    runv "$name" -R 4 -d 2s -c 2 --streams 4 "$mode" "$h2url/"
    check_rate_rc "$name: exit status ($(tail -c 300 "$T/$name.err"))"
    adds_up "$name"
    check_eq "$(jv "$name" requests.started)" 8 "$name: arrivals"
    check_ge "$(jv "$name" http2.connections)" 3 "$name: idle connections closed, new ones opened"
    kill "$H2_PID" 2>/dev/null || true
    wait "$H2_PID" 2>/dev/null || true
    check_eq "$(nginx_h2_count)" "$(jv "$name" requests.completed)" "$name: nginx answered each completed request"
    rm -f "$T/nginx_h2.access"
done

if h2_python_ok; then
    # No stream can open: a server that never sends SETTINGS, one that
    # allows 0 streams (and refuses the stream sent before its SETTINGS
    # were read). Each connection is given up when its request's --timeout
    # runs out, the request failing with the reason; the next connection
    # waits the connect backoff. The run ends by itself (it used to hang).
    for mode in nosettings maxstreams0; do
        start_py_h2 "$mode"
        runv "$mode" -n 3 -c 1 -T 1s --no-probe --h2c "$py_h2_url/"
        check_no_response "$mode" "$mode" "3 requests failed: protocol 3"
        adds_up "$mode"
        check_eq "$(jv "$mode" http2.connections)" 3 "$mode: a connection for each request"
        check_eq "$(h2_stat "$mode" connections)" 3 "$mode: the server accepted what volley opened"
        check_eq "$(h2_stat "$mode" received)" 3 "$mode: the server got each request once"
        check_eq "$(jv "$mode" errors.connect)" 0 "$mode: no connect failure"
    done
    check_grep "$T/nosettings.out" "^    protocol: no SETTINGS from the server within the timeout \(3\)$" \
        "nosettings: the reason"
    check_grep "$T/maxstreams0.out" "^    protocol: the server allows 0 streams \(3\)$" "maxstreams0: the reason"
    check_eq "$(jv maxstreams0 http2.retried)" "$(h2_stat maxstreams0 reset)" "maxstreams0: each refusal retried"

    # Whatever came before: a server that answers the stream sent with the
    # preface (before its SETTINGS were read) and then allows 0 (first0),
    # one that lowers its limit to 0 after 3 answers on a connection
    # (lower0), one that allows 0 and neither answers nor refuses (silent0).
    # The next request waits for a stream; when its --timeout runs out
    # the connection is given up, the request failing with the reason, and
    # the next one goes on a new connection. The run ends by itself (with
    # first0 and lower0 it used to wait for ever: no request was waiting,
    # so no deadline ran). With -c 1 a request at a time, so the counts are
    # exact: first0 answers 1 a connection, lower0 3.
    start_py_h2 first0
    runv first0 -n 5 -c 1 -T 1s --no-probe --h2c "$py_h2_url/"
    check_eq "$RC" 0 "first0: exit status ($(tail -c 300 "$T/first0.err"))"
    adds_up first0
    check_eq "$(jv first0 requests.completed) $(jv first0 errors.protocol)" "3 2" "first0: 1 answered a connection, then 1 given up"
    check_eq "$(jv first0 http2.connections) $(h2_stat first0 connections)" "3 3" "first0: 3 connections, as the server counts them"
    check_eq "$(h2_stat first0 answered)" 3 "first0: the server answered each completed request"
    check_grep "$T/first0.out" "^    protocol: the server allows 0 streams \(2\)$" "first0: the reason"
    start_py_h2 lower0
    runv lower0 -n 5 -c 1 -T 1s --no-probe --h2c "$py_h2_url/"
    check_eq "$RC" 0 "lower0: exit status ($(tail -c 300 "$T/lower0.err"))"
    adds_up lower0
    check_eq "$(jv lower0 requests.completed) $(jv lower0 errors.protocol)" "4 1" "lower0: 3 answered, 1 given up, 1 answered"
    check_eq "$(jv lower0 http2.connections) $(h2_stat lower0 connections)" "2 2" "lower0: 2 connections, as the server counts them"
    check_eq "$(h2_stat lower0 answered) $(h2_stat lower0 lowered)" "4 1" "lower0: the server's answers, its limit lowered once"
    check_grep "$T/lower0.out" "^    protocol: the server allows 0 streams \(1\)$" "lower0: the reason"
    start_py_h2 silent0
    runv silent0 -n 2 -c 1 -T 1s --no-probe --h2c "$py_h2_url/"
    check_no_response silent0 silent0 "2 requests failed: protocol 2"
    adds_up silent0
    check_eq "$(jv silent0 http2.connections) $(h2_stat silent0 connections)" "2 2" "silent0: a connection for each request"
    check_grep "$T/silent0.out" "^    protocol: the server allows 0 streams \(2\)$" "silent0: the reason"
    # The same under -R, and a flow's batch (its streams sent with the
    # preface are answered; the next batch's first stream waits and its
    # connection is given up): each run ends by itself, every request
    # counted once, the waits failed with the reason.
    start_py_h2 first0
    runv first0R -R 20 -n 6 -c 1 --streams 4 -T 500ms --no-probe --h2c "$py_h2_url/"
    check_rate_rc "first0 -R: exit status ($(tail -c 300 "$T/first0R.err"))"
    adds_up first0R
    # (at most 4 streams go with a connection's preface: the 6th request at
    # the latest waits for a stream on a connection that answered)
    check_ge "$(jv first0R errors.protocol)" 1 "first0 -R: connections given up"
    check_eq "$(( $(jv first0R requests.completed) + $(jv first0R errors.protocol) ))" 6 "first0 -R: every request answered or given up"
    check_eq "$(jv first0R requests.completed)" "$(h2_stat first0 answered)" "first0 -R: the server answered each completed request"
    check_grep "$T/first0R.out" "^    protocol: the server allows 0 streams \([0-9]+\)$" "first0 -R: the reason"
    cat > "$T/first0_flow.lua" <<'EOF'
local s = {}
function s.user(u)
  local rs = u:batch{ "/", "/", "/" }
  local failed = 0
  for i = 1, #rs do if rs[i].failed then failed = failed + 1 end end
  volley.counter("given_failed", failed)
end
return s
EOF
    start_py_h2 first0
    runv first0F -s "$T/first0_flow.lua" -c 1 -T 500ms --iterations 3 --no-probe --h2c "$py_h2_url/"
    check_eq "$RC" 0 "first0 flow: exit status ($(tail -c 300 "$T/first0F.err"))"
    adds_up first0F
    check_eq "$(jv first0F iterations.completed)" 3 "first0 flow: every iteration ended"
    check_eq "$(jv first0F requests.completed)" "$(h2_stat first0 answered)" "first0 flow: the server answered each completed request"
    check_ge "$(jv first0F errors.protocol)" 1 "first0 flow: a connection given up"
    check_num "$(jv first0F metrics.counters.given_failed)" == "$(jv first0F requests.failed)" \
        "first0 flow: each failure came back to the user"
    # The same with -R: an arrival handed to a free stream of a connection
    # in its backoff waits for the backoff's end; each request is counted
    # once (failed, or cut off at the end), each connection as the server
    # counts it.
    start_py_h2 nosettings
    runv nosettingsR -R 10 -d 2s -c 2 --streams 4 -T 500ms --no-probe --h2c "$py_h2_url/"
    check_eq "$RC" 1 "nosettings -R: exit status"
    adds_up nosettingsR
    check_eq "$(( $(jv nosettingsR errors.protocol) + $(jv nosettingsR requests.cut_off) ))" \
        "$(jv nosettingsR requests.started)" "nosettings -R: every request failed or cut off"
    # (a connect under way when -d ends may reach the server's accept only)
    extra=$(( $(h2_stat nosettings connections) - $(jv nosettingsR http2.connections) ))
    check_eq "$(( extra == 0 || extra == 1 ))" 1 "nosettings -R: the server accepted what volley opened ($extra more)"
    check_grep "$T/nosettingsR.out" "^    protocol: no SETTINGS from the server within the timeout \([0-9]+\)$" \
        "nosettings -R: the reason"

    # Every stream refused: each request is sent 1 + 3 times on the one
    # connection (10, 20, 40 ms apart), then fails with the server's reason;
    # the retries are counted as retries, not as connects or failures.
    H2_RST_EVERY=1 H2_RST_CODE=REFUSED_STREAM start_py_h2 rst
    runv refuse -n 3 -c 1 --no-probe --h2c "$py_h2_url/"
    check_no_response refuse "every stream refused" "3 requests failed: protocol 3"
    adds_up refuse
    check_eq "$(h2_stat rst received) $(h2_stat rst reset)" "12 12" "refused: 4 tries a request at the server"
    check_eq "$(jv refuse http2.retried)" 9 "refused: 3 retries a request"
    check_eq "$(jv refuse http2.connections) $(h2_stat rst connections)" "1 1" "refused: one connection"
    check_grep "$T/refuse.out" "^    protocol: refused stream \(RST_STREAM REFUSED_STREAM\), retried 3 times \(3\)$" \
        "refused: the reason"
    check_grep "$T/refuse.out" " 9 retried \(refused or unprocessed\), " "refused: the retries on the HTTP/2 line"

    # GOAWAY NO_ERROR with last stream id 0 at once on every connection:
    # each request goes on 1 + 3 connections, each after the connect backoff
    # (the connections answered nothing), then fails with the GOAWAY.
    start_py_h2 goaway0
    runv goaway0 -n 2 -c 1 --no-probe --h2c "$py_h2_url/"
    check_no_response goaway0 "GOAWAY last_stream_id 0" "2 requests failed: protocol 2"
    adds_up goaway0
    check_eq "$(jv goaway0 http2.connections) $(h2_stat goaway0 connections)" "8 8" \
        "GOAWAY 0: 4 connections a request, as the server counts them"
    check_eq "$(jv goaway0 http2.retried)" 6 "GOAWAY 0: 3 retries a request"
    check_eq "$(jv goaway0 errors.connect)" 0 "GOAWAY 0: no connect failure"
    check_grep "$T/goaway0.out" "^    protocol: GOAWAY NO_ERROR last_stream_id 0, retried 3 times \(2\)$" \
        "GOAWAY 0: the reason"
else
    echo "skip: python3-h2 missing (the misbehaving server)"
fi

finish
