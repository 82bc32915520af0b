# The TLS test servers themselves, without volley: volley-target's TLS mode
# (paths, counters, resumption, SNI/ALPN in --tls-log, version range, mTLS,
# close_notify or not), nginx from start_nginx_tls and the misbehaving python
# servers of start_py_tls, all checked with python's ssl client
# (py/tls_get.py). Loopback only; every client call is bounded by timeout.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"

# tg NAME [tls_get.py args]: output in $T/NAME.txt, exit status in TG_RC.
tg() {
    local name=$1
    shift
    TG_RC=0
    timeout -s KILL 30 python3 "$TLS_PY/tls_get.py" "$@" > "$T/$name.txt" 2>&1 || TG_RC=$?
}
# line NAME N: the N-th line of $T/NAME.txt
line() { sed -n "${2}p" "$T/$1.txt"; }
# stat FILE KEY: a counter from a stats file
stat() { jget "$1" "$2"; }

# ---- certificates ---------------------------------------------------------
tls_certs
for f in "$TLS_CA" "$TLS_CERT" "$TLS_KEY" "$TLS_CLIENT_CERT" "$TLS_CLIENT_KEY" "$TLS_OTHER_CA"; do
    if [ -s "$f" ]; then ok; else fail "tls_certs: no $f"; fi
done
openssl verify -CAfile "$TLS_CA" "$TLS_CERT" "$TLS_CLIENT_CERT" > /dev/null 2>&1 && ok ||
    fail "tls_certs: certificates do not verify against the CA"
openssl verify -CAfile "$TLS_OTHER_CA" "$TLS_CERT" > /dev/null 2>&1 &&
    fail "tls_certs: the other CA verifies the server certificate" || ok
check_grep <(openssl x509 -in "$TLS_CERT" -noout -ext subjectAltName 2>&1) \
    "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1" "tls_certs: SAN"

# ---- volley-target over TLS: paths, counters, SNI, ALPN, resumption ------
start_tls_target --stats-file "$T/s1" --tls-log "$T/tls1" --log "$T/log1"
check_eq "$surl" "https://127.0.0.1:$PORT" "start_tls_target: surl"
tg paths --ca "$TLS_CA" --sni localhost --alpn h2,http/1.1 127.0.0.1 "$PORT" \
    / /tiny/100 /chunked/5000 /bytes/70000 /bytes/3000000 /tiny/20000 /cutclose
check_eq "$TG_RC" 0 "paths: exit status"
check_eq "$(line paths 1)" "conn 1 TLSv1.3 0 http/1.1 localhost" "paths: handshake"
check_eq "$(sed -n '2,8p' "$T/paths.txt" | tr '\n' '|')" \
    "resp / 200 11 - ok|resp /tiny/100 200 100 ok ok|resp /chunked/5000 200 5000 ok ok|resp /bytes/70000 200 70000 ok ok|resp /bytes/3000000 200 3000000 ok ok|resp /tiny/20000 200 20000 ok ok|resp /cutclose 200 11 - bare_eof|" \
    "paths: responses (/cutclose without close_notify)"
tg resume --ca "$TLS_CA" --conns 3 --resume 127.0.0.1 "$PORT" / /http10
check_eq "$(grep ^conn "$T/resume.txt" | cut -d' ' -f3,4 | tr '\n' ' ')" \
    "TLSv1.3 0 TLSv1.3 1 TLSv1.3 1 " "resume: second and third connections resumed"
check_eq "$(grep -c 'resp /http10 200 11 - close_notify' "$T/resume.txt")" 3 "/http10 ends with close_notify"
tg cut --ca "$TLS_CA" 127.0.0.1 "$PORT" /cut/5000
check_eq "$TG_RC" 1 "cut: exit status"
check_eq "$(line cut 2)" "resp /cut/5000 - - - error:eof_in_body:bare_eof" "cut: EOF in the body, no close_notify"
tg pipe --ca "$TLS_CA" --pipeline --body 100000 --close 127.0.0.1 "$PORT" /a /bytes/20000 /chunked/3000 /c
check_eq "$(grep -c ' ok$' "$T/pipe.txt")" 4 "pipelined requests with bodies"
tg tls12 --ca "$TLS_CA" --max 1.2 --conns 2 --resume --alpn http/1.1 127.0.0.1 "$PORT" /
check_eq "$(grep ^conn "$T/tls12.txt" | cut -d' ' -f3-5 | tr '\n' ' ')" \
    "TLSv1.2 0 http/1.1 TLSv1.2 1 http/1.1 " "TLS 1.2: resumed by the second connection"
# A plain-HTTP client on the TLS port: a failed handshake, no crash.
python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
try:
    s.recv(100)
except OSError:
    pass' "$PORT"
