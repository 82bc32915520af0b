# Flows' tasks, sequences and wait rules end to end against volley-target
# (issue 31, items 1 and 2): weighted tasks' shares over 10,000 iterations
# within 4 sigma of their weights, each task's count (the groups table)
# exact against the server's log, and the same per-task counts for the same
# --seed; an erring task ends itself only, counted by reason; a sequence's
# steps in order in the log, an erring step ending only itself; on_start
# once per user and on_stop once per user (--iterations spent, and users
# leaving on a --stages ramp-down), on_start's failure failing its
# iteration and tried again; pacing's starts never before their period;
# between's waits and u:sleep_between's within [a, b] (lower bound exact,
# upper loose); then each bad input: one line, and the status of its kind.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"

# path_count LOG PATH: requests in the server's log for exactly PATH.
path_count() { awk -v p="$2" '$3 == p { n++ } END { print n + 0 }' "$1"; }

# 1. Weighted tasks, one user a thread (4 x 2500 iterations, exactly: the
# same draws for the same seed whatever the scheduling), on_start and
# on_stop once per user.
cat > "$S/weighted.lua" <<'EOF'
local s = {}
local function browse(u) u:get("/browse", { headers = { ["X-U"] = u.id } }) end
local function buy(u) u:get("/buy", { headers = { ["X-U"] = u.id } }) end
s.tasks = { { weight = 4, fn = browse }, { weight = 1, fn = buy } }
function s.on_start(u) u:get("/login") end
function s.on_stop(u) u:get("/logout") end
return s
EOF
for run in w1 w2 w3; do
    seed=11
    [ "$run" = w3 ] && seed=12
    start_target --log "$T/$run.log"
    run_volley "$run" -s "$S/weighted.lua" -t 4 -c 4 --iterations 10000 --seed "$seed" "http://127.0.0.1:$PORT/"
    stop_target
    check_eq "$RC" 0 "$run: exit status"
    check_eq "$(jget "$T/$run.json" iterations.completed)" 10000 "$run: 10000 iterations"
    check_eq "$(jget "$T/$run.json" groups.browse.count)" "$(path_count "$T/$run.log" /browse)" \
        "$run: browse's count is the server's"
    check_eq "$(jget "$T/$run.json" groups.buy.count)" "$(path_count "$T/$run.log" /buy)" "$run: buy's count is the server's"
    check_eq "$(path_count "$T/$run.log" /login)" 4 "$run: on_start once per user"
    check_eq "$(path_count "$T/$run.log" /logout)" 4 "$run: on_stop once per user"
    check_eq "$(jget "$T/$run.json" groups.on_stop.count)" 4 "$run: on_stop's group"
    /usr/bin/python3 - "$T/$run.json" <<'PY' || fail "$run: browse's share is not within 4 sigma of 4/5"
import json, math, sys
g = json.load(open(sys.argv[1]))["groups"]
n = g["browse"]["count"] + g["buy"]["count"]
assert n == 10000, n
sigma = math.sqrt(n * 0.8 * 0.2)
assert abs(g["browse"]["count"] - 0.8 * n) < 4 * sigma, g["browse"]["count"]
PY
    ok
done
check_eq "$(jget "$T/w2.json" groups.browse.count)" "$(jget "$T/w1.json" groups.browse.count)" \
    "the same --seed: the same count per task"
# each user's own order of tasks is the seed's: the logs match line for line
# per user (X-U: u.id; the server numbers connections as they come)
per_user() { awk '$4 ~ /^X-U=/ { print $4, $3 }' "$1" | sort -s -k1,1 | md5sum; }
check_eq "$(per_user "$T/w2.log")" "$(per_user "$T/w1.log")" "the same --seed: the same tasks in the same order per user"
if [ "$(per_user "$T/w3.log")" != "$(per_user "$T/w1.log")" ]; then ok; else fail "another --seed: the same choices"; fi

# 2. An erring task ends itself only; the user goes on with its next task,
# and the failure is counted by reason with its file:line.
cat > "$S/erring.lua" <<'EOF'
local s = {}
local function a(u) u:get("/a") end
local function bad(u) u:get("/bad") error("boom") end
local function c(u) u:get("/c") end
s.tasks = { a, bad, c }
return s
EOF
start_target --log "$T/erring.log"
run_volley erring -s "$S/erring.lua" -c 2 --iterations 300 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "erring: exit status (not every iteration failed)"
bad=$(path_count "$T/erring.log" /bad)
check_eq "$(jget "$T/erring.json" iterations.failed)" "$bad" "erring: each run of the bad task is a failed iteration"
check_eq "$(jget "$T/erring.json" groups.bad.failed)" "$bad" "erring: the bad task's group failed each run"
check_grep "$T/erring.out" "failed: .*erring.lua:3: boom \\($bad\\)" "erring: counted by reason"
check_eq "$(( $(path_count "$T/erring.log" /a) + bad + $(path_count "$T/erring.log" /c) ))" 300 "erring: 300 tasks ran"
check_ge "$(path_count "$T/erring.log" /c)" 1 "erring: the tasks after the bad one ran"

