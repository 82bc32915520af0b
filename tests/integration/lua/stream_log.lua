-- The stream tests' client (tests/integration/conn/test_stream_*.sh): POSTs OpenAI-style
-- streaming requests to the LLM test servers, each with its own request id
-- in "user" (t<thread>-<n>), counts every event it is handed
-- (volley.counter "events", and res.events summed in "res_events"), marks
-- each token event as one token (ev.tokens = 1: the JSON's ttft, itl), and,
-- with STREAM_OUT set, keeps one line per fact, written to STREAM_OUT by
-- done() (tests/integration/py/stream_check.py reads it):
--     ID q NOW_US                  request() built the request (volley.now())
--     ID e KIND T_US NOW_US        an event: KIND is the token number, 0 the
--                                  role, f finish, u usage, d [DONE],
--                                  x error, ? anything else; T_US is ev.t
--     ID r STATUS EVENTS           response() (res.events)
-- Settings from the environment: STREAM_KNOBS (JSON fields added to the
-- body, e.g. "max_tokens":5,"vt_gap_ms":1), STREAM_PATH
-- (/v1/chat/completions), STREAM_CLOSE_AT (event() returns "close" at that
-- event of each stream), STREAM_FAIL_AT (returns false, "bad event K"):
-- both for chat completions only (a stream is told by its "id").
-- HTTP/1.1 only for the log (one request at a time per connection: conn
-- knows the request's id).
local s = {}
local KNOBS, PATH, OUT, CLOSE_AT, FAIL_AT
local n = 0

function s.setup(thread)
  THREADS = THREADS or {}
  THREADS[#THREADS + 1] = thread
end

function s.init()
  KNOBS = os.getenv("STREAM_KNOBS") or ""
  PATH = os.getenv("STREAM_PATH") or "/v1/chat/completions"
  OUT = os.getenv("STREAM_OUT")
  CLOSE_AT = tonumber(os.getenv("STREAM_CLOSE_AT") or "")
  FAIL_AT = tonumber(os.getenv("STREAM_FAIL_AT") or "")
  LINES = {}
end

function s.request(conn)
  n = n + 1
  local id = "t" .. volley.thread .. "-" .. n
  conn.rid = id
  if OUT then LINES[#LINES + 1] = string.format("%s q %.3f", id, volley.now()) end
  local body = '{"stream":true,"user":"' .. id .. '"' .. (KNOBS ~= "" and "," .. KNOBS or "") .. "}"
  return { method = "POST", path = PATH, headers = { ["Content-Type"] = "application/json" }, body = body }
end

local function kind(d)
  if d == "[DONE]" then return "d" end
  local k = d:match('"tok(%d+) ')
  if k then return k end
  if d:find('"role":"assistant"', 1, true) then return "0" end
  if d:find('"usage":', 1, true) then return "u" end
  if d:find('"error":', 1, true) then return "x" end
  if d:find('"finish_reason":"', 1, true) then return "f" end
  return "?"
end

-- Events seen per stream, by the server's completion id ("id":"chatcmpl-N",
-- in every event but [DONE]): over HTTP/2 a connection's streams interleave.
local seen = {}

function s.event(conn, ev)
  volley.counter("events")
  if ev.data:find('"tok%d+ ') then ev.tokens = 1 end
  if OUT then
    LINES[#LINES + 1] = string.format("%s e %s %.3f %.3f", conn.rid, kind(ev.data), ev.t, volley.now())
  end
  if CLOSE_AT or FAIL_AT then
    local key = ev.data:match('"id":"([^"]+)"') or conn.rid
    local k = (seen[key] or 0) + 1
    seen[key] = k
    if k == CLOSE_AT then return "close" end
    if k == FAIL_AT then return false, "bad event " .. FAIL_AT end
  end
end

function s.response(conn, res)
  volley.counter("res_events", res.events)
  if OUT then LINES[#LINES + 1] = conn.rid .. " r " .. res.status .. " " .. res.events end
end

function s.done()
  local out = os.getenv("STREAM_OUT")
  if not out then return end
  local f = assert(io.open(out, "w"))
  for _, t in ipairs(THREADS) do
    for _, l in ipairs(t:get("LINES")) do f:write(l, "\n") end
  end
  f:close()
end

return s
