# Thresholds for CI (--threshold, options() thresholds): a run whose
# thresholds hold exits 0; one that breaks one exits 99 with the report's
# Thresholds block and one stderr line; a figure without data fails unless
# "or nodata"; bad expressions exit 2 before anything is sent; the JSON
# carries each outcome; 1 wins over 99.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"

# thresholds_json NAME N: the JSON's "thresholds" is a list of N outcomes,
# each with every documented field of its documented type.
thresholds_json() {
    python3 - "$T/$1.json" "$2" <<'PY' || fail "$1: JSON thresholds"
import json, sys
r = json.load(open(sys.argv[1]))
ths = r["thresholds"]
assert isinstance(ths, list) and len(ths) == int(sys.argv[2]), ths
for t in ths:
    assert set(t) == {"expr", "word", "figure", "op", "limit", "unit", "observed", "pass", "nodata", "or_nodata",
                      "abort", "aborted", "note"}, t
    assert t["word"] in ("threshold", "fail-if"), t
    assert isinstance(t["expr"], str) and isinstance(t["figure"], str) and t["op"] in ("<", "<=", ">", ">=", "==", "!=")
    assert isinstance(t["limit"], (int, float)) and (t["unit"] is None or isinstance(t["unit"], str)), t
    assert (t["observed"] is None) == t["nodata"] or t["note"] is not None, t
    for k in ("pass", "nodata", "or_nodata", "abort", "aborted"):
        assert isinstance(t[k], bool), (k, t)
PY
    ok
}

# jth NAME I KEY: one field of the I-th threshold outcome.
jth() {
    python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["thresholds"][int(sys.argv[2])][sys.argv[3]]; print("null" if v is None else json.dumps(v) if isinstance(v, bool) else v)' \
        "$T/$1.json" "$2" "$3"
}

# 1. Every threshold holds: exit 0, each line says pass, nothing on stderr.
run_volley pass -n 200 -c 4 -t 2 --threshold 'p99 < 10s' --threshold 'errors == 0' --threshold 'errors < 0.1%' \
    --threshold 'status.2xx == 100%' --threshold 'status.200 == 200' --threshold 'requests == 200' --threshold 'rps > 1' \
    --threshold 'latency.p(99.9) <= 1m' --threshold 'waiting.max < 10s' --threshold 'connect.p50 < 10s' "$url/"
check_eq "$RC" 0 "pass: exit status"
check_grep "$T/pass.out" '^Thresholds:$' "pass: the block"
check_eq "$(grep -cE '^  .* pass$' "$T/pass.out")" 10 "pass: ten lines that pass"
check_grep "$T/pass.out" '^  --threshold  status.200 == 200 +200  pass$' "pass: a count"
check_grep "$T/pass.out" '^  --threshold  status.2xx == 100% +100%  pass$' "pass: a share"
check_grep "$T/pass.out" '^  --threshold  rps > 1 +[0-9]+\.[0-9]{2}/s  pass$' "pass: a rate"
check_eq "$(tail -n 11 "$T/pass.out" | head -n 1)" "Thresholds:" "pass: the block ends the report"
check_eq "$(wc -c < "$T/pass.err")" 0 "pass: nothing on stderr"
thresholds_json pass 10
check_eq "$(jth pass 0 figure)/$(jth pass 0 unit)/$(jth pass 0 limit)" "latency.p99/s/10" "pass: JSON figure, unit, limit"
check_eq "$(jth pass 2 unit)/$(jth pass 2 observed)/$(jth pass 2 pass)" "%/0/true" "pass: JSON share"

# 2. A broken threshold: exit 99, FAIL in the block, one stderr line.
run_volley fail -n 50 -c 2 -t 1 --threshold 'status.5xx == 0' --threshold 'p99 < 10s' --threshold 'status.5xx <= 100%' \
    "$url/status/503"
check_eq "$RC" 99 "fail: exit status"
check_grep "$T/fail.out" '^  --threshold  status.5xx == 0 +50  FAIL$' "fail: the failed line"
check_grep "$T/fail.out" '^  --threshold  p99 < 10s +[0-9.]+(us|ms)  pass$' "fail: the line that passed"
check_eq "$(cat "$T/fail.err")" 'volley: 1 of 3 thresholds failed: --threshold "status.5xx == 0"' "fail: stderr"
check_eq "$(jth fail 0 observed)/$(jth fail 0 pass)/$(jth fail 1 pass)" "50/false/true" "fail: JSON"