# 3. A sequence: its steps in order on each user's connection, an erring
# step ending itself only (the next step runs), the wait rule between the
# steps and after the last.
cat > "$S/sequence.lua" <<'EOF'
local s = {}
local function one(u) u:get("/one") end
local function two(u) u:get("/two") u:fail("two fails") end
local function three(u) u:get("/three") end
s.sequence = { one, two, three }
s.wait = volley.between("1ms", "2ms")
return s
EOF
start_target --log "$T/sequence.log"
run_volley sequence -s "$S/sequence.lua" -t 1 -c 2 --iterations 6 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$(jget "$T/sequence.json" iterations.failed)" 6 "sequence: each iteration failed (in step two)"
check_grep "$T/sequence.out" 'failed: two fails \(6\)' "sequence: by step two's reason"
check_eq "$(awk '{ print $3 }' "$T/sequence.log" | sort | uniq -c | awk '{ print $1 }' | sort -u)" 6 \
    "sequence: every step 6 times"
check_eq "$(awk '{ s[$1] = s[$1] $3 } END { for (k in s) print s[k] }' "$T/sequence.log" | sort -u | \
    sed 's#/one/two/three##g' | sort -u)" "" "sequence: one, two, three in order on each connection"

# 4. on_start once per user, on_stop when users leave on a ramp-down; an
# on_start that fails fails its iteration (counted by its reason) and is
# tried again before the user's next one.
cat > "$S/life.lua" <<'EOF'
local s = {}
local tried = {}
function s.on_start(u)
  u:get("/login")
  if not tried[u.id] then tried[u.id] = true error("login refused", 0) end
end
function s.on_stop(u) u:get("/logout") end
function s.user(u) u:get("/work") u:sleep("5ms") end
return s
EOF
start_target --log "$T/life.log"
run_volley life -s "$S/life.lua" -t 1 --stages 200ms:3,400ms:3,200ms:0,600ms:0 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$(path_count "$T/life.log" /login)" 6 "life: on_start twice per user (the first failed)"
check_eq "$(path_count "$T/life.log" /logout)" 3 "life: on_stop once per user, as it left"
check_eq "$(jget "$T/life.json" iterations.failed)" 3 "life: each failed on_start failed an iteration"
check_grep "$T/life.out" 'failed: on_start: login refused \(3\)' "life: counted by on_start's reason"
check_eq "$(jget "$T/life.json" groups.on_start.count)" 6 "life: on_start's group"
check_eq "$(jget "$T/life.json" groups.on_start.failed)" 3 "life: on_start's group failed"

# 4b. --iterations spent while users wait out their wait rule's time: the
# run waits for them, and each leaves with its on_stop.
cat > "$S/thinking.lua" <<'EOF'
local s = {}
s.wait = volley.between(0.02, 0.05)
function s.user(u) u:get("/work") end
function s.on_stop(u) u:get("/logout") end
return s
EOF
start_target --log "$T/thinking.log"
run_volley thinking -s "$S/thinking.lua" -t 1 -c 4 --iterations 10 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "thinking: exit status"
check_eq "$(path_count "$T/thinking.log" /work)" 10 "thinking: 10 iterations"
check_eq "$(path_count "$T/thinking.log" /logout)" 4 "thinking: on_stop once per user, those waiting too"
check_eq "$(jget "$T/thinking.json" iterations.cut_off)" 0 "thinking: nothing cut off"

# 5. pacing: each user's iterations start on its period: start k never
# before k periods after the first (from the script's own monotonic
# stamps; a start woken late leaves the next its due time, not a whole
# period after it), and no more of them in a span than the period allows.
cat > "$S/pacing.lua" <<'EOF'
local s = {}
s.wait = volley.pacing(0.25)
function s.user(u)
  u:get("/p", { headers = { ["X-T"] = ("%.6f"):format(volley.now() / 1e6) } })
  if u.iteration % 3 == 0 then u:get("/delay/100") end
end
return s
EOF
start_target --log "$T/pacing.log"
run_volley pacing -s "$S/pacing.lua" -t 1 -c 2 -d 2 "http://127.0.0.1:$PORT/"
stop_target
/usr/bin/python3 - "$T/pacing.log" <<'PY' || fail "pacing: a start before its period"
import sys, collections
starts = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if f[2] == "/p":
        starts[f[0]].append(float(f[3].split("=")[1]))
assert len(starts) == 2, starts.keys()
for conn, t in starts.items():
    assert len(t) >= 3, (conn, t)
    for k in range(1, len(t)):
        assert t[k] - t[0] >= k * 0.25 - 0.005, (conn, k, t[k] - t[0])
    assert len(t) <= int((t[-1] - t[0]) / 0.25 + 1e-9) + 1, (conn, t)
    assert len(t) <= int(2 / 0.25) + 2, (conn, len(t))
PY
ok

