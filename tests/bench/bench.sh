#!/usr/bin/env bash
# CPU cost per request of volley against wrk, h2load, ab and the "floor" client,
# all driving the same private nginx on loopback in the same run.
#
#   bash tests/bench/bench.sh            keep-alive mode
#   bash tests/bench/bench.sh --close    a new connection per request
#   bash tests/bench/bench.sh --hooks    volley and wrk running the same Lua hooks
#                                        (tests/bench/hook_request.lua, hook_response.lua)
#   bash tests/bench/bench.sh --ab       volley ab against ab, with -k and without
#   bash tests/bench/bench.sh --tls      HTTPS: keep-alive CPU, handshakes, system calls,
#                                        memory per connection (tests/bench/bench_tls.sh)
#   bash tests/bench/bench.sh --h2       HTTP/2 against h2load over TLS and h2c, the request()
#                                        hook over HTTP/2, system calls (tests/bench/bench_h2.sh)
#
# Env: BENCH_SECONDS (3), BENCH_ROUNDS (3), BENCH_AB_N (10000000, -n of the --ab rows),
#      --tls only: BENCH_TLS_N (2000), BENCH_MEM_SECONDS (6), VOLLEY_B (a second volley binary),
#      --h2 only: BENCH_H2_N (20000, -n of the strace runs),
#      VOLLEY (<repo>/build/volley),
#      SHARED (<repo>/../shared, holds bench/floor-*.c), NGINX (nginx on PATH or /usr/sbin/nginx).
# Prints a markdown report on stdout, progress on stderr. Exits 0 whether or not the goal
# is met (it is a report); non-zero only if the benchmark itself cannot run.
set -euo pipefail
export LC_ALL=C # `times` and $EPOCHREALTIME print the locale's decimal point; awk needs '.'

MODE=keepalive
case "${1:-}" in
'') ;;
--close) MODE=close ;;
--hooks) MODE=hooks ;;
--ab) MODE=ab ;;
--tls) MODE=tls ;;
--h2) MODE=h2 ;;
*) echo "usage: $0 [--close | --hooks | --ab | --tls | --h2]" >&2; exit 2 ;;
esac

