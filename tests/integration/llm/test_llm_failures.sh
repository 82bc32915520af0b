#!/usr/bin/env bash
# volley llm's failed requests, each kind against volley-target's knobs
# (given in each body with --extra-body): a status other than 200, an
# error event, a data: line that is not JSON, a stream cut before its end,
# a stream that never sends an event (--timeout), a 200 that is not an
# event stream; each a failed request
# with its reason, never a hang. A stream with a finish_reason and no
# [DONE] succeeds.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target
URL=http://127.0.0.1:$PORT

# kind EXTRA-BODY REASON-ERE: 4 requests that each fail for REASON.
kind() {
    local name=$1 body=$2 reason=$3
    shift 3
    run_llm "$name" --base-url "$URL" --num-prompts 4 --random-input-len 3 --random-output-len 5 \
        --max-concurrency 2 --extra-body "$body" "$@"
    check_eq "$RC" 1 "$name: exit status (no response completed)"
    check_eq "$(report_value "$name" 'Successful requests')" 0 "$name: successful"
    check_eq "$(report_value "$name" 'Failed requests')" 4 "$name: failed"
    check_grep "$T/$name.out" "^Error 0: $reason \\(4 requests\\)$" "$name: the reason"
    check_eq "$(jget "$T/$name.json" requests.failed)" 4 "$name: volley's JSON"
}

kind status '{"vt_status":500}' 'status 500: \{"error":\{"message":"injected status \(vt_status\)".*'
kind error '{"vt_error_at":3}' 'error event: injected error before token 3 \(vt_error_at\)'
kind badjson '{"vt_bad_json":true}' 'a data: line is not a JSON object \(invalid JSON at byte 2\)'
kind cut '{"vt_cut_at":3}' 'read error'
kind silent '{"vt_comments_only":true}' 'timeout error' -- --timeout 300ms
kind nostream '{"stream":false}' 'not an event stream \(Content-Type is not text/event-stream\)'

run_llm nodone --base-url "$URL" --num-prompts 4 --random-input-len 3 --random-output-len 5 \
    --extra-body '{"vt_nodone":true}'
check_eq "$RC" 0 "nodone: exit status"
check_eq "$(report_value nodone 'Successful requests')" 4 "nodone: a finish_reason ends the stream"

finish
