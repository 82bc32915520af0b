# The event() hook's path stays in LuaJIT's traces: a hook reading every
# ev field and setting the token marks, for a few long streams (the
# request path never gets hot), under a trace handler such as jit.v's.
# No trace aborts in the ev handle (lua/volley/bridge.lua): a metamethod
# whose getter tail-called a builtin (return ffi.string(...)) aborted with
# "NYI: return to lower frame" each time its own trace was tried. The
# fields and marks read as they did.
source "$TESTLIB"
HERE=$(dirname "${BASH_SOURCE[0]}")
export TRACE_ABORTS_LUA=$HERE/../lua/trace_aborts.lua TRACE_LOG=$T/aborts.

start_target
STREAM_KNOBS='"max_tokens":300' run_volley jit -s "$HERE/../lua/stream_jit.lua" -n 4 -c 2 -t 1 \
    "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "exit status ($(tail -n 2 "$T/jit.err"))"
check_eq "$(jget "$T/jit.json" requests.completed)" 4 "streams completed"
# Each stream: 300 tokens, the finish event and [DONE] (no role event in
# /v1/completions), every one with type message, no id, no retry.
check_eq "$(jget "$T/jit.json" metrics.counters.fields)" 1208 "ev.type, .id, .retry, .t read on every event"
check_eq "$(jget "$T/jit.json" metrics.counters.marks)" 1200 "ev.tokens, .total_tokens, .prompt_tokens set and read back"
check_eq "$(jget "$T/jit.json" stream.tokens_out):$(jget "$T/jit.json" stream.tokens_in)" 28:12 \
    "the streams' tokens: ev.total_tokens and ev.prompt_tokens, 7 and 3 each"
[ -f "$T/aborts.1" ] && ok || fail "no trace log written"
if grep -q 'bridge\.lua' "$T/aborts.1"; then
    fail "traces abort in the ev handle: $(grep 'bridge\.lua' "$T/aborts.1" | sort | uniq -c | head -5)"
else ok; fi
finish
