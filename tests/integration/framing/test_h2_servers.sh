# The HTTP/2 test servers themselves, without volley: the misbehaving python
# server of start_py_h2 in each mode (cleartext and TLS), nginx from
# start_nginx_h2 (TLS and h2c) and nghttpd, checked with h2load, nghttp and
# the strict python client (py/h2_get.py). Loopback only; every client call
# is bounded by timeout.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

for tool in h2load nghttp; do
    command -v "$tool" > /dev/null || { echo "$(basename "$0"): skipped, no $tool (nghttp2-client)" >&2; exit 0; }
done

# hl NAME [h2load args]: output in $T/NAME.txt, exit status in HL_RC.
hl() {
    local name=$1
    shift
    HL_RC=0
    timeout -s KILL 30 h2load "$@" > "$T/$name.txt" 2>&1 || HL_RC=$?
}
# hl_req NAME: h2load's request counts, "TOTAL started done succeeded failed errored timeout"
hl_req() { sed -n 's/^requests: \([0-9]*\) total, \([0-9]*\) started, \([0-9]*\) done, \([0-9]*\) succeeded, \([0-9]*\) failed, \([0-9]*\) errored, \([0-9]*\) timeout$/\1 \2 \3 \4 \5 \6 \7/p' "$T/$1.txt"; }
# result NAME: the python client's result line without "result "
result() { tail -1 "$T/$1.txt" | sed 's/^result //'; }
# stats MODE KEY...: the counters, space-separated
stats() {
    local mode=$1 k out=""
    shift
    for k in "$@"; do out+="$(h2_stat "$mode" "$k") "; done
    echo "${out% }"
}

if ! h2_python_ok; then
    echo "$(basename "$0"): python server checks skipped" >&2
else
# ---- ok: exact counts from h2load and the python client ---------------------
start_py_h2 ok
check_eq "$py_h2_url" "http://127.0.0.1:$PY_H2_PORT" "start_py_h2: py_h2_url"
hl ok1 -n 200 -c 2 -m 10 "$py_h2_url/"
check_eq "$(hl_req ok1)" "200 200 200 200 0 0 0" "ok: h2load"
check_eq "$(stats ok received answered reset connections)" "200 200 0 2" "ok: server counts after h2load"
max_open=$(h2_stat ok max_open_all)
if [ "$max_open" -ge 2 ] && [ "$max_open" -le 10 ]; then ok; else fail "ok: max_open_all $max_open not in 2..10"; fi
h2_get ok2 -n 30 -m 5 -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(result ok2)" "0 ok=30 reset=0 goaways=0 conns=1 retried=0 unanswered=0 bytes=330 error=none" "ok: python client"
check_eq "$(grep -c "^resp [0-9]* 200 11 'hello world'$" "$T/ok2.txt")" 30 "ok: 30 responses"
h2_get ok3 --path /big 127.0.0.1 "$PY_H2_PORT"
check_eq "$(h2_result ok3 bytes) $(h2_result ok3 ok)" "1048576 1" "ok: /big"
check_eq "$(stats ok received answered)" "231 231" "ok: server counts"
h2_wait_stat ok closed 4 && ok || fail "ok: closed $(h2_stat ok closed), expected 4"
check_eq "$(h2_stat ok connections)" 4 "ok: connections"
check_eq "$(h2_stat ok client_goaways)" 2 "ok: h2load's GOAWAYs"

# ---- goaway ------------------------------------------------------------------
# h2load does not retry after a GOAWAY: 5 answered, the other 7 errored.
H2_GOAWAY_AFTER=5 start_py_h2 goaway
hl ga1 -n 12 -c 1 -m 1 "$py_h2_url/"
check_eq "$(hl_req ga1)" "12 5 5 5 7 7 0" "goaway: h2load"
check_eq "$(stats goaway received answered ignored goaways)" "5 5 0 1" "goaway: counts after h2load"
h2_wait_stat goaway closed 1 && ok || fail "goaway: the server did not close the connection"
# The client sends 4 streams before it reads anything (--eager): the server
# answers 2, ignores 2 after its GOAWAY; the client retries those.
H2_GOAWAY_AFTER=2 start_py_h2 goaway
h2_get ga2 -n 6 -m 4 --eager -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(result ga2)" "0 ok=6 reset=0 goaways=3 conns=3 retried=4 unanswered=0 bytes=66 error=none" "goaway: python client"
check_eq "$(grep '^goaway' "$T/ga2.txt" | tr '\n' '|')" "goaway 3 NO_ERROR|goaway 3 NO_ERROR|goaway 3 NO_ERROR|" "goaway: last_stream_id"
check_eq "$(stats goaway received answered ignored goaways)" "10 6 4 3" "goaway: counts"
h2_wait_stat goaway closed 3 && ok || fail "goaway: closed $(h2_stat goaway closed), expected 3"

