#!/usr/bin/env bash
# volley llm --request-rate (an open model: -R) with --max-concurrency
# (the connections, which arrivals queue for) and --burstiness (gamma
# arrivals; Poisson by default); two shards of one run each
# send their own prompts, and volley merge adds them up exactly.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

start_target --llm-log "$T/truth" --llm-tokens 3 --llm-gap-ms 1
URL=http://127.0.0.1:$PORT

run_llm r --base-url "$URL" --num-prompts 20 --random-input-len 3 --random-output-len 3 \
    --request-rate 200 --max-concurrency 2
check_rate_rc "rate: exit status" # 3: 200/s not met on a loaded machine
check_eq "$(report_value r 'Successful requests')" 20 "rate: successful"
check_eq "$(report_value r 'Request rate configured (RPS)')" 200.00 "rate: the configured rate"
check_eq "$(report_value r 'Maximum request concurrency')" 2 "rate: concurrency"
check_grep "$T/r.out" '^From each request.s intended arrival \(CO-free\): TTFT median' "rate: the CO-free line"
check_grep "$T/r.out" '^Client headroom: event loop CPU [0-9.]+%; send lag p99 [0-9.]+ ms, max [0-9.]+ ms$' "rate: the headroom line"
check_grep "$T/r.out" '^Peak concurrent streams: [12]$' "rate: at most 2 streams at once"
check_grep "$T/r.out" '^Peak concurrent requests: +[12]\.00 *$' "rate: vLLM's peak line"
check_eq "$(jget "$T/r.json" connections.count)" 2 "rate: two connections"

check_eq "$(jget "$T/r.json" options.arrivals)" poisson "rate: Poisson arrivals, vLLM's default"
run_llm b --base-url "$URL" --num-prompts 20 --random-input-len 3 --random-output-len 3 \
    --request-rate 200 --burstiness 0.5
check_rate_rc "burstiness: exit status"
check_eq "$(report_value b 'Successful requests')" 20 "burstiness: successful"
check_grep "$T/b.out" '^Burstiness factor: 0.5 \(Gamma distribution\)$' "burstiness: the line"
check_eq "$(jget "$T/b.json" options.arrivals)" gamma:0.5 "burstiness: --arrivals gamma:0.5"

# Two shards of 16 prompts: each prompt once over both, merged exactly.
for i in 0 1; do
    run_llm "s$i" --base-url "$URL" --num-prompts 16 --random-input-len 3 --random-output-len 3 \
        --max-concurrency 4 --request-id-prefix "p-" --shard "$i/2" --run-id llm-shards
    check_eq "$RC" 0 "shard $i: exit status"
    check_eq "$(report_value "s$i" 'Successful requests')" 8 "shard $i: its half"
done
"$VOLLEY" merge "$T/s0.json" "$T/s1.json" --json "$T/m.json" > "$T/m.out" 2>&1 || fail "volley merge"
check_eq "$(jget "$T/m.json" requests.completed)" 16 "merged: requests"
check_eq "$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"]["counters"]["llm_output_tokens"]))' "$T/m.json")" 48 "merged: output tokens"
stop_target
check_eq "$(awk '$1 == "q" && $2 ~ /^p-/ { print $2 }' "$T/truth" | sort -u | wc -l)" 16 "shards: 16 distinct prompts"
check_eq "$(awk '$1 == "q" && $2 ~ /^p-/ { print $2 }' "$T/truth" | wc -l)" 16 "shards: each once"
finish
