-- User flows: a scenario's user(u), one iteration of a virtual user, run
-- as a coroutine per connection slot (src/script/script_flow.c resumes it). u's
-- request methods build the request, yield it to C and return the
-- response when C resumes them; u:sleep yields a wait. Between yields
-- nothing here runs, so a user idle in u:sleep costs its coroutine, its u
-- and its jar. The script's times are seconds (volley.flow_http); C's are
-- milliseconds. The contract with C is the yield: (REQUEST, bytes, name,
-- timeout_ms, flags, origin, tag set), (BATCH, n, then those six for
-- each request) (origin: 0 the target, else the worker's number of another
-- origin, whose scheme, host and port C asks for once: flow.origin; or,
-- for a request that may not go, the origin's authority, a string: C
-- counts it failed, unsent; tag set: its id, 0 none),
-- (SLEEP, ms), (BEGIN) (on_start is over: the iteration's clock starts
-- again) or (END, failed, did_io, wait_ms) (wait_ms: the wait rule's time
-- before the user's next iteration); C resumes with (how: 0 a step is
-- over, 1 an iteration begins, 2 the user leaves: on_stop) and, after a
-- batch, one light userdata per request: its response's struct
-- volley_res (the C closures take the same). What an iteration runs
-- (user(u), tasks, a sequence) is volley.runner's.
local ffi = require("ffi")
local api = require("volley.api")
local json = require("volley.json")
local cookies = require("volley.cookies")
local http = require("volley.flow_http")
local flow_tags = require("volley.flow_tags")
local user_rng = require("volley.user_rng")
local wait = require("volley.wait")
local wrk = require("wrk")

local flow = {}

local REQUEST, SLEEP, END, BATCH, BEGIN = 1, 2, 3, 4, 5
local STOP = 2 -- C's how when the user leaves
local yield, create = coroutine.yield, coroutine.create
local lower = string.lower

