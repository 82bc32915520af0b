# Shared helpers for the integration tests: run the real volley binary against
# our test target server on a loopback port, and compare what the client
# counted with what the server counted. Sourced by tests/integration/test_*.sh.
# Needs VOLLEY and VOLLEY_TARGET (ctest sets both).
set -euo pipefail
: "${VOLLEY:?VOLLEY must point to the volley binary}"
: "${VOLLEY_TARGET:?VOLLEY_TARGET must point to the volley-target binary}"

T=$(mktemp -d "${TMPDIR:-/tmp}/volley-test.XXXXXX")
TARGET_PIDS=()
cleanup() {
    local pid
    for pid in "${TARGET_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${TARGET_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT

FAILS=0
CHECKS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
ok() { CHECKS=$((CHECKS + 1)); }
# check_eq ACTUAL EXPECTED WHAT
check_eq() { if [ "$1" == "$2" ]; then ok; else fail "$3: expected '$2', got '$1'"; fi; }
# check_rate_rc WHAT: RC is 0, or 3 (-R's rate not met): a run whose
# point is what was sent and counted, not how fast a loaded machine sent it.
check_rate_rc() { if [ "$RC" = 0 ] || [ "$RC" = 3 ]; then ok; else fail "$1: expected exit status 0 or 3, got $RC"; fi; }
# check_ge ACTUAL MIN WHAT
check_ge() { if [ "$1" -ge "$2" ]; then ok; else fail "$3: expected >= $2, got $1"; fi; }
# check_grep FILE PATTERN WHAT
check_grep() { if grep -qE -- "$2" "$1"; then ok; else fail "$3: no /$2/ in $(head -c 600 "$1")"; fi; }
finish() {
    if [ "$FAILS" -gt 0 ]; then
        echo "$(basename "$0"): $FAILS of $((CHECKS + FAILS)) checks failed" >&2
        exit 1
    fi
    echo "$(basename "$0"): $CHECKS checks passed"
}

# wait_port_file FILE PID: waits up to 5 s for a server (PID) to write its
# port to FILE; returns non-zero if it did not (or died first).
wait_port_file() {
    local i
    for i in $(seq 1 250); do
        [ -s "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || break
        sleep 0.02
    done
    [ -s "$1" ]
}

# start_target [volley-target options]: starts a server on a free loopback
# port; sets PORT and TPID. Bounded by --max-seconds so nothing outlives a test.
start_target() {
    local pf="$T/port.$RANDOM$RANDOM"
    "$VOLLEY_TARGET" --quiet --max-seconds 90 --port-file "$pf" "$@" > /dev/null &
    TPID=$!
    TARGET_PIDS+=("$TPID")
    wait_port_file "$pf" "$TPID" || { echo "volley-target did not start" >&2; exit 1; }
    PORT=$(cat "$pf")
}

stop_target() { kill "$TPID" 2>/dev/null || true; wait "$TPID" 2>/dev/null || true; }

# signal_wait SIGNAL PID: sends SIGNAL (INT, TERM, KILL) to PID, a job of
# this shell, and waits for it to end; its exit status in RC.
signal_wait() {
    kill "-$1" "$2"
    RC=0
    wait "$2" 2>/dev/null || RC=$?
}

# target_stat KEY [HOST]: one counter from the server's /__stats.
target_stat() {
    local host=${2:-127.0.0.1}
    python3 - "$host" "$PORT" "$1" <<'PY'
import json, socket, sys
host, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.create_connection((host, port), timeout=5)
s.sendall(b"GET /__stats HTTP/1.0\r\nHost: x\r\n\r\n")
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
body = data.split(b"\r\n\r\n", 1)[1]
print(json.loads(body)[key])
PY
}

# jget FILE PATH: a value from a JSON file; PATH like requests.completed or status.200
jget() {
    python3 - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k, 0) if isinstance(v, dict) else 0
print("null" if v is None else v)
PY
}

# run_volley NAME [volley args]: runs volley with --json $T/NAME.json, stdout
# in $T/NAME.out, stderr in $T/NAME.err; sets RC. Never longer than 60 s.
run_volley() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" --json "$T/$name.json" "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

# check_no_response NAME WHAT DETAIL: run NAME completed no response: exit
# status 1, and the last line of $T/NAME.err says so, with DETAIL (an ERE,
# such as "6 requests failed: connect 6") in its parentheses.
check_no_response() {
    check_eq "$RC" 1 "$2: exit status (no response completed)"
    if tail -n 1 "$T/$1.err" | grep -qE -- "^volley: no response completed \(($3)\)$"; then ok; else
        fail "$2: no /volley: no response completed ($3)/ at the end of stderr: $(tail -n 2 "$T/$1.err")"; fi
}

# check_adds_up NAME: started = completed + failed + cut_off, and failed is
# the sum of the error kinds, and the status counts sum to completed +
# validation (a response a script failed still had its status; no test
# sends a head larger than --max-body, which would have none).
check_adds_up() {
    python3 - "$T/$1.json" <<'PY' || fail "$1: numbers do not add up"
import json, sys
r = json.load(open(sys.argv[1]))
q = r["requests"]
assert q["started"] == q["completed"] + q["failed"] + q["cut_off"], q
assert q["failed"] == sum(r["errors"].values()), (q, r["errors"])
assert q["completed"] + r["errors"]["validation"] == sum(r["status"].values()), (q, r["errors"], r["status"])
for h in ("latency", "connect", "waiting"):
    assert r[h]["count"] == q["completed"], (h, r[h], q)
PY
    ok
}
