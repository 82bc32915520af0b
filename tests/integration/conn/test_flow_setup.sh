# A flow's setup data (issue 31, item 4) against py/login_server.py, which
# hands out a new token at each /login and answers /api only for the
# first: setup(u) logs in once for the whole run (-t 2, several users),
# every user's request carries that token as u.setup.token, and the
# login and teardown's logout are counted apart from the run's figures;
# two shards with the once-only setup (--setup-only, then --setup-data in
# each, then --teardown-only) log in once over both, and merge adds them
# up exactly; u.setup is read-only (a write fails the iteration naming the
# field) while pairs, ipairs and # work; and bad input gets one line each:
# setup returning a function (the path named), setup failing (the run
# does not start), teardown failing (reported after the kept results).
source "$TESTLIB"

S="$T/s"
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py

# start_server NAME: py/login_server.py logging to $T/NAME.log; sets LPORT.
start_server() {
    python3 "$PY/login_server.py" "$T/$1.port" "$T/$1.log" 60 &
    LPID=$!
    TARGET_PIDS+=("$LPID")
    wait_port_file "$T/$1.port" "$LPID" || { echo "login_server.py did not start" >&2; exit 1; }
    LPORT=$(cat "$T/$1.port")
}
stop_server() { kill "$LPID" 2>/dev/null || true; wait "$LPID" 2>/dev/null || true; }
# count LOG PATTERN: lines of LOG matching the ERE.
count() { grep -cE -- "$2" "$1" || true; }

cat > "$S/login.lua" <<'EOF2'
local s = {}
function s.setup(u)
  local r = u:get("/login", { name = "login" })
  return { token = r:json().token, who = { "a", "b" } }
end
function s.user(u)
  local r = u:get("/api", { headers = { Authorization = "Bearer " .. u.setup.token } })
  u:check(r.status == 200, "authorized")
end
function s.teardown(data, u)
  u:get("/logout", { headers = { Authorization = "Bearer " .. data.token } })
end
return s
EOF2

# 1. One run, -t 2, 6 users, 60 iterations: one login, 60 /api with tok-1.
start_server one
run_volley one -s "$S/login.lua" -c 6 -t 2 --iterations 60 "http://127.0.0.1:$LPORT/"
stop_server
check_eq "$RC" 0 "one run: exit 0"
check_eq "$(count "$T/one.log" '^/login ')" 1 "one run: one login in the server's log"
check_eq "$(count "$T/one.log" '^/api Bearer_tok-1$')" 60 "one run: every /api with the login's token"
check_eq "$(count "$T/one.log" '^/api ')" 60 "one run: no other /api"
check_eq "$(count "$T/one.log" '^/logout Bearer_tok-1$')" 1 "one run: teardown's logout once, with the token"
check_eq "$(jget "$T/one.json" requests.completed)" 60 "one run: the run's requests exclude setup's and teardown's"
check_eq "$(jget "$T/one.json" status.200)" 60 "one run: the run's statuses exclude them"
check_eq "$(jget "$T/one.json" setup.requests)" 1 "one run: setup's block counts the login"
check_eq "$(jget "$T/one.json" setup.status.200)" 1 "one run: setup's block by status"
check_eq "$(jget "$T/one.json" teardown.requests)" 1 "one run: teardown's block counts the logout"
check_eq "$(python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["names"]; print("login" in n, "GET /api" in n)' "$T/one.json")" \
    "False True" "one run: setup's named request is not in the per-name table"
check_grep "$T/one.out" '^    setup\(\): +1 request, 0 failed; status 200: 1$' "one run: the text report's setup line"

# 2. Two shards, the once-only setup: one login over both.
start_server shards
url="http://127.0.0.1:$LPORT/"
run_volley sonly -s "$S/login.lua" --setup-only "$T/setup.json" "$url"
check_eq "$RC" 0 "--setup-only: exit 0"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$T/setup.json")" tok-1 \
    "--setup-only: the data written as JSON"