DUR=${BENCH_SECONDS:-3}
ROUNDS=${BENCH_ROUNDS:-3}
CONNS=50
AB_N=${BENCH_AB_N:-10000000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/nginx_lib.sh"
source "$HERE/bench_lib.sh"
TOP=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || TOP=$(cd "$HERE/../.." && pwd)
SHARED=${SHARED:-$TOP/../shared}
VOLLEY=${VOLLEY:-$TOP/build/volley}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

die() { echo "bench: $*" >&2; exit 1; }
log() { echo "bench: $*" >&2; }

[[ $DUR =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ && $AB_N =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_SECONDS, BENCH_ROUNDS and BENCH_AB_N must be positive integers"

# Rows of the table, in order, and their labels. h2load has no way to open a connection
# per request, so it sits out --close; wrk has no no-keepalive switch, but a
# "Connection: close" header makes nginx close and wrk reconnect.
if [[ $MODE == keepalive ]]; then
	TOOLS=(volley wrk h2load ab floor)
	declare -A LABEL=([volley]=volley [wrk]=wrk [h2load]=h2load [ab]="ab -k" [floor]="floor-keepalive")
elif [[ $MODE == ab ]]; then
	# `volley ab` (scripts/ab.lua) against the real ab with the same arguments, with -k
	# and without (a new connection per request); each volley ab row is compared with the
	# ab row below it (VS_AB). No floor: the goals are relative to ab.
	TOOLS=(vab-k ab-k vab ab)
	declare -A LABEL=([vab-k]="volley ab -k" [ab-k]="ab -k" [vab]="volley ab" [ab]="ab")
	declare -A VS_AB=([ab-k]=vab-k [ab]=vab)
	declare -A GOAL_AB=([ab-k]=0.7 [ab]=0.8)
elif [[ $MODE == tls || $MODE == h2 ]]; then
	TOOLS=() # bench_tls.sh and bench_h2.sh have their own rows
	declare -A LABEL=()
elif [[ $MODE == close ]]; then
	TOOLS=(volley wrk ab floor)
	declare -A LABEL=([volley]="volley --no-keepalive" [wrk]="wrk (Connection: close)" [ab]="ab" [floor]="floor-close")
else
	# Same script for both tools; the goals compare each volley row with the wrk row below it.
	TOOLS=(volley wrk volley-req wrk-req volley-res wrk-res floor)
	declare -A LABEL=([volley]=volley [wrk]=wrk [volley-req]="volley request()" [wrk-req]="wrk request()"
		[volley-res]="volley response()" [wrk-res]="wrk response()" [floor]="floor-keepalive")
	declare -A SCRIPT=([req]=$HERE/hook_request.lua [res]=$HERE/hook_response.lua)
fi
NOTES=()

# ---- peers must be installed; name the Debian package that is missing ----
check_peers() {
	local missing=()
	[[ -x $NGINX ]] || missing+=("nginx (Debian package nginx-light)")
	[[ $MODE == ab || $MODE == h2 ]] || command -v wrk >/dev/null || missing+=("wrk (Debian package wrk)")
	[[ $MODE != keepalive && $MODE != tls && $MODE != h2 ]] || command -v h2load >/dev/null || missing+=("h2load (Debian package nghttp2-client)")
	[[ $MODE == h2 ]] || command -v ab >/dev/null || missing+=("ab (Debian package apache2-utils)")
	[[ $MODE != tls && $MODE != h2 ]] || command -v openssl >/dev/null || missing+=("openssl (Debian package openssl)")
	if ((${#missing[@]})); then
		printf 'bench: missing %s\n' "${missing[@]}" >&2
		die "install them with: apt-get install nginx-light wrk nghttp2-client apache2-utils"
	fi
}

# ---- scratch dir and cleanup: nothing may outlive the script ----
TMP=$(mktemp -d "${TMPDIR:-/tmp}/volley-bench.XXXXXX")
NGINX_PID=
cleanup() {
	if [[ -n $NGINX_PID ]]; then
		kill "$NGINX_PID" 2>/dev/null || true
		wait "$NGINX_PID" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # run the EXIT trap on ^C too

# ---- private nginx: one process, generated config, everything inside $TMP ----
write_nginx_conf() {
	local port=$1 d=$TMP/nginx temp extra=""
	temp=$(nginx_temp_paths "$NGINX" "$d")
	# --tls: two HTTPS servers on ports of their own (bench_tls.sh), beside the plain one
	if [[ $MODE == tls ]]; then
		tls_pick_ports
		extra=$(tls_servers)
	elif [[ $MODE == h2 ]]; then # HTTP/2 over TLS and h2c (bench_h2.sh)
		h2_pick_ports
		extra=$(h2_servers)
	fi
	cat >"$d/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    $temp
    keepalive_requests 1000000;   # never recycle a kept-alive connection mid-run
    keepalive_timeout 300s;
    server {
        listen 127.0.0.1:$port;
        location / { return 200 "hello world"; }   # 11-byte body
    }
$extra
}
EOF
}

start_nginx() {
	local try
	mkdir -p "$TMP/nginx"
	for ((try = 0; try < 5; try++)); do
		PORT=$(pick_port)
		write_nginx_conf "$PORT"
		: >"$TMP/nginx/error.log"
		"$NGINX" -p "$TMP/nginx/" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" \
			</dev/null >"$TMP/nginx/stderr" 2>&1 &
		NGINX_PID=$!
		for _ in $(seq 50); do # up to 5 s for the port to answer
			if ! kill -0 "$NGINX_PID" 2>/dev/null; then break; fi
			if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then return 0; fi
			sleep 0.1
		done
		kill "$NGINX_PID" 2>/dev/null || true
		wait "$NGINX_PID" 2>/dev/null || true
		NGINX_PID=
		grep -qs "in use" "$TMP/nginx/error.log" "$TMP/nginx/stderr" || break # only a port race is worth a retry
	done
	cat "$TMP/nginx/error.log" "$TMP/nginx/stderr" >&2 2>/dev/null || true
	die "nginx would not start"
}

# ---- measuring one run ----
# CPU = user+sys of the child, from bash's `times` builtin (the shell's RUSAGE_CHILDREN,
# millisecond resolution) read just before and just after the run: no extra package
# needed, and it covers every process the tool waits for. `times` is redirected, not put
# in $(...), because a forked subshell would report its own (zero) children.

# measure OUT CMD...: run CMD (output to OUT), set CPU_US (USER_US + SYS_US) and WALL_S;
# returns CMD's status.
# `timeout` guards against a client that hangs (volley is still being written).
measure() {
	local out=$1 rc=0 t0 t1
	shift
	times >"$TMP/times0"
	t0=$EPOCHREALTIME
	timeout --foreground -k 5 $((DUR * 3 + 30)) "$@" >"$out" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	times >"$TMP/times1"
	CPU_US=$(($(children_us "$TMP/times1") - $(children_us "$TMP/times0")))
	USER_US=$(($(children_part_us "$TMP/times1" 1) - $(children_part_us "$TMP/times0" 1)))
	SYS_US=$((CPU_US - USER_US))
	WALL_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	return "$rc"
}

# The key path requests -> completed of volley's one JSON object.
json_completed() {
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["requests"]["completed"]))' "$1"
	else # flatten, take the "requests" object, then its "completed" number
		tr -d '\n' <"$1" | grep -o '"requests"[[:space:]]*:[[:space:]]*{[^}]*}' |
			grep -o '"completed"[[:space:]]*:[[:space:]]*[0-9]*' | grep -o '[0-9]*$'
	fi
}

# ---- the floor: compiled at run time from shared/, never copied into the repo ----
FLOOR=
FLOOR_N=
setup_floor() {
	local src=$SHARED/bench/floor-${MODE/hooks/keepalive}.c n0 rate
	[[ $MODE != ab ]] || return 0
	if [[ ! -f $src ]]; then NOTES+=("floor skipped: $src not found (set SHARED)"); return; fi
	if ! command -v cc >/dev/null || ! cc -O2 -o "$TMP/floor" "$src" 2>"$TMP/cc.log"; then
		NOTES+=("floor skipped: cc -O2 $src failed"); return
	fi
	# The floor takes a request count, not a duration: calibrate it to run about DUR seconds.
	[[ $MODE != close ]] && n0=20000 || n0=5000
	if ! "$TMP/floor" "$PORT" "$n0" "$CONNS" >"$TMP/floor.cal" 2>&1; then
		NOTES+=("floor skipped: calibration run failed: $(tail -n1 "$TMP/floor.cal")"); return
	fi
	rate=$(awk '{ for (i = 1; i < NF; i++) if ($i == "req_per_s") print $(i + 1) }' "$TMP/floor.cal")
	FLOOR_N=$(awk -v r="$rate" -v d="$DUR" -v c="$CONNS" 'BEGIN { n = int(r * d / c) * c; print (n < c ? c : n) }')
	FLOOR=$TMP/floor
}

# ---- one run of one tool: append "req_per_s cpu_us_per_req" to $TMP/res.TOOL ----
run_tool() {
	local tool=$1 url="http://127.0.0.1:$PORT/" out=$TMP/out.$1 n="" rc=0 s=()
	case $tool in
	volley-*) s=(-s "${SCRIPT[${tool#volley-}]}") ;;
	wrk-*) s=(-s "${SCRIPT[${tool#wrk-}]}") ;;
	esac
	case $tool in
	volley*)
		if [[ ! -x $VOLLEY ]]; then NOTES+=("volley n/a: $VOLLEY is not built (set VOLLEY)"); return; fi
		local ka=(); [[ $MODE == close ]] && ka=(--no-keepalive)
		rm -f "$TMP/volley.json"
		measure "$out" "$VOLLEY" -t 1 -c "$CONNS" -d "${DUR}s" "${ka[@]}" "${s[@]}" --json "$TMP/volley.json" "$url" || rc=$?
		if ((rc == 0)); then n=$(json_completed "$TMP/volley.json" 2>/dev/null) || true; fi ;;
	wrk*)
		local hdr=(); [[ $MODE == close ]] && hdr=(-H "Connection: close")
		measure "$out" wrk -t1 -c"$CONNS" -d"${DUR}s" "${hdr[@]}" "${s[@]}" "$url" || rc=$?
		n=$(awk '/ requests in / { print $1 }' "$out") ;;
	h2load)
		measure "$out" h2load --h1 -t1 -c"$CONNS" -D "$DUR" "$url" || rc=$?
		n=$(awk '/^requests:/ { print $8 }' "$out") ;; # "requests: N total, N started, N done, N succeeded"
	ab | ab-k)
		local ka=(); [[ $MODE == keepalive || $tool == ab-k ]] && ka=(-k)
		measure "$out" ab "${ka[@]}" -c "$CONNS" -t "$DUR" -n "$AB_N" "$url" || rc=$?
		n=$(awk '/^Complete requests:/ { print $3 }' "$out") ;;
	vab | vab-k) # the same command line as the ab row, through `volley ab`
		if [[ ! -x $VOLLEY ]]; then NOTES+=("volley ab n/a: $VOLLEY is not built (set VOLLEY)"); return; fi
		local ka=(); [[ $tool == vab-k ]] && ka=(-k)
		measure "$out" "$VOLLEY" ab "${ka[@]}" -c "$CONNS" -t "$DUR" -n "$AB_N" "$url" || rc=$?
		n=$(awk '/^Complete requests:/ { print $3 }' "$out") ;;
	floor)
		[[ -n $FLOOR ]] || return 0
		measure "$out" "$FLOOR" "$PORT" "$FLOOR_N" "$CONNS" || rc=$?
		n=$(awk '{ for (i = 1; i < NF; i++) if ($i == "requests") print $(i + 1) }' "$out")
		# the floor also reports its own getrusage(RUSAGE_SELF): a cross-check of our CPU method
		awk '{ for (i = 1; i < NF; i++) if ($i == "cpu_us_per_req") print $(i + 1) }' "$out" >>"$TMP/floor.self" ;;
	esac
	if ((rc != 0)) || ! [[ $n =~ ^[0-9]+$ ]] || ((n == 0)); then
		NOTES+=("${LABEL[$tool]}: a run failed (exit $rc): $(tail -n1 "$out" 2>/dev/null | cut -c1-120)")
		return 0
	fi
	awk -v n="$n" -v cpu="$CPU_US" -v w="$WALL_S" 'BEGIN { printf "%.0f %.3f\n", n / w, cpu / n }' >>"$TMP/res.$tool"
}

