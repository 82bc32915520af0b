-- volley llm's reading of a stream: each `data:` event of an OpenAI
-- streamed completion classified, and the stream's verdict when it ends.
--
-- A chunk whose first choice carries output (a non-empty delta.content or
-- text, reasoning_content, or a tool call) is a token arrival: the first
-- gives TTFT, each next one an ITL gap. The last chunk with choices (the
-- finish chunk, as vLLM's client counts it) ends E2EL. vLLM's client
-- (vllm/benchmarks/lib/endpoint_request_func.py) times every chunk with
-- choices, a chat stream's role chunk included: against vLLM's server,
-- which sends the role with the first token, that is the same TTFT;
-- against a server that sends the role at once, it would time the role
-- and not the first token (docs/llm.md). A chunk with "usage" gives the
-- server's counts (completion_tokens, prompt_tokens). "[DONE]" ends the
-- stream. An "error" object, or a data: line that is not JSON, fails the
-- request; so does a stream that ends with no token, or with neither
-- [DONE] nor a finish_reason.
--
-- The per-stream state is one table per connection, reset per request.
-- In volley each chunk is checked and searched in place in C, in one call
-- (api.lua's json_scan: no table per token), and take_event reads it
-- where volley's C holds it: no Lua string per token either (interning
-- one, and collecting it, was most of the Lua time per token). Without
-- volley's C (the specs) it is decoded by volley.json, with the same
-- verdicts.
local json = require("volley.json")
local api = require("volley.api")
local ffi = require("ffi")

local M = {}

local decode, null, type, tonumber, sub = json.decode, json.null, type, tonumber, string.sub
local J = api.JSON
local at = ffi.new("size_t[2]")

-- A fresh state, or st made fresh again.
function M.reset(st, prompt_len)
  st = st or {}
  st.n = 0          -- token arrivals (chunks with output)
  st.first = 0      -- µs from the request's start to the first of them
  st.last = 0       -- ... to the last of them
  st.gap = 0        -- the gap the latest one closed (µs)
  st.choices = 0    -- chunks with choices (token arrivals, the role and finish chunks)
  st.last_choice = 0 -- µs to the last of them: E2EL's end
  st.t_end = -1     -- ... to [DONE]
  st.done = false   -- [DONE] seen
  st.finish = false -- a finish_reason seen
  st.out = -1       -- usage.completion_tokens, -1: none
  st.inp = -1       -- usage.prompt_tokens, -1: none
  st.plain = nil    -- the body is not an event stream (its lines are kept)
  st.text = nil     -- the start of such a body
  st.prompt_len = prompt_len or 0
  return st
end

-- At most n bytes of s on one line, for a failure's reason.
local function clip(s, n)
  s = tostring(s):gsub("[%c]", " ")
  if #s > n then s = s:sub(1, n) .. "..." end
  return s
end
M.clip = clip

-- A chunk with choices at ev.t; a token arrival when it has output: TTFT,
-- the gap, the count.
local function arrival(st, ev, output)
  local t = ev.t
  st.choices = st.choices + 1
  st.last_choice = t
  if not output then return 0 end
  if st.n == 0 then st.first = t else st.gap = t - st.last end
  st.last = t
  st.n = st.n + 1
  return 1
end

local function nonempty(v) return type(v) == "string" and v ~= "" end

local NOT_OBJECT = "a data: line is not a JSON object"

-- take() with volley.json: the chunk decoded.
local function take_decoded(st, d, ev)
  local v, err = decode(d)
  if v == nil then return nil, NOT_OBJECT .. (" (invalid JSON at byte %s)"):format(err:match("at byte (%d+)")) end
  if type(v) ~= "table" or (v[1] ~= nil) then return nil, NOT_OBJECT end
  local e = v.error
  if e ~= nil and e ~= null then
    local msg = type(e) == "table" and e.message or e
    return nil, "error event: " .. clip(type(msg) == "string" and msg or json.encode(msg), 80)
  end
  local r = 0
  local ch = v.choices
  if type(ch) == "table" and ch[1] ~= nil then
    local c = ch[1]
    local delta = type(c) == "table" and type(c.delta) == "table" and c.delta or {}
    local output = type(c) == "table" and (nonempty(c.text) or nonempty(delta.content)
      or nonempty(delta.reasoning_content) or (type(delta.tool_calls) == "table" and delta.tool_calls[1] ~= nil))
    r = arrival(st, ev, output)
    if type(c) == "table" and c.finish_reason ~= nil and c.finish_reason ~= null then st.finish = true end
  end
  local u = v.usage
  if type(u) == "table" then
    if type(u.completion_tokens) == "number" then st.out = u.completion_tokens end
    if type(u.prompt_tokens) == "number" then st.inp = u.prompt_tokens end
    if r == 0 then r = 2 end
  end
  return r
end

-- The paths a chunk is read at, in one json_scan call (one crossing into C
-- per event): their types land in types[0..4], their spans in spans.
local PATHS = "error\0error.message\0choices.0\0choices.0.finish_reason\0usage.completion_tokens\0"
  .. "usage.prompt_tokens\0choices.0.delta.content\0choices.0.text\0choices.0.delta.reasoning_content\0"
  .. "choices.0.delta.tool_calls.0"
local ERROR, MESSAGE, CHOICE, FINISH, OUT, INP, CONTENT, TEXT, REASONING, TOOL = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
local types = ffi.new("int[10]")
local spans = ffi.new("size_t[20]")

-- Whether path k is a string with something in it ("" is 2 bytes).
local function filled(k)
  return types[k] == J.string and spans[2 * k + 1] > 2
end

-- The text of path k's value in the chunk d (a string, or a const char *
-- to volley's bytes), decoded when a string (for a failure's reason and
-- the usage counts: once a stream at most).
local function text_of(d, k)
  local off, len = spans[2 * k], spans[2 * k + 1]
  local text
  if type(d) == "string" then
    text = sub(d, tonumber(off) + 1, tonumber(off + len))
  else
    text = ffi.string(d + off, len)
  end
  if types[k] == J.string then return decode(text) or text end
  return text
