# Several scenarios with what a single flow has (issue 31): a scenario of
# weighted tasks with a wait rule and on_start, tags on its requests, and
# an open scenario whose users read --setup-data's u.setup; each counted
# exactly against the server's log, per scenario in the JSON.
source "$TESTLIB"

path_count() { awk -v p="$2" 'index($3, p) == 1 { n++ } END { print n + 0 }' "$1"; }

cat > "$T/mix.lua" <<'EOF2'
local function browse(u) u:get("/browse", { tags = { kind = "page" } }) end
local function buy(u) u:post("/buy", { body = "x", tags = { kind = "order" } }) end
return {
  scenarios = {
    { name = "shop", users = 3, iterations = 200,
      tasks = { { weight = 3, fn = browse }, { weight = 1, fn = buy } },
      wait = volley.between(0, 0.002), on_start = function(u) u:get("/start") end },
    { name = "api", rate = 20, max_users = 4, start = "0.5s", duration = "1s",
      user = function(u) u:get("/api?tok=" .. u.setup.token) end },
  },
}
EOF2
printf '{"token": "abc"}\n' > "$T/setup.json"

start_target --log "$T/mix.log"
run_volley mix -s "$T/mix.lua" -d 5s --setup-data "$T/setup.json" "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "mix: exit status ($(head -c 300 "$T/mix.err"))"
start=$(path_count "$T/mix.log" /start) browse=$(path_count "$T/mix.log" /browse)
buy=$(path_count "$T/mix.log" /buy) api=$(path_count "$T/mix.log" /api)
check_eq "$start" 3 "mix: on_start once per user of shop"
check_eq $((browse + buy)) 200 "mix: shop's 200 iterations, one task each"
check_eq "$(grep -c ' /api?tok=abc$' "$T/mix.log")" "$api" "mix: every api request carries --setup-data's token"
check_ge "$api" 1 "mix: api sent"
python3 - "$T/mix.json" "$browse" "$buy" "$api" <<'PY' || fail "mix: the JSON's scenarios and tags against the log"
import json, sys
r = json.load(open(sys.argv[1]))
browse, buy, api = (int(x) for x in sys.argv[2:5])
sc = {s["name"]: s for s in r["scenarios"]}
assert sc["shop"]["iterations"]["completed"] == 200, sc["shop"]["iterations"]
assert sc["shop"]["requests"]["completed"] == browse + buy + 3, sc["shop"]["requests"]
assert sc["api"]["requests"]["completed"] == api, sc["api"]["requests"]
assert sc["shop"]["groups"]["browse"]["count"] == browse and sc["shop"]["groups"]["buy"]["count"] == buy
assert r["tags"]["kind"]["page"]["requests"]["completed"] == browse, r["tags"]["kind"]
assert r["tags"]["kind"]["order"]["requests"]["completed"] == buy, r["tags"]["kind"]
PY
ok
finish