# report_ab: the --ab table; each ab row's ratio is its volley ab row's CPU over its own.
report_ab() {
	local tool rounds rps cpu ratio v a
	echo "## volley ab CPU per request (${DUR}s x $ROUNDS rounds, -c $CONNS -t $DUR -n $AB_N, nginx 1 worker, $(nproc) cores)"
	echo
	echo "| tool | rounds | req/s (median) | CPU us/request (median) | volley ab ratio |"
	echo "|---|---|---|---|---|"
	for tool in "${TOOLS[@]}"; do
		rounds=0 rps=n/a cpu=n/a ratio=-
		if [[ -s $TMP/res.$tool ]]; then
			rounds=$(wc -l <"$TMP/res.$tool")
			rps=$(median 1 "$TMP/res.$tool" | awk '{ printf "%.0f", $1 }')
			cpu=$(median 2 "$TMP/res.$tool" | awk '{ printf "%.2f", $1 }')
		fi
		if [[ -n ${VS_AB[$tool]:-} ]]; then
			ratio=n/a
			[[ -s $TMP/res.$tool && -s $TMP/res.${VS_AB[$tool]} ]] &&
				ratio=$(awk -v v="$(median 2 "$TMP/res.${VS_AB[$tool]}")" -v t="$(median 2 "$TMP/res.$tool")" 'BEGIN { printf "%.2f", v / t }')
		fi
		echo "| ${LABEL[$tool]} | $rounds/$ROUNDS | $rps | $cpu | $ratio |"
	done
	echo
	for tool in ab-k ab; do
		v=${VS_AB[$tool]}
		if [[ ! -s $TMP/res.$v || ! -s $TMP/res.$tool ]]; then
			echo "Goal: ${LABEL[$v]} <= ${GOAL_AB[$tool]}x ${LABEL[$tool]} CPU per request: unknown (no result for one of them)"
			continue
		fi
		awk -v v="$(median 2 "$TMP/res.$v")" -v a="$(median 2 "$TMP/res.$tool")" -v g="${GOAL_AB[$tool]}" \
			-v lv="${LABEL[$v]}" -v la="${LABEL[$tool]}" 'BEGIN {
			printf "Goal: %s <= %sx %s CPU per request: %s (%.2fx)\n", lv, g, la, (v <= g * a ? "met" : "NOT met"), v / a }'
	done
	echo
	echo "CPU = user+sys of each client process (bash \`times\` deltas around the run); req/s = Complete requests / wall seconds"
	echo "(wall time includes process start and exit, the same for both tools)."
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

