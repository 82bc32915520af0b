# shellcheck shell=bash
# bench.sh --h2: what HTTP/2 costs volley against h2load, on the same nginx in the same run.
# Sourced by bench.sh after bench_tls.sh, whose helpers it uses (tls_cert, json_get, sc_run,
# sc_line, med, ratio, verdict, le) besides bench.sh's (measure, median, json_completed,
# pick_port, log, NOTES, TMP, DUR, ROUNDS, VOLLEY, PORT). Three parts:
#   1. CPU per request, volley against h2load: -c 10 -m 10 and -c 50 -m 1, over TLS
#      (ALPN h2) and over h2c (prior knowledge); interleaved rounds, medians
#   2. the request() hook (hook_request.lua): the CPU it adds per request over HTTP/2
#      against what it adds over HTTP/1.1
#   3. system calls per request under strace -f -c (skipped without strace)

H2_N=${BENCH_H2_N:-20000} # -n of each part-3 run
[[ $H2_N =~ ^[1-9][0-9]*$ ]] || die "BENCH_H2_N must be a positive integer"

# ---- the server: one nginx; HTTP/2 over TLS 1.3 (ECDSA P-256) and h2c, beside the plain port ----
H2_TLS_PORT=
H2C_PORT=
h2_pick_ports() {
	H2_TLS_PORT=$(pick_port)
	while [[ $H2_TLS_PORT == "$PORT" ]]; do H2_TLS_PORT=$(pick_port); done
	H2C_PORT=$(pick_port)
	while [[ $H2C_PORT == "$PORT" || $H2C_PORT == "$H2_TLS_PORT" ]]; do H2C_PORT=$(pick_port); done
}

# The server blocks, inside http {}. nginx 1.22 ends an HTTP/2 connection after
# keepalive_requests streams (http2_max_requests is obsolete): raised so that no connection
# is recycled mid-run. The h2c port speaks HTTP/2 only (prior knowledge, no Upgrade).
h2_servers() {
	cat <<EOF
    server {
        listen 127.0.0.1:$H2_TLS_PORT ssl http2;
        ssl_certificate $TMP/nginx/cert.pem;
        ssl_certificate_key $TMP/nginx/key.pem;
        ssl_protocols TLSv1.3;
        http2_max_concurrent_streams 128;
        keepalive_requests 10000000;
        location / { return 200 "hello world"; }
    }
    server {
        listen 127.0.0.1:$H2C_PORT http2;
        http2_max_concurrent_streams 128;
        keepalive_requests 10000000;
        location / { return 200 "hello world"; }
    }
EOF
}

# ---- parts 1 and 2: CPU per request ----
# Rows: v|h (volley, h2load) + t|c (TLS, h2c) + 10|1 (-c 10 -m 10, -c 50 -m 1); hook rows
# k1 (HTTP/1.1, -c 50) and kc1 (h2c, -c 50 --streams 1) with hook_request.lua, and p1
# (HTTP/1.1, -c 50, no hook) as their reference.
H2_ROWS=(vt10 ht10 vt1 ht1 vc10 hc10 vc1 hc1 p1 k1 kc1)
declare -A H2_LABEL=([vt10]="volley --http2 -c 10 --streams 10" [ht10]="h2load -c 10 -m 10 (TLS)"
	[vt1]="volley --http2 -c 50 --streams 1" [ht1]="h2load -c 50 -m 1 (TLS)"
	[vc10]="volley --h2c -c 10 --streams 10" [hc10]="h2load -c 10 -m 10 (h2c)"
	[vc1]="volley --h2c -c 50 --streams 1" [hc1]="h2load -c 50 -m 1 (h2c)"
	[p1]="volley HTTP/1.1 -c 50" [k1]="volley HTTP/1.1 -c 50, request()" [kc1]="volley --h2c -c 50 --streams 1, request()")
# the volley row compared with each h2load row, and the goal's factor
declare -A H2_VS=([ht10]=vt10 [ht1]=vt1 [hc10]=vc10 [hc1]=vc1)
H2_GOAL=0.8

# h2_failed JSON: volley's failed requests (those cut off by the end of -d are not failures)
h2_failed() { json_get "$1" requests failed 2>/dev/null || echo "?"; }

