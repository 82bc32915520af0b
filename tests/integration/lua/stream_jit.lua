-- test_stream_jit.sh's client: every ev field read for each event of an
-- OpenAI-style stream, and the tokens marked, under a trace handler that
-- logs every trace that aborts (trace_aborts.lua). POSTs to
-- /v1/completions with STREAM_KNOBS added to the body.
local s = {}
local BODY

function s.init()
  dofile(assert(os.getenv("TRACE_ABORTS_LUA")))()
  BODY = '{"stream":true,' .. (os.getenv("STREAM_KNOBS") or "") .. "}"
end

function s.request()
  return { method = "POST", path = "/v1/completions", headers = { ["Content-Type"] = "application/json" },
           body = BODY }
end

local fields, marks = 0, 0

function s.event(conn, ev)
  local d, ty, id, t, retry = ev.data, ev.type, ev.id, ev.t, ev.retry
  if ty == "message" and id == "" and retry == nil and t >= 0 then fields = fields + 1 end
  if d:find('"text":"tok', 1, true) then
    ev.tokens = 1
    ev.total_tokens = 7
    ev.prompt_tokens = 3
    if ev.tokens == 1 and ev.total_tokens == 7 and ev.prompt_tokens == 3 then marks = marks + 1 end
  end
end

function s.response(conn, res)
  volley.counter("fields", fields)
  volley.counter("marks", marks)
  fields, marks = 0, 0
end

return s
