# Tags on a flow's requests (docs/scripting.md, Tags): per-tag figures
# exact against volley-target's log, through u:get's opts, batch items and
# u:request; thresholds on a tag pass and fail as they should (a tag never
# used has no data); two shards merge exactly; the bounds (100 values a
# key, 20 keys) count the rest under one overflow value and say so once;
# bad tags end the iteration with one reason that names them.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"

# path_count LOG PREFIX: requests in the server's log whose target starts with PREFIX.
path_count() { awk -v p="$2" 'index($3, p) == 1 { n++ } END { print n + 0 }' "$1"; }

cat > "$S/tagged.lua" <<'EOF'
local s = {}
local kinds = { a = "api", b = "api", c = "static", d = "page" }
local paths = { "a", "b", "c", "d" }
function s.user(u)
  local p = paths[math.random(4)]
  u:get("/" .. p .. "?x=" .. math.random(100), { tags = { kind = kinds[p], path = p } })
  u:batch({ { path = "/e", tags = { kind = "batch" } }, "/f" })
  u:request({ path = "/g", method = "POST", body = "x", name = "post g", tags = { kind = "api", verb = "post" } })
end
return s
EOF

# tags_match NAME LOG: the JSON's tags against the server's log.
tags_match() {
    local j=$T/$1.json log=$2
    local a b c d e g
    a=$(path_count "$log" /a); b=$(path_count "$log" /b); c=$(path_count "$log" /c)
    d=$(path_count "$log" /d); e=$(path_count "$log" /e); g=$(path_count "$log" /g)
    check_eq "$(jget "$j" tags.kind.api.requests.completed)" $((a + b + g)) "$1: kind=api (/a, /b, /g)"
    check_eq "$(jget "$j" tags.kind.static.requests.completed)" "$c" "$1: kind=static (/c)"
    check_eq "$(jget "$j" tags.kind.page.requests.completed)" "$d" "$1: kind=page (/d)"
    check_eq "$(jget "$j" tags.kind.batch.requests.completed)" "$e" "$1: kind=batch (/e, a batch item)"
    check_eq "$(jget "$j" tags.verb.post.requests.completed)" "$g" "$1: verb=post (u:request)"
    check_eq "$(jget "$j" tags.path.a.requests.completed)" "$a" "$1: path=a"
    check_eq "$(jget "$j" tags.kind.api.status.200)" $((a + b + g)) "$1: kind=api's 200s"
    check_eq "$(jget "$j" tags.kind.api.latency.count)" $((a + b + g)) "$1: kind=api's latencies"
    check_eq "$(jget "$j" names.post\ g.requests.completed)" "$g" "$1: the name beside the tags"
    python3 - "$j" <<'PY' || fail "$1: a tag's figures do not add up"
import json, sys
r = json.load(open(sys.argv[1]))
for k, vals in r["tags"].items():
    for v, f in vals.items():
        q = f["requests"]
        assert q["started"] == q["completed"] + q["failed"] + q["cut_off"], (k, v, q)
        assert q["failed"] == sum(f["errors"].values()), (k, v, f)
PY
    ok
}

# 1. Counts against the server, and thresholds.
start_target --log "$T/one.log"
run_volley one -s "$S/tagged.lua" -c 6 -t 2 --iterations 300 \
    --threshold 'requests{kind="batch"} == 300' --threshold 'latency{verb="post"}.p99 < 10s' \
    "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "one: exit status ($(head -c 300 "$T/one.err"))"
tags_match one "$T/one.log"
check_eq "$(jget "$T/one.json" tags.kind.batch.requests.completed)" 300 "one: one /e an iteration"
check_grep "$T/one.out" 'requests\{kind="batch"\} == 300 +300 +pass' "one: a tag's threshold passes"

start_target
run_volley thr -s "$S/tagged.lua" -c 2 --iterations 50 --threshold 'requests{kind="batch"} < 50' \
    --threshold 'requests{kind="none"} > 0' "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 99 "thr: failed thresholds' exit status"
check_grep "$T/thr.out" 'requests\{kind="batch"\} < 50 +50 +FAIL' "thr: a tag's threshold fails"
check_grep "$T/thr.out" 'requests\{kind="none"\} > 0 +no data +FAIL' "thr: a tag never used has no data"
run_volley thr2 -s "$S/tagged.lua" --iterations 1 --threshold 'latency{name="post g",kind="api"}.p95 < 1s' \
    "http://127.0.0.1:1/"
