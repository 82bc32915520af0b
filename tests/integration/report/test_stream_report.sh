# Streamed responses in every output, against counts that follow from the
# server: py/sse_server.py answers each request with 4 "tok" events, a
# usage event ({"usage": 4}) and "[DONE]" (6 events), and
# lua/stream_tokens.lua marks each "tok" as a token and reads the usage
# (4 output tokens, 3 prompt tokens). 20 requests are 20 streams, 120
# events, 100 gaps, 60 inter-token gaps, 80 output and 60 input tokens.
#  1. one run: the JSON's "stream" counters and histogram counts exactly,
#     the text report's Streams block, the series' events and tokens
#     adding up, done()'s summary.stream and summary.cpu, thresholds on
#     stream figures passing and failing (exit 99), --hlog's stream tags
#     adding up to the JSON's histograms, the HTML's Streams section; a
#     count (events) stopping a run in progress (abort);
#  2. volley report of that JSON: the same text, the same JSON;
#  3. two shards merged: every counter the sum, each histogram bucket for
#     bucket the shards' sum, peak the sum of the shards' peaks;
#  4. a run without streams: "stream" null, no Streams block, a stream
#     figure has no data (fails, passes "or nodata"), no stream tags in
#     --hlog;
#  5. --progress bar shows ev/s and tok/s.
source "$TESTLIB"
PYDIR="$(dirname "$TESTLIB")/py"
SCRIPT="$(dirname "$TESTLIB")/lua/stream_tokens.lua"

