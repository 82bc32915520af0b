# How an HTTP/2 response ends, and what is counted for it: a response()
# hook error with more responses in the same read (the rest cut off, none
# touched again), a stream reset with NO_ERROR before END_STREAM and a
# content-length that disagrees with the DATA (protocol failures), trailers
# (res.trailers, not the body, over HTTP/2 and chunked HTTP/1.1), and
# --http2 against a server that chooses HTTP/1.1 (counted per connection).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

tls_certs || exit 1
S=$T/scripts
mkdir -p "$S"

# The checks a trailers response must pass, in both styles of hook: the
# body is the content alone, the trailer is a field of res.trailers (any
# case), not a header; res.trailers is read twice (cached per response).
cat > "$S/trailers.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  if res.body ~= "hello" then return false, "body " .. string.format("%q", res.body) end
  if res.trailers["X-Trailer"] ~= "yes" or res.trailers["x-trailer"] ~= "yes" then return false, "no trailer" end
  if res.headers["x-trailer"] ~= nil then return false, "the trailer among the headers" end
  if res.trailers["content-length"] ~= nil then return false, "a header among the trailers" end
end
return s
LUA
cat > "$S/wrkbody.lua" <<'LUA'
function response(status, headers, body)
  if body ~= "hello" then return false, "body " .. string.format("%q", body) end
end
LUA
# No trailers: an empty table.
cat > "$S/notrailers.lua" <<'LUA'
return { response = function(conn, res)
  if next(res.trailers) ~= nil or res.body ~= "hello world" then return false, "trailers" end
end }
LUA

if h2_python_ok; then
    # Item: a response() error while more responses sit in the same read.
    # The server answers 4 streams in one write; the hook fails on the
    # first: that one completed, the other 3 cut off, the hook called once,
    # and the counts add up (before: an overflow in conn_h2_release under
    # ASan, 12884901888 cut off in a release build).
    H2_BATCH=4 start_py_h2 batch
    run_complete batchok 40 -c 1 -t 1 --h2c --streams 4 -s "$S/notrailers.lua" "$py_h2_url/"
    check_eq "$(h2_stat batch batches)/$(h2_stat batch answered)" 10/40 "batch: 4 responses a write"
    check_eq "$(jv batchok errors.validation)" 0 "batch: every response whole"
    cat > "$S/boom.lua" <<LUA
return { response = function(conn, res)
  local f = io.open("$T/boom.calls", "a"); f:write(res.status, "\n"); f:close()
  local b = res.body
  error("boom")
end }
LUA
    : > "$T/boom.calls"
    runv boom -n 40 -c 1 -t 1 --h2c --streams 4 -s "$S/boom.lua" "$py_h2_url/"
    check_eq "$RC" 1 "hook error: exit status"
    adds_up boom
    check_eq "$(jv boom requests.started)/$(jv boom requests.completed)/$(jv boom requests.cut_off)" 4/1/3 \
        "hook error: 4 started, 1 completed, 3 cut off"
    check_eq "$(wc -l < "$T/boom.calls")" 1 "hook error: response() called once"
    check_grep "$T/boom.err" "boom.lua:4: in response\(\): boom" "hook error: the message"
    check_eq "$(grep -c AddressSanitizer "$T/boom.err")" 0 "hook error: no ASan report"
    # The same with several connections and threads: whatever read the
    # error came in, the counts add up and the hook runs no more.
    : > "$T/boom.calls"
    runv boom4 -n 400 -c 4 -t 2 --h2c --streams 4 -s "$S/boom.lua" "$py_h2_url/"
    check_eq "$RC" 1 "hook error, 4 connections: exit status"
    adds_up boom4
    check_num "$(wc -l < "$T/boom.calls")" "<=" 2 "hook error, 4 connections: at most one call per thread"
    check_eq "$(( $(jv boom4 requests.completed) + $(jv boom4 requests.cut_off) ))" "$(jv boom4 requests.started)" \
        "hook error, 4 connections: completed + cut off"

    # Item: RST_STREAM(NO_ERROR) after 5 of content-length 1000 bytes is not
    # a response: a protocol failure each, with its reason; the hook never
    # sees one.
    start_py_h2 rstmid
    : > "$T/boom.calls"
    runv rstmid -n 12 -c 1 -t 1 --h2c --streams 4 -s "$S/boom.lua" "$py_h2_url/"
    adds_up rstmid
    check_eq "$(h2_stat rstmid cut)" 12 "rstmid: the server cut 12"
    check_eq "$(jv rstmid requests.completed)/$(jv rstmid errors.protocol)" 0/12 "rstmid: 12 protocol failures"
    check_grep "$T/rstmid.out" "^    protocol: reset before the response ended \(12\)$" "rstmid: the reason"
    check_eq "$(wc -l < "$T/boom.calls")" 0 "rstmid: response() never called"
    check_eq "$(jv rstmid status.200)" 0 "rstmid: no 200 counted"
    # Without a hook too (h2.c's check, not the capture's).
    runv rstmid0 -n 12 -c 2 -t 1 --h2c --streams 3 "$py_h2_url/"
    adds_up rstmid0
    check_eq "$(jv rstmid0 requests.completed)/$(jv rstmid0 errors.protocol)" 0/12 "rstmid, no hook: 12 protocol failures"

    # END_STREAM with DATA shorter (5 of 10) and longer (11 of 5) than
    # content-length (RFC 9113 8.1.1): failed, half each.
    start_py_h2 shortbody
    runv shortbody -n 12 -c 1 -t 1 --h2c --streams 4 "$py_h2_url/"
    adds_up shortbody
    check_eq "$(h2_stat shortbody short)/$(h2_stat shortbody long)" 6/6 "shortbody: the server's kinds"
    check_eq "$(jv shortbody requests.completed)/$(jv shortbody errors.protocol)" 0/12 "shortbody: 12 protocol failures"
    check_grep "$T/shortbody.out" "^    protocol: malformed response: content-length does not match the content \(12\)$" \
        "shortbody: the reason"

    # Item: trailers are fields, not body (over HTTP/2).
    start_py_h2 trailers
    run_complete trailers 20 -c 2 -t 1 --h2c --streams 4 -s "$S/trailers.lua" "$py_h2_url/"
    check_eq "$(jv trailers errors.validation)" 0 "trailers: body and res.trailers ($(head -c 300 "$T/trailers.out"))"
    check_eq "$(h2_stat trailers trailers)" 20 "trailers: sent with each response"
    run_complete trailerswrk 10 -c 1 -t 1 --h2c -s "$S/wrkbody.lua" "$py_h2_url/"
    check_eq "$(jv trailerswrk errors.validation)" 0 "trailers, wrk style: the body alone"
    # Over TLS (ALPN h2) the same.
    start_py_h2 trailers --tls
    run_complete trailerstls 10 -c 1 -t 1 --http2 --cacert "$TLS_CA" -s "$S/trailers.lua" "$py_h2_url/"
    check_eq "$(jv trailerstls errors.validation)" 0 "trailers over TLS"