# ---- rst -----------------------------------------------------------------------
start_py_h2 rst
hl rst1 -n 30 -c 1 -m 4 "$py_h2_url/"
check_eq "$(hl_req rst1)" "30 30 30 20 10 10 0" "rst: h2load"
check_eq "$(stats rst received answered reset)" "30 20 10" "rst: counts after h2load"
h2_get rst2 -n 9 -m 3 -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result rst2 ok) $(h2_result rst2 reset)" "1 6 3" "rst: python client"
check_eq "$(grep -c '^reset [0-9]* INTERNAL_ERROR$' "$T/rst2.txt")" 3 "rst: INTERNAL_ERROR by default"
H2_RST_EVERY=2 H2_RST_CODE=REFUSED_STREAM start_py_h2 rst
h2_get rst3 -n 10 -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$(grep -c '^reset [0-9]* REFUSED_STREAM$' "$T/rst3.txt") $(h2_result rst3 ok)" "5 5" "rst: H2_RST_EVERY=2 REFUSED_STREAM"
check_eq "$(stats rst received answered reset)" "10 5 5" "rst: counts with H2_RST_EVERY=2"

# ---- maxstreams ------------------------------------------------------------------
start_py_h2 maxstreams
hl ms1 -n 100 -c 2 -m 10 "$py_h2_url/"
check_eq "$(hl_req ms1)" "100 100 100 100 0 0 0" "maxstreams: h2load -m 10"
check_eq "$(stats maxstreams received answered max_open over_limit)" "100 100 2 0" "maxstreams: h2load kept to 2 once it knew"
check_ge "$(h2_stat maxstreams max_open_all)" 2 "maxstreams: max_open_all"
# A client that ignores the limit: its streams over 2 are refused.
start_py_h2 maxstreams
h2_get ms2 -n 4 -m 4 --ignore-limit -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result ms2 ok) $(h2_result ms2 reset)" "1 2 2" "maxstreams: over the limit"
check_eq "$(grep -c '^reset [0-9]* REFUSED_STREAM$' "$T/ms2.txt")" 2 "maxstreams: REFUSED_STREAM"
check_eq "$(stats maxstreams max_open over_limit reset answered)" "3 2 2 2" "maxstreams: over_limit counted (the refused stream is closed)"
h2_get ms3 -n 6 -m 4 -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result ms3 ok)" "0 6" "maxstreams: a client within the limit"
timeout -s KILL 10 nghttp -nv "$py_h2_url/" > "$T/ms4.txt" 2>&1 || true
check_grep "$T/ms4.txt" "SETTINGS_MAX_CONCURRENT_STREAMS\(0x03\):2\]" "maxstreams: the setting sent"

# ---- tinywindow ------------------------------------------------------------------
start_py_h2 tinywindow
h2_get tw1 -n 2 -m 2 --post 100000 -v 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result tw1 ok)" "0 2" "tinywindow: 100 KB POSTs"
check_eq "$(grep -c "^resp [0-9]* 200 6 '100000'$" "$T/tw1.txt")" 2 "tinywindow: body length answered"
check_eq "$(stats tinywindow body_bytes answered)" "200000 2" "tinywindow: body bytes"
head -c 100000 /dev/zero > "$T/100k.body"
hl tw2 -n 3 -c 1 -m 2 -d "$T/100k.body" "$py_h2_url/"
check_eq "$(hl_req tw2)" "3 3 3 3 0 0 0" "tinywindow: h2load POSTs"
h2_get tw3 --path /big 127.0.0.1 "$PY_H2_PORT"
check_eq "$(h2_result tw3 bytes) $(h2_result tw3 ok)" "1048576 1" "tinywindow: /big"
timeout -s KILL 10 nghttp -nv -d "$T/100k.body" "$py_h2_url/" > "$T/tw4.txt" 2>&1 || true
check_grep "$T/tw4.txt" "SETTINGS_INITIAL_WINDOW_SIZE\(0x04\):100\]" "tinywindow: the setting sent"
check_ge "$(grep -c 'recv WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=[1-9]' "$T/tw4.txt")" 100 \
    "tinywindow: stream WINDOW_UPDATEs"
