-- lua/volley/traverse.lua: pairs and next as Lua gives them, walked outside
-- LuaJIT's compiler (Debian's LuaJIT miscompiles pairs() loops: the case
-- below walks 1 of 5 keys after about 40,000 passes without the module).
-- volley hands it next in C; here a Lua next the JIT may not compile
-- stands in for it (tests/integration/conn/test_flow_stress.sh runs the
-- same case in volley itself).
package.path = "lua/?.lua;" .. package.path

insulate("volley.traverse", function()
  local builtin_pairs, builtin_next = pairs, next
  local function walk(t, k) return builtin_next(t, k) end
  jit.off(walk)
  require("volley.traverse")(walk)

  it("replaces pairs and next in the state", function()
    assert.are_not.equal(builtin_pairs, pairs)
    assert.are_not.equal(builtin_next, next)
  end)

  it("walks every key once, as the builtins do", function()
    local t = { 10, 20, 30, a = 1, b = 2, [true] = "x" }
    local seen, n = {}, 0
    for k, v in pairs(t) do
      assert.is_nil(seen[k])
      seen[k] = v
      n = n + 1
    end
    assert.equal(6, n)
    assert.same(t, seen)
    local m = 0
    for _ in next, t do m = m + 1 end
    assert.equal(6, m)
    assert.is_nil(next({}))
    assert.equal("a", (next({ a = 1 })))
  end)

  it("refuses what the builtins refuse, naming pairs", function()
    assert.has_error(function() pairs(nil) end, "bad argument #1 to 'pairs' (table expected, got nil)")
    assert.has_error(function() pairs(3) end, "bad argument #1 to 'pairs' (table expected, got number)")
  end)

  it("keeps nested pairs() loops whole where the compiled ones end early", function()
    local t = { 1, 2, 3, 4, 5 }
    local tab = { a = t, b = t, c = t, d = t, e = t }
    local function f(...) for _ = 1, 100 do end end
    for i = 1, 100000 do
      f()
      local c = 0
      for _, v in pairs(tab) do
        for _ in pairs(v) do end
        c = c + 1
      end
      if c ~= 5 then error(("pass %d walked %d of 5 keys"):format(i, c)) end
    end
  end)
end)
