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
-- given headers have one, and Content-Length is set from the body, or left
-- out when there is no body (wrk drops only the exact name
-- "Content-Length"; volley drops it in any case, as it does with a body);
-- unlike wrk, the header tables passed in are not changed. This runs once
-- per request in most scripts, so it appends pieces to one reused buffer
-- instead of building strings and tables.
local buf, CRLF, SEP = {}, "\r\n", ": "
local find = string.find

-- The command line's protocol (--http1.0, --no-keepalive), set by volley
-- before the script loads: the request line's version, and whether to ask
-- the server to close (unless the headers have a Connection header).
local version, close = " HTTP/1.1\r\n", false

function wrk._set_protocol(http10, keepalive)
  version = http10 and " HTTP/1.0\r\n" or " HTTP/1.1\r\n"
  close = not http10 and not keepalive
end

-- Through an HTTP proxy, an http:// target's requests go in absolute-form:
-- wrk._origin ("http://host:port") goes before the path, and
-- wrk._proxy_auth (the proxy URL's credentials) into a Proxy-Authorization
-- header. volley sets them (wrk._set_proxy) before the chunk runs; "" and
-- nil without a proxy (or for https://, which goes through a tunnel).
wrk._origin, wrk._proxy_auth = "", nil
local proxy_origin, proxy_auth = "", nil -- format's copies (upvalues: no lookup per request)

function wrk._set_proxy(origin, auth)
  wrk._origin, wrk._proxy_auth = origin or "", auth
  proxy_origin, proxy_auth = wrk._origin, auth
end

local function is_name(name, lower)
  return #name == #lower and name:lower() == lower
end

-- The value of headers' header named lower (a lower-case name), whatever
-- its case; nil when it has none.
local function header_of(headers, lower)
  for name, value in pairs(headers) do
    if type(name) == "string" and is_name(name, lower) then return value end
  end
end

-- The Host header of wrk.headers, whatever its case.
local function default_host()
  local host = wrk.headers["Host"]
  if host == nil then return header_of(wrk.headers, "host") end
  return host
end

-- The default Host header, as wrk's wrk.init makes it in each thread's
-- state after the chunk has run and before init(): unless wrk.headers has
-- a Host (in any case), it becomes wrk.host (in brackets when it holds a
-- ':', an IPv6 address) and then ':' .. wrk.port when wrk.port is set (the
-- URL's port when the URL names one; nil otherwise). So a chunk that sets
-- wrk.host or wrk.port is heard, and the Host of a URL without a port has
-- none. Changes made in init() itself come too late for it, as in wrk.
function wrk._set_host()
  local headers = wrk.headers
  if type(headers) ~= "table" or default_host() ~= nil then return end
  local host, port = wrk.host, wrk.port
  if type(host) ~= "string" and type(host) ~= "number" then
    error(("wrk.host is a %s (a string expected)"):format(type(host)), 0)
  end
  host = tostring(host)
  if host:find(":", 1, true) then host = "[" .. host .. "]" end
  if port ~= nil then host = host .. ":" .. tostring(port) end
  headers["Host"] = host
end

-- volley's User-Agent value (volley/VERSION), set by volley before the
-- script loads (wrk._set_user_agent); nil outside volley (a spec).
local user_agent = nil

function wrk._set_user_agent(ua)
  user_agent = ua
end

-- The default User-Agent, made with the default Host (after the chunk has
-- run, before init()): unless wrk.headers has a User-Agent (in any case:
-- from -H, options() or the chunk), it becomes volley's. wrk sends
-- none; volley's goes out with every request built from wrk.headers (the
-- default request, request tables, flows), never in a string or a
-- wrk.format call given its own headers table, which are sent as made.
function wrk._set_user_agent_header()
  local headers = wrk.headers
  if user_agent == nil or type(headers) ~= "table" or header_of(headers, "user-agent") ~= nil then return end
  headers["User-Agent"] = user_agent
end

-- CR, LF or NUL in the method, path or a header would end the request line
-- or a header early and let data (a token copied from a response) inject
-- headers or a whole second request. Three plain finds per field, not one
-- with a character class: LuaJIT compiles plain finds into the trace but
-- only stitches a call out for patterns, which made wrk.format twice as
-- slow (about 920 ns a call against 470). The message is built only on
-- failure, with control bytes escaped so it stays one line.
local function bad(s)
  return find(s, "\r", 1, true) or find(s, "\n", 1, true) or find(s, "\0", 1, true)
end

local function shown(s)
  return '"' .. s:gsub("%c", function(c) return ("\\x%02x"):format(c:byte()) end) .. '"'
end

-- level: as format's; + 2 skips refuse and format themselves.
local function refuse(what, level)
  error("wrk.format: " .. what .. " contains CR/LF/NUL", level > 0 and level + 2 or 0)
end

-- format(level, ...): level says whose line an error names, counted from
-- format's caller (1: the caller, 2: its caller); 0 names no position (the
-- bridge, whose caller is C; the hook's name is added there).
local function format(level, method, path, headers, body)
  headers = headers or wrk.headers
  body = body or wrk.body
  method, path = method or wrk.method, path or wrk.path
  if bad(method) then refuse("method " .. shown(method), level) end
  if bad(path) then refuse("path " .. shown(path), level) end
  local origin = proxy_origin
  buf[1], buf[2], buf[3], buf[4] = method, " ", origin == "" and path or origin .. path, version
  local n, has_host, has_connection = 4, false, false
  for name, value in pairs(headers) do
    local len = #name
    if len == 4 and (name == "Host" or is_name(name, "host")) then
      has_host = true
    elseif len == 14 and is_name(name, "content-length") then
      name = nil -- the body's own length below, or none without a body
    elseif len == 10 and is_name(name, "connection") then
      has_connection = true
    end
    if name then
      value = tostring(value)
      if bad(name) then refuse("header name " .. shown(name), level) end
      if bad(value) then refuse("header " .. shown(name) .. " value", level) end
      buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = name, SEP, value, CRLF
      n = n + 4
    end
  end
  local host = not has_host and default_host()
  if host then
    host = tostring(host)
    if bad(host) then refuse('header "Host" value', level) end
    buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = "Host", SEP, host, CRLF
    n = n + 4
  end
  local auth = proxy_auth
  if auth and origin ~= "" then
    buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = "Proxy-Authorization", SEP, auth, CRLF
    n = n + 4
  end
  if body then
    buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = "Content-Length", SEP, tostring(#body), CRLF
    n = n + 4
  end
  if close and not has_connection then
    buf[n + 1] = "Connection: close\r\n"
    n = n + 1
  end
  buf[n + 1] = CRLF
  buf[n + 2] = body or ""
  -- Not a tail call: format is reached by tail calls from the bridge's
  -- request, which C calls, and LuaJIT cannot end a trace where a tail
  -- called builtin returns straight into C ("NYI: return to lower
  -- frame"; bridge.lua's event_fields says more).
  local request = table.concat(buf, "", 1, n + 2)
  return request
end

-- The headers of a request table on top of wrk.headers; a name given in
-- either case replaces wrk.headers' own.
local function merged(headers)
  if not headers then return wrk.headers end
  local h, given = {}, {}
  for name, value in pairs(headers) do
    h[name] = value
    given[name:lower()] = true
  end
  for name, value in pairs(wrk.headers) do
    if not given[name:lower()] then h[name] = value end
  end
  return h
end

-- Names the request being built: volley's bridge sets this (volley.name);
-- outside volley (a spec) a name is ignored.
function wrk._name(name, prefix, level) end

local TABLE_FIELDS = { { "method", "string" }, { "path", "string" }, { "headers", "table" }, { "body", "string" },
                       { "name", "string" } }

-- The table form, {method=, path=, headers=, body=, name=}: what a request
-- table from request() is sent as, and volley's own form of wrk.format
-- (wrk has the positional one only). A missing field takes the wrk field,
-- headers add to wrk.headers, and name names the request (wrk._name).
-- level: as format's; what: the field's error ("returned a table whose
-- %s"), prefix: the name's errors' ("wrk.format: ").
function wrk._format_table(level, t, what, prefix)
  local method, path, headers, body, name = t.method, t.path, t.headers, t.body, t.name
  -- One test per field on the way (a loop with pairs would not be
  -- compiled: this runs for every request a table describes).
  if (method ~= nil and type(method) ~= "string") or (path ~= nil and type(path) ~= "string")
      or (headers ~= nil and type(headers) ~= "table") or (body ~= nil and type(body) ~= "string")
      or (name ~= nil and type(name) ~= "string") then
    for _, f in ipairs(TABLE_FIELDS) do
      local v = t[f[1]]
      if v ~= nil and type(v) ~= f[2] then
        error((what .. " is a %s (a %s expected)"):format(f[1], type(v), f[2]), level > 0 and level + 1 or 0)
      end
    end
  end
  if name ~= nil then wrk._name(name, prefix, level > 0 and level + 1 or 0) end
  return format(level > 0 and level + 1 or 0, method, path, merged(headers), body)
end

-- An error names the line that called wrk.format (the parentheses keep
-- this from being a tail call, which would lose that frame).
function wrk.format(method, path, headers, body)
  if type(method) == "table" then
    return (wrk._format_table(2, method, "wrk.format: the table's %s", "wrk.format: "))
  end
  return (format(2, method, path, headers, body))
end

-- For the bridge (request tables, the default request, volley.format).
wrk._format = format

-- The default request: the wrk fields as they are when it is called.
function wrk.request()
  return (format(0))
end

return wrk