for i in 0 1; do
    run_volley shard$i -s "$S/login.lua" -c 4 -t 2 --iterations 40 --shard $i/2 --run-id setup31 \
        --setup-data "$T/setup.json" "$url"
    check_eq "$RC" 0 "shard $i: exit 0"
    check_eq "$(jget "$T/shard$i.json" setup)" null "shard $i: no setup block (the data came from a file)"
    check_eq "$(cat "$T/shard$i.err")" "" "shard $i: nothing on stderr"
done
run_volley tonly -s "$S/login.lua" --setup-data "$T/setup.json" --teardown-only "$url"
check_eq "$RC" 0 "--teardown-only: exit 0"
stop_server
check_eq "$(count "$T/shards.log" '^/login ')" 1 "shards: one login in the server's log over both"
check_eq "$(count "$T/shards.log" '^/api Bearer_tok-1$')" 40 "shards: every user of both used the token"
check_eq "$(count "$T/shards.log" '^/api ')" 40 "shards: no other /api"
check_eq "$(count "$T/shards.log" '^/logout Bearer_tok-1$')" 1 "shards: one logout"
RC=0
"$VOLLEY" merge "$T/shard0.json" "$T/shard1.json" --json "$T/merged.json" > "$T/merged.out" 2> "$T/merged.err" || RC=$?
[ "$RC" = 0 ] || cat "$T/merged.err" >&2
check_eq "$RC" 0 "merge: exit 0"
check_eq "$(jget "$T/merged.json" requests.completed)" 40 "merge: the requests exact"
check_eq "$(jget "$T/merged.json" iterations.completed)" 40 "merge: the iterations exact"
check_eq "$(jget "$T/merged.json" setup)" null "merge: no setup block (none ran in a shard)"

# 3. A shard without --setup-data runs its own setup and says so; merge
# adds the shards' setups up (each sent its login).
start_server own
for i in 0 1; do
    run_volley own$i -s "$S/login.lua" -c 2 --iterations 4 --shard $i/2 --run-id own31 "http://127.0.0.1:$LPORT/"
done
stop_server
check_grep "$T/own1.err" '^volley: --shard 1/2: setup\(\) runs in this shard, once per shard; for one setup over all shards run --setup-only FILE once and give each shard --setup-data FILE' \
    "own setup: the one line"
check_eq "$(jget "$T/own1.json" setup.requests)" 1 "own setup: its block"
check_eq "$(count "$T/own.log" '^/login ')" 2 "own setup: a login per shard"
RC=0
"$VOLLEY" merge "$T/own0.json" "$T/own1.json" --json "$T/ownm.json" > "$T/ownm.out" 2> "$T/ownm.err" || RC=$?
check_eq "$RC" 0 "own setup, merge: exit 0"
check_eq "$(jget "$T/ownm.json" setup.runs) $(jget "$T/ownm.json" setup.requests) $(jget "$T/ownm.json" setup.status.200)" \
    "2 2 2" "own setup, merge: the shards' setups added up"
check_eq "$(jget "$T/ownm.json" teardown.requests)" 2 "own setup, merge: and their teardowns"
check_grep "$T/ownm.out" '^    setup\(\): +2 requests, 0 failed; status 200: 2 \(2 runs, one per shard\)$' \
    "own setup, merge: the text report"

start_server rest
url="http://127.0.0.1:$LPORT/"

