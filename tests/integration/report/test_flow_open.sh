# A flow under -R (the open model of iterations) reports what it measured
# under its name: the header's rate is of iterations, the text has no
# Service or Send lag line (a flow's requests go when the flow sends them:
# nothing of theirs is measured against the schedule) but a Start lag line,
# each iteration's wait from its due time for a free user; the JSON has no
# top-level "service" or "sendlag" (nor a "sendlag" in a second of its
# series, nor a Tag=service or Tag=sendlag line in --hlog) but
# "iterations"."start_lag", one per iteration started; the
# rate lines and the HTML say iterations.
# 2 users against a server that answers 100 ms late start at most 20
# iterations a second while 50 are due: iteration k (from 0, started in
# the order due) starts no earlier than floor(k/2) x 100 ms and was due at
# k / 50 s, so the last one started waited at least the difference. A
# loaded machine only starts them later (the bound holds the more).
source "$TESTLIB"

S=$T/scripts
mkdir -p "$S"
cat > "$S/two.lua" <<'LUA'
local s = {}
function s.user(u)
  u:get("/", { name = "home" })
end
return s
LUA
start_target --delay-ms 100
url="http://127.0.0.1:$PORT/"

run_volley open -s "$S/two.lua" -R 50 -d 2s -c 2 -t 1 --html "$T/open.html" --hlog "$T/open.hlog" "$url"
check_eq "$RC" 3 "open: exit status (the rate cannot be met: 2 users, 100 ms each)"
check_grep "$T/open.out" "^  1 thread and 2 connections, keep-alive, open model at 50 iterations/s$" "open: the header"
if grep -qE '^  (Service|Send lag) ' "$T/open.out"; then fail "open: a Service or Send lag line: $(cat "$T/open.out")"; else ok; fi
check_grep "$T/open.out" "^  Start lag p50 [0-9.]+(us|ms|s) " "open: the Start lag line"
check_grep "$T/open.out" "^  Rate: 50 iterations/s scheduled, [0-9.]+/s started; [0-9]+ started, [0-9]+ never started$" \
    "open: the rate line"
check_grep "$T/open.out" "^  Target rate NOT met: [0-9.]+/s of 50/s \(start lag p50 [0-9.]+(us|ms|s), p99 [0-9.]+(us|ms|s); more users \(-c\)" \
    "open: the rate not met"
check_grep "$T/open.err" "^volley: -R 50: target rate not met: [0-9.]+ iterations/s started, [0-9]+ never started$" \
    "open: stderr"
python3 - "$T/open.json" <<'PY' > "$T/open.py" 2>&1 && ok || fail "open: JSON: $(tail -3 "$T/open.py")"
import json, sys
r = json.load(open(sys.argv[1]))
assert "service" not in r and "sendlag" not in r, [k for k in ("service", "sendlag") if k in r]
assert r["rate"]["of"] == "iterations", r["rate"]
pts = r["series"]["points"]
assert pts and all("sendlag" not in p for p in pts), pts[0]
assert sum(p["sent"] for p in pts) == r["rate"]["sent"], ([p["sent"] for p in pts], r["rate"])
it = r["iterations"]
lag = it["start_lag"]
n = it["started"]
assert n >= 4 and lag["count"] == n == r["rate"]["sent"], (lag, it, r["rate"])
k = n - 1
bound = (k // 2) * 0.1 - k / 50  # seconds
assert lag["max"] / 1e6 >= bound - 0.005, ("start lag max", lag["max"], "bound", bound, "started", n)
print("started", n, "start lag max", lag["max"] / 1e6, "s, bound", bound)
PY
cat "$T/open.py"
check_grep "$T/open.html" "open model at 50 iterations/s" "open: the HTML's model"
check_grep "$T/open.hlog" "^Tag=iteration," "open: --hlog has the iterations"
if grep -qE '^Tag=(service|sendlag),' "$T/open.hlog"; then fail "open: --hlog has service or send lag lines"; else ok; fi
check_grep "$T/open.html" "<th>start lag \(due to start\)</th>" "open: the HTML's start lag row"
check_grep "$T/open.html" "Iterations started per second against the target rate" "open: the HTML's chart"
# volley report of the saved result: the same text, the same JSON.
RC=0
"$VOLLEY" report "$T/open.json" --json "$T/again.json" > "$T/again.out" 2> "$T/again.err" || RC=$?
check_eq "$RC" 3 "report: exit status"
if cmp -s "$T/open.out" "$T/again.out"; then ok; else fail "report: the text differs: $(diff "$T/open.out" "$T/again.out" | head -5)"; fi
if cmp -s "$T/open.json" "$T/again.json"; then ok; else fail "report: the JSON differs"; fi

# A closed loop's flow has no start lag at all.
run_volley closed -s "$S/two.lua" --iterations 4 -c 2 -t 1 "$url"
check_eq "$RC" 0 "closed: exit status"
if grep -qE '^  (Start lag|Service|Send lag) ' "$T/closed.out"; then fail "closed: a lag line"; else ok; fi
check_eq "$(python3 -c 'import json,sys; print("start_lag" in json.load(open(sys.argv[1]))["iterations"])' "$T/closed.json")" \
    False "closed: no start_lag"
stop_target
finish
