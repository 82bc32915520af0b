# Requests sent without a name count under "METHOD path" (the path without
# its query and fragment), docs/scripting.md#default-names. The proof: a
# flow (single requests and a batch) and a per-connection script (request
# tables, strings, wrk.format) send unnamed requests to several paths with
# query strings and fragments, and each default name's count is exactly
# the server's count of that method and path (its request log); the names
# add up to the run's; a threshold judges a default name; two shards merge
# into the sums; past 100 distinct paths the rest count under "(other
# paths)", listed, with a note at the report's end; a plain run and a
# script without request() keep no names.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"

# by_path LOG: the server's requests ("SEQ METHOD TARGET ...") counted by
# "METHOD path", the target cut at ? and #, as JSON.
by_path() {
    python3 - "$1" <<'PY'
import json, re, sys
n = {}
for line in open(sys.argv[1]):
    f = line.split()
    k = f[1] + " " + re.split(r"[?#]", f[2])[0]
    n[k] = n.get(k, 0) + 1
print(json.dumps(n, sort_keys=True))
PY
}

# names_of NAME: the run's names with their started counts, as JSON.
names_of() {
    python3 - "$T/$1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = r["names"] or {}
for v in names.values():
    q = v["requests"]
    assert q["started"] == q["completed"] + q["failed"] + q["cut_off"], q
print(json.dumps({k: v["requests"]["started"] for k, v in names.items()}, sort_keys=True))
PY
}

# sum_names NAME: the sum of the names' started counts = the run's started.
sum_names() {
    python3 - "$T/$1.json" <<'PY' && ok || fail "$1: the names do not add up to the run"
import json, sys
r = json.load(open(sys.argv[1]))
assert sum(v["requests"]["started"] for v in r["names"].values()) == r["requests"]["started"]
assert sum(v["requests"]["completed"] for v in r["names"].values()) == r["requests"]["completed"]
PY
}

cat > "$S/flow.lua" <<'LUA'
-- Unnamed requests, with query strings and a fragment, one named.
local s = {}
function s.user(u)
  u:get("/a?x=" .. math.random(1000))
  u:post("/b?y=1", { body = "x" })
  u:get("/c/d#top")
  u:batch{ "/a?z=1", "/e" }
  u:get("/a", { name = "named" })
end
return s
LUA

# 1. A flow.
start_target --log "$T/flow.log"
url="http://127.0.0.1:$PORT"
run_volley flow --iterations 200 -c 3 -t 2 -s "$S/flow.lua" --threshold 'latency{name="GET /a"}.p95 < 10s' "$url/"
check_eq "$RC" 0 "flow: exit status ($(head -c 300 "$T/flow.err"))"
stop_target
check_eq "$(names_of flow)" \
    '{"GET /a": 400, "GET /c/d": 200, "GET /e": 200, "POST /b": 200, "named": 200}' "flow: the names' counts"
# The server saw the named request as GET /a too: its count is the sum.
check_eq "$(by_path "$T/flow.log")" '{"GET /a": 600, "GET /c/d": 200, "GET /e": 200, "POST /b": 200}' \
    "flow: the server's counts"
sum_names flow
check_adds_up flow
check_grep "$T/flow.out" '^    GET /a +400 +0 .*  200: 400$' "flow: GET /a's row"
check_grep "$T/flow.out" '^    POST /b +200 +0 .*  200: 200$' "flow: POST /b's row"
check_grep "$T/flow.out" '^  --threshold  latency\{name="GET /a"\}\.p95 < 10s +[0-9.]+[mu]?s +pass$' \
    "flow: a threshold on a default name"
if grep -q '^Note: ' "$T/flow.out"; then fail "flow: a note without the bound hit"; else ok; fi

# 2. A per-connection script: tables, strings and wrk.format, unnamed
# (a pipelined string is named by its first request), one named.
cat > "$S/conn.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  local k = conn.n % 5
  if k == 0 then return { path = "/t?i=" .. conn.n } end
  if k == 1 then return { method = "DELETE", path = "/t#x" } end
  if k == 2 then return "GET /raw?q=1 HTTP/1.1\r\nHost: x\r\n\r\n" end
  if k == 3 then return wrk.format("PUT", "/w?v=" .. conn.n, nil, "b") end
  return { path = "/t", name = "named" }
end
return s
LUA
start_target --log "$T/conn.log"
url="http://127.0.0.1:$PORT"
run_volley conn -n 1000 -c 2 -t 2 -s "$S/conn.lua" "$url/"
check_eq "$RC" 0 "conn: exit status ($(head -c 300 "$T/conn.err"))"
stop_target
check_eq "$(names_of conn)" '{"DELETE /t": 200, "GET /raw": 200, "GET /t": 200, "PUT /w": 200, "named": 200}' \
    "conn: the names' counts"
