# Streams that misbehave, each ending in one clear result with bounded
# memory: an endless event (vt_huge) fails as "an event larger than
# --max-body", the connection closed (the server sees the client go),
# memory bounded by --max-body whatever the stream's length; a silent
# stream and one of comments only fail as timeouts, while a stream that
# outlives --timeout but keeps sending completes (--timeout counts from the
# latest event); 100,000 events in a second or so are all counted, memory
# flat; a stream cut in its middle (no 0 chunk, a short Content-Length) is
# a read failure with its reason; an error event and a stream without
# [DONE] are complete responses, counted exactly; the same over HTTP/2
# through nginx. Memory is compared within
# the test (never an absolute figure), and not under the sanitizers, whose
# allocator keeps freed memory.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
source "$(dirname "$TESTLIB")/stream_lib.sh"

wait_stat() {
    local i
    for i in $(seq 1 100); do
        [ "$(target_stat "$1")" = "$2" ] && return 0
        sleep 0.1
    done
}
# rss_run NAME [volley args]: run_volley NAME under /usr/bin/time; its peak
# RSS (KB) in RSS.
rss_run() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 /usr/bin/time -f "%M" -o "$T/$name.rss" "$VOLLEY" --json "$T/$name.json" "$@" \
        > "$T/$name.out" 2> "$T/$name.err" || RC=$?
    RSS=$(tail -n 1 "$T/$name.rss")
}
SAN=${SANITIZED:-OFF}

start_target --llm-log "$T/h.truth" --stats-file "$T/h.stats"
url="http://127.0.0.1:$PORT/"
printf 'local s = {}\nfunction s.response(conn, res) volley.counter("res_events", res.events) end\nreturn s\n' > "$T/res.lua"

# 1. An endless event, 20 streams at once, 60 in all, --max-body 64k: each
#    fails with its own reason, on a connection closed (60 connections, the
#    server counting each client gone); the peak memory is within 8 MB of
#    the same run's shape against a plain page (it would be 60 x 64 KB and
#    more if the events were kept).
STREAM_KNOBS='"vt_huge":true' rss_run huge -s "$STREAM_LUA" --max-body 64k -n 60 -c 20 -t 2 "$url"
huge_rss=$RSS
wait_stat llm_cut 60
check_no_response huge "vt_huge" "60 requests failed: validation 60"
python3 - "$T/huge.json" <<'PY' && ok || fail "vt_huge: the reason"
import json, sys
r = json.load(open(sys.argv[1]))["failures"]["reasons"]
assert r == [{"reason": "an event larger than --max-body", "count": 60}], r
PY
check_eq "$(target_stat llm_cut)" 60 "vt_huge: the server saw each client go"
check_json_stream huge too_large 60 "vt_huge: JSON stream.too_large"
rss_run plain -s "$T/res.lua" --max-body 64k -n 60 -c 20 -t 2 "${url}bytes/1000"
echo "peak RSS: 60 endless events, --max-body 64k: $huge_rss KB; a plain run: $RSS KB"
if [ "$SAN" != ON ]; then
    check_ge $((RSS + 8192)) "$huge_rss" "vt_huge: peak RSS ($huge_rss KB) within 8 MB of a plain run's ($RSS KB)"
fi

# 2. Silent, and comments only (": ping" every 100 ms): timeouts after
#    --timeout 1s, never an event.
for knob in vt_silent vt_comments_only; do
    STREAM_KNOBS='"'$knob'":true' run_volley "$knob" -s "$STREAM_LUA" --timeout 1s -n 4 -c 2 -t 1 "$url"
    check_no_response "$knob" "$knob" "4 requests failed: timeout 4"
    check_eq "$(counter "$knob" events)" 0 "$knob: no event"
done

# 3. A stream of 15 tokens 200 ms apart (the server's gaps are at least
#    that: it lasts 2.8 s or more) completes under --timeout 1s: the
#    timeout counts from its latest event.
start_target --llm-log "$T/slow.truth"
run_stream slow '"max_tokens":15,"vt_gap_ms":200' --timeout 1s -n 2 -c 2 -t 1 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_eq "$RC" 0 "slow stream under --timeout 1s: exit status ($(tail -n 2 "$T/slow.err"))"
check_eq "$(jget "$T/slow.json" requests.completed)" 2 "slow stream under --timeout 1s: completed"
check_stream slow "$T/slow.truth" --requests 2
python3 - "$(dirname "$TESTLIB")/py" "$T/slow.truth" <<'PY' && ok || fail "slow stream: the server's stream outlived the timeout"
import sys
sys.path.insert(0, sys.argv[1])
import llm_truth
for r in llm_truth.read_truth(sys.argv[2]):
    assert r.end_ns - r.q_ns > 2_000_000_000, (r.id, r.end_ns - r.q_ns)
PY

# 4. 100,000 small events (5 streams of 20,000 tokens, no gap; about
#    150 bytes each) all counted; peak memory as for 10,000.
rss_run tiny10k -s "$T/res.lua" -m POST -b '{"stream":true,"max_tokens":2000,"prompt":"x"}' -n 5 -c 5 -t 1 \
    "${url}v1/completions"
small=$RSS
rss_run tiny -s "$T/res.lua" -m POST -b '{"stream":true,"max_tokens":20000,"prompt":"x"}' -n 5 -c 5 -t 1 \
    "${url}v1/completions"