check_eq "$(tls_target_stat received)" 20 "tls_target_stat received"
check_eq "$(tls_target_stat tls_failed)" 1 "plain client on the TLS port: tls_failed"
stop_target
# 20 requests (7 + 3*2 + 1 + 4 + 2), all answered but /cut; 11 connections:
# 8 TLS ones, the plain one, 2 for /__stats; resumed: 2 in TLS 1.3, 1 in 1.2.
check_eq "$(stat "$T/s1" received)" 20 "stats: received"
check_eq "$(stat "$T/s1" answered)" 19 "stats: answered (not /cut)"
check_eq "$(stat "$T/s1" connections)" 11 "stats: connections"
check_eq "$(stat "$T/s1" tls_handshakes)" 10 "stats: tls_handshakes"
check_eq "$(stat "$T/s1" tls_resumed)" 3 "stats: tls_resumed"
check_eq "$(stat "$T/s1" tls_failed)" 1 "stats: tls_failed"
check_eq "$(wc -l < "$T/log1")" 20 "request log lines"
check_eq "$(head -1 "$T/tls1")" "1 TLSv1.3 0 localhost http/1.1" "tls-log: SNI and ALPN"
check_eq "$(sed -n 2,4p "$T/tls1" | tr '\n' '|')" \
    "2 TLSv1.3 0 - -|3 TLSv1.3 1 - -|4 TLSv1.3 1 - -|" "tls-log: resumption, no SNI for an IP"
check_eq "$(sed -n 7,8p "$T/tls1" | cut -d' ' -f2-3 | tr '\n' '|')" "TLSv1.2 0|TLSv1.2 1|" "tls-log: TLS 1.2"
check_eq "$(wc -l < "$T/tls1")" 10 "tls-log: one line per handshake"

# ---- the same new paths over plain TCP ------------------------------------
start_target
tg plain --plain 127.0.0.1 "$PORT" /tiny/300 /cutclose
check_eq "$(sed -n 2,3p "$T/plain.txt" | tr '\n' '|')" "resp /tiny/300 200 300 ok ok|resp /cutclose 200 11 - eof|" "plain: /tiny, /cutclose"
tg plaincut --plain 127.0.0.1 "$PORT" /cut/100
check_eq "$(line plaincut 2)" "resp /cut/100 - - - error:eof_in_body:eof" "plain: /cut"
check_eq "$(target_stat answered)" 2 "plain: answered (not /cut)"
stop_target

# ---- resumption off, close-every, version range, mTLS ---------------------
start_tls_target --tls-no-resume --close-every 2 --stats-file "$T/s2"
tg nores --ca "$TLS_CA" --conns 3 --resume 127.0.0.1 "$PORT" / /
check_eq "$(grep ^conn "$T/nores.txt" | cut -d' ' -f4 | tr '\n' ' ')" "0 0 0 " "--tls-no-resume: never resumed"
check_eq "$(grep -c ' ok$' "$T/nores.txt")" 6 "--close-every 2 over TLS"
stop_target
check_eq "$(stat "$T/s2" tls_resumed)" 0 "--tls-no-resume: tls_resumed"
check_eq "$(stat "$T/s2" answered)" 6 "--close-every 2: answered"

start_tls_target --tls-no-tickets --stats-file "$T/s3"
tg notick --ca "$TLS_CA" --conns 2 --resume 127.0.0.1 "$PORT" /
check_eq "$(grep ^conn "$T/notick.txt" | cut -d' ' -f4 | tr '\n' ' ')" "0 1 " "--tls-no-tickets: resumed from the cache"
stop_target

start_tls_target --tls-max 1.2 --stats-file "$T/s4"
tg only12 --ca "$TLS_CA" 127.0.0.1 "$PORT" /
check_eq "$(line only12 1 | cut -d' ' -f3)" TLSv1.2 "--tls-max 1.2: TLS 1.2"
tg want13 --ca "$TLS_CA" --min 1.3 127.0.0.1 "$PORT" /
check_eq "$TG_RC" 3 "--tls-max 1.2 refuses a TLS-1.3-only client"
stop_target
check_eq "$(stat "$T/s4" tls_failed)" 1 "--tls-max 1.2: tls_failed"

start_tls_target --tls-client-ca "$TLS_CA" --stats-file "$T/s5" --tls-log "$T/tls5"
tg mtls --ca "$TLS_CA" --cert "$TLS_CLIENT_CERT" --key "$TLS_CLIENT_KEY" --conns 2 --resume 127.0.0.1 "$PORT" /
check_eq "$TG_RC" 0 "mTLS: a client with a certificate"
check_eq "$(grep ^conn "$T/mtls.txt" | cut -d' ' -f4 | tr '\n' ' ')" "0 1 " "mTLS: resumed"
tg nocert --ca "$TLS_CA" 127.0.0.1 "$PORT" /
check_eq "$TG_RC" 3 "mTLS: a client without a certificate fails"
stop_target
check_eq "$(stat "$T/s5" tls_failed)" 1 "mTLS: tls_failed"
check_eq "$(stat "$T/s5" received)" 2 "mTLS: received"
check_eq "$(wc -l < "$T/tls5")" 2 "mTLS: failed handshakes are not logged"

