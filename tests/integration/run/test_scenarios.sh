# Several scenarios in one run (a script's scenarios list), against
# volley-target's request log and timing log (their lines are written
# together, one per request read, so line i of each is the same request):
#  1. two scenarios of different shapes and starts, with --start-at (the
#     run's start on the server's clock): the closed one's users are its
#     own connections (exactly N) and it stops at its duration; the open
#     one sends exactly rate x its length (sent + unsent, and the server's
#     count is what it sent), never ahead of its schedule (by any time t
#     the server has read at most the arrivals due by t), none before its
#     start; the report, the JSON and the HTML have each scenario apart;
#  2. thresholds with {scenario="NAME"} judged apart: one passes, one fails
#     (exit 99), the pass alone exits 0; volley report judges them again;
#  3. -c split by weights, each with its iterations: two shards merged give
#     per scenario exactly the one-process run's counts (iterations,
#     requests, checks), and the server's per-path counts.
source "$TESTLIB"

# A shared start LEAD seconds from now: epoch seconds (START) and this
# machine's CLOCK_MONOTONIC in ns (START_MONO), the server's timing clock.
new_start() {
    read -r START START_MONO < <(python3 -c '
import sys, time
lead = float(sys.argv[1])
wall, mono = time.time(), time.monotonic_ns()
start = round(wall + lead, 3)
print("%.3f %d" % (start, mono + round((start - wall) * 1e9)))' "$1")
}

cat > "$T/shapes.lua" <<'EOF'
return {
  scenarios = {
    { name = "browse", users = 3, duration = "1s",
      user = function(u) u:get("/browse") end },
    { name = "buy", rate = 20, start = "1s", max_users = 4,
      user = function(u) u:get("/buy") end },
  },
}
EOF

# --- 1. shapes, starts and ends against the server's logs
for try in 1 2 3; do
    start_target --log "$T/req.log" --timing-log "$T/tim.log"
    new_start $((try * 2))
    run_volley shapes -s "$T/shapes.lua" -d 2.5s -t 2 --start-at "$START" --html "$T/shapes.html" \
        "http://127.0.0.1:$PORT/"
    stop_target
    [ "$RC" != 4 ] && break # 4: not ready by --start-at on a loaded machine: again, further ahead
done
check_eq "$RC" 0 "shapes: exit status $(cat "$T/shapes.err")"
python3 - "$T/req.log" "$T/tim.log" "$T/shapes.json" "$START_MONO" <<'PY' || fail "shapes: the server's logs"
import json, sys
reqs = [l.split() for l in open(sys.argv[1])]
tims = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("r ")]
assert len(reqs) == len(tims), (len(reqs), len(tims))
r = json.load(open(sys.argv[3]))
t0 = int(sys.argv[4])
S = 10**9
by = {s["name"]: s for s in r["scenarios"]}
browse = [(t, int(q[0])) for q, t in zip(reqs, tims) if q[2] == "/browse"]
buy = sorted(t for q, t in zip(reqs, tims) if q[2] == "/buy")
# the closed scenario: its 3 users are 3 connections, from the start
assert len({c for _, c in browse}) == 3, {c for _, c in browse}
assert browse and min(t for t, _ in browse) >= t0 - 2 * 10**6, "browse before the run's start"
# it stops at 1s: nothing read long after (the run goes on to 2.5s)
late = [t for t, _ in browse if t > t0 + 1.75 * S]
assert not late, "%d /browse requests after 1.75s" % len(late)
b = by["browse"]
assert b["requests"]["completed"] <= len(browse) <= b["requests"]["started"], (b["requests"], len(browse))
# the open scenario: 20/s from 1s to the run's end, 2.5s: 30 arrivals exactly
u = by["buy"]
assert u["arrivals"]["sent"] + u["arrivals"]["unsent"] == 30, u["arrivals"]
assert len(buy) == u["arrivals"]["sent"] == u["requests"]["started"], (len(buy), u["arrivals"])
# EPS: the two processes' conversions of --start-at to the monotonic clock
# may differ by microseconds; a start ignored would be a second off
EPS = 2 * 10**6
assert buy[0] >= t0 + S - EPS, "a /buy request %.3f ms before its start" % ((t0 + S - buy[0]) / 1e6)
# never ahead of its schedule: request i is read after arrival i was due
for i, t in enumerate(buy):
    due = t0 + S + i * S // 20
    assert t >= due - EPS, "/buy %d read %.3f ms before it was due" % (i, (due - t) / 1e6)
assert len(set(c for q, c in zip(reqs, tims) if q[2] == "/buy")) == len(buy)
assert u["model"] == "open" and u["rate"] == 20 and u["users"] == 4 and u["start"] == 1.0, u
assert b["model"] == "closed" and b["users"] == 3 and b["start"] == 0.0, b
# the whole is the scenarios' sum
for k in ("started", "completed", "failed", "cut_off"):
    assert r["requests"][k] == b["requests"][k] + u["requests"][k], k
assert r["iterations"]["completed"] == b["iterations"]["completed"] + u["iterations"]["completed"]
PY
check_grep "$T/shapes.out" '^  Scenarios ' "shapes: the report's Scenarios table"
check_grep "$T/shapes.out" '^    browse +closed 3 users +0s ' "shapes: browse's row"
check_grep "$T/shapes.out" '^    buy +open 20/s \(4 users\) +1\.00s ' "shapes: buy's row"
check_grep "$T/shapes.html" '<table id="scenarios">' "shapes: the HTML's Scenarios table"
check_grep "$T/shapes.html" '<tr><td>buy</td><td>open 20/s' "shapes: the HTML's buy row"

