# HTTP/2: exact accounting against the server's own counts over TLS (ALPN)
# and cleartext (h2c), with one and ten streams per connection; scripts per
# stream; -R; a server that chooses HTTP/1.1; and the failures: GOAWAY
# (retried, not lost), RST_STREAM, a tiny stream limit, a tiny window, a
# server that stops reading (timeouts, no hang), garbage (protocol).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

tls_certs || exit 1
S=$T/scripts
mkdir -p "$S"

# log_count: requests nginx logged over HTTP/2 (its log is complete once it
# has been stopped).
nginx_h2_count() { grep -c '^HTTP/2.0 ' "$T/nginx_h2.access" || true; }

if start_nginx_h2; then
    # Over TLS: one stream and ten streams per connection.
    run_complete tls1 300 -c 4 -t 2 --http2 "$h2url/"
    check_eq "$(jv tls1 tls.alpn)" h2 "TLS, 1 stream: ALPN h2"
    check_eq "$(jv tls1 http2.connections)" 4 "TLS, 1 stream: connections"
    check_eq "$(jv tls1 http2.max_streams_open)" 1 "TLS, 1 stream: one at a time"
    check_grep "$T/tls1.out" "^  HTTP/2 \(h2 or http/1\.1 by ALPN\), 1 stream per connection$" "TLS: header line"
    run_complete tls10 2000 -c 2 -t 1 --http2 --streams 10 "$h2url/"
    check_eq "$(jv tls10 http2.max_streams_open)" 10 "TLS, 10 streams: ten at a time"
    check_ge "$(jv tls10 http2.header_bytes.decoded)" "$(jv tls10 http2.header_bytes.wire)" "TLS: HPACK counts"
    run_complete big 20 -c 2 --http2 --streams 4 "$h2url/static/1m"
    check_ge "$(jv big bytes.read)" $((20 * 1048576)) "large bodies: bytes read"
    # --max-body bounds what a response() hook is given, per stream.
    printf 'return { response = function(conn, res) local b = res.body end }\n' > "$S/body.lua"
    runv maxbody -n 6 -c 1 --http2 --streams 3 --max-body 50000 -s "$S/body.lua" "$h2url/static/100k"
    adds_up maxbody
    check_eq "$(jv maxbody errors.validation)" 6 "--max-body: validation failures"
    check_eq "$(jv maxbody failures.reasons.0.reason)" "response larger than --max-body" "--max-body: the reason"
    check_eq "$(jv maxbody status.200)" 6 "--max-body: the streams still counted by status"
    # A response that response() fails is counted under its status too.
    printf 'return { response = function(conn, res) return false, "no" end }\n' > "$S/failall.lua"
    runv failall -n 10 -c 1 --http2 --streams 3 -s "$S/failall.lua" "$h2url/"
    adds_up failall
    check_eq "$(jv failall errors.validation)/$(jv failall status.200)" 10/10 "failed by response(): counted by status"
    check_grep "$T/failall.out" "^  Status 200: 10$" "failed by response(): the Status line"
    # A POST body larger than the initial window: flow control both ways.
    head -c 300000 /dev/zero | tr '\0' y > "$T/post.body"
    cat > "$S/post.lua" <<'LUA'
local s = {}
function s.response(conn, res) if res.body ~= "300000" then return false, "length " .. tostring(res.body) end end
return s
LUA
    run_complete post 10 -c 1 --http2 --streams 4 -m POST --body-file "$T/post.body" -s "$S/post.lua" "$h2url/post"
    check_eq "$(jv post errors.validation)" 0 "POST bodies: the server read them whole"
    kill "$H2_PID" 2>/dev/null || true
    wait "$H2_PID" 2>/dev/null || true
    check_eq "$(nginx_h2_count)" $((300 + 2000 + 20 + 6 + 10 + 10)) "TLS: nginx's own count"

    # Cleartext with prior knowledge; scripts per stream with per-connection
    # state; GOAWAY after 50 requests per connection (keepalive_requests).
    before=$(nginx_h2_count)
    start_nginx_h2 --h2c "keepalive_requests 50;"
    run_complete h2c 1000 -c 2 -t 1 --h2c --streams 10 "$h2url/"
    check_ge "$(jv h2c http2.connections)" 20 "h2c: GOAWAY every 50 requests, new connections"
    check_eq "$(jv h2c errors.protocol)" 0 "h2c: nothing lost to GOAWAY"
    cat > "$S/scenario.lua" <<'LUA'
local s = {}
function s.connect(conn) conn.n = 0 end
function s.request(conn)
  conn.n = conn.n + 1
  return { path = "/", headers = { ["X-N"] = tostring(conn.n) } }
end
function s.response(conn, res)
  if res.status ~= 200 or res.body ~= "hello world" then return false, "bad response" end
  if res.headers["Content-Length"] ~= "11" then return false, "headers" end