check_eq "$RC" 2 "thr2: two labels: exit status"
check_grep "$T/thr2.err" "one label at a time" "thr2: two labels: the line"

# 2. Two shards merge exactly.
start_target --log "$T/shards.log"
pids=()
for i in 0 1; do
    timeout -s KILL 60 "$VOLLEY" -s "$S/tagged.lua" -c 4 -t 2 --iterations 200 --shard "$i/2" --run-id tags31 \
        --json "$T/shard$i.json" "http://127.0.0.1:$PORT/" > "$T/shard$i.out" 2> "$T/shard$i.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "shards: a shard failed: $(cat "$T"/shard*.err)"; done
stop_target
RC=0
timeout -s KILL 60 "$VOLLEY" merge "$T/shard0.json" "$T/shard1.json" --json "$T/merged.json" > "$T/merged.out" \
    2> "$T/merged.err" || RC=$?
check_eq "$RC" 0 "merge: exit status ($(head -c 300 "$T/merged.err"))"
tags_match merged "$T/shards.log"
check_eq "$(jget "$T/merged.json" tags.kind.batch.requests.completed)" 200 "merged: one /e an iteration"

# 3. The bounds: 110 values of one key, 22 keys.
cat > "$S/many.lua" <<'EOF'
local s = {}
function s.user(u)
  for i = 1, 110 do u:get("/h", { tags = { id = "v" .. i } }) end
  for i = 1, 22 do u:get("/k", { tags = { ["k" .. i] = "x" } }) end
end
return s
EOF
start_target
run_volley many -s "$S/many.lua" -c 1 --iterations 2 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "many: exit status ($(head -c 300 "$T/many.err"))"
check_eq "$(jget "$T/many.json" 'tags.id.(other values).requests.completed')" 20 "many: values past 100"
check_eq "$(jget "$T/many.json" tags.id.v100.requests.completed)" 2 "many: the 100th value"
check_eq "$(jget "$T/many.json" 'tags.(other keys).(other values).requests.completed')" 6 "many: keys past 20 (k20..k22)"
check_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tags"]["id"]))' "$T/many.json")" 101 \
    "many: 100 values and the overflow"
check_grep "$T/many.out" '^Note: 20 requests carried values of the tag "id" past the 100 a key keeps' "many: the note"
check_grep "$T/many.out" '^Note: 6 requests carried tag keys past the 20 a run keeps' "many: the keys' note"

# 4. Bad tags: the iteration fails with one reason naming them.
bad() { # NAME TAGS REASON
    printf 'local s = {}\nfunction s.user(u) u:get("/x", { tags = %s }) end\nreturn s\n' "$2" > "$S/$1.lua"
    run_volley "$1" -s "$S/$1.lua" -c 1 --iterations 1 "http://127.0.0.1:$PORT/"
    check_eq "$(jget "$T/$1.json" iterations.failed)" 1 "$1: the iteration failed"
    python3 - "$T/$1.json" "$3" <<'PY' || fail "$1: no reason /$3/ in $(grep -o '"reason": "[^"]*"' "$T/$1.json" | head -3)"
import json, re, sys
r = json.load(open(sys.argv[1]))
assert any(re.search(sys.argv[2], x["reason"]) for x in r["iterations"]["failures"]["reasons"])
PY
    ok
}
start_target
bad bad_key '{ [1] = "x" }' 'u:get: opts.tags: a tag.s key is a string, not a number'
bad bad_value '{ kind = 1 }' 'u:get: opts.tags: the tag "kind".s value is a string, not a number'
bad reserved '{ name = "x" }' 'u:get: opts.tags: "name": name, reason and scenario are thresholds. own labels'
bad bad_label '{ ["a-b"] = "x" }' 'u:get: opts.tags: "a-b": a tag.s key is a label name'
bad not_table '"api"' 'u:get: opts.tags is a string \(a table expected\)'
bad too_many '{ a="1", b="1", c="1", d="1", e="1", f="1", g="1", h="1", i="1" }' 'u:get: opts.tags: 9 tags, more than the 8'
stop_target
finish
