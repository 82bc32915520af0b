-- Benchmark flow (tests/bench/flows.sh): get_loop.lua's iteration (K
-- plain GETs of /items/1..K through u:get) run as two scenarios that share
-- -c by weight, each with half of FLOW_ITERATIONS (the environment's; 5000
-- by default): its CPU per request against get_loop.lua's, one scenario.
local s = {}

local k = 10
local iterations = tonumber(os.getenv("FLOW_ITERATIONS") or "5000")

function s.init(args)
  if args[1] then k = assert(tonumber(args[1]), "get_loop_scenarios.lua: K (a number) expected") end
end

local paths = {}
for i = 1, 100 do paths[i] = "/items/" .. i end

local function user(u)
  for i = 1, k do u:get(paths[i]) end
end

s.scenarios = {
  { name = "a", weight = 1, iterations = math.ceil(iterations / 2), user = user },
  { name = "b", weight = 1, iterations = math.floor(iterations / 2), user = user },
}

return s
