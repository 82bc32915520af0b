-- The wrk table of wrk-style scripts: the fields and functions wrk's
-- SCRIPTING document gives scripts (scheme, host, port, method, path,
-- headers, body, format). volley fills the fields from the command line
-- before a script runs; format() builds a request the way wrk does.
local wrk = {
  scheme  = "http",
  host    = "localhost",
  port    = nil,
  method  = "GET",
  path    = "/",
  headers = {},
  body    = nil,
  thread  = nil,
}

-- Returns an HTTP/1.1 request string. nil arguments fall back to the wrk
-- fields. As in wrk, a Host header from wrk.headers is copied into the
-- given table and Content-Length is set from the body; unlike wrk, the
-- header tables passed in are not changed (a copy is formatted).
function wrk.format(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  body = body or wrk.body
  local h = {}
  for name, value in pairs(headers or wrk.headers) do
    h[name] = value
  end
  local has_host = false
  for name in pairs(h) do
    if name:lower() == "host" then has_host = true end
  end
  if not has_host and wrk.headers["Host"] then
    h["Host"] = wrk.headers["Host"]
  end
  if body then
    h["Content-Length"] = #body
  end
  local lines = { method .. " " .. path .. " HTTP/1.1" }
  for name, value in pairs(h) do
    lines[#lines + 1] = name .. ": " .. tostring(value)
  end
  lines[#lines + 1] = ""
  return table.concat(lines, "\r\n") .. "\r\n" .. (body or "")
end

-- The default request: the wrk fields as they are when it is called.
function wrk.request()
  return wrk.format()
end

return wrk
