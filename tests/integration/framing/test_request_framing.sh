# Request strings from request() are framed as the server frames them:
# chunked bodies (with a blank line inside the chunk data), Content-Length
# bodies and bodiless requests, alone and pipelined. The client's count of
# requests per string must equal the server's, or volley waits --timeout
# for responses that never come.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup

# check_run NAME PER_CALL [volley args]: runv, then checks exit status 0, no
# failures and no timeouts, that the server received as many requests as the
# client started, and that each request() call counted PER_CALL requests.
check_run() {
    local name=$1 per=$2 before after
    shift 2
    before=$(tstat received)
    runv "$name" "$@"
    after=$(tstat received)
    check_eq "$RC" 0 "$name: exit status"
    adds_up "$name"
    check_eq "$(jv "$name" requests.failed)/$(jv "$name" errors.timeout)" 0/0 "$name: failed/timeout"
    check_eq "$(jv "$name" requests.completed)" "$(jv "$name" requests.started)" "$name: all completed"
    check_eq "$((after - before))" "$(jv "$name" requests.started)" "$name: server's count = client's"
    check_eq "$(jv "$name" requests.started)" "$(($(jv "$name" metrics.counters.calls) * per))" \
        "$name: $per requests per request() call"
}

# batch_script NAME: writes $S/NAME.lua, a scenario whose request() counts
# its calls and returns `batch`, a string defined by the Lua on stdin.
batch_script() {
    {
        cat
        printf '%s\n' 'local s = {}' 'function s.request()' '  volley.counter("calls")' '  return batch' 'end' \
            'return s'
    } > "$S/$1.lua"
}

# One POST with a chunked body whose chunk data holds a whole request and
# its blank line, a chunk extension, and a trailer. Counted as 3 before,
# volley waited --timeout for responses that never came.
batch_script chunked <<'LUA'
local batch = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" ..
  "5;ext=1\r\nhello\r\n12\r\nGET / HTTP/1.1\r\n\r\n\r\n0\r\nX-Trailer: t\r\n\r\n"
LUA
check_run chunked 1 -n 3 -c 1 -t 1 --timeout 5s -s "$S/chunked.lua" "$url/"
check_eq "$(jv chunked requests.completed)" 3 "chunked: 3 completed"

# Two such requests pipelined in one string: 2 per call, on the client and
# the server.
batch_script chunked2 <<'LUA'
local one = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" ..
  "12\r\nGET / HTTP/1.1\r\n\r\n\r\n0\r\n\r\n"
local batch = one .. one
LUA
check_run chunked2 2 -n 6 -c 2 -t 1 --timeout 5s -s "$S/chunked2.lua" "$url/"
check_eq "$(jv chunked2 requests.completed)" 6 "chunked2: 6 completed"

# A mixed batch: chunked, Content-Length (with a blank line in its body),
# no body.
batch_script mixed <<'LUA'
local batch = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\r\n\r\n\r\n0\r\n\r\n" ..
  "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nab\r\n\r\n" ..
  "GET /c HTTP/1.1\r\nHost: x\r\n\r\n"
LUA
check_run mixed 3 -n 9 -c 1 -t 1 --timeout 5s -s "$S/mixed.lua" "$url/"
check_eq "$(jv mixed requests.completed)" 9 "mixed: 9 completed"

# A request that asks to close does not end the count: the request behind it
# was sent, and fails when the server closes (the server reads no further).
batch_script close <<'LUA'
local batch = "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
LUA
before=$(tstat received)
runv close -n 2 -c 1 -t 1 --timeout 5s -s "$S/close.lua" "$url/"
after=$(tstat received)
adds_up close
check_eq "$(jv close requests.started)/$(jv close requests.completed)" 2/1 "close: started/completed"
check_eq "$(jv close errors.read)/$(jv close errors.timeout)" 1/0 "close: the request behind fails as a read error"
check_eq "$((after - before))" 1 "close: the server answers the first only"

finish
