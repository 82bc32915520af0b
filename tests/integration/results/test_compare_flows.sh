# volley compare of two flows' results: the iterations (rate, failed
# share, duration percentiles), the checks' pass rate, each group both runs
# have (runs/s, failed share, p50, p99) and each request name both have
# (requests/s, errors, p50, p99), in the text and the HTML page, and the
# length of an --iterations run ("60 iterations"). The counts come from
# the flow of test_flow_results.sh (lua/flow_results.lua, here with its
# requests named): with one user its iterations are 1..n, so
#   n = 60: 19 of 60 iterations failed (31.7 %), checks 105 of 120 passed
#           (87.5 %), group checkout 7 of 48 runs failed (14.6 %);
#   n = 40: 12 of 40 failed (30 %), checks 70 of 80 (87.5 %), checkout 4 of
#           32 (12.5 %).
# A flow against a run that is no flow has no flow rows; a flow's -R is
# "open model at N iterations/s"; a group that is not an object is one
# line naming it (exit 1).
source "$TESTLIB"

S=$T/scripts
mkdir -p "$S"
sed -e 's|u:get("/") end)|u:get("/", { name = "home" }) end)|' \
    -e 's|^    u:get("/")$|    u:get("/", { name = "pay" })|' "$(dirname "$TESTLIB")/lua/flow_results.lua" > "$S/named.lua"
grep -q 'name = "home"' "$S/named.lua" && grep -q 'name = "pay"' "$S/named.lua" || { fail "the named script: $(cat "$S/named.lua")"; finish; }

start_target
url="http://127.0.0.1:$PORT/"
run_volley a -q -t 1 -c 1 --iterations 60 -s "$S/named.lua" "$url"
check_eq "$RC" 0 "run a: exit status ($(head -c 300 "$T/a.err"))"
run_volley b -q -t 1 -c 1 --iterations 40 -s "$S/named.lua" "$url"
check_eq "$RC" 0 "run b: exit status ($(head -c 300 "$T/b.err"))"
run_volley plain -q -t 1 -c 1 -n 20 "$url"
check_eq "$RC" 0 "plain run: exit status"
run_volley open -q -t 1 -c 2 -R 20 -d 1s -s "$S/named.lua" "$url"
check_rate_rc "open flow run"

# compare NAME [args]: volley compare ARGS, stdout/stderr in $T/NAME.out/.err; sets RC.
compare() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 30 "$VOLLEY" compare "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

compare ab "$T/a.json" "$T/b.json" --html "$T/ab.html"
check_eq "$RC" 0 "a b: exit status ($(head -c 300 "$T/ab.err"))"
cat "$T/ab.out"
check_grep "$T/ab.out" '^Warning: lengths \(-d, -n, --iterations\) differ: 60 iterations in BASE, 40 iterations in NEW$' \
    "a b: the lengths"
T_=' +[0-9.]+(ns|us|ms|s) +[0-9.]+(ns|us|ms|s) +[-+]'
check_grep "$T/ab.out" '^iterations/s +[0-9.]+ +[0-9.]+ +[-+]' "a b: iterations/s"
check_grep "$T/ab.out" '^iterations failed +31\.7% +30% +-1\.67pp +better' "a b: iterations failed"
for s in p50 p90 p99 p99.9 max mean; do
    check_grep "$T/ab.out" "^iteration $s$T_" "a b: iteration $s"
done
check_grep "$T/ab.out" '^checks passed +87\.5% +87\.5% +\+0pp +same' "a b: checks passed"
check_grep "$T/ab.out" '^group "browse" runs/s +[0-9.]+ +[0-9.]+ ' "a b: group browse runs/s"
check_grep "$T/ab.out" '^group "checkout" failed +14\.6% +12\.5% +-2\.08pp +better' "a b: group checkout failed"
check_grep "$T/ab.out" "^group \"checkout\" p99$T_" "a b: group checkout p99"
check_grep "$T/ab.out" '^name "home" requests/s +[0-9.]+ +[0-9.]+ ' "a b: name home requests/s"
check_grep "$T/ab.out" '^name "pay" errors +0% +0% +\+0pp' "a b: name pay errors"
check_grep "$T/ab.out" "^name \"pay\" p50$T_" "a b: name pay p50"
# The page: the same rows, the length.
for row in 'iterations failed' 'iteration p99' 'checks passed' 'group &quot;checkout&quot; failed' 'name &quot;home&quot; p99'; do
    check_grep "$T/ab.html" "<tr><td>$row</td>" "a b: the page's row $row"
done
check_grep "$T/ab.html" '<th>length \(-d, -n, --iterations\)</th><td>60 iterations</td><td>40 iterations</td>' \
    "a b: the page's length"

# A flow with itself: every row the same.
compare self "$T/a.json" "$T/a.json"
check_eq "$RC" 0 "self: exit status"
n=$(grep -cE '^(iteration|checks|group|name)' "$T/self.out" || true)
check_eq "$n" 25 "self: the flow's and names' rows (2 + 6 + 1, and 4 for each of 2 groups and 2 names)"
if grep -E '^(iteration|checks|group|name)' "$T/self.out" | grep -qvE ' same( |$)'; then
    fail "self: a flow row not the same: $(cat "$T/self.out")"
else ok; fi

# A flow against a run that is no flow: no flow rows, the lengths differ.
compare mixed "$T/plain.json" "$T/a.json"
check_eq "$RC" 0 "mixed: exit status"
if grep -qE '^(iteration|checks|group|name)' "$T/mixed.out"; then fail "mixed: flow rows: $(cat "$T/mixed.out")"; else ok; fi
check_grep "$T/mixed.out" '^Warning: lengths \(-d, -n, --iterations\) differ: -n 20 in BASE, 60 iterations in NEW$' "mixed: the lengths"
# A flow's -R: iterations/s in the model.
compare open "$T/a.json" "$T/open.json"
check_eq "$RC" 0 "open: exit status"
check_grep "$T/open.out" '^Warning: models differ: closed loop in BASE, open model at 20 iterations/s in NEW$' "open: the model"

# An edited file: one line naming the field.
python3 - "$T/a.json" "$T/bad.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["groups"]["checkout"] = 5
json.dump(r, open(sys.argv[2], "w"))
PY
compare bad "$T/a.json" "$T/bad.json"
check_eq "$RC" 1 "bad: exit status"
check_eq "$(wc -l < "$T/bad.err")" 1 "bad: one line"
check_grep "$T/bad.err" "^volley compare: $T/bad.json: groups\.checkout: expected an object, found a number" "bad: the message"
stop_target
finish
