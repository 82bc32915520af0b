-- The pure parts of a flow user's requests, shared by the real user
-- (volley.flow) and the fake one of volley.testing, so that a flow unit-
-- tested without a server sends the same bytes and follows the same
-- redirects: option checking, times (seconds or duration strings),
-- bodies, request bytes, target paths, redirect rules, u:check's forms,
-- u:fail's error, the user's read-only fields, and the errors that name
-- a misspelt response field or method of u.
-- Plain Lua (no FFI): volley.testing runs under plain busted.
local json_encode = require("volley.json").encode
local multipart = require("volley.multipart")
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
-- opts.json encoded (volley.json), opts.form url-encoded, opts.multipart
-- as multipart/form-data (volley.multipart; its errors name fn, at level
-- as error's, from the caller).
function http.body(opts, fn, level)
  if opts.json ~= nil then return json_encode(opts.json), "application/json" end
  if opts.form then return http.form_body(opts.form), "application/x-www-form-urlencoded" end
  if opts.multipart then
    local body, ctype = multipart.body(fn, opts.multipart, level + 1)
    return body, ctype -- not a tail call: level counts this frame
  end
  return opts.body, nil
end

-- The options of a request given none (never written to).
local NO_OPTS = setmetatable({}, { __newindex = function() error("no options table to write to", 2) end })

local buf = {}
local version = " HTTP/1.1\r\n"

-- The request bytes: base's headers (the command line's: wrk.headers,
-- Host and -H) unless opts.headers names them (in any case), then
-- headers (opts.headers), the user's cookie header, the body's type and
-- length. host (nil: base's) is the Host sent to another origin, in
-- place of base's. Errors name fn, at level (as error's, from the
-- caller).
function http.build(fn, method, path, headers, base, body, ctype, cookie, level, host)
  if bad(method) then refuse(fn, "the method", level) end
  if bad(path) then refuse(fn, "the path", level) end
  -- through an HTTP proxy: absolute-form, and its credentials (wrk.lua)
  local w = wrk
  local origin, auth = w and w._origin or "", w and w._proxy_auth
  buf[1], buf[2], buf[3], buf[4] = method, " ", origin == "" and path or origin .. path, version
  local n = 4
  if auth and origin ~= "" then
    buf[5], buf[6], buf[7], buf[8] = "Proxy-Authorization", ": ", auth, "\r\n"
    n = 8
  end
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
  if host and not (given and given.host) then
    buf[n + 1], buf[n + 2], buf[n + 3] = "Host: ", host, "\r\n"
    n = n + 3
  end
  for name, value in pairs(base) do
    -- per request: the length is tested before any lower() is made
    if not (given and given[lower(name)]) and not (#name == 14 and lower(name) == "content-length")
      and not (host and #name == 4 and lower(name) == "host") then
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
               form = "table", multipart = "table", name = "string", timeout = "time", redirects = "number", check = "function",
               stream = "stream", tags = "table" }
http.OPT_NAMES = "method path headers body json form multipart name timeout redirects check stream tags"

-- Times of a flow (u:sleep, opts.timeout) are seconds, as k6's sleep and
-- Locust's wait_time are (fractions allowed), or a duration string with
-- --timeout's units ("250ms", "2s", "1m"). At most --timeout's limit,
-- 100 days (units.h): C turns them into whole nanoseconds.
local UNITS = { [""] = 1, s = 1, ms = 1e-3, us = 1e-6, m = 60, h = 3600 }
http.MAX_SECONDS = 100 * 24 * 3600

-- v as seconds, or nil when it is no time (zero: whether 0 is one).
local function seconds_of(v, zero)
  local s
  if type(v) == "number" then
    s = v
  elseif type(v) == "string" then
    local num, unit = v:match("^(%d*%.?%d*)%s*(%a*)$")
    local scale = num and find(num, "%d") and UNITS[unit]
    if not scale then return nil end
    s = tonumber(num) * scale
  else
    return nil
  end
  if not (s >= 0 and s <= http.MAX_SECONDS) or (s == 0 and not zero) then return nil end
  return s
end

-- v (u:sleep's argument, opts.timeout: what, "" or "opts.timeout ") as seconds; an error at
-- level (as error's, from the caller) when it is not a time.
function http.seconds(v, fn, what, zero, level)
  local s = seconds_of(v, zero)
  if s then return s end
  local shown = type(v) == "string" and ("%q"):format(v) or type(v) == "number" and tostring(v) or "a " .. type(v)
  error(("%s: %s%s is not a time (seconds %s 0 such as 1.5, or a duration such as \"250ms\", \"2s\","
    .. " \"1m\"; at most 100 days)"):format(fn, what, shown, zero and ">=" or ">"), level + 1)
end

-- Refuses an unknown or mistyped key of a request's opts. nearest(word,
-- list), when given, finds the option a misspelt key was meant to be.
function http.check_opts(fn, opts, level, nearest)
  -- u:get(path) has none: no walk (each step of one is a C call, traverse.lua)
  if opts == NO_OPTS or next(opts) == nil then return end
  for k, v in pairs(opts) do
    local want = OPTS[k]
    if want == nil then
      local near = nearest and type(k) == "string" and nearest(k, http.OPT_NAMES)
      error(("%s: unknown option %s (%s)"):format(fn, type(k) == "string" and '"' .. k .. '"' or tostring(k),
        near and ('did you mean "' .. near .. '"?') or "the options are " .. http.OPT_NAMES), level + 1)
    end
    if want == "time" then
      http.seconds(v, fn, "opts." .. k .. " ", false, level + 1)
    elseif want == "stream" then
      if type(v) ~= "boolean" and type(v) ~= "function" then
        error(("%s: opts.stream is a %s (true, or a function called with each event)"):format(fn, type(v)),
          level + 1)
      end
    elseif want ~= "any" and type(v) ~= want then
      error(("%s: opts.%s is a %s (a %s expected)"):format(fn, k, type(v), want), level + 1)
    end
  end
  local body_kinds = (opts.body and 1 or 0) + (opts.json ~= nil and 1 or 0) + (opts.form and 1 or 0)
    + (opts.multipart and 1 or 0)
  if body_kinds > 1 then
    error(fn .. ": give one of body, json, form and multipart", level + 1)
  end
  if opts.redirects and not (opts.redirects >= 0) then
    error(fn .. ": opts.redirects must be >= 0", level + 1)
  end
end

-- An absolute http(s) URL's parts: scheme and host in lower case (the
-- host without IPv6 brackets), port (the scheme's default when none is
-- given) and path (with its query; at least "/"); nil when url is no
-- absolute URL.
local function split(url)
  local scheme, rest = url:match("^(%a[%w+.-]*)://(.*)$")
  if not scheme then return nil end
  local authority, path = rest:match("^([^/?#]*)(.*)$")
  authority = authority:gsub("^.*@", "") -- userinfo is not sent
  scheme = lower(scheme)
  local host, port = authority:match("^(.-):(%d+)$")
  if not host then
    host, port = authority, (scheme == "https" and 443 or 80)
  end
  host = lower((host:gsub("^%[(.*)%]$", "%1")))
  if path == "" then path = "/" end
  if sub(path, 1, 1) ~= "/" then path = "/" .. path end
  return scheme, host, tonumber(port), path
end

-- The path of a URL of target ({scheme, host, port}: the run's; same
-- scheme, host and port), or nil for another origin; a path as it is.
function http.own_path(url, t)
  if sub(url, 1, 1) == "/" then return url end
  local scheme, host, port, path = split(url)
  if not scheme or scheme ~= t.scheme or host ~= lower(t.host) or port ~= t.port then return nil end
  return path
end

-- Other origins (scheme, host, port), one table each, made at first
-- sight: { scheme, host, port, authority (host[:port] as a Host header
-- gives it: brackets for IPv6, no default port), key ("scheme://authority"),
-- id (flow.lua's number of it in its worker, set there) }.
local origins = {}

function http.origin(scheme, host, port)
  local key = scheme .. "://" .. host .. ":" .. port
  local o = origins[key]
  if o then return o end
  local h = find(host, ":", 1, true) and "[" .. host .. "]" or host
  local authority = port == (scheme == "https" and 443 or 80) and h or h .. ":" .. port
  o = { scheme = scheme, host = host, port = port, authority = authority, key = scheme .. "://" .. authority }
  origins[key] = o
  return o
end

-- Where url goes: its path and its origin (nil: the target t), or nil
-- when url is neither a path nor an absolute http(s) URL.
function http.locate(url, t)
  if sub(url, 1, 1) == "/" then return url end
  local scheme, host, port, path = split(url)
  if not scheme or (scheme ~= "http" and scheme ~= "https") then return nil end
  if scheme == t.scheme and host == lower(t.host) and port == t.port then return path end
  return path, http.origin(scheme, host, port)
end

-- Whether origin o may be reached: a host of --allow-host (t.allow: a
-- list of { host, port }, port 0 for any; nil: none) on its port.
function http.allowed(o, t)
  local list = t.allow
  if not list then return false end
  for i = 1, #list do
    local a = list[i]
    if a[1] == o.host and (a[2] == 0 or a[2] == o.port) then return true end
  end
  return false
end

-- The reason a request to an origin not allowed fails with.
function http.not_allowed(o)
  local h = find(o.host, ":", 1, true) and "[" .. o.host .. "]" or o.host
  return ("host not allowed: %s:%d (--allow-host)"):format(h, o.port)
end

-- Where a redirect's Location points: the reference resolved (volley.uri,
-- RFC 3986 5.2) against the URL of the request it answered (from: that
-- request's path on origin o, nil: on t): its path (with its query,
-- without its fragment) and its origin (nil: t's); nil when it is not
-- followed (no http(s) URL, or an origin not allowed).
function http.redirect_to(location, from, t, o)
  local base
  if o then
    base = o.key .. from
  else
    local host = find(t.host, ":", 1, true) and "[" .. t.host .. "]" or t.host
    base = t.scheme .. "://" .. host .. ":" .. t.port .. from
  end
  local path, to = http.locate(uri.without_fragment(uri.resolve(base, location)), t)
  if not path or (to and not http.allowed(to, t)) then return nil end
  return path, to
end

-- As redirect_to, for a Location on t: its path, or nil for another
-- origin.
function http.redirect_path(location, from, t)
  local path, to = http.redirect_to(location, from, t)
  if to then return nil end
  return path
end

-- A request's method, its path, its body, the body's type, its timeout
-- in milliseconds (0: --timeout's) and its origin (nil: the target t),
-- from a request method's arguments and opts (checked; nearest as
-- check_opts takes it; level: as error's, from the caller); and, for an
-- origin --allow-host does not list, the reason the request fails with
-- (it is not sent).
function http.prepare(fn, method, path, opts, t, level, nearest)
  http.check_opts(fn, opts, level + 1, nearest)
  method = opts.method or method
  path = opts.path or path
  if type(method) ~= "string" or type(path) ~= "string" then
    error(fn .. ": a method and a path (strings) are needed", level + 1)
  end
  local p, o = http.locate(path, t)
  if not p then
    -- "items/1": a path without its "/" is no URL either
    if not find(path, "^%a[%w+.-]*:") and sub(path, 1, 2) ~= "//" then
      error(('%s: the path %q lacks its leading "/" (did you mean "/%s"?)'):format(fn, path, path), level + 1)
    end
    error(("%s: %q is not an http:// or https:// URL"):format(fn, path), level + 1)
  end
  local body, ctype = http.body(opts, fn, level + 1)
  local timeout = opts.timeout and seconds_of(opts.timeout) * 1e3 or 0
  return method, p, body, ctype, timeout, o, o and not http.allowed(o, t) and http.not_allowed(o) or nil
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

-- The hop after a response of status with location (nil: none) to a
-- request of method and path on origin o (nil: the target t), hops
-- redirects left: as http.follow's; nil when the response is the final
-- one (no redirect, no hop left, no Location, an origin not allowed). A
-- request's check runs on the final one whatever its status.
function http.hop(status, location, hops, method, path, t, o)
  local how = http.REDIRECTS[status]
  if how == nil or hops <= 0 then return nil end
  return http.follow(how, location, method, path, t, o)
end

-- The hop after a redirect of kind how (a REDIRECTS value) from method
-- and path (on origin o, nil: t) to location (nil: none): its method, its
-- path, whether the body goes (it does when the method becomes GET) and
-- its origin (nil: t); nil when the redirect is not followed (no
-- Location, or an origin --allow-host does not list).
function http.follow(how, location, method, path, t, o)
  if not location then return nil end
  local next_path, to = http.redirect_to(location, path, t, o)
  if not next_path then return nil end
  if how == "all" or (how == "post" and method == "POST") then
    return method == "HEAD" and "HEAD" or "GET", next_path, true, to
  end
  return method, next_path, false, to
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

-- The key a user missed last (u.gett: user_mt's __index), and whose: kept
-- here, not in the user's state, so that a method call clears it with a
-- store the JIT keeps in its trace (a store into st on every call cost a
-- flow's request about a microsecond). One per Lua state: a worker runs
-- one user at a time.
local missed_by, missed_key

-- The error e of an iteration of user st: a call of a method u does not
-- have ("attempt to call method 'gett' (a nil value)", the key u missed
-- last) says so, with the nearest method (nearest(word, list): as
-- check_opts takes it); any other e as it is.
function http.explain(e, st, nearest)
  if type(e) ~= "string" or missed_by ~= st or missed_key == nil then return e end
  local at, name = e:match("^(.-)attempt to call %a+ '([%w_]+)' %(a nil value%)$")
  if name == nil or name ~= missed_key then return e end
  local near = nearest and nearest(name, http.METHOD_NAMES)
  return ("%su:%s is not a method of u (%s)"):format(at, name,
    near and ("did you mean u:%s?"):format(near) or "its methods are " .. http.METHOD_NAMES)
end

-- The fields (and the methods) of a response, for messages.
http.RESPONSE_NAMES = "status failed reason headers body json html extract trailers latency connect waiting bytes url"

-- r:extract(left, right [, "all"]) on body: the text between the first
-- left and the next right after it (plain strings, not patterns), or nil
-- when either is absent; with "all", a list of every such text, left to
-- right, not overlapping (empty when none). Errors at level (as error's,
-- from the caller).
function http.extract(body, left, right, all, level)
  local function shown(v) -- on one line
    return type(v) == "string" and (("%q"):format(v):gsub("\\\n", "\\n")) or "a " .. type(v)
  end
  if type(left) ~= "string" or left == "" or type(right) ~= "string" or right == "" then
    error(("r:extract: left and right must be non-empty strings, not %s and %s"):format(shown(left), shown(right)),
      level + 1)
  end
  if all ~= nil and all ~= "all" then
    error(('r:extract: the third argument is "all" or nothing, not %s'):format(shown(all)), level + 1)
  end
  local out, at = all and {} or nil, 1
  while true do
    local _, e = find(body, left, at, true)
    if not e then return out end
    local s2, e2 = find(body, right, e + 1, true)
    if not s2 then return out end
    local v = sub(body, e + 1, s2 - 1)
    if not out then return v end
    out[#out + 1] = v
    at = e2 + 1
  end
end

-- Other tools' names of a response's fields (Locust's and requests'
-- status_code, text, content, elapsed, ok; k6's timings, error).
local OTHER_NAMES = { status_code = "status", text = "body", content = "body", elapsed = "latency",
                      timings = "latency", ok = "failed", error = "reason" }

-- The error for a response's field k that is none (r.status_code): at
-- level (as error's, from the caller), with the name it means (another
-- tool's, or the nearest; nearest: as check_opts takes it). A number key
-- is the response's own slot: nil.
function http.no_field(k, nearest, level)
  if type(k) ~= "string" then return nil end
  local near = OTHER_NAMES[k] or nearest and nearest(k, http.RESPONSE_NAMES)
  error(("r.%s: a response has no field %q (%s)"):format(k, k,
    near and ("did you mean r.%s?"):format(near) or "its fields are " .. http.RESPONSE_NAMES), level + 1)
end

function http.reason_of(e)
  if getmetatable(e) == FAIL then return e.reason end
  if type(e) == "string" then return e end
  return ("(error object is a %s value)"):format(type(e))
end

-- u:sleep's argument as seconds: seconds >= 0 or a duration string, else
-- an error (level: as error's, from the caller).
function http.sleep_seconds(v, level)
  return (http.seconds(v, "u:sleep", "", true, level + 1))
end

-- A check or group name, refused unless a non-empty string (kind:
-- "check" or "group"; level: as error's, from the caller).
function http.check_name(name, kind, fn, level)
  if type(name) ~= "string" or name == "" then
    error(("%s: a %s name must be a non-empty string, not %s"):format(fn, kind,
      type(name) == "string" and "an empty one" or "a " .. type(name)), level + 1)
  end
end

-- u:check's forms (count(name, pass) counts one, after its name is
-- checked; level: as error's, from the caller):
--   u:check(cond, name): counts cond's truth under name; returns cond.
--   u:check(value, { name = fn, ... }): calls each fn(value) (k6's
--   check(res, {...})), counts each result's truth under its name;
--   returns whether all passed. An error in fn is the script's.
-- A function as cond is refused: it is a value, always true, so the
-- check would always pass.
function http.check(cond, name, count, level)
  if type(name) == "table" then
    for n, fn in pairs(name) do
      http.check_name(n, "check", "u:check", level + 1)
      if type(fn) ~= "function" then
        error(("u:check: the check %q is a %s: a table of checks maps names to functions of the value"
          .. " (u:check(r, { [%q] = function(r) return r.status == 200 end }))"):format(n, type(fn), n), level + 1)
      end
    end
    local all = true
    for n, fn in pairs(name) do
      local pass = fn(cond) and true or false
      count(n, pass)
      all = all and pass
    end
    return all
  end
  if type(name) == "function" or type(cond) == "function" then
    local n = type(name) == "string" and name or "status is 200"
    error(("u:check: a function is not called by u:check(cond, name), so it would always pass: give a"
      .. " condition, u:check(r.status == 200, %q), or a table of named functions of the response,"
      .. " u:check(r, { [%q] = function(r) return r.status == 200 end })"):format(n, n), level + 1)
  end
  http.check_name(name, "check", "u:check", level + 1)
  count(name, cond and true or false)
  return cond
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
      return (send(u, state(u, fn, 2, true), fn, method, path, opts or NO_OPTS, 2))
    end
  end
  function methods.request(u, opts)
    if type(opts) ~= "table" then error("u:request: a table of options expected", 2) end
    return (send(u, state(u, "u:request", 2, true), "u:request", opts.method or "GET", opts.path, opts, 2))
  end
  -- u:batch{ req, ... }: each a path (GET) or a table of u:request's options.
  function methods.batch(u, list)
    return (batch(u, state(u, "u:batch", 2, true), list, 2))
  end
  function methods.fail(u, reason)
    state(u, "u:fail", 2)
    http.fail(reason)
  end
end

-- The users' states (u -> its state; weak keys), and state(u, fn,
-- level, yields): u's, or an error unless u is a user and, for a method
-- that yields, called in its user's own coroutine, not in one the script
-- resumed (volley.coroutines counts those) (level: as error's, from
-- state's caller). A yield from a coroutine the script made
-- would go back to the script, not to volley: u:get would return the
-- yield's first value (1). The others (u:check, u:group, u:fail) also
-- work where volley calls the script outside it (opts.check).
function http.states()
  local states = setmetatable({}, { __mode = "k" })
  local coroutines = require("volley.coroutines")
  local function state(u, fn, level, yields)
    local st = states[u]
    if not st then error(fn .. ": call it as a method (u:" .. fn:match("[%w_]+$") .. "(...))", level + 1) end
    missed_key = nil
    if yields and coroutines.depth > 0 then
      error(fn .. ": called outside its user's coroutine (in a coroutine the script made, or outside"
        .. " user(u)): call u's methods from user(u) and the functions it calls, not inside"
        .. " coroutine.create or coroutine.wrap", level + 1)
    end
    return st
  end
  return states, state
end

-- u's fields the script reads but may not set.
local READ_ONLY = { id = true, thread = true, iteration = true, data = true, cookies = true, setup = true }

-- The names of u's methods, for messages.
http.METHOD_NAMES = "get head delete post put patch request batch sleep sleep_between check group fail"

-- The metatable of a user: methods, the read-only fields from its state
-- (states[u]), and the script's own fields. A field the script never set
-- is nil (u.token before the login), but the last one missed is kept
-- (missed_key, until u's next method call), so that an iteration's
-- "attempt to call method 'gett'" can be told from one of another
-- table's (http.explain).
function http.user_mt(methods, states)
  return {
    __index = function(u, k)
      local m = methods[k]
      if m then return m end
      local st = states[u]
      if READ_ONLY[k] then return st[k] end
      missed_by, missed_key = st, k
    end,
    __newindex = function(u, k, v)
      if READ_ONLY[k] or methods[k] then error(("u.%s is read-only"):format(k), 2) end
      rawset(u, k, v)
    end,
  }
end

return http