check_eq "$(by_path "$T/conn.log")" '{"DELETE /t": 200, "GET /raw": 200, "GET /t": 400, "PUT /w": 200}' \
    "conn: the server's counts"
sum_names conn
check_adds_up conn

# 3. Two shards merged: each default name's count is the shards' sum, and
# the server's.
start_target --log "$T/shards.log"
url="http://127.0.0.1:$PORT"
for i in 0 1; do
    run_volley "s$i" --iterations 100 -c 2 -t 1 --shard "$i/2" --run-id names31 -s "$S/flow.lua" "$url/"
    check_eq "$RC" 0 "shard $i: exit status ($(head -c 300 "$T/s$i.err"))"
done
stop_target
RC=0
"$VOLLEY" merge "$T/s0.json" "$T/s1.json" --json "$T/m.json" > "$T/m.out" 2> "$T/m.err" || RC=$?
check_eq "$RC" 0 "merge: exit status ($(head -c 300 "$T/m.err"))"
check_eq "$(names_of m)" '{"GET /a": 200, "GET /c/d": 100, "GET /e": 100, "POST /b": 100, "named": 100}' \
    "merge: the names' counts"
check_eq "$(by_path "$T/shards.log")" '{"GET /a": 300, "GET /c/d": 100, "GET /e": 100, "POST /b": 100}' \
    "merge: the server's counts"
sum_names m
check_grep "$T/m.out" '^    GET /a +200 +0 ' "merge: GET /a's row"

# 4. The bound: 300 distinct paths (a counter per thread), beside two that
# repeat. The first 100 paths met get their names; the rest count under
# "(other paths)", which the text lists, and a note ends the report.
cat > "$S/many.lua" <<'LUA'
local s = {}
local n = 0
function s.user(u)
  n = n + 1
  u:get("/items/" .. volley.thread .. "-" .. n .. "?q=1")
  u:get("/home")
  u:get("/home?again=1", { name = "home again" })
end
return s
LUA
start_target --log "$T/many.log"
url="http://127.0.0.1:$PORT"
run_volley many --iterations 300 -c 4 -t 2 -s "$S/many.lua" "$url/"
check_eq "$RC" 0 "many: exit status ($(head -c 300 "$T/many.err"))"
stop_target
python3 - "$T/many.json" <<'PY' && ok || fail "many: the bound"
import json, sys
n = json.load(open(sys.argv[1]))["names"]
items = [k for k in n if k.startswith("GET /items/")]
assert n["GET /home"]["requests"]["started"] == 300, n["GET /home"]
assert n["home again"]["requests"]["started"] == 300, n["home again"]
# GET /home is a default name too: 99 paths of /items/ get theirs.
assert len(items) == 99, len(items)
assert all(n[k]["requests"]["started"] == 1 for k in items)
assert all("?" not in k for k in n)
assert n["(other paths)"]["requests"]["started"] == 201, n["(other paths)"]
assert len(n) == 102, len(n)
PY
sum_names many
check_eq "$(grep -c ' GET /items/' "$T/many.log")" 300 "many: the server's /items/ requests"
check_grep "$T/many.out" '^    \(other paths\) +201 +0 ' "many: the overflow's row"
check_grep "$T/many.out" '^    \(1 more names: the JSON has every name\)$' "many: the text lists 100 names and the overflow"
check_eq "$(tail -n 1 "$T/many.out")" \
    'Note: 201 requests sent without a name went past the 100 distinct "METHOD path" names a run makes and are counted as "(other paths)"; name them (name = "GET /items/:id") to see them apart' \
    "many: the note ends the report"
"$VOLLEY" report "$T/many.json" > "$T/many.r.out" 2> /dev/null || true
check_eq "$(tail -n 1 "$T/many.r.out")" "$(tail -n 1 "$T/many.out")" "many: volley report's note"

# 5. What keeps no names: a plain run, and a script without request()
# (its one request per thread is the command line's: the totals are its row).
start_target
url="http://127.0.0.1:$PORT"
run_volley plain -n 100 -c 2 "$url/a?x=1"
check_eq "$(jget "$T/plain.json" names)" null "plain: no names"
printf 'function response(status) end\n' > "$S/noreq.lua"
run_volley noreq -n 100 -c 2 -s "$S/noreq.lua" "$url/a?x=1"
check_eq "$(jget "$T/noreq.json" names)" null "noreq: no names"
if grep -q 'Names' "$T/noreq.out"; then fail "noreq: a names table"; else ok; fi
stop_target
finish