check_grep "$T/tw4.txt" "recv WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=0>" "tinywindow: connection WINDOW_UPDATEs"
check_grep "$T/tw4.txt" "recv DATA frame <length=6, flags=0x00, stream_id=13>" "tinywindow: nghttp's POST answered"

# ---- stopread: clients time out --------------------------------------------------
start_py_h2 stopread
h2_get sr1 --timeout 1 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result sr1 error)" "3 timeout" "stopread: GET times out"
h2_get sr2 --timeout 1 --post 1000000 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result sr2 error)" "3 timeout" "stopread: 1 MB POST times out"
hl sr3 -n 1 -N 1 "$py_h2_url/"
check_eq "$(hl_req sr3)" "1 1 0 0 1 1 1" "stopread: h2load -N 1 times out"
check_eq "$(stats stopread connections answered closed)" "3 0 0" "stopread: connections held"

# ---- garbage -----------------------------------------------------------------------
start_py_h2 garbage
h2_get gb1 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result gb1 error)" "4 protocol" "garbage: protocol error"
hl gb2 -n 1 "$py_h2_url/"
check_eq "$(hl_req gb2)" "1 1 0 0 1 1 0" "garbage: h2load fails"
check_eq "$(h2_stat garbage garbage_sent)" 2 "garbage: garbage_sent"

# ---- the python server over TLS ------------------------------------------------------
start_py_h2 ok --tls
check_eq "$py_h2_url" "https://127.0.0.1:$PY_H2_PORT" "start_py_h2 --tls: py_h2_url"
hl tls1 -n 50 -c 1 -m 5 "$py_h2_url/"
check_eq "$(hl_req tls1)" "50 50 50 50 0 0 0" "TLS ok: h2load"
check_grep "$T/tls1.txt" "^Application protocol: h2$" "TLS ok: ALPN h2"
h2_get tls2 --tls --ca "$TLS_CA" -n 5 -m 2 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result tls2 ok)" "0 5" "TLS ok: python client verifies the certificate"
check_eq "$(h2_stat ok answered)" 55 "TLS ok: answered"
H2_GOAWAY_AFTER=2 start_py_h2 goaway --tls
h2_get tls3 --tls --ca "$TLS_CA" -n 6 -m 4 --eager 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(result tls3)" "0 ok=6 reset=0 goaways=3 conns=3 retried=4 unanswered=0 bytes=66 error=none" "TLS goaway"
H2_RST_EVERY=2 start_py_h2 rst --tls
hl tls4 -n 10 -c 1 -m 2 "$py_h2_url/"
check_eq "$(hl_req tls4)" "10 10 10 5 5 5 0" "TLS rst: h2load"
start_py_h2 garbage --tls
h2_get tls5 --tls --ca "$TLS_CA" 127.0.0.1 "$PY_H2_PORT"
check_eq "$H2_RC $(h2_result tls5 error)" "4 protocol" "TLS garbage: protocol error"
fi

