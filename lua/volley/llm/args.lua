-- volley llm's command line: vLLM `bench serve`'s option names, defaults
-- and checks (vllm/benchmarks/serve.py and datasets.py), so that a bench
-- serve command line runs here unchanged. An option of vLLM's that has no
-- meaning here (a tokenizer, Hugging Face datasets, the profiler, ...) is
-- accepted, and named once on stderr as ignored.
--
-- parse(argv, env) returns a settings table, or nil and one line naming
-- the option (the caller prints it and exits 2). Nothing is printed or
-- read here: the specs check every path. env is os.getenv or a stand-in
-- (OPENAI_API_KEY is read from the environment, never from argv).
local M = {}

M.USAGE = [[
Usage: volley llm [options] [URL] [-- volley options]
Benchmark an OpenAI-compatible server (/v1/completions, /v1/chat/completions)
with vLLM bench serve's options and report (docs/llm.md).
  --base-url URL             the server (default http://HOST:PORT)
  --host H, --port P         without --base-url (127.0.0.1, 8000)
  --endpoint PATH            /v1/completions (/v1/chat/completions with openai-chat)
  --backend B                openai (completions, default), vllm (the same), openai-chat
  --model M                  "model" in each request (none: the server's default)
  --served-model-name M      the name sent instead of --model
  --num-prompts N            requests, one prompt each (1000)
  --request-rate R           requests/s (inf: all at once, the default)
  --burstiness K             gamma arrivals with shape K (1: Poisson, the default)
  --max-concurrency N        at most N requests in flight (connections)
  --dataset-name D           random (default), sharegpt or custom
  --dataset-path FILE        sharegpt: a JSON array; custom: JSONL with "prompt"
  --random-input-len N       random: prompt words (1024)
  --random-output-len N      random: max tokens (128)
  --random-range-ratio R     random: lengths uniform in [L(1-R), L(1+R)] (0)
  --random-prefix-len N      random: the same N words before every prompt (0)
  --input-len N, --output-len N   set the dataset's lengths
  --sharegpt-output-len N    sharegpt: max tokens (default: the answer's words)
  --custom-output-len N      custom: max tokens when a line has none (256)
  --ignore-eos               send "ignore_eos": true (random: always)
  --seed N                   prompts and arrivals (0)
  --temperature, --top-p, --top-k, --min-p, --frequency-penalty,
  --presence-penalty, --repetition-penalty V   sampling fields in each body
  --extra-body JSON          fields added to each body
  --header KEY=VALUE ...     request headers (OPENAI_API_KEY: Authorization)
  --request-id-prefix P      X-Request-Id: P0, P1, ... (per prompt)
  --percentile-metrics LIST  ttft,tpot,itl (also e2el)
  --metric-percentiles LIST  99
  --goodput KEY:MS ...       SLOs for request goodput: ttft, tpot, e2el
  --save-result, --save-detailed, --append-result, --result-dir DIR,
  --result-filename NAME, --label L, --metadata KEY=VALUE ...
volley's own options pass through: --json, --hlog, --html, --threshold,
--fail-if, --shard, --run-id, --timeout, -t/--threads, --http2, --h2c,
--verify, --cacert, --cert, --key, --sni, --max-body, and any after "--".
]]

-- Options whose value is a number: name -> { field, integer?, min }.
local NUMBERS = {
  ["--port"] = { "port", true, 1, 65535 },
  ["--num-prompts"] = { "num_prompts", true, 1 },
  ["--max-concurrency"] = { "max_concurrency", true, 1 },
  ["--random-input-len"] = { "random_input_len", true, 0 },
  ["--random-output-len"] = { "random_output_len", true, 1 },
  ["--random-range-ratio"] = { "random_range_ratio", false, 0 },
  ["--random-prefix-len"] = { "random_prefix_len", true, 0 },
  ["--input-len"] = { "input_len", true, 0 },
  ["--output-len"] = { "output_len", true, 1 },
  ["--sharegpt-output-len"] = { "sharegpt_output_len", true, 1 },
  ["--custom-output-len"] = { "custom_output_len", true, 1 },
  ["--seed"] = { "seed", true, 0 },
  ["--temperature"] = { "temperature", false, 0 },
  ["--top-p"] = { "top_p", false, 0 },
  ["--top-k"] = { "top_k", true, -1 },
  ["--min-p"] = { "min_p", false, 0 },
  ["--frequency-penalty"] = { "frequency_penalty", false, -1e9 },
  ["--presence-penalty"] = { "presence_penalty", false, -1e9 },
  ["--repetition-penalty"] = { "repetition_penalty", false, 0 },
}

-- Options whose value is a string.
local STRINGS = {
  ["--base-url"] = "base_url", ["--host"] = "host", ["--endpoint"] = "endpoint",
  ["--backend"] = "backend", ["--model"] = "model", ["--served-model-name"] = "served_model_name",
  ["--dataset-name"] = "dataset_name", ["--dataset-path"] = "dataset_path",
  ["--percentile-metrics"] = "percentile_metrics", ["--metric-percentiles"] = "metric_percentiles",
  ["--result-dir"] = "result_dir", ["--result-filename"] = "result_filename", ["--label"] = "label",
  ["--request-id-prefix"] = "request_id_prefix", ["--extra-body"] = "extra_body",
  ["--request-rate"] = "request_rate", ["--burstiness"] = "burstiness",
  -- volley's own --json file, given by `volley llm` for --save-result.
  ["--volley-json"] = "volley_json",
}

-- Switches.
local FLAGS = {
  ["--ignore-eos"] = "ignore_eos", ["--save-result"] = "save_result",
  ["--save-detailed"] = "save_detailed", ["--append-result"] = "append_result",
  ["--disable-tqdm"] = "disable_tqdm", ["--insecure"] = "insecure",
  ["--disable-shuffle"] = "disable_shuffle", ["--volley-json-temp"] = "volley_json_temp",
}

-- Options that take one value or more (argparse's nargs "+" / "*").
local LISTS = { ["--goodput"] = "goodput", ["--header"] = "header", ["--metadata"] = "metadata" }

-- vLLM's options that mean nothing here: name -> how many values (0, 1,
-- or "*" for a list). Each is named once on stderr, then ignored.
local IGNORED = {
  ["--tokenizer"] = 1, ["--tokenizer-mode"] = 1, ["--trust-remote-code"] = 0,
  ["--skip-tokenizer-init"] = 0, ["--use-beam-search"] = 0, ["--logprobs"] = 1,
  ["--profile"] = 0, ["--num-warmups"] = 1, ["--ready-check-timeout-sec"] = 1,
  ["--lora-modules"] = "*", ["--lora-assignment"] = 1, ["--ramp-up-strategy"] = 1,
  ["--ramp-up-start-rps"] = 1, ["--ramp-up-end-rps"] = 1, ["--plot-timeline"] = 0,
  ["--timeline-itl-thresholds"] = 1, ["--plot-dataset-stats"] = 0, ["--self-timed"] = 0,
  ["--no-self-timed"] = 0, ["--probe-request-rate"] = 1, ["--chat-template-kwargs"] = 1,
  ["--hf-subset"] = 1, ["--hf-split"] = 1, ["--hf-name"] = 1, ["--hf-output-len"] = 1,
  ["--no-stream"] = 0, ["--no-oversample"] = 0,
  ["--custom-skip-chat-template"] = 0, ["--random-batch-size"] = 1,
  ["--spec-bench-output-len"] = 1, ["--spec-bench-category"] = 1,
  ["--prefix-repetition-prefix-len"] = 1, ["--prefix-repetition-suffix-len"] = 1,
  ["--prefix-repetition-num-prefixes"] = 1, ["--prefix-repetition-output-len"] = 1,
  ["--sonnet-input-len"] = 1, ["--sonnet-output-len"] = 1, ["--sonnet-prefix-len"] = 1,
}

local BACKENDS = { openai = "completions", vllm = "completions", ["openai-chat"] = "chat" }
local DATASETS = { random = true, sharegpt = true, custom = true }
local METRICS = { ttft = true, tpot = true, itl = true, e2el = true }

local function defaults()
  return {
    host = "127.0.0.1", port = 8000, backend = "openai", num_prompts = 1000,
    request_rate = math.huge, burstiness = 1.0, dataset_name = "random",
    random_input_len = 1024, random_output_len = 128, random_range_ratio = 0.0,
    random_prefix_len = 0, custom_output_len = 256, seed = 0,
    percentile_metrics = "ttft,tpot,itl", metric_percentiles = "99",
    request_id_prefix = nil, ignored = {}, headers = {}, goodput = nil, metadata = {},
  }
end

-- A number option's value, or nil and the line.
local function number(name, spec, word)
  local v = tonumber(word)
  if v == nil or v ~= v then return nil, ("%s: %q is not a number"):format(name, tostring(word)) end
  if spec[2] and v % 1 ~= 0 then return nil, ("%s: %q is not a whole number"):format(name, word) end
  if v < spec[3] then return nil, ("%s: %s is below %s"):format(name, word, spec[3]) end
  if spec[4] and v > spec[4] then return nil, ("%s: %s is above %s"):format(name, word, spec[4]) end
  return v
end

-- "inf" or a positive number (--request-rate, --burstiness).
local function positive(name, word)
  if word == "inf" or word == "Infinity" or word == "infinity" then return math.huge end
  local v = tonumber(word)
  if v == nil or v ~= v or v <= 0 then
    return nil, ("%s: %q is not a positive number or inf"):format(name, tostring(word))
  end
  return v
end

-- --goodput ttft:500 tpot:50 -> { ttft = 500, tpot = 50 } (milliseconds).
function M.goodput(list)
  local g = {}
  for _, pair in ipairs(list) do
    local k, v = pair:match("^([^:]+):([^:]+)$")
    local ms = v and tonumber(v)
    if not ms then
      return nil, ("--goodput: %q is not KEY:VALUE (a metric and milliseconds, e.g. ttft:500)"):format(pair)
    end
    if k ~= "ttft" and k ~= "tpot" and k ~= "e2el" then
      return nil, ("--goodput: %q is not a metric (ttft, tpot or e2el)"):format(k)
    end
    if ms < 0 or ms ~= ms then return nil, ("--goodput: %s:%s is negative"):format(k, v) end
    g[k] = ms
  end
  return g
end

-- "25,50,99.9" -> { 25, 50, 99.9 }, each in (0, 100].
function M.percentiles(s)
  local out = {}
  for w in (s .. ","):gmatch("([^,]*),") do
    local p = tonumber(w)
    if not p or p <= 0 or p > 100 then
      return nil, ("--metric-percentiles: %q is not a percentile (above 0, at most 100)"):format(w)
    end
    out[#out + 1] = p
  end
  return out
end

-- "ttft,tpot" -> { "ttft", "tpot" } (vLLM's order of blocks is kept by the report).
function M.metrics(s)
  local out = {}
  for w in (s .. ","):gmatch("([^,]*),") do
    if not METRICS[w] then
      return nil, ("--percentile-metrics: %q is not a metric (ttft, tpot, itl, e2el)"):format(w)
    end
    out[w] = true
  end
  return out
end

-- The settings checked together, once every option is read.
local function finish(o, env)
  o.kind = BACKENDS[o.backend]
  if not o.kind then
    return nil, ("--backend: %q is not supported here (openai, vllm or openai-chat)"):format(o.backend)
  end
  if not DATASETS[o.dataset_name] then
    return nil, ("--dataset-name: %q is not supported here (random, sharegpt or custom)"):format(o.dataset_name)
  end
  if o.dataset_name == "random" and o.dataset_path then
    return nil, ("--dataset-path: the random dataset takes no file (%s)"):format(o.dataset_path)
  end
  if o.dataset_name ~= "random" and not o.dataset_path then
    return nil, ("--dataset-path: the %s dataset needs a file"):format(o.dataset_name)
  end
  if o.random_range_ratio >= 1 then
    return nil, ("--random-range-ratio: %s is not below 1"):format(o.random_range_ratio)
  end
  if o.input_len then o.random_input_len = o.input_len end
  if o.output_len then
    o.random_output_len, o.sharegpt_output_len, o.custom_output_len = o.output_len, o.output_len, o.output_len
  end
  -- vLLM: the random dataset always ignores EOS, so that every request
  -- generates its whole length.
  if o.dataset_name == "random" then o.ignore_eos = true end
  local err
  o.rate, err = positive("--request-rate", tostring(o.request_rate == math.huge and "inf" or o.request_rate))
  if not o.rate then return nil, err end
  o.percentiles, err = M.percentiles(o.metric_percentiles)
  if not o.percentiles then return nil, err end
  o.selected, err = M.metrics(o.percentile_metrics)
  if not o.selected then return nil, err end
  if o.goodput_list then
    o.goodput, err = M.goodput(o.goodput_list)
    if not o.goodput then return nil, err end
  end
  if not o.endpoint then
    o.endpoint = o.kind == "chat" and "/v1/chat/completions" or "/v1/completions"
  end
  if o.endpoint:sub(1, 1) ~= "/" then
    return nil, ("--endpoint: %q does not start with /"):format(o.endpoint)
  end
  local base = o.url or o.base_url
  if not base then
    local host = o.host:find(":", 1, true) and "[" .. o.host .. "]" or o.host
    base = ("http://%s:%d"):format(host, o.port)
  end
  if not base:match("^https?://[^/]") then
    return nil, ("--base-url: %q is not an http:// or https:// URL"):format(base)
  end
  o.base = base:gsub("/+$", "")
  o.api_url = o.base .. o.endpoint
  if o.extra_body then
    local json = require("volley.json")
    local v, why = json.decode(o.extra_body)
    if type(v) ~= "table" or v[1] ~= nil then
      return nil, ("--extra-body: not a JSON object (%s)"):format(why or "another value")
    end
    o.extra = v
  end
  local key = env and env("OPENAI_API_KEY")
  if key and key ~= "" then o.api_key = key end
  return o
end

-- The values of a list option: up to the next word that starts with "--".
local function list_values(argv, i)
  local out = {}
  while argv[i] and argv[i]:sub(1, 2) ~= "--" do
    out[#out + 1] = argv[i]
    i = i + 1
  end
  return out, i
end

-- Parses argv (the words after `volley llm`, volley's own taken out).
function M.parse(argv, env)
  local o = defaults()
  local i = 1
  while i <= #argv do
    local w = argv[i]
    local name, inline = w:match("^(%-%-[%w-]+)=(.*)$")
    name = name or w
    local function value()
      if inline then return inline end
      i = i + 1
      return argv[i]
    end
    if w == "-h" or w == "--help" then
      o.help = true
    elseif NUMBERS[name] then
      local spec = NUMBERS[name]
      local word = value()
      if word == nil then return nil, name .. ": a value is needed" end
      local v, err = number(name, spec, word)
      if not v then return nil, err end
      o[spec[1]] = v
    elseif STRINGS[name] then
      local word = value()
      if word == nil then return nil, name .. ": a value is needed" end
      if name == "--request-rate" or name == "--burstiness" then
        local v, err = positive(name, word)
        if not v then return nil, err end
        o[STRINGS[name]] = v
        if name == "--burstiness" then o.burstiness_given = true end
      else
        o[STRINGS[name]] = word
      end
    elseif FLAGS[name] then
      if inline then return nil, name .. ": takes no value" end
      o[FLAGS[name]] = true
    elseif LISTS[name] then
      local vals
      if inline then vals = { inline } else vals, i = list_values(argv, i + 1); i = i - 1 end
      if #vals == 0 and name ~= "--header" then return nil, name .. ": a value is needed" end
      if name == "--goodput" then
        o.goodput_list = vals
      else
        for _, kv in ipairs(vals) do
          local k, v = kv:match("^([^=]+)=(.*)$")
          if not k then return nil, ("%s: %q is not KEY=VALUE"):format(name, kv) end
          k, v = k:match("^%s*(.-)%s*$"), v:match("^%s*(.-)%s*$")
          local t = name == "--header" and o.headers or o.metadata
          t[#t + 1] = { k, v }
        end
      end
    elseif IGNORED[name] or name:match("^%-%-hf%-") then
      local n = IGNORED[name] or 1
      o.ignored[#o.ignored + 1] = name
      if n == 1 and not inline then i = i + 1 end
      if n == "*" and not inline then local _; _, i = list_values(argv, i + 1); i = i - 1 end
    elseif w:sub(1, 1) == "-" then
      return nil, ("%s: not an option of volley llm (volley help llm)"):format(w)
    elseif not o.url then
      o.url = w
    else
      return nil, ("%q: one URL only (%s is the first)"):format(w, o.url)
    end
    i = i + 1
  end
  if o.help then return o end
  return finish(o, env)
end

-- The ignored options' line, or "".
function M.warnings(o)
  if #o.ignored == 0 then return "" end
  return ("volley llm: ignored (no meaning here, see docs/llm.md): %s\n"):format(table.concat(o.ignored, " "))
end

return M
