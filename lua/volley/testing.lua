-- A fake flow user for unit tests: testing.user{...} is a u whose
-- requests are answered from canned responses, and testing.run(s, u, n)
-- runs n iterations of the scenario (user(u), tasks or a sequence, with
-- its wait rule, on_start and on_stop: volley.runner, as volley runs it)
-- and returns what they did (requests, checks, groups, sleeps, waits,
-- failures), so a flow is tested under plain busted with no server and
-- no volley. The request bytes, option checks, redirects, batches and
-- cookies are volley.flow's own (volley.flow_http, volley.cookies);
-- u:sleep and the waits only record their seconds, on a clock of the
-- user's own (st.clock) that they move on, with each response's latency.
local json = require("volley.json")
local cookies = require("volley.cookies")
local http = require("volley.flow_http")
local runner = require("volley.runner")
local user_rng = require("volley.user_rng")
local wait = require("volley.wait")
local resume_user = require("volley.coroutines").raw_resume

local testing = {}

local lower = string.lower

-- The failure kinds a canned response may give as error (volley's own,
-- but for "validation", which a check makes).
local KINDS = { connect = true, read = true, write = true, timeout = true, parse = true, tls = true,
                protocol = true, ports = true }
local KIND_NAMES = "connect read write timeout parse tls protocol ports"

-- A test's own mistake (a request with no canned response, a bad canned
-- response): raised out of testing.run even when the script catches it.
local SETUP = {}

local function setup_error(st, msg)
  local e = setmetatable({ msg = msg }, SETUP)
  st.setup_error = st.setup_error or e
  error(e, 0)
end

-- "file:line" of the script's line level frames up (as error's, from the
-- caller), for setup errors.
local function where(level)
  local info = debug.getinfo(level + 1, "Sl")
  return info and info.currentline > 0 and (info.short_src .. ":" .. info.currentline) or "?"
end

----------------------------------------------------------------------------
-- Canned responses.

local ROUTE_HELP = '"METHOD /path", or "METHOD /prefix*"'

