#!/usr/bin/env bash
# 100,000 concurrent connections on this one machine (make test-long): six volley
# shards (--shard I/6), each binding its connections to ten loopback addresses of its
# own (--source), start together (--start-at) against one nginx of ten workers, hold
# the connections for 10 s with a low request rate, and `volley merge` adds up their
# results. A process may hold 20,000 descriptors here, and one source address gives
# one destination about 28,000 ephemeral ports: neither limit allows 100,000 in one.
#
# Runs in a network namespace of its own (unshare --net, as root), where the listen
# backlog is raised (net.core.somaxconn, net.ipv4.tcp_max_syn_backlog) without
# touching the host; skipped with a message where namespaces are not allowed, and
# under sanitizers.
#
# Checks: every shard opened its share and the merged connections_opened >= 100000;
# nginx held all of them at once for 10 s; no request lost: merged started ==
# completed, no failure, nothing cut off, and nginx logged exactly as many requests as
# the merge completed. Prints the figures: total RSS of the six processes while every
# connection is open, RSS per connection, requests, time to open all.
set -euo pipefail

TOTAL=${LONG_CONNS:-100000}
SHARDS=6
HOLD=10

if [ "${SANITIZED:-OFF}" = ON ]; then
    echo "$(basename "$0"): skipped under sanitizers (their memory is not volley's)"
    exit 0
fi

# ---- into a network namespace of our own (before lib.sh: its temp dir and trap
# belong to the process inside) ----
if [ -z "${VOLLEY_100K_NS:-}" ]; then
    if ! unshare --net true 2>/dev/null; then
        echo "$(basename "$0"): skipped: cannot make a network namespace (unshare --net needs root)"
        exit 0
    fi
    VOLLEY_100K_NS=1 exec unshare --net -- bash "$0" "$@"
fi

source "$TESTLIB"
source "$(dirname "$0")/../bench/nginx_lib.sh"
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
if [ ! -x "$NGINX" ] || ! "$NGINX" -V 2>&1 | grep -q -- --with-http_stub_status_module; then
    fail "nginx with stub_status is needed (Debian package nginx-light)"
    finish
fi
for opt in --shard --source --start-at; do
    "$VOLLEY" --help 2>&1 | grep -q -e "$opt" || { fail "volley has no $opt"; finish; }
done

# The namespace's loopback starts down (iproute2's ip, else the same ioctl from python3).
if command -v ip > /dev/null; then
    ip link set lo up
else
    python3 -c 'import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]  # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))  # SIOCSIFFLAGS, IFF_UP'
fi
# The namespace's own listen queues: the connections come faster than the workers accept.
{ echo 65535 > /proc/sys/net/core/somaxconn && echo 65535 > /proc/sys/net/ipv4/tcp_max_syn_backlog; } 2> /dev/null ||
    echo "note: could not raise somaxconn / tcp_max_syn_backlog in the namespace"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
FDS=$(ulimit -n)
PER_SHARD=$(( (TOTAL + SHARDS - 1) / SHARDS ))
if [ "$FDS" != unlimited ] && [ $((PER_SHARD + 64)) -gt "$FDS" ]; then
    fail "a shard's $PER_SHARD connections do not fit the open-file limit $FDS"
    finish
fi

# ---- nginx: ten workers (each within its own open-file limit), reuseport, the
# requests of / logged one line each, stub_status on a port of its own ----
PORT=8080
STATUS_PORT=8081
WORKERS=10
NGX_RLIMIT=$FDS
[ "$NGX_RLIMIT" = unlimited ] && NGX_RLIMIT=100000
NGX_CONNS=$((TOTAL * 16 / 10 / WORKERS))
[ "$NGX_CONNS" -gt $((NGX_RLIMIT - 200)) ] && NGX_CONNS=$((NGX_RLIMIT - 200))
N=$T/nginx
mkdir -p "$N"
temp=$(nginx_temp_paths "$NGINX" "$N")
cat > "$N/nginx.conf" <<EOF
worker_processes $WORKERS;
worker_rlimit_nofile $NGX_RLIMIT;
daemon off;
user root;
pid $N/nginx.pid;
error_log $N/error.log warn;
events { worker_connections $NGX_CONNS; multi_accept on; }
http {
    $temp
    log_format one '.';
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    server {
        listen 127.0.0.1:$PORT reuseport backlog=65535;
        access_log $N/access.log one;
        location / { return 200 "hello world"; }
    }
    server {
        listen 127.0.0.1:$STATUS_PORT;
        access_log off;
        location / { stub_status; }
    }
}
EOF
timeout -k 5 250 "$NGINX" -p "$N/" -c "$N/nginx.conf" -e "$N/error.log" < /dev/null > "$N/stderr" 2>&1 &
NGINX_PID=$!
TARGET_PIDS+=("$NGINX_PID")
for _ in $(seq 100); do
    (exec 3<> "/dev/tcp/127.0.0.1/$STATUS_PORT") 2> /dev/null && break
    kill -0 "$NGINX_PID" 2> /dev/null || break
    sleep 0.05
