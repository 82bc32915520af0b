# shellcheck shell=bash
# bench.sh --tls: what HTTPS costs volley, against wrk, h2load and ab, on the same nginx in
# the same run. Sourced by bench.sh, whose helpers it uses (measure, median, json_completed,
# pick_port, log, NOTES, TMP, DUR, ROUNDS, CONNS, AB_N, VOLLEY, PORT). Four parts:
#   1. keep-alive CPU per request over TLS 1.3 (interleaved rounds, medians)
#   2. a new connection per request: handshakes per client CPU-second, TLS 1.3 and 1.2
#   3. system calls per request (strace -c -f; skipped without strace)
#   4. RSS per idle TLS connection at 2,000 connections
# VOLLEY_B, if set, is a second volley binary (e.g. one built with SSL_MODE_RELEASE_BUFFERS)
# that gets a row in parts 1 and 4.

TLS_N=${BENCH_TLS_N:-2000}           # -n of each part-2 run
MEM_S=${BENCH_MEM_SECONDS:-6}        # seconds of each part-4 run
MEM_ROUNDS=${BENCH_MEM_ROUNDS:-2}
MEM_C=2000
VOLLEY_B=${VOLLEY_B:-}
VOLLEY_B_LABEL=${VOLLEY_B_LABEL:-volley B}
[[ $TLS_N =~ ^[1-9][0-9]*$ && $MEM_S =~ ^[1-9][0-9]*$ && $MEM_ROUNDS =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_TLS_N, BENCH_MEM_SECONDS and BENCH_MEM_ROUNDS must be positive integers"
((MEM_S >= 3)) || die "BENCH_MEM_SECONDS must be at least 3"
[[ -z $VOLLEY_B || -x $VOLLEY_B ]] || die "VOLLEY_B=$VOLLEY_B is not an executable"

# ---- the server: ECDSA P-256, TLS 1.2 and 1.3; one port with resumption, one without ----
TLS_PORT=
TLS_FULL_PORT=
tls_cert() {
	mkdir -p "$TMP/nginx"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
		-keyout "$TMP/nginx/key.pem" -out "$TMP/nginx/cert.pem" >"$TMP/openssl.log" 2>&1 ||
		die "openssl req failed: $(tail -n1 "$TMP/openssl.log")"
}

tls_pick_ports() {
	TLS_PORT=$(pick_port)
	while [[ $TLS_PORT == "$PORT" ]]; do TLS_PORT=$(pick_port); done
	TLS_FULL_PORT=$(pick_port)
	while [[ $TLS_FULL_PORT == "$PORT" || $TLS_FULL_PORT == "$TLS_PORT" ]]; do TLS_FULL_PORT=$(pick_port); done
}

# The server blocks, inside http {}. The second one has no session cache and no tickets:
# every handshake there is a full one, whatever the client asks for.
tls_servers() {
	local s
	for s in "$TLS_PORT shared:SSL:20m on" "$TLS_FULL_PORT off off"; do
		set -- $s
		cat <<EOF
    server {
        listen 127.0.0.1:$1 ssl;
        ssl_certificate $TMP/nginx/cert.pem;
        ssl_certificate_key $TMP/nginx/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache $2;
        ssl_session_tickets $3;
        location / { return 200 "hello world"; }
    }
EOF
	done
}

# json_get FILE KEY...: one number of volley's JSON, by its key path (null -> 0).
json_get() {
	local f=$1
	shift
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(int(v or 0))' "$f" "$@"
	else # the last key alone; "full" and "resumed" occur once, inside tls.handshakes
		tr -d '\n' <"$f" | grep -o "\"${!#}\"[[:space:]]*:[[:space:]]*[0-9]*" | head -n1 | grep -o '[0-9]*$'
	fi
}

# ---- part 1: keep-alive CPU per request, 50 connections ----
KA_ROWS=(v v2 wrk h2load abk vh vh2)
[[ -n $VOLLEY_B ]] && KA_ROWS=(v vb v2 wrk h2load abk vh vh2)
declare -A KA_LABEL=([v]="volley https" [vb]="$VOLLEY_B_LABEL https" [v2]="volley https -t 2"
	[wrk]="wrk https" [h2load]="h2load --h1 https" [abk]="ab -k https"
	[vh]="volley http" [vh2]="volley http -t 2")

# ka_run ROW: one run, appends "req_per_s cpu_us_per_req" to $TMP/ka.ROW
ka_run() {
	local row=$1 out=$TMP/out.ka.$1 n="" rc=0 bin=$VOLLEY t=1
	local https=https://127.0.0.1:$TLS_PORT/ http=http://127.0.0.1:$PORT/
	case $row in
	v | vb | v2 | vh | vh2)
		[[ $row == vb ]] && bin=$VOLLEY_B
		[[ $row == *2 ]] && t=2
		local url=$https
		[[ $row == vh* ]] && url=$http
		rm -f "$TMP/volley.json"
		measure "$out" "$bin" -t "$t" -c "$CONNS" -d "${DUR}s" --json "$TMP/volley.json" "$url" || rc=$?
		if ((rc == 0)); then n=$(json_completed "$TMP/volley.json" 2>/dev/null) || true; fi ;;
	wrk)
		measure "$out" wrk -t1 -c"$CONNS" -d"${DUR}s" "$https" || rc=$?
		n=$(awk '/ requests in / { print $1 }' "$out") ;;
	h2load)
		measure "$out" h2load --h1 -t1 -c"$CONNS" -D "$DUR" "$https" || rc=$?
		n=$(awk '/^requests:/ { print $8 }' "$out") ;;
	abk)
		measure "$out" ab -k -c "$CONNS" -t "$DUR" -n "$AB_N" "$https" || rc=$?
		n=$(awk '/^Complete requests:/ { print $3 }' "$out") ;;
	esac
	if ((rc != 0)) || ! [[ $n =~ ^[0-9]+$ ]] || ((n == 0)); then
		NOTES+=("${KA_LABEL[$row]}: a run failed (exit $rc): $(tail -n1 "$out" 2>/dev/null | cut -c1-120)")
		return 0
	fi
	awk -v n="$n" -v cpu="$CPU_US" -v w="$WALL_S" 'BEGIN { printf "%.0f %.3f\n", n / w, cpu / n }' >>"$TMP/ka.$row"
}