# A time the server cannot beat (20 ms of delay) against a 1 ms limit.
run_volley slow -n 6 -c 2 -t 1 --threshold 'p50 < 1ms' --threshold 'min >= 20ms' "$url/delay/20"
check_eq "$RC" 99 "slow: exit status"
check_grep "$T/slow.out" '^  --threshold  p50 < 1ms +[0-9.]+ms  FAIL$' "slow: p50 fails"
check_grep "$T/slow.out" '^  --threshold  min >= 20ms +[0-9.]+ms  pass$' "slow: min passes"

# 3. No data: nothing completes (the server never answers), so a latency
#    threshold fails, and passes only with "or nodata". A run in which no
#    response completed exits 1, which wins over 99; the block is shown.
run_volley nodata -n 2 -c 2 -t 1 --timeout 300ms --threshold 'p99 < 10s' --threshold 'mean < 10s or nodata' \
    --threshold 'errors.timeout == 2' "$url/never"
check_eq "$RC" 1 "nodata: exit status (no response completed)"
check_grep "$T/nodata.err" '^volley: no response completed \(2 requests failed: timeout 2\)$' "nodata: the no-response line"
check_grep "$T/nodata.err" 'thresholds failed' "nodata: the thresholds line too"
check_grep "$T/nodata.out" '^  --threshold  p99 < 10s +no data  FAIL$' "nodata: fails"
check_grep "$T/nodata.out" '^  --threshold  mean < 10s or nodata +no data  pass$' "nodata: or nodata passes"
check_grep "$T/nodata.out" '^  --threshold  errors.timeout == 2 +2  pass$' "nodata: the errors are data"
check_eq "$(jth nodata 0 observed)/$(jth nodata 0 nodata)/$(jth nodata 1 pass)/$(jth nodata 1 or_nodata)" \
    "null/true/true/true" "nodata: JSON"
thresholds_json nodata 3

# 4. -q and --json -: no report, but the stderr line and the status.
RC=0
timeout 30 "$VOLLEY" -q -n 5 -c 1 --threshold 'requests > 5' "$url/" > "$T/quiet.out" 2> "$T/quiet.err" || RC=$?
check_eq "$RC" 99 "-q: exit status"
check_eq "$(wc -c < "$T/quiet.out")" 0 "-q: no report"
check_eq "$(cat "$T/quiet.err")" 'volley: 1 of 1 threshold failed: --threshold "requests > 5"' "-q: stderr"
RC=0
timeout 30 "$VOLLEY" --json - -n 5 -c 1 --threshold 'requests > 5' "$url/" > "$T/stdout.json" 2> /dev/null || RC=$?
check_eq "$RC" 99 "--json -: exit status"
check_eq "$(jth stdout 0 pass)" false "--json -: the outcome on stdout"
# Without thresholds: null, no block.
run_volley none -n 5 -c 1 "$url/"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["thresholds"])' "$T/none.json")" None \
    "no thresholds: JSON null"
if grep -q '^Thresholds:' "$T/none.out"; then fail "no thresholds: no block"; else ok; fi

# 5. Thresholds from options(), on top of the command line's; failures by
#    reason and a script's metrics.
cat > "$T/ci.lua" <<'LUA'
local s = {}
function s.options(args)
  return { requests = 40, connections = 1, threads = 1,
           thresholds = { "p99 < 10s", 'failures{reason="wrong id"} < 10%', "metric.size.max <= 11" } }
