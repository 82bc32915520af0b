# --spin T (the open model's busy wait before each arrival): refused
# without -R and with bad values (exit 2, one line, nothing sent); from a
# script's options() too; a spinning run sends exactly its schedule, counted
# by the server, and reports the send lag. No timing is asserted: the
# machine running the tests is shared.
source "$TESTLIB"

# 1. Refused before anything is sent: no -R, bad values, out of range.
start_target
for spec in "spin200:--spin 200us:--spin: only with -R" \
    "spinn:-n 20 --spin 200us:--spin: only with -R" \
    "spinword:-R 100 -d 1s --spin fast:--spin: \"fast\" is not a duration" \
    "spinzero:-R 100 -d 1s --spin 0:--spin: \"0\" is not a duration" \
    "spinsmall:-R 100 -d 1s --spin 500ns:--spin: \"500ns\" is not a duration" \
    "spinbig:-R 100 -d 1s --spin 50ms:--spin: \"50ms\" is out of range \(1us..10ms\)"; do
    IFS=: read -r name args want <<< "$spec"
    # shellcheck disable=SC2086 # args are words
    run_volley "$name" $args "http://127.0.0.1:$PORT/"
    check_eq "$RC" 2 "$name: exit status"
    check_grep "$T/$name.err" "^volley: $want" "$name: message"
    check_eq "$(wc -l < "$T/$name.err")" 1 "$name: one line"
    check_eq "$(cat "$T/$name.out")" "" "$name: no report"
done
run_volley spinnone -R 100 -d 1s "http://127.0.0.1:$PORT/" --spin
check_eq "$RC" 2 "spinnone: exit status"
check_grep "$T/spinnone.err" "^volley: --spin: needs a value" "spinnone: message"
check_eq "$(target_stat received)" 0 "refused --spin: nothing sent"

# 2. A script's options(): spin alone is refused after options() (exit 2),
#    with the rate it is taken.
cat > "$T/spin_norate.lua" <<LUA
local s = {}
function s.options() return { url = "http://127.0.0.1:$PORT/", requests = 5, spin = "200us" } end
return s
LUA
run_volley optnorate -s "$T/spin_norate.lua"
check_eq "$RC" 2 "options() spin without rate: exit status"
check_grep "$T/optnorate.err" "^volley: --spin: only with -R" "options() spin without rate: message"
check_eq "$(target_stat received)" 0 "options() spin without rate: nothing sent"
cat > "$T/spin_rate.lua" <<LUA
local s = {}
function s.options() return { url = "http://127.0.0.1:$PORT/", rate = 200, requests = 50, connections = 4, threads = 1, spin = "100us" } end
return s
LUA
run_volley optrate -s "$T/spin_rate.lua"
check_rate_rc "options() spin with rate: exit status"
check_grep "$T/optrate.out" "open model at 200 requests/s, spin 100us$" "options() spin with rate: header"
check_eq "$(jget "$T/optrate.json" options.spin)" 0.0001 "options() spin with rate: JSON"
check_eq "$(target_stat received)" 50 "options() spin with rate: the server's count"
stop_target

# 3. Spinning runs send exactly the schedule: by -d (R x D) and by -n, with
#    one and two threads, and with a spin longer than a worker's interval
#    (10 ms at 2000/s over two threads: the worker spins from one arrival
#    to the next). The server counts what arrived.
for spec in "d1:-R 500 -d 2s -c 8 -t 1 --spin 200us:1000" \
    "n2:-R 1000 -n 1500 -c 8 -t 2 --spin 50us:1500" \
    "long:-R 2000 -n 2000 -c 8 -t 2 --spin 10ms:2000"; do
    IFS=: read -r name args want <<< "$spec"
    start_target
    # shellcheck disable=SC2086
    run_volley "$name" $args "http://127.0.0.1:$PORT/"
    check_rate_rc "$name: exit status"
    check_eq "$(target_stat received)" "$want" "$name: the server's count"
    stop_target
    check_eq "$(jget "$T/$name.json" requests.completed)" "$want" "$name: completed"
    check_eq "$(jget "$T/$name.json" rate.sent)" "$want" "$name: arrivals sent"
    check_eq "$(jget "$T/$name.json" rate.unsent)" 0 "$name: none unsent"
    check_eq "$(jget "$T/$name.json" sendlag.count)" "$want" "$name: a send lag per request"
    check_adds_up "$name"
    check_grep "$T/$name.out" "^  Send lag  p50 " "$name: send lag line"
    check_grep "$T/$name.out" "open model at [0-9]+ requests/s, spin [0-9]+us$" "$name: header"
    python3 - "$T/$name.json" <<'PY' && ok || fail "$name: send lag figures"
import json, sys
r = json.load(open(sys.argv[1]))
lag = r["sendlag"]
# Present and ordered; never negative: an arrival never goes out early.
assert 0 <= lag["min"] <= lag["p50"] <= lag["p99"] <= lag["max"], lag
assert r["options"]["spin"] > 0, r["options"]
PY
done

# 4. Without --spin nothing changes: the header and the JSON say none.
start_target
run_volley nospin -R 200 -n 20 -c 2 -t 1 "http://127.0.0.1:$PORT/"
stop_target
check_rate_rc "no spin: exit status"
check_grep "$T/nospin.out" "open model at 200 requests/s$" "no spin: header"
check_eq "$(jget "$T/nospin.json" options.spin)" null "no spin: JSON"

finish
