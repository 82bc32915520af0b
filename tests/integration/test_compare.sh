# volley compare: two short runs against the test target, one of them
# against a server that answers 5 ms late. The slower run's latency is
# "worse" and a `p99 > +10%` limit fails it (exit 99); a run compared with
# itself is "same" throughout (exit 0); a -c that differs is warned about;
# a truncated or edited file gets one line naming it and the field (exit
# 1); a bad --fail-if is exit 2 before any file is read.
source "$TESTLIB"

start_target
FAST=$PORT
start_target --delay-ms 5
SLOW=$PORT

run_volley base -q -t 1 -c 4 -d 3s "http://127.0.0.1:$FAST/"
check_eq "$RC" 0 "base run"
run_volley slow -q -t 1 -c 4 -d 3s "http://127.0.0.1:$SLOW/"
check_eq "$RC" 0 "slow run"
run_volley wide -q -t 1 -c 8 -d 1s "http://127.0.0.1:$FAST/"
check_eq "$RC" 0 "wide run"

# compare NAME [args]: volley compare ARGS, stdout/stderr in $T/NAME.out/.err; sets RC.
compare() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 30 "$VOLLEY" compare "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

# A run with itself: every figure the same, no warning, exit 0.
compare self "$T/base.json" "$T/base.json" --fail-if 'p99 > +10%' --fail-if 'rps < -5%'
check_eq "$RC" 0 "self: exit status"
check_grep "$T/self.out" '^figure +base +new +change +verdict$' "self: table header"
check_grep "$T/self.out" '^latency p99 .* same' "self: p99 same"
check_grep "$T/self.out" '^requests/s .* same \(noise ' "self: rps same, with its noise"
if grep -qE 'worse|better|^Warning' "$T/self.out"; then fail "self: a change or a warning: $(cat "$T/self.out")"; else ok; fi
check_grep "$T/self.out" '^  p99 > \+10% +\+0\.0% +ok$' "self: limit block"
check_eq "$(wc -c < "$T/self.err")" 0 "self: stderr empty"

# The slower run: latency worse, the limit fails, exit 99.
compare slower "$T/base.json" "$T/slow.json" --fail-if 'p99 > +10%' --fail-if 'errors > +1%'
check_eq "$RC" 99 "slower: exit status"
for f in 'latency p50' 'latency p99' 'latency mean'; do
    check_grep "$T/slower.out" "^$f .*\\+[0-9.]+(ms|us) \\(\\+[0-9.]+%\\) +worse" "slower: $f worse"
done
check_grep "$T/slower.out" '^requests/s .*worse' "slower: requests/s worse"
check_grep "$T/slower.out" '^  p99 > \+10% +\+[0-9.]+% +FAIL$' "slower: the p99 limit fails"
check_grep "$T/slower.out" '^  errors > \+1% +\+0pp +ok$' "slower: the errors limit holds"
check_grep "$T/slower.err" '^volley compare: 1 of 2 limits failed: "p99 > \+10%"$' "slower: stderr"
check_grep "$T/slower.out" '^Warning: URLs differ' "slower: other port, URL warning"
# The other way round, the same limit holds: the new run is faster.
compare faster "$T/slow.json" "$T/base.json" --fail-if 'p99 > +10%'
check_eq "$RC" 0 "faster: exit status"
check_grep "$T/faster.out" '^latency p99 .* better' "faster: p99 better"
# An absolute limit: 5 ms later is more than +1ms, less than +1s.
compare abs "$T/base.json" "$T/slow.json" --fail-if 'p50 > +1s'
check_eq "$RC" 0 "abs: +1s holds"
compare abs2 "$T/base.json" "$T/slow.json" --fail-if 'p50 > +1ms'
check_eq "$RC" 99 "abs: +1ms fails"

# Settings that differ: one warning line each, before the table.
compare wide "$T/base.json" "$T/wide.json"
check_eq "$RC" 0 "wide: exit status"
check_grep "$T/wide.out" '^Warning: connections \(-c\) differ: 4 in BASE, 8 in NEW$' "wide: -c warning"
check_grep "$T/wide.out" '^Warning: lengths \(-d, -n\) differ: -d 3s in BASE, -d 1s in NEW$' "wide: -d warning"
check_eq "$(grep -n '^Warning: connections' "$T/wide.out" | cut -d: -f1)" 3 "wide: warning before the table"
check_grep "$T/wide.out" 'noise unknown' "wide: one second, noise unknown"

# Bad files: one line naming the file and the place or field, exit 1.
head -c 2000 "$T/base.json" > "$T/cut.json"
compare cut "$T/base.json" "$T/cut.json"
check_eq "$RC" 1 "truncated: exit status"
check_grep "$T/cut.err" "^volley compare: $T/cut.json: line [0-9]+, column [0-9]+ \\(byte [0-9]+\\): " "truncated: message"
check_eq "$(wc -l < "$T/cut.err")" 1 "truncated: one line"
check_eq "$(wc -c < "$T/cut.out")" 0 "truncated: no table"
python3 - "$T/base.json" "$T/edited.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["latency"]["hdr"] = 42
json.dump(r, open(sys.argv[2], "w"))
PY
compare edited "$T/edited.json" "$T/base.json"
check_eq "$RC" 1 "edited: exit status"
check_grep "$T/edited.err" "^volley compare: $T/edited.json: latency.hdr: expected a string, found a number$" "edited: message"
python3 - "$T/base.json" "$T/edited2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["series"]["points"][1]["latency"]["hdr"] = r["series"]["points"][1]["latency"]["hdr"][:40]
json.dump(r, open(sys.argv[2], "w"))
PY
compare edited2 "$T/base.json" "$T/edited2.json"
check_eq "$RC" 1 "edited point: exit status"
check_grep "$T/edited2.err" "^volley compare: $T/edited2.json: series.points\\[1\\].latency.hdr: " "edited point: message"
compare missing "$T/base.json" "$T/nope.json"
check_eq "$RC" 1 "missing: exit status"
check_grep "$T/missing.err" "^volley compare: $T/nope.json: No such file or directory$" "missing: message"

# Bad command lines: exit 2, before any file is read (these do not exist).
compare badexpr "$T/nope1.json" "$T/nope2.json" --fail-if 'p99 > 10%'
check_eq "$RC" 2 "bad expression: exit status"
check_eq "$(cat "$T/badexpr.err")" 'volley compare: --fail-if "p99 > 10%": 10%: a change needs its sign (+10% or -10%, +2ms)' "bad expression: message"
compare badunit "$T/nope1.json" "$T/nope2.json" --fail-if 'errors > +1'
check_eq "$RC" 2 "bad unit: exit status"
check_grep "$T/badunit.err" 'percentage points' "bad unit: message"
compare one "$T/base.json"
check_eq "$RC" 2 "one file: exit status"
compare three "$T/base.json" "$T/base.json" "$T/base.json"
check_eq "$RC" 2 "three files: exit status"
compare opt "$T/base.json" "$T/base.json" --frobnicate
check_eq "$RC" 2 "unknown option: exit status"
check_grep "$T/opt.err" '^volley compare: --frobnicate: unknown option' "unknown option: message"

finish
