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
local rows_file    -- main state: the rows' file (loaded, then removed, in options())
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
  local f = assert(io.open(rows_file, "wb"))
  for k, sample in ipairs(samples) do f:write(body.row(o, sample, k - 1), "\n") end
  f:close()
  -- Loaded here into the process's one copy (volley.data keeps each file
  -- by its path), which the threads' volley.data.lines then find: the
  -- file itself can go at once, so that no run, killed or not, leaves it.
  local ok, err_open = pcall(volley.data.lines, rows_file, { mode = "per_iteration" })
  os.remove(rows_file)
  if not ok then error(err_open, 0) end
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

local take_event, plain = chunk.take_event, chunk.plain
local record = volley.record

-- Per event: classify the chunk, mark a token arrival (ev.tokens) and the
-- server's counts (ev.total_tokens, ev.prompt_tokens) for volley's figures.
-- The chunk is read in place (chunk.take_event): ev.data, a string, only
-- for a body that is not an event stream.
function s.event(conn, ev)
  local st = conn.llm
  if st.plain == nil then st.plain = ev.type == "line" end
  if st.plain then return plain(st, ev.data) end
  local r, why = take_event(st, ev)
  if r == 1 then
    ev.tokens = 1 -- volley's stream figures time it: TTFT, ITL (the gaps), TPOT, E2EL
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
    local lag = res.latency - (st.t_end >= 0 and st.t_end or st.last_choice)
    if lag < 0 then lag = 0 end
    record("llm_ttft_arrival_ms", (ttft + lag) / 1000)
    record("llm_e2el_arrival_ms", (e2el + lag) / 1000)
  end
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
  local f = report.figures(o, result)
  io.stdout:write(report.failure_lines(result))
  local text, r = report.block(f)
  io.stdout:write(text, report.volley_lines(o, result, f))
  io.stdout:flush()
  if o.save_result or o.append_result then save(r) end
end

return s