# h2_run ROW: one run, appends "req_per_s cpu_us_per_req" to $TMP/h2.ROW
h2_run() {
	local row=$1 out=$TMP/out.h2.$1 n="" rc=0 url c m opt=() s=()
	case $row in
	?t*) url=https://127.0.0.1:$H2_TLS_PORT/ opt=(--http2) ;;
	?c* | kc1) url=http://127.0.0.1:$H2C_PORT/ opt=(--h2c) ;;
	p1 | k1) url=http://127.0.0.1:$PORT/ ;;
	esac
	[[ $row == *10 ]] && c=10 m=10 || c=50 m=1
	[[ $row == k* ]] && s=(-s "$HERE/hook_request.lua")
	case $row in
	h*)
		measure "$out" h2load -t1 -c"$c" -m"$m" -D "$DUR" "$url" || rc=$?
		n=$(awk '/^requests:/ { print $8 }' "$out") # "requests: N total, N started, N done, N succeeded"
		[[ $(awk '/^requests:/ { print $10 }' "$out") == 0 ]] ||
			NOTES+=("${H2_LABEL[$row]}: $(grep '^requests:' "$out")") ;;
	*)
		[[ $row == p1 || $row == k1 ]] || opt+=(--streams "$m")
		rm -f "$TMP/volley.json"
		measure "$out" "$VOLLEY" -t 1 -c "$c" "${opt[@]}" "${s[@]}" -d "${DUR}s" --json "$TMP/volley.json" "$url" || rc=$?
		if ((rc == 0)); then
			n=$(json_completed "$TMP/volley.json" 2>/dev/null) || true
			local e
			e=$(h2_failed "$TMP/volley.json")
			[[ $e == 0 ]] || NOTES+=("${H2_LABEL[$row]}: $e requests failed in a run: $(grep -A3 -i -m1 'error\|fail' "$out" | tr '\n' ' ' | cut -c1-160)")
		fi ;;
	esac
	if ((rc != 0)) || ! [[ $n =~ ^[0-9]+$ ]] || ((n == 0)); then
		NOTES+=("${H2_LABEL[$row]}: a run failed (exit $rc): $(tail -n1 "$out" 2>/dev/null | cut -c1-120)")
		return 0
	fi
	awk -v n="$n" -v cpu="$CPU_US" -v u="$USER_US" -v s="$SYS_US" -v w="$WALL_S" \
		'BEGIN { printf "%.0f %.3f %.3f %.3f\n", n / w, cpu / n, u / n, s / n }' >>"$TMP/h2.$row"
}

# ---- part 3: system calls per request, one run each (volley's and h2load's -n) ----
h2_syscalls() {
	local t=https://127.0.0.1:$H2_TLS_PORT/ c=http://127.0.0.1:$H2C_PORT/
	if ! command -v strace >/dev/null; then
		NOTES+=("system calls skipped: strace is not installed (Debian package strace)")
		return
	fi
	log "system calls (strace -f -c)"
	sc_run vt10 "volley --http2 -c 10 --streams 10 -n $H2_N" "$H2_N" \
		"$VOLLEY" -q -t 1 -c 10 --streams 10 -n "$H2_N" --http2 "$t"
	sc_run ht10 "h2load -c 10 -m 10 -n $H2_N (TLS)" "$H2_N" h2load -t1 -c10 -m10 -n "$H2_N" "$t"
	sc_run vc10 "volley --h2c -c 10 --streams 10 -n $H2_N" "$H2_N" \
		"$VOLLEY" -q -t 1 -c 10 --streams 10 -n "$H2_N" --h2c "$c"
	sc_run hc10 "h2load -c 10 -m 10 -n $H2_N (h2c)" "$H2_N" h2load -t1 -c10 -m10 -n "$H2_N" "$c"
	sc_run vt1 "volley --http2 -c 50 --streams 1 -n $H2_N" "$H2_N" \
		"$VOLLEY" -q -t 1 -c 50 --streams 1 -n "$H2_N" --http2 "$t"
	sc_run p1 "volley HTTP/1.1 -c 50 -n $H2_N" "$H2_N" "$VOLLEY" -q -t 1 -c 50 -n "$H2_N" "http://127.0.0.1:$PORT/"
}

# ---- the report ----
h2_row() { # h2_row ROW: a table line
	local f=$TMP/h2.$1 r=- ru=-
	if [[ -n ${H2_VS[$1]:-} ]]; then
		r=$(ratio "$(med 2 "$TMP/h2.${H2_VS[$1]}")" "$(med 2 "$f")")
		ru=$(ratio "$(med 3 "$TMP/h2.${H2_VS[$1]}")" "$(med 3 "$f")")
	fi
	if [[ -s $f ]]; then
		echo "| ${H2_LABEL[$1]} | $(wc -l <"$f")/$ROUNDS | $(median 1 "$f" | awk '{ printf "%.0f", $1 }')" \
			"| $(median 2 "$f" | awk '{ printf "%.2f", $1 }') | $(median 3 "$f" | awk '{ printf "%.2f", $1 }')" \
			"| $(median 4 "$f" | awk '{ printf "%.2f", $1 }') | $r | $ru |"
	else
		echo "| ${H2_LABEL[$1]} | 0/$ROUNDS | n/a | n/a | n/a | n/a | $r | $ru |"
	fi
}

