-- Several scenarios in one run: the script's `scenarios` list checked once
-- per state as it loads (bridge.scenarios_check). Each entry is a table
-- with its name, its flow (user(u)) and its load; C reads the entries
-- (src/script/script_scenarios.c) and the command line's part of the
-- plan is made in src/options/options_scenarios.c. A list, not a map: a
-- name given twice is seen here (a Lua table cannot hold a key twice).
local scenarios = {}

-- The fields an entry may have, and the type of each. The flow's other
-- forms (tasks, sequence, their wait rule and on_start/on_stop) are an
-- entry's fields too, as they are a single scenario's.
local FIELDS = {
  name = "string", user = "function", tasks = "table", sequence = "table", wait = "any",
  on_start = "function", on_stop = "function", data = "any",
  users = "number", weight = "number", rate = "number", max_users = "number",
  stages = "string", start = "duration", duration = "duration", iterations = "number",
  thresholds = "table", fail_if = "table",
}
local FIELD_LIST = "name user tasks sequence wait on_start on_stop data users weight rate max_users stages"
  .. " start duration iterations thresholds fail_if"

local MAX = 64         -- scenarios in one script
local NAME_MAX = 64    -- bytes of a name

local function whole(v, lo, hi)
  return type(v) == "number" and v == math.floor(v) and v >= lo and v <= hi
end

-- Checks entry i of the list; returns nothing or raises one line.
local function check_entry(e, i, seen, nearest)
  local where = ("scenarios[%d]"):format(i)
  if type(e) ~= "table" then
    error(("%s: a %s, not a table { name = \"...\", user = function(u) ... end, ... }"):format(where, type(e)), 0)
  end
  local name = rawget(e, "name")
  if type(name) ~= "string" or name == "" then
    error(("%s: no name (each scenario has one: name = \"browse\")"):format(where), 0)
  end
  if #name > NAME_MAX or not name:match("^[%w_.%-]+$") then
    error(("%s: name %q: 1 to %d letters, digits, '_', '.' or '-'"):format(where, name, NAME_MAX), 0)
  end
  where = ("scenario %q"):format(name)
  if seen[name] then
    error(("%s: the name is used twice (scenarios[%d] and scenarios[%d])"):format(where, seen[name], i), 0)
  end
  seen[name] = i
  for k, v in pairs(e) do
    local want = type(k) == "string" and FIELDS[k]
    if not want then
      local near = type(k) == "string" and nearest(k, FIELD_LIST)
      error(("%s: unknown field %s%s"):format(where, type(k) == "string" and ("%q"):format(k) or tostring(k),
        near and (" (did you mean %q?)"):format(near) or (" (the fields are " .. FIELD_LIST .. ")")), 0)
    end
    if want == "duration" then
      if type(v) ~= "string" and type(v) ~= "number" then
        error(("%s: %s is a %s, not a duration (\"30s\", or seconds)"):format(where, k, type(v)), 0)
      end
    elseif want ~= "any" and type(v) ~= want then
      error(("%s: %s is a %s, not a %s"):format(where, k, type(v), want), 0)
    end
  end
  for _, k in ipairs({ "thresholds", "fail_if" }) do
    for j, x in ipairs(e[k] or {}) do
      if type(x) ~= "string" or not x:match("^%s*[%a_]") then
        error(("%s: %s[%d]: an expression (\"iteration.p95 < 2s\"), not %s"):format(where, k, j,
          type(x) == "string" and ("%q"):format(x) or ("a " .. type(x))), 0)
      end
    end
  end
  if type(e.user) ~= "function" and e.tasks == nil and e.sequence == nil then
    error(("%s: no flow: give it user(u), the journey each of its users runs (or tasks, or a sequence)"):format(where), 0)
  end
  if e.users ~= nil and e.weight ~= nil then
    error(("%s: users and weight both: give its own users, or its share of -c (weight)"):format(where), 0)
  end
  if e.rate ~= nil and (e.users ~= nil or e.weight ~= nil) then
    error(("%s: rate with %s: an open scenario's users are max_users (the pool its arrivals run on)")
      :format(where, e.users ~= nil and "users" or "weight"), 0)
  end
  if e.max_users ~= nil and e.rate == nil then
    error(("%s: max_users is an open scenario's (with rate); a closed one has users or weight"):format(where), 0)
  end
  for _, k in ipairs({ "users", "max_users" }) do
    if e[k] ~= nil and not whole(e[k], 1, 1000000) then
      error(("%s: %s: a whole number from 1 to 1000000, not %s"):format(where, k, tostring(e[k])), 0)
    end
  end
  if e.weight ~= nil and not whole(e.weight, 1, 1000000) then
    error(("%s: weight: a whole number from 1 to 1000000, not %s"):format(where, tostring(e.weight)), 0)
  end
  if e.rate ~= nil and not whole(e.rate, 0, 100000000) then
    error(("%s: rate: iterations per second, a whole number from 0 (with stages) to 100000000, not %s")
      :format(where, tostring(e.rate)), 0)
  end
  if e.rate == 0 and e.stages == nil then
    error(("%s: rate 0 only with stages (a rate that ramps up from nothing)"):format(where), 0)
  end
  if e.iterations ~= nil and not whole(e.iterations, 1, 2 ^ 53) then
    error(("%s: iterations: a whole number from 1, not %s"):format(where, tostring(e.iterations)), 0)
  end
  if e.stages ~= nil and (e.duration ~= nil or e.iterations ~= nil) then
    error(("%s: stages with %s: the stages are its length"):format(where, e.duration ~= nil and "duration"
      or "iterations"), 0)
  end
