#!/usr/bin/env bash
# volley llm with each thread's traces watched by a trace handler, as
# jit.v watches them (require("jit.v").on(...) in a worker's state): the
# run completes, and no trace aborts with "NYI: return to lower frame"
# on the request or the event path. Such an abort where a tail-called
# builtin returned straight into C (wrk.format's `return table.concat(...)`,
# reached by tail calls from the bridge's request) crashed Debian 12's
# LuaJIT in its abort event (a frame walk past the stack's bottom, fixed
# upstream in 2023); the ev handle's getters aborted the same way.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"
LUA_DIR=$(cd "$(dirname "$0")/../lua" && pwd)
export TRACE_ABORTS_LUA=$LUA_DIR/trace_aborts.lua TRACE_LOG=$T/aborts.

start_target
RC=0
timeout -s KILL 60 "$VOLLEY" --json "$T/jit.json" -t 1 -s "$LUA_DIR/llm_jit.lua" -- \
    --base-url "http://127.0.0.1:$PORT" --num-prompts 200 --random-input-len 8 --random-output-len 20 \
    --max-concurrency 10 --ignore-eos > "$T/jit.out" 2> "$T/jit.err" || RC=$?
stop_target
check_eq "$RC" 0 "exit status ($(tail -n 2 "$T/jit.err"))"
check_eq "$(report_value jit 'Successful requests')" 200 "successful requests"
check_eq "$(report_value jit 'Total generated tokens')" 4000 "tokens"
[ -f "$T/aborts.1" ] && ok || fail "no trace log written"
if grep -q 'return to lower frame' "$T/aborts.1"; then
    fail "traces abort: $(grep 'return to lower frame' "$T/aborts.1" | sort | uniq -c | head -5)"
else ok; fi
finish
