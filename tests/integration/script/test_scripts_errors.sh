# Lua scripts, errors: an error in every hook (wrk and scenario style) is
# one line "volley: FILE:LINE: in HOOK(): MESSAGE" and exit 1, never a
# crash; hooks returning the wrong type; API used in the wrong phase; thread
# objects (get/set/addr/stop) and what they refuse.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup
sent=0 # requests the server should have received so far

# hook_error STYLE HOOK AFTER: a script whose HOOK raises "bad HOOK" on line 3
# after AFTER good calls (per state).
hook_error() {
    local style=$1 hook=$2 after=$3 f="$S/$1_$2.lua"
    if [ "$style" == scenario ]; then
        printf 'local s, calls = {}, 0\n-- the hook is on line 3\nfunction s.%s() calls = calls + 1; if calls > %d then error("bad %s") end end\nreturn s\n' \
            "$hook" "$after" "$hook" > "$f"
    else
        printf 'local calls = 0\n-- the hook is on line 3\nfunction %s() calls = calls + 1; if calls > %d then error("bad %s") end end\n' \
            "$hook" "$after" "$hook" > "$f"
    fi
}

for style in wrk scenario; do
    # Before the run (nothing is sent) and after it (the report is out).
    hooks="setup init done"
    [ "$style" == scenario ] && hooks="options setup init done"
    for hook in $hooks; do
        name="${style}_$hook"
        hook_error "$style" "$hook" 0
        runv "$name" -n 20 -c 2 -t 2 -s "$S/$name.lua" "$url/"
        check_eq "$RC" 1 "$style $hook() error: exit status"
        check_eq "$(cat "$T/$name.err")" "volley: $S/$name.lua:3: in $hook(): bad $hook" "$style $hook() error: message"
        check_one_line "$T/$name.err" "$style $hook() error"
        case $hook in
        options | setup | init)
            # The header comes after setup() and init() (wrk's order).
            check_eq "$(wc -c < "$T/$name.out")" 0 "$style $hook() error: nothing printed" ;;
        done)
            sent=$((sent + 20))
            check_grep "$T/$name.out" "^  20 requests in " "$style $hook() error: the report comes first"
            check_eq "$(jv "$name" requests.completed)" 20 "$style $hook() error: the JSON is written" ;;
        esac
    done
    # During the run: the run stops, what completed is reported, the
    # accounting adds up.
    hooks="request delay response"
    [ "$style" == scenario ] && hooks="connect request delay response"
    for hook in $hooks; do
        name="${style}_$hook"
        after=3
        [ "$hook" == connect ] && after=1 # the second connection fails
        hook_error "$style" "$hook" "$after"
        runv "$name" -n 200 -c 1 -t 1 -s "$S/$name.lua" "$url/close/2"
        check_eq "$RC" 1 "$style $hook() error: exit status"
        check_eq "$(cat "$T/$name.err")" "volley: $S/$name.lua:3: in $hook(): bad $hook" "$style $hook() error: message"
        check_one_line "$T/$name.err" "$style $hook() error"
        check_grep "$T/$name.out" "^  [0-9]+ requests in .*read$" "$style $hook() error: the report"
        check_grep "$T/$name.out" "^Requests/sec: " "$style $hook() error: the whole report"
        adds_up "$name"
        completed=$(jv "$name" requests.completed)
        sent=$((sent + completed))
        case $hook in
        request | delay)
            check_eq "$completed" 3 "$style $hook() error: the requests before it completed" ;;
        connect)
            check_eq "$completed" 2 "$style $hook() error: the first connection's requests completed" ;;
        response)
            # A response whose hook raised the error counts as completed.
            check_eq "$completed" 4 "$style $hook() error: responses before it, and it" ;;
        esac
    done
done
check_eq "$(tstat received)" "$sent" "hook errors: nothing sent beyond what completed"

# Errors that carry no position, and errors raised with a table.
printf 'local s = {}\nfunction s.request(conn)\n  error("plain", 0)\nend\nreturn s\n' > "$S/nopos.lua"
runv nopos -n 5 -c 1 -t 1 -s "$S/nopos.lua" "$url/"
check_eq "$RC" 1 "error(msg, 0): exit status"
check_eq "$(cat "$T/nopos.err")" "volley: $S/nopos.lua: in request(): plain" "error(msg, 0): message"
printf 'local s = {}\nfunction s.response(conn, res)\n  error({ code = 1 })\nend\nreturn s\n' > "$S/errtable.lua"
runv errtable -n 5 -c 1 -t 1 -s "$S/errtable.lua" "$url/"
check_eq "$RC" 1 "error(table): exit status"
check_eq "$(cat "$T/errtable.err")" "volley: $S/errtable.lua: in response(): (error object is a table value)" "error(table): message"
adds_up errtable
sent=$((sent + 1))

