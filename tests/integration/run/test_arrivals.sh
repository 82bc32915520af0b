# -R with --arrivals poisson and gamma:K against volley-target:
#  1. -n 2000 with Poisson arrivals: the server read exactly 2000 requests
#     (its --timing-log's r lines and its counter), the JSON records the
#     process and the seed, and its rate figures add up; a flow's
#     --iterations under the process: every iteration started; a server
#     too slow for the rate: judged against the drawn rate (exit 3);
#  2. -d with a random process: what was due before the end is a pure
#     function of the seed, so the same seed counts the same arrivals
#     (sent + never sent) again, and two shards (--shard 0/2, 1/2, one
#     --seed and --run-id, one --start-at) merged count exactly the
#     one-process run's; -n's shards merge to exactly -n; the server saw
#     every one sent;
#  3. volley merge refuses shards drawn under different seeds or
#     processes (exit 7);
#  4. a bad value, --arrivals without -R, and a random process over
#     shards without --seed: one line naming --arrivals, exit 2, nothing
#     sent.
# Only counts are asserted, never a time.
source "$TESTLIB"

# 1. -n 2000, Poisson.
start_target --timing-log "$T/p.tlog"
run_volley p -R 4000 --arrivals poisson -n 2000 -c 8 -t 2 --seed 11 "http://127.0.0.1:$PORT/"
check_rate_rc "p: exit status (stderr: $(head -c 300 "$T/p.err"))"
RECEIVED=$(target_stat received)
stop_target
check_eq "$RECEIVED" 2000 "p: the server received -n"
check_eq "$(grep -c '^r ' "$T/p.tlog")" 2000 "p: the server's timing log holds -n requests"
check_eq "$(jget "$T/p.json" requests.completed)" 2000 "p: completed"
check_eq "$(jget "$T/p.json" rate.sent)" 2000 "p: rate.sent"
check_eq "$(jget "$T/p.json" rate.unsent)" 0 "p: rate.unsent"
check_eq "$(jget "$T/p.json" options.arrivals)" poisson "p: options.arrivals"
check_eq "$(jget "$T/p.json" options.seed)" 11 "p: options.seed"
check_adds_up p
check_grep "$T/p.out" "open model at 4000 requests/s, Poisson arrivals" "p: the header states the process"
check_grep "$T/p.out" "Rate: 4000/s scheduled on average, [0-9.]+/s as drawn" "p: the rate line"
# The drawn rate is the arrivals over the span they were due in.
python3 - "$T/p.json" <<'PY' > "$T/p.py" 2>&1 && ok || fail "p: rate figures: $(tail -3 "$T/p.py")"
import json, sys
r = json.load(open(sys.argv[1]))["rate"]
assert 0 < r["due_span_ns"] <= r["sent_span_ns"], r
PY
# a flow's iterations under -R follow the process as requests do
LUADIR="$(dirname "$TESTLIB")/lua"
start_target
run_volley fl -s "$LUADIR/flow_marks.lua" -R 400 --arrivals poisson --seed 3 --iterations 60 -c 6 -t 2 \
    "http://127.0.0.1:$PORT/"
check_rate_rc "fl: exit status (stderr: $(head -c 300 "$T/fl.err"))"
check_eq "$(target_stat received)" 120 "fl: the server received two requests an iteration"
stop_target
check_eq "$(jget "$T/fl.json" iterations.started)" 60 "fl: iterations started"
check_eq "$(jget "$T/fl.json" rate.sent)" 60 "fl: rate.sent counts iterations"
check_grep "$T/fl.out" "open model at 400 iterations/s, Poisson arrivals" "fl: the header"
# a server far too slow for the rate (2 connections of 10 ms: 200/s at
# most): judged against the drawn rate, exit 3, the line says so
start_target --delay-ms 10
run_volley slow -R 1000 --arrivals poisson --seed 2 -d 1s -c 2 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 3 "slow: exit status (rate not met)"
check_grep "$T/slow.err" "^volley: -R 1000 \(Poisson arrivals, [0-9.]+/s as drawn\): target rate not met: " "slow: stderr"
check_grep "$T/slow.out" "Target rate NOT met: [0-9.]+/s of [0-9.]+/s as drawn" "slow: the report"
check_eq "$(jget "$T/slow.json" rate.met)" False "slow: rate.met"
# fixed, the default, says nothing new
start_target
run_volley f -R 4000 -n 200 -c 4 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_eq "$(jget "$T/f.json" options.arrivals)" fixed "f: options.arrivals"
if grep -q "arrivals" "$T/f.out"; then fail "f: the fixed header names no process: $(head -3 "$T/f.out")"; else ok; fi

# 2. -d: the arrivals due before the end, a function of the seed.
# due NAME: sent + never sent of run NAME.
due() { echo $(( $(jget "$T/$1.json" rate.sent) + $(jget "$T/$1.json" rate.unsent) )); }
start_target
for name in d1 d2; do
    run_volley "$name" -R 2000 --arrivals gamma:0.5 -d 1s -c 8 -t 2 --seed 5 "http://127.0.0.1:$PORT/"
    check_rate_rc "$name: exit status (stderr: $(head -c 300 "$T/$name.err"))"
    check_adds_up "$name"
done
D1=$(due d1)
check_eq "$(due d2)" "$D1" "d: the same seed, the same arrivals due before -d"
check_ge "$D1" 1 "d: some arrivals"
RECEIVED=$(target_stat received)
check_eq "$RECEIVED" $(( $(jget "$T/d1.json" rate.sent) + $(jget "$T/d2.json" rate.sent) )) \
    "d: the server received every arrival sent"

