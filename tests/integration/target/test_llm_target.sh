# The OpenAI-compatible streaming servers the LLM tests measure against:
# volley-target's POST /v1/chat/completions and /v1/completions, and the
# independent aiohttp server tests/integration/py/llm_server.py, both
# checked by llm_check.py (a raw-socket client: event sequence and JSON,
# framing, every knob, keep-alive, TLS, 200 concurrent streams) and their
# truth logs (--llm-log) against what the client read, through
# llm_truth.py, whose own reading and comparing is checked on hand-made
# logs first. Only orderings, counts and the lower bounds a knob
# guarantees are asserted, never a duration.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
PY=/usr/bin/python3
D="$(dirname "$TESTLIB")/py"
"$PY" -c 'import aiohttp' 2> /dev/null || { echo "python3-aiohttp is missing (make test-deps installs it)" >&2; exit 1; }

# stop_wait PID: SIGTERM, then wait for it (its logs are complete then).
stop_wait() { kill "$1" 2> /dev/null || true; wait "$1" 2> /dev/null || true; }

# check_run NAME [llm_check.py run args]: the run step; its output in $T/NAME.run
check_run() {
    local name=$1
    shift
    if timeout -s KILL 100 "$PY" "$D/llm_check.py" run --out "$T/$name.obs" "$@" > "$T/$name.run" 2>&1; then ok; else
        fail "$name: $(grep -m 8 -A 3 FAIL "$T/$name.run" || tail -n 5 "$T/$name.run")"; fi
}
# check_verify NAME [llm_check.py verify args]
check_verify() {
    local name=$1
    shift
    if "$PY" "$D/llm_check.py" verify --obs "$T/$name.obs" "$@" > "$T/$name.ver" 2>&1; then ok; else
        fail "$name (truth log): $(grep -m 8 FAIL "$T/$name.ver" || tail -n 5 "$T/$name.ver")"; fi
}

# ---- llm_truth.py on hand-made logs -----------------------------------------
cat > "$T/truth.log" <<'EOF'
s 5000000 6000000
q r1 1 1000000
e r1 0 1100000 180
e r1 1 2000000 170
e r1 2 2500000 170
e r1 3 3500000 170
e r1 f 3500000 160
e r1 d 3500000 14
z r1 3500000 done
q r2 2 1200000
e r2 1 1700000 170
z r2 1800000 client-gone
q r3 1 4000000
z r3 4000010 error
EOF
# the client saw r1's tokens 1.5, 2.0 and 3.1 ms after it started r1 (truth:
# 1.0, 1.5, 2.5 ms after q), and r9, which the server never logged
printf 'r1 1 1500\nr1 2 2000\nr1 3 3100\nr1 f 3100\nr9 1 10\n' > "$T/client.log"
"$PY" - "$D" "$T/truth.log" "$T/client.log" <<'PY' && ok || fail "llm_truth.py on hand-made logs"
import sys
sys.path.insert(0, sys.argv[1])
import llm_truth as lt
w = []
reqs = lt.read_truth(sys.argv[2], w)
assert w == [(5000000, 6000000)], w
assert [r.id for r in reqs] == ["r1", "r2", "r3"]
r1, r2, r3 = reqs
assert r1.ttft_ns() == 1000000 and r1.gaps_ns() == [500000, 1000000], (r1.ttft_ns(), r1.gaps_ns())
assert r1.summary()["tokens"] == 3 and r1.how == "done" and r1.summary()["events"] == ["0", "1", "2", "3", "f", "d"]
assert r2.how == "client-gone" and r2.ttft_ns() == 500000 and r3.ttft_ns() is None and r3.how == "error"
rows, missing = lt.compare(reqs, lt.read_client(sys.argv[3]))
assert missing == ["r2", "r9"], missing
assert rows == [{"id": "r1", "ttft_err_ns": 500000, "itl_err_ns": [0, 100000]}], rows
rep = lt.report(reqs, rows)
assert rep["ttft_err_ns"] == {"n": 1, "p50": 500000, "p99": 500000, "max": 500000}, rep["ttft_err_ns"]
assert rep["itl_err_ns"] == {"n": 2, "p50": 0, "p99": 100000, "max": 100000}, rep["itl_err_ns"]
assert lt.percentiles(range(1, 101)) == {"n": 100, "p50": 50, "p99": 99, "max": 100}
# a line that is not a truth log line is named
open(sys.argv[2], "a").write("e r1 oops\n")
try:
    lt.read_truth(sys.argv[2])
    raise AssertionError("no error")
