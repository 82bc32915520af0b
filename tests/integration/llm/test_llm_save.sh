#!/usr/bin/env bash
# volley llm --save-result: vLLM's result file (its name, its fields) and
# volley's own result beside it (NAME.volley.json), which volley report
# reads; --goodput's line and field.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-tokens 4
URL=http://127.0.0.1:$PORT
mkdir -p "$T/work"
cd "$T/work"
run_llm s --base-url "$URL" --model org/tiny --num-prompts 12 --random-input-len 4 --random-output-len 4 \
    --max-concurrency 3 --save-result --result-dir out --metadata tp=2 --goodput ttft:60000 e2el:60000 \
    --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99.9
check_eq "$RC" 0 "exit status"
F=$(ls out/openai-infqps-concurrency3-tiny-*.json 2>/dev/null | grep -v volley.json | head -1 || true)
check_eq "$([ -n "$F" ] && echo yes)" yes "vLLM's file name (out/openai-infqps-concurrency3-tiny-DATE.json)"
check_eq "$([ -s "$F.volley.json" ] && echo yes)" yes "volley's result beside it"
python3 - "$F" <<'PY' || fail "vLLM's fields"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["completed"] == 12 and r["failed"] == 0, r
assert r["num_prompts"] == 12 and r["request_rate"] == "inf" and r["burstiness"] == 1, r
assert r["max_concurrency"] == 3 and r["model_id"] == "org/tiny" and r["backend"] == "openai", r
assert r["tp"] == "2", r
assert r["total_output_tokens"] == 48 and r["total_input_tokens"] == 48, r
for k in ("request_throughput", "output_throughput", "total_token_throughput", "duration"):
    assert r[k] > 0, k
assert abs(r["request_goodput"] - 12 / r["duration"]) < 1e-6 * r["request_goodput"], r
for m in ("ttft", "tpot", "itl", "e2el"):
    for k in ("mean_%s_ms", "median_%s_ms", "std_%s_ms", "p50_%s_ms", "p99.9_%s_ms"):
        assert isinstance(r[k % m], (int, float)), k % m
assert "ttfts" not in r and "generated_texts" not in r, "per-request lists only with --save-detailed"
PY
ok
check_grep "$T/s.out" '^Request goodput \(req/s\): +[0-9.]+' "goodput line"
check_grep "$T/s.out" '^P99.9 E2EL \(ms\): ' "the chosen percentiles"
"$VOLLEY" report "$F.volley.json" > "$T/report.out" 2>&1 || fail "volley report of NAME.volley.json"
check_grep "$T/report.out" '12 requests' "volley report reads volley's result"
finish
