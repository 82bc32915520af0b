#!/usr/bin/env bash
# volley llm against volley-target's OpenAI endpoints: the requests and
# tokens it reports are the server's (its counters and truth log), with the
# server's usage and without it (chunks with output counted, as the report
# says), for /v1/completions and /v1/chat/completions; each prompt is sent
# once.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-log "$T/truth" --stats-file "$T/stats"
URL=http://127.0.0.1:$PORT

# Completions, usage on: 30 prompts of 5..15 words, 4..12 tokens each.
run_llm c --base-url "$URL" --num-prompts 30 --random-input-len 10 --random-output-len 8 \
    --random-range-ratio 0.5 --max-concurrency 5 --request-id-prefix c- --seed 3
check_eq "$RC" 0 "completions: exit status"
check_eq "$(report_value c 'Successful requests')" 30 "completions: successful"
check_eq "$(report_value c 'Failed requests')" 0 "completions: failed"
check_eq "$(report_value c 'Maximum request concurrency')" 5 "completions: concurrency line"
check_grep "$T/c.out" '^============ Serving Benchmark Result ============$' "completions: vLLM's header"
check_grep "$T/c.out" '^Tokens: from the server.s usage' "completions: tokens from usage"
check_grep "$T/c.out" '^P99 ITL \(ms\): +[0-9.]+ *$' "completions: ITL block"
check_grep "$T/c.out" '^Peak concurrent requests: +[1-5]\.00 *$' "completions: at most 5 streams at once"
check_grep "$T/c.out" '^Client headroom: event loop CPU [0-9.]+%$' "completions: the headroom line (no -R: no send lag)"
check_eq "$(jget "$T/c.json" requests.completed)" 30 "completions: volley's JSON"
stop_target
# The truth log: one q line per request, ids c-0 .. c-29 each once; its
# token events (e ID K with K a number from 1) are the generated tokens.
check_eq "$(grep -c '^q c-' "$T/truth")" 30 "truth: requests"
check_eq "$(awk '$1 == "q" { print $2 }' "$T/truth" | sort -u | wc -l)" 30 "truth: each prompt once"
check_eq "$(awk '$1 == "q" { print $2 }' "$T/truth" | sed 's/^c-//' | sort -n | tr '\n' ' ')" \
    "$(seq 0 29 | tr '\n' ' ')" "truth: prompts 0..29"
TOKENS=$(awk '$1 == "e" && $3 ~ /^[0-9]+$/ && $3 > 0' "$T/truth" | wc -l)
check_eq "$(report_value c 'Total generated tokens')" "$TOKENS" "completions: tokens = the server's token events"
check_eq "$(jget "$T/stats" llm_events)" "$TOKENS" "completions: the server's counter"
check_eq "$(jget "$T/stats" llm_done)" 30 "completions: streams done"
# Input tokens: the server counts the prompt's words, as the dataset does.
check_eq "$(report_value c 'Total input tokens')" \
    "$(python3 - "$T/c.json" <<'PY'
import json, sys
print(int(json.load(open(sys.argv[1]))["metrics"]["counters"]["llm_input_tokens"]))
PY
)" "completions: input tokens"

# Chat without usage: 10 streams of 6 tokens; the chunks with output are
# the 6 tokens (not the role chunk, nor the finish chunk).
start_target --llm-usage off --llm-tokens 6 --stats-file "$T/stats2"
run_llm chat --backend openai-chat --base-url "http://127.0.0.1:$PORT" --num-prompts 10 \
    --random-input-len 3 --random-output-len 6 --max-concurrency 2
check_eq "$RC" 0 "chat: exit status"
check_eq "$(report_value chat 'Successful requests')" 10 "chat: successful"
check_eq "$(report_value chat 'Total generated tokens')" 60 "chat: chunks with output counted"
check_eq "$(report_value chat 'Total input tokens')" 30 "chat: prompts in words"
check_grep "$T/chat.out" '^Tokens: counted as the chunks with output \(no stream had usage\)' "chat: the report says how"
stop_target
check_eq "$(jget "$T/stats2" llm_events)" 60 "chat: the server's token events"

# Bad options: one line naming the option, exit 2, nothing sent.
run_llm bad --base-url "$URL" --num-prompts 0
check_eq "$RC" 2 "bad: exit status"
check_eq "$(cat "$T/bad.err")" "volley llm: --num-prompts: 0 is below 1" "bad: the line"
run_llm ign --base-url "$URL" --tokenizer x --num-prompts abc
check_eq "$RC" 2 "ignored then bad: exit status"

finish