done
if ! (exec 3<> "/dev/tcp/127.0.0.1/$STATUS_PORT") 2> /dev/null; then
    cat "$N/error.log" "$N/stderr" >&2 || true
    fail "nginx did not start"
    finish
fi

# ---- the shards' script: the first request of each connection at once; then about
# 17 % of the connections send one more request at a time drawn over the rest of the run
# (some 600 requests/s in all), the rest stay idle. Nothing starts in the last 5 s of the run, so
# nothing is in flight when it ends. delay() runs before every request, the first
# included; each shard has one thread, so its first SHARE calls are its connections'
# first requests (the split of -c by --shard: the first TOTAL mod SHARDS shards one more).
DURATION=35
cat > "$T/hold.lua" <<'EOF'
local total, run_ms, first, calls, t0 = 0, 0, 0, 0, nil
function init(args)
  total, run_ms = tonumber(args[1]), tonumber(args[2])
  local sh = volley.shard or { index = 0, count = 1 }
  local i, n = sh.index, sh.count
  first = math.floor(total / n) + ((i < total % n) and 1 or 0)
end
function delay()
  local now = volley.now() / 1000
  t0 = t0 or now
  calls = calls + 1
  if calls <= first then return 0 end
  local left = run_ms - 5000 - (now - t0)
  if calls <= 2 * first and left > 0 and math.random() < 0.17 then
    return math.random() * left
  end
  return 600000
end
EOF

# ---- a baseline: one volley with few connections, for the RSS that is not per connection ----
"$VOLLEY" -q -t 1 -c 10 -d 4s -s "$T/hold.lua" "http://127.0.0.1:$PORT/" -- 10 4000 > "$T/base.out" 2>&1 &
bpid=$!
TARGET_PIDS+=("$bpid")
sleep 2.5
BASE_RSS=$(awk '/^VmRSS:/ { print $2 }' "/proc/$bpid/status" 2> /dev/null || echo 0)
wait "$bpid" || true
LOGGED_BEFORE=$(wc -l < "$N/access.log") # the baseline's requests

# ---- the run: six shards, one start ----
START=$(python3 -c 'import time; print("%.3f" % (time.time() + 6))')
for ((i = 0; i < SHARDS; i++)); do
    src="127.0.1.$((10 * i + 10))-127.0.1.$((10 * i + 19))"
    timeout -k 5 $((DURATION + 60)) "$VOLLEY" -q -t 1 -c "$TOTAL" -d "${DURATION}s" --shard "$i/$SHARDS" \
        --source "$src" --start-at "$START" -s "$T/hold.lua" --json "$T/s$i.json" \
        "http://127.0.0.1:$PORT/" -- "$TOTAL" $((DURATION * 1000)) > "$T/s$i.out" 2>&1 &
    VPIDS[i]=$!
    TARGET_PIDS+=("${VPIDS[i]}")
done

# The poll: nginx's connection count every 20 ms from the start until all are open;
# then the six processes' VmRSS, and the count again after HOLD seconds.
python3 - "$STATUS_PORT" "$TOTAL" "$START" "$HOLD" "$DURATION" "${VPIDS[@]}" > "$T/poll.out" <<'EOF'
import http.client, re, sys, time
port, total, start, hold, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
pids = [int(p) for p in sys.argv[6:]]
conn = None
def active():
    global conn
    for _ in range(3):
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/")
            return int(re.search(r"Active connections:\s*(\d+)", conn.getresponse().read().decode()).group(1))
        except (OSError, http.client.HTTPException, AttributeError):
            conn = None
    return -1
def rss(pid):
    try:  # timeout's child: the volley process
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            pid = int(f.read().split()[0])
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open("/proc/%d/status" % pid) as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0
def slab_kb():
    with open("/proc/meminfo") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("Slab:"))
base = active()  # the poll's own connection
slab0 = slab_kb()
t_all, peak = -1.0, 0
while time.time() < start + duration - hold - 1:
    n = active() - base
    peak = max(peak, n)
    if n >= total:
        t_all = time.time() - start
        break
    time.sleep(0.02)