check_eq "$RC" 0 "tiny events: exit status ($(tail -n 2 "$T/tiny.err"))"
# the tokens, finish, [DONE]
check_eq "$(counter tiny res_events)" 100010 "tiny events: res.events"
check_eq "$(counter tiny10k res_events)" 10010 "tiny events (10,000): res.events"
check_json_stream tiny events 100010 "tiny events: JSON stream.events"
echo "peak RSS: 100,010 events: $RSS KB; 10,010 events: $small KB"
if [ "$SAN" != ON ]; then
    check_ge $((small + 2048)) "$RSS" "tiny events: peak RSS for 100,000 ($RSS KB) within 2 MB of 10,000's ($small KB)"
fi

# 5. Cut at the fourth token: chunked (no 0 chunk) and Content-Length (a
#    short body) are read failures with their reasons, after 4 events each
#    (the role, tokens 1-3); read until close, the cut is the end: complete.
for f in chunked length close; do
    STREAM_KNOBS='"max_tokens":10,"vt_cut_at":4,"vt_framing":"'$f'"' run_volley "cut$f" -s "$STREAM_LUA" -n 4 -c 2 -t 1 "$url"
    check_eq "$(counter "cut$f" events)" 16 "cut ($f): 4 events each"
    [ "$f" = close ] || check_no_response "cut$f" "cut ($f)" "4 requests failed: read 4"
done
python3 - "$T/cutchunked.json" "$T/cutlength.json" <<'PY' && ok || fail "cut: the reasons"
import json, re, sys
for path, pat in zip(sys.argv[1:], (r"body cut short at \d+ bytes \(chunked\)", r"body cut short at (\d+) of (\d+) bytes")):
    r = json.load(open(path))["read_failures"]["reasons"]
    assert len(r) == 1 and r[0]["count"] == 4 and re.fullmatch(pat, r[0]["reason"]), (path, r)
PY
check_eq "$RC" 0 "cut (close): exit status"
check_eq "$(jget "$T/cutclose.json" requests.completed)" 4 "cut (close): completed"
check_eq "$(counter cutclose res_events)" 16 "cut (close): res.events"
stop_wait "$TPID"

# 6. An error event before token 3, and a stream without [DONE]: complete
#    responses (volley's core knows no LLM rules), every event counted as
#    the server wrote it.
start_target --llm-log "$T/err.truth"
run_stream err '"max_tokens":6,"vt_error_at":3' -n 10 -c 2 -t 1 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_eq "$RC" 0 "vt_error_at: exit status ($(tail -n 2 "$T/err.err"))"
check_stream err "$T/err.truth" --requests 10
# the role, tokens 1-2, the error
check_eq "$CHECKED_EVENTS" 40 "vt_error_at: events matched to the truth log"
check_eq "$(grep -c '^e t[0-9]*-[0-9]* x ' "$T/err.truth")" 10 "vt_error_at: the error events written"
start_target --llm-log "$T/nodone.truth"
run_stream nodone '"max_tokens":6,"vt_nodone":true' -n 10 -c 2 -t 1 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_eq "$RC" 0 "vt_nodone: exit status ($(tail -n 2 "$T/nodone.err"))"
check_stream nodone "$T/nodone.truth" --requests 10
# the role, 6 tokens, finish
check_eq "$CHECKED_EVENTS" 80 "vt_nodone: events matched to the truth log"
check_eq "$(grep -c ' nodone$' "$T/nodone.truth")" 10 "vt_nodone: ended without [DONE]"

# 7. The same over HTTP/2 (nginx in front of volley-target, 4 streams a
#    connection): the endless event fails as too large (its stream
#    cancelled, the others go on), silence is a timeout, a slow stream
#    outlives --timeout, a cut is nginx's RST_STREAM.
start_target
if start_nginx_h2 "location /v1/ { proxy_pass http://127.0.0.1:$PORT; proxy_http_version 1.1; proxy_buffering off; proxy_set_header Connection \"\"; }"; then
    h2=(-s "$STREAM_LUA" --http2=strict --streams 4 -n 8 -c 2 -t 2 --max-body 64k --timeout 1s "$h2url/")
    STREAM_KNOBS='"vt_huge":true' run_volley hugeh2 "${h2[@]}"
    check_no_response hugeh2 "vt_huge (HTTP/2)" "8 requests failed: validation 8"
    check_json_stream hugeh2 too_large 8 "vt_huge (HTTP/2): JSON stream.too_large"
    STREAM_KNOBS='"vt_comments_only":true' run_volley pingh2 "${h2[@]}"
    check_no_response pingh2 "vt_comments_only (HTTP/2)" "8 requests failed: timeout 8"
    STREAM_KNOBS='"max_tokens":15,"vt_gap_ms":200' run_volley slowh2 "${h2[@]}"
    check_eq "$RC" 0 "slow stream under --timeout 1s (HTTP/2): exit status ($(tail -n 2 "$T/slowh2.err"))"
    check_eq "$(counter slowh2 events)" $((8 * 18)) "slow stream (HTTP/2): every event"
    STREAM_KNOBS='"max_tokens":10,"vt_cut_at":4' run_volley cuth2 "${h2[@]}"
    check_no_response cuth2 "cut (HTTP/2)" "8 requests failed: protocol 8"
    check_eq "$(counter cuth2 events)" 32 "cut (HTTP/2): 4 events each"
    stop_wait "$H2_PID"
else
    fail "nginx (HTTP/2 + TLS) did not start"
fi
stop_wait "$TPID"

finish
