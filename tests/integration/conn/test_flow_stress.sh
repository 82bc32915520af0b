# Flows with the JIT on, under stress (issue 29, item 1): users that build
# tables, send requests with options tables, batch eight at a time, sleep,
# raise and u:fail, and check after every yield that every table they built
# still holds what they put in it (tests/integration/lua/flow_stress.lua).
# Debian's LuaJIT miscompiles pairs() loops (lua/volley/traverse.lua): the
# script's init() runs the smallest known case first, and the flows' options
# tables got keys like 477 or a table. Here: the run ends with exit 0, no
# iteration failed for any reason but the script's own two, and their counts
# are exact (each thread's users number their iterations 1..N/threads, every
# 9th raises, every 13th that is not a 9th calls u:fail); every request the
# flow made reached the server's log. Runs under ASan in the sanitizer suite.
# tests/long/long_flow_stress.sh runs it with 10^5 iterations and 200 users.
source "$TESTLIB"

ITERATIONS=${FLOW_STRESS_ITERATIONS:-4000}
USERS=${FLOW_STRESS_USERS:-50}
THREADS=2
SCRIPT=$(dirname "$0")/../lua/flow_stress.lua

start_target --log "$T/stress.log"
RC=0
timeout -s KILL 280 "$VOLLEY" --json "$T/stress.json" -s "$SCRIPT" -t "$THREADS" -c "$USERS" \
    --iterations "$ITERATIONS" "http://127.0.0.1:$PORT/" > "$T/stress.out" 2> "$T/stress.err" || RC=$?
stop_target
check_eq "$RC" 0 "stress: exit status ($(tail -n 2 "$T/stress.err"))"

python3 - "$T/stress.json" "$ITERATIONS" "$THREADS" <<'PY' || fail "stress: the iterations' figures"
import json, sys
r = json.load(open(sys.argv[1]))
n, threads = int(sys.argv[2]), int(sys.argv[3])
per = n // threads
booms = per // 9
thirteens = per // 13 - per // (9 * 13)
i = r["iterations"]
reasons = {x["reason"]: x["count"] for x in i["failures"]["reasons"]}
assert i["started"] == n and i["cut_off"] == 0, i
assert i["started"] == i["completed"] + i["failed"], i
assert i["failures"]["other"] == 0, i["failures"]
assert reasons == {"boom": booms * threads, "thirteen": thirteens * threads}, reasons
q = r["requests"]
assert q["completed"] == 10 * n and q["failed"] == 0 and q["cut_off"] == 0, q
PY
ok
check_eq "$(wc -l < "$T/stress.log")" "$((10 * ITERATIONS))" "stress: the server's log holds every request"
finish