# Wrong return types and hooks that are not functions: one clear line, exit 1.
check_wrong() { # NAME SCRIPT MESSAGE (WRONG_ARGS: more volley options)
    printf '%s\n' "$2" > "$S/$1.lua"
    # shellcheck disable=SC2086 # WRONG_ARGS is a list of words
    runv "$1" -n 20 -c 1 -t 1 ${WRONG_ARGS:-} -s "$S/$1.lua" "$url/"
    check_eq "$RC" 1 "$1: exit status"
    check_eq "$(cat "$T/$1.err")" "volley: $S/$1.lua$3" "$1: message"
    check_one_line "$T/$1.err" "$1"
    [ -s "$T/$1.flat" ] && adds_up "$1"
    sent=$((sent + $(jv "$1" requests.completed)))
}
check_wrong wrk_request_number 'function request() return 42 end' \
    ': in request(): returned a number (a string, a table or nil expected)'
check_wrong scenario_request_number 'local s = {} function s.request(conn) return 42 end return s' \
    ': in request(): returned a number (a string, a table or nil expected)'
check_wrong scenario_request_bool 'local s = {} function s.request(conn) return true end return s' \
    ': in request(): returned a boolean (a string, a table or nil expected)'
check_wrong wrk_request_empty 'function request() return "" end' \
    ': in request(): returned an empty string (a request expected)'
check_wrong scenario_request_empty 'local s = {} function s.request(conn) return "" end return s' \
    ': in request(): returned an empty string (a request expected)'
check_wrong delay_string 'local s = {} function s.delay(conn) return "soon" end return s' \
    ': in delay(): returned a string (milliseconds >= 0 or nil expected)'
check_wrong delay_negative 'function delay() return -1 end' \
    ': in delay(): returned a negative number (milliseconds >= 0 or nil expected)'
check_wrong response_number 'local s = {} function s.response(conn, res) return 42 end return s' \
    ': in response(): returned a number (nothing, true, or false and a reason expected)'
check_wrong response_string 'local s = {} function s.response(conn, res) return "ok" end return s' \
    ': in response(): returned a string (nothing, true, or false and a reason expected)'
check_wrong request_not_function 'request = 5' ': request is a number, not a function'
check_wrong response_not_function 'return { response = true }' ': response is a boolean, not a function'
check_wrong options_string 'return { options = function() return "fast" end }' \
    ': in options(): returned a string (a table of options or nil expected)'
check_wrong res_field 'return { response = function(conn, res) res.x = 1 end }' \
    ":1: in response(): 'struct volley_res' has no member named 'x'"
# A res kept past its response() call raises (it once read a reused buffer:
# a use after free under ASan); every field, not only the body.
for field in body headers status latency; do
    check_wrong "stale_$field" "local kept
return { request = function(conn) if kept then local x = kept.$field end end,
  response = function(conn, res) kept = res; local b = res.body end }" \
        ":2: in request(): res.$field read after its response() call returned: res is valid only during that call (copy what you need, e.g. conn.body = res.body)"
done
# A request table with a field of the wrong type: the message names the
# script and the field, not volley's own Lua files.
for bad in 'headers = "X: y"|headers' 'body = 5|body' 'method = {}|method'; do
    printf 'local s = {}\nfunction s.request(conn)\n  return { %s }\nend\nreturn s\n' "${bad%%|*}" > "$S/reqtable.lua"
    runv reqtable -n 5 -c 1 -t 1 -s "$S/reqtable.lua" "$url/"
    check_eq "$RC" 1 "request table { ${bad%%|*} }: exit status"
    check_one_line "$T/reqtable.err" "request table { ${bad%%|*} }"
    check_grep "$T/reqtable.err" "^volley: $S/reqtable\.lua(:[0-9]+)?: in request\(\): .*${bad#*|}" \
        "request table { ${bad%%|*} }: message names the script and the field"
done

