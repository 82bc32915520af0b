# The threshold figure `failed` (k6's http_req_failed): the share of the
# requests that ended that failed, every kind together (read, timeout,
# validation here), a 500 not among them. A flow with a known share of
# failures against volley-target: the verdicts and exit statuses on both
# sides of the boundary, per name, as a fraction and as a percentage;
# judged again by `volley report` on the saved result, and by `volley
# merge` on two shards with different shares (the merged counts' share,
# not the mean of the shards'); bad input is one line.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"

# Each iteration: 6 answered "ok", a 500 (a status, no failure), a drop
# (read), a check that fails (validation), a request never answered
# (timeout): 10 ended, 3 failed. Shard 1 adds 3 more drops: 13 ended,
# 6 failed.
cat > "$T/flow.lua" <<'LUA'
local s = {}
function s.user(u)
  for _ = 1, 6 do u:get("/", { name = "ok" }) end
  u:get("/status/500", { name = "s500" })
  u:get("/drop", { name = "drop" })
  u:get("/", { name = "bad", check = function(r) return false, "not wanted" end })
  u:get("/never", { name = "never", timeout = "30ms" })
  if volley.shard.index == 1 then
    for _ = 1, 3 do u:get("/drop", { name = "drop" }) end
  end
end
return s
LUA

# jth NAME I KEY: one field of the I-th threshold outcome.
jth() {
    python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["thresholds"][int(sys.argv[2])][sys.argv[3]]; print("null" if v is None else json.dumps(v) if isinstance(v, bool) else v)' \
        "$T/$1.json" "$2" "$3"
}

# 1. 30 of 100 ended requests failed: what holds passes, exit 0.
hold=(--threshold 'failed <= 30%' --threshold 'failed < 30.01%' --threshold 'failed == 0.3' --threshold 'failed > 29.9%'
      --threshold 'failed{name="drop"} == 100%' --threshold 'failed{name="ok"} == 0' --threshold 'failed{name="s500"} == 0'
      --threshold 'failed{name="bad"} == 1' --fail-if 'failed >= 31%')
run_volley hold -s "$T/flow.lua" --iterations 10 -c 1 "${hold[@]}" "$url/"
check_eq "$RC" 0 "hold: exit status"
check_eq "$(jget "$T/hold.json" requests.completed)/$(jget "$T/hold.json" requests.failed)" "70/30" "hold: the counts"
check_eq "$(jget "$T/hold.json" errors.read)/$(jget "$T/hold.json" errors.validation)/$(jget "$T/hold.json" errors.timeout)" \
    "10/10/10" "hold: three kinds of failure"
check_eq "$(jget "$T/hold.json" status.500)" 10 "hold: the 500s completed"
check_eq "$(grep -cE '^  --(threshold|fail-if) .* pass$' "$T/hold.out")" 9 "hold: nine lines pass"
check_grep "$T/hold.out" '^  --threshold  failed <= 30% +30%  pass$' "hold: a percentage"
check_grep "$T/hold.out" '^  --threshold  failed == 0.3 +0.3  pass$' "hold: a fraction"
check_grep "$T/hold.out" '^  --threshold  failed\{name="s500"\} == 0 +0  pass$' "hold: a 500 is no failure"
check_eq "$(jth hold 0 figure)/$(jth hold 0 unit)/$(jth hold 0 observed)/$(jth hold 0 pass)" "failed/%/30/true" \
    "hold: JSON, a percentage"
check_eq "$(jth hold 2 figure)/$(jth hold 2 unit)/$(jth hold 2 observed)" "failed/null/0.3" "hold: JSON, a fraction"
check_eq "$(jth hold 4 figure)" 'failed{name="drop"}' "hold: JSON, a name's figure"
check_eq "$(wc -c < "$T/hold.err")" 0 "hold: nothing on stderr"

# 2. Just past the boundary: each fails, exit 99, one stderr line.
broken=(--threshold 'failed < 30%' --threshold 'failed < 0.3' --threshold 'failed <= 29.99%' --threshold 'failed == 0'
        --threshold 'failed{name="ok"} > 0' --fail-if 'failed >= 30%' --threshold 'failed < 1% or nodata')
run_volley broken -s "$T/flow.lua" --iterations 10 -c 1 "${broken[@]}" "$url/"
check_eq "$RC" 99 "broken: exit status"
check_eq "$(grep -cE '^  --(threshold|fail-if) .* FAIL$' "$T/broken.out")" 7 "broken: seven lines fail"
check_grep "$T/broken.out" '^  --threshold  failed < 30% +30%  FAIL$' "broken: the report's line"
check_grep "$T/broken.out" '^  --fail-if    failed >= 30% +30%  FAIL$' "broken: --fail-if"
check_grep "$T/broken.err" '^volley: 7 of 7 thresholds failed: --threshold "failed < 30%", ' "broken: stderr"

