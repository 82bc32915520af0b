#!/usr/bin/env bash
# volley llm with thresholds on its figures (volley's stream figures,
# ttft, itl, ..., and the metrics of the blocks' values): one that holds
# exits 0, one that does not exits 99 with its line on stderr; volley's
# own --threshold words pass through.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-tokens 4
URL=http://127.0.0.1:$PORT

# 8 completions of 4 tokens: 4 chunks with output each, 3 gaps.
run_llm hold --base-url "$URL" --num-prompts 8 --random-input-len 3 --random-output-len 4 \
    --threshold 'metric.llm_ttft_ms.p99 < 60000' --threshold 'metric.llm_output_tokens == 32' \
    --threshold 'ttft.p99 < 60s' --threshold 'itl.count == 24' --threshold 'tokens == 32'
check_eq "$RC" 0 "thresholds that hold: exit status"
check_eq "$(report_value hold 'Successful requests')" 8 "thresholds that hold: the run"

# TTFT cannot be below 1 ns (it is at least a read after the request).
run_llm broken --base-url "$URL" --num-prompts 8 --random-input-len 3 --random-output-len 4 \
    --threshold 'metric.llm_ttft_ms.p99 < 0.000001'
check_eq "$RC" 99 "a threshold that does not hold: exit 99"
check_grep "$T/broken.err" 'metric.llm_ttft_ms.p99 < 0.000001' "its line on stderr"
check_eq "$(report_value broken 'Successful requests')" 8 "the report is printed all the same"
run_llm broken2 --base-url "$URL" --num-prompts 8 --random-input-len 3 --random-output-len 4 \
    --threshold 'ttft.p50 < 1ns'
check_eq "$RC" 99 "ttft.p50 < 1ns: exit 99"
check_grep "$T/broken2.err" 'ttft.p50 < 1ns' "its line on stderr"

run_llm counted --base-url "$URL" --num-prompts 8 --random-input-len 3 --random-output-len 4 \
    -- --threshold 'metric.llm_output_tokens == 31'
check_eq "$RC" 99 "after --: a count that does not match: exit 99"
finish
