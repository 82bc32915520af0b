#!/usr/bin/env bash
# The benchmarks of flows (user(u)), against one private nginx on loopback:
#   1. a flow's u:get loop against the same requests built by request(conn),
#      and the same loop with a tag on each request (issue 31: <= 1.05x);
#      and the same loop as two scenarios sharing -c, each on a thread of its
#      own, against one scenario on as many threads (-t 2): several
#      scenarios cost what one does per request;
#      and the same loop as weighted tasks with a wait rule (tasks_loop.lua);
#   2. IDLE_USERS users asleep in u:sleep: RSS per user;
#   3. the three-step flow of flows/three_step.* in volley, Locust and Artillery.
# Prints a markdown report on stdout, progress on stderr; exits 0 whether or
# not a goal is met (it is a report), non-zero only if it cannot run.
#
# Env: BENCH_ROUNDS (3), BENCH_SECONDS (5, -d of part 3), FLOW_ITERATIONS (5000,
#      --iterations of part 1; K = 10 requests each), FLOW_USERS (50), IDLE_USERS
#      (10000), BASE_USERS (100), IDLE_SECONDS (5), MEM_ROUNDS (2), ARTILLERY_LOOPS
#      (40), ARTILLERY_DIR (<repo>/build/artillery: npm prefix), VOLLEY, NGINX.
set -euo pipefail
export LC_ALL=C

ROUNDS=${BENCH_ROUNDS:-3}
DUR=${BENCH_SECONDS:-5}
ITER=${FLOW_ITERATIONS:-5000}
K=10
USERS=${FLOW_USERS:-50}
IDLE=${IDLE_USERS:-10000}
BASE=${BASE_USERS:-100}
IDLE_SECONDS=${IDLE_SECONDS:-5}
MEM_ROUNDS=${MEM_ROUNDS:-2}
ART_LOOPS=${ARTILLERY_LOOPS:-40}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
F=$HERE/flows
source "$HERE/nginx_lib.sh"
source "$HERE/bench_lib.sh"
TOP=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || TOP=$(cd "$HERE/../.." && pwd)
VOLLEY=${VOLLEY:-$TOP/build/volley}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
ART_DIR=${ARTILLERY_DIR:-$TOP/build/artillery}
ARTILLERY=$ART_DIR/node_modules/.bin/artillery
export ARTILLERY_DISABLE_TELEMETRY=true # no reports to Artillery's servers: loopback only

die() { echo "flows: $*" >&2; exit 1; }
log() { echo "flows: $*" >&2; }
NOTES=()

for v in ROUNDS DUR ITER USERS IDLE BASE IDLE_SECONDS MEM_ROUNDS ART_LOOPS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, not '${!v}'"
done
[[ -x $VOLLEY ]] || die "$VOLLEY is not built (set VOLLEY)"
[[ -x $NGINX ]] || die "nginx not found (Debian package nginx-light)"
command -v locust >/dev/null || NOTES+=("Locust skipped: locust not found (Debian package python3-locust; make bench-flows installs it)")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/volley-flows.XXXXXX")
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

# Each idle user is a connection of volley's and one of nginx's.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(($(ulimit -n) >= IDLE + 200)) || die "IDLE_USERS=$IDLE does not fit the open-file limit $(ulimit -n)"

# ---- private nginx: one process; /login, /items/N, /checkout; stub_status on a port of its own ----
start_nginx() {
	local d=$TMP/nginx
	mkdir -p "$d"
	PORT=$(pick_port)
	SPORT=$(pick_port)
	while [[ $SPORT == "$PORT" ]]; do SPORT=$(pick_port); done
	cat >"$d/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
worker_rlimit_nofile $(ulimit -n);
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections $((IDLE + 2000)); }
http {
    access_log off;
    $(nginx_temp_paths "$NGINX" "$d")
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    server {
        listen 127.0.0.1:$PORT;
        location = /login { return 200 "welcome\n"; }
        location /items/ { default_type application/json; return 200 '{"id":1,"price":10}'; }
        location = /checkout { default_type application/json; return 200 '{"paid":3}'; }
        location / { return 404; }
    }
    server {
        listen 127.0.0.1:$SPORT;
        location = /s { stub_status; }
    }
}
EOF
	"$NGINX" -p "$d/" -c "$d/nginx.conf" -e "$d/error.log" </dev/null >"$d/stderr" 2>&1 &
	NGINX_PID=$!
	for _ in $(seq 50); do
		kill -0 "$NGINX_PID" 2>/dev/null || break
		(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$d/error.log" "$d/stderr" >&2 2>/dev/null || true
	die "nginx would not start"
}

