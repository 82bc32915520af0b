#!/usr/bin/env bash
# Send lag of the open model (-R) on loopback: how late volley writes each
# request after its scheduled time, at 1000/s and at 20000/s, against
# volley-target (an instant reply). A report, not a pass/fail test.
#
#   bash tests/bench/sendlag.sh            # BENCH_SECONDS (10) per rate
#
# Env: BENCH_SECONDS (10), VOLLEY (<repo>/build/volley), VOLLEY_TARGET
# (<repo>/build/volley-target), RATES ("1000 20000"), CONNS (50), THREADS (2).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VOLLEY=${VOLLEY:-$ROOT/build/volley}
VOLLEY_TARGET=${VOLLEY_TARGET:-$ROOT/build/volley-target}
SECS=${BENCH_SECONDS:-10}
RATES=${RATES:-"1000 20000"}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
for bin in "$VOLLEY" "$VOLLEY_TARGET"; do
    [[ -x $bin ]] || { echo "sendlag: $bin is not built (make build)" >&2; exit 1; }
done
TMP=$(mktemp -d)
TPID=""
cleanup() { [[ -n $TPID ]] && kill "$TPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
"$VOLLEY_TARGET" --quiet --max-seconds $((SECS * 4 + 30)) --port-file "$TMP/port" > /dev/null &
TPID=$!
for _ in $(seq 1 100); do [[ -s $TMP/port ]] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")

echo "## Send lag of -R on loopback (${SECS}s per rate, -c $CONNS -t $THREADS, volley-target, $(nproc) cores)"
echo
echo "| rate | sent | send lag p50 | p90 | p99 | p99.9 | max | latency p99 | rate sent |"
echo "|---|---|---|---|---|---|---|---|---|"
for rate in $RATES; do
    "$VOLLEY" -q -R "$rate" -d "${SECS}s" -c "$CONNS" -t "$THREADS" --json "$TMP/r.json" \
        "http://127.0.0.1:$PORT/" || true
    python3 - "$TMP/r.json" "$rate" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lag, lat = r["sendlag"], r["latency"]
us = lambda v: "%.1f us" % v if v < 1000 else "%.2f ms" % (v / 1000)
print("| %s/s | %d | %s | %s | %s | %s | %s | %s | %.1f/s |" % (
    sys.argv[2], r["requests"]["started"], us(lag["p50"]), us(lag["p90"]), us(lag["p99"]), us(lag["p99.9"]),
    us(lag["max"]), us(lat["p99"]), r["rate"]["sent_per_sec"]))
PY
done
