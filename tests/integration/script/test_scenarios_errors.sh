# Several scenarios: each bad input is one line naming the scenario and
# the field (or the option), exit status 2, and nothing is sent.
source "$TESTLIB"
start_target

# bad NAME 'LINE' SCRIPT [volley args]: the script as NAME.lua, run; its
# last stderr line must be "volley: LINE" exactly.
bad() {
    local name=$1 line=$2 script=$3
    shift 3
    printf '%s\n' "$script" > "$T/$name.lua"
    run_volley "$name" -s "$T/$name.lua" -d 1s "$@" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 2 "$name: exit status"
    check_eq "$(cat "$T/$name.err")" "volley: $line" "$name: the line"
}

F='user = function(u) u:get("/") end'
bad twice "$T/twice.lua: scenario \"a\": the name is used twice (scenarios[1] and scenarios[3])" \
    "return { scenarios = { { name = \"a\", users = 1, $F }, { name = \"b\", users = 1, $F }, { name = \"a\", users = 1, $F } } }"
bad field "$T/field.lua: scenario \"a\": unknown field \"usres\" (did you mean \"users\"?)" \
    "return { scenarios = { { name = \"a\", usres = 1, $F } } }"
bad noflow "$T/noflow.lua: scenario \"a\": no flow: give it user(u), the journey each of its users runs (or tasks, or a sequence)" \
    'return { scenarios = { { name = "a", users = 1 } } }'
bad both "$T/both.lua: scenario \"a\": users and weight both: give its own users, or its share of -c (weight)" \
    "return { scenarios = { { name = \"a\", users = 1, weight = 2, $F } } }"
bad start "$T/start.lua: scenario \"a\": start \"soon\" is not a duration (e.g. \"30s\", \"1m\", or seconds)" \
    "return { scenarios = { { name = \"a\", users = 1, start = \"soon\", $F } } }"
bad late "$T/late.lua: scenario \"a\": start 5s is not before the run's end (-d 1s)" \
    "return { scenarios = { { name = \"a\", users = 1, start = \"5s\", $F } } }"
bad map "$T/map.lua: scenarios: a list { { name = \"browse\", ... }, ... }, not a map: key \"a\" (the name goes inside the entry, so that a name given twice is seen)" \
    "return { scenarios = { a = { users = 1, $F } } }"
bad noname "$T/noname.lua: scenarios[1]: no name (each scenario has one: name = \"browse\")" \
    "return { scenarios = { { users = 1, $F } } }"
bad rate_users "$T/rate_users.lua: scenario \"a\": rate with users: an open scenario's users are max_users (the pool its arrivals run on)" \
    "return { scenarios = { { name = \"a\", rate = 5, users = 2, $F } } }"
bad toplevel "$T/toplevel.lua: the script returns both scenarios and user: a flow and its data belong to a scenario of the list (per-request hooks are not flows)" \
    "return { $F, scenarios = { { name = \"a\", users = 1, $F } } }"
OK="return { scenarios = { { name = \"a\", users = 1, $F }, { name = \"b\", weight = 1, $F } } }"
bad unknown_scenario '--threshold "latency{scenario="c"}.p99 < 1s": no scenario "c" (the script'"'"'s are a, b)' \
    "$OK" --threshold 'latency{scenario="c"}.p99 < 1s'
bad with_rate "$T/with_rate.lua: -R: the script's scenarios give their own load (an open scenario's rate = N)" "$OK" -R 5
bad with_iterations "$T/with_iterations.lua: --iterations: the script's scenarios give their own bounds (a scenario's iterations)" \
    "$OK" --iterations 5
bad with_setup "$T/with_setup.lua: the script returns scenarios and setup: not with several scenarios yet; run setup once from a one-scenario script (--setup-only FILE) and give this run --setup-data FILE" \
    "return { setup = function(u) return 1 end, scenarios = { { name = \"a\", users = 1, $F } } }"
bad with_max_rps "$T/with_max_rps.lua: --max-rps: not with several scenarios yet (the cap is one scenario's); give an open scenario a rate = N instead" \
    "$OK" --max-rps 10
bad few_users "$T/few_users.lua: scenario \"a\": -c 1 split by weight (1 of 2) gives it no user (a larger -c)" \
    "return { scenarios = { { name = \"a\", weight = 1, $F }, { name = \"b\", weight = 1, $F } } }" -c 1
bad one_scenario '--threshold "rps{scenario="a"} > 1": {scenario="a"}: the script has no scenarios list (a scenario'"'"'s figures are a run of several'"'"'s)' \
    "return { $F }" --threshold 'rps{scenario="a"} > 1'
bad abort '--threshold "latency{scenario="a"}.p99 < 1s abort": abort: a scenario'"'"'s figures are judged at the run'"'"'s end (the live totals are the whole run'"'"'s)' \
    "$OK" --threshold 'latency{scenario="a"}.p99 < 1s abort'
check_eq "$(target_stat received)" 0 "nothing was sent"
finish
