-- Lua side of the C bridge (src/script*.c). C calls only the functions of
-- this module, each through one protected call: it turns what hooks return
-- into what C needs (request bytes, a verdict), keeps the conn tables and
-- the validation failures by reason, and builds the global `volley` table.
-- Nothing here runs per request unless a hook does.
local ffi = require("ffi")
local api = require("volley.api")
local wrk = require("wrk")

-- volley.flow (with json, cookies and flow_http) and volley.data are
-- required when first used (bridge.flow_bind, volley.data), not here: a
-- state that runs neither keeps them out of its heap, which the collector
-- walks through again for every request's garbage (loaded eagerly, they
-- doubled a request() hook's live heap, 118 -> 220 KB, and made the hook
-- about 0.5 us a request slower: docs/performance.md, Hooks).
local flow -- require("volley.flow"), set by bridge.flow_bind

local bridge = {
  phase = "load",  -- what API misuse messages name: options, setup, init, run, done
  failures = {},   -- validation failures: reason -> count
  name_failures = {}, -- the same per request name: name id -> {reason -> count}
  conns = {},      -- scenario: connection slot + 1 -> conn table
}

-- Distinct reasons kept per thread; further ones are counted together.
local MAX_REASONS = 1000
local OTHER_REASONS = "(reasons beyond a thread's first 1000)"

-- A counter of reasons into t (reason -> count): a thread keeps at most
-- MAX_REASONS distinct ones, the rest counted together. The counter
-- returns the reason it counted under.
local function reason_counter(t)
  local n = 0
  return function(reason)
    local c = t[reason]
    if c then
      t[reason] = c + 1
    elseif n < MAX_REASONS then
      t[reason] = 1
      n = n + 1
    else
      reason = OTHER_REASONS
      t[reason] = (t[reason] or 0) + 1
    end
    return reason
  end
end

-- Set by bridge.bind in a worker's state; nil in the main state.
local metrics, res, event, conn_done, conn_base, thread_no, names, names_max
local lenbuf = ffi.new("size_t[1]")

----------------------------------------------------------------------------
-- The volley table.

-- A flow's wait rules (volley.wait), required at their first use.
local WAIT_RULES = { between = true, pacing = true, throughput = true }

local volley = setmetatable({ target = {}, shard = { index = 0, count = 1 } }, {
  __index = function(t, k) -- volley.data, volley.file, volley.multipart and the wait rules, made at their first use
    if k == "data" then
      local data = require("volley.data")
      rawset(t, "data", data)
      return data
    elseif k == "file" then
      local file = bridge.file_function()
      rawset(t, "file", file)
      return file
    elseif k == "multipart" then
      -- volley.multipart(fields): a body and its Content-Type, for the
      -- per-connection style (wrk.body, request tables)
      local multipart = require("volley.multipart")
      local function body_of(fields)
        if type(fields) ~= "table" then
          error(("volley.multipart: a table of fields expected, not a %s"):format(type(fields)), 2)
        end
        local body, ctype = multipart.body("volley.multipart", fields, 2)
        return body, ctype -- not a tail call: level 2 is the script's line
      end
      rawset(t, "multipart", body_of)
      return body_of
    end
    if WAIT_RULES[k] then
      local f = require("volley.wait")[k]
      rawset(t, k, f)
      return f
    end
  end,
})

