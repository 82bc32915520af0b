-- Benchmark flow (tests/bench/flows.sh): each user sends one GET, then
-- sleeps a minute, so that a run of -c N holds N users asleep in u:sleep
-- and the process's RSS per user can be read. When the thread's N-th user
-- has had its answer, its Lua heap after a full collection is written to
-- stderr ("lua_heap_kb N KB"); N is the word after `--`.
local s = {}

local n, answered = 0, 0

function s.init(args)
  n = tonumber(args[1] or "") or 0
end

function s.user(u)
  u:get("/items/1")
  answered = answered + 1
  if answered == n then
    collectgarbage("collect")
    io.stderr:write(("lua_heap_kb %d %.1f\n"):format(n, collectgarbage("count")))
  end
  u:sleep(60)
end

return s
