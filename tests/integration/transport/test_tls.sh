# HTTPS against volley-target in its TLS mode: exact accounting against the
# server's own counts over keep-alive, new connections, chunked,
# read-until-close (with and without close_notify), large, tiny-record and
# large-POST exchanges, scripts and -R; handshake counts and resumption;
# SNI and ALPN as the server saw them; --verify and mutual TLS.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"

tls_certs || exit 1
start_tls_target --tls-log "$T/tls.log" --log "$T/req.log"
S=$T/scripts
mkdir -p "$S"
sent=0 # requests the server should have received so far

# tls_run NAME N ARGS...: volley over https with N requests; the accounting
# must add up, N complete, and the handshakes counted must be the
# connections opened.
tls_run() {
    local name=$1 n=$2
    run_complete "$@"
    check_eq "$(( $(jv "$name" tls.handshakes.full) + $(jv "$name" tls.handshakes.resumed) ))" \
        "$(jv "$name" connections_opened)" "$name: a handshake per connection"
    sent=$((sent + n))
}

# Keep-alive, two threads: every request reaches the server once.
tls_run keepalive 600 -c 4 -t 2 "$surl/"
check_eq "$(jv keepalive tls.protocol)" TLSv1.3 "keep-alive: protocol in the JSON"
check_eq "$(jv keepalive tls.alpn)" http/1.1 "keep-alive: ALPN in the JSON"
check_eq "$(jv keepalive tls.sni)" null "keep-alive: no SNI for an IP literal"
check_grep "$T/keepalive.out" "^  TLSv1\.3 TLS_[A-Z0-9_]+, group [a-zA-Z0-9]+, SNI none, ALPN http/1\.1$" "keep-alive: the header's TLS line"
check_grep "$T/keepalive.out" "^  TLS handshakes: [0-9]+ full, [0-9]+ resumed$" "keep-alive: handshake line"
check_eq "$(jv keepalive connections_opened)" 4 "keep-alive: 4 connections"
check_eq "$(tls_target_stat received)" "$sent" "keep-alive: the server's count"

# A new connection per request: each one resumes the thread's session.
tls_run noka 200 -c 4 -t 1 --no-keepalive -v "$surl/"
check_ge "$(jv noka tls.handshakes.resumed)" 190 "no keep-alive: resumed handshakes"
check_eq "$(jv noka handshake.count)" 200 "no keep-alive: handshake histogram"
check_grep "$T/noka.out" "^  Handshake " "no keep-alive: handshake line with -v"
tls_run fullhs 100 -c 2 -t 1 --no-keepalive --tls-resume=off "$surl/"
check_eq "$(jv fullhs tls.handshakes.resumed)" 0 "--tls-resume=off: no resumption"
check_eq "$(jv fullhs tls.handshakes.full)" 100 "--tls-resume=off: full handshakes"
check_eq "$(tls_target_stat received)" "$sent" "new connections: the server's count"

# Bodies: chunked, read-until-close (close_notify, and a bare TCP close),
# larger than the 64 KB read buffer, written one TLS record per byte.
tls_run chunked 50 -c 2 -t 1 "$surl/chunked/5000"
check_ge "$(jv chunked bytes.read)" $((50 * 5000)) "chunked: bytes read"
tls_run http10 30 -c 2 -t 1 "$surl/http10"
tls_run cutclose 30 -c 2 -t 1 "$surl/cutclose"
tls_run big 20 -c 2 -t 1 "$surl/bytes/200000"
check_ge "$(jv big bytes.read)" $((20 * 200000)) "large bodies: bytes read"
tls_run tiny 20 -c 2 -t 1 "$surl/tiny/3000"
check_ge "$(jv tiny bytes.read)" $((20 * 3000)) "tiny records: bytes read"
# A POST body larger than the socket buffer: partial TLS writes.
head -c 3000000 /dev/zero | tr '\0' x > "$T/big.body"
tls_run post 10 -c 2 -t 1 -m POST --body-file "$T/big.body" "$surl/"
check_ge "$(jv post bytes.written)" $((10 * 3000000)) "large POST: bytes written"
check_eq "$(tls_target_stat received)" "$sent" "bodies: the server's count"

# An EOF without close_notify inside a framed body is a read failure.
runv cut -n 10 -c 2 -t 1 "$surl/cut/500"
check_no_response cut "cut body" "10 requests failed: read 10"
adds_up cut
check_eq "$(jv cut errors.read)" 10 "cut body: read failures"
check_eq "$(jv cut errors.tls)" 0 "cut body: not TLS failures"
sent=$((sent + 10))

