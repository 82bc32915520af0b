# A flow's figures in saved results, merges and thresholds, against
# hand-computed counts: lua/flow_results.lua's user does iteration i of
# its own as group "browse" (one GET), checks "quarter" (fails when
# i % 4 == 0) and "always", a Lua error when i % 5 == 0, else group
# "checkout" (one GET, then u:fail("seven") when i % 7 == 0). With one
# user per process its iterations are 1..n, so every count follows from n
# (py below). Then:
#  1. one run (--iterations 60): the JSON's iterations, checks and groups
#     as computed; `volley report` prints the run's text byte for byte and
#     writes its JSON again byte for byte;
#  2. three shards (--shard I/3, -c 3: one user each, --iterations 61:
#     21, 20, 20), each as computed, `volley merge`d: every count the sum,
#     and the iteration and group histograms bucket for bucket the shards'
#     sum; the shards' threshold judged again on the sum;
#  3. thresholds on every new figure, passing and failing (exit 0, 99),
#     in a run and in `volley report`; a flow's figure on a run that is no
#     flow refused at the start (exit 2);
#  4. edited results refused with one line (report exit 1, merge exit 5
#     or 7), a repeated name added up, a result without the flow members
#     (from before flows) read as before.
source "$TESTLIB"
PYDIR="$(dirname "$TESTLIB")/py"
SCRIPT="$(dirname "$TESTLIB")/lua/flow_results.lua"

start_target
url="http://127.0.0.1:$PORT/"

# The figures of processes whose users made n iterations each, as JSON.
cat > "$T/expect.py" <<'PY'
def expect(ns):
    e = {"started": 0, "completed": 0, "failed": 0, "boom": 0, "seven": 0, "requests": 0,
         "quarter": [0, 0], "always": [0, 0], "browse": [0, 0], "checkout": [0, 0]}
    for n in ns:
        for i in range(1, n + 1):
            e["started"] += 1
            e["browse"][0] += 1
            e["requests"] += 1
            e["quarter"][0 if i % 4 else 1] += 1
            e["always"][0] += 1
            if i % 5 == 0:
                e["boom"] += 1
                continue
            e["checkout"][0] += 1
            e["requests"] += 1
            if i % 7 == 0:
                e["seven"] += 1
                e["checkout"][1] += 1
    e["failed"] = e["boom"] + e["seven"]
    e["completed"] = e["started"] - e["failed"]
    return e

def check(r, ns):
    e = expect(ns)
    it = r["iterations"]
    got = {k: it[k] for k in ("started", "completed", "failed", "cut_off")}
    want = {"started": e["started"], "completed": e["completed"], "failed": e["failed"], "cut_off": 0}
    assert got == want, (got, want)
    assert it["duration"]["count"] == e["completed"], it["duration"]
    reasons = {x["reason"]: x["count"] for x in it["failures"]["reasons"]}
    boom = [k for k in reasons if k.endswith("flow_results.lua:17: boom")]
    assert len(boom) == 1 and reasons[boom[0]] == e["boom"] and reasons["seven"] == e["seven"], reasons
    assert len(reasons) == 2, reasons
    c = r["checks"]
    names = {k: [v["passed"], v["failed"]] for k, v in c["names"].items()}
    assert names == {"quarter": e["quarter"], "always": e["always"]}, names
    assert c["passed"] == e["quarter"][0] + e["always"][0] and c["failed"] == e["quarter"][1], c
    assert abs(c["rate"] - c["passed"] / (c["passed"] + c["failed"])) < 1e-6, c
    g = r["groups"]
    assert list(g) == ["browse", "checkout"], list(g)
    for name in g:
        assert [g[name]["count"], g[name]["failed"]] == e[name], (name, g[name], e[name])
        assert g[name]["duration"]["count"] == e[name][0], (name, g[name]["duration"])
    assert r["requests"]["completed"] == e["requests"], (r["requests"], e["requests"])
PY

