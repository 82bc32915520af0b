# HTTP/2 connection lifecycle: -R against a server that closes idle
# connections (the schedule's idle stack, no overflow under ASan); servers
# on whose connections no stream can open (no SETTINGS, a limit of 0
# streams), given up within --timeout and retried with the connect
# backoff; and streams the server refuses or leaves unprocessed (REFUSED_STREAM,
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

finish