end

-- take() in C: the chunk d[0..n) (a string, or a const char * valid
-- during the call) checked and its paths found in one call.
local function take_c(st, d, n, ev, c)
  local t = c.json_scan(d, n, PATHS, #PATHS, types, spans, at)
  if t ~= J.object then
    if t == 0 then return nil, NOT_OBJECT .. (" (invalid JSON at byte %d)"):format(tonumber(at[0]) + 1) end
    return nil, NOT_OBJECT
  end
  local e = types[ERROR]
  if e ~= 0 and e ~= J.null then
    return nil, "error event: " .. clip(text_of(d, types[MESSAGE] ~= 0 and MESSAGE or ERROR), 80)
  end
  local r = 0
  if types[CHOICE] ~= 0 then
    r = arrival(st, ev, filled(CONTENT) or filled(TEXT) or filled(REASONING) or types[TOOL] ~= 0)
    local f = types[FINISH]
    if f ~= 0 and f ~= J.null then st.finish = true end
  end
  if types[OUT] == J.number then
    st.out = tonumber(text_of(d, OUT))
    if r == 0 then r = 2 end
  end
  if types[INP] == J.number then st.inp = tonumber(text_of(d, INP)) end
  return r
end

local function done(st, ev)
  st.done = true
  st.t_end = ev.t
  return 0
end

-- Takes event data d (a string) of a stream in state st; ev gives ev.t
-- (µs since the request started) when it is read. Returns 1 for a token
-- arrival, 0 for another event, 2 for a usage chunk (st.out / st.inp
-- set), or nil and the reason the request fails.
function M.take(st, d, ev)
  if d == "[DONE]" then return done(st, ev) end
  local c = api.c
  if c then return take_c(st, d, #d, ev, c) end
  return take_decoded(st, d, ev)
end

-- Whether p[0..n) is "[DONE]", compared in place.
local function is_done(p, n)
  return n == 6 and p[0] == 91 and p[1] == 68 and p[2] == 79 and p[3] == 78 and p[4] == 69 and p[5] == 93
end

-- take() of volley's ev (a struct volley_event, api.lua) during its
-- event() call: its data read where C holds it (ev.data_, ev.data_len),
-- never made a string. Without volley's C, take(st, ev.data, ev).
function M.take_event(st, ev)
  local c = api.c
  if not c then return M.take(st, ev.data, ev) end
  local p, n = ev.data_, ev.data_len
  if is_done(p, n) then return done(st, ev) end
  return take_c(st, p, n, ev, c)
end

-- A line of a body that is not an event stream (an error's JSON): its
-- first bytes are kept for the reason.
function M.plain(st, d)
  if not st.text then
    st.text = d
  elseif #st.text < 120 then
    st.text = st.text .. " " .. d
  end
end

-- The verdict on a stream that ended with status: nil, or the reason it failed.
function M.verdict(st, status)
  if status ~= 200 then
    return ("status %d: %s"):format(status, clip(st.text or "", 100))
  end
  if st.plain then return "not an event stream (Content-Type is not text/event-stream)" end
  if st.choices == 0 then return "no chunk with choices (no token to time)" end
  if st.n == 0 then return "no chunk with output (no token to time)" end
  if not st.done and not st.finish then return "the stream ended without [DONE] or a finish_reason" end
  return nil
end

-- The request's figures in µs (vLLM's): ttft (to the first token
-- arrival), e2el (to the last chunk with choices), tpot ((e2el - ttft) /
-- (tokens - 1), 0 for one token), and its output and input tokens
-- (usage's, else the token arrivals and the prompt's words).
function M.figures(st)
  local out = st.out >= 0 and st.out or st.n
  local inp = st.inp >= 0 and st.inp or st.prompt_len
  local tpot = out > 1 and (st.last_choice - st.first) / (out - 1) or 0
  return st.first, st.last_choice, tpot, out, inp
end

-- Whether a request with those figures (µs) meets the goodput SLOs (ms).
function M.good(slo, ttft, tpot, e2el)
  if slo.ttft and ttft > slo.ttft * 1000 then return false end
  if slo.tpot and tpot > slo.tpot * 1000 then return false end
  if slo.e2el and e2el > slo.e2el * 1000 then return false end
  return true
end

return M
