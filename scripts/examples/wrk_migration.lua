-- wrk's counter.lua and auth.lua, together, rewritten in scenario style.
-- Each connection asks /authenticate for a token (the X-Token header of
-- the reply), then sends GET /resource?counter=<n> with that token as
-- X-Token and its own counter as X-Counter. Every "wrk:" comment says
-- which wrk idiom the line below replaces.
--
--   volley -c 10 -d 10s -s examples.wrk_migration http://127.0.0.1:8080/
--
-- The wrk originals (wrk's scripts/counter.lua and scripts/auth.lua):
--
--   counter = 0
--   request = function()
--     path = "/" .. counter
--     wrk.headers["X-Counter"] = counter
--     counter = counter + 1
--     return wrk.format(nil, path)
--   end
--
--   token = nil
--   path  = "/authenticate"
--   request = function()
--     return wrk.format("GET", path)
--   end
--   response = function(status, headers, body)
--     if not token and status == 200 then
--       token = headers["X-Token"]
--       path  = "/resource"
--       wrk.headers["X-Token"] = token
--     end
--   end
--
-- volley still runs those unchanged (wrk style: globals, no return). In
-- wrk style the globals are per thread: one token and one counter shared
-- by all of a thread's connections, and a token is fetched once per thread,
-- whichever connection happens to go first.
local s = {}

-- wrk: globals (`counter = 0`, `token = nil`) -> fields of conn, which
-- volley gives each connection and keeps while it is open. A connection
-- that reopens gets a fresh conn and fetches a token again.
function s.connect(conn)
  conn.counter = 0
  conn.token = nil
end

function s.request(conn)
  -- wrk: `path = "/authenticate"` as a global switched by response() ->
  -- the state in conn decides which request to build.
  if not conn.token then
    -- wrk: `return wrk.format("GET", path)` -> return a table; volley
    -- merges it with the command line's -H headers and formats it.
    -- (volley.format(method, path, headers, body) still builds a string
    -- for scripts that want one.)
    return { method = "GET", path = "/authenticate" }
  end
  local n = conn.counter
  conn.counter = n + 1
  -- wrk: `wrk.headers["X-Token"] = token` changed the headers of every
  -- later request of the thread -> per-request headers, from this
  -- connection's own state.
  return {
    method = "GET",
    path = "/resource?counter=" .. n,
    headers = { ["X-Token"] = conn.token, ["X-Counter"] = tostring(n) },
  }
end

-- wrk: `response = function(status, headers, body)` -> response(conn, res)
-- with res.status, res.headers (names in any case), res.body.
function s.response(conn, res)
  if conn.token then return end
  if res.status ~= 200 then return false, "authenticate: bad status" end
  local token = res.headers["X-Token"]
  -- wrk went on without a token and asked again; volley can count it:
  -- return false, "reason" fails the request under that reason.
  if not token or token == "" then return false, "authenticate: no token" end
  conn.token = token
end

return s