# ---- part 2: a new connection per request, -c 10, fixed -n ----
# Rows per version: volley (resumes by default), volley --tls-resume=off, volley against the
# server that cannot resume (full handshakes whatever the client does), ab (never resumes).
HS_KINDS=(on off full ab)
declare -A HS_LABEL=([on]="volley --no-keepalive" [off]="volley --no-keepalive --tls-resume=off"
	[full]="volley --no-keepalive, server without resumption" [ab]="ab")

# hs_run KIND VER (12 or 13): appends "handshakes_per_cpu_s cpu_us_per_handshake full resumed"
hs_run() {
	local kind=$1 ver=$2 out=$TMP/out.hs.$1.$2 rc=0 full=0 resumed=0 done=0 port=$TLS_PORT
	local v="1.${ver#1}"
	case $kind in
	on | off | full)
		local opt=()
		[[ $kind == off ]] && opt=(--tls-resume=off)
		[[ $kind == full ]] && port=$TLS_FULL_PORT
		rm -f "$TMP/volley.json"
		measure "$out" "$VOLLEY" -q -t 1 -c 10 -n "$TLS_N" --no-keepalive --tls-min "$v" --tls-max "$v" \
			"${opt[@]}" --json "$TMP/volley.json" "https://127.0.0.1:$port/" || rc=$?
		if ((rc == 0)); then
			done=$(json_completed "$TMP/volley.json") || done=0
			full=$(json_get "$TMP/volley.json" tls handshakes full) || full=0
			resumed=$(json_get "$TMP/volley.json" tls handshakes resumed) || resumed=0
		fi ;;
	ab)
		measure "$out" ab -c 10 -n "$TLS_N" -f "TLS$v" "https://127.0.0.1:$port/" || rc=$?
		done=$(awk '/^Complete requests:/ { print $3 }' "$out")
		full=$done
		if [[ $(awk '/^Failed requests:/ { print $3 }' "$out") != 0 ]] && ((rc == 0)); then rc=1; fi ;;
	esac
	if ((rc != 0)) || [[ $done != "$TLS_N" ]] || ((full + resumed == 0)); then
		NOTES+=("${HS_LABEL[$kind]} TLS $v: a run failed (exit $rc, $done of $TLS_N): $(tail -n1 "$out" 2>/dev/null | cut -c1-120)")
		return 0
	fi
	awk -v h=$((full + resumed)) -v cpu="$CPU_US" -v f="$full" -v r="$resumed" \
		'BEGIN { printf "%.0f %.1f %d %d\n", h / (cpu / 1e6), cpu / h, f, r }' >>"$TMP/hs.$kind.$ver"
}

