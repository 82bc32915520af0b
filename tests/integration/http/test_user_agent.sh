#!/usr/bin/env bash
# The User-Agent volley sends, as the server receives it, over HTTP/1.1 and
# cleartext HTTP/2: volley/VERSION (what --version prints) on every request
# it builds (the plain run, --targets, a script's default request and
# request tables, a flow's requests), replaced by -H's (any case of the
# name), a request table's or a flow's own, and exactly one in each; a
# request string a script made is sent as made (none added); volley ab
# sends ab's head byte for byte, User-Agent: ApacheBench/2.3 included
# (checked against Debian's ab itself when it is installed). The server
# (py/head_log.py) writes every request's head down.
source "$TESTLIB"

PY=/usr/bin/python3
"$PY" -c 'import h2.connection' 2> /dev/null || { echo "SKIP: $PY cannot import h2 (python3-h2)"; exit 77; }
PYDIR="$(dirname "$TESTLIB")/py"
VERSION=$("$VOLLEY" --version | awk 'NR == 1 { print $2 }')
check_eq "$("$VOLLEY" --version | awk 'NR == 1 { print $1 }')" volley "--version's first word"
UA="volley/$VERSION"

LOG="$T/heads.jsonl"
timeout -k 5 120 "$PY" -B "$PYDIR/head_log.py" "$T/port" "$LOG" 110 > "$T/server.log" 2>&1 &
TARGET_PIDS+=($!)
wait_port_file "$T/port" "$!" || { echo "head_log.py did not start: $(cat "$T/server.log")" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$T/port")"

# agents PROTO PATH: for every request PATH got over PROTO (h1 or h2), its
# number of User-Agent headers (any case) and their values, one distinct
# "N value" line each (so "1 volley/X" when every request had exactly that
# one); "none" when PATH got no request.
agents() {
    "$PY" - "$LOG" "$1" "$2" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["proto"] != sys.argv[2] or r["path"] != sys.argv[3]:
        continue
    v = [v for n, v in r["headers"] if n.lower() == "user-agent"]
    seen.add(f"{len(v)} {'|'.join(v)}".rstrip())
print("\n".join(sorted(seen)) or "none")
PY
}

# run NAME [volley args]: run_volley, checked to have completed every
# request it started without a failure.
run() {
    run_volley "$@"
    check_eq "$RC" 0 "$1: exit status ($(tail -n 2 "$T/$1.err"))"
    check_eq "$(jget "$T/$1.json" requests.failed)" 0 "$1: failed requests"
}

cat > "$T/table.lua" <<'LUA'
-- Request tables: one with its own User-Agent (a name in another case),
-- one without (the default, or -H's).
local s = {}
function s.request(conn)
  conn.k = (conn.k or 0) + 1
  if conn.k % 2 == 1 then return { path = volley.target.path .. "-own", headers = { ["USER-agent"] = "table/1" } } end
  return { path = volley.target.path .. "-default" }
end
return s
LUA
cat > "$T/raw.lua" <<'LUA'
-- A request string the script made: sent as made, with no User-Agent.
function request() return "GET " .. wrk.path .. " HTTP/1.1\r\nHost: raw.test\r\nX-Raw: 1\r\n\r\n" end
LUA
cat > "$T/format.lua" <<'LUA'
-- wrk.format with its own headers table: those headers and Host only, as
-- wrk builds it; with none, wrk.headers (and so the default User-Agent).
local n = 0
function request()
  n = n + 1
  if n % 2 == 1 then return wrk.format("GET", wrk.path .. "-own", { ["X-F"] = "1" }) end
  return wrk.format(nil, wrk.path .. "-default")
end
LUA
cat > "$T/flow.lua" <<'LUA'
local s = {}
function s.user(u)
  u:get(volley.target.path .. "-own", { headers = { ["user-Agent"] = "flow/1" } })
  u:post(volley.target.path .. "-default", { json = { a = 1 } })
end
return s
LUA
cat > "$T/chunk.lua" <<'LUA'
-- The chunk sets a User-Agent of its own in wrk.headers (lower case).
wrk.headers["user-agent"] = "chunk/1"
LUA

for proto in h1 h2; do
    h2=()
    [ "$proto" = h2 ] && h2=(--h2c)
    p=$proto
    run "default_$p" "${h2[@]}" -n 3 -c 1 -t 1 "$url/default_$p"
    check_eq "$(agents "$p" "/default_$p")" "1 $UA" "$p: the default User-Agent"

    run "header_$p" "${h2[@]}" -n 3 -c 1 -t 1 -H 'uSeR-aGeNt: mine/2.0 (x)' "$url/header_$p"
    check_eq "$(agents "$p" "/header_$p")" "1 mine/2.0 (x)" "$p: -H replaces it, a name in any case"

    run "empty_$p" "${h2[@]}" -n 2 -c 1 -t 1 -H 'User-Agent:' "$url/empty_$p"
    check_eq "$(agents "$p" "/empty_$p")" "1" "$p: -H 'User-Agent:' sends it empty"

    run "table_$p" "${h2[@]}" -n 4 -c 1 -t 1 -s "$T/table.lua" "$url/table_$p"
    check_eq "$(agents "$p" "/table_$p-own")" "1 table/1" "$p: a request table's own User-Agent"
    check_eq "$(agents "$p" "/table_$p-default")" "1 $UA" "$p: a request table without one"

    run "tablecli_$p" "${h2[@]}" -n 4 -c 1 -t 1 -H 'User-Agent: cli/1' -s "$T/table.lua" "$url/tablecli_$p"
    check_eq "$(agents "$p" "/tablecli_$p-own")" "1 table/1" "$p: a request table's User-Agent over -H's"
    check_eq "$(agents "$p" "/tablecli_$p-default")" "1 cli/1" "$p: -H's User-Agent in a script's requests"

    run "chunk_$p" "${h2[@]}" -n 2 -c 1 -t 1 -s "$T/chunk.lua" "$url/chunk_$p"
    check_eq "$(agents "$p" "/chunk_$p")" "1 chunk/1" "$p: the chunk's own wrk.headers User-Agent (lower case)"

    run "raw_$p" "${h2[@]}" -n 2 -c 1 -t 1 -s "$T/raw.lua" "$url/raw_$p"
    check_eq "$(agents "$p" "/raw_$p")" "0" "$p: a script's request string is sent as made"

    run "format_$p" "${h2[@]}" -n 4 -c 1 -t 1 -s "$T/format.lua" "$url/format_$p"
    check_eq "$(agents "$p" "/format_$p-own")" "0" "$p: wrk.format given its own headers adds none"
    check_eq "$(agents "$p" "/format_$p-default")" "1 $UA" "$p: wrk.format of wrk.headers"

    run "flow_$p" "${h2[@]}" --iterations 2 -c 1 -t 1 -s "$T/flow.lua" "$url/flow_$p"
    check_eq "$(agents "$p" "/flow_$p-own")" "1 flow/1" "$p: a flow request's own User-Agent"
    check_eq "$(agents "$p" "/flow_$p-default")" "1 $UA" "$p: a flow request without one"
done

# --targets: each target's own User-Agent replaces the default.
printf 'GET %s/targets-own\nUser-Agent: target/1\n\nGET %s/targets-default\n' "$url" "$url" > "$T/targets.txt"
run targets -n 4 -c 1 -t 1 --targets "$T/targets.txt"
check_eq "$(agents h1 /targets-own)" "1 target/1" "--targets: a target's own User-Agent"
check_eq "$(agents h1 /targets-default)" "1 $UA" "--targets: a target without one"

# ab_head PATH: the head of the last HTTP/1 request PATH got, escaped (\r\n as
# written in C) on one line.
ab_head() {
    "$PY" - "$LOG" "$1" <<'PY'
import json, sys
heads = [r["head"] for r in map(json.loads, open(sys.argv[1])) if r["proto"] == "h1" and r["path"] == sys.argv[2]]
print(heads[-1].replace("\r", "\\r").replace("\n", "\\n") if heads else "none")
PY
}

# volley ab: ab's head exactly (ab-2.3.md: Host, User-Agent, Accept after
# the -H lines; ab's own User-Agent unless -H gives one).
hostport="127.0.0.1:$(cat "$T/port")"
# ab_run NAME [ab args]: volley ab, its output in $T/NAME.out; sets RC.
ab_run() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" ab "$@" > "$T/$name.out" 2>&1 || RC=$?
}
ab_run ab_default -n 2 -c 1 "$url/ab"
check_eq "$RC" 0 "volley ab: exit status ($(tail -n 2 "$T/ab_default.out"))"
check_eq "$(ab_head /ab)" "GET /ab HTTP/1.0\\r\\nHost: $hostport\\r\\nUser-Agent: ApacheBench/2.3\\r\\nAccept: */*\\r\\n\\r\\n" \
    "volley ab: ab's head"
check_eq "$(agents h1 /ab)" "1 ApacheBench/2.3" "volley ab: only ab's User-Agent"
ab_run ab_header -n 2 -c 1 -k -H 'user-agent: abmine/1' "$url/ab-header"
check_eq "$RC" 0 "volley ab -H: exit status ($(tail -n 2 "$T/ab_header.out"))"
check_eq "$(ab_head /ab-header)" \
    "GET /ab-header HTTP/1.0\\r\\nConnection: Keep-Alive\\r\\nuser-agent: abmine/1\\r\\nHost: $hostport\\r\\nAccept: */*\\r\\n\\r\\n" \
    "volley ab -H user-agent: ab's head"
check_eq "$(agents h1 /ab-header)" "1 abmine/1" "volley ab -H: only the given User-Agent"
# Debian's ab itself, when installed: the same heads.
if command -v ab > /dev/null; then
    timeout -k 5 30 ab -n 1 -c 1 "$url/ab-real" > "$T/ab.out" 2>&1 || true
    timeout -k 5 30 ab -n 1 -c 1 -k -H 'user-agent: abmine/1' "$url/ab-real-header" > "$T/ab2.out" 2>&1 || true
    check_eq "$(ab_head /ab-real | sed 's|/ab-real|/ab|')" "$(ab_head /ab)" "volley ab's head is ab's"
    check_eq "$(ab_head /ab-real-header | sed 's|/ab-real-header|/ab-header|')" "$(ab_head /ab-header)" \
        "volley ab -k -H user-agent: its head is ab's"
fi
finish
