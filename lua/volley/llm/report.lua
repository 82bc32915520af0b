-- volley llm's report: vLLM bench serve's "Serving Benchmark Result"
-- block, line for line as vllm/benchmarks/serve.py prints it (Python's
-- "{:<40} {:<10}" and "{:<40} {:<10.2f}", headers centred in 50), then
-- volley's own lines; and the --save-result file, with vLLM's field names.
--
-- Everything here works on plain numbers (the figures table below), so
-- the specs check the layout and the arithmetic on made-up sets.
local json = require("volley.json")

local M = {}

-- Python's "{s:{c}^{n}}": s centred in n with c, the odd one on the right.
function M.center(s, c, n)
  local pad = n - #s
  if pad <= 0 then return s end
  local left = math.floor(pad / 2)
  return c:rep(left) .. s .. c:rep(pad - left)
end

local function line(label, value)
  return ("%-40s %-10s\n"):format(label, value)
end

local function fline(label, value)
  return ("%-40s %-10.2f\n"):format(label, value)
end

-- A number as Python prints a float: inf, 10.0, 2.5.
function M.pyfloat(x)
  if x == math.huge then return "inf" end
  if x % 1 == 0 then return ("%.1f"):format(x) end
  return ("%.14g"):format(x)
end

-- vLLM's name of percentile p: "99", "99.9", "50".
function M.p_word(p)
  if p == math.floor(p) then return ("%d"):format(p) end
  return ("%.14g"):format(p)
end

-- The metric blocks, in vLLM's order: attribute, name, header.
M.BLOCKS = {
  { "ttft", "TTFT", "Time to First Token" },
  { "tpot", "TPOT", "Time per Output Token (excl. 1st token)" },
  { "itl", "ITL", "Inter-token Latency" },
  { "e2el", "E2EL", "End-to-end Latency" },
}

-- The figures of a stats-like source s (count, mean, stdev, percentile(p))
-- in ms: { mean, median, std, pct = { {p, v}, ... } }; all 0 when empty,
-- as numpy's of an empty list are in vLLM (np.mean(x or 0)). unit: ms per
-- unit of s (0.001 for µs).
function M.metric(s, percentiles, unit)
  local m = { mean = 0, median = 0, std = 0, pct = {} }
  local empty = not s or (s.count or 0) == 0
  if not empty then
    m.mean, m.median, m.std = s.mean * unit, s:percentile(50) * unit, s.stdev * unit
  end
  for i, p in ipairs(percentiles) do
    m.pct[i] = { p, empty and 0 or s:percentile(p) * unit }
  end
  return m
end

