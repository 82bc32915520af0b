-- The C median selection volley ab uses (volley.api.select_pair) against
-- a full sort, on random arrays with and without repeated values.
local s = {}
function s.done()
  local api = require("volley.api")
  math.randomseed(7)
  local bad = 0
  for trial = 1, 300 do
    local n = math.random(1, 400)
    local t = {}
    for i = 1, n do t[i] = math.random(0, trial % 3 == 0 and 5 or 100000) end
    local sorted = {}
    for i = 1, n do sorted[i] = t[i] end
    table.sort(sorted)
    local k = math.random(1, n)
    local x, y = api.select_pair(t, n, k)
    if x ~= sorted[k] or y ~= sorted[k + 1] then bad = bad + 1 end
  end
  print("select_pair mismatches", bad)
end
return s
