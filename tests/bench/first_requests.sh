#!/bin/bash
# tests/bench/first_requests.sh: how long the first requests of many
# connections take, volley against ab, on one private nginx in the same run.
#
# Each client makes -n C -c C (one request on each of C connections, C =
# 15,000 by default), so every request is a first request. A client that
# opens every connection before reading any answer (ab) reports, for the
# early ones, the time they waited for the later connects; volley opens
# them four at a time and reads in between (worker.c, OPEN_BATCH). Printed:
# the median over the rounds of each client's p50, p99 and longest request,
# and of the whole run's wall time. A report, not a test.
#
# Env: CONNS (15000), ROUNDS (3), VOLLEY (<repo>/build/volley), VOLLEY_BASE
# (another volley build to compare, e.g. one from before a change), NGINX.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/nginx_lib.sh"
VOLLEY=${VOLLEY:-$ROOT/build/volley}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
CONNS=${CONNS:-15000}
ROUNDS=${ROUNDS:-3}
die() { echo "first_requests: $*" >&2; exit 1; }

[[ -x $VOLLEY ]] || die "no volley at $VOLLEY (build it first)"
[[ -x $NGINX ]] || die "no nginx (apt-get install nginx-light)"
command -v ab > /dev/null || die "no ab (apt-get install apache2-utils)"
FDS=$(ulimit -n)
((FDS > CONNS + 200)) || die "CONNS $CONNS does not fit the open-file limit $FDS"
read -r PLO PHI < /proc/sys/net/ipv4/ip_local_port_range
((CONNS < PHI - PLO + 1)) || die "CONNS $CONNS does not fit the ephemeral port range $PLO-$PHI"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/volley-first.XXXXXX")
NGINX_PID=
cleanup() {
    if [[ -n $NGINX_PID ]]; then
        kill "$NGINX_PID" 2> /dev/null || true
        wait "$NGINX_PID" 2> /dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# nginx: two workers, room for every connection in each, a deep accept queue.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$TMP/ngx"
temp=$(nginx_temp_paths "$NGINX" "$TMP/ngx")
cat > "$TMP/ngx/nginx.conf" << EOF
worker_processes 2;
worker_rlimit_nofile $((FDS - 100));
daemon off;
pid $TMP/ngx/nginx.pid;
error_log $TMP/ngx/error.log warn;
events { worker_connections $((FDS - 200)); }
http {
    access_log off;
    $temp
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$PORT backlog=65535; location / { return 200 "hello world"; } }
}
EOF
"$NGINX" -p "$TMP/ngx/" -c "$TMP/ngx/nginx.conf" -e "$TMP/ngx/error.log" < /dev/null > "$TMP/ngx/out" 2>&1 &
NGINX_PID=$!
for _ in $(seq 50); do
    (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null && break
    sleep 0.1
done
(exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null || die "nginx did not start: $(cat "$TMP/ngx/error.log" "$TMP/ngx/out")"
URL=http://127.0.0.1:$PORT/

# One run of a client: "p50 p99 max wall" in ms on stdout.
volley_run() { # volley_run BINARY
    local t0 t1
    t0=$(date +%s.%N)
    "$1" -q -n "$CONNS" -c "$CONNS" -t 1 --json "$TMP/v.json" "$URL"
    t1=$(date +%s.%N)
    python3 - "$TMP/v.json" "$t0" "$t1" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l = r["latency"]
assert r["requests"]["completed"] == r["connections_opened"], "not one request per connection"
print("%.1f %.1f %.1f %.0f" % (l["p50"] / 1e3, l["p99"] / 1e3, l["max"] / 1e3, (float(sys.argv[3]) - float(sys.argv[2])) * 1e3))
PY
}
ab_run() { # ab_run COMMAND...: ab's own percentile table (whole ms)
    local t0 t1
    t0=$(date +%s.%N)
    "$@" -q -n "$CONNS" -c "$CONNS" "$URL" > "$TMP/ab.out" 2>&1 || die "$* failed: $(tail -2 "$TMP/ab.out")"
    t1=$(date +%s.%N)
    awk -v t0="$t0" -v t1="$t1" '
        $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } $1 == "100%" { mx = $2 }
        END { printf "%s %s %s %.0f\n", p50, p99, mx, (t1 - t0) * 1000 }' "$TMP/ab.out"
}

declare -A RES
CLIENTS=(volley "volley ab" ab)
[[ -n ${VOLLEY_BASE:-} ]] && CLIENTS+=(base)
for ((r = 1; r <= ROUNDS; r++)); do
    for c in "${CLIENTS[@]}"; do
        case $c in
            volley) line=$(volley_run "$VOLLEY") ;;
            "volley ab") line=$(ab_run "$VOLLEY" ab) ;;
            ab) line=$(ab_run ab) ;;
            base) line=$(volley_run "$VOLLEY_BASE") ;;
        esac
        RES[$c]+="$line"$'\n'
        sleep 1 # let TIME_WAIT and nginx settle a little between clients
    done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf "first requests: -n %d -c %d against nginx, %d rounds (medians)\n" "$CONNS" "$CONNS" "$ROUNDS"
printf "%-12s %10s %10s %10s %10s\n" client "p50 ms" "p99 ms" "max ms" "wall ms"
for c in "${CLIENTS[@]}"; do
    row=()
    for f in 1 2 3 4; do
        row+=("$(printf '%s' "${RES[$c]}" | awk -v f="$f" 'NF { print $f }' | median)")
    done
    name=$c
    [[ $c == base ]] && name="VOLLEY_BASE"
    printf "%-12s %10s %10s %10s %10s\n" "$name" "${row[@]}"
done