rss_each, held, slab = [], -1, 0
if t_all >= 0:
    time.sleep(1)
    rss_each = [rss(p) for p in pids]
    slab = slab_kb() - slab0
    time.sleep(max(0.0, start + t_all + hold - time.time()))
    held = active() - base
print("t_all=%.3f peak=%d held=%d slab_kb=%d rss=%s" % (t_all, peak, held, slab, ",".join(map(str, rss_each)) or "-"))
EOF
POLL=$(cat "$T/poll.out")
echo "poll: $POLL"
for ((i = 0; i < SHARDS; i++)); do
    RC=0
    wait "${VPIDS[i]}" || RC=$?
    check_eq "$RC" 0 "shard $i exit status ($(tail -n 2 "$T/s$i.out" | tr '\n' ' '))"
done
kill "$NGINX_PID" 2> /dev/null || true
wait "$NGINX_PID" 2> /dev/null || true

pget() { tr ' ' '\n' <<< "$POLL" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
t_all=$(pget t_all)
held=$(pget held)
rss_list=$(pget rss)
if [ "$t_all" = -1.000 ]; then
    fail "nginx never counted $TOTAL connections at once (at most $(pget peak))"
else
    check_ge "$held" "$TOTAL" "connections still open $HOLD s after all were"
fi

# ---- each shard opened its share; the merge adds them up ----
for ((i = 0; i < SHARDS; i++)); do
    share=$((TOTAL / SHARDS + (i < TOTAL % SHARDS ? 1 : 0)))
    [ -s "$T/s$i.json" ] || { fail "shard $i wrote no JSON"; continue; }
    check_ge "$(jget "$T/s$i.json" connections_opened)" "$share" "shard $i connections_opened"
    check_eq "$(jget "$T/s$i.json" run.shard)" "$i" "shard $i: run.shard"
done
RC=0
"$VOLLEY" merge "$T"/s[0-9].json --json "$T/merged.json" > "$T/merge.out" 2> "$T/merge.err" || RC=$?
check_eq "$RC" 0 "volley merge exit status ($(head -c 300 "$T/merge.err"))"
M=$T/merged.json
if [ -s "$M" ]; then
    opened=$(jget "$M" connections_opened)
    started=$(jget "$M" requests.started)
    completed=$(jget "$M" requests.completed)
    logged=$(($(wc -l < "$N/access.log") - LOGGED_BEFORE))
    errors=$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["errors"].values()))' "$M")
    check_ge "$opened" "$TOTAL" "merged connections_opened"
    check_eq "$(jget "$M" run.shards)" "$SHARDS" "merged run.shards"
    check_eq "$started" "$completed" "merged requests started == completed (lost: $((started - completed)))"
    check_eq "$(jget "$M" requests.failed)" 0 "merged requests failed"
    check_eq "$(jget "$M" requests.cut_off)" 0 "merged requests cut off"
    check_eq "$errors" 0 "merged errors"
    check_eq "$logged" "$completed" "nginx's logged requests == merged completed"
    check_ge "$completed" "$TOTAL" "merged completed (one request per connection at least)"
    total_rss=$(tr ',' '\n' <<< "$rss_list" | awk '{ s += $1 } END { print s + 0 }')
    echo "100k run: $SHARDS shards x -t 1, -c $TOTAL -d ${DURATION}s, nginx $WORKERS workers"
    echo "  connections opened (merged): $opened; all open $t_all s after --start-at" \
        "($(awk -v t="$t_all" -v n="$TOTAL" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }') connections/s); still open $HOLD s later: $held"
    echo "  requests: started $started, completed $completed, nginx logged $logged, lost $((started - completed))"
    awk -v s="$total_rss" -v b="$BASE_RSS" -v n="$TOTAL" -v k="$SHARDS" -v l="$rss_list" 'BEGIN {
        printf "  RSS of the %d volley processes with every connection open: %d KiB (%s)\n", k, s, l
        printf "  per connection: %.2f KiB gross (total / %d); %.2f KiB above %d idle processes of %d KiB each\n",
            s / n, n, (s - k * b) / n, k, b }'
    awk -v s="$(pget slab_kb)" -v n="$TOTAL" 'BEGIN {
        printf "  kernel slab (/proc/meminfo Slab) grew by %d MiB: %.2f KiB per connection (its two sockets)\n", s / 1024, s / n }'
fi
finish