report() {
	local tool rounds rps cpu ratio vcpu="" wcpu=""
	if [[ $MODE == ab ]]; then report_ab; return; fi
	[[ -s $TMP/res.volley ]] && vcpu=$(median 2 "$TMP/res.volley")
	[[ -s $TMP/res.wrk ]] && wcpu=$(median 2 "$TMP/res.wrk")
	echo "## volley CPU per request ($MODE, ${DUR}s x $ROUNDS rounds, 1 thread, $CONNS connections, nginx 1 worker, $(nproc) cores)"
	echo
	echo "| tool | rounds | req/s (median) | CPU us/request (median) | volley ratio |"
	echo "|---|---|---|---|---|"
	for tool in "${TOOLS[@]}"; do
		[[ $tool == floor && -z $FLOOR ]] && continue
		rounds=0 rps=n/a cpu=n/a ratio=n/a
		if [[ -s $TMP/res.$tool ]]; then
			rounds=$(wc -l <"$TMP/res.$tool")
			rps=$(median 1 "$TMP/res.$tool" | awk '{ printf "%.0f", $1 }')
			cpu=$(median 2 "$TMP/res.$tool" | awk '{ printf "%.2f", $1 }')
			[[ -n $vcpu ]] && ratio=$(awk -v v="$vcpu" -v t="$(median 2 "$TMP/res.$tool")" 'BEGIN { printf "%.2f", v / t }')
		fi
		echo "| ${LABEL[$tool]} | $rounds/$ROUNDS | $rps | $cpu | $ratio |"
	done
	echo
	for tool in "${TOOLS[@]}"; do
		[[ $tool == volley || ($tool == floor && -z $FLOOR) ]] && continue
		ratio=n/a
		[[ -n $vcpu && -s $TMP/res.$tool ]] &&
			ratio=$(awk -v v="$vcpu" -v t="$(median 2 "$TMP/res.$tool")" 'BEGIN { printf "%.2f", v / t }')
		echo "volley/${LABEL[$tool]} CPU per request: $ratio"
	done
	echo
	if [[ $MODE == hooks ]]; then
		local v w goal
		for pair in "req 0.6" "res 0.65"; do
			set -- $pair
			goal=$2
			[[ -s $TMP/res.volley-$1 && -s $TMP/res.wrk-$1 ]] || { echo "Goal ${LABEL[volley-$1]}: unknown"; continue; }
			v=$(median 2 "$TMP/res.volley-$1") w=$(median 2 "$TMP/res.wrk-$1")
			awk -v v="$v" -v w="$w" -v g="$goal" -v l="${LABEL[volley-$1]}" 'BEGIN {
				printf "Goal: %s <= %sx wrk CPU per request with the same hook: %s (%.2fx)\n", l, g, (v <= g * w ? "met" : "NOT met"), v / w }'
		done
	elif [[ -n $vcpu && -n $wcpu ]]; then
		awk -v v="$vcpu" -v w="$wcpu" -v l="${LABEL[wrk]}" 'BEGIN {
			printf "Goal: volley <= 0.8x %s CPU per request: %s (%.2fx)\n", l, (v <= 0.8 * w ? "met" : "NOT met"), v / w }'
	else
		echo "Goal: volley <= 0.8x ${LABEL[wrk]} CPU per request: unknown (no result for volley or wrk)"
	fi
	echo
	echo "CPU = user+sys of each client process (bash \`times\` deltas around the run); req/s = completed / wall seconds."
	[[ -s $TMP/floor.self ]] &&
		echo "- floor self-reported CPU us/request (median): $(median 1 "$TMP/floor.self") (cross-check of the method)"
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

