#!/usr/bin/env bash
# volley llm's file datasets end to end: a custom JSON lines file (prompt
# or messages, output_len) and a ShareGPT file; each prompt sent once, its
# output length asked as max tokens (the server's token events), its words
# the input tokens (the server counts words too).
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-log "$T/truth"
URL=http://127.0.0.1:$PORT

cat > "$T/custom.jsonl" <<'JL'
{"prompt": "one two three", "output_len": 2}
{"messages": [{"role": "user", "content": "four five"}, {"role": "assistant", "content": "six"}], "output_len": 3}

{"prompt": "seven", "output_len": 4}
JL
run_llm c --backend openai-chat --base-url "$URL" --dataset-name custom --dataset-path "$T/custom.jsonl" \
    --num-prompts 3 --disable-shuffle --request-id-prefix c- --max-concurrency 1
check_eq "$RC" 0 "custom: exit status"
check_eq "$(report_value c 'Successful requests')" 3 "custom: successful"
check_eq "$(report_value c 'Total generated tokens')" 9 "custom: 2 + 3 + 4 tokens"
check_eq "$(report_value c 'Total input tokens')" 7 "custom: 3 + 3 + 1 words"

/usr/bin/python3 - "$T/share.json" <<'PY'
import json, sys
conv = lambda q, a: {"conversations": [{"from": "human", "value": q}, {"from": "gpt", "value": a}]}
json.dump([conv("a b c d", "e f g h i"), conv("too short", "x y z w"), conv("j k l m n", "o p q r")],
          open(sys.argv[1], "w"))
PY
run_llm s --base-url "$URL" --dataset-name sharegpt --dataset-path "$T/share.json" --num-prompts 4 \
    --request-id-prefix s- --max-concurrency 2
check_eq "$RC" 0 "sharegpt: exit status"
check_eq "$(report_value s 'Successful requests')" 4 "sharegpt: successful (2 valid conversations, taken twice)"
check_eq "$(report_value s 'Total generated tokens')" 18 "sharegpt: the answers' words as max tokens (5 + 4, twice)"
check_eq "$(report_value s 'Total input tokens')" 18 "sharegpt: the prompts' words (4 + 5, twice)"

run_llm bad --base-url "$URL" --dataset-name custom --dataset-path "$T/nosuch.jsonl"
check_eq "$RC" 2 "a missing file: exit 2"
check_grep "$T/bad.err" "^volley llm: --dataset-path: .*nosuch.jsonl.*No such file" "a missing file: the line"
stop_target
check_eq "$(awk '$1 == "q" && $2 ~ /^c-/' "$T/truth" | wc -l)" 3 "custom: each prompt once"
check_eq "$(awk '$1 == "e" && $2 ~ /^c-/ && $3 ~ /^[1-9][0-9]*$/' "$T/truth" | wc -l)" 9 "custom: the server's token events"
finish
