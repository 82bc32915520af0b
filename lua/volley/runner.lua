-- The iteration runner of a flow scenario: what one iteration of a user
-- is, chosen once from the scenario table when the flow binds. A scenario
-- gives one of
--   user(u)                 an iteration is one call of user(u);
--   tasks = { ... }         an iteration is one task, chosen by weight
--                           from the user's own generator (st.rng);
--   sequence = { ... }      an iteration is every step, in order;
-- and may give wait (volley.between/pacing/throughput: after each
-- iteration, and between a sequence's steps), on_start(u) (once per user
-- before its first iteration) and on_stop(u) (when the user leaves).
--
-- The contract, for volley.flow, volley.testing, and a run of several
-- scenarios (each compiles its own runner and calls it for its users):
--   local r = runner.compile(s)     -- checked; one-line errors (level 0)
--   r:iteration(u, st, host)        -- failed, reason, wait (seconds after it)
--   r:start(u, st, host)            -- ok, reason (on_start, or nothing)
--   r:stop(u, st, host)             -- ok, reason (on_stop, if the user started)
-- st is the user's state: st.rng (volley.user_rng), st.started, and the
-- wait rule's own fields (pace_at, pace_next). host gives what the runner
-- cannot do itself:
--   host.now()                      -- seconds, monotonic (pacing)
--   host.sleep(u, st, secs)         -- a wait inside the iteration (steps)
--   host.task(u, st, name, fn)      -- fn(u) counted as the group name
--                                   -- (its duration, its failure), raising fn's error
--   host.reason(e, st)              -- an error's reason (file:line: message)
-- Plain Lua (no FFI): volley.testing uses it under plain busted.
local wait = require("volley.wait")

local runner = {}

local KINDS = "user(u), tasks = { ... } or sequence = { ... }"
local TASK_FORM = "{ weight = 4, fn = browse }"

local function refuse(fmt, ...)
  error(fmt:format(...), 0)
end

local function shown(v)
  if type(v) == "string" then return ("%q"):format(v) end
  return tostring(v)
end

-- The lines of the script files read for names (path -> lines).
local sources = {}