# The scenario table holds hooks only: a misspelt hook (or a helper left on
# the table) is an error before the run, exit 2, naming the key and the
# nearest hook; nothing is sent. wrk-style globals are not checked (wrk
# runs such scripts as they are).
check_bad_table() { # NAME SCRIPT MESSAGE
    printf '%s\n' "$2" > "$S/$1.lua"
    runv "$1" -n 5 -c 1 -t 1 -s "$S/$1.lua" "$url/"
    check_eq "$RC" 2 "$1: exit status"
    check_eq "$(cat "$T/$1.err")" "volley: $S/$1.lua: $3" "$1: message"
    check_eq "$(wc -c < "$T/$1.out")" 0 "$1: nothing printed"
    check_one_line "$T/$1.err" "$1"
}
check_bad_table hook_typo 'local s = {}
function s.respnse(conn, res) end
return s' 'unknown hook "respnse" in the scenario table (did you mean "response"?)'
check_bad_table hook_swap 'return { request = function() end, inti = function() end }' \
    'unknown hook "inti" in the scenario table (did you mean "init"?)'
check_bad_table hook_case 'return { Request = function() end }' \
    'unknown hook "Request" in the scenario table (did you mean "request"?)'
check_bad_table hook_helper 'return { request = function() end, helper = function() end }' \
    'unknown hook "helper" in the scenario table (the hooks are options, setup, init, connect, request, delay, response, event, done and user)'
check_bad_table hook_array 'return { function() end }' \
    'a number key in the scenario table (the hooks are options, setup, init, connect, request, delay, response, event, done and user)'
check_bad_table options_typo 'return { options = function() return { url = "'"$url"'/", conections = 4 } end }' \
    'options(): unknown option "conections" (did you mean "connections"?)'
printf 'function respnse(status) end\nhelper = 1\n' > "$S/wrk_globals.lua"
runv wrk_globals -n 5 -c 1 -t 1 -s "$S/wrk_globals.lua" "$url/"
check_eq "$RC/$(jv wrk_globals requests.completed)" 0/5 "wrk-style globals are not checked"
sent=$((sent + 5))

# A request table's keys: an unknown one stops the run at the first request
# that has it (exit 1, as for any error in a hook during the run), naming
# the key and the nearest field; the requests before it completed.
for bad in 'pth = "/x"|"pth" in the request table (did you mean "path"?)' \
    'header = {}|"header" in the request table (did you mean "headers"?)' \
    'Body = "x"|"Body" in the request table (did you mean "body"?)' \
    'nonsense = 1|"nonsense" in the request table (its keys are method, path, headers, body, name and stream)' \
    '"/x"|1 in the request table (its keys are method, path, headers, body, name and stream)'; do
    printf 'local s, n = {}, 0\nfunction s.request(conn)\n  n = n + 1\n  if n <= 3 then return { path = "/" } end\n  return { %s }\nend\nreturn s\n' \
        "${bad%%|*}" > "$S/reqkey.lua"
    runv reqkey -n 20 -c 1 -t 1 -s "$S/reqkey.lua" "$url/"
    check_eq "$RC" 1 "request table { ${bad%%|*} }: exit status"
    check_eq "$(cat "$T/reqkey.err")" "volley: $S/reqkey.lua: in request(): unknown key ${bad#*|}" \
        "request table { ${bad%%|*} }: message"
    check_eq "$(jv reqkey requests.completed)" 3 "request table { ${bad%%|*} }: the requests before it completed"
    adds_up reqkey
    sent=$((sent + 3))
done
# "name" is a request table's own field.
printf 'return { request = function() return { path = "/", name = "home" } end }\n' > "$S/reqname.lua"
runv reqname -n 5 -c 1 -t 1 -s "$S/reqname.lua" "$url/"
check_eq "$RC/$(jv reqname requests.completed)" 0/5 "request table with name: accepted"
sent=$((sent + 5))

# Loading: nothing printed, nothing sent.
printf 'local s = {}\nfunction s.request(conn)\n  return nil +\nend\nreturn s\n' > "$S/syntax.lua"
runv syntax -n 5 -s "$S/syntax.lua" "$url/"
check_eq "$RC" 1 "syntax error: exit status"
check_grep "$T/syntax.err" "^volley: $S/syntax\.lua:4: unexpected symbol near 'end'$" "syntax error: message"
check_eq "$(wc -c < "$T/syntax.out")" 0 "syntax error: nothing printed"
printf 'local s = {}\nerror("at load")\nreturn s\n' > "$S/loaderr.lua"
runv loaderr -n 5 -s "$S/loaderr.lua" "$url/"
check_eq "$RC" 1 "chunk error: exit status"
check_eq "$(cat "$T/loaderr.err")" "volley: $S/loaderr.lua:2: at load" "chunk error: message"
runv nofile -n 5 -s "$S/nosuch.lua" "$url/"
check_eq "$RC" 1 "missing script: exit status"
check_eq "$(cat "$T/nofile.err")" "volley: -s $S/nosuch.lua: No such file or directory" "missing script: message"

