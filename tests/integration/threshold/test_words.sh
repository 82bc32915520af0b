# The two words of a threshold (issue 29), each with the meaning its
# English says, in every command: --threshold EXPR must hold (exit 99 when
# it does not), --fail-if EXPR fails when it holds (exit 99 when it does).
# A run, a script's options() (thresholds = must hold, fail_if = fail if),
# `volley report` (the saved words judged again, or its own), `volley
# merge` (the shards' words judged on the sum), each with both words and
# both outcomes; the reports show each threshold's word; a --fail-if
# written as a must-hold limit is ("p99 < 50ms") gets one note on stderr;
# "or nodata" goes with --threshold only; a result saved before the words
# (no "word") is judged as must-hold. (`volley compare`'s are in
# results/test_compare.sh.)
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT/"

# 1. A run, 20 requests: each word, holding and not.
run_volley thr_ok -n 20 -c 2 -t 1 --threshold 'requests == 20' "$url"
check_eq "$RC" 0 "run --threshold that holds: exit 0"
check_grep "$T/thr_ok.out" '^  --threshold  requests == 20  20  pass$' "run --threshold that holds: its line"
check_eq "$(wc -c < "$T/thr_ok.err")" 0 "run --threshold that holds: stderr empty"
run_volley thr_no -n 20 -c 2 -t 1 --threshold 'requests == 21' "$url"
check_eq "$RC" 99 "run --threshold that does not hold: exit 99"
check_eq "$(cat "$T/thr_no.err")" 'volley: 1 of 1 threshold failed: --threshold "requests == 21"' \
    "run --threshold that does not hold: stderr"
run_volley if_holds -n 20 -c 2 -t 1 --fail-if 'requests == 20' "$url"
check_eq "$RC" 99 "run --fail-if that holds: exit 99"
check_grep "$T/if_holds.out" '^  --fail-if    requests == 20  20  FAIL$' "run --fail-if that holds: its line"
check_eq "$(cat "$T/if_holds.err")" 'volley: 1 of 1 threshold failed: --fail-if "requests == 20"' \
    "run --fail-if that holds: stderr"
run_volley if_not -n 20 -c 2 -t 1 --fail-if='requests != 20' --fail-if 'p99 > 1m' "$url"
check_eq "$RC" 0 "run --fail-if that does not hold: exit 0"
check_eq "$(wc -c < "$T/if_not.err")" 0 "run --fail-if that does not hold: stderr empty (no note for >)"
python3 - "$T/if_not.json" "$T/if_holds.json" "$T/thr_ok.json" <<'PY' || fail "run: the JSON's words and outcomes"
import json, sys
a, b, c = (json.load(open(f))["thresholds"] for f in sys.argv[1:])
assert [(t["word"], t["expr"], t["pass"]) for t in a] == [("fail-if", "requests != 20", True), ("fail-if", "p99 > 1m", True)], a
assert [(t["word"], t["pass"]) for t in b] == [("fail-if", False)], b
assert [(t["word"], t["pass"]) for t in c] == [("threshold", True)], c
PY
ok

# 2. The old form: --fail-if 'p99 < 1m' now fails when p99 is under a
# minute (it is: every request has a --timeout of 2s), and says so in one
# note. (The issue's 'p99 < 50ms' is the same form: unit.test_threshold.)
run_volley old -n 20 -c 2 -t 1 --fail-if 'p99 < 1m' --threshold 'p99 < 50s' --timeout 2s "$url"
check_eq "$RC" 99 "run --fail-if 'p99 < 1m': exit 99"
check_eq "$(head -n 1 "$T/old.err")" \
    "volley: --fail-if 'p99 < 1m' fails the run when p99 is under 1m; a limit that must hold is --threshold" \
    "run --fail-if 'p99 < 1m': the note, first"
check_eq "$(grep -c 'a limit that must hold' "$T/old.err")" 1 "run --fail-if 'p99 < 1m': one note"
check_eq "$(tail -n 1 "$T/old.err")" 'volley: 1 of 2 thresholds failed: --fail-if "p99 < 1m"' \
    "run --fail-if 'p99 < 1m': the failed line"