# stub_read: set ACTIVE (open connections, this read's own one excluded) and
# REQUESTS (requests nginx has handled, this read's own one excluded).
stub_read() {
	local fd line prev="" text=()
	exec {fd}<>"/dev/tcp/127.0.0.1/$SPORT"
	printf 'GET /s HTTP/1.0\r\nHost: s\r\n\r\n' >&"$fd"
	while IFS= read -r line <&"$fd"; do text+=("${line%$'\r'}"); done
	exec {fd}<&-
	for line in "${text[@]}"; do
		[[ $line =~ ^Active\ connections:\ ([0-9]+) ]] && ACTIVE=$((BASH_REMATCH[1] - 1))
		[[ $prev == "server accepts handled requests" ]] && REQUESTS=$(($(awk '{ print $3 }' <<<"$line") - 1))
		prev=$line
	done
}

# measure OUT LIMIT CMD...: run CMD (output to OUT) for at most LIMIT seconds; set
# CPU_US (user+sys of CMD and every process it waited for, from bash's `times`),
# WALL_S and NGINX_N (the requests nginx handled meanwhile); returns CMD's status.
measure() {
	local out=$1 limit=$2 rc=0 t0 t1 r0
	shift 2
	stub_read
	r0=$REQUESTS
	times >"$TMP/times0"
	t0=$EPOCHREALTIME
	timeout --foreground -k 5 "$limit" "$@" >"$out" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	times >"$TMP/times1"
	stub_read
	NGINX_N=$((REQUESTS - r0 - 1)) # the read before the run counted itself after it had begun
	CPU_US=$(($(children_us "$TMP/times1") - $(children_us "$TMP/times0")))
	WALL_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	return "$rc"
}

json_field() { # json_field FILE KEY1 KEY2...: a number of volley's JSON
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(int(v))' "$@"
}

# ---- one CPU run: append "req_per_s cpu_us_per_req own_count nginx_count" to $TMP/res.ROW ----
declare -A LABEL=([plain]="volley, no script (-n)" [request]="volley request(conn) (-n)"
	[flow]="volley flow u:get loop (--iterations)" [tags]="volley flow u:get loop, tags = { kind = \"api\" } on each"
	[flowt2]="volley flow u:get loop, -t 2" [flow2]="volley flow u:get loop, two scenarios (a thread each)"
	[tasks]="volley flow, weighted tasks + wait (--iterations)"
	[v3]="volley flow, three steps"
	[locust]="Locust FastHttpUser" [artillery]="Artillery")
