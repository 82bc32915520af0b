# The timing of streams against the server's truth, causally: volley and
# the server read the same clock (CLOCK_MONOTONIC), so for every event of
# every stream, at 1, 100 and 2000 streams at once: ev.t (from the
# request's start) >= the event's write time - the time the server read the
# request (the start is before the read, the read after the write), the
# event hook runs after the write, request() before the server read the
# request; so volley's time to first token >= the server's. The errors
# (volley's TTFT and inter-token gaps less the server's) are printed, not
# asserted: their size is the benchmark's (tests/bench/streams.sh).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/stream_lib.sh"

ulimit -n "$(ulimit -Hn)" 2> /dev/null || true
[ "$(ulimit -n)" -ge 4200 ] || { echo "test_stream_timing: needs 4200 file descriptors, ulimit -n is $(ulimit -n)" >&2; exit 1; }

TOK=8
KNOBS='"max_tokens":'$TOK',"vt_first_ms":20,"vt_gap_ms":10'
# per stream: the role, the tokens, finish, [DONE]
PER=$((TOK + 3))

# Each level: C streams at once, 2C in all (the second half on kept-alive
# connections, so their TTFT has no connect in it).
for c in 1 100 2000; do
    n=$((2 * c))
    t=2
    [ "$c" = 1 ] && n=20 t=1
    name=c$c
    start_target --llm-log "$T/$name.truth" --stats-file "$T/$name.stats"
    run_stream "$name" "$KNOBS" -n "$n" -c "$c" -t "$t" --timeout 30s "http://127.0.0.1:$PORT/"
    stop_wait "$TPID"
    check_eq "$RC" 0 "$name: exit status ($(tail -n 2 "$T/$name.err"))"
    check_eq "$(jget "$T/$name.json" requests.completed)" "$n" "$name: streams completed"
    check_stream "$name" "$T/$name.truth" --requests "$n"
    check_eq "$CHECKED_EVENTS" $((n * PER)) "$name: events matched to the truth log"
    check_eq "$(counter "$name" events)" $((n * PER)) "$name: event() calls"
    check_json_stream "$name" events $((n * PER)) "$name: JSON stream.events"
    check_json_ttft "$name" "$T/$name.truth" "$n"
    check_grep "$T/$name.stats" '"llm_streams":'$n',"llm_done":'$n',' "$name: the server's counters"
    echo "TTFT error at $c streams at once: $(awk '$1 == "ttft_err_us" { print $3, $4, $5 }' "$T/$name.chk") (us)"
done

finish
