# A request's --timeout is kept on a connection whatever the requests
# before it on the same connection had: a flow's request with a long
# timeout option, then one with --timeout's default to a path that stalls
# past it fails as a timeout (it used to wait for the earlier request's
# deadline and count as a success), over HTTP/1.1 (volley-target) and over
# HTTP/2 (the python h2 server, every answer delayed).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
S=$T/scripts
mkdir -p "$S"

# FIRST: the first request's path (answered within its long timeout);
# SECOND: the second's (past --timeout). timeout = 10000 is long in
# milliseconds and in seconds alike.
cat > "$S/longshort.lua" <<'EOF2'
local s = {}
function s.user(u)
  local a = u:get(os.getenv("FIRST"), { name = "long", timeout = 10000 })
  u:check(a.status == 200, "the long one answered")
  local b = u:get(os.getenv("SECOND"), { name = "short" })
  u:check(b.failed and b.reason == "timeout", "the short one timed out")
end
return s
EOF2

# check_longshort NAME: one iteration, its first request answered, its
# second failed as a timeout, both checks passed.
check_longshort() {
    check_adds_up "$1"
    check_eq "$(jget "$T/$1.json" requests.completed)" 1 "$1: the long one completed"
    check_eq "$(jget "$T/$1.json" errors.timeout)" 1 "$1: the short one timed out"
    python3 - "$T/$1.json" <<'PY' && ok || fail "$1: checks $(head -c 400 "$T/$1.json")"
import json, sys
r = json.load(open(sys.argv[1]))
for name, c in r["checks"]["names"].items():
    assert c == {"passed": 1, "failed": 0}, (name, c)
assert len(r["checks"]["names"]) == 2, r["checks"]
PY
}

start_target
FIRST=/ SECOND=/delay/3000 run_volley h1 -s "$S/longshort.lua" -c 1 -t 1 --iterations 1 --timeout 1s \
    "http://127.0.0.1:$PORT/"
stop_target
check_longshort h1

if h2_python_ok; then
    H2_DELAY_MS=3000 start_py_h2 ok
    FIRST=/ SECOND=/ run_volley h2 -s "$S/longshort.lua" -c 1 -t 1 --iterations 1 --timeout 1s --no-probe --h2c \
        "$py_h2_url/"
    check_longshort h2
    check_eq "$(h2_stat ok connections)" 1 "h2: both on one connection"
else
    echo "skip: python3-h2 missing"
fi

finish