h2_report() {
	local row v h g
	echo "## HTTP/2 (tests/bench --h2; nginx 1 worker, http2_max_concurrent_streams 128, $(nproc) cores)"
	echo
	echo "### CPU per request, 1 thread (${DUR}s x $ROUNDS rounds)"
	echo
	echo "| client | rounds | req/s (median) | CPU us/request (median) | user | sys | volley / h2load | user only |"
	echo "|---|---|---|---|---|---|---|---|"
	for row in vt10 ht10 vt1 ht1 vc10 hc10 vc1 hc1; do h2_row "$row"; done
	echo
	for row in ht10 ht1 hc10 hc1; do
		v=$(med 2 "$TMP/h2.${H2_VS[$row]}") h=$(med 2 "$TMP/h2.$row")
		echo "Goal: ${H2_LABEL[${H2_VS[$row]}]} <= ${H2_GOAL}x ${H2_LABEL[$row]}:" \
			"$(verdict "$(le "$v" "$(awk -v h="${h:-0}" -v g="$H2_GOAL" 'BEGIN { print g * h }')")") ($(ratio "$v" "$h")x)"
	done
	echo
	echo "### The request() hook over HTTP/2 and over HTTP/1.1 (-c 50, 1 stream per connection)"
	echo
	echo "| client | rounds | req/s (median) | CPU us/request (median) | user | sys | | |"
	echo "|---|---|---|---|---|---|---|---|"
	for row in p1 k1 vc1 kc1; do h2_row "$row"; done
	echo
	local x1 x2
	x1=$(awk -v a="$(med 2 "$TMP/h2.k1")" -v b="$(med 2 "$TMP/h2.p1")" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }')
	x2=$(awk -v a="$(med 2 "$TMP/h2.kc1")" -v b="$(med 2 "$TMP/h2.vc1")" 'BEGIN { if (a != "" && b != "") printf "%.2f", a - b }')
	echo "CPU the hook adds per request: HTTP/1.1 ${x1:-n/a} us, HTTP/2 (h2c) ${x2:-n/a} us"
	echo "Goal: the hook adds no more over HTTP/2 than over HTTP/1.1: $(verdict "$(le "$x2" "$x1")")" \
		"(HTTP/2 - HTTP/1.1: $(awk -v a="$x2" -v b="$x1" 'BEGIN { if (a != "" && b != "") printf "%+.2f us", a - b; else print "n/a" }'))"
	echo
	if ((${#SC_ROWS[@]})); then
		echo "### System calls per request (strace -f -c, one run each, -n $H2_N, start-up included)"
		echo
		echo "| run | requests | write | read | epoll_wait | epoll_ctl | other | all |"
		echo "|---|---|---|---|---|---|---|---|"
		for row in "${SC_ROWS[@]}"; do sc_line "$row"; done
		echo
		for row in vt10 vc10; do
			[[ -s $TMP/sc.$row ]] || continue
			echo "${SC_LABEL[$row]}, calls of 0.001 per request or more: $(awk -v n="$(cat "$TMP/sc.$row.n")" '
				/^-+/ { sep++; next }
				sep == 1 && NF >= 5 && $4 / n >= 0.0005 { printf "%s%s %.3f", sep_, $NF, $4 / n; sep_ = ", " }' "$TMP/sc.$row")"
		done
		echo
	fi
	echo "CPU = user+sys of each client process (bash \`times\` deltas around the run), each column the median of"
	echo "its own; \"user only\" compares the user parts; req/s = completed / wall seconds."
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

h2_main() {
	local r row
	log "h2 over TLS on 127.0.0.1:$H2_TLS_PORT, h2c on :$H2C_PORT, http/1.1 on :$PORT"
	[[ -x $VOLLEY ]] || die "volley is not built: $VOLLEY (set VOLLEY)"
	for ((r = 1; r <= ROUNDS; r++)); do
		for row in "${H2_ROWS[@]}"; do
			log "round $r/$ROUNDS: ${H2_LABEL[$row]}"
			h2_run "$row"
		done
	done
	h2_syscalls
	kill -0 "$NGINX_PID" 2>/dev/null || die "nginx died during the run"
	h2_report
}
