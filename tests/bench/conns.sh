#!/usr/bin/env bash
# Idle keep-alive connections on one machine: volley's memory per connection and
# how fast it opens them, against wrk opening the same count, all against one
# private nginx on loopback in the same run.
#
#   bash tests/bench/conns.sh
#   ROUNDS=5 CONNS=19000 bash tests/bench/conns.sh
#
# Env: CONNS (19000), BASE_CONNS (100: the small run RSS is compared with),
#      ROUNDS (3), THREADS (2), RUN_SECONDS (10: -d of the idle CONNS runs),
#      BUSY_SECONDS (20: -d of the busy runs), BASE_SECONDS (5), SOURCES (127.0.0.2-127.0.0.9: volley --source row),
#      NGINX_WORKERS (4), VOLLEY (<repo>/build/volley), NGINX (nginx on PATH).
# Prints a markdown report on stdout, progress on stderr (tests/bench/README.md).
# Exits 0 whether or not the goal is met; non-zero only if it cannot run.
set -euo pipefail
export LC_ALL=C

CONNS=${CONNS:-19000}
BASE_CONNS=${BASE_CONNS:-100}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
RUN_SECONDS=${RUN_SECONDS:-10}
BUSY_SECONDS=${BUSY_SECONDS:-20}
BASE_SECONDS=${BASE_SECONDS:-5}
SOURCES=${SOURCES:-127.0.0.2-127.0.0.9}
WORKERS=${NGINX_WORKERS:-4}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/nginx_lib.sh"
TOP=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || TOP=$(cd "$HERE/../.." && pwd)
VOLLEY=${VOLLEY:-$TOP/build/volley}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

die() { echo "conns: $*" >&2; exit 1; }
log() { echo "conns: $*" >&2; }

for v in CONNS BASE_CONNS ROUNDS THREADS RUN_SECONDS BUSY_SECONDS BASE_SECONDS WORKERS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"
done
((RUN_SECONDS >= 4 && BUSY_SECONDS >= 4 && BASE_SECONDS >= 3)) ||
	die "RUN_SECONDS and BUSY_SECONDS must be at least 4, BASE_SECONDS at least 3"
((BASE_CONNS < CONNS)) || die "BASE_CONNS must be below CONNS"