end
function s.response(conn, res)
  volley.record("size", #res.body)
  if conn.requests % 4 == 0 then return false, "wrong id" end
end
return s
LUA
run_volley opts -s "$T/ci.lua" --threshold 'errors.validation == 10' "$url/"
check_eq "$RC" 99 "options(): exit status"
check_grep "$T/opts.out" '^  --threshold  errors.validation == 10 +10  pass$' "options(): the command line's"
check_grep "$T/opts.out" '^  --threshold  p99 < 10s +[0-9.]+(us|ms)  pass$' "options(): a time"
check_grep "$T/opts.out" '^  --threshold  failures\{reason="wrong id"\} < 10% +25%  FAIL$' "options(): a reason"
check_grep "$T/opts.out" '^  --threshold  metric.size.max <= 11 +11  pass$' "options(): a metric"
check_eq "$(jth opts 0 expr)/$(jth opts 3 figure)" 'errors.validation == 10/metric.size.max' "options(): order"
thresholds_json opts 4
# A bad one from options() is a bad option: exit 2, nothing sent.
cat > "$T/badopt.lua" <<'LUA'
local s = {}
function s.options() return { thresholds = { "p99 < 5" } } end
return s
LUA
cat > "$T/badtype.lua" <<'LUA'
local s = {}
function s.options() return { thresholds = "p99 < 5ms" } end
return s
LUA

# 6. Bad expressions: one line naming the part, exit 2, nothing sent.
stop_target
start_target
url="http://127.0.0.1:$PORT"
bad() { # bad EXPECTED-LINE ARGS...
    local want=$1
    shift
    RC=0
    timeout 10 "$VOLLEY" "$@" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "volley $*: exit status"
    check_eq "$(cat "$T/bad.err")" "$want" "volley $*: message"
    check_eq "$(wc -c < "$T/bad.out")" 0 "volley $*: no report"
}
bad 'volley: --threshold "p99 < 50": 50 needs a time unit (ns, us, ms, s, m)' --threshold 'p99 < 50' "$url/"
bad 'volley: --threshold "p100x < 1s": unknown figure "p100x" (did you mean p99?)' --threshold 'p100x < 1s' "$url/"
bad 'volley: --threshold "errors >> 1": unknown operator ">>"' --threshold 'errors >> 1' "$url/"
bad 'volley: --threshold "errors < 5ms": 5ms: errors is a count (a plain number, or a percentage with %)' \
    --threshold 'p99 < 1s' --threshold 'errors < 5ms' "$url/"
bad 'volley: --threshold "service.p99 < 1s": service.p99: service times are kept only with -R (the open model)' \
    --threshold 'service.p99 < 1s' "$url/"
bad 'volley: --threshold "metric.a b < 1": expected an operator (<, <=, >, >=, ==, !=) after metric.a, found "b"' \
    --threshold 'metric.a b < 1' "$url/"
bad 'volley: --threshold "p99 < 1s or": expected nodata after "or"' -n 5 --threshold 'p99 < 1s or' "$url/"
bad "volley: $T/badopt.lua: options(): --threshold \"p99 < 5\": 5 needs a time unit (ns, us, ms, s, m)" \
    -s "$T/badopt.lua" "$url/"
check_eq "$(target_stat received)" 0 "bad expressions: nothing was sent"
# service.* is fine with -R, wherever -R stands.
run_volley open --threshold 'service.p99 < 10s' --threshold 'service.count == 20' -R 200 -n 20 -c 2 -t 1 "$url/"
check_rate_rc "service with -R: exit status"
check_grep "$T/open.out" '^  --threshold  service.count == 20 +20  pass$' "service with -R: counted"
# A wrong type in options() is a bad command line (exit 2), as for other keys.
RC=0
timeout 10 "$VOLLEY" -s "$T/badtype.lua" "$url/" > /dev/null 2> "$T/badtype.err" || RC=$?
check_eq "$RC" 2 "options() thresholds as a string: exit status"
check_eq "$(cat "$T/badtype.err")" "volley: $T/badtype.lua: options(): thresholds: a list of strings expected" \
    "options() thresholds as a string: message"

# 7. A more serious status wins: a script error (1) over a failed threshold.
cat > "$T/boom.lua" <<'LUA'
function response() error("boom") end
LUA
run_volley boom -n 20 -c 1 -t 1 -s "$T/boom.lua" --threshold 'requests == 20' "$url/"
check_eq "$RC" 1 "script error and a failed threshold: exit status"
check_grep "$T/boom.out" '^  --threshold  requests == 20 +[0-9]+  FAIL$' "script error: the block is still shown"
check_grep "$T/boom.err" 'threshold failed' "script error: the threshold line too"
check_grep "$T/boom.err" 'boom' "script error: its line"

# abort: a threshold broken for good during the run stops it (within about
# a second), is marked, and the run exits 99 with its report; one that
# holds does not stop a run.
stop_target
start_target --drop-every 3
url="http://127.0.0.1:$PORT"
SECONDS=0
run_volley ab1 -c 4 -d 20s --timeout 200ms --threshold 'errors < 1 abort after 1s' --threshold 'p99 < 10s' "$url/"
took=$SECONDS
check_eq "$RC" 99 "abort: exit status"
if [ "$took" -lt 10 ]; then ok; else fail "abort: the run was not stopped early (${took}s)"; fi
check_eq "$(jth ab1 0 aborted) $(jth ab1 0 pass) $(jth ab1 1 aborted)" "true false false" "abort: marked in the JSON"
check_grep "$T/ab1.out" '^  --threshold  errors < 1 abort after 1s +[0-9]+  FAIL \(stopped the run\)$' "abort: marked in the report"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["duration"] < 10)' "$T/ab1.json")" True \
    "abort: the duration is the run's own"
