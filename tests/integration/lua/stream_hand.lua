-- For test_stream_tpot.sh: requests of 3 and 9 tokens in turn, each token
-- event marked (ev.tokens = 1) and the server's usage count set
-- (ev.total_tokens); every token's ev.t (µs from the request's start to the
-- read, nanosecond-exact) and the usage count logged per request to
-- $HAND_LOG.THREAD, from which the test computes TTFT, ITL and TPOT by hand.
local s = {}
local f
local n = 0
function s.init()
  f = assert(io.open(os.getenv("HAND_LOG") .. "." .. volley.thread, "w"))
end
function s.request(conn)
  n = n + 1
  conn.rid = volley.thread .. "-" .. n
  return { method = "POST", path = "/v1/chat/completions", headers = { ["Content-Type"] = "application/json" },
    body = '{"model":"m","messages":[{"role":"user","content":"a b c"}],"max_tokens":' .. (n % 2 == 0 and 3 or 9)
      .. ',"stream":true,"stream_options":{"include_usage":true}}' }
end
function s.event(conn, ev)
  local d = ev.data
  if d:find('"content":"tok', 1, true) then
    ev.tokens = 1
    f:write(conn.rid, " t ", string.format("%.3f", ev.t), "\n")
    f:flush()
  else
    local out = d:match('"completion_tokens":(%d+)')
    if out then
      ev.total_tokens = tonumber(out)
      f:write(conn.rid, " u ", out, "\n")
      f:flush()
    end
  end
end
return s
