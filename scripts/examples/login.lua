-- Per-connection login. Each connection first sends POST /login, takes the
-- token from the JSON reply and then sends GET /private with
-- "Authorization: Bearer <token>" for the rest of its life. A new
-- connection logs in again. Shows state kept in conn, request(conn)
-- choosing the request from that state, and response(conn, res) failing
-- requests with a counted reason:
--   "login: no token"  the login reply was not a 200 with a JSON token;
--   "not authorized"   /private answered with a status other than 200 (on
--                      401 the connection drops its token and logs in again).
--
--   volley -c 10 -d 10s -s examples.login http://127.0.0.1:8080/
local json = require("volley.json")

local s = {}

function s.connect(conn)
  conn.token = nil
  conn.pending = nil -- which request is in flight: "login" or "private"
  conn.login_body = ('{"user":"user-%d","password":"secret"}'):format(conn.id)
end

function s.request(conn)
  if not conn.token then
    conn.pending = "login"
    return {
      method = "POST",
      path = "/login",
      headers = { ["Content-Type"] = "application/json" },
      body = conn.login_body,
    }
  end
  conn.pending = "private"
  return {
    method = "GET",
    path = "/private",
    headers = { Authorization = "Bearer " .. conn.token },
  }
end

-- The token of a login reply, or nil.
local function token_of(res)
  if res.status ~= 200 then return nil end
  local doc = json.decode(res.body)
  local token = type(doc) == "table" and doc.token
  if type(token) ~= "string" or token == "" then return nil end
  return token
end

function s.response(conn, res)
  local pending = conn.pending
  conn.pending = nil
  if pending == "login" then
    conn.token = token_of(res)
    if not conn.token then return false, "login: no token" end
    return
  end
  if res.status ~= 200 then
    -- The server no longer takes the token: log in again on the next
    -- request rather than fail every request that follows.
    if res.status == 401 then conn.token = nil end
    return false, "not authorized"
  end
end

return s