run_volley ab2 -c 4 -d 1.5s --timeout 200ms --threshold 'p99 < 10s abort' "$url/"
check_eq "$RC $(jth ab2 0 aborted)" "0 false" "abort: a threshold that holds does not stop the run"
# volley report RESULT.json --threshold: the thresholds judged again on a
# saved result, with no traffic: the same block as the run printed, the
# same exit statuses; a bad expression is 2, a bad file 1.
cat > "$T/rec.lua" <<'LUA'
response = function(status, headers, body)
  volley.record("items", 3)
  volley.counter("seen", 1)
end
LUA
stop_target
start_target
url="http://127.0.0.1:$PORT"
ths=(--threshold 'p99 < 10s' --threshold 'metric.items.p99 < 5' --threshold 'status.200 == 300' --threshold 'metric.seen == 300'
     --threshold 'errors > 0' --threshold 'rps > 1')
run_volley saved -n 300 -c 4 -s "$T/rec.lua" "${ths[@]}" "$url/"
check_eq "$RC" 99 "saved: the run exits 99 (errors > 0 fails)"
before=$(target_stat received)
RC=0
"$VOLLEY" report "$T/saved.json" "${ths[@]}" > "$T/rep.out" 2> "$T/rep.err" || RC=$?
check_eq "$RC" 99 "report --threshold: exit 99"
sed -n '/^Thresholds:$/,$p' "$T/saved.out" > "$T/run.block"
sed -n '/^Thresholds:$/,$p' "$T/rep.out" > "$T/rep.block"
if cmp -s "$T/run.block" "$T/rep.block"; then ok; else fail "report --threshold: not the run's block: $(diff "$T/run.block" "$T/rep.block" | head -5)"; fi
check_grep "$T/rep.err" '^volley: 1 of 6 thresholds failed: --threshold "errors > 0"$' "report --threshold: the stderr line"
check_eq "$(target_stat received)" "$before" "report --threshold: nothing sent"
RC=0
"$VOLLEY" report "$T/saved.json" --threshold 'p99 < 10s' --threshold 'metric.seen == 300' > /dev/null 2>&1 || RC=$?
check_eq "$RC" 0 "report --threshold: all hold, exit 0"
RC=0
"$VOLLEY" report "$T/saved.json" --threshold 'service.p99 < 1s' > /dev/null 2> "$T/rep2.err" || RC=$?
check_eq "$RC" 2 "report --threshold: service.* of a closed-loop result is refused"
check_grep "$T/rep2.err" '^volley report: --threshold "service.p99 < 1s": service.p99: service times are kept only with -R' \
    "report --threshold: the message"
head -c 300 "$T/saved.json" > "$T/cut.json"
RC=0
"$VOLLEY" report "$T/cut.json" --threshold 'p99 < 1s' > /dev/null 2> "$T/rep3.err" || RC=$?
check_eq "$RC" 1 "report --threshold: a truncated file"
check_grep "$T/rep3.err" "^volley report: $T/cut.json: " "report --threshold: names the file"
finish
