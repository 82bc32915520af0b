-- Benchmark flow (tests/bench/flows.sh): the three-step flow that Locust
-- (three_step.py) and Artillery (three_step.yml) run too: log in with a
-- POST, look at 3 items, check out with a POST; no think time, no checks.
local s = {}

function s.user(u)
  u:post("/login", { form = { user = "user" .. u.id, password = "pw" } })
  for i = 1, 3 do u:get("/items/" .. i) end
  u:post("/checkout", { json = { items = 3 } })
end

return s
