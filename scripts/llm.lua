-- vLLM bench serve on volley: an OpenAI-compatible server's streamed
-- completions (/v1/completions, /v1/chat/completions) benchmarked with
-- bench serve's options, and its "Serving Benchmark Result" block.
--
--   volley llm --base-url http://127.0.0.1:8000 --model m --num-prompts 200
--   volley -s llm -- --base-url http://127.0.0.1:8000 --num-prompts 200
--
-- options() reads the command line (volley.llm.args), builds the prompts
-- once (volley.llm.dataset) and writes one row per prompt, its request
-- body made (volley.llm.body), to a file that every thread takes rows from
-- per iteration (volley.data), so prompt k goes to exactly one request
-- across threads and shards. request() sends a row; event() reads each
-- chunk (volley.llm.chunk) and marks token arrivals for volley's stream
-- figures; response() gives the verdict and records the request's vLLM
-- figures; done() prints the block (volley.llm.report) and volley's lines
-- under it, and writes --save-result. docs/llm.md has the details.
local llm_args = require("volley.llm.args")
local dataset = require("volley.llm.dataset")
local body = require("volley.llm.body")
local chunk = require("volley.llm.chunk")
local report = require("volley.llm.report")

local s = {}

local o            -- the settings (main state: from options(); threads: from init())
local rows_file    -- main state: the rows' file, removed in done()
local remover      -- main state: removes it when collected (kept by done())
local rows         -- a thread's data object of the rows

local function fail_usage(line)
  io.stderr:write("volley llm: ", line, "\n")
  os.exit(2)
end

function s.options(args)
  local err
  o, err = llm_args.parse(args, os.getenv)
  if not o then fail_usage(err) end
  if o.help then
    io.stdout:write(llm_args.USAGE)
    os.exit(0)
  end
  io.stderr:write(llm_args.warnings(o))
  local samples
  samples, err = dataset.build(o)
  if not samples then fail_usage(err) end
  rows_file = os.tmpname()
  -- Removed when the main state closes, also when the run never starts (an
  -- unreachable server) and done() does not run.
  remover = newproxy(true)
  getmetatable(remover).__gc = function() os.remove(rows_file) end
  local f = assert(io.open(rows_file, "wb"))
  for k, sample in ipairs(samples) do f:write(body.row(o, sample, k - 1), "\n") end
  f:close()
  -- What vLLM prints before its run.
  io.stdout:write("Traffic request rate: ", report.pyfloat(o.rate), "\n",
    ("Burstiness factor: %s (%s)\n"):format(report.pyfloat(o.burstiness),
      o.burstiness == 1 and "Poisson process" or "Gamma distribution"),
    "Maximum request concurrency: ", o.max_concurrency and tostring(o.max_concurrency) or "None", "\n")
  io.stdout:flush()

  local headers = { ["Content-Type"] = "application/json" }
  if o.api_key then headers.Authorization = "Bearer " .. o.api_key end
  for _, kv in ipairs(o.headers) do headers[kv[1]] = kv[2] end
  local run = {
    url = o.api_url,
    method = "POST",
    headers = headers,
    requests = o.num_prompts,
    -- vLLM: without --max-concurrency every request may be in flight.
    connections = o.max_concurrency or o.num_prompts,
    quiet = true,
  }
  if o.rate ~= math.huge then
    run.rate = o.rate
    -- vLLM's arrivals: gamma with shape --burstiness (1, the default: Poisson).
    run.arrivals = o.burstiness == 1 and "poisson" or ("gamma:%.14g"):format(o.burstiness)
  end
  return run
end

function s.setup(thread)
  thread:set("llm_rows_file", rows_file)
end

function s.init(args)
  o = assert(llm_args.parse(args, nil))
  rows = volley.data.lines(llm_rows_file, { mode = "per_iteration" })
end

-- Per request: the row's body, and the connection's stream state made new.
function s.request(conn)
  local k, prompt_len, text = body.split(rows:take())
  conn.llm = chunk.reset(conn.llm, prompt_len)
  return { body = text, headers = { ["X-Request-Id"] = (o.request_id_prefix or "volley-llm-") .. k } }
end

local take, plain = chunk.take, chunk.plain
local record = volley.record

-- Per event: classify the chunk, mark a token arrival (ev.tokens) and the
-- server's counts (ev.total_tokens, ev.prompt_tokens) for volley's figures.
function s.event(conn, ev)
  local st = conn.llm
  local d = ev.data
  if st.plain == nil then st.plain = ev.type == "line" end
  if st.plain then return plain(st, d) end
  local r, why = take(st, d, ev)
  if r == 1 then
    ev.tokens = 1
    if st.n > 1 then record("llm_itl_ms", st.gap / 1000) end
  elseif r == nil then
    return false, why
  end
  if st.out >= 0 and (r == 2 or r == 1) then
    ev.total_tokens = st.out
    if st.inp >= 0 then ev.prompt_tokens = st.inp end
  end