-- The vLLM block. f: completed, failed, max_concurrency (nil: none),
-- rate (math.huge: none), duration (s), total_input, total_output,
-- goodput (nil: none, else good requests), peak (nil: not shown),
-- metrics = { ttft = m, tpot = m, itl = m, e2el = m }, selected = { ttft = true, ... }.
-- Returns the text and vLLM's result fields.
function M.block(f)
  local out, r = {}, {}
  local d = f.duration > 0 and f.duration or 1e-9
  out[#out + 1] = M.center(" Serving Benchmark Result ", "=", 50) .. "\n"
  out[#out + 1] = line("Successful requests:", f.completed)
  out[#out + 1] = line("Failed requests:", f.failed)
  if f.max_concurrency then out[#out + 1] = line("Maximum request concurrency:", f.max_concurrency) end
  if f.rate ~= math.huge then out[#out + 1] = fline("Request rate configured (RPS):", f.rate) end
  out[#out + 1] = fline("Benchmark duration (s):", f.duration)
  out[#out + 1] = line("Total input tokens:", f.total_input)
  out[#out + 1] = line("Total generated tokens:", f.total_output)
  r.duration, r.completed, r.failed = f.duration, f.completed, f.failed
  r.total_input_tokens, r.total_output_tokens = f.total_input, f.total_output
  r.request_throughput = f.completed / d
  r.output_throughput = f.total_output / d
  r.total_token_throughput = (f.total_input + f.total_output) / d
  r.request_goodput = f.goodput and f.goodput / d or json.null
  out[#out + 1] = fline("Request throughput (req/s):", r.request_throughput)
  if f.goodput then out[#out + 1] = fline("Request goodput (req/s):", r.request_goodput) end
  out[#out + 1] = fline("Output token throughput (tok/s):", r.output_throughput)
  if f.peak_tokens then
    out[#out + 1] = fline("Peak output token throughput (tok/s):", f.peak_tokens)
    r.max_output_tokens_per_s = f.peak_tokens
  end
  if f.peak then
    out[#out + 1] = fline("Peak concurrent requests:", f.peak)
    r.max_concurrent_requests = f.peak
  end
  out[#out + 1] = fline("Total token throughput (tok/s):", r.total_token_throughput)
  for _, b in ipairs(M.BLOCKS) do
    local attr, name, header = b[1], b[2], b[3]
    local m = f.metrics[attr]
    if f.selected[attr] and m then
      out[#out + 1] = M.center(header, "-", 50) .. "\n"
      out[#out + 1] = fline(("Mean %s (ms):"):format(name), m.mean)
      out[#out + 1] = fline(("Median %s (ms):"):format(name), m.median)
      r["mean_" .. attr .. "_ms"], r["median_" .. attr .. "_ms"], r["std_" .. attr .. "_ms"] = m.mean, m.median, m.std
      for _, pv in ipairs(m.pct) do
        local w = M.p_word(pv[1])
        out[#out + 1] = fline(("P%s %s (ms):"):format(w, name), pv[2])
        r[("p%s_%s_ms"):format(w, attr)] = pv[2]
      end
    end
  end
  out[#out + 1] = ("="):rep(50) .. "\n"
  return table.concat(out), r
end

-- The block's figures from a run's result (done()'s): the counters and
-- records scripts/llm.lua keeps per request, and volley's stream figures
-- (result.stream, µs): the ITL (every gap between token marks, recorded by
-- volley as they come), the peak of streams, and with -R TTFT and E2EL
-- from each request's due time (exact; without them, the records' made
-- from the response's lag).
function M.figures(o, result)
  local m = result.metrics or {}
  local c, rec = m.counters or {}, m.records or {}
  local req = result.requests
  local f = {
    completed = req.completed,
    failed = req.failed + (req.cut_off or 0),
    max_concurrency = o.max_concurrency,
    rate = o.rate,
    duration = result.duration,
    total_input = math.floor(c["llm_input_tokens"] or 0),
    total_output = math.floor(c["llm_output_tokens"] or 0),
    goodput = o.goodput and (c["llm_good"] or 0) or nil,
    selected = o.selected,
    usage_streams = c["llm_usage_streams"] or 0,
    metrics = {},
  }
  for _, b in ipairs(M.BLOCKS) do
    f.metrics[b[1]] = M.metric(rec["llm_" .. b[1] .. "_ms"], o.percentiles, 1)
  end
  local cs = result.stream
  local function has(h) return cs and h and h.count > 0 end
  f.metrics.itl = M.metric(cs and cs.itl, o.percentiles, 0.001)
  if cs and (cs.streams or 0) > 0 and cs.peak then f.peak = cs.peak end
  -- CO-free (-R): { ttft, e2el } as { p50, p99 } in ms.
  if o.rate ~= math.huge then
    if has(cs and cs.ttft) and has(cs and cs.e2el) and cs.service_ttft and cs.service_ttft.count > 0 then
      local t, e = cs.ttft, cs.e2el
      f.arrival = { t:percentile(50) / 1000, t:percentile(99) / 1000, e:percentile(50) / 1000, e:percentile(99) / 1000 }
    else
      local t, e = rec["llm_ttft_arrival_ms"], rec["llm_e2el_arrival_ms"]
      local function p(s, q) return s and s.count > 0 and s:percentile(q) or 0 end
      f.arrival = { p(t, 50), p(t, 99), p(e, 50), p(e, 99) }
    end
  end
  return f
end

-- volley's failure reasons and failed requests by kind, as vLLM lists its
-- errors (at most 10), most frequent first.
function M.failure_lines(result)
  local list = {}
  for reason, n in pairs(result.failures or {}) do list[#list + 1] = { reason, n } end
  for kind, n in pairs(result.errors or {}) do
    if kind ~= "validation" and n > 0 then list[#list + 1] = { kind .. " error", n } end
  end
  if #list == 0 then return "" end
  table.sort(list, function(a, b) return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1]) end)
  local out = { "Failed requests during benchmark run detected (capping to 10):\n" }
  for i = 1, math.min(10, #list) do
    out[#out + 1] = ("Error %d: %s (%d requests)\n"):format(i - 1, list[i][1], list[i][2])
  end
  return table.concat(out)
end

-- volley's own lines under the block: the CO-free figures (-R), the peak
-- of streams, the client's headroom, how tokens were counted.
function M.volley_lines(o, result, f)
  local out = {}
  if f.arrival then
    out[#out + 1] = ("From each request's intended arrival (CO-free): TTFT median %.2f ms, p99 %.2f ms;"
      .. " E2EL median %.2f ms, p99 %.2f ms\n"):format(f.arrival[1], f.arrival[2], f.arrival[3], f.arrival[4])
  end
  if f.peak then out[#out + 1] = ("Peak concurrent streams: %d\n"):format(f.peak) end
  local parts = {}
  local cpu = result.cpu
  if cpu and cpu.share then parts[#parts + 1] = ("event loop CPU %.1f%%"):format(cpu.share * 100) end
  local lag = result.sendlag
  if lag and lag.count > 0 then
    parts[#parts + 1] = ("send lag p99 %.2f ms, max %.2f ms"):format(lag:percentile(99) / 1000, lag.max / 1000)
  end
  if #parts > 0 then out[#out + 1] = "Client headroom: " .. table.concat(parts, "; ") .. "\n" end
  if f.completed > 0 then
    if f.usage_streams >= f.completed then
      out[#out + 1] = "Tokens: from the server's usage (every stream had it)\n"
    elseif f.usage_streams == 0 then
      out[#out + 1] = "Tokens: counted as the chunks with output (no stream had usage); prompts in words\n"
    else
      out[#out + 1] = ("Tokens: usage in %d of %d streams, chunks with output counted in the others\n"):format(
        f.usage_streams, f.completed)
    end
  end
  return table.concat(out)
end

-- vLLM's default result file name:
-- {label}-{request_rate}qps[-concurrency{N}]-{model}-{YYYYmmdd-HHMMSS}.json
-- (Python prints the rate as a float: inf, 10.0, 2.5).
function M.file_name(o, date)
  local rate = M.pyfloat(o.rate)
  local conc = o.max_concurrency and ("-concurrency%d"):format(o.max_concurrency) or ""
  local model = (o.model or "none"):match("([^/]*)$")
  local name = ("%s-%sqps%s-%s-%s.json"):format(o.label or o.backend, rate, conc, model, date)
  if o.result_filename then name = o.result_filename end
  if o.result_dir then name = o.result_dir:gsub("/+$", "") .. "/" .. name end
  return name
end

-- The --save-result object: the run's settings as vLLM writes them, then
-- its result fields r. Per-request lists are not kept (see docs/llm.md):
-- with --save-detailed they are written empty.
function M.result_json(o, r, date)
  local t = {
    date = date, endpoint_type = o.backend, backend = o.backend, label = o.label or json.null,
    model_id = o.model or json.null, tokenizer_id = o.model or json.null, num_prompts = o.num_prompts,
    request_rate = o.rate == math.huge and "inf" or o.rate, burstiness = o.burstiness,
    max_concurrency = o.max_concurrency or json.null,
  }
  for _, kv in ipairs(o.metadata or {}) do t[kv[1]] = kv[2] end
  for k, v in pairs(r) do t[k] = v end
  if o.save_detailed then
    for _, k in ipairs({ "input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors" }) do
      t[k] = setmetatable({}, { __jsonarray = true })
    end
  end
  return t
end

-- JSON text of the result object (empty lists as []).
function M.encode(t)
  local text = assert(json.encode(t))
  for _, k in ipairs({ "input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors" }) do
    text = text:gsub('"' .. k .. '":{}', '"' .. k .. '":[]')
  end
  return text
end

return M