run_volley oldshare -n 10 -c 1 -t 1 --fail-if 'errors <= 1%' "$url"
check_eq "$RC" 99 "run --fail-if 'errors <= 1%' without errors: exit 99"
check_grep "$T/oldshare.err" "^volley: --fail-if 'errors <= 1%' fails the run when errors is at or under 1%; a limit that must hold is --threshold$" \
    "run --fail-if 'errors <= 1%': the note"

# 3. "or nodata" lets a figure without data pass: --threshold's alone.
RC=0
timeout 30 "$VOLLEY" -n 5 --fail-if 'p99 > 1s or nodata' "$url" > "$T/nod.out" 2> "$T/nod.err" || RC=$?
check_eq "$RC" 2 "--fail-if ... or nodata: exit 2"
check_eq "$(cat "$T/nod.err")" 'volley: --fail-if "p99 > 1s or nodata": "or nodata" lets a figure without data pass, and goes with --threshold (a figure without data fails the run under either word)' \
    "--fail-if ... or nodata: the message"

# 4. A script's own: thresholds = must hold, fail_if = fail if.
cat > "$T/own.lua" <<'EOF'
local s = {}
function s.options(args)
  local o = { requests = 20, connections = 2, threads = 1, thresholds = { "requests == 20" } }
  o.fail_if = { args[1] == "hold" and "requests == 20" or "requests != 20" }
  return o
end
return s
EOF
run_volley own_ok -s "$T/own.lua" "$url" -- nothold
check_eq "$RC" 0 "options() thresholds and fail_if that pass: exit 0"
check_grep "$T/own_ok.out" '^  --threshold  requests == 20  20  pass$' "options() thresholds: must hold"
check_grep "$T/own_ok.out" '^  --fail-if    requests != 20  20  pass$' "options() fail_if: fails if"
run_volley own_no -s "$T/own.lua" "$url" -- hold
check_eq "$RC" 99 "options() fail_if that holds: exit 99"
check_eq "$(cat "$T/own_no.err")" 'volley: 1 of 2 thresholds failed: --fail-if "requests == 20"' \
    "options() fail_if that holds: stderr"

# 5. volley report: the saved words judged again, and its own of each word.
report() {
    local n=$1
    shift
    RC=0
    timeout 30 "$VOLLEY" report "$@" > "$T/$n.rep.out" 2> "$T/$n.rep.err" || RC=$?
}
run_volley saved -n 20 -c 2 -t 1 --threshold 'requests == 20' --fail-if 'requests > 20' "$url"
check_eq "$RC" 0 "saved: exit 0"
report r_saved "$T/saved.json"
check_eq "$RC" 0 "report, the saved words: exit 0"
check_grep "$T/r_saved.rep.out" '^  --fail-if    requests > 20   20  pass$' "report, the saved words: --fail-if's line"
report r_holds "$T/if_holds.json"
check_eq "$RC" 99 "report of a run whose --fail-if held: exit 99"
check_eq "$(cat "$T/r_holds.rep.err")" 'volley: 1 of 1 threshold failed: --fail-if "requests == 20"' \
    "report of a run whose --fail-if held: stderr"
report r_thr_ok "$T/saved.json" --threshold 'requests == 20'
check_eq "$RC" 0 "report --threshold that holds: exit 0"
report r_thr_no "$T/saved.json" --threshold 'requests != 20'
check_eq "$RC" 99 "report --threshold that does not hold: exit 99"
report r_if_holds "$T/saved.json" --fail-if 'requests == 20'
check_eq "$RC" 99 "report --fail-if that holds: exit 99"
check_eq "$(cat "$T/r_if_holds.rep.err")" 'volley: 1 of 1 threshold failed: --fail-if "requests == 20"' \
    "report --fail-if that holds: stderr"
report r_if_not "$T/saved.json" --fail-if 'requests < 20' --threshold='requests >= 20' --json "$T/r_if_not.json"
check_eq "$RC" 0 "report --fail-if that does not hold, with a --threshold: exit 0"
check_eq "$(python3 -c 'import json, sys; print([(t["word"], t["pass"]) for t in json.load(open(sys.argv[1]))["thresholds"]])' "$T/r_if_not.json")" \
    "[('fail-if', True), ('threshold', True)]" "report --fail-if, --threshold: the JSON written again keeps their words"
