-- The TTFT split probe of tests/bench/streams.sh --llm: each request sends
-- its id (the body's "user"), marks the token events, and writes for its
-- first token: the id, volley.now() as event() runs (µs), ev.t (µs from
-- the request's start to the read) and volley.now() in request() (just
-- after the request's start), one line a request, to
-- $PROBE_DIR/probe.THREAD; the bench compares them with the server's log.
local s = {}
local n, f = 0, nil
function s.init(args)
  f = io.open((os.getenv("PROBE_DIR") or "/tmp") .. "/probe." .. tostring(volley.thread), "w")
end
function s.request(conn)
  n = n + 1
  local id = volley.thread .. "-" .. n
  conn.id_ = id
  conn.seen = false
  conn.t0 = volley.now() -- just after the request's start (begin_request reads the clock before request())
  return { method = "POST", path = "/v1/chat/completions", headers = { ["Content-Type"] = "application/json" },
    body = '{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":32,"stream":true,"user":"' .. id .. '"}' }
end
function s.event(conn, ev)
  local d = ev.data
  if d:find('"content":"tok', 1, true) then
    ev.tokens = 1
    if not conn.seen then
      conn.seen = true
      f:write(conn.id_, " ", volley.now(), " ", ev.t, " ", conn.t0, "\n")
    end
  end
end
return s