# ---- nginx ---------------------------------------------------------------------------
if start_nginx_h2; then
    check_eq "$h2url" "https://127.0.0.1:$H2_PORT" "start_nginx_h2: h2url"
    hl ngx1 -n 100 -c 2 -m 10 "$h2url/"
    check_eq "$(hl_req ngx1)" "100 100 100 100 0 0 0" "nginx TLS: h2load"
    check_grep "$T/ngx1.txt" "^Application protocol: h2$" "nginx TLS: ALPN h2"
    hl ngx2 -n 4 -c 1 "$h2url/static/1m"
    check_grep "$T/ngx2.txt" "^traffic: .*\(4194304\) data" "nginx TLS: /static/1m"
    if h2_python_ok; then
        h2_get ngx3 --tls --ca "$TLS_CA" -n 2 -m 2 --post 100000 -v --path /post 127.0.0.1 "$H2_PORT"
        check_eq "$(grep -c "^resp [0-9]* 200 6 '100000'$" "$T/ngx3.txt")" 2 "nginx TLS: /post reads the body"
        h2_get ngx4 --tls --ca "$TLS_CA" --path /static/100k 127.0.0.1 "$H2_PORT"
        check_eq "$(h2_result ngx4 bytes)" 100000 "nginx TLS: /static/100k"
    fi
    kill "$H2_PID"; wait "$H2_PID" 2>/dev/null || true   # flushes the access log
    check_eq "$(grep -c '^HTTP/2.0 GET / 200 11 [0-9]* [0-9]*$' "$T/nginx_h2.access")" 100 "nginx TLS: access log, /"
    check_eq "$(grep -c '^HTTP/2.0 GET /static/1m 200 1048576 ' "$T/nginx_h2.access")" 4 "nginx TLS: access log, /static/1m"
    h2_python_ok && check_eq "$(grep -c '^HTTP/2.0 POST /post 200 6 ' "$T/nginx_h2.access")" 2 "nginx TLS: access log, /post"
    : > "$T/nginx_h2.access"
    if start_nginx_h2 --h2c "http2_max_concurrent_streams 2;" "http2_max_requests 5;"; then
        check_eq "$h2url" "http://127.0.0.1:$H2_PORT" "start_nginx_h2 --h2c: h2url"
        hl ngx5 -n 5 -c 1 -m 1 "$h2url/"
        check_eq "$(hl_req ngx5)" "5 5 5 5 0 0 0" "nginx h2c: h2load"
        timeout -s KILL 10 nghttp -nv "$h2url/" > "$T/ngx6.txt" 2>&1 || true
        check_grep "$T/ngx6.txt" "SETTINGS_MAX_CONCURRENT_STREAMS\(0x03\):2\]" "nginx h2c: http2_max_concurrent_streams 2"
        if h2_python_ok; then
            h2_get ngx7 -n 12 -m 2 -v 127.0.0.1 "$H2_PORT"
            check_eq "$H2_RC $(h2_result ngx7 ok) $(h2_result ngx7 goaways) $(h2_result ngx7 conns)" "0 12 2 3" \
                "nginx h2c: GOAWAY after 5 requests (http2_max_requests as keepalive_requests)"
        fi
        kill "$H2_PID"; wait "$H2_PID" 2>/dev/null || true
        check_eq "$(cut -d' ' -f7 "$T/nginx_h2.access" | sort -n | tail -1)" 5 "nginx h2c: at most 5 requests a connection"
        check_grep "$T/nginx_h2.access" "^HTTP/2.0 GET / 200 11 [0-9]+ 5$" "nginx h2c: access log"
    else
        fail "nginx started with TLS but not with --h2c"
    fi
else
    echo "$(basename "$0"): nginx checks skipped (nginx did not start)" >&2
fi

# ---- nghttpd ---------------------------------------------------------------------------
if start_nghttpd; then
    check_eq "$nghttpd_url" "https://127.0.0.1:$NGHTTPD_PORT" "start_nghttpd: nghttpd_url"
    hl ngh1 -n 20 -c 1 -m 5 "$nghttpd_url/"
    check_eq "$(hl_req ngh1)" "20 20 20 20 0 0 0" "nghttpd TLS: h2load"
    check_grep "$T/ngh1.txt" "^Application protocol: h2$" "nghttpd TLS: ALPN h2"
    hl ngh2 -n 2 -c 1 "$nghttpd_url/1m"
    check_grep "$T/ngh2.txt" "^traffic: .*\(2097152\) data" "nghttpd TLS: /1m"
    if start_nghttpd --h2c --max-concurrent-streams=2; then
        check_eq "$nghttpd_url" "http://127.0.0.1:$NGHTTPD_PORT" "start_nghttpd --h2c: nghttpd_url"
        hl ngh3 -n 20 -c 1 -m 2 "$nghttpd_url/100k"
        check_eq "$(hl_req ngh3)" "20 20 20 20 0 0 0" "nghttpd h2c: h2load"
        check_grep "$T/ngh3.txt" "^traffic: .*\(2000000\) data" "nghttpd h2c: /100k"
        timeout -s KILL 10 nghttp -nv "$nghttpd_url/" > "$T/ngh4.txt" 2>&1 || true
        check_grep "$T/ngh4.txt" "SETTINGS_MAX_CONCURRENT_STREAMS\(0x03\):2\]" "nghttpd h2c: options passed on"
    else
        fail "nghttpd started with TLS but not with --h2c"
    fi
else
    echo "$(basename "$0"): nghttpd checks skipped (nghttpd did not start)" >&2
fi

finish
