-- User flows: a scenario's user(u), one iteration of a virtual user, run
-- as a coroutine per connection slot (src/script_flow.c resumes it). u's
-- request methods build the request, yield it to C and return the
-- response when C resumes them; u:sleep yields a wait. Between yields
-- nothing here runs, so a user idle in u:sleep costs its coroutine, its u
-- and its jar. The contract with C is the yield: (REQUEST, bytes, name,
-- timeout_ms, has_check), (BATCH, n, then those four for each request),
-- (SLEEP, ms) or (END, failed, did_io); C resumes with (start) and, after
-- a batch, one light userdata per request: its response's struct
-- volley_res (the C closures take the same).
local ffi = require("ffi")
local api = require("volley.api")
local json = require("volley.json")
local cookies = require("volley.cookies")
local wrk = require("wrk")

local flow = {}

local REQUEST, SLEEP, END, BATCH = 1, 2, 3, 4
local yield, create = coroutine.yield, coroutine.create
local find, sub, lower, concat = string.find, string.sub, string.lower, table.concat

-- Set by flow.bind (a worker's state).
local user_fn, fnames
local conn_base, thread_no = 0, 0
local use_name, count_fail -- the bridge's (request names, validation reasons)
local scenario_data         -- the scenario table's data (volley.data), or nil
local bridge_c              -- the bridge (its C closures)

-- Failed iterations by reason (moved into the run's figures at the end).
local MAX_REASONS = 1000
local OTHER_REASONS = "(reasons beyond a thread's first 1000)"
flow.iteration_failures = {}
local nreasons = 0

local function count_iteration_failure(reason)
  local f = flow.iteration_failures
  if f[reason] then
    f[reason] = f[reason] + 1
  elseif nreasons < MAX_REASONS then
    f[reason] = 1
    nreasons = nreasons + 1
  else
    f[OTHER_REASONS] = (f[OTHER_REASONS] or 0) + 1
  end
end

-- The failure kinds of C's enum stats_error, as res.error - 1 indexes them.
local KINDS = { [0] = "connect", "read", "write", "timeout", "parse", "validation", "tls", "protocol", "ports" }

----------------------------------------------------------------------------
-- Responses: a small table per response, { state, seq, reason, url,
-- cache, res (struct volley_res *), res as a light userdata }; every field
-- is read through __index, which checks that the response is still one of
-- the user's latest (the slot's C struct and capture buffer, and a batch's
-- copies, are reused by its next request).

local resp_fields, resp_methods = {}, {}
local resp_mt
local res_ptr = ffi.typeof("struct volley_res *")

local function response(st, reason, url, lud)
  return setmetatable({ st, st.seq, reason, url, nil, ffi.cast(res_ptr, lud), lud }, resp_mt)
end

local function res_of(r)
  if r[1].seq ~= r[2] then
    error("a response was read after its user sent the next request: it is valid until then"
      .. " (keep what you need, e.g. local body = r.body)", 3)
  end
  return r[6]
end

function resp_fields.status(r, c) return c.error_ ~= 0 and 0 or c.status_ end
function resp_fields.failed(r, c) return c.error_ ~= 0 or r[3] ~= nil end
function resp_fields.reason(r, c)
  if c.error_ ~= 0 then return KINDS[c.error_ - 1] end
  return r[3]
end
function resp_fields.latency(r, c) return c.latency_ / 1e3 end -- milliseconds
function resp_fields.connect(r, c) return c.connect_ / 1e3 end
function resp_fields.waiting(r, c) return c.waiting_ / 1e3 end
function resp_fields.bytes(r, c) return c.bytes_ end
function resp_fields.url(r) return r[4] end

local lenbuf = ffi.new("size_t[1]")

local function fields_table(h)
  local lc = {}
  for name, value in pairs(h) do lc[lower(name)] = value end
  return setmetatable(h, { __index = function(_, k)
    if type(k) == "string" then return lc[lower(k)] end
  end })
end

-- Headers, body and trailers are made once per response, on first read.
local function cached(r, key, make)
  local cache = r[5]
  if not cache then
    cache = {}
    rawset(r, 5, cache)
  end
  local v = cache[key]
  if v == nil then
    v = make()
    cache[key] = v
  end
  return v
end

function resp_fields.headers(r, c)
  if c.error_ ~= 0 or c.raw == nil then return fields_table({}) end
  return cached(r, "headers", function() return fields_table(bridge_c.c_flow_headers(r[7])) end)
end

function resp_fields.body(r, c)
  if c.error_ ~= 0 or c.raw == nil then return "" end
  return cached(r, "body", function()
    local p = api.c.res_body(c, lenbuf)
    return ffi.string(p, lenbuf[0])
  end)
end

function resp_fields.trailers(r, c)
  if c.error_ ~= 0 or c.raw == nil then return fields_table({}) end
  return cached(r, "trailers", function() return fields_table(bridge_c.c_flow_trailers(r[7])) end)
end

-- r:json(): the body decoded (volley.json); an error when it is not JSON.
function resp_methods.json(r)
  local body = r.body
  local v, err = json.decode(body)
  if v == nil and err then error("r:json(): the body is not JSON: " .. err, 2) end
  return v
end

resp_mt = {
  __index = function(r, k)
    local m = resp_methods[k]
    if m then return m end
    local get = resp_fields[k]
    if get == nil then return nil end
    return get(r, res_of(r))
  end,
  __newindex = function(_, k)
    error(("a response is read-only (r.%s)"):format(tostring(k)), 2)
  end,
}

----------------------------------------------------------------------------
-- Requests.

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
local function form_body(t)
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

local buf = {}
local version = " HTTP/1.1\r\n"

-- The request bytes: the command line's headers (wrk.headers: Host, -H)
-- unless opts.headers names them (in any case), then opts.headers, the
-- user's cookies, the body's type and length.
local function build(fn, method, path, headers, body, ctype, cookie, level)
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
  for name, value in pairs(wrk.headers) do
    if not (given and given[lower(name)]) and lower(name) ~= "content-length" then
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
local OPT_NAMES = "method path headers body json form name timeout redirects check"

local function check_opts(fn, opts, level)
  for k, v in pairs(opts) do
    local want = OPTS[k]
    if want == nil then
      local near = type(k) == "string" and api.nearest(k, OPT_NAMES)
      error(("%s: unknown option %s (%s)"):format(fn, type(k) == "string" and '"' .. k .. '"' or tostring(k),
        near and ('did you mean "' .. near .. '"?') or "the options are " .. OPT_NAMES), level + 1)
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

-- The path of a URL of the run's target (same scheme, host and port), or
-- nil for another origin; a path as it is.
local function own_path(url)
  if sub(url, 1, 1) == "/" then return url end
  local t = volley.target
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

-- Where a redirect's Location points, as a path of the target, or nil.
local function redirect_path(location, from)
  local p = own_path(location)
  if p then return p end
  if find(location, "://", 1, true) or sub(location, 1, 2) == "//" then return nil end
  -- relative: against the directory of the path it came from
  local dir = from:match("^([^?#]*/)") or "/"
  return dir .. location
end

-- Statuses that are followed, and whether the method becomes GET (as
-- browsers and k6 do: 303 always; 301 and 302 for a POST).
local REDIRECTS = { [301] = "post", [302] = "post", [303] = "all", [307] = false, [308] = false }

local function host_only()
  return lower(volley.target.host)
end

-- The response's Set-Cookie fields into the user's jar.
local function keep_cookies(st, lud, path, secure, now)
  local set = { bridge_c.c_flow_values(lud, "set-cookie") }
  if set[1] then st.jar:store(set, host_only(), path, secure, now) end
end

-- What a request of user st needs before it is built: its method and
-- path (checked: the target's), its body and the body's type, its name's
-- id + 1 (0: none).
local function prepare(fn, method, path, opts, level)
  check_opts(fn, opts, level + 1)
  method = opts.method or method
  path = opts.path or path
  if type(method) ~= "string" or type(path) ~= "string" then
    error(fn .. ": a method and a path (strings) are needed", level + 1)
  end
  local p = own_path(path)
  if not p then
    error(("%s: %q is not on the run's target (a flow's users talk to the target only)"):format(fn, path),
      level + 1)
  end
  local body, ctype = opts.body, nil
  if opts.json ~= nil then
    body, ctype = json.encode(opts.json), "application/json"
  elseif opts.form then
    body, ctype = form_body(opts.form), "application/x-www-form-urlencoded"
  end
  local name = 0
  if opts.name then name = use_name(opts.name, fn .. ": ", level + 1) end
  return method, p, body, ctype, name
end

-- Sends one request of user st and waits for it (redirects followed).
local function send(u, st, fn, method, path, opts, level)
  local body, ctype, name
  method, path, body, ctype, name = prepare(fn, method, path, opts, level + 1)
  local hops = opts.redirects or 10
  local secure = volley.target.scheme == "https"
  st.check = opts.check
  st.io = true
  local r
  while true do
    local now = os.time()
    local cookie = st.jar:header(host_only(), path, secure, now)
    local bytes = build(fn, method, path, opts.headers, body, ctype, cookie, level + 1)
    st.seq = st.seq + 1
    st.reason = nil
    yield(REQUEST, bytes, name, opts.timeout or 0, st.check ~= nil)
    r = response(st, st.reason, path, st.lud)
    local c = st.res
    if c.error_ ~= 0 then break end
    keep_cookies(st, st.lud, path, secure, now)
    local how = REDIRECTS[c.status_]
    if how == nil or hops <= 0 or r[3] then break end
    local location = bridge_c.c_flow_values(st.lud, "location")
    local next_path = location and redirect_path(location, path)
    if not next_path then break end
    if how == "all" or (how == "post" and method == "POST") then
      method, body, ctype = method == "HEAD" and "HEAD" or "GET", nil, nil
    end
    path = next_path
    hops = hops - 1
  end
  st.check = nil
  if r.failed then st.failures = st.failures + 1 end
  return r
end

-- Sends the requests of list together and waits for all of them; their
-- responses in order. Redirects are not followed in a batch.
local MAX_BATCH = 1000

local function batch(u, st, list, level)
  if type(list) ~= "table" then error("u:batch: a list of requests expected", level + 1) end
  local n = #list
  if n == 0 then return {} end
  if n > MAX_BATCH then
    error(("u:batch: %d requests (at most %d in one batch)"):format(n, MAX_BATCH), level + 1)
  end
  local args, checks, paths = {}, {}, {}
  local secure = volley.target.scheme == "https"
  local now = os.time()
  for i = 1, n do
    local q, method, path, opts = list[i], "GET", nil, nil
    if type(q) == "string" then
      path, opts = q, {}
    elseif type(q) == "table" then
      path, opts = q.path, q
    else
      error(("u:batch: request %d is a %s (a path or a table of options expected)"):format(i, type(q)), level + 1)
    end
    local fn = ("u:batch: request %d"):format(i)
    local body, ctype, name
    method, path, body, ctype, name = prepare(fn, method, path, opts, level + 1)
    local cookie = st.jar:header(host_only(), path, secure, now)
    local k = 4 * i - 3
    args[k], args[k + 1], args[k + 2], args[k + 3] =
      build(fn, method, path, opts.headers, body, ctype, cookie, level + 1), name, opts.timeout or 0, opts.check ~= nil
    checks[i], paths[i] = opts.check, path
  end
  st.io = true
  st.seq = st.seq + 1
  st.batch_checks, st.batch_reasons = checks, {}
  local got = { yield(BATCH, n, unpack(args, 1, 4 * n)) }
  local out = {}
  for i = 1, n do
    local r = response(st, st.batch_reasons[i], paths[i], got[i + 1])
    local c = r[6]
    if c.error_ == 0 then keep_cookies(st, got[i + 1], paths[i], secure, now) end
    if r.failed then st.failures = st.failures + 1 end
    out[i] = r
  end
  st.batch_checks, st.batch_reasons = nil, nil
  return out
end

----------------------------------------------------------------------------
-- The user.

-- u's fields the script reads but may not set.
local READ_ONLY = { id = true, thread = true, iteration = true, data = true, cookies = true }

local methods = {}
local states = setmetatable({}, { __mode = "k" }) -- u -> its state

local function state(u, fn)
  local st = states[u]
  if not st then error(fn .. ": call it as a method (u:" .. fn:match("[%w_]+$") .. "(...))", 3) end
  return st
end

for _, m in ipairs({ "get", "head", "delete", "post", "put", "patch" }) do
  local method, fn = m:upper(), "u:" .. m
  methods[m] = function(u, path, opts)
    return (send(u, state(u, fn), fn, method, path, opts or {}, 2)) -- not a tail call: errors name the caller's line
  end
end

function methods.request(u, opts)
  if type(opts) ~= "table" then error("u:request: a table of options expected", 2) end
  return (send(u, state(u, "u:request"), "u:request", opts.method or "GET", opts.path, opts, 2))
end

-- u:batch{ req, ... }: each a path (GET) or a table of u:request's options.
function methods.batch(u, list)
  return (batch(u, state(u, "u:batch"), list, 2))
end

function methods.sleep(u, ms)
  local st = state(u, "u:sleep")
  if type(ms) ~= "number" or not (ms >= 0) or ms == math.huge then
    error(("u:sleep: milliseconds >= 0 expected, not %s"):format(tostring(ms)), 2)
  end
  st.io = true
  yield(SLEEP, ms)
end

local check_ids, group_ids = {}, {}

local function interned(ids, c_id, kind, name, fn)
  local id = ids[name]
  if id then return id end
  if type(name) ~= "string" or name == "" then
    error(("%s: a %s name must be a non-empty string, not %s"):format(fn, kind,
      type(name) == "string" and "an empty one" or "a " .. type(name)), 3)
  end
  id = c_id(fnames, name, #name)
  if id < 0 then
    error(("%s: more than %d %s names (name %q)"):format(fn, 1000, kind, name), 3)
  end
  ids[name] = id
  return id
end

-- u:check(cond, name): counts a pass or a fail of name; returns cond.
function methods.check(u, cond, name)
  state(u, "u:check")
  local id = interned(check_ids, api.c.flow_check_id, "check", name, "u:check")
  api.c.flow_check(fnames.flow, id, cond and 1 or 0)
  return cond
end

-- Raised by u:fail: ends the iteration with its reason.
local FAIL = {}

function methods.fail(u, reason)
  state(u, "u:fail")
  error(setmetatable({ reason = reason == nil and "u:fail()" or tostring(reason) }, FAIL), 0)
end

-- u:group(name, fn): a transaction; fn's results are returned.
function methods.group(u, name, fn)
  local st = state(u, "u:group")
  if type(fn) ~= "function" then error("u:group: a function expected as the second argument", 2) end
  local id = interned(group_ids, api.c.flow_group_id, "group", name, "u:group")
  local t0, failures = api.c.now_ns(), st.failures
  local res = { pcall(fn) }
  local failed = not res[1] or st.failures > failures
  api.c.flow_group(fnames.flow, id, api.c.now_ns() - t0, failed and 1 or 0)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

local user_mt = {
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

local function now_s() return os.time() end

-- The reason of an iteration that ended in an error: u:fail's, or the
-- error's message (file:line: message) without a traceback.
local function reason_of(e)
  if getmetatable(e) == FAIL then return e.reason end
  if type(e) == "string" then return e end
  return ("(error object is a %s value)"):format(type(e))
end

-- A new user on slot (its response: lud, a struct volley_res): its u,
-- state and coroutine (anchored here).
local coroutines, slot_states = {}, {}

function flow.new(slot, lud)
  local u = setmetatable({}, user_mt)
  local st = {
    id = conn_base + slot + 1, thread = thread_no, iteration = 0, seq = 0, failures = 0,
    res = ffi.cast(res_ptr, lud), lud = lud, jar = cookies.new(),
  }
  st.cookies = cookies.proxy(st.jar, host_only(), now_s)
  states[u] = st
  local co = create(function()
    while true do
      st.iteration = st.iteration + 1
      if scenario_data then st.data = scenario_data:take(st.id) end
      st.io = false
      local ok, e = pcall(user_fn, u)
      if not ok then count_iteration_failure(reason_of(e)) end
      yield(END, not ok, st.io)
    end
  end)
  coroutines[slot + 1], slot_states[slot + 1] = co, st
  return co
end

-- The check of a request just answered on slot (item: its place in a
-- batch, 0-based, or -1; lud: its response), called by C before the
-- request is counted: true when it failed. A redirect that will be
-- followed is not checked (the final response is).
function flow.check(slot, item, lud)
  local st = slot_states[slot + 1]
  local fn = st and (item < 0 and st.check or st.batch_checks and st.batch_checks[item + 1])
  if not fn then return false end
  local c = ffi.cast(res_ptr, lud)
  if item < 0 and c.error_ == 0 and REDIRECTS[c.status_] ~= nil and bridge_c.c_flow_values(lud, "location") then
    return false
  end
  local r = response(st, nil, nil, lud)
  local ok, a, b = pcall(fn, r)
  local reason
  if not ok then
    reason = reason_of(a)
  elseif a == false then
    reason = b == nil and "check returned false" or tostring(b)
  else
    return false
  end
  count_fail(reason, c.name_)
  if item < 0 then st.reason = reason else st.batch_reasons[item + 1] = reason end
  return true
end

-- A worker's state binds the flow: the scenario's user(), where checks
-- and groups go, and the bridge's own pieces.
function flow.bind(user, fnames_ptr, base, thread, bridge, name_fn, fail_fn, data)
  user_fn = user
  fnames = ffi.cast("struct volley_flow_names *", fnames_ptr)
  conn_base, thread_no = base, thread
  bridge_c, use_name, count_fail = bridge, name_fn, fail_fn
  scenario_data = data
end

return flow