end

-- Per response: the verdict, then the request's figures.
function s.response(conn, res)
  local st = conn.llm
  local why = chunk.verdict(st, res.status)
  if why then return false, why end
  local ttft, e2el, tpot, out, inp = chunk.figures(st)
  record("llm_ttft_ms", ttft / 1000)
  record("llm_e2el_ms", e2el / 1000)
  if out > 1 then record("llm_tpot_ms", tpot / 1000) end
  volley.counter("llm_output_tokens", out)
  volley.counter("llm_input_tokens", inp)
  if st.out >= 0 then volley.counter("llm_usage_streams") end
  if o.goodput and chunk.good(o.goodput, ttft, tpot, e2el) then volley.counter("llm_good") end
  if o.rate ~= math.huge then
    -- From the request's intended arrival (-R): res.latency counts from it,
    -- the stream's times from its start; the end is [DONE]'s read.
    local lag = res.latency - (st.t_end >= 0 and st.t_end or st.last)
    if lag < 0 then lag = 0 end
    record("llm_ttft_arrival_ms", (ttft + lag) / 1000)
    record("llm_e2el_arrival_ms", (e2el + lag) / 1000)
  end
end

-- The report's figures from the run's result.
local function figures(result)
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
    metrics = {},
  }
  local stream = result.stream
  if stream and stream.peak then f.peak = stream.peak end
  for _, b in ipairs(report.BLOCKS) do
    f.metrics[b[1]] = report.metric(rec["llm_" .. b[1] .. "_ms"], o.percentiles, 1)
  end
  f.usage_streams = c["llm_usage_streams"] or 0
  return f, rec
end

-- volley's failure reasons, vLLM's way (at most 10).
local function failure_lines(result)
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

-- volley's own lines under the block.
local function volley_lines(result, f, rec)
  local out = {}
  local function ms(s, p) return s and s.count > 0 and s:percentile(p) or 0 end
  if o.rate ~= math.huge then
    local t, e = rec["llm_ttft_arrival_ms"], rec["llm_e2el_arrival_ms"]
    out[#out + 1] = ("From each request's intended arrival (CO-free): TTFT median %.2f ms, p99 %.2f ms;"
      .. " E2EL median %.2f ms, p99 %.2f ms\n"):format(ms(t, 50), ms(t, 99), ms(e, 50), ms(e, 99))
  end
  local stream = result.stream
  if stream and stream.peak then out[#out + 1] = ("Peak concurrent streams: %d\n"):format(stream.peak) end
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
      out[#out + 1] = "Tokens: counted as the chunks with choices (no stream had usage); prompts in words\n"
    else
      out[#out + 1] = ("Tokens: usage in %d of %d streams, chunks with choices counted in the others\n"):format(
        f.usage_streams, f.completed)
    end
  end
  return table.concat(out)
end

local function copy_file(from, to)
  local i = io.open(from, "rb")
  if not i then return false end
  local text = i:read("*a")
  i:close()
  local w = io.open(to, "wb")
  if not w then return false end
  w:write(text)
  w:close()
  return true
end

local function save(r)
  local date = os.date("%Y%m%d-%H%M%S")
  local name = report.file_name(o, date)
  if o.result_dir then os.execute(("mkdir -p '%s'"):format(o.result_dir:gsub("'", "'\\''"))) end
  local f, err = io.open(name, o.append_result and "a+" or "w")
  if not f then
    io.stderr:write("volley llm: --save-result: ", err, "\n")
    return
  end
  if o.append_result and f:seek("end") > 0 then f:write("\n") end
  f:write(report.encode(report.result_json(o, r, date)))
  f:close()
  if o.volley_json then
    if not copy_file(o.volley_json, name .. ".volley.json") then
      io.stderr:write("volley llm: could not write ", name, ".volley.json\n")
    elseif o.volley_json_temp then
      os.remove(o.volley_json)
    end
  end
end

function s.done(result)
  if rows_file then os.remove(rows_file) end
  remover = nil
  local f, rec = figures(result)
  io.stdout:write(failure_lines(result))
  local text, r = report.block(f)
  io.stdout:write(text, volley_lines(result, f, rec))
  io.stdout:flush()
  if o.save_result or o.append_result then save(r) end
end

return s
