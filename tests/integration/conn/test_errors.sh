# Unreachable targets end the run at once with one line and exit 1; a server
# that dies mid-run turns into connect errors, with backoff, not a busy loop.
source "$TESTLIB"

# A free port with nothing listening.
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run_volley refused -n 10 "http://127.0.0.1:$free_port/"
check_eq "$RC" 1 "refused: exit status"
check_eq "$(wc -l < "$T/refused.err")" 1 "refused: one line"
check_grep "$T/refused.err" "^volley: 127\.0\.0\.1:$free_port: connection refused$" "refused: reason"

run_volley nohost -n 10 "http://nosuch.invalid/"
check_eq "$RC" 1 "no such host: exit status"
check_grep "$T/nohost.err" "^volley: nosuch\.invalid: no such host$" "no such host: reason"

# A listener whose accept queue is full drops new SYNs: the connect never
# completes, and the probe reports a timeout after --timeout.
python3 - "$T/fullport" <<'PY' &
import socket, sys, time
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(0)
port = l.getsockname()[1]
fill = []
for _ in range(3):  # more than the queue holds: later SYNs are dropped
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    fill.append(s)
time.sleep(0.2)
open(sys.argv[1], "w").write(str(port))
time.sleep(10)
PY
fullpid=$!
for _ in $(seq 1 100); do [ -s "$T/fullport" ] && break; sleep 0.05; done
full_port=$(cat "$T/fullport")
run_volley stalled -n 5 --timeout 300ms "http://127.0.0.1:$full_port/"
kill "$fullpid" 2>/dev/null || true
wait "$fullpid" 2>/dev/null || true
check_eq "$RC" 1 "connect never completes: exit status"
check_grep "$T/stalled.err" "^volley: 127\.0\.0\.1:$full_port: connect timed out$" "connect never completes: reason"

# The server goes away during the run: connect errors, every request counted.
start_target
timeout -s KILL 60 "$VOLLEY" -d 2s -c 4 -t 1 --json "$T/dies.json" "http://127.0.0.1:$PORT/delay/20" \
    > "$T/dies.out" 2> "$T/dies.err" &
vpid=$!
sleep 0.5
stop_target
wait "$vpid" && ok || fail "server dies: volley exit status"
check_adds_up dies
check_ge "$(jget "$T/dies.json" errors.connect)" 1 "server dies: connect errors"
# 4 connections with backoff from 10 ms doubling to 1 s over 1.5 s: a few
# dozen attempts; a tight loop would make thousands.
attempts=$(jget "$T/dies.json" errors.connect)
[ "$attempts" -lt 200 ] && ok || fail "server dies: $attempts connect attempts, backoff missing"
# The server goes away during a -n run: once no connect has worked for
# --timeout, volley stops instead of failing the rest of the budget one
# backoff at a time, says why, and exits 1 after the report.
start_target
timeout -s KILL 60 "$VOLLEY" -n 10M -c 4 -t 2 --timeout 1s --json "$T/gone.json" "http://127.0.0.1:$PORT/delay/20" \
    > "$T/gone.out" 2> "$T/gone.err" &
vpid=$!
sleep 0.5
stop_target
RC=0
wait "$vpid" || RC=$?
check_eq "$RC" 1 "server gone: exit status"
check_adds_up gone
check_grep "$T/gone.err" "^volley: 127\.0\.0\.1:$PORT: unreachable for longer than --timeout \(Connection refused\); run stopped$" "server gone: reason"
check_eq "$(jget "$T/gone.json" unreachable)" "Connection refused" "server gone: in the JSON"
check_grep "$T/gone.out" "^Requests/sec:" "server gone: report printed"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/gone.json'))['duration'] < 20 else 1)" \
    && ok || fail "server gone: run did not stop soon after --timeout"
# A brief restart does not end the run: the keep-alive connections lived
# longer than --timeout before the server went away, and it is back well
# within --timeout (unreachability is measured from the first failed
# connect, not from the last one that worked).
start_target
rport=$PORT
timeout -s KILL 60 "$VOLLEY" -d 5s -c 2 -t 1 --timeout 2s --json "$T/restart.json" "http://127.0.0.1:$rport/delay/5" \
    > "$T/restart.out" 2> "$T/restart.err" &
vpid=$!
sleep 2.5
stop_target
sleep 0.3
start_target --port "$rport"
RC=0
wait "$vpid" || RC=$?
check_eq "$RC" 0 "server restarts: exit status"
if grep -q unreachable "$T/restart.err"; then fail "server restarts: run stopped: $(cat "$T/restart.err")"; else ok; fi
check_eq "$(jget "$T/restart.json" unreachable)" null "server restarts: not unreachable in the JSON"
check_ge "$(target_stat received)" 1 "server restarts: requests reached the new server"
check_adds_up restart
finish