end

-- The script's table t: its scenarios list checked (nil when it has none).
-- A scenario's hooks belong to its entry: the table itself may not hold a
-- flow as well. nearest: api.nearest.
function scenarios.check(t, nearest)
  local list = rawget(t, "scenarios")
  if list == nil then return nil end
  if type(list) ~= "table" then
    error(("scenarios is a %s, not a list { { name = \"browse\", ... }, ... }"):format(type(list)), 0)
  end
  for _, k in ipairs({ "user", "tasks", "sequence", "wait", "on_start", "on_stop", "data", "request", "response",
                       "delay", "connect", "event" }) do
    if rawget(t, k) ~= nil then
      error(("the script returns both scenarios and %s: a flow and its data belong to a scenario of the list"
        .. " (per-request hooks are not flows)"):format(k), 0)
    end
  end
  -- setup(u) and teardown run apart as one user of a one-scenario run
  -- (run_setup.c); a run of several has no such run yet
  for _, k in ipairs({ "setup", "teardown" }) do
    if rawget(t, k) ~= nil then
      error(("the script returns scenarios and %s: not with several scenarios yet; run %s once from a"
        .. " one-scenario script (--setup-only FILE) and give this run --setup-data FILE"):format(k, k), 0)
    end
  end
  local n = #list
  for k in pairs(list) do
    if type(k) ~= "number" or k ~= math.floor(k) or k < 1 or k > n then
      error(("scenarios: a list { { name = \"browse\", ... }, ... }, not a map: key %s (the name goes inside"
        .. " the entry, so that a name given twice is seen)"):format(type(k) == "string" and ("%q"):format(k)
        or tostring(k)), 0)
    end
  end
  if n == 0 then error("scenarios: the list is empty", 0) end
  if n > MAX then error(("scenarios: %d of them, more than %d"):format(n, MAX), 0) end
  local seen = {}
  for i = 1, n do check_entry(list[i], i, seen, nearest) end
  return list
end

-- expr with the label {scenario="NAME"} right after its figure's first
-- word (beside the labels it has): the figure of that scenario alone. A
-- name is letters, digits and _.- (check_entry): nothing to escape.
local function labelled(expr, name)
  local lead, word, rest = expr:match("^(%s*)([%a_][%w_]*)(.*)$")
  local label = ('scenario="%s"'):format(name)
  if rest:sub(1, 1) == "{" then return lead .. word .. "{" .. label .. "," .. rest:sub(2) end
  return lead .. word .. "{" .. label .. "}" .. rest
end

-- The scenarios' own thresholds and fail_if (a checked list) as
-- command-line words: "--threshold", EXPR, ... with each one's label.
function scenarios.threshold_words(list)
  local words = {}
  for _, e in ipairs(list or {}) do
    for _, k in ipairs({ "thresholds", "fail_if" }) do
      for _, x in ipairs(e[k] or {}) do
        words[#words + 1] = k == "thresholds" and "--threshold" or "--fail-if"
        words[#words + 1] = labelled(x, e.name)
      end
    end
  end
  return words
end

return scenarios