# Scripts: a wrk script sees the https scheme; a scenario validates bodies
# and reads the connection's TLS details.
cat > "$S/wrk.lua" <<'LUA'
function init(args) print("scheme " .. wrk.scheme) end
function request() return wrk.format("GET", "/chunked/100") end
function response(status, headers, body) if #body ~= 100 then error("body " .. #body) end end
LUA
tls_run wrkscript 100 -c 2 -t 2 -s "$S/wrk.lua" "$surl/"
check_eq "$(grep -c '^scheme https$' "$T/wrkscript.out")" 2 "wrk script: wrk.scheme"
cat > "$S/scenario.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  if res.body ~= "hello world" then return false, "bad body" end
  if not conn.tls or conn.tls.protocol ~= "TLSv1.2" or conn.tls.alpn ~= "http/1.1" then
    return false, "no conn.tls"
  end
end
function s.done(r) print("done " .. r.tls.protocol .. " " .. r.tls.full + r.tls.resumed) end
return s
LUA
tls_run scenario 100 -c 2 -t 1 --tls-max 1.2 --no-keepalive -s "$S/scenario.lua" "$surl/"
check_eq "$(jv scenario errors.validation)" 0 "scenario: conn.tls and bodies"
check_grep "$T/scenario.out" "^done TLSv1\.2 100$" "scenario: result.tls"
# The open model over TLS. On a loaded machine the first handshakes can
# hold the first arrivals back long enough that the rate sent falls under
# 99 % of 200/s (exit 3): what is checked is that every arrival went out,
# completed and reached the server.
runv rate -n 100 -R 200 -c 4 -t 1 "$surl/"
check_rate_rc "-R: exit status ($(head -c 300 "$T/rate.err"))"
adds_up rate
check_eq "$(jv rate requests.completed)" 100 "-R: completed"
check_eq "$(( $(jv rate tls.handshakes.full) + $(jv rate tls.handshakes.resumed) ))" "$(jv rate connections_opened)" \
    "-R: a handshake per connection"
sent=$((sent + 100))
check_eq "$(jv rate rate.unsent)" 0 "-R: everything sent"
check_eq "$(tls_target_stat received)" "$sent" "scripts and -R: the server's count"

# SNI and ALPN as the server saw them: host names send SNI, IP literals
# do not, --sni and --no-sni override.
sni_case() { # NAME ARGS...
    local name=$1
    shift
    runv "$name" -n 1 -c 1 -t 1 --no-probe "$@"
    check_eq "$RC" 0 "$name: exit status"
}
sni_case sni_host "https://localhost:$PORT/"
sni_case sni_ip "$surl/"
sni_case sni_given --sni example.test "$surl/"
sni_case sni_none --no-sni "https://localhost:$PORT/"
sent=$((sent + 4))
check_eq "$(tls_target_stat received)" "$sent" "SNI runs: the server's count"

# --verify: the right CA passes for a name and an IP literal; another CA
# stops the run at the probe with OpenSSL's reason.
tls_run verify_name 10 -c 1 -t 1 --cacert "$TLS_CA" "https://localhost:$PORT/"
tls_run verify_ip 10 -c 1 -t 1 --cacert "$TLS_CA" "$surl/"
runv verify_bad -n 10 --cacert "$TLS_OTHER_CA" "$surl/"
check_eq "$RC" 1 "verify failure: exit status"
check_grep "$T/verify_bad.err" "^volley: 127\.0\.0\.1:$PORT: TLS handshake: certificate verify failed" "verify failure: reason"
# The same failure during the run (no probe): counted as tls, by reason.
runv verify_run -n 6 -c 2 -t 1 --no-probe --cacert "$TLS_OTHER_CA" "$surl/"
check_no_response verify_run "verify failure in the run" "6 requests failed: tls 6"
adds_up verify_run
check_eq "$(jv verify_run errors.tls)" 6 "verify failure in the run: tls failures"
check_grep "$T/verify_run.out" "^    tls: certificate verify failed: .* \(6\)$" "verify failure in the run: reason line"
check_eq "$(jv verify_run tls.reasons.0.count)" 6 "verify failure in the run: reason in the JSON"
check_eq "$(tls_target_stat received)" "$sent" "verify: the server's count"
stop_target