# flow_check FILE N... : FILE's figures are those of processes of N iterations.
flow_check() {
    local f=$1
    shift
    PYTHONPATH="$T" python3 - "$f" "$@" <<'PY' > "$T/check.out" 2>&1 && ok || fail "$f: figures: $(tail -3 "$T/check.out")"
import json, sys
import expect
expect.check(json.load(open(sys.argv[1])), [int(n) for n in sys.argv[2:]])
PY
}

# report NAME [args]: volley report, stdout and stderr in $T/NAME.rep.{out,err}; sets RC.
report() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" report "$@" > "$T/$name.rep.out" 2> "$T/$name.rep.err" || RC=$?
}

# 1. One run.
N=60
run_volley one -t 1 -c 1 --iterations "$N" -s "$SCRIPT" --threshold 'checks == 0.875' "$url"
check_eq "$RC" 0 "one: exit status ($(head -c 300 "$T/one.err"))"
flow_check "$T/one.json" "$N"
check_eq "$(jget "$T/one.json" options.iterations)" "$N" "one: options.iterations"
check_grep "$T/one.out" "^Running 60 iterations @ $url\$" "one: the header"
check_grep "$T/one.out" "^  Iterations: 41 completed, 19 failed, 0 cut off \(" "one: the text's iterations line"
check_grep "$T/one.out" "^    quarter +45 +15 +75.00%$" "one: the checks table"
check_grep "$T/one.out" "^    checkout +48 +7 " "one: the groups table"
report one "$T/one.json"
check_eq "$RC" 0 "one: report exit status ($(head -c 300 "$T/one.rep.err"))"
if cmp -s "$T/one.out" "$T/one.rep.out"; then ok; else fail "one: volley report's text is not the run's: $(diff "$T/one.out" "$T/one.rep.out" | head -10)"; fi
report onej "$T/one.json" --json "$T/one.again.json"
if cmp -s "$T/one.json" "$T/one.again.json"; then ok; else fail "one: volley report --json is not the run's JSON"; fi

# 2. Three shards of 61 iterations: 21, 20, 20, one user each. Each is
#    judged on its own part (iterations == 42 fails there: exit 99) and
#    the merge on the whole (it holds there).
pids=()
for i in 0 1 2; do
    timeout -s KILL 60 "$VOLLEY" -q -t 1 -c 3 --iterations 61 --shard "$i/3" --run-id flows -s "$SCRIPT" \
        --threshold 'iterations == 42' --json "$T/s$i.json" "$url" > "$T/s$i.out" 2> "$T/s$i.err" &
    pids+=($!)
done
for i in 0 1 2; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    check_eq "$rc" 99 "shard $i: exit status (its own part fails iterations == 42): $(head -c 300 "$T/s$i.err")"
done
flow_check "$T/s0.json" 21
flow_check "$T/s1.json" 20
flow_check "$T/s2.json" 20
RC=0
"$VOLLEY" merge "$T/s0.json" "$T/s1.json" "$T/s2.json" --json "$T/m.json" > "$T/m.out" 2> "$T/m.err" || RC=$?
check_eq "$RC" 0 "merge: exit status ($(head -c 300 "$T/m.err"))"
flow_check "$T/m.json" 21 20 20
check_eq "$(jget "$T/m.json" options.iterations)" 61 "merge: options.iterations (the run's)"
python3 - "$T/m.json" <<'PY' > "$T/mth.out" 2>&1 && ok || fail "merge: threshold judged on the sum: $(tail -3 "$T/mth.out")"
import json, sys
t = json.load(open(sys.argv[1]))["thresholds"]
assert len(t) == 1 and t[0]["pass"] and t[0]["observed"] == 42, t
PY
PYTHONPATH="$PYDIR" python3 - "$T" <<'PY' > "$T/m.hist" 2>&1 && ok || fail "merge: histograms: $(tail -5 "$T/m.hist")"
import json, sys
import hdrlog
T = sys.argv[1]
shards = [json.load(open("%s/s%d.json" % (T, i))) for i in range(3)]
merged = json.load(open(T + "/m.json"))
def at(r, path):
    for k in path:
        r = r[k]
    return r
