# Exact event counts of streams (server-sent events), end to end: volley is
# handed exactly the events the server wrote (its truth log, --llm-log),
# request by request, of the same kinds in the same order, and counts them
# (the event() hook's counter, res.events, the JSON's stream.events once the
# report has it) over HTTP/1.1 with each framing (chunked, Content-Length,
# read until close), many streams per kept-alive connection, 200 streams
# at once, TLS, HTTP/2 + TLS through nginx proxying volley-target, and
# against a second server (llm_server.py, aiohttp).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
source "$(dirname "$TESTLIB")/stream_lib.sh"

TOK=7
# per stream: the role, TOK tokens, finish, usage, [DONE]
PER=$((TOK + 4))
KNOBS='"max_tokens":'$TOK',"vt_gap_ms":0.3,"stream_options":{"include_usage":true}'

# check_counts NAME TRUTH N: run NAME completed N streams, and every count
# of their events agrees with the truth log.
check_counts() {
    local name=$1 truth=$2 n=$3
    check_eq "$RC" 0 "$name: exit status ($(tail -n 2 "$T/$name.err"))"
    check_eq "$(jget "$T/$name.json" requests.completed)" "$n" "$name: streams completed"
    check_stream "$name" "$truth" --requests "$n"
    check_eq "$CHECKED_EVENTS" $((n * PER)) "$name: events matched to the truth log"
    check_eq "$(truth_events "$truth")" $((n * PER)) "$name: event lines in the truth log"
    check_eq "$(counter "$name" events)" $((n * PER)) "$name: event() calls"
    check_eq "$(counter "$name" res_events)" $((n * PER)) "$name: res.events summed"
    check_json_stream "$name" events $((n * PER)) "$name: JSON stream.events"
    check_json_stream "$name" streams "$n" "$name: JSON stream.streams"
    check_json_stream "$name" tokens_out $((n * TOK)) "$name: JSON stream.tokens_out"
    check_json_stream "$name" ttft.count "$n" "$name: JSON stream.ttft.count"
}

# 1. HTTP/1.1, each framing: 40 streams over 4 kept-alive connections (the
#    connection carries stream after stream), or one connection each with
#    read-until-close.
for framing in chunked length close; do
    start_target --llm-log "$T/$framing.truth" --stats-file "$T/$framing.stats"
    run_stream "$framing" "$KNOBS"',"vt_framing":"'$framing'"' -n 40 -c 4 -t 2 "http://127.0.0.1:$PORT/"
    stop_wait "$TPID"
    check_counts "$framing" "$T/$framing.truth" 40
    check_grep "$T/$framing.stats" '"llm_streams":40,"llm_done":40,"llm_events":'$((40 * TOK))',"llm_cut":0' \
        "$framing: the server's counters"
    conns=$(awk '$1 == "q" { print $3 }' "$T/$framing.truth" | sort -u | wc -l)
    if [ "$framing" = close ]; then
        check_eq "$conns" 40 "$framing: a connection per stream"
    else
        check_ge 4 "$conns" "$framing: streams share the kept-alive connections (connections used)"
    fi
done

# 2. 200 streams at once, 600 in all (each stream lasts about 20 ms of
#    gaps, so they overlap).
start_target --llm-log "$T/c200.truth" --stats-file "$T/c200.stats"
run_stream c200 '"max_tokens":'$TOK',"vt_gap_ms":3,"stream_options":{"include_usage":true}' \
    -n 600 -c 200 -t 2 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_counts c200 "$T/c200.truth" 600
check_grep "$T/c200.stats" '"llm_streams":600,"llm_done":600,' "c200: the server's counters"

# 3. TLS (chunked and read-until-close).
tls_certs
for framing in chunked close; do
    start_tls_target --llm-log "$T/tls$framing.truth"
    run_stream "tls$framing" "$KNOBS"',"vt_framing":"'$framing'"' -n 40 -c 4 -t 2 "$surl/"
    stop_wait "$TPID"
    check_counts "tls$framing" "$T/tls$framing.truth" 40
done

# 4. HTTP/2 over TLS: nginx in front of volley-target, streaming the events
#    through (proxy_buffering off), 8 streams at once on each of 2
#    connections. The hook cannot tell which of a connection's streams an
#    event is for, so the counts are compared in total: every event the
#    server wrote reached the hooks, and each stream ended with [DONE].
start_target --llm-log "$T/h2.truth" --stats-file "$T/h2.stats"
if start_nginx_h2 "location /v1/ { proxy_pass http://127.0.0.1:$PORT; proxy_http_version 1.1; proxy_buffering off; proxy_set_header Connection \"\"; }"; then
    STREAM_KNOBS=$KNOBS run_volley h2 -s "$STREAM_LUA" --http2=strict --streams 8 -n 80 -c 2 -t 2 "$h2url/"
    stop_wait "$H2_PID"
    stop_wait "$TPID"
    check_eq "$RC" 0 "h2: exit status ($(tail -n 2 "$T/h2.err"))"
    check_eq "$(jget "$T/h2.json" requests.completed)" 80 "h2: streams completed"
    check_eq "$(grep -c '^HTTP/2.0 POST /v1/chat/completions 200 ' "$T/nginx_h2.access")" 80 "h2: nginx answered over HTTP/2"
    check_eq "$(truth_events "$T/h2.truth")" $((80 * PER)) "h2: event lines in the truth log"
    check_eq "$(counter h2 events)" $((80 * PER)) "h2: event() calls"
    check_eq "$(counter h2 res_events)" $((80 * PER)) "h2: res.events summed"
    check_json_stream h2 events $((80 * PER)) "h2: JSON stream.events"
    check_json_stream h2 streams 80 "h2: JSON stream.streams"
    check_json_stream h2 tokens_out $((80 * TOK)) "h2: JSON stream.tokens_out"
    check_grep "$T/h2.stats" '"llm_streams":80,"llm_done":80,"llm_events":'$((80 * TOK))',"llm_cut":0' "h2: the server's counters"
else
    fail "nginx (HTTP/2 + TLS) did not start"
fi

# 5. The aiohttp server: 40 streams on 4 connections, then 100, 50 at once.
start_llm_py --llm-log "$T/py.truth"
run_stream py "$KNOBS" -n 40 -c 4 -t 2 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_counts py "$T/py.truth" 40
start_llm_py --llm-log "$T/py50.truth"
run_stream py50 "$KNOBS" -n 100 -c 50 -t 2 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_counts py50 "$T/py50.truth" 100

finish
