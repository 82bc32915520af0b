-- Table walks that LuaJIT's compiler never records. Required first in
-- every Lua state volley makes (src/script/script.c), before any other
-- module or the user's script: the function it returns replaces the
-- globals pairs and next with walk, next written in C (script.c's
-- table_walk), which C hands it.
--
-- Why: Debian 12's LuaJIT (2.1.0~beta3+git20220320) miscompiles loops
-- that walk tables. A pairs() loop is specialised (BC_ITERN), and traces
-- that join such a loop resume it with a stale position: the loop ends
-- early or reads past the table's node array, so that a one-key table
-- such as { name = "item" } yields keys like 477, 6.9e-310, true or a
-- table (upstream LuaJIT issue #827, fixed there after this snapshot).
-- Flows meet it within seconds: their users yield in the middle of traced
-- code, traces abort, loops are blacklisted and despecialised, and the
-- broken joins follow. A compiled call of the builtin next() instead
-- crashed in machine code in the same workload. With walk, a generic for
-- over pairs(t) or next is a plain iterator call (ISNEXT sees that the
-- iterator is not the builtin and despecialises the loop at its start,
-- before any position is kept), and the JIT stitches its traces around
-- the C call. Everything else stays compiled; per request this costs less
-- than the specialised loops did (docs/performance.md).
-- tests/lua/traverse_spec.lua and tests/integration/conn/test_flow_stress.sh
-- hold the defect down.

-- install(walk): walk(t, k) must be next's equal (the same order, nil
-- after the last key, an error for a key not in t).
return function(walk)
  pairs = function(t)
    if type(t) ~= "table" then
      error(("bad argument #1 to 'pairs' (table expected, got %s)"):format(t == nil and "nil" or type(t)), 2)
    end
    return walk, t, nil
  end
  next = walk
end
