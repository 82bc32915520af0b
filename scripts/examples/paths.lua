-- Dynamic paths and headers from a data table. Each connection walks the
-- table below in a cycle, starting at its own offset so that connections
-- spread over the entries instead of all asking for the same one, and tags
-- every request with X-Request: <conn.id>-<n>, where n counts the
-- connection's requests from 1.
--
--   volley -c 10 -d 10s -s examples.paths http://127.0.0.1:8080/
--
-- The URL gives the host and the defaults (-H headers, -m, -b); the paths
-- here replace its path.
local s = {}

-- The requests to cycle through. Headers given here are added to the
-- command line's -H headers (and replace those spelled the same).
local entries = {
  { path = "/",                headers = {} },
  { path = "/json/items/1",    headers = { Accept = "application/json" } },
  { path = "/json/items/100",  headers = { Accept = "application/json" } },
  { path = "/echo",            headers = { ["X-Trace"] = "on" } },
  { path = "/private",         headers = { Authorization = "Bearer tok-1" } },
  { path = "/some/other/page", headers = { ["Accept-Language"] = "en" } },
}

function s.connect(conn)
  -- conn.id numbers the connections of the whole run (1..-c, across
  -- threads), so consecutive connections start on consecutive entries.
  conn.next = (conn.id - 1) % #entries + 1
  conn.tag = conn.id .. "-"
  conn.sent = 0
end

function s.request(conn)
  local e = entries[conn.next]
  conn.next = conn.next % #entries + 1
  conn.sent = conn.sent + 1
  -- A fresh table per request: the entry's headers stay as they are.
  local headers = { ["X-Request"] = conn.tag .. conn.sent }
  for name, value in pairs(e.headers) do headers[name] = value end
  return { path = e.path, headers = headers }
end

return s