-- The name fn was defined under in its file (`local function browse(u)`,
-- `function M.browse(u)`, `browse = function(u)`), read from the line
-- where it begins; nil when that is not a file or holds no name.
local function defined_as(fn)
  local info = debug.getinfo(fn, "S")
  local path = info and info.source and info.source:match("^@(.*)$")
  if not path or info.linedefined < 1 then return nil end
  local lines = sources[path]
  if lines == nil then
    lines = false
    local f = io.open(path, "r")
    if f then
      lines = {}
      for line in f:lines() do lines[#lines + 1] = line end
      f:close()
    end
    sources[path] = lines
  end
  local line = lines and lines[info.linedefined]
  if not line then return nil end
  return line:match("function%s+[%w_]+[.:]([%a_][%w_]*)%s*%(") or line:match("function%s+([%a_][%w_]*)%s*%(")
    or line:match("([%a_][%w_]*)%s*=%s*function%s*%(")
end

-- A task's default name: the key of s that holds fn, else the name it
-- was defined under, else nil.
local function key_of(s, fn)
  for k, v in pairs(s) do
    if v == fn and type(k) == "string" then return k end
  end
  return defined_as(fn)
end

-- The list of entries of what (tasks or a sequence), checked to be a
-- plain non-empty list: its length.
local function list_of(t, what)
  if type(t) ~= "table" then
    refuse("the scenario's %s is a %s (a list: %s)", what, type(t),
      what == "tasks" and "{ " .. TASK_FORM .. ", ... } or { browse, buy }" or "{ step1, step2, ... }")
  end
  local n = #t
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k > n or k % 1 ~= 0 then
      if type(k) == "function" and what == "tasks" then
        refuse("the scenario's tasks is keyed by functions ({ [browse] = 4 }), which has no order: write"
          .. " tasks = { { weight = 4, fn = browse }, ... }")
      end
      refuse("the scenario's %s has the key %s: it is a list (%s[1], %s[2], ...)", what, shown(k), what, what)
    end
  end
  if n == 0 then refuse("the scenario's %s is empty (one %s at least)", what, what == "tasks" and "task" or "step") end
  return n
end

-- Entry i of what: its function, its name and (tasks) its weight.
local function entry(s, what, i, v, weighted)
  local where = ("the scenario's %s[%d]"):format(what, i)
  local unit = weighted and "task" or "step"
  if type(v) == "function" then
    return v, key_of(s, v) or ("%s %d"):format(unit, i), 1
  end
  if type(v) ~= "table" then
    refuse("%s is a %s (a function, or a table %s)", where, type(v),
      weighted and TASK_FORM or "{ name = \"login\", fn = login }")
  end
  for k in pairs(v) do
    if k ~= "fn" and k ~= "name" and not (weighted and k == "weight") then
      refuse("%s has the key %s (the keys are %s)", where, shown(k), weighted and "weight, fn and name" or "fn and name")
    end
  end
  if type(v.fn) ~= "function" then refuse("%s.fn is a %s (a function expected)", where, type(v.fn)) end
  if v.name ~= nil and (type(v.name) ~= "string" or v.name == "") then
    refuse("%s.name is %s (a non-empty string expected)", where, type(v.name) == "string" and "empty" or "a " .. type(v.name))
  end
  local weight = 1
  if weighted then
    weight = v.weight
    if weight == nil then
      refuse("%s has no weight (write %s; a function alone has weight 1)", where, TASK_FORM)
    end
    if type(weight) ~= "number" or not (weight >= 0) or weight == math.huge then
      refuse("%s.weight is %s (a number >= 0 expected)", where,
        type(weight) == "number" and tostring(weight) or "a " .. type(weight))
    end
  end
  return v.fn, v.name or key_of(s, v.fn) or ("%s %d"):format(unit, i), weight
end

-- Runs fn(u) of entry name as a group: ok, or false and the reason.
local function run_one(u, st, host, name, fn)
  local ok, e = pcall(host.task, u, st, name, fn)
  if ok then return true end
  return false, host.reason(e, st)
end

local methods = {}
local mt = { __index = methods }

function methods.start(r, u, st, host)
  if st.started then return true end
  if r.on_start then
    local ok, why = run_one(u, st, host, "on_start", r.on_start)
    if not ok then return false, "on_start: " .. why end
  end
  st.started = true
  return true
end

function methods.stop(r, u, st, host)
  if not st.started then return true end
  st.started = false
  if not r.on_stop then return true end
  local ok, why = run_one(u, st, host, "on_stop", r.on_stop)
  if not ok then return false, "on_stop: " .. why end
  return true
end

-- One call of user(u).
local function iterate_user(r, u, st, host)
  local rule = r.wait
  if rule then wait.begin(rule, st, host.now()) end
  local ok, e = pcall(r.user, u)
  local reason = not ok and host.reason(e, st) or nil
  return not ok, reason, rule and wait.after(rule, st, host.now()) or 0
end

-- One task, chosen by weight: the first whose running total passes a
-- uniform draw of the total (a zero weight is never chosen).
local function iterate_tasks(r, u, st, host)
  local x = st.rng:draw() * r.total
  local fns, names, ends = r.fns, r.names, r.ends
  local i, n = 1, #ends
  while i < n and ends[i] <= x do i = i + 1 end
  local rule = r.wait
  if rule then wait.begin(rule, st, host.now()) end
  local ok, reason = run_one(u, st, host, names[i], fns[i])
  return not ok, reason, rule and wait.after(rule, st, host.now()) or 0
end

-- Every step in order; an error ends its step only. The wait rule runs
-- between steps (inside the iteration) and after the last (after it).
local function iterate_sequence(r, u, st, host)
  local rule, fns, names = r.wait, r.fns, r.names
  local failed, first
  for i = 1, #fns do
    if rule then
      if i > 1 then
        local secs = wait.after(rule, st, host.now())
        if secs > 0 then host.sleep(u, st, secs) end
      end
      wait.begin(rule, st, host.now())
    end
    local ok, reason = run_one(u, st, host, names[i], fns[i])
    if not ok and not failed then failed, first = true, reason end
  end
  return failed or false, first, rule and wait.after(rule, st, host.now()) or 0
end

-- The scenario table s checked and compiled; errors are one line each.
function runner.compile(s)
  local given = (s.user ~= nil and 1 or 0) + (s.tasks ~= nil and 1 or 0) + (s.sequence ~= nil and 1 or 0)
  if given > 1 then
    local names = {}
    for _, k in ipairs({ "user", "tasks", "sequence" }) do
      if s[k] ~= nil then names[#names + 1] = k end
    end
    refuse("the scenario gives both %s and %s: choose one (%s)", names[1], names[2], KINDS)
  end
  local r = setmetatable({ wait = wait.check(s.wait) }, mt)
  for _, k in ipairs({ "on_start", "on_stop" }) do
    local f = s[k]
    if f ~= nil and type(f) ~= "function" then refuse("the scenario's %s is a %s, not a function", k, type(f)) end
    r[k] = f
  end
  if given == 0 then
    local k = s.wait ~= nil and "wait" or r.on_start and "on_start" or r.on_stop and "on_stop"
    if k then refuse("the scenario gives %s but no flow to run it with (%s)", k, KINDS) end
    return nil
  end
  if s.user ~= nil then
    if type(s.user) ~= "function" then refuse("the scenario's user is a %s, not a function", type(s.user)) end
    r.kind, r.user, r.iteration = "user", s.user, iterate_user
    return r
  end
  local what = s.tasks ~= nil and "tasks" or "sequence"
  local weighted = what == "tasks"
  local list = s[what]
  local n = list_of(list, what)
  local fns, names, ends, total = {}, {}, {}, 0
  for i = 1, n do
    local fn, name, weight = entry(s, what, i, list[i], weighted)
    fns[i], names[i] = fn, name
    total = total + weight
    ends[i] = total
  end
  if weighted and not (total > 0) then
    refuse("the scenario's tasks weigh 0 in all (one weight > 0 at least)")
  end
  r.kind, r.fns, r.names, r.ends, r.total = what, fns, names, ends, total
  r.iteration = weighted and iterate_tasks or iterate_sequence
  return r
end

-- The kinds of flow, for messages.
runner.KINDS = KINDS

return runner
