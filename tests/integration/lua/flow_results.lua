-- A flow whose figures are computable by hand, for test_flow_results.sh.
-- Iteration i of a user (u.iteration, 1, 2, ...):
--   group "browse": one GET /, never failed;
--   check "quarter": fails when i % 4 == 0; check "always": passes;
--   i % 5 == 0: a Lua error ends the iteration ("...: boom");
--   else group "checkout": one GET /, then u:fail("seven") when i % 7 == 0
--   (the group and the iteration fail with reason "seven").
-- With one user per process (-c 1, or -c 3 over 3 shards) a process's
-- iterations are 1..n, so every count follows from n.
local s = {}

function s.user(u)
  local i = u.iteration
  u:group("browse", function() u:get("/") end)
  u:check(i % 4 ~= 0, "quarter")
  u:check(true, "always")
  if i % 5 == 0 then error("boom") end
  u:group("checkout", function()
    u:get("/")
    if i % 7 == 0 then u:fail("seven") end
  end)
end

return s
