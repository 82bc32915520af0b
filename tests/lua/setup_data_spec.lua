-- lua/volley/setup_data.lua: setup()'s data carried as JSON text and
-- rebuilt read-only (reads, #, pairs and ipairs work; writes name the field).
package.path = "lua/?.lua;" .. package.path
local setup_data = require("volley.setup_data")

-- The error of encoding v, without a position.
local function encode_err(v)
  local ok, e = pcall(setup_data.encode, v)
  assert.is_false(ok)
  return e
end

describe("setup_data.encode", function()
  it("carries plain data, nested, and gives the same text for the same data", function()
    local v = { token = "abc", n = 3, ok = true, users = { "a", "b" }, deep = { x = { y = 1.5 } } }
    local text = setup_data.encode(v)
    assert.are.equal(text, setup_data.encode(v))
    assert.are.equal('{"deep":{"x":{"y":1.5}},"n":3,"ok":true,"token":"abc","users":["a","b"]}', text)
  end)

  it("gives nil for nil, and scalars as they are", function()
    assert.is_nil(setup_data.encode(nil))
    assert.are.equal('"tok"', setup_data.encode("tok"))
    assert.are.equal("42", setup_data.encode(42))
  end)

  it("names the path of a function, a userdata, a coroutine", function()
    assert.are.equal("setup() returned a function at .auth.refresh (setup data is plain data: strings, numbers,"
      .. " booleans and tables of them)", encode_err({ auth = { refresh = function() end } }))
    assert.matches("returned a userdata at .list%[2%]", encode_err({ list = { 1, io.stdout } }))
    assert.matches("returned a thread at %.co", encode_err({ co = coroutine.create(print) }))
    assert.matches('returned a function at %["a b"%]', encode_err({ ["a b"] = print }))
    assert.matches("^setup%(%) returned a function %(", encode_err(print))
  end)

  it("refuses a cycle, a mixed table, and numbers that are not finite, with the path", function()
    local t = { a = {} }
    t.a.back = t
    assert.matches("contains itself at %.a%.back", encode_err(t))
    assert.matches("a number key 1 at %.m", encode_err({ m = { 1, x = 2 } }))
    assert.matches("the number nan at %.x", encode_err({ x = 0 / 0 }))
    assert.matches("the number inf at %.x", encode_err({ x = math.huge }))
  end)

  it("refuses data past its bound", function()
    local saved = setup_data.MAX_BYTES
    setup_data.MAX_BYTES = 10
    local e = encode_err({ token = "0123456789" })
    setup_data.MAX_BYTES = saved
    assert.matches("more than", e)
  end)
end)

describe("setup_data.decode", function()
  setup_data.install_iterators()
  local d = setup_data.decode(setup_data.encode({ token = "abc", list = { "x", "y", "z" }, nested = { k = 1 } }),
    "setup()")

  it("reads fields, lengths and nested tables", function()
    assert.are.equal("abc", d.token)
    assert.are.equal(3, #d.list)
    assert.are.equal("y", d.list[2])
    assert.are.equal(1, d.nested.k)
    assert.is_nil(d.missing)
  end)

  it("walks with pairs and ipairs", function()
    local keys = {}
    for k in pairs(d) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({ "list", "nested", "token" }, keys)
    local vals = {}
    for i, v in ipairs(d.list) do vals[i] = v end
    assert.are.same({ "x", "y", "z" }, vals)
    -- plain tables still iterate as before
    local n = 0
    for _ in pairs({ a = 1, b = 2 }) do n = n + 1 end
    assert.are.equal(2, n)
  end)

  it("refuses writes, naming the field", function()
    local ok, e = pcall(function() d.token = "other" end)
    assert.is_false(ok)
    assert.matches("u%.setup%.token is read%-only", e)
    ok, e = pcall(function() d.nested.k = 2 end)
    assert.matches("u%.setup%.nested%.k is read%-only", e)
    ok, e = pcall(function() d.list[4] = "w" end)
    assert.matches("u%.setup%.list%[4%] is read%-only", e)
    assert.are.equal("abc", d.token)
  end)

  it("gives a copy that may change", function()
    local c = setup_data.copy(d)
    c.token = "mine"
    assert.are.equal("mine", c.token)
    assert.are.equal("abc", d.token)
    assert.are.same({ "x", "y", "z" }, c.list)
  end)

  it("reads null at the top as no data (what --setup-only writes for nil)", function()
    assert.is_nil(setup_data.decode("null", "--setup-data s.json"))
    assert.is_nil(setup_data.decode(nil, "setup()"))
  end)

  it("refuses text that is not JSON, and null, naming the source", function()
    local ok, e = pcall(setup_data.decode, "{", "--setup-data s.json")
    assert.is_false(ok)
    assert.matches("^%-%-setup%-data s%.json: invalid JSON", e)
    ok, e = pcall(setup_data.decode, '{"a":[1,null]}', "--setup-data s.json")
    assert.matches("null at %.a%[2%]", e)
  end)
end)