# --- 2. thresholds judged per scenario
start_target
run_volley judged -s "$T/shapes.lua" -d 1.5s -t 1 "http://127.0.0.1:$PORT/" \
    --threshold 'iterations{scenario="buy"}.failed < 1' --threshold 'requests{scenario="browse"} < 1'
check_eq "$RC" 99 "judged: exit status (one threshold fails)"
check_grep "$T/judged.out" 'iterations\{scenario="buy"\}\.failed < 1 .* pass' "judged: buy's passes"
check_grep "$T/judged.out" 'requests\{scenario="browse"\} < 1 .* FAIL' "judged: browse's fails"
check_eq "$(tail -n 1 "$T/judged.err")" \
    'volley: 1 of 2 thresholds failed: --threshold "requests{scenario="browse"} < 1"' "judged: the failed one named"
run_volley passed -s "$T/shapes.lua" -d 1.5s -t 1 "http://127.0.0.1:$PORT/" \
    --threshold 'requests{scenario="buy"} >= 1' --threshold 'requests{scenario="buy"} < 20'
check_eq "$RC" 0 "passed: exit status $(tail -n 2 "$T/passed.err")"
# a scenario's own thresholds and fail_if: labelled with its name
sed -e 's|users = 3, duration = "1s",|users = 3, duration = "1s", fail_if = { "requests > 0" },|' \
    -e 's|max_users = 4,|max_users = 4, thresholds = { "iteration.p99 < 10s", "errors{name=\\"GET /buy\\"} == 0" },|' \
    "$T/shapes.lua" > "$T/own.lua"
run_volley own -s "$T/own.lua" -d 1.5s -t 1 "http://127.0.0.1:$PORT/"
check_eq "$RC" 99 "own: exit status (browse's fail_if holds)"
check_grep "$T/own.out" '^  --threshold +iteration\{scenario="buy"\}\.p99 < 10s .* pass$' "own: buy's threshold"
check_grep "$T/own.out" '^  --threshold +errors\{scenario="buy",name="GET /buy"\} == 0 .* pass$' "own: beside a name label"
check_grep "$T/own.out" '^  --fail-if +requests\{scenario="browse"\} > 0 .* FAIL$' "own: browse's fail_if"
RC=0
"$VOLLEY" report "$T/judged.json" --threshold 'requests{scenario="buy"} > 0' > "$T/again.out" 2>&1 || RC=$?
check_eq "$RC" 0 "volley report: buy's figures judged again"
RC=0
"$VOLLEY" report "$T/judged.json" --threshold 'requests{scenario="browse"} < 1' > "$T/again.out" 2>&1 || RC=$?
check_eq "$RC" 99 "volley report: browse's figures judged again"
stop_target

# --- 3. weights, iterations and shards merged exactly per scenario
cat > "$T/weights.lua" <<'EOF'
return {
  scenarios = {
    { name = "browse", weight = 3, iterations = 101,
      user = function(u) u:check(u:get("/browse").status == 200, "ok") end },
    { name = "buy", weight = 1, iterations = 33,
      user = function(u) u:get("/buy") u:get("/pay") end },
  },
}
EOF
start_target --log "$T/w.log"
run_volley one -s "$T/weights.lua" -c 8 -t 2 "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "one process: exit status $(cat "$T/one.err")"
for i in 0 1; do
    run_volley "shard$i" -s "$T/weights.lua" -c 8 -t 2 --shard "$i/2" --run-id sc31 "http://127.0.0.1:$PORT/"
    check_eq "$RC" 0 "shard $i: exit status $(cat "$T/shard$i.err")"
done
stop_target
RC=0
"$VOLLEY" merge "$T/shard0.json" "$T/shard1.json" --json "$T/merged.json" > "$T/merge.out" 2> "$T/merge.err" || RC=$?
check_eq "$RC" 0 "merge: exit status $(cat "$T/merge.err")"
python3 - "$T/one.json" "$T/merged.json" "$T/shard0.json" "$T/shard1.json" "$T/w.log" <<'PY' || fail "weights and shards"
import collections, json, sys
one, merged, s0, s1 = (json.load(open(f)) for f in sys.argv[1:5])
paths = collections.Counter(l.split()[2] for l in open(sys.argv[5]))
def by(r): return {s["name"]: s for s in r["scenarios"]}
o, m, a, b = by(one), by(merged), by(s0), by(s1)
# -c 8 split 3:1
assert o["browse"]["users"] == 6 and o["buy"]["users"] == 2, (o["browse"]["users"], o["buy"]["users"])
for name, iters, reqs in (("browse", 101, 101), ("buy", 33, 66)):
    for r in (o, m):
        assert r[name]["iterations"]["completed"] == iters, (name, r[name]["iterations"])
        assert r[name]["requests"]["completed"] == reqs, (name, r[name]["requests"])
    # each shard its exact part: the first shard one more of an odd count
    assert a[name]["iterations"]["completed"] == (iters + 1) // 2, (name, a[name]["iterations"])
    assert b[name]["iterations"]["completed"] == iters // 2, (name, b[name]["iterations"])
assert m["browse"]["checks"]["names"]["ok"] == {"passed": 101, "failed": 0}, m["browse"]["checks"]
assert m["buy"]["checks"]["names"] == {}, m["buy"]["checks"]
# the server saw the one-process run and the two shards: each path twice its count
assert paths["/browse"] == 2 * 101 and paths["/buy"] == 2 * 33 and paths["/pay"] == 2 * 33, paths
assert merged["iterations"]["completed"] == 134
PY
check_grep "$T/merge.out" '^    browse +closed 6 users ' "merge: the report's browse row"

finish
