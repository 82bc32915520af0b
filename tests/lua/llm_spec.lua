-- scripts/llm.lua's pure parts: vLLM bench serve's command line
-- (volley.llm.args), the datasets (volley.llm.dataset), the request body
-- (volley.llm.body), the reading of a stream's chunks (volley.llm.chunk)
-- and the report's layout and arithmetic (volley.llm.report).
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local args = require("volley.llm.args")
local dataset = require("volley.llm.dataset")
local body = require("volley.llm.body")
local chunk = require("volley.llm.chunk")
local report = require("volley.llm.report")
local json = require("volley.json")

local function words(line)
  local t = {}
  for w in line:gmatch("%S+") do t[#t + 1] = w end
  return t
end

local function parse(line, env)
  local o, err = args.parse(words(line), env)
  assert(o, err)
  return o
end

local function refuse(line)
  local o, err = args.parse(words(line))
  assert.is_nil(o)
  return err
end

describe("volley.llm.args", function()
  it("has vLLM's defaults", function()
    local o = parse("")
    assert.equal("openai", o.backend)
    assert.equal("completions", o.kind)
    assert.equal("http://127.0.0.1:8000/v1/completions", o.api_url)
    assert.equal(1000, o.num_prompts)
    assert.equal(math.huge, o.rate)
    assert.equal(1, o.burstiness)
    assert.equal(1024, o.random_input_len)
    assert.equal(128, o.random_output_len)
    assert.same({ 99 }, o.percentiles)
    assert.same({ ttft = true, tpot = true, itl = true }, o.selected)
    assert.is_true(o.ignore_eos) -- the random dataset always ignores EOS, as in vLLM
    assert.is_nil(o.max_concurrency)
  end)

  it("reads the URL, the backend and the endpoint", function()
    local o = parse("--backend openai-chat --base-url http://h:9/ --model org/m")
    assert.equal("chat", o.kind)
    assert.equal("http://h:9/v1/chat/completions", o.api_url)
    o = parse("http://h:9 --endpoint /x")
    assert.equal("http://h:9/x", o.api_url)
    o = parse("--host ::1 --port 81")
    assert.equal("http://[::1]:81/v1/completions", o.api_url)
  end)

  it("reads numbers, rates and lists", function()
    local o = parse("--request-rate 2.5 --burstiness 0.5 --max-concurrency 8 --num-prompts=10"
      .. " --goodput ttft:500 tpot:50 --metric-percentiles 50,90,99.9 --percentile-metrics ttft,e2el"
      .. " --header a=1 b=2 --seed 7")
    assert.equal(2.5, o.rate)
    assert.equal(0.5, o.burstiness)
    assert.is_true(o.burstiness_given)
    assert.equal(8, o.max_concurrency)
    assert.equal(10, o.num_prompts)
    assert.same({ ttft = 500, tpot = 50 }, o.goodput)
    assert.same({ 50, 90, 99.9 }, o.percentiles)
    assert.same({ ttft = true, e2el = true }, o.selected)
    assert.same({ { "a", "1" }, { "b", "2" } }, o.headers)
    assert.equal(7, o.seed)
  end)

  it("maps --input-len and --output-len to the datasets", function()
    local o = parse("--input-len 5 --output-len 6")
    assert.equal(5, o.random_input_len)
    assert.equal(6, o.random_output_len)
    assert.equal(6, o.custom_output_len)
  end)

  it("reads the API key from the environment only", function()
    local o = parse("", function(k) return k == "OPENAI_API_KEY" and "sk-1" or nil end)
    assert.equal("sk-1", o.api_key)
  end)

  it("names the options it ignores", function()
    local o = parse("--tokenizer x --profile --num-warmups 3 --lora-modules a b --num-prompts 2")
    assert.same({ "--tokenizer", "--profile", "--num-warmups", "--lora-modules" }, o.ignored)
    assert.equal(2, o.num_prompts)
    assert.matches("ignored .*%-%-tokenizer %-%-profile", args.warnings(o))
  end)

  it("refuses bad values with one line naming the option", function()
    assert.equal('--num-prompts: "x" is not a number', refuse("--num-prompts x"))
    assert.equal("--num-prompts: 0 is below 1", refuse("--num-prompts 0"))
    assert.equal('--request-rate: "0" is not a positive number or inf', refuse("--request-rate 0"))
    assert.matches("^%-%-backend: \"tgi\"", refuse("--backend tgi"))
    assert.matches("^%-%-dataset%-name: \"hf\"", refuse("--dataset-name hf"))
    assert.matches("^%-%-dataset%-path: the sharegpt dataset needs a file", refuse("--dataset-name sharegpt"))
    assert.matches("^%-%-random%-range%-ratio: 1 is not below 1", refuse("--random-range-ratio 1"))
    assert.matches("^%-%-goodput: \"ttft\" is not KEY:VALUE", refuse("--goodput ttft"))
    assert.matches("^%-%-goodput: \"x\" is not a metric", refuse("--goodput x:1"))
    assert.matches("^%-%-metric%-percentiles: \"0\"", refuse("--metric-percentiles 0"))
    assert.matches("^%-%-percentile%-metrics: \"foo\"", refuse("--percentile-metrics foo"))
    assert.matches("^%-%-frob: not an option", refuse("--frob"))
    assert.matches("^%-%-extra%-body: not a JSON object", refuse("--extra-body [1]"))
    assert.matches("^%-%-base%-url: \"ftp://x\"", refuse("--base-url ftp://x"))
    assert.equal("--model: a value is needed", refuse("--model"))
  end)
end)

describe("volley.llm.dataset", function()
  local o = parse("--random-input-len 10 --random-output-len 20 --random-range-ratio 0.5 --num-prompts 50 --seed 3")

  it("draws lengths within vLLM's bounds", function()
    assert.same({ 5, 15 }, { dataset.bounds(10, 0.5) })
    assert.same({ 1, 2 }, { dataset.bounds(1, 0.5, 1) })
    assert.same({ 1, 1 }, { dataset.bounds(0, 0.5, 1) })
    assert.same({ 10, 10 }, { dataset.bounds(10, 0) })
    local list = dataset.build(o)
    assert.equal(50, #list)
    local seen = {}
    for _, s in ipairs(list) do
      assert.is_true(s.prompt_len >= 5 and s.prompt_len <= 15)
      assert.is_true(s.output_len >= 10 and s.output_len <= 30)
      assert.equal(s.prompt_len, dataset.count_words(s.prompt))
      seen[s.prompt_len] = true
    end
    assert.is_true(seen[5] ~= nil or seen[15] ~= nil or next(seen) ~= nil)
  end)

  it("makes prompt k a function of (seed, k) alone", function()
    local a = dataset.random_sample(o, 7)
    local b = dataset.build(parse("--random-input-len 10 --random-output-len 20 --random-range-ratio 0.5"
      .. " --num-prompts 8 --seed 3"))[8]
    assert.same(a, b)
    local c = dataset.random_sample(parse("--random-input-len 10 --random-output-len 20"
      .. " --random-range-ratio 0.5 --seed 4"), 7)
    assert.are_not.same(a.prompt, c.prompt)
  end)

  it("puts the same prefix before every prompt", function()
    local p = parse("--random-input-len 3 --random-prefix-len 4 --num-prompts 2")
    local list = dataset.build(p)
    assert.equal(7, list[1].prompt_len)
    local pre1 = list[1].prompt:match("^(%S+ %S+ %S+ %S+)")
    assert.equal(pre1, list[2].prompt:match("^(%S+ %S+ %S+ %S+)"))
  end)

  local function files(t) return function(path) return t[path], t[path] and nil or path .. ": No such file" end end

  it("reads ShareGPT's format, filtered as vLLM does", function()
    local text = json.encode({
      { conversations = { { from = "human", value = "one two three four" }, { from = "gpt", value = "a b c d e" } } },
      { conversations = { { from = "human", value = "too short" }, { from = "gpt", value = "a b c d" } } },
      { conversations = { { from = "human", value = "only one turn here" } } },
    })
    local p = parse("--dataset-name sharegpt --dataset-path s.json --num-prompts 3")
    local list = assert(dataset.build(p, files({ ["s.json"] = text })))
    assert.equal(3, #list) -- the one valid conversation, taken three times (vLLM oversamples)
    assert.same({ prompt = "one two three four", prompt_len = 4, output_len = 5 }, list[1])
    p = parse("--dataset-name sharegpt --dataset-path s.json --num-prompts 1 --sharegpt-output-len 9")
    assert.equal(9, dataset.build(p, files({ ["s.json"] = text }))[1].output_len)
    local _, err = dataset.build(p, files({ ["s.json"] = "{" }))
    assert.matches("^%-%-dataset%-path s.json: not JSON", err)
    _, err = dataset.build(p, files({}))
    assert.matches("No such file", err)
  end)

  it("reads custom JSON lines: prompt or messages, output_len", function()
    local text = '{"prompt": "a b c", "output_len": 4}\n\n{"prompt": "d e"}\n'
    local p = parse("--dataset-name custom --dataset-path c.jsonl --num-prompts 2 --disable-shuffle")
    local list = assert(dataset.build(p, files({ ["c.jsonl"] = text })))
    assert.same({ prompt = "a b c", prompt_len = 3, output_len = 4 }, list[1])
    assert.same({ prompt = "d e", prompt_len = 2, output_len = 256 }, list[2])
    local chat = '{"messages": [{"role": "user", "content": "x y"}]}\n'
    local _, err = dataset.build(p, files({ ["c.jsonl"] = chat }))
    assert.equal("--dataset-path c.jsonl:1: messages need --backend openai-chat", err)
    p = parse("--backend openai-chat --dataset-name custom --dataset-path c.jsonl --num-prompts 1")
    assert.equal(2, dataset.build(p, files({ ["c.jsonl"] = chat }))[1].prompt_len)
    _, err = dataset.build(p, files({ ["c.jsonl"] = '{"text": 1}\n' }))
    assert.equal('--dataset-path c.jsonl:1: no "prompt" string or "messages" list', err)
    _, err = dataset.build(p, files({ ["c.jsonl"] = 'nope\n' }))
    assert.matches("^%-%-dataset%-path c.jsonl:1: not a JSON object", err)
  end)
end)

describe("volley.llm.body", function()
  it("builds vLLM's completions body", function()
    local o = parse("--model m --temperature 0 --extra-body {\"top_k\":5}")
    local b = body.fields(o, { prompt = "p q", prompt_len = 2, output_len = 7 })
    assert.same({ model = "m", prompt = "p q", max_tokens = 7, repetition_penalty = 1.0, stream = true,
      stream_options = { include_usage = true }, ignore_eos = true, temperature = 0, top_k = 5 }, b)
  end)

  it("builds vLLM's chat body", function()
    local o = parse("--backend openai-chat --dataset-name custom --dataset-path x --served-model-name s")
    local b = body.fields(o, { prompt = "hi", prompt_len = 1, output_len = 3 })
    assert.same({ model = "s", messages = { { role = "user", content = "hi" } }, max_completion_tokens = 3,
      stream = true, stream_options = { include_usage = true } }, b)
  end)

  it("makes a row per prompt and reads it back", function()
    local o = parse("")
    local row = body.row(o, { prompt = "a\tb\nc", prompt_len = 3, output_len = 1 }, 41)
    assert.is_nil(row:find("\n", 1, true))
    local k, n, text = body.split(row)
    assert.equal(41, k)
    assert.equal(3, n)
    assert.equal("a\tb\nc", json.decode(text).prompt)
  end)
end)

describe("volley.llm.chunk", function()
  local function ev(t) return { t = t } end
  local role = '{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}'
  local tok = '{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}'
  local fin = '{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}'
  local usage = '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}'

  it("times the chunks with output; the finish chunk ends E2EL", function()
    local st = chunk.reset(nil, 9)
    assert.equal(0, chunk.take(st, role, ev(100)))   -- the role is no token
    assert.equal(1, chunk.take(st, tok, ev(150)))
    assert.equal(1, chunk.take(st, tok, ev(400)))
    assert.equal(250, st.gap)
    assert.equal(0, chunk.take(st, fin, ev(410)))    -- no output: no token, but the end of E2EL
    assert.is_true(st.finish)
    assert.equal(2, chunk.take(st, usage, ev(410)))
    assert.equal(0, chunk.take(st, "[DONE]", ev(420)))
    assert.is_nil(chunk.verdict(st, 200))
    local ttft, e2el, tpot, out, inp = chunk.figures(st)
    assert.equal(150, ttft)
    assert.equal(410, e2el)
    assert.equal(2, out)     -- usage's count
    assert.equal(5, inp)
    assert.equal(260, tpot)  -- (410 - 150) / (2 - 1)
    assert.equal(4, st.choices)
  end)

  it("takes text, reasoning and tool calls as output", function()
    local st = chunk.reset()
    assert.equal(1, chunk.take(st, '{"choices":[{"index":0,"text":"a"}]}', ev(1)))
    assert.equal(0, chunk.take(st, '{"choices":[{"index":0,"text":""}]}', ev(2)))
    assert.equal(1, chunk.take(st, '{"choices":[{"delta":{"reasoning_content":"hm"}}]}', ev(3)))
    assert.equal(1, chunk.take(st, '{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}', ev(4)))
    assert.equal(0, chunk.take(st, '{"choices":[{"delta":{"tool_calls":[]}}]}', ev(5)))
    assert.equal(3, st.n)
  end)

  it("counts the token arrivals and the prompt's words without usage", function()
    local st = chunk.reset(nil, 9)
    chunk.take(st, role, ev(5))
    chunk.take(st, tok, ev(10))
    chunk.take(st, tok, ev(20))
    chunk.take(st, tok, ev(50))
    chunk.take(st, fin, ev(50))
    chunk.take(st, "[DONE]", ev(50))
    local ttft, e2el, tpot, out, inp = chunk.figures(st)
    assert.same({ 10, 50, 20, 3, 9 }, { ttft, e2el, tpot, out, inp })
  end)

  it("fails errors, bad JSON and streams cut short", function()
    local st = chunk.reset()
    local r, why = chunk.take(st, '{"error":{"message":"boom","code":500}}', ev(1))
    assert.is_nil(r)
    assert.equal("error event: boom", why)
    r, why = chunk.take(st, "{not json", ev(1))
    assert.is_nil(r)
    assert.equal("a data: line is not a JSON object (invalid JSON at byte 2)", why)
    st = chunk.reset()
    assert.equal("no chunk with choices (no token to time)", chunk.verdict(st, 200))
    chunk.take(st, role, ev(1))
    assert.equal("no chunk with output (no token to time)", chunk.verdict(st, 200))
    chunk.take(st, tok, ev(1))
    assert.equal("the stream ended without [DONE] or a finish_reason", chunk.verdict(st, 200))
    chunk.take(st, fin, ev(2))
    assert.is_nil(chunk.verdict(st, 200)) -- a finish_reason without [DONE] is complete
    st = chunk.reset()
    st.plain = true
    chunk.plain(st, '{"error":{"message":"bad model"}}')
    assert.equal('status 400: {"error":{"message":"bad model"}}', chunk.verdict(st, 400))
    assert.equal("not an event stream (Content-Type is not text/event-stream)", chunk.verdict(st, 200))
  end)

  it("judges goodput as vLLM does (every SLO met, in ms)", function()
    assert.is_true(chunk.good({ ttft = 1, tpot = 0.5 }, 1000, 500, 99999))
    assert.is_false(chunk.good({ ttft = 1 }, 1001, 0, 0))
    assert.is_false(chunk.good({ e2el = 2 }, 0, 0, 2001))
  end)
end)

describe("volley.llm.report", function()
  -- A stats-like object of values (µs), with nearest-rank percentiles.
  local function stats(v)
    table.sort(v)
    local sum, sq = 0, 0
    for _, x in ipairs(v) do sum = sum + x end
    local mean = sum / #v
    for _, x in ipairs(v) do sq = sq + (x - mean) ^ 2 end
    return { count = #v, mean = mean, stdev = math.sqrt(sq / #v), max = v[#v],
      percentile = function(_, p) return v[math.max(1, math.ceil(p / 100 * #v))] end }
  end

  it("centres headers as Python does", function()
    assert.equal("============ Serving Benchmark Result ============", report.center(" Serving Benchmark Result ", "=", 50))
    assert.equal("---------------Time to First Token----------------", report.center("Time to First Token", "-", 50))
    assert.equal("-----Time per Output Token (excl. 1st token)------",
      report.center("Time per Output Token (excl. 1st token)", "-", 50))
  end)

  it("lays the block out as vLLM prints it, from a made-up run", function()
    -- Three requests: TTFT 10, 20, 30 ms; tokens 5, 3, 1 over E2EL 50, 40, 30 ms,
    -- so TPOT (e2el - ttft) / (n - 1) = 10, 10 and none (one token).
    local ttft, e2el = { 10000, 20000, 30000 }, { 50000, 40000, 30000 }
    local tpot = { (50000 - 10000) / 4, (40000 - 20000) / 2 }
    local goodput = 0
    local toks = { 5, 3, 1 }
    for i = 1, 3 do
      local tp = toks[i] > 1 and (e2el[i] - ttft[i]) / (toks[i] - 1) or 0
      if chunk.good({ ttft = 25, tpot = 10 }, ttft[i], tp, e2el[i]) then goodput = goodput + 1 end
    end
    assert.equal(2, goodput)
    local f = {
      completed = 3, failed = 1, max_concurrency = 2, rate = 4, duration = 2.0,
      total_input = 30, total_output = 9, goodput = goodput,
      selected = { ttft = true, tpot = true, e2el = true },
      metrics = {
        ttft = report.metric(stats(ttft), { 50, 99 }, 0.001),
        tpot = report.metric(stats(tpot), { 50, 99 }, 0.001),
        itl = report.metric(nil, { 50, 99 }, 0.001),
        e2el = report.metric(stats(e2el), { 50, 99 }, 0.001),
      },
    }
    local text, r = report.block(f)
    local want = table.concat({
      "============ Serving Benchmark Result ============",
      "Successful requests:                     3         ",
      "Failed requests:                         1         ",
      "Maximum request concurrency:             2         ",
      "Request rate configured (RPS):           4.00      ",
      "Benchmark duration (s):                  2.00      ",
      "Total input tokens:                      30        ",
      "Total generated tokens:                  9         ",
      "Request throughput (req/s):              1.50      ",
      "Request goodput (req/s):                 1.00      ",
      "Output token throughput (tok/s):         4.50      ",
      "Total token throughput (tok/s):          19.50     ",
      "---------------Time to First Token----------------",
      "Mean TTFT (ms):                          20.00     ",
      "Median TTFT (ms):                        20.00     ",
      "P50 TTFT (ms):                           20.00     ",
      "P99 TTFT (ms):                           30.00     ",
      "-----Time per Output Token (excl. 1st token)------",
      "Mean TPOT (ms):                          10.00     ",
      "Median TPOT (ms):                        10.00     ",
      "P50 TPOT (ms):                           10.00     ",
      "P99 TPOT (ms):                           10.00     ",
      "----------------End-to-end Latency----------------",
      "Mean E2EL (ms):                          40.00     ",
      "Median E2EL (ms):                        40.00     ",
      "P50 E2EL (ms):                           40.00     ",
      "P99 E2EL (ms):                           50.00     ",
      "==================================================",
      "" }, "\n")
    assert.equal(want, text)
    assert.equal(1.5, r.request_throughput)
    assert.equal(1, r.request_goodput)
    assert.equal(19.5, r.total_token_throughput)
    assert.equal(10, r.mean_tpot_ms)
    assert.equal(30, r.p99_ttft_ms)
    assert.is_nil(r.mean_itl_ms) -- not selected
  end)

  it("takes the figures from the records and volley's stream figures", function()
    local o = parse("--request-rate 5 --max-concurrency 3 --goodput ttft:10 --metric-percentiles 50")
    local result = {
      duration = 4, requests = { completed = 8, failed = 1, cut_off = 1 },
      metrics = {
        counters = { llm_input_tokens = 40, llm_output_tokens = 80, llm_good = 6, llm_usage_streams = 8 },
        records = { llm_ttft_ms = stats({ 1, 2, 3 }),
                    llm_ttft_arrival_ms = stats({ 4, 5 }), llm_e2el_arrival_ms = stats({ 9, 10 }) },
      },
      sendlag = stats({ 100, 3000 }),
    }
    local f = report.figures(o, result)
    assert.same({ 8, 2, 40, 80, 6, 3, 5 }, { f.completed, f.failed, f.total_input, f.total_output, f.goodput,
      f.max_concurrency, f.rate })
    assert.equal(2, f.metrics.ttft.median)
    assert.equal(0, f.metrics.itl.mean) -- no stream figures: vLLM's zeros of an empty list
    assert.same({ 4, 5, 9, 10 }, f.arrival)
    assert.is_nil(f.peak)
    assert.equal("From each request's intended arrival (CO-free): TTFT median 4.00 ms, p99 5.00 ms;"
      .. " E2EL median 9.00 ms, p99 10.00 ms\n"
      .. "Client headroom: send lag p99 3.00 ms, max 3.00 ms\n"
      .. "Tokens: from the server's usage (every stream had it)\n", report.volley_lines(o, result, f))
    -- volley's stream figures (µs), as done() gives them.
    result.stream = { streams = 8, peak = 3, itl = stats({ 700, 900 }), ttft = stats({ 6000 }),
                      service_ttft = stats({ 2000 }), e2el = stats({ 12000 }) }
    result.cpu = { seconds = 0.5, share = 0.125 }
    result.metrics.counters.llm_usage_streams = 0
    f = report.figures(o, result)
    assert.equal(0.8, f.metrics.itl.mean)
    assert.same({ 6, 6, 12, 12 }, f.arrival)
    assert.equal(3, f.peak)
    assert.equal("From each request's intended arrival (CO-free): TTFT median 6.00 ms, p99 6.00 ms;"
      .. " E2EL median 12.00 ms, p99 12.00 ms\n"
      .. "Peak concurrent streams: 3\n"
      .. "Client headroom: event loop CPU 12.5%; send lag p99 3.00 ms, max 3.00 ms\n"
      .. "Tokens: counted as the chunks with output (no stream had usage); prompts in words\n",
      report.volley_lines(o, result, f))
    assert.matches("Peak concurrent requests:                3.00      \n", (report.block(f)))
  end)

  it("lists failures as vLLM lists its errors", function()
    assert.equal("", report.failure_lines({ failures = {}, errors = { read = 0 } }))
    assert.equal("Failed requests during benchmark run detected (capping to 10):\n"
      .. "Error 0: status 500: x (3 requests)\n"
      .. "Error 1: timeout error (2 requests)\n",
      report.failure_lines({ failures = { ["status 500: x"] = 3 }, errors = { timeout = 2, validation = 3, read = 0 } }))
  end)

  it("names the result file as vLLM does", function()
    local o = parse("--model org/llama --max-concurrency 4 --request-rate 10")
    assert.equal("openai-10.0qps-concurrency4-llama-20260101-120000.json", report.file_name(o, "20260101-120000"))
    o = parse("--result-dir d/ --result-filename r.json --label x")
    assert.equal("d/r.json", report.file_name(o, "x"))
  end)

  it("writes vLLM's fields, with empty per-request lists on --save-detailed", function()
    local o = parse("--save-result --save-detailed --metadata tp=1 --num-prompts 3")
    local t = json.decode(report.encode(report.result_json(o, { completed = 3 }, "d")))
    assert.equal(3, t.completed)
    assert.equal("inf", t.request_rate)
    assert.equal(1, t.burstiness)
    assert.equal(3, t.num_prompts)
    assert.equal("1", t.tp)
    assert.equal(json.null, t.max_concurrency)
    assert.same({}, t.ttfts)
    assert.is_nil(json.decode(report.encode(report.result_json(parse(""), {}, "d"))).ttfts)
  end)
end)
