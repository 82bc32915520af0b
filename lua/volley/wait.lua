-- A flow scenario's wait rule (its `wait` field), Locust's wait_time:
-- volley.between(a, b) waits a uniform time in [a, b] after each run of
-- a task (an iteration, a task, a sequence's step), volley.pacing(t)
-- starts each run t seconds after the previous one started (Locust's
-- constant_pacing), volley.throughput(n) is pacing(1 / n) (Locust's
-- constant_throughput). Also u:sleep_between's draw. Plain Lua (no FFI):
-- volley.testing uses it under plain busted. Times are seconds, as
-- u:sleep's (volley.flow_http).
local http = require("volley.flow_http")

local wait = {}

local RULE = {}
local HELP = "volley.between(a, b), volley.pacing(seconds) or volley.throughput(runs a second)"

local function rule(t)
  return setmetatable(t, RULE)
end

-- volley.between(a, b): a uniform wait in [a, b] (times as u:sleep takes
-- them: seconds >= 0 or duration strings; a <= b). Errors at the caller's
-- line.
function wait.between(a, b)
  local lo = http.seconds(a, "volley.between", "a = ", true, 2)
  local hi = http.seconds(b, "volley.between", "b = ", true, 2)
  if lo > hi then
    error(("volley.between: a = %s is more than b = %s (a <= b expected)"):format(tostring(a), tostring(b)), 2)
  end
  return rule({ kind = "between", lo = lo, hi = hi })
end

-- volley.pacing(t): each run starts t seconds (> 0) after the previous
-- one started, at once when the previous took longer.
function wait.pacing(t)
  return rule({ kind = "pacing", period = http.seconds(t, "volley.pacing", "", false, 2) })
end

-- volley.throughput(n): n runs a second (> 0) per user: pacing(1 / n).
function wait.throughput(n)
  if type(n) ~= "number" or not (n > 0) or n == math.huge then
    local shown = type(n) == "number" and tostring(n) or "a " .. type(n)
    error(("volley.throughput: %s is not a rate (runs a second per user, a number > 0 such as 2)"):format(shown), 2)
  end
  local period = 1 / n
  if period > http.MAX_SECONDS then
    error(("volley.throughput: %s a second is a period longer than 100 days"):format(tostring(n)), 2)
  end
  return rule({ kind = "pacing", period = period })
end

function wait.is(v)
  return getmetatable(v) == RULE
end

-- The scenario's wait field checked: the rule, or nil for none; an error
-- (one line, no position) when it is something else.
function wait.check(v)
  if v == nil or wait.is(v) then return v end
  local shown = type(v) == "number" and ("the number %s"):format(tostring(v))
    or type(v) == "string" and ("the string %q"):format(v) or "a " .. type(v)
  error(("the scenario's wait is %s, not a wait rule (%s)"):format(shown, HELP), 0)
end

-- A uniform draw in [lo, hi] from user state st's generator (st.rng).
function wait.uniform(st, lo, hi)
  if hi <= lo then return lo end
  return lo + (hi - lo) * st.rng:draw()
end

-- u:sleep_between(a, b)'s seconds for user st (checks as volley.between;
-- level: as error's, from the caller).
function wait.sleep_between(st, a, b, level)
  local lo = http.seconds(a, "u:sleep_between", "a = ", true, level + 1)
  local hi = http.seconds(b, "u:sleep_between", "b = ", true, level + 1)
  if lo > hi then
    error(("u:sleep_between: a = %s is more than b = %s (a <= b expected)"):format(tostring(a), tostring(b)),
      level + 1)
  end
  return wait.uniform(st, lo, hi)
end

-- A run of user st begins at now (seconds, the host's clock): pacing
-- takes the run's due start as its anchor (when the wait before it was
-- pacing's own, so that a late wake-up does not push the runs after it
-- back), else now.
function wait.begin(r, st, now)
  if r == nil or r.kind ~= "pacing" then return end
  local due = st.pace_next
  if due and now - due < r.period then st.pace_at = due else st.pace_at = now end
  st.pace_next = nil
end

-- The wait (seconds >= 0) after a run of user st that ends at now.
function wait.after(r, st, now)
  if r == nil then return 0 end
  if r.kind == "between" then return wait.uniform(st, r.lo, r.hi) end
  local due = (st.pace_at or now) + r.period
  if due <= now then return 0 end
  st.pace_next = due
  return due - now
end

return wait
