#!/usr/bin/env bash
# Streams (server-sent events): what volley spends per event and per open
# stream, against the floor for reading events and against an idle HTTP
# connection, all against volley-target's OpenAI streaming mode in the same
# run (tests/target/README.md, LLM endpoints). With --llm, `volley llm`
# against the Python peer (shared/bench/llm-peer.py, measuring as vLLM's
# bench serve does): CPU per token, and the TTFT error against the
# server's own write times at scale.
#
#   bash tests/bench/streams.sh            # per event, and memory per stream
#   bash tests/bench/streams.sh --llm      # volley llm against the peer
#
# Env: ROUNDS (3), STREAMS (100), TOKENS (1000: per stream; one event each,
#      1 ms apart: 100,000 events/s), MEM_STREAMS (10000), LLM_PROMPTS (4000),
#      LLM_RATE (1250: requests/s, 32 tokens each: 40,000 tokens/s),
#      LLM_CONC (2000), LLM_THREADS (1: volley llm's -t), VOLLEY (<repo>/build/volley), VOLLEY_TARGET
#      (<repo>/build/volley-target), PEER (shared/bench/llm-peer.py).
# Prints a markdown report on stdout, progress on stderr. A report, not a
# test: exits 0 whether or not the goals are met.
set -euo pipefail
export LC_ALL=C

ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-1000}
MEM_STREAMS=${MEM_STREAMS:-10000}
LLM_PROMPTS=${LLM_PROMPTS:-4000}
LLM_RATE=${LLM_RATE:-1250}
LLM_CONC=${LLM_CONC:-2000}
LLM_THREADS=${LLM_THREADS:-1} # one core for the server, one for the client (the peer has one thread)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || TOP=$(cd "$HERE/../.." && pwd)
VOLLEY=${VOLLEY:-$TOP/build/volley}
VOLLEY_TARGET=${VOLLEY_TARGET:-$TOP/build/volley-target}
PEER=${PEER:-$TOP/../shared/bench/llm-peer.py}
MODE=${1:-events}

die() { echo "streams: $*" >&2; exit 1; }
log() { echo "streams: $*" >&2; }
[[ -x $VOLLEY && -x $VOLLEY_TARGET ]] || die "build first (make build): $VOLLEY, $VOLLEY_TARGET"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

work=$(mktemp -d)
tpid=
cleanup() {
	[[ -n $tpid ]] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

start_target() { # extra flags...
	rm -f "$work/port"
	"$VOLLEY_TARGET" --port 0 --port-file "$work/port" --max-seconds 900 --quiet "$@" >/dev/null &
	tpid=$!
	for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
	[[ -s $work/port ]] || die "volley-target did not start"
	PORT=$(cat "$work/port")
}
stop_target() { kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null || true; tpid=; }

# CPU seconds (user + sys) of a command, its output kept in $work/out; its
# max RSS (KiB) then in $work/time. getrusage of the child, to the
# microsecond (/usr/bin/time prints hundredths: too coarse for the floor).
cpu_of() {
	/usr/bin/python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.STDOUT)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[2], "w").write("%.6f %d\n" % (r.ru_utime + r.ru_stime, r.ru_maxrss))