# ---- part 3: system calls per request (one run each; strace -c counts are steady) ----
SC_ROWS=()
declare -A SC_LABEL=()
# sc_run ROW LABEL REQUESTS|wrk CMD...: strace -f -c CMD; requests from the argument or wrk's output
sc_run() {
	local row=$1 label=$2 n=$3 out=$TMP/out.sc.$1 rc=0
	shift 3
	SC_ROWS+=("$row")
	SC_LABEL[$row]=$label
	timeout --foreground -k 5 $((DUR * 10 + 60)) strace -f -c -o "$TMP/sc.$row" "$@" >"$out" 2>&1 || rc=$?
	[[ $n == wrk ]] && n=$(awk '/ requests in / { print $1 }' "$out")
	if ((rc != 0)) || ! [[ $n =~ ^[0-9]+$ ]] || [[ ! -s $TMP/sc.$row ]]; then
		NOTES+=("strace of $label failed (exit $rc): $(tail -n1 "$out" 2>/dev/null | cut -c1-120)")
		rm -f "$TMP/sc.$row"
		return 0
	fi
	echo "$n" >"$TMP/sc.$row.n"
}

# sc_line ROW: the table row; per request = calls / requests ("calls" is the 4th column of
# strace -c whether or not the errors column is empty; the syscall name is the last)
sc_line() {
	local row=$1
	[[ -s $TMP/sc.$row ]] || { echo "| ${SC_LABEL[$row]} | n/a | | | | | | |"; return; }
	awk -v n="$(cat "$TMP/sc.$row.n")" -v l="${SC_LABEL[$row]}" '
		/^-+/ { sep++; next }
		sep == 1 && NF >= 5 { c[$NF] = $4; all += $4 }
		END {
			other = all - c["write"] - c["read"] - c["epoll_wait"] - c["epoll_ctl"]
			printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | **%.2f** |\n", l, n,
				c["write"] / n, c["read"] / n, c["epoll_wait"] / n, c["epoll_ctl"] / n, other / n, all / n
		}' "$TMP/sc.$row"
}

tls_syscalls() {
	local https=https://127.0.0.1:$TLS_PORT/ n=20000
	if ! command -v strace >/dev/null; then
		NOTES+=("system calls skipped: strace is not installed (Debian package strace)")
		return
	fi
	log "system calls (strace -f -c)"
	sc_run v "volley https -n $n" "$n" "$VOLLEY" -q -t 1 -c "$CONNS" -n "$n" "$https"
	sc_run vh "volley http -n $n" "$n" "$VOLLEY" -q -t 1 -c "$CONNS" -n "$n" "http://127.0.0.1:$PORT/"
	sc_run wrk "wrk https -d 2s" wrk wrk -t1 -c"$CONNS" -d2s "$https"
	sc_run vc "volley https --no-keepalive -c 10 -n $TLS_N" "$TLS_N" \
		"$VOLLEY" -q -t 1 -c 10 -n "$TLS_N" --no-keepalive "$https"
}

# ---- part 4: RSS per idle TLS connection ----
# Every connection stays open and sends one request a second: volley and wrk run
# delay.lua (delay() returns 1000 ms), h2load a timing script with one line a second.
# (volley -R opens connections only as the rate needs them, so it would not hold 2,000.)
MEM_ROWS=(v wrk h2load)
[[ -n $VOLLEY_B ]] && MEM_ROWS=(v vb wrk h2load)
declare -A MEM_LABEL=([v]=volley [vb]="$VOLLEY_B_LABEL" [wrk]=wrk [h2load]="h2load --h1")

