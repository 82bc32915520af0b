# Errors that explain themselves (issue 23, items 5-8, 10, 11): the nearest
# name for a misspelt option, command or script; a word before a command
# named for what it is; a unit apart from its number; a script whose only
# globals are near a hook's name; a body without -m; one word for one
# thing ("1 request", thresholds in compare as in a run).
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT/"

# err NAME WANT ARGS...: volley ARGS exits 2 (or $WANT_RC) with exactly
# the line WANT on stderr.
err() {
    local name=$1 want=$2
    shift 2
    RC=0
    timeout -s KILL 30 "$VOLLEY" "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
    check_eq "$RC" "${WANT_RC:-2}" "$name: exit status"
    check_eq "$(cat "$T/$name.err")" "$want" "$name: message"
}

# Item 5: the nearest name for volley's own long options and commands, and
# a command after other words named for what it is.
err conections 'volley: --conections: unknown option (did you mean --connections?)' --conections 10 "$url"
err conections2 'volley: --conections: unknown option (did you mean --connections?)' --conections=10 "$url"
err frob 'volley: --frobnicate: unknown option' --frobnicate "$url"
err flagvalue 'volley: --latency: takes no value (give --latency alone)' --latency=1 "$url"
err ambiguous 'volley: --tls: ambiguous, the start of --tls-min, --tls-max and --tls-resume' --tls 1.2 "$url"
err repot 'volley: repot: not a URL or a command (did you mean "report"?)' repot x.json
err merg 'volley: merg: not a URL or a command (did you mean "merge"?)' merg a.json b.json
err before_ab 'volley: --tls-resume=off: an option before the command ab; the command comes first (volley ab [ab options] URL)' \
    --tls-resume=off ab -n 10 "$url"
err before_report 'volley: -q -c 5: options before the command report; the command comes first (volley report RESULT.json [options])' \
    -q -c 5 report x.json
err before_compare 'volley: -v: an option before the command compare; the command comes first (volley compare BASE.json NEW.json [options])' \
    -v compare a.json b.json
WANT_RC=1 err abb 'volley: -s abb: no such bundled script (did you mean "ab"?)' -s abb "$url"
WANT_RC=1 err ablua 'volley: -s ab.lua: No such file or directory (the bundled script is -s ab)' -s ab.lua "$url"
# A host name without a scheme keeps its own hint (it has a '.' or a ':').
err noscheme 'volley: localhost:1: not a URL; did you mean http://localhost:1 ?' localhost:1
check_eq "$(target_stat received)" 0 "mistakes: nothing sent"

# Item 6: a unit apart from its number.
run_volley blank -n 20 -c 2 -t 1 --threshold 'p99 < 50 s' --threshold 'errors < 1 %' "$url"
check_eq "$RC" 0 "fail-if 'p99 < 50 s': exit status"
check_grep "$T/blank.out" '^  --threshold  p99 < 50 s +[0-9.]+(us|ms)  pass$' "fail-if 'p99 < 50 s': the thresholds block"
run_volley blankd -d '1 s' -c 1 -t 1 "$url"
check_eq "$RC" 0 "-d '1 s': exit status"
check_grep "$T/blankd.out" "^Running 1s test @ " "-d '1 s': a one-second run"
err nounit 'volley: --threshold "p99 < 50": 50 needs a time unit (ns, us, ms, s, m)' --threshold 'p99 < 50' "$url"