else
    echo "skip: python3-h2 is not installed"
fi

# Trailers from a real server: nginx's add_trailer, over HTTP/2.
if start_nginx_h2 --h2c "add_trailer x-trailer yes always;"; then
    sed 's/"hello"/"hello world"/' "$S/trailers.lua" > "$S/trailers_nginx.lua"
    run_complete nginxtr 20 -c 1 -t 1 --h2c --streams 4 -s "$S/trailers_nginx.lua" "$h2url/"
    check_eq "$(jv nginxtr errors.validation)" 0 "nginx trailers: body and res.trailers ($(head -c 300 "$T/nginxtr.out"))"
    kill "$H2_PID" 2>/dev/null || true
    wait "$H2_PID" 2>/dev/null || true
fi

# Trailers over HTTP/1.1: a chunked body's trailer section.
start_target
run_complete h1trailers 20 -c 2 -t 1 -s "$S/trailers.lua" "http://127.0.0.1:$PORT/trailers"
check_eq "$(jv h1trailers errors.validation)" 0 "HTTP/1.1 trailers: body and res.trailers ($(head -c 300 "$T/h1trailers.out"))"
run_complete h1trwrk 10 -c 1 -t 1 -s "$S/wrkbody.lua" "http://127.0.0.1:$PORT/trailers"
check_eq "$(jv h1trwrk errors.validation)" 0 "HTTP/1.1 trailers, wrk style: the body alone"
printf 'return { response = function(conn, res) if next(res.trailers) ~= nil then return false, "trailers" end end }\n' \
    > "$S/none.lua"
run_complete h1none 10 -c 1 -t 1 -s "$S/none.lua" "http://127.0.0.1:$PORT/chunked/3000"
check_eq "$(jv h1none errors.validation)" 0 "HTTP/1.1 chunked without trailers: res.trailers empty"
stop_target

# Item: --http2 to a server that chooses HTTP/1.1 by ALPN (volley-target):
# each connection counted by its own handshake, as the server logged them;
# no stream figures, as no connection spoke HTTP/2.
start_tls_target --tls-log "$T/fb.tls"
run_complete fallback 200 -c 4 -t 2 --http2 --streams 3 --cacert "$TLS_CA" "$surl/"
stop_target
h1=$(grep -c ' http/1\.1$' "$T/fb.tls" || true)
check_eq "$(jv fallback http2.http1_fallbacks)" "$(jv fallback connections_opened)" "fallback: one per connection"
check_eq "$(jv fallback http2.http1_fallbacks)" 4 "fallback: 4 connections"
check_ge "$h1" 4 "fallback: the server chose http/1.1 on each"
check_grep "$T/fallback.out" "^  HTTP/1\.1 instead: the server chose it by ALPN \(4 connections\)$" "fallback: said"
check_grep "$T/fallback.out" "^  HTTP/2: no connection spoke it$" "fallback: no HTTP/2 figures"
check_grep "$T/fallback.out" "^  Busy connections: [0-9.]+ of 4 " "fallback: busy connections, not streams"
check_eq "$(grep -c 'Busy streams' "$T/fallback.out")" 0 "fallback: no busy streams"
check_eq "$(jv fallback http2.connections)" 0 "fallback: no HTTP/2 connection in the JSON"

finish
