# A worker starts its connections in batches of 4 per loop iteration
# (worker.c, OPEN_BATCH), reading between batches, so the first requests'
# answers are not left waiting for the last connect (their latency would
# then count the opening of every other connection). A script counts the
# requests started when the first response is read: at least the first
# batch (nothing is read before the first poll) and at most 2000 of 3000,
# while each connection still gets its request (-n = -c: a connection
# whose request ended is held until the last has opened). All at once, it
# would be 3000. A
# response has to arrive while the last third of the connections open: a
# server stalled that long on a loaded machine can miss it, so the case
# is tried three times. Also --one-first (the first connection alone, then
# the rest in batches), -n below -c, connects that fail at once, and a
# script's first delay() calls.
source "$TESTLIB"

cat > "$T/first.lua" <<'LUA'
local threads = {}
function setup(thread) table.insert(threads, thread) end
local started, at_first = 0, nil
function request()
  started = started + 1
  return wrk.format()
end
function response(status, headers, body)
  if not at_first then
    at_first = started
    wrk.thread:set("at_first", at_first)
  end
end
function done()
  for _, t in ipairs(threads) do io.write("at_first=", tostring(t:get("at_first")), "\n") end
end
LUA

start_target
at=none
for try in 1 2 3; do
    run_volley batches -n 3000 -c 3000 -t 1 -s "$T/first.lua" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 0 "batches: exit status (try $try; stderr: $(head -c 300 "$T/batches.err"))"
    check_eq "$(jget "$T/batches.json" requests.completed)" 3000 "batches: completed (try $try)"
    check_eq "$(jget "$T/batches.json" connections_opened)" 3000 "batches: connections opened (try $try)"
    at=$(sed -n 's/^at_first=//p' "$T/batches.out")
    [[ $at =~ ^[0-9]+$ ]] && ((at >= 4 && at <= 2000)) && break
    echo "batches: try $try: the first response was read after $at requests started" >&2
done
if [[ $at =~ ^[0-9]+$ ]] && ((at >= 4 && at <= 2000)); then ok; else
    fail "batches: the first response was read after $at requests started (want 4 .. 2000)"; fi
check_eq "$(target_stat received)" $((3000 * try)) "batches: server received ($try runs of 3000)"
stop_target

# The first c delay() calls are the connections' first requests (wrk's way
# to hold connections open and idle): 600 connections, one request each,
# then a delay past the end of the run.
cat > "$T/hold.lua" <<'LUA'
local calls = 0
function delay()
  calls = calls + 1
  if calls <= 600 then return 0 end
  return 600000
end
LUA
start_target
run_volley hold -c 600 -t 1 -d 2s -s "$T/hold.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "hold: exit status (stderr: $(head -c 300 "$T/hold.err"))"
check_eq "$(jget "$T/hold.json" connections_opened)" 600 "hold: connections opened"
check_eq "$(jget "$T/hold.json" requests.completed)" 600 "hold: completed (one per connection)"
check_eq "$(target_stat received)" 600 "hold: server received"
stop_target

# --one-first with more connections than a batch: every one opens.
start_target
run_volley onefirst -n 1000 -c 600 -t 1 --one-first "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "one-first: exit status (stderr: $(head -c 300 "$T/onefirst.err"))"
check_adds_up onefirst
check_eq "$(jget "$T/onefirst.json" requests.completed)" 1000 "one-first: completed"
check_eq "$(jget "$T/onefirst.json" connections_opened)" 600 "one-first: connections opened"
check_eq "$(target_stat received)" 1000 "one-first: server received"
stop_target

# -n smaller than the connections: no more requests than -n, and the
# connections of the later batches find the budget spent and stay shut.
start_target
run_volley few -n 200 -c 1000 -t 1 "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "few: exit status"
check_adds_up few
check_eq "$(jget "$T/few.json" requests.completed)" 200 "few: completed"
check_eq "$(target_stat received)" 200 "few: server received"
stop_target

# A port where nothing listens, with --one-first: connects fail at once,
# inside the start of a batch (the first failure releases the rest, whose
# batch starts from there); every request is one connect failure, none is
# started twice, and the run ends.
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_volley dead -n 100 -c 50 -t 1 --one-first --no-probe "http://127.0.0.1:$dead/"
check_eq "$RC" 1 "dead port: exit status (no response completed)"
check_eq "$(jget "$T/dead.json" requests.started)" 100 "dead port: started"
check_eq "$(jget "$T/dead.json" errors.connect)" 100 "dead port: connect failures"

finish
