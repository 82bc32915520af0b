# Every bad value: one line naming the option and the value, exit 2, and
# nothing sent to the server.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT/"
bad() { # bad EXPECTED-PATTERN ARGS...
    local pat=$1
    shift
    RC=0
    timeout 10 "$VOLLEY" "$@" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "volley $*: exit status"
    check_eq "$(wc -l < "$T/bad.err")" 1 "volley $*: one line on stderr"
    check_grep "$T/bad.err" "$pat" "volley $*: message"
}
bad '^volley: -c: "abc" is not a number$' -c abc "$url"
bad '^volley: -c: must be at least 1$' -c 0 "$url"
bad '^volley: -c: must be at most 1000000$' -c 1000001 "$url"
bad '^volley: -n: must be at least 1$' -n 0 "$url"
bad '^volley: -n: must be at most 4611686018427387904 \(2\^62\)$' -n 4611686018427387905 "$url"
bad '^volley: -n: must be at most 4611686018427387904 \(2\^62\)$' -n 99999999999999999999999 "$url"
bad '^volley: -n: "1.5" is not a whole number$' -n 1.5 "$url"
bad '^volley: -t: must be at least 1$' -t -2 "$url"
bad '^volley: -t: "x" is not a number$' -t x "$url"
bad '^volley: -t: 8 threads need at least as many connections' -t 8 -c 2 "$url"
bad '^volley: -d: "10x" is not a duration' -d 10x "$url"
bad '^volley: -d: "-1s" is not a duration' -d -1s "$url"
bad '^volley: -n: "many" is not a number$' -n many "$url"
bad '^volley: --timeout: "soon" is not a duration' --timeout soon "$url"
bad "^volley: -H: \"NoColon\" is not a 'Name: value' header$" -H NoColon "$url"
bad '^volley: -m: "G T" is not a method name$' -m "G T" "$url"
bad "^volley: --body-file: $T/missing/x: No such file" --body-file "$T/missing/x" "$url"
bad '^volley: --bogus: unknown option$' --bogus "$url"
bad '^volley: missing URL' -c 1
bad '^volley: ftp://x/: unsupported scheme' ftp://x/
bad '^volley: http://127.0.0.1:99999/: bad port' http://127.0.0.1:99999/
bad '^volley: -c 1000000 with -t 1: needs 1000035 open files \(1000000 for connections, 3 for threads, 32 for the rest\) but the limit is' -c 1000000 -t 1 "$url"
bad '^volley: extra: unexpected argument' "$url" extra
bad "^volley: --json: $T/missing/x.json: No such file or directory$" --json "$T/missing/x.json" "$url"
bad '^volley: --heartbeat: must be at least 1$' --heartbeat 0 "$url"
bad '^volley: --max-body: "big" is not a number$' --max-body big "$url"
# Each worker's own descriptors count too: under a limit of 400, 300
# connections and 64 workers (an epoll fd and an eventfd each) once passed
# the check and then made libev abort (exit 134).
( FAILS=0; ulimit -n 400; bad '^volley: -c 300 with -t 64: needs 524 open files \(300 for connections, 192 for threads, 32 for the rest\) but the limit is 400 \(see ulimit -n; fewer -c or -t, or more processes: --shard\)$' -c 300 -t 64 -d 1s "$url"; exit "$FAILS" ) || FAILS=$((FAILS + 1))
# -H: control bytes other than TAB, and headers that would frame the body
# differently from the body volley sends.
bad '^volley: -H: "X-A: 1\\x01" contains a control character \(only TAB is allowed\)$' -H $'X-A: 1\x01' "$url"
bad '^volley: -H: "X-A: a\\x7f" contains a control character' -H $'X-A: a\x7f' "$url"
bad '^volley: -H: "X-A: a\\x0bb" contains a control character' -H $'X-A: a\x0bb' "$url"
bad '^volley: -H Content-Length: 0 disagrees with the body.s length \(26 bytes from -b\)$' \
    -m POST -H 'Content-Length: 0' -b $'GET /smuggled HTTP/1.1\r\n\r\n' "$url"
printf 'abcd' > "$T/body4"
bad '^volley: -H Content-Length: 5 disagrees with the body.s length \(4 bytes from --body-file\)$' \
    -H 'Content-Length: 5' --body-file "$T/body4" "$url"
bad '^volley: -H Content-Length: 5 but there is no body' -H 'Content-Length: 5' "$url"
bad '^volley: -H Content-Length: "x" is not a length$' -H 'Content-Length: x' "$url"
bad '^volley: -H: "Transfer-Encoding: chunked": volley sends a body with Content-Length, never chunked' \
    -H 'Transfer-Encoding: chunked' -b abc "$url"