# child_of PID: the pid of PID's child (field 4 of /proc/N/stat, after the command name)
child_of() {
	local f line rest
	for f in /proc/[0-9]*/stat; do
		read -r line <"$f" 2>/dev/null || continue
		rest=${line##*) }
		[[ ${rest#* } == "$1 "* ]] && { f=${f#/proc/}; echo "${f%/stat}"; return 0; }
	done
	return 0
}

# mem_run ROW C [TAG ENV...]: VmRSS (KiB) and open descriptors of the client, read at 2/3
# of the run; appends "rss_kib fds" to $TMP/mem.ROW.C[.TAG]
mem_run() {
	local row=$1 c=$2 tag=${3:-} out=$TMP/out.mem.$1.$2 url=https://127.0.0.1:$TLS_PORT/ cmd=() tpid pid="" rss fds
	shift 2
	(($#)) && shift
	case $row in
	v | vb)
		local bin=$VOLLEY
		[[ $row == vb ]] && bin=$VOLLEY_B
		cmd=("$bin" -q -t 1 -c "$c" -d "${MEM_S}s" -s "$HERE/delay.lua" "$url") ;;
	wrk) cmd=(wrk -t1 -c"$c" -d"${MEM_S}s" -s "$HERE/delay.lua" "$url") ;;
	h2load) cmd=(h2load --h1 -t1 -c"$c" --timing-script-file="$TMP/timing" -B "https://127.0.0.1:$TLS_PORT") ;;
	esac
	timeout --foreground -k 5 $((MEM_S + 30)) env "$@" "${cmd[@]}" >"$out" 2>&1 &
	tpid=$!
	sleep "$(awk -v s="$MEM_S" 'BEGIN { print s * 2 / 3 }')"
	pid=$(child_of "$tpid")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || rss=""
	fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	wait "$tpid" || { NOTES+=("${MEM_LABEL[$row]} -c $c: exit $?: $(tail -n1 "$out" | cut -c1-120)"); return 0; }
	if [[ -z $pid || -z $rss ]]; then NOTES+=("${MEM_LABEL[$row]} -c $c: no RSS read"); return 0; fi
	echo "$rss $fds" >>"$TMP/mem.$row.$c${tag:+.$tag}"
}

tls_memory() {
	local r row c i
	for ((i = 0; i <= MEM_S; i++)); do printf '%d\t/\n' $((i * 1000)); done >"$TMP/timing"
	for ((r = 1; r <= MEM_ROUNDS; r++)); do
		for row in "${MEM_ROWS[@]}"; do
			for c in "$MEM_C" 1; do
				log "memory round $r/$MEM_ROUNDS: ${MEM_LABEL[$row]} -c $c"
				mem_run "$row" "$c"
			done
		done
	done
	# Once more with every malloc of 8 KiB or more in its own mapping, returned on free:
	# RSS then counts what is live, not what the heap once held (a diagnostic, one round).
	for row in "${MEM_ROWS[@]}"; do
		for c in "$MEM_C" 1; do
			log "memory, mmap_threshold=8192: ${MEM_LABEL[$row]} -c $c"
			mem_run "$row" "$c" mmap GLIBC_TUNABLES=glibc.malloc.mmap_threshold=8192
		done
	done
}

# mem_per_conn ROW [TAG]: KiB per extra connection from the medians at -c MEM_C and -c 1
mem_per_conn() {
	local big=$TMP/mem.$1.$MEM_C${2:+.$2} small=$TMP/mem.$1.1${2:+.$2}
	[[ -s $big && -s $small ]] || return 1
	awk -v b="$(median 1 "$big")" -v s="$(median 1 "$small")" -v c="$MEM_C" 'BEGIN { printf "%.1f\n", (b - s) / (c - 1) }'
}

# ---- the report ----
med() { [[ -s $2 ]] && median "$1" "$2" || echo ""; }
ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo n/a; }
verdict() { # verdict OK(1/0/"") -> met / NOT met / unknown
	case $1 in 1) echo met ;; 0) echo "NOT met" ;; *) echo unknown ;; esac
}
le() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }' || echo ""; }