# --verify checks the name sent: with --sni NAME, NAME (a certificate
# for a name only, reached at an IP address, passes with --sni and fails
# without it); a certificate for 127.0.0.1 only fails with --sni another.
tls_leaf sni-only DNS:sni-only.test || exit 1
start_target --tls-cert "$TLS_LEAF_CERT" --tls-key "$TLS_LEAF_KEY"
tls_run verify_sni 5 -c 1 -t 1 --cacert "$TLS_CA" --sni sni-only.test "https://127.0.0.1:$PORT/"
check_eq "$(jv verify_sni tls.sni)" sni-only.test "--verify --sni: the name sent"
runv verify_sni_ip -n 5 --cacert "$TLS_CA" "https://127.0.0.1:$PORT/"
check_eq "$RC" 1 "--verify, a name-only certificate at an IP: exit status"
check_grep "$T/verify_sni_ip.err" "TLS handshake: certificate verify failed" "--verify, a name-only certificate at an IP: reason"
check_eq "$(python3 "$TLS_PY/tls_get.py" --stat received 127.0.0.1 "$PORT")" 5 "--verify --sni: the server's count"
stop_target
tls_leaf ip-only IP:127.0.0.1 || exit 1
start_target --tls-cert "$TLS_LEAF_CERT" --tls-key "$TLS_LEAF_KEY"
tls_run verify_ip_only 5 -c 1 -t 1 --cacert "$TLS_CA" "https://127.0.0.1:$PORT/"
runv verify_ip_sni -n 5 --cacert "$TLS_CA" --sni other.test "https://127.0.0.1:$PORT/"
check_eq "$RC" 1 "--verify --sni other, an IP-only certificate: exit status"
check_grep "$T/verify_ip_sni.err" "TLS handshake: certificate verify failed" "--verify --sni other, an IP-only certificate: reason"
stop_target

# The server's TLS log: one line per handshake, SNI and ALPN as sent. The
# SNI runs made one handshake each after the probe's.
grep -E ' (localhost|-|example\.test) http/1\.1$' "$T/tls.log" > /dev/null && ok || fail "TLS log: ALPN http/1.1"
for want in "localhost http/1.1" "- http/1.1" "example.test http/1.1"; do
    check_ge "$(grep -c " $want\$" "$T/tls.log")" 1 "TLS log: '$want' seen"
done

# Mutual TLS: a server that wants a client certificate.
start_tls_target --tls-client-ca "$TLS_CA"
runv mtls_none -n 5 "$surl/"
check_eq "$RC" 1 "mTLS without a certificate: exit status"
check_grep "$T/mtls_none.err" "TLS handshake: .*(certificate required|handshake failure|alert)" "mTLS without a certificate: reason"
cat "$T/mtls_none.err" > "$T/mtls_reason"
# Refused during the run (TLS 1.3 says so after the handshake, at the first
# read): tls failures with the server's alert.
runv mtls_run -n 4 -c 2 -t 1 --no-probe "$surl/"
check_no_response mtls_run "mTLS refused in the run" "4 requests failed: tls 4"
adds_up mtls_run
check_eq "$(jv mtls_run errors.tls)" 4 "mTLS refused in the run: tls failures"
check_grep "$T/mtls_run.out" "^    tls: .*certificate required \(4\)$" "mTLS refused in the run: reason"
tls_run mtls_ok 20 -c 2 -t 1 --cert "$TLS_CLIENT_CERT" --key "$TLS_CLIENT_KEY" "$surl/"
stop_target

# A TLS-1.2-only server against --tls-min 1.3: refused at the probe.
start_tls_target --tls-max 1.2
runv minver -n 5 --tls-min 1.3 "$surl/"
check_eq "$RC" 1 "TLS 1.2 server, --tls-min 1.3: exit status"
check_grep "$T/minver.err" "TLS handshake: .*(protocol version|version)" "TLS 1.2 server, --tls-min 1.3: reason"
tls_run tls12 50 -c 2 -t 1 "$surl/"
check_eq "$(jv tls12 tls.protocol)" TLSv1.2 "TLS 1.2 server: protocol"
stop_target

# A TLS server behind http://: its answer is not HTTP (a parse failure) and
# nothing hangs.
start_tls_target
runv plain_to_tls -n 4 -c 1 -t 1 --timeout 3s "http://127.0.0.1:$PORT/"
check_no_response plain_to_tls "TLS server on http://" "4 requests failed: (read [0-9]+, parse [0-9]+|read 4|parse 4)"
adds_up plain_to_tls
check_eq "$(( $(jv plain_to_tls errors.parse) + $(jv plain_to_tls errors.read) ))" 4 "TLS server on http://: parse or read failures"
check_eq "$(jv plain_to_tls errors.timeout)" 0 "TLS server on http://: no timeouts"
stop_target
finish