# Item 7: a wrk-style script with no hook but a global function near one's
# name runs (as wrk would) and says so on stderr, once, before the report;
# one with a hook, or with its helpers in locals, says nothing.
printf 'function reqest()\n  return wrk.format("GET", "/x")\nend\n' > "$T/reqest.lua"
printf 'function respnse(status) end\nfunction reqest() end\n' > "$T/two.lua"
printf 'function request() return wrk.format() end\nfunction respnse(status) end\n' > "$T/hooked.lua"
printf 'local function reqest() end\nfunction print_it() end\nwrk.method = "GET"\n' > "$T/locals.lua"
run_volley reqest -n 3 -c 1 -t 1 -s "$T/reqest.lua" "$url"
check_eq "$RC" 0 "reqest: exit status"
check_eq "$(cat "$T/reqest.err")" "volley: $T/reqest.lua: no hook defined; \"reqest\" is near \"request\"" "reqest: the warning"
check_grep "$T/reqest.out" '^  3 requests in ' "reqest: the run goes on"
run_volley two -n 1 -c 1 -t 1 -s "$T/two.lua" "$url"
check_eq "$(cat "$T/two.err")" "volley: $T/two.lua: no hook defined; \"reqest\" is near \"request\"" "two near: the first hook's"
for n in hooked locals; do
    run_volley "$n" -n 1 -c 1 -t 1 -s "$T/$n.lua" "$url"
    check_eq "$RC" 0 "$n: exit status"
    check_eq "$(wc -c < "$T/$n.err")" 0 "$n: nothing on stderr"
done

# Item 11: one request is "1 request"; compare says "thresholds" as a run does.
run_volley one -n 1 -c 1 "$url"
check_eq "$RC" 0 "-n 1: exit status"
check_grep "$T/one.out" '^  1 request in [0-9.]+s, ' "-n 1: the requests line in the singular"
RC=0
"$VOLLEY" compare --fail-if 'p99 >= +0%' "$T/one.json" "$T/one.json" > "$T/cmp1.out" 2> "$T/cmp1.err" || RC=$?
check_eq "$RC" 99 "compare, a threshold fails: exit status"
check_eq "$(cat "$T/cmp1.err")" 'volley compare: 1 of 1 threshold failed: --fail-if "p99 >= +0%"' "compare: one threshold failed"
check_grep "$T/cmp1.out" '^Thresholds \(the change from BASE to NEW\):$' "compare: the Thresholds block"
RC=0
"$VOLLEY" compare --fail-if 'p99 >= +0%' --fail-if 'p50 >= +0%' "$T/one.json" "$T/one.json" > "$T/cmp2.out" 2> "$T/cmp2.err" || RC=$?
check_eq "$(cat "$T/cmp2.err")" 'volley compare: 2 of 2 thresholds failed: --fail-if "p99 >= +0%", --fail-if "p50 >= +0%"' "compare: two thresholds failed"

# Item 8: a body without -m is sent with POST, as curl's -d is; -m wins
# (a GET with a body when asked); --body-file the same. volley ab keeps
# ab's methods: GET without -p, POST with it.
echo '{"a":2}' > "$T/body.json"
start_target --log "$T/methods.log"
murl="http://127.0.0.1:$PORT"
run_volley bpost -n 1 -c 1 -b '{"a":1}' "$murl/b"
run_volley bget -n 1 -c 1 -m GET -b '{"a":1}' "$murl/g"
run_volley bfile -n 1 -c 1 --body-file "$T/body.json" "$murl/f"
run_volley bput -n 1 -c 1 -b x -m PUT "$murl/p"
RC=0
timeout -s KILL 30 "$VOLLEY" ab -n 1 "$murl/ab" > "$T/ab.out" 2> "$T/ab.err" || RC=$?
check_eq "$RC" 0 "volley ab: exit status"
timeout -s KILL 30 "$VOLLEY" ab -n 1 -p "$T/body.json" "$murl/abp" > "$T/abp.out" 2> "$T/abp.err" || RC=$?
check_eq "$RC" 0 "volley ab -p: exit status"
stop_target
check_eq "$(awk '{print $2, $3}' "$T/methods.log" | sort | tr '\n' ,)" \
    "GET /ab,GET /g,POST /abp,POST /b,POST /f,PUT /p," "a body without -m: POST"
for n in bpost bget bfile bput; do check_eq "$(wc -c < "$T/$n.err")" 0 "$n: nothing on stderr"; done

finish
