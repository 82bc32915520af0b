-- Benchmark flow (tests/bench/flows.sh): one iteration of a user is K
-- GETs of /items/1..K through u:get, each with a tag (a literal table, as
-- a script writes it), so that its CPU per request can be set against
-- get_loop.lua's, the same requests without tags (issue 31: tags cost at
-- most 1.05x). K is the word after `--` (default 10).
local s = {}

local k = 10

function s.init(args)
  if args[1] then k = assert(tonumber(args[1]), "get_loop_tags.lua: K (a number) expected") end
end

-- One path string per item, made once: the flow side should pay for u:get,
-- not for string concatenation the request(conn) side does not do either.
local paths = {}
for i = 1, 100 do paths[i] = "/items/" .. i end

function s.user(u)
  for i = 1, k do u:get(paths[i], { tags = { kind = "api" } }) end
end

return s