report r_note "$T/saved.json" --fail-if 'p99 < 10s'
check_eq "$RC" 99 "report --fail-if 'p99 < 10s': exit 99"
check_eq "$(head -n 1 "$T/r_note.rep.err")" \
    "volley: --fail-if 'p99 < 10s' fails the run when p99 is under 10s; a limit that must hold is --threshold" \
    "report --fail-if 'p99 < 10s': the note"
# A result saved before the words: each threshold must hold, as it meant then.
python3 - "$T/if_holds.json" "$T/old.json" "$T/badword.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["thresholds"][0]["word"]
json.dump(r, open(sys.argv[2], "w"))
r["thresholds"][0]["word"] = "unless"
json.dump(r, open(sys.argv[3], "w"))
PY
report r_old "$T/old.json"
check_eq "$RC" 0 "report of a result without words: 'requests == 20' must hold, and does: exit 0"
check_grep "$T/r_old.rep.out" '^  --threshold  requests == 20  20  pass$' "report of a result without words: --threshold's line"
report r_bad "$T/badword.json"
check_eq "$RC" 1 "report of a result with an unknown word: exit 1"
check_grep "$T/r_bad.rep.err" "^volley report: $T/badword.json: thresholds\\[0\\]\\.word: expected \"threshold\" or \"fail-if\"" \
    "report of a result with an unknown word: names the field"
report r_html "$T/saved.json" --html "$T/saved.html"
check_eq "$RC" 0 "report --html: exit 0"
check_grep "$T/saved.html" '<tr><td>--fail-if</td><td><code>requests &gt; 20</code></td><td class="n">20</td><td class="n">20</td><td><span class="pass">pass</span></td></tr>' \
    "report --html: the word's column"

# 6. volley merge: two shards of 10 requests each, judged on the sum (20).
# Each shard alone: 'requests == 20' does not hold; merged it does.
shards() {
    local name=$1 i
    shift
    local pids=()
    for i in 0 1; do
        run_volley "$name$i" -q -n 20 -c 2 -t 1 --shard "$i/2" --run-id "r$name" "$@" "$url" & pids+=($!)
    done
    for i in 0 1; do wait "${pids[$i]}" || true; done
}
merge() {
    local n=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" merge "$@" > "$T/$n.out" 2> "$T/$n.err" || RC=$?
}
shards mt --threshold 'requests == 20'
check_eq "$(jget "$T/mt0.json" requests.completed)" 10 "merge: a shard made half"
merge m_thr_ok "$T/mt0.json" "$T/mt1.json"
check_eq "$RC" 0 "merge, --threshold that holds on the sum: exit 0"
check_grep "$T/m_thr_ok.out" '^  --threshold  requests == 20  20  pass$' "merge, --threshold: its line"
shards mf --fail-if 'requests == 20'
merge m_if_holds "$T/mf0.json" "$T/mf1.json"
check_eq "$RC" 99 "merge, --fail-if that holds on the sum: exit 99"
check_eq "$(cat "$T/m_if_holds.err")" 'volley: 1 of 1 threshold failed: --fail-if "requests == 20"' \
    "merge, --fail-if that holds: stderr"
shards mn --threshold 'requests == 10' --fail-if 'requests > 20'
merge m_mixed "$T/mn0.json" "$T/mn1.json" --json "$T/m_mixed.json"
check_eq "$RC" 99 "merge, --threshold that no longer holds on the sum: exit 99"
check_eq "$(cat "$T/m_mixed.err")" 'volley: 1 of 2 thresholds failed: --threshold "requests == 10"' \
    "merge, mixed words: only the --threshold failed"
check_eq "$(python3 -c 'import json, sys; print([(t["word"], t["pass"]) for t in json.load(open(sys.argv[1]))["thresholds"]])' "$T/m_mixed.json")" \
    "[('threshold', False), ('fail-if', True)]" "merge: the merged JSON keeps the words"

stop_target
finish