print("%.6f" % (r.ru_utime + r.ru_stime))' "$work/out" "$work/time" "$@"
}
maxrss_of() { awk '{print $2}' "$work/time"; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

events_mode() {
	cc -O2 -o "$work/sse_floor" "$HERE/sse_floor.c" || die "cannot build sse_floor.c"
	cc -O2 -o "$work/wake_late" "$HERE/wake_late.c" || die "cannot build wake_late.c"
	start_target
	local body='{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":'$TOKENS',"stream":true,"vt_gap_ms":1,"vt_framing":"close"}'
	printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		${#body} "$body" >"$work/req"
	local events=$((STREAMS * (TOKENS + 3))) # the role chunk, the tokens, the finish chunk, [DONE]
	local f=() v=()
	for r in $(seq "$ROUNDS"); do
		log "round $r: floor"
		f+=("$(cpu_of "$work/sse_floor" "$PORT" "$STREAMS" "$work/req")")
		grep -q "\"events\": $events," "$work/out" || log "floor: not $events events: $(cat "$work/out")"
		log "round $r: volley"
		v+=("$(cpu_of "$VOLLEY" -t 1 -c "$STREAMS" -n "$STREAMS" -b "$body" -H 'Content-Type: application/json' \
			--timeout 30s --json "$work/v.json" "http://127.0.0.1:$PORT/v1/chat/completions")")
		/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d.get("stream",{}); e=s.get("events")
if e is not None and e != int(sys.argv[2]): print("streams: volley counted", e, "events", file=sys.stderr)' "$work/v.json" "$events"
	done
	stop_target
	local fm vm
	fm=$(printf '%s\n' "${f[@]}" | median)
	vm=$(printf '%s\n' "${v[@]}" | median)
	echo "### Per event: $STREAMS streams of $TOKENS events 1 ms apart (about $((STREAMS * 1000)) events/s), median of $ROUNDS"
	echo
	echo "| client | CPU s | µs per event |"
	echo "|---|---|---|"
	awk -v c="$fm" -v n="$events" 'BEGIN {printf "| floor (sse_floor.c: read, split on blank lines) | %.3f | %.3f |\n", c, c / n * 1e6}'
	awk -v c="$vm" -v n="$events" 'BEGIN {printf "| volley (no script: parsed, timed, counted) | %.3f | %.3f |\n", c, c / n * 1e6}'
	awk -v a="$vm" -v b="$fm" -v n="$events" 'BEGIN {d = (a - b) / n * 1e6; printf "\nvolley - floor: %.3f µs per event (goal: at most 2)\n\n", d}'
}

memory_mode() {
	start_target
	local body='{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":4,"stream":true,"vt_first_ms":1000,"vt_gap_ms":1000}'
	local s i
	log "memory: $MEM_STREAMS streams"
	cpu_of "$VOLLEY" -t 2 -c "$MEM_STREAMS" -n "$MEM_STREAMS" -b "$body" -H 'Content-Type: application/json' --timeout 30s \
		--json "$work/m.json" "http://127.0.0.1:$PORT/v1/chat/completions" >/dev/null
	s=$(maxrss_of)
	local peak
	peak=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("stream",{}).get("peak","?"))' "$work/m.json")
	log "memory: $MEM_STREAMS idle connections"
	cpu_of "$VOLLEY" -t 2 -c "$MEM_STREAMS" -n "$MEM_STREAMS" --timeout 30s "http://127.0.0.1:$PORT/delay/5000" >/dev/null
	i=$(maxrss_of)
	stop_target
	echo "### Memory: $MEM_STREAMS SSE streams open at once (peak $peak) against $MEM_STREAMS idle HTTP/1.1 connections"
	echo
	echo "| run | max RSS KiB |"
	echo "|---|---|"
	echo "| $MEM_STREAMS streams (5 events, 1 s apart) | $s |"
	echo "| $MEM_STREAMS connections waiting 5 s for their response | $i |"
	awk -v s="$s" -v i="$i" -v n="$MEM_STREAMS" 'BEGIN {printf "\nper stream above an idle connection: %.3f KiB (goal: at most 2 KB)\n\n", (s - i) / n}'
}

# The truth's TTFT p99 in ms (first token written - request read, by the server's log).
truth_ttft_p99() {
	/usr/bin/python3 - "$1" "$TOP/tests/integration/py" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import llm_truth
reqs = llm_truth.read_truth(sys.argv[1])
v = sorted(r.ttft_ns() for r in reqs if r.ttft_ns() is not None)
print("%.3f" % (v[min(len(v) - 1, int(round(0.99 * (len(v) - 1))))] / 1e6) if v else "nan")
PY
}

# One volley llm and one peer run against a fresh target (flags: $1 first ms,
# $2 gap ms), N prompts at RATE with CONC; sets V_CPU V_TOK V_TTFT P_CPU P_TOK P_TTFT T_V T_P.
llm_pair() {
	local first=$1 gap=$2 n=$3 rate=$4 conc=$5
	start_target --llm-first-ms "$first" --llm-gap-ms "$gap" --llm-usage on --llm-log "$work/truth.v"
	V_CPU=$(cpu_of "$VOLLEY" llm --base-url "http://127.0.0.1:$PORT" --backend openai-chat --model m \
		--num-prompts "$n" --request-rate "$rate" --max-concurrency "$conc" --random-input-len 16 \
		--random-output-len 32 --ignore-eos --json "$work/llm.json" --timeout 60s -t "$LLM_THREADS")
	cp "$work/out" "$work/llm.out"
	stop_target
	read -r V_TOK V_TTFT < <(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stream"]
t = s.get("service_ttft") or s["ttft"]; print(s["tokens_out"], t["p99"] / 1e3)' "$work/llm.json")
	T_V=$(truth_ttft_p99 "$work/truth.v")
	start_target --llm-first-ms "$first" --llm-gap-ms "$gap" --llm-usage on --llm-log "$work/truth.p"
	P_CPU=$(cpu_of /usr/bin/python3 "$PEER" --url "http://127.0.0.1:$PORT/v1/chat/completions" --num-prompts "$n" \
		--request-rate "$rate" --max-concurrency "$conc" --output-len 32 --input-words 16)
	cp "$work/out" "$work/peer.out"
	stop_target
	read -r P_TOK P_TTFT < <(/usr/bin/python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(d["tokens"], d["ttft_ms"]["p99"])' "$work/peer.out")
	T_P=$(truth_ttft_p99 "$work/truth.p")
}

llm_mode() {
	[[ -f $PEER ]] || die "no peer at $PEER (set PEER)"
	/usr/bin/python3 -c 'import aiohttp' 2>/dev/null || die "the peer needs python3-aiohttp"
	local vc=() pc=() fc=()
	cc -O2 -o "$work/sse_floor" "$HERE/sse_floor.c" || die "cannot build sse_floor.c"
	cc -O2 -o "$work/wake_late" "$HERE/wake_late.c" || die "cannot build wake_late.c"
	# The floor at the same pace: 33 streams at once (100/s of 0.33 s streams), a token each 10 ms.
	local fbody='{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":300,"stream":true,"vt_gap_ms":10,"vt_framing":"close"}'
	printf 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		${#fbody} "$fbody" >"$work/freq"
	for r in $(seq "$ROUNDS"); do
		start_target
		fc+=("$(awk -v c="$(cpu_of "$work/sse_floor" "$PORT" 33 "$work/freq")" 'BEGIN {printf "%.3f", c / (33 * 303) * 1e6}')")
		stop_target
		log "round $r: CPU per token, 200 at most at once, 100 requests/s of 32 tokens 10 ms apart"
		llm_pair 20 10 600 100 200
		vc+=("$(awk -v c="$V_CPU" -v t="$V_TOK" 'BEGIN {printf "%.3f", c / t * 1e6}')")
		pc+=("$(awk -v c="$P_CPU" -v t="$P_TOK" 'BEGIN {printf "%.3f", c / t * 1e6}')")
		log "volley ${vc[-1]} µs/token ($V_TOK tokens), peer ${pc[-1]} µs/token ($P_TOK tokens)"
	done
	local vm pm fm
	vm=$(printf '%s\n' "${vc[@]}" | median)
	pm=$(printf '%s\n' "${pc[@]}" | median)
	fm=$(printf '%s\n' "${fc[@]}" | median)
	echo "### volley llm against the Python peer (llm-peer.py, measuring as vLLM's bench serve does)"
	echo
	echo "CPU per token (user + sys of the whole client process, getrusage; volley llm -t $LLM_THREADS), 600 requests at 100/s (Poisson),"
	echo "at most 200 at once, 32 tokens each 10 ms apart, usage on; median of $ROUNDS:"
	echo
	echo "| client | µs CPU per token | rounds |"
	echo "|---|---|---|"
	echo "| volley llm | $vm | ${vc[*]} |"
	echo "| llm-peer.py | $pm | ${pc[*]} |"
	echo "| floor (sse_floor.c: 33 streams, an event each 10 ms, read and split only) | $fm | ${fc[*]} |"
	awk -v a="$vm" -v b="$pm" -v f="$fm" 'BEGIN {printf "\nvolley / peer: %.4fx (goal: at most 0.05x); floor / peer: %.4fx\n\n", a / b, f / b}'
	log "at scale: $LLM_CONC streams, $LLM_RATE requests/s of 32 tokens (40,000 tokens/s)"
	llm_pair 50 50 "$LLM_PROMPTS" "$LLM_RATE" "$LLM_CONC"
	echo "At scale: $LLM_PROMPTS requests at $LLM_RATE/s, at most $LLM_CONC at once, 32 tokens 50 ms apart after 50 ms"
	echo "(about 40,000 tokens/s). TTFT p99 as each client measured it from its send (volley: service_ttft) against"
	echo "the server's truth for the same run (first token written - request read, --llm-log):"
	echo
	echo "| client | TTFT p99 ms | truth p99 ms | error ms | tokens | CPU s |"
	echo "|---|---|---|---|---|---|"
	awk -v a="$V_TTFT" -v b="$T_V" -v t="$V_TOK" -v c="$V_CPU" 'BEGIN {printf "| volley llm | %.3f | %.3f | %.3f | %d | %.2f |\n", a, b, a - b, t, c}'
	awk -v a="$P_TTFT" -v b="$T_P" -v t="$P_TOK" -v c="$P_CPU" 'BEGIN {printf "| llm-peer.py | %.3f | %.3f | %.3f | %d | %.2f |\n", a, b, a - b, t, c}'
	echo
	echo "(goal: volley's error under 1 ms)"
	log "at scale: the TTFT error split per request (ttft_probe.lua)"
	local quiet busy secs
	secs=$(awk -v n="$LLM_PROMPTS" -v r="$LLM_RATE" 'BEGIN {printf "%.1f", n / r + 1.5}')
	quiet=$("$work/wake_late" "$secs")
	start_target --llm-first-ms 50 --llm-gap-ms 48 --llm-log "$work/truth.s"
	"$work/wake_late" "$secs" >"$work/wake" &
	local wpid=$!
	PROBE_DIR=$work cpu_of "$VOLLEY" -t "$LLM_THREADS" -R "$LLM_RATE" -n "$LLM_PROMPTS" -c $((LLM_CONC + LLM_CONC / 10)) \
		-s "$HERE/ttft_probe.lua" --timeout 60s "http://127.0.0.1:$PORT/" >/dev/null
	wait "$wpid" || true
	busy=$(cat "$work/wake")
	stop_target
	echo
	echo "The error per request, split (volley, a per-connection script that marks the same tokens and writes, for"
	echo "each request's first token, ev.t and volley.now() in request(), just after the request's start: t0): volley's"
	echo "wait for the read is at most t0 + ev.t - the server's write, the server's wait for the request at least its read"
	echo "- t0; the same rate, 48 ms gaps:"
	echo
	/usr/bin/python3 - "$work" "$TOP/tests/integration/py" <<'PY'
import glob, sys
sys.path.insert(0, sys.argv[2])
import llm_truth
reqs = {r.id: r for r in llm_truth.read_truth(sys.argv[1] + "/truth.s")}
rows = {"volley's wait for the read (at most)": [], "the server's wait for the request (at least)": [],
        "TTFT error (ev.t - truth)": []}
for f in glob.glob(sys.argv[1] + "/probe.*"):
    for line in open(f):
        i, now_us, t_us, t0_us = line.split()
        r = reqs.get(i)
        if not r or not r.tokens():
            continue
        t, t0 = float(t_us) * 1e3, float(t0_us) * 1e3
        rows["volley's wait for the read (at most)"].append(t0 + t - r.tokens()[0][1])
        rows["the server's wait for the request (at least)"].append(r.q_ns - t0)
        rows["TTFT error (ev.t - truth)"].append(t - r.ttft_ns())
def p(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] / 1e6
print("| per request | n | p50 ms | p90 ms | p99 ms | max ms |")
print("|---|---|---|---|---|---|")
for k, v in rows.items():
    if v:
        print("| %s | %d | %.3f | %.3f | %.3f | %.3f |" % (k, len(v), p(v, .5), p(v, .9), p(v, .99), p(v, 1)))
PY
	echo
	echo "The machine's own lateness (wake_late.c: a process that only sleeps 1 ms at a time, measuring how late each"
	echo "wake-up comes; it does no work, so its lateness is the scheduler's and the hypervisor's), $secs s:"
	echo
	echo "| wake_late | waits, late > 1 ms, late > 5 ms, p99 ms, max ms, lost ms |"
	echo "|---|---|"
	echo "| alone, the machine quiet | $quiet |"
	echo "| beside the probe run above | $busy |"
}

case $MODE in
events | "")
	events_mode
	memory_mode
	;;
--llm) llm_mode ;;
*) die "unknown mode $MODE (none, or --llm)" ;;
esac