paths = [("iterations", "duration")] + [("groups", g, "duration") for g in merged["groups"]]
assert len(paths) == 3, paths
for path in paths:
    m = at(merged, path)
    config, total = hdrlog.decode(m["hdr"])
    want = {}
    for s in shards:
        c, counts = hdrlog.decode(at(s, path)["hdr"])
        assert c == config, (path, c, config)
        for k, v in counts.items():
            want[k] = want.get(k, 0) + v
    assert total == want, (path, sorted(set(total.items()) ^ set(want.items()))[:10])
    assert m["count"] == sum(at(s, path)["count"] for s in shards) == sum(total.values()), path
    assert int(m["sum"]) == sum(int(at(s, path)["sum"]) for s in shards), path
    assert int(m["sum_sq"]) == sum(int(at(s, path)["sum_sq"]) for s in shards), path
    assert m["min"] == min(at(s, path)["min"] for s in shards), path
    assert m["max"] == max(at(s, path)["max"] for s in shards), path
    print(".".join(path), "count", m["count"], "buckets", len(total))
PY
cat "$T/m.hist"
report m "$T/m.json"
if cmp -s "$T/m.out" "$T/m.rep.out"; then ok; else fail "merge: volley report's text is not the merge's: $(diff "$T/m.out" "$T/m.rep.out" | head -10)"; fi

# 3. Thresholds on each new figure against run 1's hand-computed figures
#    (60 iterations: 41 completed, 19 failed of 60 started = 31.7 %;
#    checks 105 of 120 passed = 0.875, quarter 45 of 60 = 0.75; checkout
#    48 runs, 7 failed), judged again by volley report: PASS holds, FAIL
#    does not.
PASS=('iterations == 41' 'iterations.failed == 19' 'iterations.failed < 32%' 'iteration.count == 41'
      'iteration.p99 < 10s' 'iteration.max >= 1ns' 'checks == 0.875' 'checks > 87%' 'checks{name="quarter"} == 0.75'
      'checks{name="always"} == 100%' 'group{name="checkout"}.count == 48' 'group{name="checkout"}.failed == 7'
      'group{name="checkout"}.p95 < 10s' 'group{name="browse"}.failed == 0' 'checks{name="nosuch"} > 0.5 or nodata')
FAILING=('iterations > 41' 'iterations.failed < 19' 'iterations.failed < 31%' 'iteration.max < 1ns'
         'iteration.p50 > 10s' 'checks >= 0.9' 'checks >= 90%' 'checks{name="quarter"} > 0.75'
         'checks{name="always"} < 1' 'group{name="checkout"}.failed < 10%' 'group{name="checkout"}.p95 < 1ns'
         'group{name="browse"}.failed > 0' 'checks{name="nosuch"} > 0.5' 'group{name="nosuch"}.p99 < 10s')
args=()
for e in "${PASS[@]}"; do args+=(--threshold "$e"); done
report pass "$T/one.json" "${args[@]}"
check_eq "$RC" 0 "thresholds that hold: exit status ($(head -c 300 "$T/pass.rep.err"))"
n=$(grep -c ' pass$' "$T/pass.rep.out" || true)
check_eq "$n" "${#PASS[@]}" "thresholds that hold: pass lines"
for e in "${FAILING[@]}"; do args+=(--threshold "$e"); done
report mixed "$T/one.json" "${args[@]}" --json -
check_eq "$RC" 99 "thresholds, some failing: exit status ($(head -c 300 "$T/mixed.rep.err"))"
python3 - "$T/mixed.rep.out" "${#PASS[@]}" <<'PY' > "$T/mixed.py" 2>&1 && ok || fail "thresholds: outcomes: $(tail -3 "$T/mixed.py")"
import json, sys
t = json.load(open(sys.argv[1]))["thresholds"]
npass = int(sys.argv[2])
bad = [x["expr"] for i, x in enumerate(t) if x["pass"] != (i < npass)]
assert not bad, bad
assert len(t) > npass
obs = {}
for x in t:  # a figure's first threshold (PASS's order), and as a % where one is
    obs.setdefault(x["figure"] + ("%" if x["unit"] == "%" else ""), x["observed"])
