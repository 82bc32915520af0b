# HTTPS failures, each one counted with its reason or stopped at the probe
# with it, never a crash or a hang: a plain server behind an https URL, a
# server that stalls in the handshake, a close without close_notify inside
# a body; and resumption as nginx saw it, TLS 1.2 and 1.3.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"

tls_certs || exit 1

# A plain HTTP server behind https://: the probe says so (exit 1); without
# the probe every request is a tls failure with OpenSSL's reason.
start_py_tls plain
runv plain -n 5 "$pyurl/"
check_eq "$RC" 1 "plain server: exit status"
check_grep "$T/plain.err" "^volley: 127\.0\.0\.1:$PY_PORT: TLS handshake: " "plain server: reason at the probe"
check_one_line "$T/plain.err" "plain server"
runv plain_run -n 6 -c 2 -t 1 --no-probe "$pyurl/"
check_no_response plain_run "plain server, no probe" "6 requests failed: tls 6"
adds_up plain_run
check_eq "$(jv plain_run errors.tls)" 6 "plain server, no probe: tls failures"
check_ge "$(jv plain_run tls.reasons.0.count)" 1 "plain server, no probe: a reason"

# A server that stalls in the handshake: a timeout, not a hang.
start_py_tls stall
runv stall -n 5 --timeout 1s "$pyurl/"
check_eq "$RC" 1 "handshake stall: exit status"
check_grep "$T/stall.err" "TLS handshake timed out" "handshake stall: reason at the probe"
runv stall_run -n 4 -c 2 -t 1 --timeout 1s --no-probe "$pyurl/"
check_no_response stall_run "handshake stall, no probe" "4 requests failed: timeout 4"
adds_up stall_run
check_eq "$(jv stall_run errors.timeout)" 4 "handshake stall, no probe: timeouts"

# A close without close_notify inside a framed body: read failures.
start_py_tls cutbody
runv cutbody -n 6 -c 2 -t 1 "$pyurl/"
check_no_response cutbody "cut body" "6 requests failed: read 6"
adds_up cutbody
check_eq "$(jv cutbody errors.read)" 6 "cut body: read failures"

# Resumption from nginx's side: by default at least 95 % of reconnects
# resume, with --tls-resume=off none does; TLS 1.3 and TLS 1.2.
for proto in TLSv1.3 TLSv1.2; do
    if ! start_nginx_tls --protocols "$proto"; then
        echo "skip: nginx does not start here (resumption from the server's side untested)"
        break
    fi
    : > "$T/nginx.access"
    runv "resume_$proto" -n 200 -c 4 -t 2 --no-keepalive --no-probe "$nurl/"
    check_eq "$RC" 0 "$proto resume: exit status"
    adds_up "resume_$proto"
    sleep 0.3 # nginx writes its log line after the response
    total=$(grep -c " GET / 200 " "$T/nginx.access" || true)
    reused=$(grep -c "^$proto r " "$T/nginx.access" || true)
    check_eq "$total" 200 "$proto resume: nginx served 200"
    # The first connection of each thread (and any race of the first
    # ones) is a full handshake; 95 % of the rest resume.
    check_ge "$((reused * 100))" $(((total - 4) * 95)) "$proto resume: reused by nginx ($reused of $total)"
    check_eq "$(jv "resume_$proto" tls.handshakes.resumed)" "$reused" "$proto resume: volley and nginx agree"
    : > "$T/nginx.access"
    runv "full_$proto" -n 100 -c 2 -t 1 --no-keepalive --no-probe --tls-resume=off "$nurl/"
    sleep 0.3
    check_eq "$(grep -c " GET / 200 " "$T/nginx.access" || true)" 100 "$proto no resume: nginx served 100"
    check_eq "$(grep -c "^$proto r " "$T/nginx.access" || true)" 0 "$proto no resume: nothing reused"
    kill "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
done
finish