run_row() {
	local row=$1 out=$TMP/out.$1 url="http://127.0.0.1:$PORT/" n="" rc=0 j=$TMP/volley.json
	rm -f "$j"
	case $row in
	plain) measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" -n $((ITER * K)) --json "$j" "${url}items/1" || rc=$? ;;
	request) measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" -n $((ITER * K)) -s "$F/request_loop.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	flow) measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" --iterations "$ITER" -s "$F/get_loop.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	tags) measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" --iterations "$ITER" -s "$F/get_loop_tags.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	flowt2) measure "$out" 120 "$VOLLEY" -q -t 2 -c "$USERS" --iterations "$ITER" -s "$F/get_loop.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	flow2) FLOW_ITERATIONS=$ITER measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" -s "$F/get_loop_scenarios.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	tasks) measure "$out" 120 "$VOLLEY" -q -t 1 -c "$USERS" --iterations "$ITER" -s "$F/tasks_loop.lua" --json "$j" "$url" -- "$K" || rc=$? ;;
	v3) measure "$out" $((DUR + 60)) "$VOLLEY" -q -t 1 -c "$USERS" -d "${DUR}s" -s "$F/three_step.lua" --json "$j" "$url" || rc=$? ;;
	locust)
		measure "$out" $((DUR + 60)) locust -f "$F/three_step.py" --headless -u "$USERS" -r "$USERS" -t "${DUR}s" \
			-H "http://127.0.0.1:$PORT" --only-summary --loglevel WARNING || rc=$?
		n=$(awk '$1 == "Aggregated" { print $2; exit }' "$out") ;;
	artillery)
		sed -e "s/@USERS@/$USERS/" -e "s/@LOOPS@/$ART_LOOPS/" "$F/three_step.yml" >"$TMP/three_step.yml"
		measure "$out" 300 "$ARTILLERY" run --target "http://127.0.0.1:$PORT" "$TMP/three_step.yml" || rc=$?
		n=$(awk '/^http.responses:/ { v = $NF } END { print v }' "$out") ;;
	esac
	if [[ $row != locust && $row != artillery ]] && ((rc == 0)); then
		n=$(json_field "$j" requests completed 2>/dev/null) || n=""
		(($(json_field "$j" requests failed 2>/dev/null || echo 1) == 0)) || NOTES+=("${LABEL[$row]}: a run had failed requests")
	fi
	if ((rc != 0 && rc != 1)) || ! [[ $n =~ ^[0-9]+$ ]] || ((NGINX_N <= 0)); then
		NOTES+=("${LABEL[$row]}: a run failed (exit $rc): $(grep -v '^$' "$out" | tail -n1 | cut -c1-160)")
		return 0
	fi
	# CPU per request is over nginx's count: the one figure every tool shares
	awk -v n="$n" -v g="$NGINX_N" -v cpu="$CPU_US" -v w="$WALL_S" \
		'BEGIN { printf "%.0f %.3f %d %d\n", g / w, cpu / g, n, g }' >>"$TMP/res.$row"
}

# ---- one memory run: append "rss_kb lua_heap_kb open" to $TMP/mem.ROW_N ----
# The client runs for IDLE_SECONDS; once every connection is open and (for the
# flow) every user has had its answer and gone to sleep, plus a second, its VmRSS
# is read from /proc/PID/status.
mem_run() {
	local kind=$1 c=$2 out=$TMP/mem.out tpid vpid="" rss="" heap=0 deadline i rc=0 script
	[[ $kind == flow ]] && script=$F/sleepy.lua || script=$F/idle.lua
	timeout -k 5 $((IDLE_SECONDS + 30)) "$VOLLEY" -q -t 1 -c "$c" -d "${IDLE_SECONDS}s" -T 30s -s "$script" \
		"http://127.0.0.1:$PORT/items/1" -- "$c" >"$out" 2>&1 &
	tpid=$!
	deadline=$((${EPOCHREALTIME%.*} + IDLE_SECONDS - 1))
	while ((${EPOCHREALTIME%.*} < deadline)); do
		[[ -n $vpid ]] || vpid=$(cat "/proc/$tpid/task/$tpid/children" 2>/dev/null | awk '{ print $1 }')
		stub_read
		if [[ -n $vpid ]] && ((ACTIVE >= c)) && { [[ $kind != flow ]] || grep -q '^lua_heap_kb' "$out"; }; then
			sleep 1
			rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$vpid/status" 2>/dev/null) || rss=""
			break
		fi
		sleep 0.05
	done
	stub_read
	local open=$ACTIVE
	wait "$tpid" || rc=$?
	[[ $kind == flow ]] && heap=$(awk '/^lua_heap_kb/ { print $3 }' "$out")
	if [[ -z $rss ]] || ((rc != 0)); then
		NOTES+=("memory, $kind -c $c: not measured (exit $rc, $open connections open at the deadline): $(tail -n1 "$out" | cut -c1-120)")
		return 0
	fi
	echo "$rss ${heap:-0} $open" >>"$TMP/mem.${kind}_$c"
	for i in $(seq 100); do # nginx must have closed them all before the next run
		stub_read
		((ACTIVE == 0)) && break
		sleep 0.1
	done
}

