#!/usr/bin/env bash
# --goodput by hand on a small run: 3 prompts of 2 tokens and 3 of 120, all
# at once, tokens 50 ms apart. The long ones take at least 6 s by the
# server's own gaps, so --goodput e2el:3000 can never count them; the short
# ones take some 150 ms, so they miss 3 s only if the machine stalls for
# seconds. Good: exactly the 3 short ones, so the request goodput is 3 /
# duration (vLLM's rule: good requests over the benchmark's duration), and
# with a TTFT SLO no request meets (1 ms: the first token is written 50 ms
# after the request is read), 0.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-first-ms 50 --llm-gap-ms 50 --llm-usage on
URL=http://127.0.0.1:$PORT
mkdir -p "$T/work"
cd "$T/work"
for n in 2 120 2 120 2 120; do
    printf '{"prompt": "tell me", "output_len": %d}\n' "$n"
done > prompts.jsonl
run_llm g --base-url "$URL" --backend openai-chat --model m --dataset-name custom --dataset-path prompts.jsonl \
    --num-prompts 6 --max-concurrency 6 --goodput e2el:3000 --save-result --result-filename g.json
check_eq "$RC" 0 "exit status"
python3 - g.json <<'PY' || fail "goodput: 3 good of 6, over the duration"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["completed"] == 6 and r["failed"] == 0, r
assert r["total_output_tokens"] == 3 * 2 + 3 * 120, r["total_output_tokens"]
assert r["duration"] >= 6.0, r["duration"]
assert abs(r["request_goodput"] - 3 / r["duration"]) < 1e-6, (r["request_goodput"], r["duration"])
PY
ok
check_grep "$T/g.out" '^Request goodput \(req/s\): +[0-9.]+' "the goodput line"
run_llm z --base-url "$URL" --backend openai-chat --model m --dataset-name custom --dataset-path prompts.jsonl \
    --num-prompts 6 --max-concurrency 6 --goodput ttft:1 --save-result --result-filename z.json
check_eq "$RC" 0 "exit status (an SLO no request meets)"
python3 - z.json <<'PY' || fail "goodput 0 when no request meets the TTFT SLO"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["completed"] == 6 and r["request_goodput"] == 0, r
PY
ok
finish
