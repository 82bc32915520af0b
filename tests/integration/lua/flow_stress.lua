-- A flow that stresses the Lua side of flows with the JIT on
-- (tests/integration/conn/test_flow_stress.sh, tests/long/long_flow_stress.sh):
-- many users that build tables, send requests with options tables, batch,
-- sleep, fail and raise, and check after every yield that each table they
-- built still holds exactly what they put in it. A table that changed
-- fails the iteration with a reason that starts "corrupt", which the tests
-- look for. init() first runs the smallest known case of LuaJIT's
-- miscompiled pairs() loops (lua/volley/traverse.lua says why it no longer
-- breaks), so a state without the guard fails at once.
local s = {}

local function traversal_case()
  local t = { 1, 2, 3, 4, 5 }
  local tab = { a = t, b = t, c = t, d = t, e = t }
  local function f(...) for _ = 1, 100 do end end -- a vararg function: back to the interpreter
  for i = 1, 100000 do
    f()
    local c = 0
    for _, v in pairs(tab) do
      for _ in pairs(v) do end
      c = c + 1
    end
    if c ~= 5 then error(("corrupt: pairs() walked %d of 5 keys at pass %d"):format(c, i), 0) end
  end
end

function s.init()
  traversal_case()
end

-- What a user keeps across its yields, and its check.
local function keep(i)
  return {
    name = "item", n = i, list = { i, i + 1, i + 2 },
    nested = { a = i, b = tostring(i), [i] = true },
  }
end

local KEPT = { name = true, n = true, list = true, nested = true }

local function check_kept(t, i, where)
  local n = 0
  for k in pairs(t) do
    if not KEPT[k] then error(("corrupt at %s: key %s"):format(where, tostring(k)), 0) end
    n = n + 1
  end
  local nested = 0
  for _ in pairs(t.nested) do nested = nested + 1 end
  if n ~= 4 or t.name ~= "item" or t.n ~= i or #t.list ~= 3 or t.list[3] ~= i + 2
      or nested ~= 3 or t.nested.a ~= i or t.nested.b ~= tostring(i) or t.nested[i] ~= true then
    error("corrupt at " .. where .. ": values changed", 0)
  end
end

local function check_opts(o, i, where)
  local n = 0
  for k in pairs(o) do
    if k ~= "name" and k ~= "headers" then error(("corrupt at %s: option %s"):format(where, tostring(k)), 0) end
    n = n + 1
  end
  if n ~= 2 or o.name ~= "item" or o.headers["X-Iteration"] ~= tostring(i) then
    error("corrupt at " .. where .. ": options changed", 0)
  end
end

local seq = 0

function s.user(u)
  seq = seq + 1
  local i = seq
  local mine = keep(i)
  local opts = { name = "item", headers = { ["X-Iteration"] = tostring(i) } }
  local r = u:get("/json/items/2", opts)
  check_kept(mine, i, "after u:get")
  check_opts(opts, i, "after u:get")
  if r.status ~= 200 or #r:json().items ~= 2 then error("corrupt: the response changed", 0) end
  u:sleep(math.random(0, 4) / 1000)
  check_kept(mine, i, "after u:sleep")
  local list = {}
  for k = 1, 8 do list[k] = k % 2 == 0 and "/b/" .. k or { path = "/a/" .. k, name = "batch" } end
  local rs = u:batch(list)
  check_kept(mine, i, "after u:batch")
  if #rs ~= 8 then error("corrupt: a batch of 8 gave " .. #rs, 0) end
  for k = 1, 8 do
    if rs[k].status ~= 200 then error("corrupt: batch item " .. k .. " " .. tostring(rs[k].status), 0) end
  end
  u:group("pair", function()
    u:get("/status/201", { name = "created", check = function(res) return res.status == 201 end })
    u:sleep(math.random(0, 2) / 1000)
    check_kept(mine, i, "in u:group")
  end)
  check_opts(opts, i, "at the end")
  if i % 9 == 0 then error("boom", 0) end
  if i % 13 == 0 then u:fail("thirteen") end
end

return s