missing=()
[[ -x $NGINX ]] || missing+=("nginx (Debian package nginx-light)")
command -v wrk >/dev/null || missing+=("wrk (Debian package wrk)")
command -v python3 >/dev/null || missing+=("python3 (Debian package python3)")
[[ -x $VOLLEY ]] || missing+=("volley ($VOLLEY: make build, or set VOLLEY)")
if ((${#missing[@]})); then
	printf 'conns: missing %s\n' "${missing[@]}" >&2
	die "install them with: apt-get install nginx-light wrk python3"
fi
"$NGINX" -V 2>&1 | grep -q -- --with-http_stub_status_module ||
	die "$NGINX has no stub_status module (the connection count comes from it); nginx-light has it"

NOTES=()
# ---- descriptors: CONNS sockets plus each client's own must fit the hard limit ----
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
FDS=$(ulimit -n)
# volley's own count (src/run/run.c): 3 per thread (4 with -R), 32 for the rest; wrk needs fewer.
need=$((CONNS + THREADS * 4 + 32))
if [[ $FDS != unlimited ]] && ((need > FDS)); then
	NOTES+=("CONNS reduced from $CONNS to $((FDS - THREADS * 4 - 32)): the open-file limit is $FDS")
	CONNS=$((FDS - THREADS * 4 - 32))
fi
# A client without --source takes all its ports from one address's ephemeral range.
read -r PLO PHI </proc/sys/net/ipv4/ip_local_port_range
((CONNS < PHI - PLO + 1)) ||
	die "CONNS ($CONNS) does not fit the ephemeral port range $PLO-$PHI of one source address"
# nginx: each worker holds its share (reuseport spreads the connections over the workers,
# unevenly), within its own open-file limit.
NGX_RLIMIT=$FDS
[[ $NGX_RLIMIT == unlimited ]] && NGX_RLIMIT=100000
NGX_CONNS=$((CONNS * 2 / WORKERS + 1000))
((NGX_CONNS > NGX_RLIMIT - 100)) && NGX_CONNS=$((NGX_RLIMIT - 100))
((NGX_CONNS * WORKERS >= CONNS + 1000)) ||
	die "$WORKERS nginx workers of $NGX_CONNS connections each cannot hold $CONNS (set NGINX_WORKERS)"

HAVE_SOURCE=0
"$VOLLEY" --help 2>&1 | grep -q -e --source && HAVE_SOURCE=1
((HAVE_SOURCE)) || NOTES+=("volley --source row skipped: this volley has no --source")

# ---- the runs of a round; each is "label tool conns seconds mode" ----
# mode idle: the delay script below (one request per connection, then quiet);
# busy: no script, requests back to back (wrk's usual run).
RUNS=("volley volley $CONNS $RUN_SECONDS idle"
	"wrk wrk $CONNS $RUN_SECONDS idle")
((HAVE_SOURCE)) && RUNS+=("volley-src volley-src $CONNS $RUN_SECONDS idle")
RUNS+=("volley-base volley $BASE_CONNS $BASE_SECONDS idle"
	"wrk-base wrk $BASE_CONNS $BASE_SECONDS idle"
	"volley-busy volley $CONNS $BUSY_SECONDS busy"
	"wrk-busy wrk $CONNS $BUSY_SECONDS busy")
declare -A LABEL=([volley]="volley" [wrk]="wrk" [volley-src]="volley --source $SOURCES"
	[volley-busy]="volley, busy" [wrk-busy]="wrk, busy")
NPORTS=$((ROUNDS * ${#RUNS[@]}))

TMP=$(mktemp -d "${TMPDIR:-/tmp}/volley-conns.XXXXXX")
NGINX_PID=
cleanup() {
	if [[ -n $NGINX_PID ]]; then
		kill "$NGINX_PID" 2>/dev/null || true
		wait "$NGINX_PID" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the idle script: the same for volley and wrk (both call delay() before every
# request, the first included, once per thread's Lua state). The first ARG calls (the
# thread's connections' first requests) go at once; every later one waits 10 minutes,
# past the end of the run. So each connection opens, sends one request, and stays
# open and idle.
cat >"$TMP/idle.lua" <<'EOF'
local first, calls = 0, 0
function init(args)
  first = tonumber(args[1]) or 0
end
function delay()
  calls = calls + 1
  if calls <= first then return 0 end
  return 600000
end
EOF

# ---- the poller: launches one client, counts nginx's connections (stub_status's
# "Active connections", over one kept-alive connection of its own) every 10 ms from
# the launch until the target is reached, then samples the client's VmRSS and the
# kernel's socket memory; one line of key=value on stdout.
cat >"$TMP/poll.py" <<'EOF'
import http.client, os, re, subprocess, sys, time

status_port, target, run_s, settle, tag = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
cmd = sys.argv[sys.argv.index("--") + 1:]

conn = None
def active():
    global conn
    for _ in range(3):
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", status_port, timeout=5)
            conn.request("GET", "/")
            body = conn.getresponse().read().decode()
            return int(re.search(r"Active connections:\s*(\d+)", body).group(1))
        except (OSError, http.client.HTTPException, AttributeError):
            conn = None
    raise SystemExit("poll: stub_status does not answer")

def kernel():
    k = {}
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                p = line.split()
                k.update({"tcp_" + p[i]: int(p[i + 1]) for i in range(1, len(p) - 1, 2)})
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                k["slab_kb"] = int(line.split()[1])
    k["caches"] = {}
    try:
        with open("/proc/slabinfo") as f:
            for line in f.readlines()[2:]:
                p = line.split()
                k["caches"][p[0]] = int(p[2]) * int(p[3])  # num_objs * objsize
    except OSError:
        pass
    return k

def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1

base = active()
k0 = kernel()
out = open(tag + ".out", "w")
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
marks = {"t50": -1.0, "t90": -1.0, "tall": -1.0}
peak = 0
tick = t0
while True:
    n = active() - base
    now = time.monotonic() - t0
    peak = max(peak, n)
    for name, frac in (("t50", 0.5), ("t90", 0.9), ("tall", 1.0)):
        if marks[name] < 0 and n >= frac * target:
            marks[name] = now
    if marks["tall"] >= 0 or p.poll() is not None or now > run_s - settle - 0.5:
        break
    tick += 0.01
    time.sleep(max(0.0, tick - time.monotonic()))
rss = -1
k1 = k0
n_sample = 0
if p.poll() is None:
    time.sleep(max(0.0, min(settle, run_s - 0.5 - (time.monotonic() - t0))))
    rss = rss_kb(p.pid)
    n_sample = active() - base
    k1 = kernel()
try:
    rc = p.wait(timeout=run_s + 30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
grow = sorted(((k1["caches"].get(c, 0) - b, c) for c, b in k0["caches"].items()), reverse=True)[:4]
print("rc=%d target=%d peak=%d open_at_sample=%d t50=%.3f t90=%.3f tall=%.3f rss_kb=%d "
      "tcp_inuse=%d tcp_mem_pages=%d slab_kb=%d tcp_slab_b=%d top=%s" % (
      rc, target, peak, n_sample, marks["t50"], marks["t90"], marks["tall"], rss,
      k1.get("tcp_inuse", 0) - k0.get("tcp_inuse", 0), k1.get("tcp_mem", 0) - k0.get("tcp_mem", 0),
      k1.get("slab_kb", 0) - k0.get("slab_kb", 0),
      k1["caches"].get("TCP", 0) - k0["caches"].get("TCP", 0),
      ",".join("%s:%d" % (c, d // 1024) for d, c in grow if d > 0) or "-"))
EOF

# ---- private nginx: WORKERS processes, each listening (reuseport) on one port per run,
# so no run meets the previous runs' TIME_WAIT sockets, and a status port ----
ports_free() { # ports_free FIRST COUNT
	local p
	for ((p = $1; p < $1 + $2; p++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && return 1
	done
	return 0
}

write_nginx_conf() {
	local d=$TMP/nginx temp listens="" i user=""
	temp=$(nginx_temp_paths "$NGINX" "$d")
	for ((i = 0; i < NPORTS; i++)); do
		listens+="listen 127.0.0.1:$((PORT0 + i)) reuseport backlog=65535;"$'\n'
	done
	# as root, workers would become "nobody"; keep them as the caller (nothing is served from disk)
	((EUID == 0)) && user="user root;"
	cat >"$d/nginx.conf" <<EOF
worker_processes $WORKERS;
worker_rlimit_nofile $NGX_RLIMIT;
daemon off;
$user
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections $NGX_CONNS; multi_accept on; }
http {
    access_log off;
    $temp
    keepalive_requests 1000000;
    keepalive_timeout 600s;
    server {
        $listens
        location / { return 200 "hello world"; }
    }
    server {
        listen 127.0.0.1:$STATUS_PORT;
        location / { stub_status; }
    }
}
EOF
}

start_nginx() {
	local try
	mkdir -p "$TMP/nginx"
	for ((try = 0; try < 5; try++)); do
		PORT0=$((20000 + RANDOM % (12000 - NPORTS - 1)))
		STATUS_PORT=$((PORT0 + NPORTS))
		ports_free "$PORT0" $((NPORTS + 1)) || continue
		write_nginx_conf
		: >"$TMP/nginx/error.log"
		"$NGINX" -p "$TMP/nginx/" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" \
			</dev/null >"$TMP/nginx/stderr" 2>&1 &
		NGINX_PID=$!
		for _ in $(seq 50); do
			kill -0 "$NGINX_PID" 2>/dev/null || break
			if (exec 3<>"/dev/tcp/127.0.0.1/$STATUS_PORT") 2>/dev/null; then return 0; fi
			sleep 0.1
		done
		kill "$NGINX_PID" 2>/dev/null || true
		wait "$NGINX_PID" 2>/dev/null || true
		NGINX_PID=
		grep -qs "in use" "$TMP/nginx/error.log" "$TMP/nginx/stderr" || break
	done
	cat "$TMP/nginx/error.log" "$TMP/nginx/stderr" >&2 2>/dev/null || true
	die "nginx would not start"
}

active_now() {
	python3 - "$STATUS_PORT" <<'EOF'
import re, sys, urllib.request
body = urllib.request.urlopen("http://127.0.0.1:%s/" % sys.argv[1], timeout=5).read().decode()
print(re.search(r"Active connections:\s*(\d+)", body).group(1))
EOF
}

# Waits (up to 20 s) until nginx holds no connection but the poll's own.
drain() {
	local i n
	for ((i = 0; i < 200; i++)); do
		n=$(active_now) || return 0
		((n <= 1)) && return 0
		sleep 0.1
	done
	NOTES+=("nginx still held $n connections 20 s after a run")
}

# json_opened F: "OPENED FAILED" of a volley JSON (-1 -1 without one)
json_opened() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(int(d["connections_opened"]), int(d["requests"]["failed"]))' "$1" 2>/dev/null || echo -1 -1
}

# run_one NAME TOOL N SECONDS MODE PORT: one client run; appends its key=value line
# (plus opened=) to $TMP/res.NAME
run_one() {
	local name=$1 tool=$2 n=$3 secs=$4 mode=$5 port=$6 url cmd=() per line opened failed
	url="http://127.0.0.1:$port/"
	per=$(((n + THREADS - 1) / THREADS))
	case $tool in
	volley | volley-src)
		cmd=("$VOLLEY" -q -c "$n" -t "$THREADS" -d "${secs}s" -T 30s --json "$TMP/$name.json")
		[[ $tool == volley-src ]] && cmd+=(--source "$SOURCES")
		[[ $mode == idle ]] && cmd+=(-s "$TMP/idle.lua")
		cmd+=("$url")
		[[ $mode == idle ]] && cmd+=(-- "$per") ;;
	wrk)
		cmd=(wrk -c "$n" -t "$THREADS" -d "${secs}s" --timeout 30s)
		[[ $mode == idle ]] && cmd+=(-s "$TMP/idle.lua")
		cmd+=("$url")
		[[ $mode == idle ]] && cmd+=(-- "$per") ;;
	esac
	rm -f "$TMP/$name.json"
	line=$(python3 "$TMP/poll.py" "$STATUS_PORT" "$n" "$secs" 1.5 "$TMP/$name" -- "${cmd[@]}") ||
		{ NOTES+=("$name: the poller failed"); return 0; }
	opened=-1 failed=0
	[[ $tool == volley* ]] && read -r opened failed < <(json_opened "$TMP/$name.json")
	((failed <= 0)) || NOTES+=("$name: $failed requests failed, $opened connections opened (volley's JSON)")
	[[ $tool == wrk ]] && opened=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^peak=/) { sub("peak=", "", $i); print $i } }' <<<"$line")
	echo "$line opened=$opened" >>"$TMP/res.$name"
	if [[ $line != rc=0\ * ]]; then
		NOTES+=("$name: exit status ${line%% *}: $(tail -n 2 "$TMP/$name.out" | tr '\n' ' ' | cut -c1-200)")
	fi
	log "  $name: $line opened=$opened"
	drain
}

# field NAME KEY: the KEY values of every run of NAME, one a line
field() {
	[[ -s $TMP/res.$1 ]] || return 0
	tr ' ' '\n' <"$TMP/res.$1" | awk -F= -v k="$2" '$1 == k { print $2 }'
}
# median of numbers on stdin, ignoring negatives (not reached); "n/a" for none
median() {
	awk '$1 >= 0' | sort -g | awk '{ v[++n] = $1 } END { if (!n) { print "n/a"; exit }
		print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }'
}
# min/max of the opened counts, e.g. "19000" or "18750-19000"
opened_range() {
	field "$1" opened | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (NR ? (lo == hi ? lo : lo "-" hi) : "n/a") }'
}

report() {
	local name base rss rss0 per t50 t90 tall rate kslab ktcp kmem ok reached
	echo "## $CONNS idle keep-alive connections on one machine ($ROUNDS rounds, -t $THREADS, nginx $WORKERS workers, $(nproc) cores)"
	echo
	echo "Memory: VmRSS while every connection is open, against the same client with $BASE_CONNS connections."
	echo "Opening: the time from the client's launch until nginx counts $CONNS connections (stub_status, every 10 ms)."
	echo
	echo "| client | opened | RSS at $CONNS | RSS at $BASE_CONNS | per extra connection | all open after | 50% / 90% after | connections/s |"
	echo "|---|---|---|---|---|---|---|---|"
	for name in volley volley-src wrk volley-busy wrk-busy; do
		[[ -s $TMP/res.$name ]] || continue
		base=${name%-src}
		base=${base%-busy}-base
		rss=$(field "$name" rss_kb | median)
		rss0=$(field "$base" rss_kb | median)
		per=n/a
		[[ $rss != n/a && $rss0 != n/a ]] &&
			per=$(awk -v a="$rss" -v b="$rss0" -v n=$((CONNS - BASE_CONNS)) 'BEGIN { printf "%.2f KiB", (a - b) / n }')
		[[ $name == *busy ]] && per="(busy: not idle)"
		tall=$(field "$name" tall | median)
		t50=$(field "$name" t50 | median)
		t90=$(field "$name" t90 | median)
		reached=$(field "$name" tall | awk '$1 >= 0' | wc -l)
		rate=n/a
		[[ $tall != n/a ]] && rate=$(awk -v t="$tall" -v n="$CONNS" 'BEGIN { printf "%.0f", n / t }')
		printf '| %s | %s | %s | %s | %s | %s | %s / %s s | %s |\n' "${LABEL[$name]}" "$(opened_range "$name")" \
			"$([[ $rss == n/a ]] && echo n/a || echo "$rss KiB")" "$([[ $rss0 == n/a ]] && echo n/a || echo "$rss0 KiB")" \
			"$per" "$([[ $tall == n/a ]] && echo "not reached" || echo "$tall s ($reached/$ROUNDS)")" "$t50" "$t90" "$rate"
	done
	echo
	kslab=$(field volley slab_kb | median)
	ktcp=$(field volley tcp_slab_b | median)
	kmem=$(field volley tcp_mem_pages | median)
	echo "Kernel memory while volley's $CONNS connections are open (medians; both ends of each connection are on this machine,"
	echo "so each connection is two TCP sockets, the client's and nginx's):"
	echo
	awk -v s="$kslab" -v t="$ktcp" -v m="$kmem" -v n="$CONNS" 'BEGIN {
		if (s != "n/a") printf "- slab (/proc/meminfo Slab) grew by %d KiB: %.2f KiB per connection (%.2f KiB per socket)\n", s, s / n, s / n / 2
		if (t != "n/a") printf "- of which the TCP cache (/proc/slabinfo, struct tcp_sock): %d KiB, %.2f KiB per connection (%.2f KiB per socket)\n", t / 1024, t / 1024 / n, t / 1024 / n / 2
		if (m != "n/a") printf "- socket buffers (/proc/net/sockstat TCP mem): %+d pages of 4 KiB\n", m }'
	echo "- caches that grew most (KiB), last volley run: $(tail -n 1 "$TMP/res.volley" | tr ' ' '\n' | awk -F= '$1 == "top" { print $2 }')"
	echo
	if [[ -s $TMP/res.volley && -s $TMP/res.volley-base ]]; then
		per=$(awk -v a="$(field volley rss_kb | median)" -v b="$(field volley-base rss_kb | median)" \
			-v n=$((CONNS - BASE_CONNS)) 'BEGIN { printf "%.2f", (a - b) / n }')
		ok=$(awk -v p="$per" 'BEGIN { print (p <= 1 ? "met" : "NOT met") }')
		echo "Goal: volley's RSS per idle connection <= 1 KiB: $ok ($per KiB)"
	else
		echo "Goal: volley's RSS per idle connection <= 1 KiB: unknown (no result)"
	fi
	echo
	echo "Commands (N = $CONNS or $BASE_CONNS, K = N / $THREADS, the first K delay() calls of a thread return 0, later ones 10 min):"
	echo
	echo "    volley -q -c N -t $THREADS -d ${RUN_SECONDS}s -T 30s -s idle.lua --json F URL -- K"
	((HAVE_SOURCE)) && echo "    volley -q -c N -t $THREADS -d ${RUN_SECONDS}s -T 30s --source $SOURCES -s idle.lua --json F URL -- K"
	echo "    wrk -c N -t $THREADS -d ${RUN_SECONDS}s --timeout 30s -s idle.lua URL -- K"
	echo "    busy rows: the same without -s (requests back to back), -d ${BUSY_SECONDS}s"
	echo
	echo "The base runs last ${BASE_SECONDS}s. 'opened' is volley's JSON connections_opened (for wrk: the most"
	echo "connections nginx counted). Ephemeral ports: $PLO-$PHI."
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

main() {
	local r i run port=0 order=()
	start_nginx
	log "nginx (pid $NGINX_PID, $WORKERS workers x $NGX_CONNS connections) on 127.0.0.1:$PORT0-$((PORT0 + NPORTS - 1)), status on $STATUS_PORT"
	for ((r = 1; r <= ROUNDS; r++)); do
		# every other round in reverse, so no client always runs right after the same other
		order=()
		for ((i = 0; i < ${#RUNS[@]}; i++)); do
			((r % 2)) && order+=("${RUNS[i]}") || order+=("${RUNS[${#RUNS[@]} - 1 - i]}")
		done
		for run in "${order[@]}"; do
			set -- $run
			log "round $r/$ROUNDS: $1 (-c $3, $5)"
			run_one "$1" "$2" "$3" "$4" "$5" $((PORT0 + port))
			port=$((port + 1))
		done
	done
	kill -0 "$NGINX_PID" 2>/dev/null || die "nginx died during the run"
	report
}

main
