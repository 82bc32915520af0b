# Helpers for the stream tests (tests/integration/conn/test_stream_*.sh), on top of
# lib.sh and tls_lib.sh (source it after both): volley runs
# tests/integration/lua/stream_log.lua (OpenAI-style streaming POSTs, each
# with its own request id; every event counted, and with STREAM_OUT one line
# per event), against volley-target's /v1 endpoints or llm_server.py, whose
# truth logs (--llm-log) py/stream_check.py compares with volley's.

STREAM_DIR="$(dirname "${BASH_SOURCE[0]}")"
STREAM_LUA=$STREAM_DIR/lua/stream_log.lua
STREAM_PY=/usr/bin/python3   # aiohttp is Debian's

# stop_wait PID: SIGTERM, then wait for it (its logs are complete then).
stop_wait() { kill "$1" 2> /dev/null || true; wait "$1" 2> /dev/null || true; }

# start_llm_py [llm_server.py options]: the aiohttp server on a free port;
# sets PORT and TPID (in TARGET_PIDS). Bounded by --max-seconds 100.
start_llm_py() {
    "$STREAM_PY" -c 'import aiohttp' 2> /dev/null || { echo "python3-aiohttp is missing" >&2; exit 1; }
    local pf="$T/pyport.$RANDOM$RANDOM"
    "$STREAM_PY" "$STREAM_DIR/py/llm_server.py" --port 0 --port-file "$pf" --max-seconds 100 "$@" \
        > "$T/llm_py.out" 2>&1 &
    TPID=$!
    TARGET_PIDS+=("$TPID")
    wait_port_file "$pf" "$TPID" || { echo "llm_server.py did not start: $(tail -3 "$T/llm_py.out")" >&2; exit 1; }
    PORT=$(cat "$pf")
}

# run_stream NAME KNOBS [volley args]: run_volley NAME with stream_log.lua,
# STREAM_KNOBS=KNOBS and its client log in $T/NAME.cl.
run_stream() {
    local name=$1 knobs=$2
    shift 2
    STREAM_OUT=$T/$name.cl STREAM_KNOBS=$knobs run_volley "$name" -s "$STREAM_LUA" "$@"
}

# counter NAME KEY: a custom counter of run NAME's JSON (metrics.counters).
counter() { jget "$T/$1.json" "metrics.counters.$2"; }

# truth_events TRUTH: the event lines (e) of a truth log.
truth_events() { grep -c '^e ' "$1" || true; }

# check_stream NAME TRUTH [stream_check.py options]: stream_check.py on
# run NAME's client log; its output in $T/NAME.chk (printed); sets
# CHECKED_EVENTS to the events it matched.
check_stream() {
    local name=$1 truth=$2
    shift 2
    if "$STREAM_PY" "$STREAM_DIR/py/stream_check.py" "$truth" "$T/$name.cl" "$@" > "$T/$name.chk" 2>&1; then ok; else
        fail "$name: against the truth log: $(grep -m 5 FAIL "$T/$name.chk" || tail -n 3 "$T/$name.chk")"; fi
    sed "s/^/$name: /" "$T/$name.chk" | grep -v FAIL || true
    CHECKED_EVENTS=$(awk '$1 == "requests" { print $4 }' "$T/$name.chk")
}

# check_json_stream NAME KEY EXPECTED WHAT: the JSON's stream.KEY, once the
# report has the stream figures (a JSON without "stream" skips the check).
check_json_stream() {
    if python3 -c 'import json,sys; sys.exit(0 if "stream" in json.load(open(sys.argv[1])) else 1)' "$T/$1.json"; then
        check_eq "$(jget "$T/$1.json" "stream.$2")" "$3" "$4"
    fi
}

# check_json_ttft NAME TRUTH N: the JSON's stream.ttft (volley's own, from
# the token marks) has N streams, and its smallest is at least the truth
# log's smallest (first token write - request read): each stream's TTFT is
# at least its own truth's (the histogram keeps 3 significant digits: 0.1 %
# of slack).
check_json_ttft() {
    python3 - "$STREAM_DIR/py" "$T/$1.json" "$2" "$3" <<'PY' && ok || fail "$1: JSON stream.ttft against the truth log"
import json, sys
sys.path.insert(0, sys.argv[1])
import llm_truth
h = json.load(open(sys.argv[2]))["stream"]["ttft"]
truth = [r.ttft_ns() for r in llm_truth.read_truth(sys.argv[3]) if r.ttft_ns() is not None]
assert h["count"] == int(sys.argv[4]), h["count"]
assert h["min"] * 1000 >= min(truth) * 0.999, (h["min"], min(truth))
print("JSON ttft min %.1f us >= truth's min %.1f us" % (h["min"], min(truth) / 1e3))
PY
}