-- Set by flow.bind (a worker's state).
local runner, users_seed, fnames
local conn_base, thread_no = 0, 0
local use_name, count_fail -- the bridge's (request names, validation reasons)
local scenario_data         -- the scenario table's data (volley.data), or nil
local setup_value           -- setup()'s data, read-only (volley.setup_data), or nil: u.setup
local bridge_c              -- the bridge (its C closures)

-- Failed iterations by reason (moved into the run's figures at the end),
-- counted by the bridge's capped counter (flow.bind).
flow.iteration_failures = {}
local count_iteration_failure

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

local function response(st, reason, url, lud, res)
  return setmetatable({ st, st.seq, reason, url, nil, res or ffi.cast(res_ptr, lud), lud }, resp_mt)
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
  if c.error_ ~= 0 then return r[3] or KINDS[c.error_ - 1] end -- a stream function's own reason
  return r[3]
end
function resp_fields.latency(r, c) return c.latency_ / 1e3 end -- milliseconds
function resp_fields.connect(r, c) return c.connect_ / 1e3 end
function resp_fields.waiting(r, c) return c.waiting_ / 1e3 end
function resp_fields.bytes(r, c) return c.bytes_ end
function resp_fields.events(r, c) return c.events_ end
function resp_fields.url(r) return r[4] end

local lenbuf = ffi.new("size_t[1]")
local fields_table = http.fields_table

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

-- r:html(): the body parsed as HTML (volley.html), once per response. Its
-- C memory goes with the response: at the user's next request
-- (release_pages), not whenever the collector gets to it (it does not
-- see that memory: a page's tree is about 18 times its size).
function resp_methods.html(r)
  return cached(r, "html", function()
    local doc = require("volley.html").parse(r.body)
    local st = r[1]
    local pages = st.pages or {}
    pages[#pages + 1] = doc
    st.pages = pages
    return doc
  end)
end

-- Frees the pages of user st's responses (st.pages): they are no longer
-- valid once it sends its next request, as its responses are not.
local function release_pages(st)
  require("volley.html").release(st.pages)
  st.pages = nil
end

-- r:extract(left, right [, "all"]): http.extract on the body.
function resp_methods.extract(r, left, right, all)
  return (http.extract(r.body, left, right, all, 2))
end

local no_field = http.no_field

resp_mt = {
  __index = function(r, k)
    local m = resp_methods[k]
    if m then return m end
    local get = resp_fields[k]
    if get == nil then
      no_field(k, api.nearest, 2) -- not a tail call: level 2 is the script's line
      return nil
    end
    return get(r, res_of(r))
  end,
  __newindex = function(_, k)
    error(("a response is read-only (r.%s)"):format(tostring(k)), 2)
  end,
}

----------------------------------------------------------------------------
-- Requests.

local REDIRECTS = http.REDIRECTS

local function host_only()
  return lower(volley.target.host)
end

-- The response's Set-Cookie fields into the user's jar (host: the request's,
-- cookies.request_host).
local function keep_cookies(st, lud, host, path, secure, now)
  -- most responses set none: no table for them
  if not bridge_c.c_flow_values(lud, "set-cookie") then return end
  st.jar:store({ bridge_c.c_flow_values(lud, "set-cookie") }, host, path, secure, now)
end

-- The other origins this worker's users reached (http.origin's tables),
-- numbered from 1 in the order first reached: C's number of each (the
-- yield's origin) and its connections' (one per user, conn_flow.c). At
-- most MAX_ORIGINS (C's SCRIPT_FLOW_ORIGINS).
local origin_list = {}
local MAX_ORIGINS = 16

-- Origin o's number (0: the target), or nil and the reason its request
-- fails with: not allowed (--allow-host), or one origin too many.
local function origin_id(o, denied)
  if not o then return 0 end
  if denied then return nil, denied end
  local id = o.id
  if id then return id end
  if #origin_list == MAX_ORIGINS then
    return nil, ("%s: more than %d other hosts in one run"):format(o.key, MAX_ORIGINS)
  end
  id = #origin_list + 1
  origin_list[id] = o
  o.id = id
  return id
end

-- C asks for origin id's scheme ("http", "https"), host and port once.
function flow.origin(id)
  local o = origin_list[id]
  if not o then return nil end
  return o.scheme, o.host, o.port, o.authority
end

-- What a request of user st needs before it is built: its method and
-- path, its body and the body's type, its name's id + 1 (0: none), its
-- timeout in milliseconds (0: --timeout's), its tag set's id (0: none),
-- its origin (nil: the target) and the origin's number (nil when the
-- request may not go: then the reason it fails with).
local function prepare(fn, method, path, opts, level)
  local body, ctype, timeout, o, denied
  method, path, body, ctype, timeout, o, denied =
    http.prepare(fn, method, path, opts, volley.target, level + 1, api.nearest)
  local name, tagset = 0, 0
  if opts.name then name = use_name(opts.name, fn .. ": ", level + 1) end
  if opts.tags then tagset = flow_tags.set(opts.tags, fn, level + 1) end
  local id, why = origin_id(o, denied)
  return method, path, body, ctype, name, timeout, tagset, o, id or why
end

-- The host the cookies of a request to origin o (nil: the target) are
-- kept for and sent to (cookies.request_host).
local function cookie_host(st, opts, o)
  if o then return cookies.request_host(opts.headers, nil, o.host) end
  return cookies.request_host(opts.headers, wrk.headers, st.host)
end

-- The hop after the response of user st's request in flight (st.method,
-- st.path, st.hops): c, its struct volley_res (a cdata made once: casting
-- lud here would cost every request its compiled trace), lud the same as a
-- light userdata; as http.hop's; nil when it is the final response.
local function hop_of(st, c, lud)
  if c.error_ ~= 0 or REDIRECTS[c.status_] == nil then return nil end
  return http.hop(c.status_, (bridge_c.c_flow_values(lud, "location")), st.hops, st.method, st.path, volley.target,
    st.origin)
end

-- What C is told of a request besides its bytes (the yield's has_check):
-- 1 it has a check, 2 its response streams (opts.stream), 4 a function
-- takes each event (script_flow.c reads the bits).
local function flags_of(check, stream)
  local f = check ~= nil and 1 or 0
  if stream then f = f + (type(stream) == "function" and 6 or 2) end
  return f
end

-- One exchange of user st's request (to origin o, nil: the target; id:
-- its number, or the reason it may not go: then C fails it unsent, and
-- its reason is counted here): built, yielded to C, answered; its
-- cookies kept. Returns
-- the response and whether it ends the request (a failure, a failed
-- check, or no redirect to follow), else the next hop's method, path,
-- whether the body goes and its origin.
local function exchange(st, fn, method, path, opts, body, ctype, name, timeout, tagset, o, id, hops, level)
  local now = os.time()
  local host = cookie_host(st, opts, o)
  local secure = (o and o.scheme or volley.target.scheme) == "https"
  local cookie = st.jar:header(host, path, secure, now)
  local bytes = http.build(fn, method, path, opts.headers, wrk.headers, body, ctype, cookie, level + 1,
    o and o.authority)
  st.seq = st.seq + 1
  if st.pages then release_pages(st) end
  st.reason = nil
  st.method, st.path, st.hops, st.origin = method, path, hops, o
  if type(id) == "string" then
    count_fail(id, name)
    yield(REQUEST, bytes, name, timeout, 0, o.authority, tagset)
    return response(st, id, o.key .. path, st.lud, st.res)
  end
  yield(REQUEST, bytes, name, timeout, flags_of(st.check, st.stream), id, tagset)
  local r = response(st, st.reason, o and o.key .. path or path, st.lud, st.res)
  local c = st.res
  if c.error_ ~= 0 then return r end
  keep_cookies(st, st.lud, host, path, secure, now)
  if r[3] then return r end -- its check failed: a followed redirect is never checked
  return r, hop_of(st, c, st.lud)
end

-- Sends one request of user st and waits for it (redirects followed). The
-- first exchange is outside the loop of hops: most requests have none, and
-- a compiled trace of a request should not stop at a loop it never runs.
local function send(u, st, fn, method, path, opts, level)
  local body, ctype, name, timeout, tagset, o, id
  method, path, body, ctype, name, timeout, tagset, o, id = prepare(fn, method, path, opts, level + 1)
  st.io = true
  local hops = opts.redirects or 10
  st.check, st.stream = opts.check, opts.stream
  local r, next_method, next_path, drop, to =
    exchange(st, fn, method, path, opts, body, ctype, name, timeout, tagset, o, id, hops, level + 1)
  while next_method do
    if drop then body, ctype = nil, nil end
    method, path, hops, o = next_method, next_path, hops - 1, to
    id = origin_id(o)
    if not id then break end -- one origin too many: the redirect is the final response
    r, next_method, next_path, drop, to =
      exchange(st, fn, method, path, opts, body, ctype, name, timeout, tagset, o, id, hops, level + 1)
  end
  st.check, st.stream, st.origin = nil, nil, nil
  if st.res.error_ ~= 0 or r[3] then st.failures = st.failures + 1 end -- r.failed, without its __index
  return r
end

-- Sends the requests of list together and waits for all of them; their
-- responses in order. Redirects are not followed in a batch.
local function batch(u, st, list, level)
  local n, item = http.batch_list(list, level + 1)
  if n == 0 then return {} end
  local args, checks, paths, urls, hosts, streams, secures, refused = {}, {}, {}, {}, {}, {}, {}, {}
  local now = os.time()
  for i = 1, n do
    local fn, path, opts = item(i)
    local method, body, ctype, name, timeout, tagset, o, id
    method, path, body, ctype, name, timeout, tagset, o, id = prepare(fn, "GET", path, opts, level + 1)
    local host = cookie_host(st, opts, o)
    local secure = (o and o.scheme or volley.target.scheme) == "https"
    local cookie = st.jar:header(host, path, secure, now)
    local k = 6 * i - 5
    local flags = flags_of(opts.check, opts.stream)
    if type(id) == "string" then -- may not go: C fails it unsent (exchange's)
      count_fail(id, name)
      refused[i], flags, id = id, 0, o.authority
    end
    args[k], args[k + 1], args[k + 2], args[k + 3], args[k + 4], args[k + 5] =
      http.build(fn, method, path, opts.headers, wrk.headers, body, ctype, cookie, level + 1, o and o.authority),
      name, timeout, flags, id, tagset
    checks[i], paths[i], hosts[i], streams[i], secures[i] =
      not refused[i] and opts.check or nil, path, host, not refused[i] and opts.stream or false, secure
    urls[i] = o and o.key .. path or path
  end
  st.io = true
  st.seq = st.seq + 1
  if st.pages then release_pages(st) end
  st.batch_checks, st.batch_reasons, st.batch_streams = checks, refused, streams
  local got = { yield(BATCH, n, unpack(args, 1, 6 * n)) }
  local out = {}
  for i = 1, n do
    local r = response(st, st.batch_reasons[i], urls[i], got[i + 1])
    local c = r[6]
    if c.error_ == 0 then keep_cookies(st, got[i + 1], hosts[i], paths[i], secures[i], now) end
    if r.failed then st.failures = st.failures + 1 end
    out[i] = r
  end
  st.batch_checks, st.batch_reasons, st.batch_streams = nil, nil, nil
  return out
end

----------------------------------------------------------------------------
-- The user.

local methods = {}
local states, state = http.states()

http.methods(methods, state, send, batch)

-- u:sleep(t): t seconds (fractions allowed) or a duration string.
function methods.sleep(u, t)
  local st = state(u, "u:sleep", 2, true)
  local ms = http.sleep_seconds(t, 2) * 1e3
  st.io = true
  yield(SLEEP, ms)
end

-- u:sleep_between(a, b): a uniform wait in [a, b] (u:sleep's times),
-- drawn from the user's own generator.
function methods.sleep_between(u, a, b)
  local st = state(u, "u:sleep_between", 2, true)
  local ms = wait.sleep_between(st, a, b, 2) * 1e3
  st.io = true
  yield(SLEEP, ms)
end

local check_ids, group_ids = {}, {}

-- name's id (level: as error's, from the caller).
local function interned(ids, c_id, kind, name, fn, level)
  local id = ids[name]
  if id then return id end
  http.check_name(name, kind, fn, level + 1)
  id = c_id(fnames, name, #name)
  if id < 0 then
    error(("%s: more than %d %s names (name %q)"):format(fn, 1000, kind, name), level + 1)
  end
  ids[name] = id
  return id
end

-- http.check's count: level 4 is the script's line (count_check,
-- http.check, methods.check, the script).
local function count_check(name, pass)
  local id = interned(check_ids, api.c.flow_check_id, "check", name, "u:check", 4)
  api.c.flow_check(fnames.flow, id, pass and 1 or 0)
end

-- u:check(cond, name) or u:check(value, { name = fn, ... }): http.check.
function methods.check(u, cond, name)
  state(u, "u:check", 2)
  return (http.check(cond, name, count_check, 2))
end

-- u:group(name, fn): a transaction; fn's results are returned.
function methods.group(u, name, fn)
  local st = state(u, "u:group", 2)
  if type(fn) ~= "function" then error("u:group: a function expected as the second argument", 2) end
  local id = interned(group_ids, api.c.flow_group_id, "group", name, "u:group", 2)
  local t0, failures = api.c.now_ns(), st.failures
  local res = { pcall(fn) }
  local failed = not res[1] or st.failures > failures
  api.c.flow_group(fnames.flow, id, api.c.now_ns() - t0, failed and 1 or 0)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

-- What volley.runner asks of its host (its contract): the clock, a wait
-- inside an iteration, a task or step run as the group of its name (no
-- closure or result table per run, as u:group makes), an error's reason.
local host = {}

function host.now() return tonumber(api.c.now_ns()) * 1e-9 end

function host.sleep(u, st, secs)
  st.io = true
  yield(SLEEP, secs * 1e3)
end

function host.task(u, st, name, fn)
  local id = group_ids[name] or interned(group_ids, api.c.flow_group_id, "group", name, "a task", 1)
  local t0, failures = api.c.now_ns(), st.failures
  local ok, e = pcall(fn, u)
  api.c.flow_group(fnames.flow, id, api.c.now_ns() - t0, (not ok or st.failures > failures) and 1 or 0)
  if not ok then error(e, 0) end
end

function host.reason(e, st)
  return http.reason_of(http.explain(e, st, api.nearest))
end

local user_mt = http.user_mt(methods, states)

local function now_s() return os.time() end

local reason_of = http.reason_of

-- A new user on slot (its response: lud, a struct volley_res): its u,
-- state and coroutine (anchored here).
local coroutines, slot_states = {}, {}

function flow.new(slot, lud)
  local u = setmetatable({}, user_mt)
  local st = {
    id = conn_base + slot + 1, thread = thread_no, iteration = 0, seq = 0, failures = 0,
    res = ffi.cast(res_ptr, lud), lud = lud, jar = cookies.new(), setup = setup_value,
  }
  -- the host of the Host header sent (-H Host:), else the target's
  st.host = cookies.request_host(nil, wrk.headers, host_only())
  st.cookies = cookies.proxy(st.jar, st.host, now_s)
  states[u] = st
  st.rng = user_rng.new(users_seed, st.id)
  local co = create(function(how)
    while true do
      if how == STOP then
        -- the user leaves (C resumes it so only after one of its
        -- iterations); on_stop's failure is its group's (no iteration's)
        runner:stop(u, st, host)
        how = yield(END, false, true, 0)
      else
        st.iteration = st.iteration + 1
        if scenario_data then st.data = scenario_data:take(st.id) end
        st.io = false
        local failed, reason, secs = false, nil, 0
        if not st.started then
          local ok, why = runner:start(u, st, host)
          if ok then
            if runner.on_start then yield(BEGIN) end
          else
            failed, reason = true, why
          end
        end
        if not failed then failed, reason, secs = runner:iteration(u, st, host) end
        if failed then count_iteration_failure(reason) end
        how = yield(END, failed, st.io, secs * 1e3)
      end
    end
  end)
  st.co = co
  coroutines[slot + 1], slot_states[slot + 1] = co, st
  return co
end

-- The check of a request just answered on slot (item: its place in a
-- batch, 0-based, or -1; lud: its response), called by C before the
-- request is counted: true when it failed. A redirect that send will
-- follow is not checked; the final response is, whatever its status (a
-- 3xx to another origin, or past opts.redirects, too).
function flow.check(slot, item, lud)
  local st = slot_states[slot + 1]
  local fn = st and (item < 0 and st.check or st.batch_checks and st.batch_checks[item + 1])
  if not fn then return false end
  local c = ffi.cast(res_ptr, lud)
  if item < 0 and hop_of(st, c, lud) then return false end
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

-- An event of the streamed response of a request of slot (item: its place
-- in a batch, or -1), ev (the bridge's struct volley_event): its function
-- (opts.stream) called; 0 to go on, 1 to end the stream ("close"), 2 when
-- it failed the request (false and a reason, or an error: the reason
-- counted, as a check's, and the response says it).
function flow.event(slot, item, ev)
  local st = slot_states[slot + 1]
  local fn = st and (item < 0 and st.stream or st.batch_streams and st.batch_streams[item + 1])
  if type(fn) ~= "function" then return 0 end
  local ok, a, b = pcall(fn, ev)
  local reason
  if not ok then
    reason = reason_of(a)
  elseif a == "close" then
    return 1
  elseif a == false then
    reason = b == nil and "stream function returned false" or tostring(b)
  else
    return 0
  end
  count_fail(reason, ev.name_)
  if item < 0 then st.reason = reason else st.batch_reasons[item + 1] = reason end
  return 2
end

-- A worker's state binds the flow: the scenario's runner (volley.runner),
-- the users' seed (their generators'), where checks and groups go, the
-- bridge's own pieces, and setup()'s data (u.setup).
function flow.bind(r, seed, fnames_ptr, base, thread, bridge, name_fn, fail_fn, iteration_fn, data, setup)
  runner, users_seed = r, seed
  fnames = ffi.cast("struct volley_flow_names *", fnames_ptr)
  conn_base, thread_no = base, thread
  bridge_c, use_name, count_fail = bridge, name_fn, fail_fn
  flow_tags.bind(bridge)
  count_iteration_failure = iteration_fn
  scenario_data = data
  setup_value = setup
end

return flow
