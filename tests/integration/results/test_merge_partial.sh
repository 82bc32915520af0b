#!/usr/bin/env bash
# `volley merge --partial`: one machine of three failed, the others merge.
# Without --partial the set is refused (exit 9) with a hint; with it the
# two shards merge into a result that says it is partial and which shard
# is missing: exit 11, a stderr line, the header's line, run.missing in the
# JSON, a row of the HTML summary; its figures are the two shards' (their
# counts added, their part of -c, and of -R's rate: 2/3 of it); `volley
# report` of it prints the same and exits the same; interval logs must be
# those of the shards merged; a set with nothing missing merges as without
# --partial; a "missing" edited into nonsense is refused naming it.
source "${TESTLIB:?}"

start_target
url="http://127.0.0.1:$PORT/"
# The run's three shards at once (shards of one run start within its length).
pids=()
for i in 0 1 2; do
    run_volley "s$i" -q -n 30 -c 6 -t 1 --shard "$i/3" --run-id rP --hlog "$T/s$i.hlog" "$url" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "a shard failed: $(cat "$T"/s*.err)" >&2; exit 1; }; done
S0=$T/s0.json S1=$T/s1.json S2=$T/s2.json

# merge NAME ARGS...: volley merge ARGS, stdout, stderr and status as $T/NAME.*.
merge() {
    local n=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" merge "$@" > "$T/$n.out" 2> "$T/$n.err" || RC=$?
}

# 1. Shard 1 missing, no --partial: refused, saying how to merge the others.
merge refused "$S0" "$S2" --json "$T/refused.json"
check_eq "$RC" 9 "without --partial: exit status"
check_eq "$(cat "$T/refused.err")" \
    "volley merge: results: 1 of 3 shards missing (shard 1; shards count from 0): --partial merges the others" \
    "without --partial: the refusal"
if [ -e "$T/refused.json" ]; then fail "without --partial: a result was written"; else ok; fi

# 2. --partial: the two merged, and said to be partial everywhere.
merge part --partial "$S0" "$S2" --json "$T/part.json" --html "$T/part.html"
check_eq "$RC" 11 "--partial: exit status ($(cat "$T/part.err"))"
check_eq "$(cat "$T/part.err")" \
    "volley merge: partial: 1 of 3 shards missing (shard 1; shards count from 0): the report is of the 2 merged" \
    "--partial: its stderr line"
check_eq "$(grep -c 'Partial' "$T/part.out")" 1 "--partial: one Partial line in the report"
check_grep "$T/part.out" '^  Partial: 2 of 3 shards merged \(volley merge --partial\), run rP; missing: shard 1$' \
    "--partial: the header's line"
check_grep "$T/part.out" '^  2 threads and 4 connections, ' "--partial: the merged shards' part of -c (4 of 6)"
check_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' "$T/part.json")" \
    "{'id': 'rP', 'shard': None, 'shards': 3, 'missing': [1], 'start_at': None}" "--partial: the JSON's run"
check_eq "$(jget "$T/part.json" requests.completed)" \
    "$(($(jget "$S0" requests.completed) + $(jget "$S2" requests.completed)))" "--partial: completed: shards 0 and 2's"
check_eq "$(jget "$T/part.json" requests.completed)" 20 "--partial: completed (10 a shard)"
check_grep "$T/part.html" '<tr><th>Partial</th><td><span id="partial">2 of 3 shards merged \(volley merge --partial\); missing: shard 1</span></td></tr>' \
    "--partial: the HTML summary's row"

# 3. volley report of it: the same report, line and exit status.
RC=0
timeout -s KILL 30 "$VOLLEY" report "$T/part.json" > "$T/again.out" 2> "$T/again.err" || RC=$?
check_eq "$RC" 11 "volley report of a partial merge: exit status"
check_eq "$(cat "$T/again.out")" "$(cat "$T/part.out")" "volley report of a partial merge: the report"
check_eq "$(cat "$T/again.err")" "$(cat "$T/part.err")" "volley report of a partial merge: stderr"
# A partial result is a merged one: not a shard to merge again.
merge twice "$T/part.json" "$S1"
check_eq "$RC" 5 "a partial result merged again: refused as a merged result"

# 4. --partial with nothing missing: an ordinary merge.
merge whole --partial "$S0" "$S1" "$S2" --json "$T/whole.json"
check_eq "$RC" 0 "--partial, every shard: exit status ($(cat "$T/whole.err"))"
check_eq "$(grep -c 'Partial' "$T/whole.out")" 0 "--partial, every shard: no Partial line"
check_grep "$T/whole.out" '^  3 shards merged \(volley merge\), run rP$' "--partial, every shard: the merged line"
check_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"]["missing"])' "$T/whole.json")" \
    "[]" "--partial, every shard: run.missing"

# 5. Interval logs: those of the shards merged, no more, no fewer.
merge logs --partial "$S0" "$S2" "$T/s0.hlog" "$T/s2.hlog" --hlog "$T/part.hlog" -q
check_eq "$RC" 11 "--partial with the logs: exit status ($(cat "$T/logs.err"))"
check_grep "$T/part.hlog" 'merged=2' "--partial with the logs: the merged log"
merge extra --partial "$S0" "$S2" "$T/s0.hlog" "$T/s1.hlog" "$T/s2.hlog" --hlog "$T/extra.hlog" -q
check_eq "$RC" 9 "--partial, a log whose result is missing: exit status"
check_eq "$(cat "$T/extra.err")" \
    "volley merge: $T/s1.hlog: shard 1's, but its result is missing: give the logs of the shards merged" \
    "--partial, a log whose result is missing: the refusal"
merge fewer --partial "$S0" "$S2" "$T/s0.hlog" --hlog "$T/fewer.hlog" -q
check_eq "$RC" 9 "--partial, a merged shard's log missing: exit status"
check_eq "$(cat "$T/fewer.err")" \
    "volley merge: interval logs: 1 of 3 shards missing (shard 2; shards count from 0)" \
    "--partial, a merged shard's log missing: the refusal"

# 6. -R: the merged shards' part of the rate is the target (2/3 of -R).
pids=()
for i in 0 1 2; do
    run_volley "r$i" -q -R 300 -d 1s -c 6 -t 1 --shard "$i/3" --run-id rR "$url" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
merge rate --partial "$T/r0.json" "$T/r1.json" --json "$T/rate.json"
check_eq "$RC" 11 "--partial -R: exit status ($(cat "$T/rate.err"))"
check_eq "$(jget "$T/rate.json" rate.target)" 200.0 "--partial -R: the target rate (shards 0 and 1 of 3 at -R 300)"
check_grep "$T/rate.err" '^volley merge: partial: 1 of 3 shards missing \(shard 2; ' "--partial -R: the missing shard"

# 7. A "missing" that is no list of this run's shards is refused, named.
for bad in '[3]' '[2, 0]' '[0, 1, 2]' '["1"]'; do
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["run"]["missing"] = json.loads(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
        "$T/part.json" "$bad" "$T/bad.json"
    RC=0
    "$VOLLEY" report "$T/bad.json" > /dev/null 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 1 "run.missing $bad: exit status"
    check_grep "$T/bad.err" 'run\.missing' "run.missing $bad: named"
done
finish