# API in the wrong phase: the message names the phase and the function.
phase_msg() { echo "$1: not available in $2() (the main state); use it in init(), connect(), request(), delay() or response()"; }
check_wrong counter_in_setup 'function setup(thread) volley.counter("x") end' ":1: in setup(): $(phase_msg volley.counter setup)"
check_wrong record_in_setup 'return { setup = function(thread) volley.record("x", 1) end }' \
    ":1: in setup(): $(phase_msg volley.record setup)"
check_wrong counter_in_done 'function done(summary, latency, requests) volley.counter("x") end' \
    ":1: in done(): $(phase_msg volley.counter done)"
check_grep "$T/counter_in_done.out" "^  20 requests in " "volley.counter in done(): the report is out"
check_wrong record_in_done 'return { done = function(result) volley.record("x", 1) end }' \
    ":1: in done(): $(phase_msg volley.record done)"
check_wrong counter_in_options "return { options = function() volley.counter('x') end }" \
    ":1: in options(): $(phase_msg volley.counter options)"

# Thread objects.
check_wrong set_function 'function setup(thread) thread:set("f", function() end) end' \
    ":1: in setup(): thread:set: cannot transfer 'function' to thread"
check_wrong set_nested_function 'function setup(thread) thread:set("t", { a = { b = print } }) end' \
    ":1: in setup(): thread:set: cannot transfer 'function' to thread"
check_wrong set_cycle 'function setup(thread) local t = {} t.t = t thread:set("t", t) end' \
    ":1: in setup(): thread:set: cannot transfer 'table nested deeper than 32 (or a cycle)' to thread"
check_wrong addr_string 'function setup(thread) thread.addr = "127.0.0.1:80" end' \
    ':1: in setup(): thread.addr: "127.0.0.1:80" is a string, not an address (take one from wrk.lookup)'
check_wrong thread_field 'function setup(thread) thread.foo = 1 end' ":1: in setup(): cannot set 'foo' on thread"
check_wrong addr_in_init 'function init(args) wrk.thread.addr = 8080 end' \
    ":1: in init(): thread.addr: a number is not an address (take one from wrk.lookup)"
WRONG_ARGS="--source 127.0.0.1" check_wrong addr_family 'function init(args) wrk.thread.addr = wrk.lookup("::1", "80")[1] end' \
    ":1: in init(): thread.addr: [::1]:80 is IPv6, but --source's addresses are IPv4"
check_wrong get_function \
    'local ts = {} function setup(t) ts[#ts + 1] = t end function init() f = print end function done() ts[1]:get("f") end' \
    ":1: in done(): thread:get: cannot transfer 'function' from thread"
check_eq "$(tstat received)" "$sent" "errors before the run: nothing sent"