pf="$T/sse.port"
/usr/bin/python3 "$PYDIR/sse_server.py" "$pf" 80 --events 4 > /dev/null 2>&1 &
TARGET_PIDS+=($!)
wait_port_file "$pf" "$!" || { echo "sse_server.py did not start" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$pf")/"

# The figures of n streams of 6 events each, 4 of them tokens.
cat > "$T/check.py" <<'PY'
import json, sys
def check(path, n, peak_most):
    s = json.load(open(path))["stream"]
    want = {"streams": n, "events": 6 * n, "closed": 0, "no_event": 0, "too_large": 0, "token_streams": n,
            "usage_streams": n, "tokens_out": 4 * n, "tokens_in": 3 * n}
    got = {k: s[k] for k in want}
    assert got == want, (got, want)
    assert 1 <= s["peak"] <= peak_most, s["peak"]
    counts = {"first_event": n, "event_gap": 5 * n, "events_per_stream": n, "duration": n, "ttft": n, "itl": 3 * n,
              "tpot": n, "e2el": n}
    got = {k: s[k]["count"] for k in counts}
    assert got == counts, (got, counts)
    eps = s["events_per_stream"]
    assert eps["min"] == eps["max"] == eps["p50"] == 6 and eps["mean"] == 6, eps  # a count, unscaled
    for k in ("service_first_event", "service_ttft", "service_e2el"):
        assert k not in s, k  # -R's twins
    assert s["ttft"]["min"] >= s["first_event"]["min"], s
if __name__ == "__main__":
    check(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
PY

# 1. One run.
run_volley one -n 20 -c 2 -t 2 -s "$SCRIPT" --hlog "$T/one.hlog" --threshold 'ttft.p99 < 10s' \
    --threshold 'tokens == 80' --threshold 'stream_events.max == 6' "$url"
check_eq "$RC" 0 "one: exit status ($(head -c 300 "$T/one.err"))"
python3 "$T/check.py" "$T/one.json" 20 2 > "$T/one.chk" 2>&1 && ok || fail "one: the JSON's stream: $(tail -3 "$T/one.chk")"
check_grep "$T/one.out" "^  Streams: 20 completed \(0 closed early by the client, 0 with no event\), 120 events \(" \
    "one: the Streams line"
for line in "First evt" "Event gap" "Events    p50 6 " "Stream   " "TTFT     " "ITL      " "TPOT     " "E2EL     "; do
    check_grep "$T/one.out" "^  $line" "one: the report's $line line"
done
check_grep "$T/one.out" "^  Tokens: 80 out \([0-9.]+/s\), 60 in, of 20 streams \(20 counted by the server\)$" \
    "one: the Tokens line"
check_grep "$T/one.out" "^done: streams 20 events 120 tokens 80/60 ttft 20 itl 60 tpot 20 e2el 20 per_stream 6..6 cpu true$" \
    "one: done()'s summary.stream and summary.cpu"
python3 - "$T/one.json" <<'PY' > "$T/series.chk" 2>&1 && ok || fail "one: the series: $(tail -3 "$T/series.chk")"
import json, sys
r = json.load(open(sys.argv[1]))
pts = r["series"]["points"]
assert sum(p["events"] for p in pts) == 120 and sum(p["tokens"] for p in pts) == 80, pts
assert sum(p["streams"] for p in pts) == 20, pts
assert sum(p["ttft"]["count"] for p in pts) == 20 and sum(p["itl"]["count"] for p in pts) == 60, pts
assert all(p["ttft"]["p50"] <= p["ttft"]["p99"] for p in pts if p["ttft"]["count"]), pts
PY
for tag in first_event event_gap ttft itl e2el; do
    check_grep "$T/one.hlog" "^Tag=$tag,0\.000," "one: --hlog's $tag tag"
done
if grep -q "^Tag=service_ttft," "$T/one.hlog"; then fail "one: --hlog has -R's service_ttft"; else ok; fi
PYTHONPATH="$PYDIR" python3 - "$T" <<'PY' > "$T/hlog.chk" 2>&1 && ok || fail "one: --hlog against the JSON: $(tail -3 "$T/hlog.chk")"
import json, sys
import hdrlog
T = sys.argv[1]
log = hdrlog.read_log(T + "/one.hlog")
s = json.load(open(T + "/one.json"))["stream"]
for tag, key in (("first_event", "first_event"), ("event_gap", "event_gap"), ("ttft", "ttft"), ("itl", "itl"),
                 ("e2el", "e2el")):
    hdrlog.check_series(log, tag, s[key], 1.0)
PY
for th in 'events < 1' 'ttft.max < 1ns' 'streams != 20'; do
    run_volley fail -q -n 20 -c 2 -s "$SCRIPT" --threshold "$th" "$url"
    check_eq "$RC" 99 "threshold $th: exit status ($(head -c 300 "$T/fail.err"))"
done
# -R: the service twins, from the first byte written, in every output.
run_volley open -n 20 -c 2 -R 200 -s "$SCRIPT" --hlog "$T/open.hlog" --threshold 'service.ttft.p99 < 10s' "$url"
check_rate_rc "open: exit status ($(head -c 300 "$T/open.err"))"
python3 - "$T/open.json" <<'PY' > "$T/open.chk" 2>&1 && ok || fail "open: the service twins: $(tail -3 "$T/open.chk")"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["stream"]
for k in ("service_first_event", "service_ttft", "service_e2el"):
    assert s[k]["count"] == 20, (k, s[k]["count"])
# from the first byte written, never before the scheduled send time
assert s["service_ttft"]["min"] <= s["ttft"]["min"] and s["service_e2el"]["max"] <= s["e2el"]["max"], s
assert r["thresholds"][0]["pass"], r["thresholds"]
PY
for line in "Svc first" "Svc TTFT " "Svc E2EL "; do
    check_grep "$T/open.out" "^  $line" "open: the report's $line line"
done
check_grep "$T/open.hlog" "^Tag=service_ttft,0\.000," "open: --hlog's service_ttft tag"

# A count the series carries stops a run in progress (abort).
run_volley abort -q -d 20s -c 2 -s "$SCRIPT" --threshold 'events < 10 abort' "$url"
check_eq "$RC" 99 "abort: exit status ($(head -c 300 "$T/abort.err"))"
python3 - "$T/abort.json" <<'PY' > "$T/abort.chk" 2>&1 && ok || fail "abort: $(tail -3 "$T/abort.chk")"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["thresholds"][0]
assert t["aborted"] and not t["pass"] and t["observed"] >= 10, t
assert r["duration"] < 20, r["duration"]  # stopped, not run out
PY
run_volley html -q -n 20 -c 2 -s "$SCRIPT" --html "$T/one.html" "$url"
check_eq "$RC" 0 "html: exit status"
for id in stream stream-histograms stream-percentiles stream-rate stream-latency; do
    check_grep "$T/one.html" "id=\"$id\"" "html: #$id"
done

# 2. volley report re-renders the same text and JSON.
RC=0
"$VOLLEY" report "$T/one.json" --json "$T/again.json" > "$T/again.out" 2> "$T/again.err" || RC=$?
check_eq "$RC" 0 "report: exit status ($(head -c 300 "$T/again.err"))"
grep -v "^done: " "$T/one.out" > "$T/one.text"
if cmp -s "$T/one.text" "$T/again.out"; then ok; else fail "report: the text is not the run's: $(diff "$T/one.text" "$T/again.out" | head -10)"; fi
if cmp -s "$T/one.json" "$T/again.json"; then ok; else fail "report: the JSON is not the run's"; fi
RC=0
"$VOLLEY" report "$T/one.json" --threshold 'e2el.count == 20' --threshold 'itl.count < 60' > /dev/null 2>&1 || RC=$?
check_eq "$RC" 99 "report: thresholds judged again (itl.count < 60 fails)"

# Edited results are refused with one line naming the field.
python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
r = json.load(open(T + "/one.json"))
r["stream"]["streams"] = 21
json.dump(r, open(T + "/bad1.json", "w"))
r = json.load(open(T + "/one.json"))
r["stream"]["closed"] = 30
json.dump(r, open(T + "/bad2.json", "w"))
r = json.load(open(T + "/one.json"))
r["stream"]["ttft"]["hdr"] = r["stream"]["itl"]["hdr"]
json.dump(r, open(T + "/bad3.json", "w"))
PY
for bad in "bad1:stream\.events_per_stream: its histogram holds 20 values, but its count is 21$" \
           "bad2:stream\.streams: fewer than its closed" "bad3:stream\.ttft\.count: 20, but its histogram \(hdr\) holds 60 values$"; do
    f=${bad%%:*}
    RC=0
    "$VOLLEY" report "$T/$f.json" > /dev/null 2> "$T/$f.err" || RC=$?
    check_eq "$RC" 1 "$f: volley report's exit status"
    check_eq "$(wc -l < "$T/$f.err")" 1 "$f: one line"
    check_grep "$T/$f.err" "${bad#*:}" "$f: the field named"
done

# 3. Two shards, merged.
for i in 0 1; do
    run_volley "s$i" -q -n 20 -c 2 -t 1 --shard "$i/2" --run-id streams -s "$SCRIPT" "$url"
    check_eq "$RC" 0 "shard $i: exit status ($(head -c 300 "$T/s$i.err"))"
    python3 "$T/check.py" "$T/s$i.json" 10 1 > "$T/s$i.chk" 2>&1 && ok || fail "shard $i: $(tail -3 "$T/s$i.chk")"
done
RC=0
"$VOLLEY" merge "$T/s0.json" "$T/s1.json" --json "$T/m.json" > "$T/m.out" 2> "$T/m.err" || RC=$?
check_eq "$RC" 0 "merge: exit status ($(head -c 300 "$T/m.err"))"
python3 "$T/check.py" "$T/m.json" 20 2 > "$T/m.chk" 2>&1 && ok || fail "merge: $(tail -3 "$T/m.chk")"
PYTHONPATH="$PYDIR" python3 - "$T" <<'PY' > "$T/mh.chk" 2>&1 && ok || fail "merge: histograms: $(tail -5 "$T/mh.chk")"
import json, sys
import hdrlog
T = sys.argv[1]
shards = [json.load(open("%s/s%d.json" % (T, i)))["stream"] for i in range(2)]
m = json.load(open(T + "/m.json"))["stream"]
assert m["peak"] == shards[0]["peak"] + shards[1]["peak"], (m["peak"], [s["peak"] for s in shards])
for k in ("first_event", "event_gap", "events_per_stream", "duration", "ttft", "itl", "tpot", "e2el"):
    config, total = hdrlog.decode(m[k]["hdr"])
    want = {}
    for s in shards:
        c, counts = hdrlog.decode(s[k]["hdr"])
        assert c == config, (k, c, config)
        for b, v in counts.items():
            want[b] = want.get(b, 0) + v
    assert total == want, k
    assert int(m[k]["sum"]) == sum(int(s[k]["sum"]) for s in shards), k
    assert int(m[k]["sum_sq"]) == sum(int(s[k]["sum_sq"]) for s in shards), k
    assert m[k]["min"] == min(s[k]["min"] for s in shards) and m[k]["max"] == max(s[k]["max"] for s in shards), k
PY
check_grep "$T/m.out" "^  Streams: 20 completed \(0 closed early by the client, 0 with no event\), 120 events \(" \
    "merge: the Streams line"

# 4. No streams: volley-target's plain responses.
start_target
plain="http://127.0.0.1:$PORT/"
run_volley plain -n 10 -c 1 --hlog "$T/plain.hlog" --threshold 'ttft.p99 < 1s or nodata' "$plain"
check_eq "$RC" 0 "plain: exit status ($(head -c 300 "$T/plain.err"))"
check_eq "$(jget "$T/plain.json" stream)" null "plain: \"stream\""
if grep -q "Streams:" "$T/plain.out"; then fail "plain: a Streams block"; else ok; fi
if grep -qE "^Tag=(first_event|event_gap|ttft|itl|e2el)," "$T/plain.hlog"; then fail "plain: stream tags in --hlog"; else ok; fi
run_volley plain2 -q -n 10 -c 1 --threshold 'events > 0' "$plain"
check_eq "$RC" 99 "plain: a stream figure without streams has no data"
stop_target

# 5. The progress line, once a second with events is in.
RC=0
timeout -s KILL 60 "$VOLLEY" -d 2s -c 2 --progress bar -s "$SCRIPT" "$url" > /dev/null 2> "$T/progress.err" || RC=$?
check_eq "$RC" 0 "progress: exit status"
check_grep "$T/progress.err" " [0-9]+ ev/s  [0-9]+ tok/s " "progress: ev/s and tok/s"

finish