# ---- the report ----
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
med() { [[ -s $TMP/$2 ]] && median "$1" "$TMP/$2" || echo ""; }

goal_line() { # goal_line TEXT A B LIMIT: "Goal: TEXT: met (x)" with x = A / B
	if [[ -z $2 || -z $3 ]]; then echo "Goal: $1: unknown (no result)"; return; fi
	awk -v t="$1" -v a="$2" -v b="$3" -v g="$4" 'BEGIN { printf "Goal: %s: %s (%.3fx)\n", t, (a <= g * b ? "met" : "NOT met"), a / b }'
}

cpu_table() {
	local row rounds
	echo "| row | rounds | req/s (median) | CPU us/request (median) | requests (own count / nginx, last run) |"
	echo "|---|---|---|---|---|"
	for row in "$@"; do
		rounds=0
		[[ -s $TMP/res.$row ]] && rounds=$(wc -l <"$TMP/res.$row")
		if ((rounds)); then
			echo "| ${LABEL[$row]} | $rounds/$ROUNDS | $(med 1 "res.$row" | awk '{ printf "%.0f", $1 }') |" \
				"$(med 2 "res.$row" | awk '{ printf "%.2f", $1 }') | $(tail -n1 "$TMP/res.$row" | awk '{ print $3 " / " $4 }') |"
		else
			echo "| ${LABEL[$row]} | 0/$ROUNDS | n/a | n/a | n/a |"
		fi
	done
}

