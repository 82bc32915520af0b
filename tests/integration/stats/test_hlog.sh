# --hlog end to end: volley's own interval log of an open-model run. Its
# intervals are contiguous from 0; for each tag (untagged latency, service,
# sendlag) the intervals add up exactly to the whole-run histogram in --json
# (both decoded by an independent Python reader, py/hdrlog.py); and Debian's
# HdrHistogram (Java) reads the log and gives volley's percentiles within one
# bucket. Also: a closed-loop log has only the untagged series; a flow's
# iterations and groups have tagged series that add up to the JSON's; and
# bad --hlog values are one-line errors (exit 2).
source "$TESTLIB"
PYDIR="$(dirname "$TESTLIB")/py"
JAR=""
for j in /usr/share/java/hdrhistogram.jar /usr/share/java/HdrHistogram.jar; do
    [ -f "$j" ] && JAR=$j && break
done
if ! command -v java > /dev/null || [ -z "$JAR" ]; then
    echo "$(basename "$0"): java or the HdrHistogram jar is missing: install default-jre-headless" \
        "libhdrhistogram-java (make deps does)" >&2
    exit 1
fi

start_target --delay-ms 1
url="http://127.0.0.1:$PORT/"
run_volley open -R 2000 -d 3s -c 20 -t 2 --hlog "$T/open.hlog" --hlog-interval 500ms "$url"
check_rate_rc "open: exit status"
run_volley closed -n 3000 -c 5 -t 1 --hlog "$T/closed.hlog" "$url"
check_eq "$RC" 0 "closed: exit status"
stop_target
check_grep "$T/open.hlog" '^#\[volley .* open model rate=2000/s connections=20 unit=ns lowest=1 highest=3600000000000 digits=3 run=r[0-9a-f]{16} shard=0/1\]$' "open: comment"
check_grep "$T/open.hlog" '^#\[Histogram log format version 1\.3\]$' "open: version"
check_grep "$T/open.hlog" '^#\[StartTime: [0-9]+\.[0-9]{3} \(seconds since epoch\), ' "open: start time"
check_grep "$T/open.hlog" '^"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"$' "open: legend"
check_grep "$T/closed.hlog" '^#\[volley .* closed loop connections=5 ' "closed: comment"

PYTHONPATH="$PYDIR" python3 - "$T" <<'PY' > "$T/py.out" 2>&1 && ok || fail "intervals against the whole run: $(tail -5 "$T/py.out")"
import json, sys
import hdrlog
T = sys.argv[1]
log = hdrlog.read_log(T + "/open.hlog")
r = json.load(open(T + "/open.json"))
for tag, name in ((None, "latency"), ("service", "service"), ("sendlag", "sendlag")):
    entries = hdrlog.check_series(log, tag, r[name], 0.5)
    assert len(entries) >= 6, (tag, len(entries))
    assert hdrlog.merge(log, tag)[0] == (1, 3600000000000, 3), tag
    print(tag, "intervals", len(entries), "count", r[name]["count"])
for name in ("connect", "waiting"):
    _, counts = hdrlog.decode(r[name]["hdr"])
    assert sum(counts.values()) == r[name]["count"], name
closed = hdrlog.read_log(T + "/closed.hlog")
assert {e[0] for e in closed} == {None}, {e[0] for e in closed}
assert sum(sum(e[5].values()) for e in closed) == json.load(open(T + "/closed.json"))["latency"]["count"]
PY

# Java's HistogramLogProcessor over volley's log, per tag, against --json.
for tag in untagged service sendlag; do
    args=()
    [ "$tag" != untagged ] && args=(-tag "$tag")
    RC=0
    java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor -i "$T/open.hlog" -csv "${args[@]}" -o "$T/java.$tag" \
        > "$T/java.$tag.out" 2>&1 || RC=$?
    check_eq "$RC" 0 "HistogramLogProcessor $tag: $(head -c 300 "$T/java.$tag.out")"