# shards NAME [volley args]: --shard 0/2 and 1/2 at once, on one
# --start-at (again, later, when one was not ready by it: exit 4), then
# merged into $T/NAME.json; exit statuses in RCS, merge's in RC.
shards() {
    local name=$1 lead=2 try i pids rc
    shift
    for try in 1 2 3; do
        local start
        start=$(python3 -c 'import time, sys; print("%.3f" % (time.time() + float(sys.argv[1])))' "$lead")
        pids=()
        for i in 0 1; do
            timeout -s KILL 60 "$VOLLEY" --shard "$i/2" --start-at "$start" --run-id "arr-$name" \
                --json "$T/$name$i.json" "$@" > "$T/$name$i.out" 2> "$T/$name$i.err" &
            pids+=($!)
        done
        RCS=()
        for i in 0 1; do
            rc=0
            wait "${pids[$i]}" || rc=$?
            RCS+=("$rc")
        done
        case " ${RCS[*]} " in
            *" 4 "*) lead=$((lead * 2)) ;;
            *) break ;;
        esac
    done
    RC=0
    timeout -s KILL 60 "$VOLLEY" merge "$T/${name}0.json" "$T/${name}1.json" --json "$T/$name.json" \
        > "$T/$name.merge.out" 2> "$T/$name.merge.err" || RC=$?
}

shards ds -R 2000 --arrivals gamma:0.5 -d 1s -c 8 -t 2 --seed 5 "http://127.0.0.1:$PORT/"
for i in 0 1; do
    case "${RCS[$i]}" in 0 | 3) ok ;; *) fail "ds: shard $i exit status ${RCS[$i]}: $(head -c 300 "$T/ds$i.err")" ;; esac
    check_eq "$(jget "$T/ds$i.json" options.arrivals)" gamma:0.5 "ds: shard $i options.arrivals"
done
case "$RC" in 0 | 3) ok ;; *) fail "ds: merge exit status $RC: $(head -c 300 "$T/ds.merge.err")" ;; esac
check_eq "$(due ds)" "$D1" "ds: two shards merged: the one-process run's arrivals due before -d"
check_eq "$(( $(due ds0) + $(due ds1) ))" "$D1" "ds: the shards' arrivals add up to the run's"
check_eq "$(jget "$T/ds.json" options.arrivals)" gamma:0.5 "ds: merged options.arrivals"
check_adds_up ds

# -n over two shards (2000 threads x shards lanes: 1000 each)
shards ns -R 4000 --arrivals poisson -n 2000 -c 8 -t 2 --seed 11 "http://127.0.0.1:$PORT/"
for i in 0 1; do
    case "${RCS[$i]}" in 0 | 3) ok ;; *) fail "ns: shard $i exit status ${RCS[$i]}: $(head -c 300 "$T/ns$i.err")" ;; esac
    check_eq "$(jget "$T/ns$i.json" requests.completed)" 1000 "ns: shard $i made its share"
done
case "$RC" in 0 | 3) ok ;; *) fail "ns: merge exit status $RC: $(head -c 300 "$T/ns.merge.err")" ;; esac
check_eq "$(jget "$T/ns.json" requests.completed)" 2000 "ns: merged completed: the single run's"
check_eq "$(jget "$T/ns.json" rate.sent)" 2000 "ns: merged rate.sent"
check_adds_up ns
BEFORE=$RECEIVED
RECEIVED=$(target_stat received)
check_eq "$RECEIVED" $(( BEFORE + $(jget "$T/ds.json" rate.sent) + 2000 )) "shards: the server received what they sent"

# 3. shards drawn from different seeds, or of different processes, are not
# one run's: merge refuses them.
set_option() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k, v = sys.argv[3].split("=")
r["options"][k] = json.loads(v)
json.dump(r, open(sys.argv[2], "w"))
PY
}
set_option "$T/ns1.json" "$T/ns1_seed.json" 'seed=12'
RC=0
"$VOLLEY" merge "$T/ns0.json" "$T/ns1_seed.json" > "$T/m1.out" 2> "$T/m1.err" || RC=$?
check_eq "$RC" 7 "merge: another seed: exit status"
check_grep "$T/m1.err" "options.seed: 11 and 12" "merge: another seed: the line names the seeds"
set_option "$T/ns1.json" "$T/ns1_gamma.json" 'arrivals="gamma:2"'
RC=0
"$VOLLEY" merge "$T/ns0.json" "$T/ns1_gamma.json" > "$T/m2.out" 2> "$T/m2.err" || RC=$?
check_eq "$RC" 7 "merge: another process: exit status"
check_grep "$T/m2.err" "options.arrivals" "merge: another process: the line names options.arrivals"
stop_target

# 4. Bad values: one line naming --arrivals, exit 2, nothing sent.
start_target
bad() {
    local name=$1 want=$2
    shift 2
    run_volley "$name" "$@" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 2 "$name: exit status"
    check_eq "$(wc -l < "$T/$name.err")" 1 "$name: one line (got: $(head -c 300 "$T/$name.err"))"
    check_grep "$T/$name.err" "^volley: --arrivals: $want" "$name: the line"
}
bad b1 '"gama:2" is not fixed, poisson or gamma:K' -R 100 -n 10 --arrivals gama:2
bad b2 '"gamma:0": K must be' -R 100 -n 10 --arrivals gamma:0
bad b3 '"gamma:x": K must be' -R 100 -n 10 --arrivals gamma:x
bad b4 'only with -R' -n 10 --arrivals poisson
bad b5 'with --shard every shard needs the same --seed' -R 100 -n 10 --arrivals poisson --shard 0/2
check_eq "$(target_stat received)" 0 "bad values: nothing sent"
stop_target
finish