tls_report() {
	local row cheapest="" cheap_label=none c f kind ver
	echo "## HTTPS (tests/bench --tls; nginx 1 worker, ECDSA P-256, $(nproc) cores)"
	echo
	echo "### Keep-alive, TLS 1.3, $CONNS connections, 1 thread unless noted (${DUR}s x $ROUNDS rounds)"
	echo
	echo "| client | rounds | req/s (median) | CPU us/request (median) | volley https ratio |"
	echo "|---|---|---|---|---|"
	local vcpu
	vcpu=$(med 2 "$TMP/ka.v")
	for row in "${KA_ROWS[@]}"; do
		f=$TMP/ka.$row
		if [[ -s $f ]]; then
			echo "| ${KA_LABEL[$row]} | $(wc -l <"$f")/$ROUNDS | $(median 1 "$f" | awk '{ printf "%.0f", $1 }')" \
				"| $(median 2 "$f" | awk '{ printf "%.2f", $1 }') | $(ratio "$vcpu" "$(median 2 "$f")") |"
		else
			echo "| ${KA_LABEL[$row]} | 0/$ROUNDS | n/a | n/a | n/a |"
		fi
	done
	for row in wrk h2load abk; do
		c=$(med 2 "$TMP/ka.$row")
		[[ -n $c ]] || continue
		if [[ -z $cheapest ]] || awk -v a="$c" -v b="$cheapest" 'BEGIN { exit !(a < b) }'; then
			cheapest=$c cheap_label=${KA_LABEL[$row]}
		fi
	done
	echo
	echo "Goal: volley https <= 0.7x the cheapest of wrk, h2load --h1, ab -k" \
		"($cheap_label): $(verdict "$(le "$vcpu" "$(awk -v c="${cheapest:-0}" 'BEGIN { print 0.7 * c }')")")" \
		"($(ratio "$vcpu" "$cheapest")x)"
	echo "volley https / volley http CPU per request: $(ratio "$vcpu" "$(med 2 "$TMP/ka.vh")")"
	local t2 h2
	t2=$(ratio "$(med 2 "$TMP/ka.v2")" "$vcpu")
	h2=$(ratio "$(med 2 "$TMP/ka.vh2")" "$(med 2 "$TMP/ka.vh")")
	echo "Goal: no rise with -t 2 (within 10 %): $(verdict "$(le "$t2" 1.10)")" \
		"(https -t 2 / -t 1: ${t2}x; http -t 2 / -t 1: ${h2}x;" \
		"TLS's own share, the https ratio over the http one: $(ratio "${t2/n\/a/}" "${h2/n\/a/}")x)"
	[[ -n $VOLLEY_B ]] && echo "$VOLLEY_B_LABEL / volley CPU per request: $(ratio "$(med 2 "$TMP/ka.vb")" "$vcpu")"
	echo

	echo "### A new connection per request (-c 10 -n $TLS_N, 1 thread; $ROUNDS rounds)"
	echo
	echo "| client | TLS | rounds | full / resumed handshakes (last run) | handshakes per CPU-second (median) | CPU us per handshake (median) | ratio to ab |"
	echo "|---|---|---|---|---|---|---|"
	for ver in 13 12; do
		local abh
		abh=$(med 1 "$TMP/hs.ab.$ver")
		for kind in "${HS_KINDS[@]}"; do
			f=$TMP/hs.$kind.$ver
			if [[ -s $f ]]; then
				echo "| ${HS_LABEL[$kind]} | 1.${ver#1} | $(wc -l <"$f")/$ROUNDS | $(tail -n1 "$f" | awk '{ print $3 " / " $4 }')" \
					"| $(median 1 "$f" | awk '{ printf "%.0f", $1 }') | $(median 2 "$f" | awk '{ printf "%.0f", $1 }')" \
					"| $(ratio "$(median 1 "$f")" "$abh") |"
			else
				echo "| ${HS_LABEL[$kind]} | 1.${ver#1} | 0/$ROUNDS | n/a | n/a | n/a | n/a |"
			fi
		done
	done
	echo
	for ver in 13 12; do
		local vh ah
		vh=$(med 1 "$TMP/hs.on.$ver") ah=$(med 1 "$TMP/hs.ab.$ver")
		echo "Goal TLS 1.${ver#1}: volley >= 2x ab's handshakes per CPU-second:" \
			"$(verdict "$(le "$(awk -v a="${ah:-0}" 'BEGIN { print 2 * a }')" "$vh")") ($(ratio "$vh" "$ah")x;" \
			"full handshakes only: $(ratio "$(med 1 "$TMP/hs.full.$ver")" "$ah")x)"
	done
	echo

	if ((${#SC_ROWS[@]})); then
		echo "### System calls per request (strace -f -c, one run each, -c $CONNS unless noted)"
		echo
		echo "| run | requests | write | read | epoll_wait | epoll_ctl | other | all |"
		echo "|---|---|---|---|---|---|---|---|"
		for row in "${SC_ROWS[@]}"; do sc_line "$row"; done
		echo
		if [[ -s $TMP/sc.v && -s $TMP/sc.vh ]]; then
			local sv sh
			sv=$(sc_line v | awk -F'|' '{ gsub(/[* ]/, "", $9); print $9 }')
			sh=$(sc_line vh | awk -F'|' '{ gsub(/[* ]/, "", $9); print $9 }')
			echo "Goal: volley https keep-alive makes the system calls of plain keep-alive (one write, one read):" \
				"$(verdict "$(le "$sv" "$(awk -v s="$sh" 'BEGIN { print s + 0.05 }')")") ($sv against $sh per request)"
			echo
		fi
	fi

	echo "### RSS per idle TLS connection ($MEM_C connections, one request per connection per second, ${MEM_S}s runs, $MEM_ROUNDS rounds)"
	echo
	echo "| client | RSS -c 1 (KiB) | RSS -c $MEM_C (KiB) | descriptors at -c $MEM_C | KiB per extra connection | same, mmap_threshold=8192 |"
	echo "|---|---|---|---|---|---|"
	for row in "${MEM_ROWS[@]}"; do
		echo "| ${MEM_LABEL[$row]} | $(med 1 "$TMP/mem.$row.1") | $(med 1 "$TMP/mem.$row.$MEM_C") |" \
			"$(med 2 "$TMP/mem.$row.$MEM_C") | $(mem_per_conn "$row" || echo n/a) | $(mem_per_conn "$row" mmap || echo n/a) |"
	done
	echo
	local mv mh
	mv=$(mem_per_conn v) mh=$(mem_per_conn h2load)
	echo "Goal: volley <= 0.5x h2load's memory per connection:" \
		"$(verdict "$(le "$mv" "$(awk -v h="${mh:-0}" 'BEGIN { print h / 2 }')")") ($(ratio "$mv" "$mh")x;" \
		"with mmap_threshold=8192: $(ratio "$(mem_per_conn v mmap)" "$(mem_per_conn h2load mmap)")x)"
	[[ -n $VOLLEY_B ]] && echo "$VOLLEY_B_LABEL: $(mem_per_conn vb || echo n/a) KiB per connection against volley's $mv"
	echo
	echo "CPU = user+sys of each client process (bash \`times\` deltas around the run); req/s = completed / wall seconds."
	echo "RSS = VmRSS of the client at 2/3 of its run; per connection = (RSS at -c $MEM_C - RSS at -c 1) / $((MEM_C - 1)), medians."
	local note
	for note in ${NOTES[@]+"${NOTES[@]}"}; do echo "- $note"; done | awk '!seen[$0]++'
}

tls_main() {
	local r row kind ver order=() i
	log "https on 127.0.0.1:$TLS_PORT (resumption) and :$TLS_FULL_PORT (none), http on :$PORT"
	[[ -x $VOLLEY ]] || die "volley is not built: $VOLLEY (set VOLLEY)"
	for ((r = 1; r <= ROUNDS; r++)); do
		for row in "${KA_ROWS[@]}"; do
			log "keep-alive round $r/$ROUNDS: ${KA_LABEL[$row]}"
			ka_run "$row"
		done
	done
	# Every other round in reverse: a run of new connections leaves TIME_WAIT sockets behind.
	for ver in 13 12; do for kind in "${HS_KINDS[@]}"; do order+=("$kind.$ver"); done; done
	for ((r = 1; r <= ROUNDS; r++)); do
		for ((i = 0; i < ${#order[@]}; i++)); do
			((r % 2)) && row=${order[i]} || row=${order[${#order[@]} - 1 - i]}
			log "new connections round $r/$ROUNDS: ${HS_LABEL[${row%.*}]} TLS 1.${row#*.1}"
			hs_run "${row%.*}" "${row#*.}"
		done
	done
	tls_syscalls
	tls_memory
	kill -0 "$NGINX_PID" 2>/dev/null || die "nginx died during the run"
	tls_report
}