done
python3 - "$T" > "$T/cmp.out" <<'PY' && ok || fail "Java against volley: $(grep -v '^ok' "$T/cmp.out" | head -5)"
import csv, json, sys
T = sys.argv[1]
r = json.load(open(T + "/open.json"))
bad = 0
for tag, name in (("untagged", "latency"), ("service", "service"), ("sendlag", "sendlag")):
    rows = [x for x in csv.reader(open(f"{T}/java.{tag}")) if x and not x[0].startswith("#")]
    last = dict(zip(rows[0], rows[-1]))
    h = r[name]
    checks = [(int(last["Total_Count"]), h["count"], 0)]
    for col, key in (("Total_50%", "p50"), ("Total_90%", "p90"), ("Total_99%", "p99"), ("Total_99.9%", "p99.9")):
        v = h[key] / 1000.0  # JSON in us, Java in ms
        checks.append((float(last[col]), v, v / 1024 + 0.0015))  # one bucket + both roundings
    for got, want, tol in checks:
        ok = abs(got - want) <= tol
        bad += not ok
        print("ok" if ok else "FAIL", tag, got, want)
sys.exit(1 if bad else 0)
PY

echo "Java (ms) against volley (--json):"; sed "s/^/  /" "$T/cmp.out"

# A flow: its completed iterations' durations are the series tagged
# "iteration", each group's are tagged "group:NAME" (escaped as a name's
# tag is); each adds up exactly to the JSON's histogram of it.
start_target --delay-ms 1
url="http://127.0.0.1:$PORT/"
FLOW="$(dirname "$TESTLIB")/lua/flow_marks.lua"
run_volley flow -c 6 -t 2 -d 2s -s "$FLOW" --hlog "$T/flow.hlog" --hlog-interval 250ms "$url" -- sleep=3
check_eq "$RC" 0 "flow: exit status"
stop_target
check_grep "$T/flow.hlog" '^Tag=iteration,0\.000,0\.250,' "flow: the iteration tag"
check_grep "$T/flow.hlog" '^Tag=group:a&b%20"q"%2C<g>,0\.000,0\.250,' "flow: the group's tag, escaped"
PYTHONPATH="$PYDIR" python3 - "$T" <<'PY' > "$T/flow.out" 2>&1 && ok || fail "flow intervals against the whole run: $(tail -5 "$T/flow.out")"
import json, sys
import hdrlog
T = sys.argv[1]
log = hdrlog.read_log(T + "/flow.hlog")
r = json.load(open(T + "/flow.json"))
it = r["iterations"]
assert it["completed"] > 0, it
series = [("iteration", it["duration"])]
series += [("group:" + n.replace(" ", "%20").replace(",", "%2C"), g["duration"]) for n, g in r["groups"].items()]
assert len(series) == 2, series
for tag, h in series:
    entries = hdrlog.check_series(log, tag, h, 0.25)
    assert len(entries) >= 6, (tag, len(entries))
    print(tag, "intervals", len(entries), "count", h["count"])
assert r["groups"]['a&b "q",<g>']["count"] > it["completed"], "the group runs in failed iterations too"
PY

# Bad values.
bad() {
    local pat=$1
    shift
    RC=0
    timeout 10 "$VOLLEY" "$@" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "volley $*: exit status"
    check_grep "$T/bad.err" "$pat" "volley $*: message"
}
bad "^volley: --hlog: $T/missing/x.hlog: No such file or directory$" --hlog "$T/missing/x.hlog" "$url"
bad '^volley: --hlog-interval: "0.5ms" is not a duration of at least 1ms' --hlog-interval 0.5ms "$url"
bad '^volley: -R: 0 only with --stages' -R 0 "$url"
bad '^volley: -R: "fast" is not a number$' -R fast "$url"
bad '^volley: --one-first: cannot be combined with -R' -R 10 --one-first "$url"
finish
