# Stopping: at the deadline, requests in flight are cut off, not errors; the
# first SIGINT stops the run and prints the report of what completed.
source "$TESTLIB"

start_target
# Every request takes 300 ms, so at the 1 s deadline all 5 are in flight
# (a new round starts every 300 ms or, on a loaded machine, a little later:
# 3 rounds of 5 completed, or 2 when the machine held the rounds back).
run_volley deadline -d 1s -c 5 -t 1 "http://127.0.0.1:$PORT/delay/300"
check_eq "$RC" 0 "deadline: exit status"
check_adds_up deadline
check_eq "$(jget "$T/deadline.json" requests.failed)" 0 "deadline: nothing failed"
check_eq "$(jget "$T/deadline.json" requests.cut_off)" 5 "deadline: in flight at the deadline"
case $(jget "$T/deadline.json" requests.completed) in 10 | 15) ok ;; *) fail "deadline: 2 or 3 rounds of 5 completed, got $(jget "$T/deadline.json" requests.completed)" ;; esac
check_grep "$T/deadline.out" "Cut off: 5 requests were in flight when the run ended" "deadline: said in the report"

# wait_header FILE: waits (at most 5 s) for the run's header in FILE. It is
# printed once the signal handlers are in place: a SIGINT before that would
# end a slow-starting volley by the default action (130).
wait_header() {
    for _ in $(seq 1 250); do grep -q '^  1 thread' "$1" 2>/dev/null && return; sleep 0.02; done
}

# SIGINT: report what completed, exit 0. (timeout without --foreground would
# also signal its process group, which volley must then take as one.)
timeout -s KILL 60 "$VOLLEY" -d 30s -c 4 -t 1 --json "$T/int.json" "http://127.0.0.1:$PORT/delay/10" \
    > "$T/int.out" 2> "$T/int.err" &
vpid=$!
wait_header "$T/int.out"
sleep 1
signal_wait INT "$vpid"
check_eq "$RC" 0 "SIGINT: exit status"
check_adds_up int
check_eq "$(jget "$T/int.json" interrupted)" True "SIGINT: marked interrupted"
check_ge "$(jget "$T/int.json" requests.completed)" 1 "SIGINT: report of what completed"
check_grep "$T/int.out" "^Requests/sec:" "SIGINT: text report printed"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/int.json'))['duration'] < 10 else 1)" \
    && ok || fail "SIGINT: run did not stop early"

# SIGINT at once, before any answer (the server never answers): the report
# says no response completed, without latency figures, and the exit status
# is 1, as for any run in which nothing completed. The signal is sent a
# little after the header is out, once the connections are open (whether
# they all are is the machine's business: the count is not checked).
timeout -s KILL 60 "$VOLLEY" -d 30s -c 4 -t 1 --json "$T/int0.json" "http://127.0.0.1:$PORT/never" \
    > "$T/int0.out" 2> "$T/int0.err" &
vpid=$!
wait_header "$T/int0.out"
sleep 0.3
signal_wait INT "$vpid"
check_adds_up int0
check_no_response int0 "SIGINT at once" "no request failed; [1-4] cut off; interrupted"
check_eq "$(jget "$T/int0.json" interrupted)" True "SIGINT at once: marked interrupted"
check_grep "$T/int0.out" "^  No response completed: there are no latency figures$" "SIGINT at once: said in the report"
check_eq "$(grep -c 'p50' "$T/int0.out")" 0 "SIGINT at once: no latency figures"
check_grep "$T/int0.out" "^  Cut off: [1-4] requests? (was|were) in flight when the run was interrupted" "SIGINT at once: the cut off line"
finish