# 4. Read-only: a write fails the iteration naming the field; reads work.
cat > "$S/ro.lua" <<'EOF2'
local s = {}
function s.setup(u) return { token = "t", list = { "x", "y", "z" }, n = { a = 1 } } end
function s.user(u)
  local keys = 0
  for _ in pairs(u.setup) do keys = keys + 1 end
  local vals = {}
  for i, v in ipairs(u.setup.list) do vals[i] = v end
  u:check(keys == 3 and #u.setup.list == 3 and table.concat(vals) == "xyz" and u.setup.n.a == 1, "reads")
  if u.iteration == 2 then u.setup.n.a = 2 end
  u:get("/x")
end
return s
EOF2
run_volley ro -s "$S/ro.lua" -c 1 --iterations 3 "$url"
check_eq "$(jget "$T/ro.json" iterations.failed)" 1 "read-only: the write failed its iteration"
check_grep "$T/ro.out" 'ro\.lua:9: u\.setup\.n\.a is read-only' "read-only: the reason names the field"
check_grep "$T/ro.out" '^    reads +3 +0 ' "read-only: pairs, ipairs and # work"

# 5. setup returning a function: one line naming where; nothing sent.
cat > "$S/fn.lua" <<'EOF2'
local s = {}
function s.setup(u) return { auth = { refresh = function() end } } end
function s.user(u) u:get("/api") end
return s
EOF2
run_volley fn -s "$S/fn.lua" -c 2 --iterations 4 "$url"
check_eq "$RC" 1 "setup returning a function: exit 1"
check_eq "$(cat "$T/fn.err")" "volley: $S/fn.lua: setup() failed, the run did not start: setup() returned a function at .auth.refresh (setup data is plain data: strings, numbers, booleans and tables of them)" \
    "setup returning a function: the one line"

# 6. setup failing: the run does not start; one line with the reason.
cat > "$S/err.lua" <<'EOF2'
local s = {}
function s.setup(u)
  local r = u:get("/fail-login")
  if r.status ~= 200 then error("login failed: " .. r.status) end
end
function s.user(u) u:get("/api") end
return s
EOF2
before=$(count "$T/rest.log" '^/api ')
run_volley err -s "$S/err.lua" -c 2 --iterations 4 "$url"
check_eq "$RC" 1 "setup failing: exit 1"
check_eq "$(cat "$T/err.err")" "volley: $S/err.lua: setup() failed, the run did not start: $S/err.lua:4: login failed: 500" \
    "setup failing: the one line"
check_eq "$(count "$T/rest.log" '^/api ')" "$before" "setup failing: the load did not start"

# 7. teardown failing: reported after the results, which are kept.
cat > "$S/td.lua" <<'EOF2'
local s = {}
function s.user(u) u:get("/x") end
function s.teardown(data, u) error("logout went wrong") end
return s
EOF2
run_volley td -s "$S/td.lua" -c 2 --iterations 4 "$url"
check_eq "$RC" 1 "teardown failing: exit 1"
check_eq "$(jget "$T/td.json" requests.completed)" 4 "teardown failing: the results kept"
check_eq "$(jget "$T/td.json" teardown.failed)" True "teardown failing: its block says so"
check_eq "$(cat "$T/td.err")" "volley: $S/td.lua: teardown() failed: $S/td.lua:3: logout went wrong" \
    "teardown failing: the one line"

# 8. The options' mistakes, and --setup-only - (the data alone on stdout).
RC=0
"$VOLLEY" -s "$S/login.lua" --setup-only - "$url" > "$T/sdash.out" 2> "$T/sdash.err" || RC=$?
check_grep "$T/sdash.out" '^\{"token":"tok-[0-9]+","who":\["a","b"\]\}$' "--setup-only -: the data on stdout"
check_eq "$RC:$(wc -l < "$T/sdash.out")" "0:1" "--setup-only -: exit 0, the data alone"
check_grep "$T/sdash.err" '^    setup\(\): +1 request' "--setup-only -: its block on stderr"
run_volley noflow -s "$S/td.lua" --teardown-only "$url"
check_eq "$(cat "$T/noflow.err")" "volley: --teardown-only: needs --setup-data FILE (the data teardown(data, u) is given)" \
    "--teardown-only without --setup-data"
printf 'local s = {}\nfunction s.request() return nil end\nfunction s.teardown() end\nreturn s\n' > "$S/noflow.lua"
run_volley tdnoflow -s "$S/noflow.lua" -n 2 "$url"
check_eq "$RC:$(cat "$T/tdnoflow.err")" "2:volley: $S/noflow.lua: teardown(data, u) belongs to flows (a scenario with user(u)); a per-connection script ends with done()" \
    "teardown in a per-connection script"
echo '{"a": ' > "$T/broken.json"
run_volley broken -s "$S/login.lua" -c 1 --iterations 1 --setup-data "$T/broken.json" "$url"
check_eq "$RC" 1 "--setup-data not JSON: exit 1"
check_grep "$T/broken.err" "^volley: .*--setup-data $T/broken.json: invalid JSON" "--setup-data not JSON: named"
stop_server
finish