main() {
	local r tool
	check_peers
	if [[ $MODE == tls || $MODE == h2 ]]; then
		# shellcheck source=bench_tls.sh
		source "$HERE/bench_tls.sh" # --h2 uses its certificate and strace helpers
		tls_cert
	fi
	# shellcheck source=bench_h2.sh
	[[ $MODE != h2 ]] || source "$HERE/bench_h2.sh"
	start_nginx
	log "nginx pid $NGINX_PID on 127.0.0.1:$PORT; mode $MODE, ${DUR}s x $ROUNDS rounds"
	if [[ $MODE == tls ]]; then tls_main; return; fi
	if [[ $MODE == h2 ]]; then h2_main; return; fi
	setup_floor
	[[ $MODE == close ]] && NOTES+=("h2load skipped: it cannot open a new connection per request")
	# Interleaved rounds: every tool once per round, so drift (thermal, noisy neighbours)
	# hits all tools alike instead of whichever ran last.
	local order=("${TOOLS[@]}") i
	for ((r = 1; r <= ROUNDS; r++)); do
		# --ab: every other round in reverse, so that neither tool of a pair always runs
		# right after the other (a run without -k leaves thousands of TIME_WAIT sockets).
		if [[ $MODE == ab ]]; then
			order=()
			for ((i = 0; i < ${#TOOLS[@]}; i++)); do
				((r % 2)) && order+=("${TOOLS[i]}") || order+=("${TOOLS[${#TOOLS[@]} - 1 - i]}")
			done
		fi
		for tool in "${order[@]}"; do
			log "round $r/$ROUNDS: ${LABEL[$tool]}"
			run_tool "$tool"
		done
	done
	kill -0 "$NGINX_PID" 2>/dev/null || die "nginx died during the run"
	report
}

main