except ValueError as e:
    assert ":15: not a truth log line" in str(e), e
PY
RC=0
"$PY" "$D/llm_truth.py" "$T/truth.log" > "$T/lt.out" 2> "$T/lt.err" || RC=$?
check_eq "$RC:$(cat "$T/lt.err")" "2:llm_truth: $T/truth.log:15: not a truth log line: 'e r1 oops'" "llm_truth.py CLI: a bad line"
sed -i '$d' "$T/truth.log"
"$PY" "$D/llm_truth.py" "$T/truth.log" --client "$T/client.log" > "$T/lt.out"
check_grep "$T/lt.out" '^r1 conn=1 tokens=3 ttft_ns=1000000 how=done$' "llm_truth.py CLI: per request"
check_grep "$T/lt.out" '^itl_err_ns: n=2 p50=0 p99=100000 max=100000$' "llm_truth.py CLI: ITL errors"

# ---- volley-target, plain TCP: every case, then its truth log ---------------
start_target --llm-log "$T/c.truth" --stats-file "$T/c.stats"
check_run c --port "$PORT"
stop_wait "$TPID"
check_verify c --truth "$T/c.truth" --stats "$T/c.stats"

# ---- volley-target over TLS ---------------------------------------------------
tls_certs
start_target --llm-log "$T/tls.truth" --stats-file "$T/tls.stats" --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY"
check_run tls --port "$PORT" --tls --cases chat,knobs,endless,framing,keepalive,concurrent --concurrent 50
stop_wait "$TPID"
check_verify tls --truth "$T/tls.truth" --stats "$T/tls.stats"

# ---- --llm-* flags: the server's defaults, with curl ---------------------------
start_target --llm-tokens 4 --llm-usage on --llm-framing length --llm-gap-ms 0.5 --llm-event-bytes 300 \
    --llm-log "$T/f.truth" --stats-file "$T/f.stats"
curl -s -D "$T/f.head" -o "$T/f.body" --max-time 10 "http://127.0.0.1:$PORT/v1/completions" \
    -H 'X-Request-Id: flags-1' -d '{"stream":true,"prompt":"a b c d e f"}'
check_grep "$T/f.head" '^Content-Length: [0-9]+' "--llm-framing length: Content-Length"
check_eq "$(grep -c '"text":"tok' "$T/f.body")" 4 "--llm-tokens 4: token events"
check_grep "$T/f.body" '"usage":\{"prompt_tokens":6,"total_tokens":10,"completion_tokens":4\}' "--llm-usage on: usage without asking"
check_eq "$(grep '"text":"tok' "$T/f.body" | awk '{ print length($0) + 2 }' | sort -u)" 300 "--llm-event-bytes 300"
# the request field wins over the flag
curl -s -o "$T/f2.body" --max-time 10 "http://127.0.0.1:$PORT/v1/completions" \
    -H 'X-Request-Id: flags-2' -d '{"stream":true,"prompt":"x","max_tokens":2,"stream_options":{"include_usage":false}}'
check_eq "$(grep -c '"text":"tok' "$T/f2.body")" 2 "max_tokens wins over --llm-tokens"
check_grep "$T/f2.body" '"usage"' "--llm-usage on wins over include_usage false"
stop_wait "$TPID"
check_eq "$(grep -c '^e flags-1 [1-4] ' "$T/f.truth")" 4 "truth log: token events of flags-1"
check_eq "$(awk '$1 == "e" && $2 == "flags-1" && $3 ~ /^[0-9]+$/ { print $5 }' "$T/f.truth" | sort -u)" 300 "truth log: event bytes"
check_grep "$T/f.stats" '"llm_streams":2,"llm_done":2,"llm_events":6,"llm_cut":0}$' "--llm-* flags: counters"

