-- Benchmark flow (tests/bench/flows.sh): get_loop.lua's iteration as two
-- weighted tasks (4:1) with a wait rule (volley.between(0, "1ms")), so
-- that what tasks and wait rules cost a request (the weighted draw, each
-- task's group figures, the wait's draw and timer) can be set against
-- get_loop.lua's plain user(u). Each task is K GETs of /items/1..K (K: the
-- word after `--`, default 10), as get_loop.lua's iteration.
local s = {}

local k = 10

function s.init(args)
  if args[1] then k = assert(tonumber(args[1]), "tasks_loop.lua: K (a number) expected") end
end

local paths = {}
for i = 1, 100 do paths[i] = "/items/" .. i end

local function browse(u)
  for i = 1, k do u:get(paths[i]) end
end

local function buy(u)
  for i = 1, k do u:get(paths[i]) end
end

s.tasks = { { weight = 4, fn = browse }, { weight = 1, fn = buy } }
s.wait = volley.between(0, "1ms")

return s