near = lambda a, b: abs(a - b) < 1e-9 * max(1, abs(b))
assert obs["iterations"] == 41 and obs["iterations.failed"] == 19 and near(obs["iterations.failed%"], 100 * 19 / 60), obs
assert obs["checks"] == 0.875 and obs["checks%"] == 87.5 and obs['checks{name="quarter"}'] == 0.75, obs
assert obs['checks{name="always"}%'] == 100, obs
assert obs['group{name="checkout"}.count'] == 48 and obs['group{name="checkout"}.failed'] == 7, obs
assert near(obs['group{name="checkout"}.failed%'], 100 * 7 / 48), obs
assert obs["iteration.count"] == 41 and obs['group{name="browse"}.failed'] == 0, obs
nodata = [x["figure"] for x in t if x["nodata"]]
assert sorted(nodata) == sorted(['checks{name="nosuch"}'] * 2 + ['group{name="nosuch"}.p99']), nodata
PY
check_grep "$T/mixed.rep.err" "^volley: ${#FAILING[@]} of $((${#PASS[@]} + ${#FAILING[@]})) thresholds failed: --threshold \"iterations > 41\"" \
    "thresholds: the stderr line"
# In a run: one that fails (99), its line in the text.
run_volley failing -t 1 -c 1 --iterations 20 -s "$SCRIPT" --threshold 'checks{name="quarter"} >= 80%' "$url"
check_eq "$RC" 99 "a run's failing flow threshold: exit status ($(head -c 300 "$T/failing.err"))"
check_grep "$T/failing.out" '^  --threshold  checks\{name="quarter"\} >= 80%  75%  FAIL$' "a run's failing flow threshold: its line"
# A flow's figure on a run that is no flow: refused before anything is sent.
run_volley plain -n 5 -c 1 --threshold 'group{name="checkout"}.p95 < 1s' "$url"
check_eq "$RC" 2 "a flow's figure without a flow: exit status"
check_eq "$(cat "$T/plain.err")" \
    'volley: --threshold "group{name="checkout"}.p95 < 1s": group{name="checkout"}.p95: a flow'"'"'s figure, and this run is no flow (no script with user(u))' \
    "a flow's figure without a flow: the message"
[ -e "$T/plain.json" ] && fail "a flow's figure without a flow: a JSON was written" || ok
run_volley plain -n 5 -c 1 "$url"
check_eq "$RC" 0 "a plain run: exit status"
report plainth "$T/plain.json" --threshold 'checks > 0.5'
check_eq "$RC" 2 "volley report: a flow's figure on a result that is no flow: exit status"
check_grep "$T/plainth.rep.err" '^volley report: --threshold "checks > 0.5": checks: a flow.s figure, and this run is no flow' \
    "volley report: a flow's figure on a result that is no flow: the message"