# ---- --llm-stall-all-at-ms: every stream pauses in one window -------------------
start_target --llm-stall-all-at-ms 500 --llm-stall-all-ms 400 --llm-log "$T/sa.truth"
check_run sa --port "$PORT" --cases stall_all
stop_wait "$TPID"
check_verify sa --truth "$T/sa.truth"
check_grep "$T/sa.truth" '^s [0-9]+ [0-9]+$' "stall-all: the window in the truth log"

# ---- a server without /v1 traffic keeps its counters as they were --------------
start_target --stats-file "$T/n.stats"
curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_grep "$T/n.stats" '"ignored":0}$' "no /v1 request: no llm_* counters"

# ---- no allocation per event: 10 and 3000 tokens allocate the same ---------------
# (malloc_count.c counts the server's calls; sanitizer builds replace the allocator)
allocs() {
    local f="$T/malloc.$1"
    MALLOC_COUNT_FILE="$f" LD_PRELOAD="$MALLOC_COUNT" "$VOLLEY_TARGET" --quiet --max-seconds 30 \
        --port-file "$T/mport.$1" --llm-log "$T/m.truth" --llm-event-bytes 200 > /dev/null &
    local pid=$!
    TARGET_PIDS+=("$pid")
    wait_port_file "$T/mport.$1" "$pid" || { echo "volley-target did not start" >&2; exit 1; }
    curl -s -o "$T/m.body" --max-time 20 "http://127.0.0.1:$(cat "$T/mport.$1")/v1/chat/completions" \
        -d "{\"stream\":true,\"max_tokens\":$1,\"user\":\"m\"}"
    stop_wait "$pid"
    check_eq "$(grep -c '"content":"tok' "$T/m.body")" "$1" "no-malloc run with $1 tokens"
    read -r _ ALLOCS < "$f"
}
if [ "${SANITIZED:-OFF}" != ON ]; then
    allocs 10
    few=$ALLOCS
    allocs 3000
    if [ "$ALLOCS" -le $((few + 5)) ]; then ok; else
        fail "allocations grow with the events: $few for 10 tokens, $ALLOCS for 3000"; fi
fi

# ---- bad options: one line naming the option, exit 2 ---------------------------
bad_option() {
    local want=$1
    shift
    RC=0
    "$VOLLEY_TARGET" --quiet --max-seconds 2 "$@" > /dev/null 2> "$T/bad.err" || RC=$?
    check_eq "$RC:$(head -c 300 "$T/bad.err")" "2:volley-target: $want" "bad option $*"
}
bad_option "bad value for --llm-gap-ms: 'x' (want a number from 0 to 3.6e+06)" --llm-gap-ms x
bad_option "bad value for --llm-usage: 'maybe' (want on, off or request)" --llm-usage maybe
bad_option "bad value for --llm-framing: 'h2' (want chunked, length or close)" --llm-framing h2
bad_option "--llm-stall-all-at-ms and --llm-stall-all-ms need each other" --llm-stall-all-at-ms 5
bad_option "--llm-stall-at needs --llm-stall-ms" --llm-stall-at 5
bad_option "cannot open --llm-log $T/no/such: No such file or directory" --llm-log "$T/no/such"

# ---- the independent server: llm_server.py (aiohttp) ---------------------------
# start_py [options]: sets PORT and TPID
start_py() {
    local pf="$T/pyport.$RANDOM"
    "$PY" "$D/llm_server.py" --port 0 --port-file "$pf" --max-seconds 90 "$@" > "$T/py.out" 2>&1 &
    TPID=$!
    TARGET_PIDS+=("$TPID")
    wait_port_file "$pf" "$TPID" || { echo "llm_server.py did not start: $(cat "$T/py.out")" >&2; exit 1; }
    PORT=$(cat "$pf")
}
PY_CASES=chat,completion,usage,plain,keepalive,concurrent
start_py --llm-log "$T/py.truth"
check_run py --port "$PORT" --cases "$PY_CASES,knobs"
stop_wait "$TPID"
check_verify py --truth "$T/py.truth"
start_py --llm-log "$T/pytls.truth" --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY"
check_run pytls --port "$PORT" --tls --cases chat,knobs --concurrent 20
stop_wait "$TPID"
check_verify pytls --truth "$T/pytls.truth"

finish