# 3. volley report on the saved result: the same verdicts, nothing sent.
before=$(target_stat received)
RC=0
"$VOLLEY" report "$T/hold.json" --threshold 'failed < 30%' > "$T/rep1.out" 2> "$T/rep1.err" || RC=$?
check_eq "$RC" 99 "report: past the boundary, exit 99"
check_grep "$T/rep1.out" '^  --threshold  failed < 30% +30%  FAIL$' "report: its line"
RC=0
"$VOLLEY" report "$T/hold.json" --threshold 'failed <= 30%' --threshold 'failed{name="never"} == 100%' > "$T/rep2.out" 2>&1 || RC=$?
check_eq "$RC" 0 "report: at the boundary, exit 0"
RC=0
"$VOLLEY" report "$T/broken.json" > "$T/rep3.out" 2> "$T/rep3.err" || RC=$?
check_eq "$RC" 99 "report: the saved thresholds judged again"
sed -n '/^Thresholds:$/,$p' "$T/broken.out" > "$T/run.block"
sed -n '/^Thresholds:$/,$p' "$T/rep3.out" > "$T/rep.block"
if cmp -s "$T/run.block" "$T/rep.block"; then ok; else fail "report: not the run's block: $(diff "$T/run.block" "$T/rep.block" | head -5)"; fi
check_eq "$(target_stat received)" "$before" "report: nothing sent"

# 4. volley merge: shard 0 has 30 of 100 failed (30%), shard 1 60 of 130
# (46.2%); merged 90 of 230 = 39.13%, not the shards' mean (38.1%).
mth=(--threshold 'failed > 39.13%' --threshold 'failed < 39.14%' --threshold 'failed <= 0.3913')
pids=()
for i in 0 1; do
    run_volley "sh$i" -q -s "$T/flow.lua" --iterations 20 -c 2 --shard "$i/2" --run-id rfailed "${mth[@]}" "$url/" &
    pids+=($!)
done
for i in 0 1; do wait "${pids[$i]}" || true; done
check_eq "$(jget "$T/sh0.json" requests.failed)/$(jget "$T/sh1.json" requests.failed)" "30/60" "merge: the shards' failures"
check_eq "$(jth sh0 0 pass)/$(jth sh1 0 pass)" "false/true" "merge: shard 0 alone is under 39.13%, shard 1 above"
RC=0
timeout -s KILL 60 "$VOLLEY" merge "$T/sh0.json" "$T/sh1.json" --json "$T/merged.json" > "$T/merged.out" 2> "$T/merged.err" || RC=$?
check_eq "$RC" 99 "merge: exit status (failed <= 0.3913 fails on 0.391304...)"
check_eq "$(jth merged 0 pass)/$(jth merged 1 pass)/$(jth merged 2 pass)" "true/true/false" "merge: the verdicts"
check_eq "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["thresholds"][0]["observed"], 9))' "$T/merged.json")" \
    "$(python3 -c 'print(round(100 * 90 / 230, 9))')" "merge: the merged counts' share, exactly"
check_grep "$T/merged.out" '^  --threshold  failed > 39.13% +39.1%  pass$' "merge: the report's line"
check_eq "$(cat "$T/merged.err")" 'volley: 1 of 3 thresholds failed: --threshold "failed <= 0.3913"' "merge: stderr"

# 5. Bad input: one line naming the figure, exit 2, nothing sent.
before=$(target_stat received)
bad() { # bad EXPECTED-LINE ARGS...
    local want=$1
    shift
    RC=0
    timeout 10 "$VOLLEY" "$@" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "volley $*: exit status"
    check_eq "$(cat "$T/bad.err")" "$want" "volley $*: message"
}
bad 'volley: --threshold "failed < 1ms": 1ms: failed is a share (0..1, or a percentage with %: 0.99 or 99%)' \
    --threshold 'failed < 1ms' "$url/"
bad 'volley: --threshold "failed < 5": 5: failed is a share (0..1, or a percentage with %: 0.99 or 99%)' \
    --threshold 'failed < 5' "$url/"
bad 'volley: --fail-if "failed.read > 1%": unknown figure "failed.read" (failed is the share of ended requests that failed, every kind together; one kind'"'"'s is errors.KIND with %)' \
    --fail-if 'failed.read > 1%' "$url/"
check_eq "$(target_stat received)" "$before" "bad: nothing sent"
RC=0
"$VOLLEY" report "$T/hold.json" --threshold 'failed < 1s' > /dev/null 2> "$T/rep4.err" || RC=$?
check_eq "$RC" 2 "report: a bad one, exit 2"
check_eq "$(cat "$T/rep4.err")" 'volley report: --threshold "failed < 1s": 1s: failed is a share (0..1, or a percentage with %: 0.99 or 99%)' \
    "report: a bad one, its line"

stop_target
finish
