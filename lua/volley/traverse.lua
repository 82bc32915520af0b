-- Table traversal that LuaJIT's compiler never sees. Required first in
-- every Lua state volley makes (src/script/script.c), before any other
-- module or the user's script, it replaces the globals pairs and next.
--
-- Why: Debian 12's LuaJIT (2.1.0~beta3+git20220320) miscompiles loops
-- that walk tables. A pairs() loop is specialised (BC_ITERN) and traces
-- that join such a loop resume it with a stale position: the loop ends
-- early or reads past the table's node array, and a one-key table such
-- as { name = "item" } then yields keys like 477, 6.9e-310, true or a
-- table (upstream LuaJIT issue #827, fixed there after this snapshot).
-- Flows hit it within seconds: their users yield in the middle of traced
-- code, so traces abort, loops are blacklisted and despecialised, and the
-- broken joins follow. Compiled next() calls fail in the same workload
-- too (a crash in machine code). So the walk itself runs interpreted:
-- pairs returns walk, a plain Lua function the JIT may not compile, which
-- makes every generic for over pairs(t) or next a normal iterator call
-- (the ISNEXT check fails and the loop is despecialised at its start,
-- before any position is kept). Everything else stays compiled.
-- tests/lua/traverse_spec.lua and tests/integration/conn/test_flow_stress.sh
-- hold the defect down.
local raw_next = next

local function walk(t, k)
  return raw_next(t, k)
end
jit.off(walk)

local function pairs_of(t)
  if type(t) ~= "table" then
    error(("bad argument #1 to 'pairs' (table expected, got %s)"):format(t == nil and "nil" or type(t)), 2)
  end
  return walk, t, nil
end

pairs = pairs_of
next = walk

return { raw_next = raw_next }
