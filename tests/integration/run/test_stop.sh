# Stopping: at the deadline, requests in flight are cut off, not errors; the
# first SIGINT (or SIGTERM) stops the run, prints the report of what
# completed, and exits 105: an interrupted run does not pass as a whole one.
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

# interrupt NAME SIGNAL SECONDS ARGS...: volley ARGS (-t 1, --json
# $T/NAME.json), sent SIGNAL SECONDS after its header is out; its output in
# $T/NAME.out/.err, its exit status in RC.
interrupt() {
    local name=$1 sig=$2 after=$3
    shift 3
    timeout -s KILL 60 "$VOLLEY" -t 1 --json "$T/$name.json" "$@" > "$T/$name.out" 2> "$T/$name.err" &
    vpid=$!
    wait_header "$T/$name.out"
    sleep "$after"
    signal_wait "$sig" "$vpid"
}

# SIGINT: report what completed, exit 105, and say so: on stderr, and in
# the report where the summary is, with when (the run's start + its
# duration), the same in `volley report` and the HTML page. (timeout
# without --foreground would also signal its process group, which volley
# must then take as one.)
interrupt int INT 1 -d 30s -c 4 --html "$T/int.html" "http://127.0.0.1:$PORT/delay/10"
check_eq "$RC" 105 "SIGINT: exit status"
secs=$(python3 -c "import json; print('%.2f' % json.load(open('$T/int.json'))['duration'])")
check_eq "$(cat "$T/int.err")" "volley: interrupted (SIGINT or SIGTERM) ${secs}s into the run: the report is of that part" \
    "SIGINT: the stderr line"
when=$(python3 -c "import json, time; r = json.load(open('$T/int.json')); print(time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(int(r['start_time'] + r['duration']))))")
line="  Interrupted (SIGINT or SIGTERM) ${secs}s into the run, at $when: the figures are of that part"
check_eq "$(grep '^  Interrupted' "$T/int.out")" "$line" "SIGINT: the report says when"
check_eq "$(grep -A1 "^  [0-9]* requests in " "$T/int.out" | tail -n 1)" "$line" "SIGINT: under the summary line"
RC=0
timeout -s KILL 30 "$VOLLEY" report "$T/int.json" > "$T/intrep.out" 2> "$T/intrep.err" || RC=$?
check_eq "$RC/$(grep "^  Interrupted" "$T/intrep.out")" "105/$line" "SIGINT: volley report says it, with the run's status"
html_secs=$(python3 -c "import json; print('%.3f' % json.load(open('$T/int.json'))['duration'])")
check_grep "$T/int.html" "<tr><th>Interrupted</th><td><span id=\"interrupted\" class=\"warn\">by SIGINT or SIGTERM, $html_secs s into the run, at $when: the figures are of that part</span></td></tr>" \
    "SIGINT: the HTML summary says it"
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
interrupt int0 INT 0.3 -d 30s -c 4 "http://127.0.0.1:$PORT/never"
check_adds_up int0
check_no_response int0 "SIGINT at once" "no request failed; [1-4] cut off; interrupted"
check_eq "$(jget "$T/int0.json" interrupted)" True "SIGINT at once: marked interrupted"
check_grep "$T/int0.out" "^  No response completed: there are no latency figures$" "SIGINT at once: said in the report"
check_eq "$(grep -c 'p50' "$T/int0.out")" 0 "SIGINT at once: no latency figures"
check_grep "$T/int0.out" "^  Cut off: [1-4] requests? (was|were) in flight when the run was interrupted" "SIGINT at once: the cut off line"

# SIGTERM (a CI job's time limit): the same status and lines. A run that
# was not interrupted says nothing of it.
interrupt term TERM 0.5 -d 30s -c 2 "http://127.0.0.1:$PORT/delay/10"
check_eq "$RC" 105 "SIGTERM: exit status"
check_grep "$T/term.err" "^volley: interrupted \(SIGINT or SIGTERM\) [0-9.]+s into the run: the report is of that part$" \
    "SIGTERM: the stderr line"
check_grep "$T/term.out" "^  Interrupted \(SIGINT or SIGTERM\) " "SIGTERM: the report line"
check_eq "$(grep -c 'Interrupted' "$T/deadline.out")" 0 "deadline: no Interrupted line"
finish
