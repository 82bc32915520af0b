# volley ab against a listener whose connects never complete: its accept
# queue is full, so the kernel drops the SYN and connect() waits. ab's poll
# then waits -s seconds (default 30) and ends the run with
#   apr_pollset_poll: The timeout specified has expired (70007)
# on stderr and exit status 119, -r or not (docs/ab.md, exit statuses);
# volley ab must do the same, and take -s seconds, not answer "Connection
# refused" at once. At the start (the first connect hangs) and during the
# run (the server answers 2 requests and then accepts no more: "Total of 2
# requests completed" on stdout too). Each case is compared with the real
# ab (Debian's apache2-utils) when it is installed.
source "$TESTLIB"

PY=$(dirname "$TESTLIB")/py
HAVE_AB=$(command -v ab > /dev/null && echo yes || echo no)
[ "$HAVE_AB" == yes ] || echo "$(basename "$0"): ab is not installed: volley ab checked against ab's documented output only"

# full_backlog NAME [SERVE]: a listener (py/full_backlog.py, 60 s at most)
# whose accept queue is full, after SERVE answers; sets HPORT.
full_backlog() {
    python3 "$PY/full_backlog.py" "$T/$1.port" 60 "${2:-0}" &
    TARGET_PIDS+=($!)
    wait_port_file "$T/$1.port" "$!" || { echo "full_backlog.py did not start" >&2; exit 1; }
    HPORT=$(cat "$T/$1.port")
}

# one WHO NAME ARGS...: runs ab (WHO=ab) or volley ab (WHO=v), bounded to
# 20 s; output in $T/NAME.WHO.{out,err,rc}, seconds taken in $T/NAME.WHO.secs.
one() {
    local who=$1 name=$2 rc=0 t0=$EPOCHREALTIME cmd
    shift 2
    if [ "$who" == ab ]; then cmd=(ab); else cmd=("$VOLLEY" ab); fi
    timeout -s KILL 20 "${cmd[@]}" "$@" < /dev/null > "$T/$name.$who.out" 2> "$T/$name.$who.err" || rc=$?
    echo "$rc" > "$T/$name.$who.rc"
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }' > "$T/$name.$who.secs"
}

# expect NAME SECONDS LAST: volley ab's run NAME exited 119 with ab's line
# on stderr, after at least SECONDS (-s), with LAST as the end of its
# stdout; and, with ab installed, ab did exactly the same.
expect() {
    local name=$1 secs=$2 last=$3
    check_eq "$(cat "$T/$name.v.rc")" 119 "$name: exit status"
    check_eq "$(cat "$T/$name.v.err")" "apr_pollset_poll: The timeout specified has expired (70007)" "$name: stderr"
    check_eq "$(tail -n 1 "$T/$name.v.out")" "$last" "$name: the end of stdout"
    awk -v t="$(cat "$T/$name.v.secs")" -v s="$secs" 'BEGIN { exit !(t >= s) }' && ok ||
        fail "$name: volley ab gave up after $(cat "$T/$name.v.secs") s, before -s $secs"
    if [ "$HAVE_AB" == yes ]; then
        check_eq "$(cat "$T/$name.v.rc")" "$(cat "$T/$name.ab.rc")" "$name: exit status as ab's"
        check_eq "$(cat "$T/$name.v.err")" "$(cat "$T/$name.ab.err")" "$name: stderr as ab's"
        check_eq "$(cat "$T/$name.v.out")" "$(cat "$T/$name.ab.out")" "$name: stdout as ab's"
    fi
}

# pair NAME ARGS...: ab (if installed), then volley ab.
pair() {
    local name=$1
    shift
    [ "$HAVE_AB" == no ] || one ab "$name" "$@"
    one v "$name" "$@"
}

# The first connect hangs: nothing is sent, the run ends after -s.
full_backlog start
start_port=$HPORT
url="http://127.0.0.1:$start_port/"
pair start -s 2 -n 1 "$url"
expect start 2 "Benchmarking 127.0.0.1 (be patient)..."
pair start-r -s 1 -r -n 5 -c 2 "$url"
expect start-r 1 "Benchmarking 127.0.0.1 (be patient)..."
pair start-progress -s 1 -n 200 -c 5 "$url"
expect start-progress 1 "Benchmarking 127.0.0.1 (be patient)"

# The third connect hangs, after two answers.
full_backlog mid-ab 2
[ "$HAVE_AB" == no ] || one ab mid -s 1 -n 4 -c 1 "http://127.0.0.1:$HPORT/"
full_backlog mid-v 2
one v mid -s 1 -n 4 -c 1 "http://127.0.0.1:$HPORT/"
expect mid 1 "Benchmarking 127.0.0.1 (be patient)...Total of 2 requests completed"

# volley itself, for comparison: the start-up probe says what happened.
RC=0
timeout -s KILL 20 "$VOLLEY" -n 1 --timeout 1s "$url" > "$T/volley.out" 2> "$T/volley.err" || RC=$?
check_eq "$RC" 1 "volley: exit status"
check_eq "$(cat "$T/volley.err")" "volley: 127.0.0.1:$start_port: connect timed out" "volley: one line naming the address"
finish
