# Lua scripts (-s): wrk-style and scenario-style request hooks, init(args),
# the wrk table from the command line, and script errors as one line with
# file, line and hook, exit 1.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"
S=$T/scripts
mkdir -p "$S"

# wrk's own example scripts that need no more than request() and the wrk table.
wrk_examples=/usr/share/doc/wrk/examples/scripts
if [ -d "$wrk_examples" ]; then
    run_volley post -n 20 -c 2 -t 2 -s "$wrk_examples/post.lua" "$url/"
    check_eq "$RC" 0 "post.lua: exit status"
    check_eq "$(jget "$T/post.json" status.200)" 20 "post.lua: completed"
    # The POST with its body and headers is longer than the plain GET.
    check_ge "$(jget "$T/post.json" bytes.written)" $((20 * 100)) "post.lua: sends the body"
    run_volley counter -n 30 -c 3 -t 1 -s "$wrk_examples/counter.lua" "$url/"
    check_eq "$(jget "$T/counter.json" status.200)" 30 "counter.lua: completed"
else
    echo "skip: $wrk_examples not installed (Debian wrk)"
fi

# A dynamic path per request, counted by the server by status.
cat > "$S/paths.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", n % 2 == 0 and "/status/201" or "/status/202")
end
LUA
run_volley paths -n 40 -c 2 -t 1 -s "$S/paths.lua" "$url/"
check_adds_up paths
check_eq "$(jget "$T/paths.json" status.201)" 20 "request(): even requests"
check_eq "$(jget "$T/paths.json" status.202)" 20 "request(): odd requests"

# init(args): args[0] is the URL, args[1..] the words after --.
cat > "$S/args.lua" <<'LUA'
function init(args)
  assert(args[0]:match("^http://127%.0%.0%.1:"), "args[0] is the URL")
  wrk.path = "/status/" .. args[1]
end
LUA
run_volley args -n 10 -c 1 -s "$S/args.lua" "$url/" -- 203
check_eq "$(jget "$T/args.json" status.203)" 10 "init(args): script arguments"

# Scenario style: the chunk returns a table; request(conn) may return a table.
cat > "$S/scenario.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  return { path = "/status/" .. (conn.id == 1 and 204 or 205), headers = { ["X-N"] = tostring(conn.n) } }
end
return s
LUA
run_volley scenario -n 20 -c 2 -t 1 -s "$S/scenario.lua" "$url/"
check_adds_up scenario
check_eq $(( $(jget "$T/scenario.json" status.204) + $(jget "$T/scenario.json" status.205) )) 20 "scenario: completed"
check_ge "$(jget "$T/scenario.json" status.204)" 1 "scenario: conn.id 1"

# delay(): each request waits first, so 10 requests on one connection with
# 40 ms each take at least 0.4 s; the wait is not part of the latency.
cat > "$S/delay.lua" <<'LUA'
function delay() return 40 end
LUA
run_volley delay -n 10 -c 1 -t 1 -s "$S/delay.lua" "$url/"
check_adds_up delay
check_eq "$(jget "$T/delay.json" status.200)" 10 "delay(): completed"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/delay.json'))['duration'] >= 0.4 else 1)" \
    && ok || fail "delay(): the run did not wait"
# A server that closes kept-alive connections while volley waits out a
# delay: no request is in flight then, so nothing fails; the next request
# opens a new connection. The server closes right after its response and
# the delay is 400 ms, so the close is there long before the next request
# however the machine schedules the two (delay400.lua).
printf 'function delay() return 400 end\n' > "$S/delay400.lua"
python3 - "$T/closer.port" <<'PY' &
import socket, sys, threading, time
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(16)
open(sys.argv[1], "w").write(str(l.getsockname()[1]))
l.settimeout(20)
def serve(c):
    c.recv(65536)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    c.close()  # at once, although the response said keep-alive
try:
    while True:
        c, _ = l.accept()
        threading.Thread(target=serve, args=(c,)).start()
except OSError:
    pass
PY
closerpid=$!
for _ in $(seq 1 100); do [ -s "$T/closer.port" ] && break; sleep 0.05; done
run_volley closer -n 5 -c 1 -t 1 -s "$S/delay400.lua" "http://127.0.0.1:$(cat "$T/closer.port")/"
kill "$closerpid" 2>/dev/null || true
wait "$closerpid" 2>/dev/null || true
check_eq "$RC" 0 "server closes during a delay: exit status"
check_adds_up closer
check_eq "$(jget "$T/closer.json" status.200)" 5 "server closes during a delay: completed"
check_eq "$(jget "$T/closer.json" requests.failed)" 0 "server closes during a delay: nothing failed"

printf 'function delay() return "soon" end\n' > "$S/baddelay.lua"
run_volley baddelay -n 10 -c 1 -s "$S/baddelay.lua" "$url/"
check_eq "$RC" 1 "delay() returning a string: exit status"
check_grep "$T/baddelay.err" "in delay\(\): returned a string \(milliseconds >= 0 or nil expected\)$" "delay() returning a string: message"

# A hook error stops the run: one line with file, line and hook; exit 1.
cat > "$S/broken.lua" <<'LUA'
local calls = 0
function request()
  calls = calls + 1
  if calls > 5 then
    local t = nil
    return t.x
  end
  return wrk.format()
end
LUA
run_volley broken -n 1000 -c 1 -t 1 -s "$S/broken.lua" "$url/"
check_eq "$RC" 1 "hook error: exit status"
check_grep "$T/broken.err" "^volley: $S/broken\\.lua:6: in request\\(\\): attempt to index local 't' \\(a nil value\\)$" "hook error: message"
check_eq "$(jget "$T/broken.json" requests.completed)" 5 "hook error: what completed is reported"
check_adds_up broken

# Load errors come before anything is printed or sent.
printf 'x = = 1\n' > "$S/syntax.lua"
run_volley syntax -n 5 -s "$S/syntax.lua" "$url/"
check_eq "$RC" 1 "syntax error: exit status"
check_grep "$T/syntax.err" "^volley: $S/syntax\\.lua:1: unexpected symbol near '='$" "syntax error: message"
check_eq "$(wc -c < "$T/syntax.out")" 0 "syntax error: nothing printed"
run_volley nosuch -n 5 -s nosuchscript "$url/"
check_eq "$RC" 1 "unknown bundled script: exit status"
check_grep "$T/nosuch.err" "^volley: -s nosuchscript: no such bundled script$" "unknown bundled script: message"
check_eq "$(target_stat received)" $((20 + 30 + 40 + 10 + 20 + 10 + 5)) "server received every request"
finish