# 6. between: the wait after each iteration, and u:sleep_between inside
# one, within [a, b]: at least a (exactly), at most b give or take the
# machine's lateness (loosely).
cat > "$S/between.lua" <<'EOF'
local s = {}
s.wait = volley.between(0.05, 0.1)
function s.user(u)
  local t0 = volley.now()
  u:sleep_between("20ms", "40ms")
  local slept = (volley.now() - t0) / 1e6
  u:get("/b", { headers = { ["X-T"] = ("%.6f"):format(volley.now() / 1e6), ["X-S"] = ("%.6f"):format(slept) } })
end
return s
EOF
start_target --log "$T/between.log"
run_volley between -s "$S/between.lua" -t 1 -c 2 -d 1.5 "http://127.0.0.1:$PORT/"
stop_target
/usr/bin/python3 - "$T/between.log" <<'PY' || fail "between: a wait out of [a, b]"
import sys, collections
stamps = collections.defaultdict(list)
n = 0
for line in open(sys.argv[1]):
    f = line.split()
    h = dict(x.split("=", 1) for x in f[3:])  # the X- headers, in the order sent
    t, slept = float(h["X-T"]), float(h["X-S"])
    assert 0.02 <= slept < 0.04 + 1.0, slept
    stamps[f[0]].append(t)
    n += 1
assert n >= 4, n
for conn, t in stamps.items():
    for k in range(1, len(t)):
        gap = t[k] - t[k - 1]  # the wait after an iteration, then u:sleep_between's
        assert 0.05 + 0.02 <= gap < 0.1 + 0.04 + 1.0, (conn, k, gap)
PY
ok

# 7. Bad input: one line each. The scenario's own fields are refused before
# the run (exit 2); a wait rule's bad arguments are an error of the
# script's chunk, at its line (exit 1, as any error of the chunk).
bad() {
    local name=$1 want_rc=$2 want=$3
    run_volley "$name" -s "$S/$name.lua" -c 1 --iterations 1 "http://127.0.0.1:9/"
    check_eq "$RC" "$want_rc" "$name: exit status"
    check_eq "$(wc -l < "$T/$name.err")" 1 "$name: one line"
    check_grep "$T/$name.err" "$want" "$name: the message"
}
printf 'local s = {}\ns.tasks = { { fn = function(u) end } }\nreturn s\n' > "$S/noweight.lua"
bad noweight 2 "^volley: .*noweight.lua: the scenario's tasks\\[1\\] has no weight \\(write \\{ weight = 4, fn = browse \\}"
printf 'local s = {}\ns.tasks = { { weight = -1, fn = function(u) end } }\nreturn s\n' > "$S/negative.lua"
bad negative 2 "the scenario's tasks\\[1\\]\\.weight is -1 \\(a number >= 0 expected\\)$"
printf 'local s = {}\ns.tasks = { { weight = 0, fn = function(u) end } }\nreturn s\n' > "$S/zero.lua"
bad zero 2 "the scenario's tasks weigh 0 in all"
printf 'local s = {}\ns.tasks = { "browse" }\nreturn s\n' > "$S/notfn.lua"
bad notfn 2 "the scenario's tasks\\[1\\] is a string \\(a function, or a table"
printf 'local s = {}\nlocal f = function(u) end\ns.tasks = { [f] = 4 }\nreturn s\n' > "$S/keyed.lua"
bad keyed 2 "the scenario's tasks is keyed by functions"
printf 'local s = {}\ns.user = function(u) end\ns.tasks = { function(u) end }\nreturn s\n' > "$S/both.lua"
bad both 2 "the scenario gives both user and tasks: choose one"
printf 'local s = {}\ns.sequence = { function(u) end }\ns.wait = 3\nreturn s\n' > "$S/waitnum.lua"
bad waitnum 2 "the scenario's wait is the number 3, not a wait rule"
printf 'local s = {}\ns.on_stop = function(u) end\nfunction s.request() return "GET / HTTP/1.1\\r\\n\\r\\n" end\nreturn s\n' \
    > "$S/noflow.lua"
bad noflow 2 "the scenario gives on_stop but no flow to run it with"
printf 'local s = {}\ns.taks = { function(u) end }\nreturn s\n' > "$S/typo.lua"
bad typo 2 'unknown hook "taks" in the scenario table \(did you mean "tasks"\?\)$'
printf 'local s = {}\ns.user = function(u) end\ns.wait = volley.between(3, 1)\nreturn s\n' > "$S/between31.lua"
bad between31 1 "between31.lua:3: volley.between: a = 3 is more than b = 1 \\(a <= b expected\\)$"
printf 'local s = {}\ns.user = function(u) end\ns.wait = volley.pacing("soon")\nreturn s\n' > "$S/soon.lua"
bad soon 1 'soon.lua:3: volley.pacing: "soon" is not a time'
printf 'local s = {}\ns.user = function(u) end\ns.wait = volley.throughput(-2)\nreturn s\n' > "$S/negrate.lua"
bad negrate 1 "negrate.lua:3: volley.throughput: -2 is not a rate"

finish