report() {
	local f r v3 loc art lv="" av=""
	echo "## Flows: u:get against request(conn) ($ROUNDS rounds, -t 1 -c $USERS, $((ITER * K)) requests, nginx 1 worker, $(nproc) cores)"
	echo
	cpu_table plain request flow tags flowt2 flow2 tasks
	echo
	f=$(med 2 res.flow) r=$(med 2 res.request)
	goal_line "flow u:get <= 1.1x request(conn) CPU per request" "$f" "$r" 1.1
	goal_line "flow u:get with a tag on each <= 1.05x without CPU per request" "$(med 2 res.tags)" "$f" 1.05
	goal_line "two scenarios <= 1.05x one scenario on as many threads, CPU per request" "$(med 2 res.flow2)" \
		"$(med 2 res.flowt2)" 1.05
	goal_line "weighted tasks + wait <= 1.05x the flow's u:get CPU per request" "$(med 2 res.tasks)" "$f" 1.05
	echo
	echo "## Flows: $IDLE users asleep in u:sleep ($MEM_ROUNDS rounds, -t 1 -d ${IDLE_SECONDS}s, base -c $BASE)"
	echo
	echo "| row | rounds | RSS KB at -c $IDLE | RSS KB at -c $BASE | KB per user | Lua heap KB per user |"
	echo "|---|---|---|---|---|---|"
	local kind big small per heap name
	for kind in flow conn; do
		[[ $kind == flow ]] && name="volley flow, u:sleep (sleepy.lua)" || name="volley, idle connections, no flow (idle.lua)"
		if [[ -s $TMP/mem.${kind}_$IDLE && -s $TMP/mem.${kind}_$BASE ]]; then
			big=$(med 1 "mem.${kind}_$IDLE") small=$(med 1 "mem.${kind}_$BASE")
			per=$(awk -v a="$big" -v b="$small" -v n=$((IDLE - BASE)) 'BEGIN { printf "%.2f", (a - b) / n }')
			heap=-
			[[ $kind == flow ]] && heap=$(awk -v a="$(med 2 "mem.${kind}_$IDLE")" -v b="$(med 2 "mem.${kind}_$BASE")" \
				-v n=$((IDLE - BASE)) 'BEGIN { printf "%.2f", (a - b) / n }')
			echo "| $name | $(wc -l <"$TMP/mem.${kind}_$IDLE")/$MEM_ROUNDS | $big | $small | $per | $heap |"
			[[ $kind == flow ]] && PER_USER=$per
		else
			echo "| $name | 0/$MEM_ROUNDS | n/a | n/a | n/a | - |"
		fi
	done
	echo
	if [[ -n ${PER_USER:-} ]]; then
		awk -v p="$PER_USER" 'BEGIN { printf "Goal: RSS per user asleep <= 8 KB: %s (%.2f KB)\n", (p <= 8 ? "met" : "NOT met"), p }'
	else
		echo "Goal: RSS per user asleep <= 8 KB: unknown (no result)"
	fi
	echo "sizeof(struct conn): $(conn_size) bytes"
	echo
	echo "## Flows: the three-step flow in volley, Locust and Artillery ($ROUNDS rounds, $USERS users, no think time)"
	echo
	cpu_table v3 locust artillery
	echo
	v3=$(med 2 res.v3) loc=$(med 2 res.locust) art=$(med 2 res.artillery)
	goal_line "volley <= 0.05x Locust CPU per request" "$v3" "$loc" 0.05
	goal_line "volley <= 0.05x Artillery CPU per request" "$v3" "$art" 0.05
	echo
	# Debian's locust prints an empty version ("locust "): ask the package
	command -v locust >/dev/null &&
		lv="Locust $(dpkg-query -W -f='${Version}' python3-locust 2>/dev/null || echo '?') (Debian python3-locust)"
	[[ -x $ARTILLERY ]] && av=$("$ARTILLERY" --version 2>/dev/null | awk '/^Artillery:/ { print $2 }')
	echo "Versions: $("$VOLLEY" --version 2>&1 | head -n1); ${lv:-Locust n/a}; Artillery ${av:-n/a} on Node $(node --version 2>/dev/null || echo n/a); $("$NGINX" -v 2>&1)."
	echo "CPU = user+sys of each client and every process it waited for (bash \`times\`), per request nginx handled (stub_status)."
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

# sizeof(struct conn), from the tree's own header, compiled in $TMP (empty if it cannot be).
conn_size() {
	printf '#include <stdio.h>\n#include "conn.h"\nint main(void) { printf("%%zu\\n", sizeof(struct conn)); return 0; }\n' >"$TMP/size.c"
	cc $(for d in "$TOP"/src/*/; do printf -- "-I%s " "$d"; done) $(pkg-config --cflags luajit 2>/dev/null) -o "$TMP/size" "$TMP/size.c" 2>/dev/null && "$TMP/size" || echo "n/a"
}

# Artillery from npm into a private prefix; skipped with a note if the registry is out of reach.
setup_artillery() {
	[[ -x $ARTILLERY ]] && return 0
	if ! command -v npm >/dev/null; then NOTES+=("Artillery skipped: npm not found"); return 0; fi
	if ! timeout 20 npm ping >/dev/null 2>&1; then NOTES+=("Artillery skipped: npm cannot reach its registry ($(npm config get registry))"); return 0; fi
	log "installing Artillery into $ART_DIR (npm)"
	mkdir -p "$ART_DIR"
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 900 npm install --prefix "$ART_DIR" --no-audit --no-fund artillery \
		>"$TMP/npm.log" 2>&1 || NOTES+=("Artillery skipped: npm install failed: $(tail -n1 "$TMP/npm.log")")
}

main() {
	local r row c kind
	setup_artillery
	start_nginx
	log "nginx pid $NGINX_PID on 127.0.0.1:$PORT (stub_status :$SPORT)"
	local rows=(plain request flow tags flowt2 flow2 tasks v3)
	command -v locust >/dev/null && rows+=(locust)
	[[ -x $ARTILLERY ]] && rows+=(artillery)
	for ((r = 1; r <= ROUNDS; r++)); do
		for row in "${rows[@]}"; do
			log "round $r/$ROUNDS: ${LABEL[$row]}"
			run_row "$row"
		done
	done
	for ((r = 1; r <= MEM_ROUNDS; r++)); do
		for kind in flow conn; do
			for c in "$IDLE" "$BASE"; do
				log "memory round $r/$MEM_ROUNDS: $kind -c $c"
				mem_run "$kind" "$c"
			done
		done
	done
	kill -0 "$NGINX_PID" 2>/dev/null || die "nginx died during the run"
	report
}

main