bad '^volley: -T: "2x" is not a duration' -T 2x "$url"
check_eq "$(target_stat received)" 0 "nothing was sent"
# Just within that limit the run goes ahead and ends normally (the count
# is not short of what the workers really open), with -R's timerfds too.
for rate in "" "-R 2000"; do
    RC=0
    ( ulimit -n 400 && exec "$VOLLEY" -q -c 300 -t 16 $rate -n 600 "$url" ) > /dev/null 2> "$T/fdfit.err" || RC=$?
    # With -R, 3 (the rate not met: 16 threads on a loaded 2-core machine,
    # under a sanitizer) is a run too; the point is that it ran.
    if [ -n "$rate" ]; then check_rate_rc "-c 300 -t 16 $rate under ulimit -n 400: runs"; else
        check_eq "$RC" 0 "-c 300 -t 16 under ulimit -n 400: runs"; fi
done

# --heartbeat N: "Completed K requests" on stderr every N completions, over
# every thread.
"$VOLLEY" -q -n 100 -c 4 -t 2 --heartbeat 25 "$url" 2> "$T/hb.err"
check_eq "$(grep -c '^Completed [0-9]* requests$' "$T/hb.err")" 4 "--heartbeat: one line per 25"
check_grep "$T/hb.err" '^Completed 100 requests$' "--heartbeat: the last line"
# --no-probe: a refused port is no start-up error; the run counts the
# refused connects as connect errors, and it ends once no connect has worked
# for --timeout.
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
RC=0
timeout 20 "$VOLLEY" -q -n 6 -c 2 -t 1 --no-probe --timeout 2s --json "$T/np.json" "http://127.0.0.1:$dead/" 2> "$T/np.err" || RC=$?
check_no_response np "--no-probe: the run ends normally, nothing completed" "6 requests failed: connect 6"
check_eq "$(jget "$T/np.json" errors.connect)" 6 "--no-probe: refused connects are connect errors"
# --one-first: the other connections wait for the first one's answer, so
# with 3 connections and a 300 ms answer the run takes two rounds, not one.
RC=0
"$VOLLEY" -q -n 3 -c 3 -t 1 --one-first --json "$T/of.json" "${url}delay/300" || RC=$?
check_eq "$(jget "$T/of.json" requests.completed)" 3 "--one-first: completed"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/of.json'))['duration'] >= 0.6 else 1)" \
    && ok || fail "--one-first: the others did not wait for the first answer"

# A -H Content-Length that agrees with the body is sent instead of volley's
# own: the server reads exactly one request per request sent.
RC=0
before=$(target_stat received)
"$VOLLEY" -q -n 8 -c 1 -t 1 -m POST -H 'Content-Length: 3' -b abc --json "$T/cl.json" "$url" || RC=$?
check_eq "$RC" 0 "-H Content-Length = body length: exit status"
check_eq "$(jget "$T/cl.json" status.200)" 8 "-H Content-Length = body length: completed"
check_eq "$(($(target_stat received) - before))" 8 "-H Content-Length = body length: the server read 8 requests"

# wrk's forms: -T (a bare number is seconds), and -L/--latency, wrk's
# "Latency Distribution" block in wrk's layout, after the histogram lines.
RC=0
timeout 20 "$VOLLEY" -n 1 -c 1 -t 1 -T 0.3 --json "$T/T.json" "${url}never" > /dev/null 2> "$T/T.err" || RC=$?
check_no_response T "-T" "1 request failed: timeout 1"
check_eq "$(jget "$T/T.json" options.timeout)" 0.3 "-T: the timeout"
check_eq "$(jget "$T/T.json" errors.timeout)" 1 "-T: the request timed out"
"$VOLLEY" -n 20 -c 1 -t 1 -L "$url" > "$T/L.out"
grep -A5 '^  Latency   p50' "$T/L.out" | tail -n +2 > "$T/L.block"
check_eq "$(sed -E 's/^( {5}(50|75|90|99)%) +[0-9]+\.[0-9]{2}(us|ms)$/\1 T/' "$T/L.block")" "  Latency Distribution
     50% T
     75% T
     90% T
     99% T" "-L: the distribution block after the Latency line"
check_eq "$(awk 'NR > 1 && length($0) != 18' "$T/L.block" | wc -l)" 0 "-L: 18 columns a line, as in wrk"
"$VOLLEY" -n 20 -c 1 -t 1 --latency "$url" > "$T/L2.out"
check_grep "$T/L2.out" '^     99%  +[0-9.]+(us|ms)$' "--latency"
"$VOLLEY" -n 20 -c 1 -t 1 "$url" > "$T/noL.out"
if grep -q 'Latency Distribution' "$T/noL.out"; then fail "no -L: no distribution"; else ok; fi
"$VOLLEY" --version > "$T/v.out" && check_grep "$T/v.out" '^volley [0-9]+\.[0-9]+\.[0-9]+$' "--version"
"$VOLLEY" --help > "$T/h.out" && check_grep "$T/h.out" '^Usage: volley' "--help"
finish