end
return s
LUA
    run_complete h2cscript 500 -c 2 -t 2 --h2c --streams 8 -s "$S/scenario.lua" "$h2url/"
    check_eq "$(jv h2cscript errors.validation)" 0 "h2c scenario: bodies and headers per stream"
    kill "$H2_PID" 2>/dev/null || true
    wait "$H2_PID" 2>/dev/null || true
    check_eq "$(nginx_h2_count)" $((before + 1000 + 500)) "h2c: nginx's own count"
else
    echo "skip: nginx with HTTP/2 does not start here"
fi

# A server that chooses HTTP/1.1 by ALPN: HTTP/1.1, said; with strict, tls.
if start_nginx_tls; then
    run_complete fallback 50 -c 2 --http2 "$nurl/"
    check_grep "$T/fallback.out" "^  HTTP/1\.1 instead: the server chose it by ALPN \(2 connections\)$" "fallback: said"
    check_eq "$(jv fallback http2.http1_fallbacks)" 2 "fallback: in the JSON"
    runv strict -n 4 -c 1 --no-probe --http2=strict "$nurl/"
    check_eq "$(jv strict errors.tls)" 4 "strict: tls failures"
    check_grep "$T/strict.out" "no application protocol" "strict: the server's alert"
fi

if h2_python_ok; then
    # GOAWAY after 20 streams on each connection: what was above its last
    # stream is sent again on a new connection; every request completes and
    # the server answered exactly as many.
    H2_GOAWAY_AFTER=20 start_py_h2 goaway
    run_complete goaway 100 -c 1 --h2c --streams 8 "$py_h2_url/"
    check_eq "$(h2_stat goaway answered)" 100 "GOAWAY: the server answered each request once"
    check_ge "$(h2_stat goaway goaways)" 4 "GOAWAY: sent"
    # Retried: what the server ignored, and what it closed before reading.
    check_ge "$(jv goaway http2.retried)" "$(h2_stat goaway ignored)" "GOAWAY: retried covers what the server ignored"

    # RST_STREAM on every third stream: protocol failures with the code.
    H2_RST_EVERY=3 H2_RST_CODE=INTERNAL_ERROR start_py_h2 rst
    runv rst -n 30 -c 1 --h2c --streams 4 "$py_h2_url/"
    check_eq "$RC" 0 "RST_STREAM: exit status"
    adds_up rst
    check_eq "$(jv rst errors.protocol)" "$(h2_stat rst reset)" "RST_STREAM: failures = resets"
    check_eq "$(jv rst requests.completed)" "$(h2_stat rst answered)" "RST_STREAM: completed = answered"
    check_grep "$T/rst.out" "^    protocol: RST_STREAM INTERNAL_ERROR \([0-9]+\)$" "RST_STREAM: the reason"
    # A malformed response (RFC 9113 8.1-8.2) on every third stream, three
    # kinds in turn: volley resets each stream and counts a protocol failure
    # with the rule it broke; the other streams of the connection go on.
    H2_BAD_EVERY=3 start_py_h2 malformed
    runv bad -n 60 -c 2 --h2c --streams 4 "$py_h2_url/"
    check_eq "$RC" 0 "malformed: exit status"
    adds_up bad
    check_eq "$(h2_stat malformed malformed) $(h2_stat malformed received)" "20 60" "malformed: the server's counts"
    check_eq "$(jv bad errors.protocol)" 20 "malformed: a protocol failure each"
    check_eq "$(jv bad requests.completed)" 40 "malformed: the others completed"
    check_eq "$(jv bad http2.connections)" 2 "malformed: no connection lost"
    check_grep "$T/bad.out" "^    protocol: malformed response: content-length does not match the content \\($(h2_stat malformed bad_length)\\)$" \
        "malformed: the content-length reason"
    check_grep "$T/bad.out" "^    protocol: malformed response: a bad field name \\($(h2_stat malformed bad_name)\\)$" \
        "malformed: the field name reason"
    check_grep "$T/bad.out" "^    protocol: malformed response: a connection-specific field \\($(h2_stat malformed bad_connection)\\)$" \
        "malformed: the connection-specific reason"
    # REFUSED_STREAM says the request was not processed: it is sent again
    # (RFC 9113 8.7), and every request completes. One stream at a time:
    # the retry is the next stream the server sees, which it answers (with
    # more streams the same request may be refused more than the 3 retries
    # it is allowed: test_h2_life.sh).
    H2_RST_EVERY=3 H2_RST_CODE=REFUSED_STREAM start_py_h2 rst
    run_complete refused 30 -c 1 --h2c --streams 1 "$py_h2_url/"
    check_eq "$(h2_stat rst reset)" 14 "REFUSED_STREAM: every third of 44 streams refused"
    check_eq "$(jv refused http2.retried)" "$(h2_stat rst reset)" "REFUSED_STREAM: each refusal retried"
    check_eq "$(h2_stat rst answered)" 30 "REFUSED_STREAM: the server answered each request once"

    # A limit of 2 streams: --streams 10 never goes past it.
    start_py_h2 maxstreams
    run_complete maxstreams 40 -c 1 --h2c --streams 10 "$py_h2_url/"
    check_eq "$(h2_stat maxstreams over_limit)" 0 "stream limit: never exceeded"
    check_eq "$(jv maxstreams http2.max_streams_open)" 2 "stream limit: 2 at most"

    # A tiny window: a 100 KB POST goes through in pieces; 1 MB responses.
    start_py_h2 tinywindow
    head -c 100000 /dev/zero | tr '\0' z > "$T/p100k"
    run_complete tiny 5 -c 1 --h2c --streams 2 -m POST --body-file "$T/p100k" "$py_h2_url/"
    check_eq "$(h2_stat tinywindow body_bytes)" 500000 "tiny window: every body byte arrived"
    run_complete tinybig 5 -c 1 --h2c --streams 2 --h2-window 65535 "$py_h2_url/big"
    check_ge "$(jv tinybig bytes.read)" $((5 * 1048576)) "small receive window: 1 MB bodies"

    # A server that stops reading: timeouts, and the run ends by itself.
    start_py_h2 stopread
    runv stopread -n 4 -c 1 --h2c --streams 4 --timeout 1s -m POST --body-file "$T/p100k" "$py_h2_url/"
    check_no_response stopread "stops reading" "4 requests failed: timeout 4"
    adds_up stopread
    check_eq "$(jv stopread errors.timeout)" 4 "stops reading: timeouts"

    # Garbage instead of HTTP/2: the start-up probe stops the run at once;
    # with --no-probe, protocol failures with nghttp2's reason.
    start_py_h2 garbage
    runv garbageprobe -n 3 -c 1 --h2c "$py_h2_url/"
    check_eq "$RC/$(cat "$T/garbageprobe.err")" \
        "1/volley: 127.0.0.1:$PY_H2_PORT: no HTTP/2 SETTINGS after the preface: does it speak h2c?" "garbage: the probe"
    check_eq "$(wc -c < "$T/garbageprobe.out")" 0 "garbage: no report"
    runv garbage -n 3 -c 1 --no-probe --h2c "$py_h2_url/"
    check_no_response garbage "garbage" "3 requests failed: protocol 3"
    adds_up garbage
    check_eq "$(jv garbage errors.protocol)" 3 "garbage: protocol failures"

    # -R against a server slower than the rate with one stream: the send
    # lag grows and shows in the corrected latency, not in the service time.
    H2_DELAY_MS=50 start_py_h2 ok
    runv rate -R 40 -d 2s -c 1 --h2c --streams 1 "$py_h2_url/"
    check_eq "$RC" 3 "-R too fast for the server: rate not met"
    adds_up rate
    python3 - "$T/rate.json" <<'PY' && ok || fail "-R: latency p99 well above the service time"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["latency"]["p99"] > 4 * r["service"]["p50"], (r["latency"]["p99"], r["service"]["p50"])