-- volley.file(path [, content_type [, filename]]): a file to upload
-- (volley.multipart). C reads it once per process, whatever number of
-- states ask (data.c's registry, as a bytes file); each state makes its
-- Lua string at the file's first upload.
function bridge.file_function()
  local multipart = require("volley.multipart")
  local errbuf = ffi.new("char[512]")
  local function reader(path)
    local h = api.c.data_open(path, 2, 0, errbuf, ffi.sizeof(errbuf)) -- 2: DATA_BYTES (data.h)
    if h == nil then return nil, ffi.string(errbuf) end
    return function()
      local p = api.c.data_cell(h, 0, 0, lenbuf)
      return ffi.string(p, lenbuf[0])
    end
  end
  return function(path, ctype, filename)
    local f = multipart.file("volley.file", path, ctype, filename, reader, 2)
    return f -- not a tail call: level 2 is the script's line
  end
end

function volley.format(method, path, headers, body)
  if type(method) == "table" then
    return (wrk._format_table(2, method, "volley.format: the table's %s", "volley.format: "))
  end
  return (wrk._format(2, method, path, headers, body))
end

function volley.now()
  return tonumber(api.c.now_ns()) / 1e3
end

-- Metric name -> index in the worker's C set, per kind.
local metric_ids = { [0] = {}, [1] = {} }
local KIND_NAMES = { [0] = "volley.counter", [1] = "volley.record" }

-- Raises fn's error when called outside a worker's bound state (level:
-- as error's, from the caller of this function's caller).
local function in_worker(fn, level)
  if metrics then return end
  local where = bridge.phase == "load" and "while the script loads"
    or ("in %s() (the main state)"):format(bridge.phase)
  error(("%s: not available %s; use it in init(), connect(), request(), delay() or response()")
    :format(fn, where), level > 0 and level + 1 or 0)
end

local function metric_id(name, kind)
  local id = metric_ids[kind][name]
  if id then return id end
  local fn = KIND_NAMES[kind]
  in_worker(fn, 3)
  if type(name) ~= "string" or name == "" then
    error(("%s: the name must be a non-empty string, not %s"):format(fn,
      type(name) == "string" and "an empty one" or "a " .. type(name)), 3)
  end
  id = api.c.metric_id(metrics, name, kind)
  if id < 0 then
    error(("%s: %q is already a %s"):format(fn, name, kind == 0 and "record" or "counter"), 3)
  end
  metric_ids[kind][name] = id
  return id
end

function volley.counter(name, n)
  if n == nil then n = 1 end
  if type(n) ~= "number" or n ~= n then
    error(("volley.counter: %q: the amount must be a number, not %s"):format(tostring(name), type(n)), 2)
  end
  local id = metric_id(name, 0)
  api.c.metric_add(metrics, id, n)
end

function volley.record(name, value)
  if type(value) ~= "number" or not (value >= 0) or value == math.huge then
    error(("volley.record: %q: the value must be a finite number >= 0, not %s"):format(tostring(name),
      type(value) == "number" and tostring(value) or "a " .. type(value)), 2)
  end
  local id = metric_id(name, 1)
  api.c.metric_record(metrics, id, value)
end

-- Request names (volley.name, a request table's name, wrk.format's table
-- form): name -> id in the run's names, interned in C at a name's first
-- use in this state. The next request takes names.next (id + 1).
local name_ids = {}

-- Makes name the next request's name (nil: none). Errors are raised with
-- prefix ("volley.name: ", "wrk.format: " or ""), at level (as error's,
-- from use_name's caller; 0: no position). A name seen before costs a
-- table lookup and a store.
local function use_name(name, prefix, level)
  local id = name_ids[name]
  if id then
    names.next = id + 1
    return
  end
  local lvl = level > 0 and level + 1 or 0
  in_worker(prefix == "volley.name: " and "volley.name" or prefix .. "name", lvl)
  if name == nil then
    names.next = 0
    return
  end
  if type(name) ~= "string" or name == "" then
    error(("%sa request name must be a non-empty string, not %s"):format(prefix,
      type(name) == "string" and "an empty one" or "a " .. type(name)), lvl)
  end
  if name:find("\0", 1, true) then
    error(prefix .. "a request name cannot hold a NUL byte", lvl)
  end
  id = api.c.name_id(names, name, #name)
  if id < 0 then
    local shown = #name > 60 and name:sub(1, 57) .. "..." or name
    error(("%smore than %d request names (name %q): group dynamic paths under one name")
      :format(prefix, names_max, shown), lvl)
  end
  name_ids[name] = id
  names.next = id + 1
end

-- Names the next request of this thread (the one request() returns, or
-- the default request when the script has no request()); nil: unnamed.
function volley.name(name)
  use_name(name, "volley.name: ", 2)
end

-- The table form of wrk.format names its request the same way (level: as
-- wrk.format's, from this function's caller).
function wrk._name(name, prefix, level)
  use_name(name, prefix, level > 0 and level + 1 or 0)
end

----------------------------------------------------------------------------
-- Set-up, called by C.

-- Every state: the C function table, and the volley global.
function bridge.start(api_ptr)
  api.set(api_ptr)
  _G.volley = volley
end

-- The target of the run (also called again when options() changed it).
-- volley.target, and volley.shard: which shard of the run this process
-- is (--shard INDEX/COUNT; 0 of 1 without it), so that a script can
-- take its part of a data set.
-- allow: --allow-host's hosts, "host port\n" each (port 0: any), or nil;
-- volley.target.allow gets them as { host, port } pairs (nil: none).
function bridge.set_target(scheme, host, port, path, shard, shards, allow)
  local t = volley.target
  t.scheme, t.host, t.port, t.path = scheme, host, port, path
  volley.shard.index, volley.shard.count = shard, shards
  local list
  for h, p in (allow or ""):gmatch("(%S+) (%d+)\n") do
    list = list or {}
    list[#list + 1] = { h, tonumber(p) }
  end
  t.allow = list
end

-- A worker's state, after its chunk and before init(): the default Host
-- header from wrk.host and wrk.port, as wrk makes it (wrk._set_host), and
-- volley's User-Agent unless the headers have one (kept here, so that a
-- script that changes the wrk table still gets them).
function bridge.set_defaults()
  wrk._set_host()
  wrk._set_user_agent_header()
end

function bridge.set_phase(phase)
  bridge.phase = phase
end

local conn_mt = {
  __index = function(conn, k)
    if k == "requests" then
      return conn_done[rawget(conn, "id") - conn_base - 1]
    end
  end,
}

-- A worker's state: its thread number (1-based), its connections'
-- completion counts, the struct its response() hook reads, its metrics,
-- its request names (struct script_names) and how many a run may have.
function bridge.bind(thread, base, done_ptr, res_ptr, metrics_ptr, names_ptr, max_names, event_ptr)
  thread_no, conn_base = thread, base
  conn_done = ffi.cast("uint32_t *", done_ptr)
  res = ffi.cast("struct volley_res *", res_ptr)
  event = ffi.cast("struct volley_event *", event_ptr)
  -- A cdata pointer, not the light userdata C gives: the JIT cannot pass a
  -- light userdata to a void * (NYI), and every trace through
  -- volley.counter or volley.record would abort.
  metrics = ffi.cast("void *", metrics_ptr)
  names = ffi.cast("struct volley_names *", names_ptr)
  names_max = max_names
  volley.thread = thread
end

-- done(result).samples: n, and [i] (0-based) -> a struct volley_sample
-- (start, connect, total, waiting, body, status, keepalive), valid during
-- done(). Empty unless the run kept samples (options() samples = true).
-- With heads = true, samples.head(i) is response i's first read.
function bridge.samples(ptr, n, heads)
  local p = ffi.cast("struct volley_sample *", ptr)
  local h = ffi.cast("const char *", heads)
  local function head(i)
    local s = p[i]
    if h == nil or s.head_len == 0 then return nil end
    return ffi.string(h + s.head_off, s.head_len)
  end
  return setmetatable({ n = n, ptr = p, head = head }, {
    __index = function(_, i)
      if type(i) == "number" and i >= 0 and i < n then return p[i] end
    end,
    __len = function() return n end,
  })
end

----------------------------------------------------------------------------
-- Hooks, called by C.

-- A new connection on slot (0-based): a new conn table; connect(conn).
function bridge.conn_open(slot, connect)
  local conn = setmetatable({ id = conn_base + slot + 1, thread = thread_no }, conn_mt)
  bridge.conns[slot + 1] = conn
  if connect then connect(conn) end
end

-- The fields a request table may have, and their types. An unknown key is
-- an error (a misspelt field would otherwise be dropped without a word).
local FIELD_TYPES = { method = "string", path = "string", headers = "table", body = "string", name = "string",
                      stream = "boolean" }
local FIELD_NAMES = "method path headers body name stream"

local function check_fields(r)
  for k, v in pairs(r) do
    local want = FIELD_TYPES[k]
    if want == nil then
      local near = type(k) == "string" and api.nearest(k, FIELD_NAMES)
      error(("unknown key %s in the request table (%s)"):format(
        type(k) == "string" and '"' .. k .. '"' or tostring(k),
        near and ('did you mean "%s"?'):format(near) or "its keys are method, path, headers, body, name and stream"),
        0)
    end
    if type(v) ~= want then
      error(("returned a table whose %s is a %s (a %s expected)"):format(k, type(v), want), 0)
    end
  end
end

-- The request string for what a request hook returned: a string as it is,
-- nil for the default request (the wrk fields as they are now), a table
-- {method=, path=, headers=, body=, name=} merged with the defaults (the
-- table form of wrk.format).
function bridge.request_bytes(r)
  local t = type(r)
  if t == "string" then return r end
  if r == nil then return wrk._format(0) end
  if t == "table" then
    check_fields(r)
    if r.stream then names.stream = 1 end -- its response streams whatever its type
    return wrk._format_table(0, r, "returned a table whose %s", "")
  end
  error(("returned a %s (a string, a table or nil expected)"):format(t), 0)
end

-- Calls hook(conn) and returns its request string.
function bridge.request(hook, conn)
  return bridge.request_bytes(hook(conn))
end

-- Counts one validation failure by its reason (of the request named
-- name_id + 1, or of res's).
local count_failure = reason_counter(bridge.failures)

local function fail(reason, name_id)
  if reason == nil then
    reason = "response() returned false"
  elseif type(reason) ~= "string" then
    reason = tostring(reason)
  end
  reason = count_failure(reason)
  -- A named request's reasons are the run's, per name.
  local id = name_id or (res ~= nil and res.name_ or 0)
  if id > 0 then
    local nf = bridge.name_failures[id - 1]
    if not nf then
      nf = {}
      bridge.name_failures[id - 1] = nf
    end
    nf[reason] = (nf[reason] or 0) + 1
  end
end

bridge.fail = fail

-- res.headers, res.trailers and res.body, made when first read for each
-- response.
local body_serial, body_string = -1, nil

-- A field table from C (name as received -> value) whose lookup ignores
-- the case of the name.
local function fields(h)
  local lower = {}
  for name, value in pairs(h) do
    lower[name:lower()] = value
  end
  return setmetatable(h, { __index = function(_, k)
    if type(k) == "string" then return lower[k:lower()] end
  end })
end

-- The reader of a res field made by bridge[maker]() (set by C at bind),
-- built once per response.
local function cached_fields(maker)
  local serial, t = -1, nil
  return function(r)
    if r.serial == serial then return t end
    if r.raw == nil then return nil end
    serial, t = r.serial, fields(bridge[maker]())
    return t
  end
end

local headers_of = cached_fields("c_headers")
-- The trailers: the fields after the body (HTTP/2's trailing HEADERS, a
-- chunked HTTP/1.1 body's trailer section); empty when there are none.
local trailers_of = cached_fields("c_trailers")

local function body_of(r)
  if r.serial == body_serial then return body_string end
  if r.raw == nil then return nil end
  local p = api.c.res_body(r, lenbuf)
  body_serial, body_string = r.serial, ffi.string(p, lenbuf[0])
  return body_string
end

-- Every field of res is read here (the struct's own names end in "_"), so
-- that a res kept past its response() call raises instead of showing
-- another response's figures or reading a buffer that was reused.
local res_fields = {
  status = function(r) return r.status_ end,
  headers = headers_of,
  trailers = trailers_of,
  body = body_of,
  bytes = function(r) return r.bytes_ end,
  latency = function(r) return r.latency_ end,
  connect = function(r) return r.connect_ end,
  waiting = function(r) return r.waiting_ end,
  events = function(r) return r.events_ end,
}

ffi.metatype("struct volley_res", {
  __index = function(r, k)
    local get = res_fields[k]
    if get == nil then return nil end
    if r.live == 0 then
      error(("res.%s read after its response() call returned: res is valid only during that call"
        .. " (copy what you need, e.g. conn.body = res.body)"):format(k), 2)
    end
    return get(r)
  end,
})

-- How many arguments a response() hook declares, at most 3 (wrk style:
-- status, headers, body; scenario: conn, res); a vararg hook may read all.
local function arity(hook)
  local info = debug.getinfo(hook, "u")
  if info.isvararg then return 3 end
  return math.max(1, math.min(3, info.nparams))
end

-- Binds a response hook once: returns the function C calls per response
-- (with the conn table; it returns true when the response failed
-- validation), whether the hook reads headers or body, so that C keeps
-- responses whole for it, and for wrk style how many arguments it takes
-- (C then calls the hook itself, as wrk does).
function bridge.bind_response(hook, scenario)
  if scenario then
    return function(conn)
      local ok, reason = hook(conn, res)
      if ok == nil or ok == true then return false end
      if ok == false then
        fail(reason)
        return true
      end
      error(("returned a %s (nothing, true, or false and a reason expected)"):format(type(ok)), 0)
    end, arity(hook) >= 2, 2 -- response(conn) alone never sees res: keep no bytes
  end
  local n = arity(hook)
  return hook, n > 1, n
end

-- ev, the event event(conn, ev) is given (struct volley_event, filled by
-- C for each event): its strings made when first read, and what the hook
-- may set (tokens, total_tokens, prompt_tokens). Every field goes through
-- here, so that an ev kept past its call raises.
--
-- Nothing on this path ends in a tail call of a builtin (return
-- ffi.string(...)): LuaJIT records a builtin's return as a return from
-- the function that tail-called it, without the Lua function it knows
-- how to leave a trace from, so a trace that starts in __index or in a
-- getter (each is hot before the hook that reads ev is) and reaches
-- such a return below its start aborts ("NYI: return to lower frame":
-- the frame below is the continuation of the metamethod call, lj_record.c
-- lj_record_ret), and the field's reads stay in the interpreter until a
-- trace from further out takes them in.
local function str(p, len)
  local s = ffi.string(p, len)
  return s
end

local event_fields = {
  type = function(e) return str(e.type_, e.type_len) end,
  data = function(e) return str(e.data_, e.data_len) end,
  id = function(e) return str(e.id_, e.id_len) end,
  t = function(e) return e.t_ end,
  retry = function(e) if e.retry_ >= 0 then return e.retry_ end end,
  tokens = function(e) return e.tokens_ end,
  total_tokens = function(e) if e.total >= 0 then return e.total end end,
  prompt_tokens = function(e) if e.prompt >= 0 then return e.prompt end end,
}

-- Raised at the script's assignment: count_of (1) <- event_set's setter
-- (2) <- __newindex (3) <- the script (4).
local function count_of(k, v)
  if type(v) ~= "number" or v ~= v or v < 0 or v >= 2 ^ 31 or v % 1 ~= 0 then
    error(("ev.%s must be a whole number from 0 to 2^31 - 1, not %s"):format(k, tostring(v)), 4)
  end
  return v
end

local event_set = {
  tokens = function(e, v) e.tokens_ = count_of("tokens", v) end,
  total_tokens = function(e, v) e.total = count_of("total_tokens", v) end,
  prompt_tokens = function(e, v) e.prompt = count_of("prompt_tokens", v) end,
}

local function event_live(e, k)
  if e.live == 0 then
    error(("ev.%s used after its event() call returned: ev is valid only during that call"):format(k), 3)
  end
end

ffi.metatype("struct volley_event", {
  __index = function(e, k)
    local get = event_fields[k]
    if get == nil then return nil end
    event_live(e, k)
    local v = get(e) -- not a tail call: see event_fields
    return v
  end,
  __newindex = function(e, k, v)
    local set = event_set[k]
    if set == nil then
      error(("ev.%s cannot be set (ev.tokens, ev.total_tokens and ev.prompt_tokens can)"):format(tostring(k)), 2)
    end
    event_live(e, k)
    set(e, v)
  end,
})

-- The verdicts C takes from the function bind_event returns (script.h).
local EVENT_GO_ON, EVENT_CLOSE, EVENT_FAILED = 0, 1, 2

-- Binds an event hook once: returns the function C calls per event (with
-- the conn table), which answers its verdict.
function bridge.bind_event(hook)
  return function(conn)
    local ok, reason = hook(conn, event)
    if ok == nil or ok == true then return EVENT_GO_ON end
    if ok == "close" then return EVENT_CLOSE end
    if ok == false then
      fail(reason, event.name_)
      return EVENT_FAILED
    end
    error(("returned a %s (nothing, true, \"close\", or false and a reason expected)"):format(
      type(ok) == "string" and ("string %q"):format(ok) or type(ok)), 0)
  end
end

----------------------------------------------------------------------------
-- Flows (lua/volley/flow.lua), called by C (src/script/script_flow.c).

-- Hooks a scenario table holds that wrk scripts never define as globals
-- (wrk's own names, request() and the rest, are a wrk script's hooks).
local SCENARIO_ONLY = { "user", "connect", "options", "tasks", "sequence", "event", "on_start", "on_stop" }
local SCENARIO_HOOKS = { "user", "request", "response", "connect", "options", "init", "delay", "setup", "teardown", "done",
                         "tasks", "sequence", "event", "on_start", "on_stop" }

local function holds_hooks(v)
  if type(v) ~= "table" then return nil end
  for _, m in pairs(package.loaded) do -- a module (local wrk = require("wrk")) is not a scenario
    if m == v then return nil end
  end
  for _, h in ipairs(SCENARIO_HOOKS) do
    if type(rawget(v, h)) == "function" then return h end
  end
end

-- Runs the script's chunk (at load, once): what it returns, or nil and
-- why it is a mistake when it returns nothing but reads as a scenario that
-- forgot to: a local table of hooks still in scope at the chunk's end (a
-- missing `return s`), or a global function named like a scenario-only
-- hook (`function user(u)`). The chunk's own errors are raised as they were.
function bridge.run_chunk(chunk)
  local forgotten
  local function on_return()
    if forgotten or debug.getinfo(2, "f").func ~= chunk then return end
    for i = 1, 250 do
      local name, v = debug.getlocal(2, i)
      if not name then break end
      local h = holds_hooks(v)
      if h then forgotten = { name, h } break end
    end
  end
  debug.sethook(on_return, "r")
  local ok, result = pcall(chunk)
  debug.sethook()
  if not ok then error(result, 0) end
  -- A flow's own code stays in the interpreter, where --yield-timeout's
  -- count hook can stop a user that never yields (script_guard.c): a
  -- compiled loop never looks at hooks. volley's modules stay compiled.
  if type(result) == "table" and (type(rawget(result, "user")) == "function" or rawget(result, "tasks") ~= nil
      or rawget(result, "sequence") ~= nil or type(rawget(result, "scenarios")) == "table") then
    jit.off(chunk, true)
  end
  if type(result) == "table" then bridge.chunk_table = result end
  if result ~= nil then return result end
  if forgotten then
    return nil, ("the script defines %s.%s() but returns nothing: end it with `return %s`")
      :format(forgotten[1], forgotten[2], forgotten[1])
  end
  for _, h in ipairs(SCENARIO_ONLY) do
    if type(rawget(_G, h)) == "function" then
      return nil, ("%s() is a global function, but a scenario's hooks are fields of the table the script"
        .. " returns: local s = {} function s.%s(...) ... end return s"):format(h, h)
    end
  end
end

-- The keys that make a scenario table a flow, or belong to one.
local FLOW_KEYS = { "user", "tasks", "sequence", "wait", "on_start", "on_stop" }

-- Stands for user(u) in C (its SCRIPT_USER hook) when a flow runs tasks
-- or a sequence: C only needs to know that the scenario is a flow.
local function runs_tasks() error("runs_tasks is never called", 0) end

-- A scenario table, when it loads: a flow's (user, tasks or sequence)
-- runner compiled (volley.runner: one-line errors), kept with the table,
-- whose data (volley.data) is read by each iteration. Returns a function
-- for C's user hook when the flow has no user(u) of its own; nothing for
-- a scenario that is no flow (whose states never load volley.runner).
function bridge.set_scenario(t)
  local flow_like = false
  for _, k in ipairs(FLOW_KEYS) do
    if rawget(t, k) ~= nil then flow_like = true end
  end
  if not flow_like then return nil end
  local r = require("volley.runner").compile(t)
  if not r then return nil end
  local d = t.data
  if d ~= nil and not volley.data.is(d) then
    error(("the scenario's data is a %s, not a data file (volley.data.csv or volley.data.lines)"):format(type(d)), 0)
  end
  bridge.scenario, bridge.runner = t, r
  if r.kind ~= "user" then return runs_tasks end
end

-- The seed of the flow users' own generators (volley.user_rng), made from
-- the run seed by C (seed.h's SEED_USERS), the same in every state.
function bridge.set_users_seed(seed)
  bridge.users_seed = seed
end

-- A script that returns several scenarios (lua/volley/scenarios.lua): its
-- list checked as it loads, kept for C (src/script/script_scenarios.c),
-- and how many; 0 when it returns one scenario.
function bridge.scenarios_check(t)
  local list = require("volley.scenarios").check(t, api.nearest)
  bridge.scenario_list = list
  return list and #list or 0
end

-- The scenarios' own thresholds as command-line words (script_options.c).
function bridge.scenario_threshold_words()
  return require("volley.scenarios").threshold_words(bridge.scenario_list)
end

-- The id + 1 of a request name (interned at its first use), for a flow's
-- request (level: as error's, from the caller).
local function name_of(name, prefix, level)
  use_name(name, prefix, level > 0 and level + 1 or 0)
  local id = names.next
  names.next = 0
  return id
end

-- A flow's setup data (docs/scripting.md, Setup data): this state's part.
-- role: "setup" (its one user's one iteration is setup(u), whose result is
-- kept as JSON text), "teardown" (teardown(data, u)), or nil (the run's
-- users). text: setup()'s data as JSON (nil: none), rebuilt read-only as
-- u.setup (source names it in errors: "setup()", "--setup-data FILE").
function bridge.set_aside(role, text, source)
  bridge.aside_role = role
  if text then
    local setup_data = require("volley.setup_data")
    bridge.setup_value = setup_data.decode(text, source)
    setup_data.install_iterators()
  end
end

-- The user() of a setup or teardown state: the scenario's hook, once.
local function aside_user(role)
  local hook = bridge.scenario[role]
  return function(u)
    if role == "teardown" then
      hook(bridge.setup_value, u)
      bridge.aside_done = true
      return
    end
    local text = require("volley.setup_data").encode(hook(u), "setup()")
    bridge.aside_text, bridge.aside_done = text, true
  end
end

-- Whether the scenario has setup(u) / teardown(data, u) (a flow's);
-- any = true: whether the script's table has the key at all, flow or not.
function bridge.has_aside(role, any)
  local t = bridge.scenario
  if any then return bridge.chunk_table ~= nil and rawget(bridge.chunk_table, role) ~= nil end
  return t ~= nil and type(rawget(t, role)) == "function"
end

-- After a setup or teardown state ran: whether its hook returned, setup's
-- data as JSON (nil: none), and when it did not return, why (its
-- iteration's failure).
function bridge.aside_outcome()
  if bridge.aside_done then return true, bridge.aside_text end
  local why = flow and next(flow.iteration_failures)
  return false, nil, why or "it did not run to its end (the run was stopped)"
end

function bridge.flow_bind(user, fnames_ptr)
  flow = require("volley.flow")
  bridge.flow_new = flow.new
  bridge.flow_check = flow.check
  bridge.flow_origin = flow.origin
  bridge.flow_event = function(slot, item) return flow.event(slot, item, event) end
  bridge.iteration_failures = flow.iteration_failures
  local r = bridge.runner
  -- setup(u) or teardown(data, u) is the one iteration of the one user of
  -- a run of its own: none of the scenario's tasks, waits or on_start
  if bridge.aside_role then r = require("volley.runner").compile({ user = aside_user(bridge.aside_role) }) end
  flow.bind(r, bridge.users_seed or 0, fnames_ptr, conn_base, thread_no, bridge, name_of, fail,
    reason_counter(flow.iteration_failures), bridge.scenario and bridge.scenario.data, bridge.setup_value)
end

-- bridge.flow_new, flow_check and iteration_failures: flow.lua's, set by
-- flow_bind (C calls them only in a worker whose script has user(u)).

return bridge
