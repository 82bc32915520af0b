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
-- fields. As in wrk, the Host header of wrk.headers is sent unless the
-- given headers have one, and Content-Length is set from the body; unlike
-- wrk, the header tables passed in are not changed. This runs once per
-- request in most scripts, so it appends pieces to one reused buffer
-- instead of building strings and tables.
local buf, CRLF, SEP = {}, "\r\n", ": "

local function is_name(name, lower)
  return #name == #lower and name:lower() == lower
end

function wrk.format(method, path, headers, body)
  headers = headers or wrk.headers
  body = body or wrk.body
  buf[1], buf[2], buf[3], buf[4] = method or wrk.method, " ", path or wrk.path, " HTTP/1.1\r\n"
  local n, has_host = 4, false
  for name, value in pairs(headers) do
    local len = #name
    if len == 4 and (name == "Host" or is_name(name, "host")) then
      has_host = true
    elseif len == 14 and body and is_name(name, "content-length") then
      name = nil -- replaced by the body's own length below
    end
    if name then
      buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = name, SEP, tostring(value), CRLF
      n = n + 4
    end
  end
  local host = wrk.headers["Host"]
  if not has_host and host then
    buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = "Host", SEP, host, CRLF
    n = n + 4
  end
  if body then
    buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = "Content-Length", SEP, tostring(#body), CRLF
    n = n + 4
  end
  buf[n + 1] = CRLF
  buf[n + 2] = body or ""
  return table.concat(buf, "", 1, n + 2)
end

-- The default request: the wrk fields as they are when it is called.
function wrk.request()
  return wrk.format()
end

return wrk