# Bad TLS options exit 2 with a message naming the option.
RC=0; "$VOLLEY_TARGET" --tls-cert "$TLS_CERT" --max-seconds 1 > /dev/null 2> "$T/bad.err" || RC=$?
check_eq "$RC" 2 "--tls-cert without --tls-key"
RC=0; "$VOLLEY_TARGET" --tls-cert "$TLS_CERT" --tls-key "$TLS_CLIENT_KEY" --max-seconds 1 > /dev/null 2> "$T/bad.err" || RC=$?
check_eq "$RC" 2 "mismatched key"
check_grep "$T/bad.err" "tls-key" "mismatched key: message"
RC=0; "$VOLLEY_TARGET" --tls-max 1.2 --max-seconds 1 > /dev/null 2> "$T/bad.err" || RC=$?
check_eq "$RC" 2 "--tls-max without --tls-cert"

# ---- misbehaving python servers -------------------------------------------
start_py_tls stall
check_eq "$pyurl" "https://127.0.0.1:$PY_PORT" "start_py_tls: pyurl"
tg stall --timeout 1 127.0.0.1 "$PY_PORT" /
check_eq "$TG_RC" 3 "stall: the handshake times out"
check_grep "$T/stall.txt" "timed out" "stall: timed out"
start_py_tls plain
tg pyplain 127.0.0.1 "$PY_PORT" /
check_eq "$TG_RC" 3 "plain server behind https: handshake error"
tg pyplainhttp --plain 127.0.0.1 "$PY_PORT" / /
check_eq "$(grep -c 'resp / 200 11 - ok' "$T/pyplainhttp.txt")" 2 "plain server: answers HTTP"
start_py_tls cutbody
tg pycut --ca "$TLS_CA" 127.0.0.1 "$PY_PORT" /
check_eq "$(line pycut 2)" "resp / - - - error:eof_in_body:bare_eof" "cutbody: EOF in the body without close_notify"

# ---- nginx -----------------------------------------------------------------
if start_nginx_tls; then
    tg ngx --ca "$TLS_CA" --sni localhost --alpn http/1.1 --conns 2 --resume 127.0.0.1 "$NGINX_PORT" \
        / /static/100k /static/1m
    check_eq "$(grep ^conn "$T/ngx.txt" | cut -d' ' -f3-6 | tr '\n' '|')" \
        "TLSv1.3 0 http/1.1 localhost|TLSv1.3 1 http/1.1 localhost|" "nginx: handshakes"
    check_eq "$(grep -c ' ok$' "$T/ngx.txt")" 6 "nginx: responses"
    check_grep "$T/ngx.txt" "resp /static/1m 200 1048576 ok ok" "nginx: 1 MB file"
    tg ngx12 --ca "$TLS_CA" --max 1.2 127.0.0.1 "$NGINX_PORT" /
    check_eq "$(line ngx12 1 | cut -d' ' -f3)" TLSv1.2 "nginx: TLS 1.2"
    kill "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true   # flushes the access log
    check_eq "$(sed -n '1p;4p;7p' "$T/nginx.access" | tr '\n' '|')" \
        "TLSv1.3 . localhost http/1.1 GET / 200 11|TLSv1.3 r localhost http/1.1 GET / 200 11|TLSv1.2 . - - GET / 200 11|" \
        "nginx: access log fields"
    check_grep "$T/nginx.access" "^TLSv1.3 r localhost http/1.1 GET /static/1m 200 1048576$" "nginx: access log, 1 MB"
    if start_nginx_tls --no-resume --protocols TLSv1.3; then
        tg ngxnores --ca "$TLS_CA" --conns 2 --resume 127.0.0.1 "$NGINX_PORT" /
        check_eq "$(grep ^conn "$T/ngxnores.txt" | cut -d' ' -f3,4 | tr '\n' ' ')" "TLSv1.3 0 TLSv1.3 0 " "nginx --no-resume"
        tg ngxno12 --ca "$TLS_CA" --max 1.2 127.0.0.1 "$NGINX_PORT" /
        check_eq "$TG_RC" 3 "nginx --protocols TLSv1.3 refuses TLS 1.2"
    else
        fail "nginx started once but not with --no-resume"
    fi
else
    echo "$(basename "$0"): nginx checks skipped (nginx did not start)" >&2
fi

finish