PY
else
    echo "skip: python3-h2 missing (the misbehaving server)"
fi

# Bad combinations: exit 2, nothing sent.
start_target
for bad in "--http2|http://127.0.0.1:$PORT/|needs an https:// URL" \
           "--h2c|https://127.0.0.1:$PORT/|is HTTP/2 over http://" \
           "--streams 4|http://127.0.0.1:$PORT/|--streams: needs --http2 or --h2c"; do
    IFS='|' read -r opt url msg <<< "$bad"
    runv badopt $opt -n 1 "$url"
    check_eq "$RC" 2 "$opt with $url: exit status"
    check_grep "$T/badopt.err" "$msg" "$opt with $url: message"
done
printf 'function delay() return 1 end\n' > "$S/delay.lua"
runv baddelay --h2c -n 1 -s "$S/delay.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC" 2 "delay() with HTTP/2: exit status"
check_eq "$(target_stat received)" 0 "bad combinations: nothing sent"
# --h2c against a server that speaks only HTTP/1.1: the probe's preface
# gets no SETTINGS; one line, exit 1, no request of the run sent.
runv noh2c --h2c -n 100 -c 4 "http://127.0.0.1:$PORT/"
check_eq "$RC/$(cat "$T/noh2c.err")" \
    "1/volley: 127.0.0.1:$PORT: no HTTP/2 SETTINGS after the preface: does it speak h2c?" "--h2c to HTTP/1.1: the probe"
check_eq "$(wc -c < "$T/noh2c.out")" 0 "--h2c to HTTP/1.1: no report"
check_eq "$(target_stat received)" 0 "--h2c to HTTP/1.1: no request counted by the server"
finish
