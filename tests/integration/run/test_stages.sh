#!/usr/bin/env bash
# --stages. With -R: a ramp 0 -> 2000/s over 4 s, then 2 s flat. That the
# schedule's due times follow the curve is proved without a clock by
# tests/unit/load/test_schedule.c (test_curve: the same ramp over two
# workers, bin by bin); when the server saw the requests is the machine's
# timing, checked in tests/long/long_stages.sh (make test-long). Here what
# no scheduling can move: the arrivals the curve asks for (its integral,
# 8000) are each sent or counted never sent, the server's count is the
# requests sent, and the JSON's stages and per-second targets. Without
# -R: connections ramp 0 -> 20, hold, fall to 5, hold, fall to 0; the
# server's count of open connections follows the stages, and the
# ramp-downs cut nothing off and fail nothing. Then options() and the
# errors.
source "${TESTLIB:?}"

start_target --timing-log "$T/open.log"
run_volley open -R 0 --stages 4s:2000,2s:2000 -c 20 -t 2 "http://127.0.0.1:$PORT/"
check_rate_rc "-R ramp: exit status"
check_grep "$T/open.out" "open model at 2000 requests/s at most, stages from 0/s: 4s to 2000/s, 2s to 2000/s" \
    "-R ramp: the header says the stages"
stop_target
python3 - "$T/open.log" "$T/open.json" <<'PY' > "$T/open.py" 2>&1 && ok || fail "-R ramp: the counts at the server and in the JSON: $(tail -3 "$T/open.py")"
import json, sys
ts = [l for l in open(sys.argv[1]) if l.startswith("r ")]
r = json.load(open(sys.argv[2]))
rate, q = r["rate"], r["requests"]
# every arrival of the curve sent, or counted never sent (a loaded machine)
assert rate["sent"] + rate["unsent"] == 8000, rate
# what was sent reached the server, and each request it read was sent
assert q["started"] == rate["sent"] and q["completed"] + q["failed"] + q["cut_off"] == q["started"], (q, rate)
assert q["completed"] <= len(ts) <= q["started"], (q, len(ts))
st = r["options"]["stages"]
assert st["spec"] == "4s:2000,2s:2000" and st["of"] == "rate" and st["start"] == 0, st
pts = r["series"]["points"]
for t, want in enumerate([250, 750, 1250, 1750, 2000, 2000]):
    assert abs(pts[t]["target"] - want) < 1e-6, (t, pts[t])
assert sum(p["sent"] for p in pts) == rate["sent"], ([p["sent"] for p in pts], rate)
PY

start_target --timing-log "$T/closed.log"
run_volley closed --stages 1s:20,1s:20,1s:5,1s:5,1s:0 -t 2 --html "$T/closed.html" "http://127.0.0.1:$PORT/delay/5"
check_eq "$RC" 0 "connections: exit status"
check_grep "$T/closed.out" "closed loop, connections in stages from 0: 1s to 20, 1s to 20, 1s to 5, 1s to 5, 1s to 0" \
    "connections: the header says the stages"
if grep -q "served only some connections" "$T/closed.out"; then fail "connections: a starvation warning for retired connections"; else ok; fi
stop_target
python3 - "$T/closed.log" "$T/closed.json" <<'PY' && ok || fail "connections: the server's open connections against the stages"
import json, sys
ev = []
for l in open(sys.argv[1]):
    k, t = l.split()[:2]
    if k in ("a", "c"):
        ev.append((int(t), 1 if k == "a" else -1))
ev.sort()
r = json.load(open(sys.argv[2]))
q = r["requests"]
assert q["cut_off"] == 0 and q["failed"] == 0, q
assert sum(d for _, d in ev if d > 0) == sum(-d for _, d in ev if d < 0), "a connection left open"
t0 = ev[0][0]
def open_at(s):  # connections open s seconds after the first accept
    return sum(d for t, d in ev if t <= t0 + s * 1e9)
def want(s):
    return 20 * s if s <= 1 else 20 if s <= 2 else 20 - 15 * (s - 2) if s <= 3 else 5 if s <= 4 else 5 * (5 - s)
# in the middles of the flat stages exactly; on the ramps within 2 (10 ms steps, two threads)
for s in (1.5, 3.5):
    assert open_at(s) == want(s), (s, open_at(s), want(s))
for s in (0.5, 2.5, 4.5):
    assert abs(open_at(s) - want(s)) <= 2, (s, open_at(s), want(s))
pts = r["series"]["points"]
assert r["options"]["stages"]["of"] == "connections", r["options"]["stages"]
assert abs(pts[1]["connections"] - 20) <= 1 and abs(pts[3]["connections"] - 5) <= 1, pts[:4]
assert [p["target"] for p in pts[:5]] == [10, 20, 12.5, 5, 2.5], [p["target"] for p in pts]
PY

check_grep "$T/closed.html" "Connections against the stages" "connections: the HTML's chart"

# volley report re-prints a run with stages as it was printed.
rc=0
"$VOLLEY" report "$T/closed.json" > "$T/closed.r.out" 2> /dev/null || rc=$?
check_eq "$rc" 0 "report: exit status"
if cmp -s "$T/closed.out" "$T/closed.r.out"; then ok; else fail "report: not the run's text: $(diff "$T/closed.out" "$T/closed.r.out" | head -4)"; fi

# options() gives stages like the command line.
start_target
cat > "$T/st.lua" <<'LUA'
return { options = function() return { rate = 0, stages = "1s:100" } end }
LUA
run_volley script -s "$T/st.lua" -c 4 -t 1 "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "options() stages: exit status"
check_eq "$(jget "$T/script.json" requests.completed)" 50 "options() stages: the integral of 0 -> 100/s over 1 s"

# Errors: exit 2, one line naming the part.
bad() { # WHAT PATTERN ARGS...
    local what=$1 pat=$2 rc=0
    shift 2
    "$VOLLEY" "$@" "http://127.0.0.1:$PORT/" > /dev/null 2> "$T/bad.err" || rc=$?
    check_eq "$rc" 2 "$what: exit status"
    check_grep "$T/bad.err" "$pat" "$what: the message"
}
bad "bad duration" '^volley: --stages: "1x:5": the duration before' --stages 1x:5
bad "not a number" '^volley: --stages: "1s:x": the target after' --stages 1s:x
bad "trailing comma" '^volley: --stages: ends with' --stages 1s:5,
bad "with -d" '^volley: --stages: cannot be combined with -d, -n or --iterations' --stages 1s:5 -d 2s
bad "all zero" '^volley: --stages: every target is 0' -R 0 --stages 1s:0
bad "-R 0 alone" '^volley: -R: 0 only with --stages' -R 0 -d 1s
finish
