-- Lua side of the C bridge (src/script.c): turns what a request() hook
-- returns into request bytes, so the C side gets one string whatever the
-- script's style.
local wrk = require("wrk")

local bridge = {}

-- The headers of a request table on top of the command line's.
local function merged(headers)
  if not headers then return wrk.headers end
  local h = {}
  for name, value in pairs(wrk.headers) do h[name] = value end
  for name, value in pairs(headers) do h[name] = value end
  return h
end

-- Calls hook(conn) and returns the request string: a string as it is, nil
-- for the default request (the wrk fields as they are now), a table
-- {method=, path=, headers=, body=} merged with the defaults.
function bridge.request(hook, conn)
  local r = hook(conn)
  local t = type(r)
  if t == "string" then return r end
  if r == nil then return wrk.format() end
  if t == "table" then
    return wrk.format(r.method, r.path, merged(r.headers), r.body)
  end
  error(("returned a %s (a string, a table or nil expected)"):format(t), 0)
end

return bridge
