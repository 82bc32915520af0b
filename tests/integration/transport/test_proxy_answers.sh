# The CONNECT tunnel against a proxy that answers oddly (py/proxy_misbehave.py
# in front of the TLS volley-target): a minimal status line and one sent a
# byte at a time open the tunnel (every request completes); no status line,
# a close, an endless head and a refusal with a control byte in its reason
# are connect failures with their reasons, counted; a proxy that never
# answers is a timeout at --timeout. Each run bounded, none hangs.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"

PY=$(dirname "$TESTLIB")/py
tls_certs || exit 1
start_target --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY"
SECURE=$PORT

# misproxy MODE: proxy_misbehave.py in MODE; sets MP (its URL). Its log of
# CONNECT lines is $T/MODE.connects.
misproxy() {
    local pf=$T/$1.port pid
    python3 "$PY/proxy_misbehave.py" "$1" "$pf" "$SECURE" > "$T/$1.connects" 2> "$T/$1.pyerr" &
    pid=$!
    TARGET_PIDS+=("$pid")
    wait_port_file "$pf" "$pid" || { echo "proxy_misbehave.py $1 did not start: $(cat "$T/$1.pyerr")" >&2; exit 1; }
    MP=http://127.0.0.1:$(cat "$pf")
}

misproxy minimal
run_complete minimal 20 -c 2 --proxy "$MP" "https://127.0.0.1:$SECURE/"
check_eq "$(grep -c "^CONNECT 127\.0\.0\.1:$SECURE HTTP/1\.1$" "$T/minimal.connects")" 2 "a bare 200: a tunnel per connection"

misproxy split
run_complete split 10 -c 1 --proxy "$MP" "https://127.0.0.1:$SECURE/"
check_eq "$(jv split connections_opened)" 1 "an answer a byte at a time: one tunnel"

# refused MODE REASON: 3 requests, each a connect failure for REASON.
refused() {
    misproxy "$1"
    runv "$1" -n 3 -c 1 --timeout 5s --proxy "$MP" "https://127.0.0.1:$SECURE/"
    check_no_response "$1" "$1" "3 requests failed: connect 3"
    adds_up "$1"
    check_eq "$(jv "$1" connect_failures.reasons.0.reason)" "$2" "$1: the reason"
    check_eq "$(jv "$1" connect_failures.reasons.0.count)" 3 "$1: counted"
}
refused garbage "proxy: CONNECT answered with no HTTP status line"
refused close "proxy: closed the connection before answering CONNECT"
refused long "proxy: CONNECT answer's head longer than 2047 bytes"
refused refuse "proxy: CONNECT refused: 502 Bad"

misproxy stall
runv stall -n 2 -c 1 --timeout 300ms --proxy "$MP" "https://127.0.0.1:$SECURE/"
check_no_response stall "a proxy that never answers" "2 requests failed: timeout 2"
adds_up stall

finish