-- The routes of spec.responses: exact keys, and prefixes longest first.
local function compile_routes(responses)
  local exact, prefixes = {}, {}
  for key, value in pairs(responses) do
    local method, path
    if type(key) == "string" then method, path = key:match("^(%u+) (/%S*)$") end
    if not method then
      error(("testing.user: responses key %s is not %s"):format(
        type(key) == "string" and ("%q"):format(key) or tostring(key), ROUTE_HELP), 3)
    end
    if type(value) ~= "table" and type(value) ~= "function" then
      error(("testing.user: responses[%q] is a %s (a response table or a function expected)"):format(
        key, type(value)), 3)
    end
    if path:sub(-1) == "*" then
      prefixes[#prefixes + 1] = { method = method, prefix = path:sub(1, -2), value = value, key = key }
    else
      exact[method .. " " .. path] = { value = value, key = key }
    end
  end
  table.sort(prefixes, function(a, b)
    if #a.prefix ~= #b.prefix then return #a.prefix > #b.prefix end
    return a.key < b.key
  end)
  return { exact = exact, prefixes = prefixes }
end

-- The route of a request: its exact "METHOD path" (with the query, then
-- without it), else the longest prefix.
local function route_of(routes, method, path)
  local e = routes.exact[method .. " " .. path]
  if e then return e end
  local bare = path:match("^([^?#]*)")
  e = routes.exact[method .. " " .. bare]
  if e then return e end
  for _, p in ipairs(routes.prefixes) do
    if p.method == method and path:sub(1, #p.prefix) == p.prefix then return p end
  end
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local RESPONSE_FIELDS = { status = "number", headers = "table", body = "string", json = "any", error = "string",
                          trailers = "table", latency = "number", connect = "number", waiting = "number",
                          bytes = "number" }
local RESPONSE_NAMES = "status headers body json error trailers latency connect waiting bytes"

-- A header table of a canned response (name -> value or list of values)
-- as fields: the last value of a name wins, as in a real response; all
-- of them as values (for Set-Cookie).
local function canned_fields(h, what)
  local fields, values = {}, {}
  for name, v in pairs(h or {}) do
    local list = {}
    for i, one in ipairs(type(v) == "table" and v or { v }) do
      if type(one) ~= "string" and type(one) ~= "number" then
        return nil, ("%s[%q] is a %s (a string or a list of strings expected)"):format(what, name, type(one))
      end
      list[i] = tostring(one)
    end
    fields[name] = list[#list]
    values[lower(name)] = list
  end
  return http.fields_table(fields), values
end

-- The canned response c checked and completed: status, fields, values,
-- body; nil and the problem when it is not a response.
local function canned(c)
  if type(c) ~= "table" then return nil, ("a %s, not a response table"):format(type(c)) end
  for k, v in pairs(c) do
    local want = RESPONSE_FIELDS[k]
    if want == nil then
      return nil, ("unknown field %s (the fields are %s)"):format(tostring(k), RESPONSE_NAMES)
    end
    if want ~= "any" and type(v) ~= want then
      return nil, ("%s is a %s (a %s expected)"):format(k, type(v), want)
    end
  end
  if c.body and c.json ~= nil then return nil, "give one of body and json" end
  if c.error and not KINDS[c.error] then
    return nil, ("error %q is not a failure kind (%s)"):format(c.error, KIND_NAMES)
  end
  local out = { error = c.error, latency = c.latency or 0, connect = c.connect or 0, waiting = c.waiting or 0 }
  if c.error then
    out.status, out.body = 0, ""
    out.headers, out.values = http.fields_table({}), {}
    out.trailers = http.fields_table({})
  else
    local h = c.headers or {}
    out.body = c.body or ""
    if c.json ~= nil then
      out.body = json.encode(c.json)
      if http.fields_table(copy(h))["content-type"] == nil then
        h = copy(h)
        h["Content-Type"] = "application/json"
      end
    end
    local err
    out.headers, out.values = canned_fields(h, "headers")
    if not out.headers then return nil, out.values end
    out.trailers, err = canned_fields(c.trailers, "trailers")
    if not out.trailers then return nil, err end
    out.status = c.status or 200
  end
  out.bytes = c.bytes or #out.body
  return out
end

----------------------------------------------------------------------------
-- Requests as the server would see them.

local function urldecode(s)
  return (s:gsub("+", " "):gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

-- A body decoded as JSON, for what (req:json, r:json) to raise at the
-- script's line when it is not JSON.
local function json_of(body, what)
  local v, err = json.decode(body)
  if v == nil and err then error(what .. ": the body is not JSON: " .. err, 3) end
  return v
end

local request_methods = {}

-- req:json(): the body decoded; an error when it is not JSON.
function request_methods.json(req)
  return (json_of(req.body, "req:json()"))
end

-- req:form(): the body as a url-encoded form (name -> value).
function request_methods.form(req)
  local t = {}
  for pair in req.body:gmatch("[^&]+") do
    local k, v = pair:match("^([^=]*)=?(.*)$")
    t[urldecode(k)] = urldecode(v)
  end
  return t
end

local request_mt = { __index = request_methods }

-- The request bytes read back: method, path, headers (any case), body.
local function parsed(bytes)
  local head, body = bytes:match("^(.-)\r\n\r\n(.*)$")
  local method, path = head:match("^(%S+) (%S+) HTTP/1%.1")
  local headers = {}
  for name, value in head:gmatch("\r\n([^:\r\n]+): ([^\r\n]*)") do headers[name] = value end
  return setmetatable({ method = method, path = path, headers = http.fields_table(headers), body = body,
                        raw = bytes }, request_mt)
end

----------------------------------------------------------------------------
-- Responses: read-only, and (as volley's) valid until the user's next
-- request, so a test catches a script that keeps one too long.

local response_methods = {}

function response_methods.json(r)
  return (json_of(r.body, "r:json()"))
end

function response_methods.extract(r, left, right, all)
  return (http.extract(r.body, left, right, all, 2))
end

-- r:html() parses in C (volley.html): under volley's own Lua (a script
-- that requires volley.testing inside a run), not under plain busted.
function response_methods.html(r)
  local api = require("volley.api")
  if not api.c then error("r:html(): parsing HTML needs volley's C side (run under volley, not plain busted)", 2) end
  return (require("volley.html").parse(r.body))
end

local FIELDS = { status = true, headers = true, body = true, trailers = true, latency = true, connect = true,
                 waiting = true, bytes = true }

local response_mt = {
  __index = function(r, k)
    local m = response_methods[k]
    if m then return m end
    local d = rawget(r, 1)
    if d.st.seq ~= d.seq then
      error("a response was read after its user sent the next request: it is valid until then"
        .. " (keep what you need, e.g. local body = r.body)", 2)
    end
    if k == "failed" then return d.c.error ~= nil or d.reason ~= nil end
    if k == "reason" then return d.c.error or d.reason end
    if k == "url" then return d.url end
    if FIELDS[k] then return d.c[k] end
    http.no_field(k, nil, 2) -- not a tail call: level 2 is the script's line
  end,
  __newindex = function(_, k)
    error(("a response is read-only (r.%s)"):format(tostring(k)), 2)
  end,
}

local function response(st, c, url)
  return setmetatable({ { st = st, seq = st.seq, c = c, url = url } }, response_mt)
end

----------------------------------------------------------------------------
-- The fake user.

local methods = {}
local states, state = http.states()


-- The canned answer to req (the route's table, or its function's).
local function answer(st, req, level)
  local route = route_of(st.routes, req.method, req.path)
  if not route then
    setup_error(st, ("no canned response for %s %s (requested at %s)"):format(req.method, req.path,
      where(level + 1)))
  end
  local value = route.value
  if type(value) == "function" then
    local ok, v = pcall(value, req)
    if not ok then
      setup_error(st, ("the function of %q failed on %s %s: %s"):format(route.key, req.method, req.path,
        tostring(v)))
    end
    value = v
  end
  local c, problem = canned(value)
  if not c then setup_error(st, ("the canned response of %q to %s %s: %s"):format(route.key, req.method,
    req.path, problem)) end
  return c
end

-- What a request needs before it is built: its method, path, body, the
-- body's type and its name (checked as volley.flow's prepare does), and,
-- for another origin, the reason it fails with: --allow-host's (the
-- user's target has no list: every other host is refused, as volley
-- refuses it without one).
local function prepare(st, fn, method, path, opts, level)
  local body, ctype, o, denied, _
  method, path, body, ctype, _, o, denied = http.prepare(fn, method, path, opts, st.target, level + 1)
  local name = opts.name
  if name ~= nil then
    if name == "" then error(fn .. ": a request name must be a non-empty string, not an empty one", level + 1) end
    if name:find("\0", 1, true) then error(fn .. ": a request name cannot hold a NUL byte", level + 1) end
  end
  return method, path, body, ctype, name, o and (denied or "volley.testing answers the target only: " .. o.key)
end

-- The request's bytes with the user's cookies as of now, read back and
-- recorded in the result.
local function request(st, fn, method, path, opts, body, ctype, name, now, level)
  local host = cookies.request_host(opts.headers, st.headers, lower(st.target.host))
  local cookie = st.jar:header(host, path, st.target.scheme == "https", now)
  local req = parsed(http.build(fn, method, path, opts.headers, st.headers, body, ctype, cookie, level + 1))
  req.name, req.group, req.tags = name, st.group, opts.tags
  local list = st.result.requests
  list[#list + 1] = req
  return req
end

-- Keeps c's cookies (c: the canned answer to req, sent at now).
local function keep_cookies(st, c, req, now)
  req.status = c.status
  local set = c.values["set-cookie"]
  if not set then return end
  -- for the host of the Host header the request sent, as volley.flow
  local host = cookies.request_host(req.headers, nil, lower(st.target.host))
  st.jar:store(set, host, req.path, st.target.scheme == "https", now)
end

-- opts.check run on c as volley.flow.check runs it: the reason it failed,
-- or nil.
local function checked(st, check, c)
  local ok, a, b = pcall(check, response(st, c, nil))
  if not ok then return http.reason_of(a) end
  if a == false then return b == nil and "check returned false" or tostring(b) end
end

-- The response to the script: failed requests counted (the user's, for
-- u:group; the result's, by reason).
local function answered(st, c, req, reason, url)
  st.clock = st.clock + c.latency / 1e3
  local r = response(st, c, url)
  rawget(r, 1).reason = reason
  if c.error then req.status = 0 end
  local why = c.error or reason
  if why then
    req.reason = why
    st.failures = st.failures + 1
    st.result.request_failures[why] = (st.result.request_failures[why] or 0) + 1
  end
  return r
end

-- The answer to a request that does not go (another origin): status 0,
-- its reason the request's.
local REFUSED = assert(canned({ status = 0 }))

-- One request of user st, answered and its redirects followed: as
-- volley.flow's send, with a canned answer in place of the network.
local function send(u, st, fn, method, path, opts, level)
  local body, ctype, name, refused
  method, path, body, ctype, name, refused = prepare(st, fn, method, path, opts, level + 1)
  if refused then
    local req = request(st, fn, method, path, opts, body, ctype, name, st.now(), level + 1)
    st.seq = st.seq + 1
    return answered(st, REFUSED, req, refused, path)
  end
  local hops = opts.redirects or 10
  while true do
    local now = st.now()
    local req = request(st, fn, method, path, opts, body, ctype, name, now, level + 1)
    st.seq = st.seq + 1
    local c = answer(st, req, level + 1)
    if c.error then return answered(st, c, req, nil, path) end
    keep_cookies(st, c, req, now)
    local location = c.values.location and c.values.location[1]
    -- A redirect that is followed is not checked; the final response is,
    -- whatever its status, as volley.flow.check.
    local next_method, next_path, drop = http.hop(c.status, location, hops, method, path, st.target)
    if not next_method then
      return answered(st, c, req, opts.check and checked(st, opts.check, c) or nil, path)
    end
    if drop then body, ctype = nil, nil end
    method, path = next_method, next_path
    hops = hops - 1
  end
end

-- The requests of list, all built (with the cookies as they were before
-- the batch) before any is answered, then answered in order; no
-- redirects followed, each checked: as volley.flow's batch.
local function batch(u, st, list, level)
  local n, item = http.batch_list(list, level + 1)
  if n == 0 then return {} end
  local now = st.now()
  local reqs, checks, refusals = {}, {}, {}
  for i = 1, n do
    local fn, path, opts = item(i)
    local method, body, ctype, name, refused
    method, path, body, ctype, name, refused = prepare(st, fn, "GET", path, opts, level + 1)
    reqs[i] = request(st, fn, method, path, opts, body, ctype, name, now, level + 1)
    checks[i], refusals[i] = opts.check, refused
  end
  st.seq = st.seq + 1
  local out = {}
  for i = 1, n do
    local c = refusals[i] and REFUSED or answer(st, reqs[i], level + 1)
    local reason = refusals[i]
    if not c.error and not reason then
      keep_cookies(st, c, reqs[i], now)
      reason = checks[i] and checked(st, checks[i], c)
    end
    out[i] = answered(st, c, reqs[i], reason or nil, reqs[i].path)
  end
  return out
end

http.methods(methods, state, send, batch)

-- u:sleep(t): records t in seconds (a number or a duration string).
function methods.sleep(u, t)
  local st = state(u, "u:sleep", 2, true)
  local sleeps = st.result.sleeps
  local secs = http.sleep_seconds(t, 2)
  sleeps[#sleeps + 1] = secs
  st.clock = st.clock + secs
end

-- u:sleep_between(a, b): records its draw (the user's generator), as u:sleep.
function methods.sleep_between(u, a, b)
  local st = state(u, "u:sleep_between", 2, true)
  local sleeps = st.result.sleeps
  local secs = wait.sleep_between(st, a, b, 2)
  sleeps[#sleeps + 1] = secs
  st.clock = st.clock + secs
end

-- u:check(cond, name) or u:check(value, { name = fn, ... }): http.check.
function methods.check(u, cond, name)
  local st = state(u, "u:check", 2)
  return (http.check(cond, name, function(n, pass)
    local c = st.result.checks[n] or { passed = 0, failed = 0 }
    st.result.checks[n] = c
    if pass then c.passed = c.passed + 1 else c.failed = c.failed + 1 end
  end, 2))
end

-- u:group(name, fn): counted as a group, failed when fn raises or one of
-- its requests fails; fn's results are returned.
function methods.group(u, name, fn)
  local st = state(u, "u:group", 2)
  if type(fn) ~= "function" then error("u:group: a function expected as the second argument", 2) end
  http.check_name(name, "group", "u:group", 2)
  local outer, failures = st.group, st.failures
  st.group = name
  local res = { pcall(fn) }
  st.group = outer
  local failed = not res[1] or st.failures > failures
  local g = st.result.groups[name] or { count = 0, failed = 0 }
  st.result.groups[name] = g
  g.count = g.count + 1
  if failed then g.failed = g.failed + 1 end
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

local user_mt = http.user_mt(methods, states)

-- {scheme, host, port} of a target URL, or nil.
local function target_of(url)
  local scheme, host, port = url:match("^(https?)://([^/:]+):?(%d*)/?$")
  if not scheme then
    scheme, host, port = url:match("^(https?)://%[([^%]]+)%]:?(%d*)/?$")
  end
  if not scheme then return nil end
  port = tonumber(port) or (scheme == "https" and 443 or 80)
  return { scheme = scheme, host = host, port = port }
end

-- The User-Agent a fake user sends unless spec.headers has one (volley
-- sends volley/VERSION).
testing.USER_AGENT = "volley/testing"

local USER_KEYS = { id = "number", thread = "number", data = "any", responses = "table", target = "string",
                    headers = "table", now = "function", seed = "number" }
local USER_NAMES = "id thread data responses target headers now seed"

-- testing.user(spec): a fake user. spec: responses ("METHOD /path" or
-- "METHOD /prefix*" -> a response table or function(req) returning one),
-- id (u.id, 1), thread (u.thread, 1), data (u.data; a function is
-- called with the iteration's number each iteration), target (the run's
-- URL, "http://127.0.0.1:8080"), headers (the command line's -H; Host is
-- the target's and User-Agent testing.USER_AGENT unless given), now (wall
-- seconds for the cookie jar, os.time), seed (the users' seed of its
-- generator, 0: volley's comes from --seed). A spec error is raised at
-- the caller's line.
function testing.user(spec)
  if type(spec) ~= "table" then error("testing.user: a table expected", 2) end
  for k, v in pairs(spec) do
    local want = USER_KEYS[k]
    if want == nil then
      error(("testing.user: unknown key %s (the keys are %s)"):format(tostring(k), USER_NAMES), 2)
    end
    if want ~= "any" and type(v) ~= want then
      error(("testing.user: %s is a %s (a %s expected)"):format(k, type(v), want), 2)
    end
  end
  local url = spec.target or "http://127.0.0.1:8080"
  local t = target_of(url)
  if not t then error(("testing.user: target %q is not an http(s)://host[:port] URL"):format(url), 2) end
  local headers, has_host, has_agent = {}, false, false
  for name, value in pairs(spec.headers or {}) do
    headers[name] = value
    has_host = has_host or lower(name) == "host"
    has_agent = has_agent or lower(name) == "user-agent"
  end
  -- volley's own is volley/VERSION; outside the binary the version is
  -- not known, and the header says where the request was made
  if not has_agent then headers["User-Agent"] = testing.USER_AGENT end
  if not has_host then
    -- as volley's: the port only when the URL names one
    local h = t.host:find(":", 1, true) and "[" .. t.host .. "]" or t.host
    headers.Host = url:match("^https?://[^/]*:%d+/?$") and (h .. ":" .. t.port) or h
  end
  local u = setmetatable({}, user_mt)
  local st = {
    id = spec.id or 1, thread = spec.thread or 1, iteration = 0, seq = 0, failures = 0, jar = cookies.new(),
    routes = compile_routes(spec.responses or {}), target = t, headers = headers, now = spec.now or os.time,
    spec_data = spec.data, clock = 0,
  }
  st.rng = user_rng.new(spec.seed or 0, st.id)
  st.cookies = cookies.proxy(st.jar, cookies.request_host(nil, headers, lower(t.host)), st.now)
  states[u] = st
  return u
end

-- What volley.runner asks of its host, for the fake user: the user's own
-- clock, a wait recorded (result.waits), a task or step counted as a
-- group of its name, an error's reason.
local host = {}

function host.sleep(u, st, secs)
  local waits = st.result.waits
  waits[#waits + 1] = secs
  st.clock = st.clock + secs
end

function host.task(u, st, name, fn)
  return methods.group(u, name, function() return fn(u) end)
end

function host.reason(e, st)
  return http.reason_of(http.explain(e, st))
end

-- Runs f(r, u, st, h) (a runner's method) in a coroutine as volley does
-- (so that a script's own yield is caught): f's results. Errors are
-- raised at level (as error's, from the caller): a test's own mistake
-- (a missing canned response), a yield of the script's.
local function in_coroutine(st, level, f, r, u, h)
  local co = coroutine.create(function() return f(r, u, st, h) end)
  st.co = co
  local done, a, b, c = resume_user(co) -- as volley resumes it: not counted as the script's
  st.co = nil
  if st.setup_error then error("testing.run: " .. st.setup_error.msg, level + 1) end
  if done and coroutine.status(co) ~= "dead" then
    error("testing.run: in user(): coroutine.yield() called by the script (a flow's user yields only"
      .. " through u's methods)", level + 1)
  end
  if not done then error("testing.run: " .. tostring(a), level + 1) end
  return a, b, c
end

-- testing.run(s, u, n): the user's life as volley runs it on one
-- connection: s.on_start(u) before its first iteration, n (1) iterations
-- (user(u), or one task chosen by weight from the user's generator, or
-- the whole sequence, each followed by the wait rule's time), then
-- s.on_stop(u), as when --iterations are spent. u, its jar and the
-- script's own fields of u carry over to a next testing.run, which runs
-- on_start again (a user that comes back). Returns a result: requests
-- (each request sent, redirect hops included: method, path, headers,
-- body, raw, name, group, status, reason when it failed), checks (name
-- -> {passed, failed}), groups (name -> {count, failed}: u:group's, and
-- each task, step, on_start and on_stop), sleeps (u:sleep's and
-- u:sleep_between's seconds, in order), waits (the wait rule's seconds,
-- in order), request_failures (reason -> count), iterations (how many
-- ran), failures (failed iterations by reason), failed
-- (any iteration failed) and reason (the first failed one's). A request
-- with no canned response, or a bad canned response, is raised from
-- here, with the script's line; so is a scenario that volley would refuse.
function testing.run(s, u, n)
  if type(s) ~= "table" then error("testing.run: a scenario table expected", 2) end
  local ok_compile, r = pcall(runner.compile, s)
  if not ok_compile then error("testing.run: " .. tostring(r), 2) end
  if not r then error("testing.run: the scenario has no flow (" .. runner.KINDS .. ")", 2) end
  local st = states[u]
  if not st then error("testing.run: u is not a testing.user", 2) end
  n = n or 1
  if type(n) ~= "number" or n < 1 or n % 1 ~= 0 then
    error(("testing.run: the number of iterations must be a whole number >= 1, not %s"):format(tostring(n)), 2)
  end
  local result = { requests = {}, checks = {}, groups = {}, sleeps = {}, waits = {}, request_failures = {},
                   iterations = 0, failures = {}, failed = false }
  st.result = result
  local h = setmetatable({ now = function() return st.clock end }, { __index = host })
  local function count(reason)
    result.failures[reason] = (result.failures[reason] or 0) + 1
  end
  for _ = 1, n do
    st.iteration = st.iteration + 1
    if type(st.spec_data) == "function" then st.data = st.spec_data(st.iteration) else st.data = st.spec_data end
    st.setup_error = nil
    local failed, reason, secs = false, nil, 0
    if not st.started then
      local ok, why = in_coroutine(st, 2, r.start, r, u, h)
      if not ok then failed, reason = true, why end
    end
    if not failed then failed, reason, secs = in_coroutine(st, 2, r.iteration, r, u, h) end
    result.iterations = result.iterations + 1
    if failed then
      count(reason)
      if not result.failed then result.failed, result.reason = true, reason end
    end
    if secs and secs > 0 then
      result.waits[#result.waits + 1] = secs
      st.clock = st.clock + secs
    end
  end
  in_coroutine(st, 2, r.stop, r, u, h) -- a failure is the on_stop group's
  st.result = nil
  return result
end

return testing