# 4. Edited results. edit NAME SRC PYTHON: $T/NAME.json is SRC's JSON r
#    after PYTHON ran on it (text: the raw JSON after it, when set).
edit() {
    python3 - "$2" "$T/$1.json" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = None
exec(sys.argv[3])
open(sys.argv[2], "w").write(text if text is not None else json.dumps(r))
PY
}
# refused NAME PATTERN: volley report of $T/NAME.json exits 1 with one line matching PATTERN.
refused() {
    report "$1" "$T/$1.json"
    check_eq "$RC" 1 "$1: volley report exit status"
    check_eq "$(wc -l < "$T/$1.rep.err")" 1 "$1: one line"
    check_grep "$T/$1.rep.err" "^volley report: $T/$1.json: $2" "$1: the message"
}
edit totals "$T/one.json" 'r["checks"]["passed"] -= 1'
refused totals 'checks.passed: 104, but its names. add up to 105$'
edit gfailed "$T/one.json" 'r["groups"]["checkout"]["failed"] = 49'
refused gfailed 'groups.checkout.failed: 49, more than its count \(48\)$'
edit gcount "$T/one.json" 'r["groups"]["checkout"]["count"] = 47; r["groups"]["checkout"]["failed"] = 6'
refused gcount 'groups.checkout.duration: its histogram holds 48 runs, but count is 47$'
edit icount "$T/one.json" 'r["iterations"]["completed"] = 40'
refused icount 'iterations.duration.count: 41, but 40 iterations completed$'
edit stray "$T/one.json" 'r["iterations"] = None'
refused stray 'checks: a flow.s figures, but "iterations" is null: not a real result$'
edit huge "$T/one.json" 'r["checks"]["names"]["always"]["passed"] = 10**16; r["checks"]["passed"] = 10**16 + 45'
refused huge 'checks.names.always.passed: '
edit many "$T/one.json" 'r["checks"]["names"] = {"c%d" % i: {"passed": 0, "failed": 0} for i in range(1001)}; r["checks"]["passed"] = r["checks"]["failed"] = 0'
refused many 'checks.names.c1000: more than 1000 check names, or a name empty or with a NUL$'
edit empty "$T/one.json" 'r["groups"][""] = r["groups"]["browse"]'
refused empty 'groups\.: more than 1000 group names, or a name empty or with a NUL$'
edit ghdr "$T/one.json" 'r["groups"]["browse"]["duration"]["hdr"] = "HISTFAAAAbad"'
refused ghdr 'groups.browse.duration'
# A name the file repeats (two names written as one) adds up into one.
edit dup "$T/one.json" 'text = json.dumps(r).replace("\"names\": {\"quarter\"", "\"names\": {\"quarter\": {\"passed\": 1, \"failed\": 2}, \"quarter\"").replace("\"passed\": 105, \"failed\": 15", "\"passed\": 106, \"failed\": 17")'
report dup "$T/dup.json" --json "$T/dup.out.json" --threshold 'checks{name="quarter"} > 0.5'
check_eq "$RC" 0 "dup: exit status ($(head -c 300 "$T/dup.rep.err"))"
check_eq "$(jget "$T/dup.out.json" checks.names.quarter.passed)/$(jget "$T/dup.out.json" checks.names.quarter.failed)" \
    46/17 "dup: a repeated check name adds up"
# A result from before flows (no such members) reads as it did.
edit old "$T/plain.json" 'del r["iterations"], r["checks"], r["groups"], r["options"]["iterations"]'
report old "$T/old.json"
check_eq "$RC" 0 "old: exit status ($(head -c 300 "$T/old.rep.err"))"
if cmp -s "$T/plain.out" "$T/old.rep.out"; then ok; else fail "old: the text differs: $(diff "$T/plain.out" "$T/old.rep.out" | head -5)"; fi
# Merges: sums past what a result holds (5), a flow's shard with one that
# is not (7: the settings differ). merge_refused NAME STATUS PATTERN
# FILES...: volley merge of FILES exits STATUS, stderr matching PATTERN.
merge_refused() {
    local name=$1 status=$2 pattern=$3
    shift 3
    RC=0
    "$VOLLEY" merge "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
    check_eq "$RC" "$status" "$name: merge exit status"
    check_grep "$T/$name.err" "$pattern" "$name: the message"
}
edit big1 "$T/s1.json" 'r["checks"]["names"]["quarter"]["failed"] = 5 * 10**15; r["checks"]["failed"] = 5 * 10**15'
edit big2 "$T/s2.json" 'r["checks"]["names"]["quarter"]["failed"] = 5 * 10**15; r["checks"]["failed"] = 5 * 10**15'
merge_refused big 5 "^volley merge: $T/big2.json: checks.failed: added to the other shards', more than 9000000000000000" \
    "$T/s0.json" "$T/big1.json" "$T/big2.json"
edit noflow1 "$T/s1.json" 'r["iterations"] = r["checks"] = r["groups"] = r["thresholds"] = None'
merge_refused noflow 7 "iterations: a flow's and null \(one is a flow's result, user\(u\), the other not\)" \
    "$T/s0.json" "$T/noflow1.json" "$T/s2.json"
stop_target
finish
