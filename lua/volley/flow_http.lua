-- The pure parts of a flow user's requests, shared by the real user
-- (volley.flow) and the fake one of volley.testing, so that a flow unit-
-- tested without a server sends the same bytes and follows the same
-- redirects: option checking, bodies, request bytes, target paths,
-- redirect rules, u:fail's error and the user's read-only fields.
-- Plain Lua (no FFI): volley.testing runs under plain busted.
local json_encode = require("volley.json").encode
local uri = require("volley.uri")

local http = {}

local find, sub, lower, concat = string.find, string.sub, string.lower, table.concat

-- CR, LF or NUL in a method, path or header would end a line early (see
-- wrk.lua's bad()).
local function bad(s)
  return find(s, "\r", 1, true) or find(s, "\n", 1, true) or find(s, "\0", 1, true)
end

local function refuse(fn, what, level)
  error(("%s: %s contains CR/LF/NUL"):format(fn, what), level + 1)
end

local function urlencode(s)
  return (tostring(s):gsub("[^%w%-%._~]", function(ch) return ("%%%02X"):format(ch:byte()) end))
end

-- A form table as application/x-www-form-urlencoded, keys sorted (so
-- that every state sends the same bytes).
function http.form_body(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local parts = {}
  for i, k in ipairs(keys) do
    local v = t[k]
    if v == nil then v = t[tonumber(k)] end
    parts[i] = urlencode(k) .. "=" .. urlencode(v)
  end
  return concat(parts, "&")
end

-- The body of opts and its Content-Type: opts.body as it is (no type),
-- opts.json encoded (volley.json), opts.form url-encoded.
function http.body(opts)
  if opts.json ~= nil then return json_encode(opts.json), "application/json" end
  if opts.form then return http.form_body(opts.form), "application/x-www-form-urlencoded" end
  return opts.body, nil
end

-- The options of a request given none (never written to).
local NO_OPTS = setmetatable({}, { __newindex = function() error("no options table to write to", 2) end })

local buf = {}
local version = " HTTP/1.1\r\n"

-- The request bytes: base's headers (the command line's: wrk.headers,
-- Host and -H) unless opts.headers names them (in any case), then
-- headers (opts.headers), the user's cookie header, the body's type and
-- length. Errors name fn, at level (as error's, from the caller).
function http.build(fn, method, path, headers, base, body, ctype, cookie, level)
  if bad(method) then refuse(fn, "the method", level) end
  if bad(path) then refuse(fn, "the path", level) end
  buf[1], buf[2], buf[3], buf[4] = method, " ", path, version
  local n = 4
  local given
  if headers then
    given = {}
    for name, value in pairs(headers) do
      if type(name) ~= "string" then
        error(("%s: a header name must be a string, not a %s"):format(fn, type(name)), level + 1)
      end
      value = tostring(value)
      if bad(name) or bad(value) then refuse(fn, ("the header %q"):format(name), level) end
      given[lower(name)] = true
      buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = name, ": ", value, "\r\n"
      n = n + 4
    end
  end
  for name, value in pairs(base) do
    -- per request: the length is tested before any lower() is made
    if not (given and given[lower(name)]) and not (#name == 14 and lower(name) == "content-length") then
      buf[n + 1], buf[n + 2], buf[n + 3], buf[n + 4] = name, ": ", tostring(value), "\r\n"
      n = n + 4
    end
  end
  if cookie and not (given and given.cookie) then
    buf[n + 1], buf[n + 2] = "Cookie: ", cookie
    buf[n + 3] = "\r\n"
    n = n + 3
  end
  if body then
    if ctype and not (given and given["content-type"]) then
      buf[n + 1], buf[n + 2] = "Content-Type: ", ctype
      buf[n + 3] = "\r\n"
      n = n + 3
    end
    buf[n + 1], buf[n + 2], buf[n + 3] = "Content-Length: ", #body, "\r\n"
    n = n + 3
  end
  buf[n + 1] = "\r\n"
  buf[n + 2] = body or ""
  return concat(buf, "", 1, n + 2)
end

local OPTS = { method = "string", path = "string", headers = "table", body = "string", json = "any",
               form = "table", name = "string", timeout = "number", redirects = "number", check = "function" }
http.OPT_NAMES = "method path headers body json form name timeout redirects check"

-- Refuses an unknown or mistyped key of a request's opts. nearest(word,
-- list), when given, finds the option a misspelt key was meant to be.
function http.check_opts(fn, opts, level, nearest)
  if next(opts) == nil then return end
  for k, v in pairs(opts) do
    local want = OPTS[k]
    if want == nil then
      local near = nearest and type(k) == "string" and nearest(k, http.OPT_NAMES)
      error(("%s: unknown option %s (%s)"):format(fn, type(k) == "string" and '"' .. k .. '"' or tostring(k),
        near and ('did you mean "' .. near .. '"?') or "the options are " .. http.OPT_NAMES), level + 1)
    end
    if want ~= "any" and type(v) ~= want then
      error(("%s: opts.%s is a %s (a %s expected)"):format(fn, k, type(v), want), level + 1)
    end
  end
  local body_kinds = (opts.body and 1 or 0) + (opts.json ~= nil and 1 or 0) + (opts.form and 1 or 0)
  if body_kinds > 1 then
    error(fn .. ": give one of body, json and form", level + 1)
  end
  if opts.timeout and not (opts.timeout > 0) then
    error(fn .. ": opts.timeout must be milliseconds > 0", level + 1)
  end
  if opts.redirects and not (opts.redirects >= 0) then
    error(fn .. ": opts.redirects must be >= 0", level + 1)
  end
end

-- The path of a URL of target ({scheme, host, port}: the run's; same
-- scheme, host and port), or nil for another origin; a path as it is.
function http.own_path(url, t)
  if sub(url, 1, 1) == "/" then return url end
  local scheme, rest = url:match("^(%a[%w+.-]*)://(.*)$")
  if not scheme then return nil end
  local authority, path = rest:match("^([^/?#]*)(.*)$")
  local host, port = authority:match("^(.-):(%d+)$")
  if not host then
    host, port = authority, (lower(scheme) == "https" and 443 or 80)
  end
  host = host:gsub("^%[(.*)%]$", "%1")
  if lower(scheme) ~= t.scheme or lower(host) ~= lower(t.host) or tonumber(port) ~= t.port then return nil end
  if path == "" then path = "/" end
  if sub(path, 1, 1) ~= "/" then path = "/" .. path end
  return path
end

-- Where a redirect's Location points, as a path of target (with its
-- query, without its fragment), or nil for another origin: the reference
-- resolved (volley.uri, RFC 3986 5.2) against the URL of the request it
-- answered (from: that request's path on t).
function http.redirect_path(location, from, t)
  local host = find(t.host, ":", 1, true) and "[" .. t.host .. "]" or t.host
  local url = uri.resolve(t.scheme .. "://" .. host .. ":" .. t.port .. from, location)
  return http.own_path(uri.without_fragment(url), t)
end

-- A request's method, its path on target t, its body and the body's
-- type, from a request method's arguments and opts (checked; nearest as
-- check_opts takes it; level: as error's, from the caller).
function http.prepare(fn, method, path, opts, t, level, nearest)
  http.check_opts(fn, opts, level + 1, nearest)
  method = opts.method or method
  path = opts.path or path
  if type(method) ~= "string" or type(path) ~= "string" then
    error(fn .. ": a method and a path (strings) are needed", level + 1)
  end
  local p = http.own_path(path, t)
  if not p then
    error(("%s: %q is not on the run's target (a flow's users talk to the target only)"):format(fn, path),
      level + 1)
  end
  local body, ctype = http.body(opts)
  return method, p, body, ctype
end

-- The most requests in one u:batch.
http.MAX_BATCH = 1000

-- u:batch's list checked: its length n; and item(i), request i's fn
-- (for messages), path and options (a path alone is a GET with no
-- options). Level: as error's, from the caller (for item too).
function http.batch_list(list, level)
  if type(list) ~= "table" then error("u:batch: a list of requests expected", level + 1) end
  local n = #list
  if n > http.MAX_BATCH then
    error(("u:batch: %d requests (at most %d in one batch)"):format(n, http.MAX_BATCH), level + 1)
  end
  return n, function(i)
    local q = list[i]
    local fn = ("u:batch: request %d"):format(i)
    if type(q) == "string" then return fn, q, {} end
    if type(q) == "table" then return fn, q.path, q end
    error(("u:batch: request %d is a %s (a path or a table of options expected)"):format(i, type(q)), level + 1)
  end
end

-- Statuses that are followed, and whether the method becomes GET (as
-- browsers and k6 do: 303 always; 301 and 302 for a POST).
http.REDIRECTS = { [301] = "post", [302] = "post", [303] = "all", [307] = false, [308] = false }

-- The hop after a redirect of kind how (a REDIRECTS value) from method
-- and path to location (nil: none): its method, its path, and whether
-- the body goes (it does when the method becomes GET); nil when the
-- redirect is not followed (no Location, or another origin).
function http.follow(how, location, method, path, t)
  local next_path = location and http.redirect_path(location, path, t)
  if not next_path then return nil end
  if how == "all" or (how == "post" and method == "POST") then
    return method == "HEAD" and "HEAD" or "GET", next_path, true
  end
  return method, next_path, false
end

-- A header table (name -> value) that also finds a name in any case.
function http.fields_table(h)
  local lc = {}
  for name, value in pairs(h) do lc[lower(name)] = value end
  return setmetatable(h, { __index = function(_, k)
    if type(k) == "string" then return lc[lower(k)] end
  end })
end

-- u:fail's error (its reason), and the reason of an iteration that ended
-- in an error: u:fail's, or the error's message (file:line: message)
-- without a traceback.
local FAIL = {}

function http.fail(reason)
  error(setmetatable({ reason = reason == nil and "u:fail()" or tostring(reason) }, FAIL), 0)
end

function http.reason_of(e)
  if getmetatable(e) == FAIL then return e.reason end
  if type(e) == "string" then return e end
  return ("(error object is a %s value)"):format(type(e))
end

-- u:sleep's argument, refused unless milliseconds >= 0 (level: as
-- error's, from the caller).
function http.check_sleep(ms, level)
  if type(ms) ~= "number" or not (ms >= 0) or ms == math.huge then
    error(("u:sleep: milliseconds >= 0 expected, not %s"):format(tostring(ms)), level + 1)
  end
end

-- A check or group name, refused unless a non-empty string (kind:
-- "check" or "group"; level: as error's, from the caller).
function http.check_name(name, kind, fn, level)
  if type(name) ~= "string" or name == "" then
    error(("%s: a %s name must be a non-empty string, not %s"):format(fn, kind,
      type(name) == "string" and "an empty one" or "a " .. type(name)), level + 1)
  end
end

-- The methods both users share: u:get(path, opts) ... u:request(opts),
-- each calling send(u, st, fn, method, path, opts, level), u:batch(list),
-- calling batch(u, st, list, level), with u's state st and level 2 (the
-- script's line, as error's from their caller); and u:fail(reason),
-- which ends the iteration. state: as http.states gives it. Not tail
-- calls: a tail call would take the method's frame away, and the errors
-- would name the line that called the script's function.
function http.methods(methods, state, send, batch)
  for _, m in ipairs({ "get", "head", "delete", "post", "put", "patch" }) do
    local method, fn = m:upper(), "u:" .. m
    methods[m] = function(u, path, opts)
      return (send(u, state(u, fn, 2), fn, method, path, opts or NO_OPTS, 2))
    end
  end
  function methods.request(u, opts)
    if type(opts) ~= "table" then error("u:request: a table of options expected", 2) end
    return (send(u, state(u, "u:request", 2), "u:request", opts.method or "GET", opts.path, opts, 2))
  end
  -- u:batch{ req, ... }: each a path (GET) or a table of u:request's options.
  function methods.batch(u, list)
    return (batch(u, state(u, "u:batch", 2), list, 2))
  end
  function methods.fail(u, reason)
    state(u, "u:fail", 2)
    http.fail(reason)
  end
end

-- The users' states (u -> its state; weak keys), and state(u, fn,
-- level): u's, or an error unless u is a user (level: as error's, from
-- state's caller).
function http.states()
  local states = setmetatable({}, { __mode = "k" })
  local function state(u, fn, level)
    local st = states[u]
    if not st then error(fn .. ": call it as a method (u:" .. fn:match("[%w_]+$") .. "(...))", level + 1) end
    return st
  end
  return states, state
end

-- u's fields the script reads but may not set.
local READ_ONLY = { id = true, thread = true, iteration = true, data = true, cookies = true }

-- The metatable of a user: methods, the read-only fields from its state
-- (states[u]), and the script's own fields.
function http.user_mt(methods, states)
  return {
    __index = function(u, k)
      local m = methods[k]
      if m then return m end
      if READ_ONLY[k] then return states[u][k] end
    end,
    __newindex = function(u, k, v)
      if READ_ONLY[k] or methods[k] then error(("u.%s is read-only"):format(k), 2) end
      rawset(u, k, v)
    end,
  }
end

return http