# thread:set in setup, thread:get in done: values, nested tables and the
# thread's own results cross between the states as copies.
cat > "$S/threads.lua" <<'LUA'
local s = {}
local threads = {}
function s.setup(thread)
  thread:set("cfg", { path = "/status/20" .. (thread.id + 1), nested = { n = thread.id, flag = true } })
  threads[#threads + 1] = thread
end
function s.init(args)
  assert(cfg.nested.n == volley.thread and cfg.nested.flag == true, "cfg copied")
  assert(wrk.thread.id == volley.thread and tostring(wrk.thread) == "thread " .. volley.thread, "wrk.thread")
  seen, statuses = 0, {}
end
function s.request(conn) return { path = cfg.path } end
function s.response(conn, res)
  seen = seen + 1
  statuses[res.status] = (statuses[res.status] or 0) + 1
end
function s.done(result)
  local total = 0
  for _, t in ipairs(threads) do
    local st = t:get("statuses")
    print(("thread %d (%s) saw %d: %d"):format(t.id, tostring(t), t:get("seen"), st[200 + t.id + 1] or -1))
    total = total + t:get("seen")
  end
  print(("total %d of %d; missing %s"):format(total, result.requests.completed, tostring(threads[1]:get("nothing"))))
end
return s
LUA
runv threads -n 40 -c 2 -t 2 -s "$S/threads.lua" "$url/"
check_eq "$RC" 0 "thread:get/set: exit status"
check_eq "$(jv threads status.202)/$(jv threads status.203)" 20/20 "thread:set: each thread its own value"
check_grep "$T/threads.out" "^thread 1 \(thread 1\) saw 20: 20$" "thread:get: thread 1's results"
check_grep "$T/threads.out" "^thread 2 \(thread 2\) saw 20: 20$" "thread:get: thread 2's results"
check_grep "$T/threads.out" "^total 40 of 40; missing nil$" "thread:get: totals"

# thread:stop() stops that thread only; done() runs after it.
cat > "$S/stop1.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  volley.counter("thread " .. volley.thread)
  if volley.thread == 1 and conn.requests == 19 then wrk.thread:stop() end
end
return s
LUA
runv stop1 -n 200 -c 2 -t 2 -s "$S/stop1.lua" "$url/"
check_eq "$RC" 0 "thread:stop(): exit status"
adds_up stop1
check_num "$(jv stop1 metrics.counters.thread\ 1)" "<=" 22 "thread:stop(): thread 1 stops"
check_eq "$(jv stop1 metrics.counters.thread\ 2)" 100 "thread:stop(): thread 2 goes on"

# An interrupted run: the report, then done(). The first response creates
# a file, so SIGINT comes once the run is under way.
cat > "$S/intr.lua" <<'LUA'
local s, marker = {}, nil
function s.init(args) marker = args[1] end
function s.response(conn, res)
  if marker then io.open(marker, "w"):close(); marker = nil end
end
function s.done(r) print("done after interrupt", r.requests.completed > 0) end
return s
LUA
timeout -s KILL 30 "$VOLLEY" -d 20s -c 2 -t 1 -s "$S/intr.lua" "$url/" -- "$T/intr.started" > "$T/intr.out" 2> "$T/intr.err" &
vpid=$!
for _ in $(seq 1 200); do [ -e "$T/intr.started" ] && break; sleep 0.05; done
signal_wait INT "$vpid"
check_eq "$RC" 105 "interrupted: exit status"
check_grep "$T/intr.out" "Cut off: .* when the run was interrupted" "interrupted: the report"
check_grep "$T/intr.out" "^done after interrupt[[:space:]]true$" "interrupted: done() runs"
# thread:stop() from setup() stops that thread before it sends anything;
# from done() (the workers are gone) it does nothing, and nothing breaks.
cat > "$S/stopsetup.lua" <<'LUA'
local threads = {}
function setup(t)
  threads[#threads + 1] = t
  if t.id == 2 then t:stop() end
end
function done() for _, t in ipairs(threads) do t:stop() end print("stopped in done") end
LUA
runv stopsetup -n 100 -c 2 -t 2 -s "$S/stopsetup.lua" "$url/"
check_eq "$RC" 0 "thread:stop() in setup/done: exit status"
check_eq "$(jv stopsetup _adds_up)" yes "thread:stop() in setup: accounting adds up"
check_ge "$(jv stopsetup requests.completed)" 1 "thread:stop() in setup: thread 1 ran"
check_eq "$(( $(jv stopsetup requests.started) <= 52 ))" 1 "thread:stop() in setup: thread 2 sent nothing"
check_grep "$T/stopsetup.out" "^stopped in done$" "thread:stop() in done"
# A scenario that forgot `return s`, or wrote its hook as a global
# function named like a scenario-only hook, is refused with the fix (it
# used to run the default GET / and exit 0); a wrk script that returns
# nothing and only sets wrk fields still runs; a chunk's own error is its own.
printf 'local s = {}\nfunction s.user(u) u:get("/") end\n' > "$S/noreturn.lua"
printf 'function user(u) u:get("/") end\n' > "$S/globaluser.lua"
printf 'local s = {}\nfunction s.request() return wrk.format() end\n' > "$S/noreturn_req.lua"
printf 'wrk.method = "POST"\nlocal plain = { 1, 2 }\n' > "$S/wrkonly.lua"
runv noreturn -n 3 -s "$S/noreturn.lua" "$url/"
check_eq "$RC" 1 "no return s: exit status"
check_grep "$T/noreturn.err" "noreturn.lua: the script defines s.user\(\) but returns nothing: end it with .return s." "no return s: the line"
runv noreturn_req -n 3 -s "$S/noreturn_req.lua" "$url/"
check_grep "$T/noreturn_req.err" "defines s.request\(\) but returns nothing" "no return s (request): the line"
runv globaluser -n 3 -s "$S/globaluser.lua" "$url/"
check_eq "$RC" 1 "global user(): exit status"
check_grep "$T/globaluser.err" "user\(\) is a global function, but a scenario's hooks are fields of the table the script returns" "global user(): the line"
runv wrkonly -n 3 -s "$S/wrkonly.lua" "$url/"
check_eq "$RC" 0 "wrk fields only: exit status"
check_eq "$(jv wrkonly requests.completed)" 3 "wrk fields only: runs"
finish
