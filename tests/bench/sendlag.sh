#!/usr/bin/env bash
# Send lag of the open model (-R) on loopback: how late volley writes each
# request after its scheduled time, at each rate and each --spin, and the
# CPU volley spends for it, against volley-target or a private nginx (an
# instant reply either way). A report, not a pass/fail test.
#
#   bash tests/bench/sendlag.sh                              # -R 1000 and 20000, no spin
#   SPINS="off 50us 200us" ROUNDS=5 bash tests/bench/sendlag.sh
#   TARGET=nginx RATES="1000 2000 20000" SPINS="off 50us 200us" ROUNDS=5 BENCH_SECONDS=5 \
#       bash tests/bench/sendlag.sh
#
# Runs are interleaved (round 1 of every case, then round 2, ...), so that
# a slow spell of a shared machine does not land on one case only; each
# figure is the median over the rounds, and the p50 and p99 columns give
# the range over the rounds after it. CPU is user+sys of the volley process
# (getrusage of the child), per second of wall time of the run and per
# request sent; the user/sys split is left out, as this VM's tick-based
# accounting puts the same spin now in one, now in the other. "load" is the
# 1-minute load average as each run started (median): what else ran.
#
# Env: BENCH_SECONDS (10) per run, ROUNDS (1), RATES ("1000 20000"), SPINS
# ("off"; e.g. "off 50us 200us"), CONNS (50), THREADS (2), TARGET
# (volley-target or nginx), VOLLEY (<repo>/build/volley), VOLLEY_TARGET
# (<repo>/build/volley-target), NGINX (nginx on PATH or /usr/sbin/nginx).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/tests/bench/nginx_lib.sh"
VOLLEY=${VOLLEY:-$ROOT/build/volley}
VOLLEY_TARGET=${VOLLEY_TARGET:-$ROOT/build/volley-target}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
SECS=${BENCH_SECONDS:-10}
ROUNDS=${ROUNDS:-1}
RATES=${RATES:-"1000 20000"}
SPINS=${SPINS:-off}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
TARGET=${TARGET:-volley-target}
[[ -x $VOLLEY ]] || { echo "sendlag: $VOLLEY is not built (make build)" >&2; exit 1; }
case $TARGET in
volley-target) [[ -x $VOLLEY_TARGET ]] || { echo "sendlag: $VOLLEY_TARGET is not built" >&2; exit 1; } ;;
nginx) [[ -x $NGINX ]] || { echo "sendlag: no nginx (Debian package nginx-light)" >&2; exit 1; } ;;
*) echo "sendlag: TARGET is volley-target or nginx, not $TARGET" >&2; exit 1 ;;
esac
TMP=$(mktemp -d)
TPID=""
cleanup() { [[ -n $TPID ]] && kill "$TPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# Every run is bounded: -d, plus --timeout for what is in flight.
RUNS=$(($(wc -w <<< "$RATES") * $(wc -w <<< "$SPINS") * ROUNDS))
MAX_SECONDS=$((RUNS * (SECS + 3) + 60))

if [[ $TARGET == volley-target ]]; then
    "$VOLLEY_TARGET" --quiet --max-seconds "$MAX_SECONDS" --port-file "$TMP/port" > /dev/null &
    TPID=$!
    for _ in $(seq 1 100); do [[ -s $TMP/port ]] && break; sleep 0.05; done
    PORT=$(cat "$TMP/port")
else
    # One nginx process as in bench.sh: everything inside $TMP, its temp
    # directories too (the default ones need root).
    mkdir -p "$TMP/nginx"
    temp=$(nginx_temp_paths "$NGINX" "$TMP/nginx")
    for _ in 1 2 3 4 5; do
        PORT=$((20000 + RANDOM % 12000))
        cat > "$TMP/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    $temp
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    server {
        listen 127.0.0.1:$PORT;
        location / { return 200 "hello world"; }
    }
}
EOF
        timeout -k 5 "$MAX_SECONDS" "$NGINX" -p "$TMP/nginx/" -c "$TMP/nginx/nginx.conf" \
            -e "$TMP/nginx/error.log" < /dev/null > "$TMP/nginx/stderr" 2>&1 &
        TPID=$!
        for _ in $(seq 50); do
            kill -0 "$TPID" 2>/dev/null || break
            (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break 2
            sleep 0.1
        done
        kill "$TPID" 2>/dev/null || true
        wait "$TPID" 2>/dev/null || true
        TPID=""
    done
    [[ -n $TPID ]] || { cat "$TMP/nginx/error.log" "$TMP/nginx/stderr" >&2; echo "sendlag: nginx would not start" >&2; exit 1; }
fi

# run RATE SPIN: one volley run; appends a line of figures to $TMP/runs.
run() {
    local rate=$1 spin=$2 args=()
    [[ $spin != off ]] && args=(--spin "$spin")
    python3 - "$TMP/r.json" "$rate" "$spin" "$VOLLEY" -q -R "$rate" -d "${SECS}s" -c "$CONNS" -t "$THREADS" \
        "${args[@]}" --json "$TMP/r.json" "http://127.0.0.1:$PORT/" >> "$TMP/runs" <<'PY'
import json, os, resource, subprocess, sys, time
out, rate, spin, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
load = os.getloadavg()[0]  # others' work on a shared machine shows here
t0 = time.monotonic()
subprocess.run(cmd, timeout=600)  # exit 3 (rate not met) still has a report
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
r = json.load(open(out))
lag, lat = r["sendlag"], r["latency"]
print(json.dumps({"rate": rate, "spin": spin, "sent": r["rate"]["sent"], "sent_per_sec": r["rate"]["sent_per_sec"],
                  "lag": {k: lag[k] for k in ("p50", "p90", "p99", "p99.9", "max")},
                  "lat": {k: lat[k] for k in ("p50", "p99")},
                  "cpu": ru.ru_utime + ru.ru_stime, "wall": wall, "load": load}))
PY
}

: > "$TMP/runs"
for ((round = 1; round <= ROUNDS; round++)); do
    for rate in $RATES; do
        for spin in $SPINS; do
            run "$rate" "$spin"
        done
    done
done

echo "## Send lag of -R on loopback (${SECS}s per run, $ROUNDS round(s), -c $CONNS -t $THREADS, $TARGET, $(nproc) cores; medians)"
echo
python3 - "$TMP/runs" "$RATES" "$SPINS" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
us = lambda v: "%.1f us" % v if v < 1000 else "%.2f ms" % (v / 1000)
med = statistics.median
print("| rate | spin | sent/s | send lag p50 | p90 | p99 | p99.9 | max | latency p50 | p99 | CPU s/s | CPU/request | p50 range | p99 range | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for rate in sys.argv[2].split():
    for spin in sys.argv[3].split():
        rs = [r for r in runs if r["rate"] == rate and r["spin"] == spin]
        if not rs:
            continue
        lag = lambda k: [r["lag"][k] for r in rs]
        cpu_s = [r["cpu"] / r["wall"] for r in rs]
        cpu_req = [r["cpu"] * 1e6 / max(r["sent"], 1) for r in rs]
        print("| %s/s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %.3f | %.1f us | %s-%s | %s-%s | %.2f |" % (
            rate, spin, med(r["sent_per_sec"] for r in rs),
            us(med(lag("p50"))), us(med(lag("p90"))), us(med(lag("p99"))), us(med(lag("p99.9"))), us(med(lag("max"))),
            us(med(r["lat"]["p50"] for r in rs)), us(med(r["lat"]["p99"] for r in rs)),
            med(cpu_s), med(cpu_req),
            us(min(lag("p50"))), us(max(lag("p50"))), us(min(lag("p99"))), us(max(lag("p99"))),
            med(r["load"] for r in rs)))
PY
