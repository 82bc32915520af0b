-- lua/volley/json.lua: a strict decoder (every error kind with its byte)
-- and a simple encoder.
package.path = "lua/?.lua;" .. package.path
local json = require("volley.json")

-- The error message of a document that must not decode.
local function err(s)
  local v, msg = json.decode(s)
  assert.is_nil(v)
  return msg
end

describe("json.decode", function()
  it("decodes objects, arrays and scalars", function()
    assert.are.same({ a = 1, b = { true, false, "x" }, c = {} },
      json.decode('{"a":1,"b":[true,false,"x"],"c":{}}'))
    assert.are.same({}, json.decode("[]"))
    assert.are.equal("s", json.decode('"s"'))
    assert.are.equal(42, json.decode("42"))
    assert.is_true(json.decode("true"))
    assert.is_false(json.decode("false"))
  end)

  it("allows whitespace around values and tokens", function()
    assert.are.same({ a = { 1, 2 } }, json.decode(' \t\r\n{ "a" :\n[ 1 ,\t2 ] }\n '))
  end)

  it("decodes null to json.null, keeping array length and object keys", function()
    local t = json.decode('{"a":null,"b":[1,null,3]}')
    assert.are.equal(json.null, t.a)
    assert.are.equal(3, #t.b)
    assert.are.equal(json.null, t.b[2])
    assert.are.equal(json.null, json.decode("null"))
  end)

  it("decodes the items document of volley-target", function()
    local t = json.decode('{"items":[{"id":1,"name":"item-1"},{"id":2,"name":"item-2"}]}')
    assert.are.equal(2, #t.items)
    assert.are.equal(2, t.items[2].id)
    assert.are.equal("item-2", t.items[2].name)
  end)

  it("decodes a large array", function()
    local parts = {}
    for i = 1, 10000 do parts[i] = ('{"id":%d,"name":"item-%d"}'):format(i, i) end
    local t = json.decode('{"items":[' .. table.concat(parts, ",") .. "]}")
    assert.are.equal(10000, #t.items)
    assert.are.equal("item-10000", t.items[10000].name)
  end)

  it("decodes nesting", function()
    assert.are.same({ { { { a = { { {} } } } } } }, json.decode('[[[{"a":[[{}]]}]]]'))
    local deep = string.rep("[", 100) .. string.rep("]", 100)
    local t = json.decode(deep)
    for _ = 1, 99 do t = t[1] end
    assert.are.same({}, t)
  end)

  it("lets the last of duplicate keys win", function()
    assert.are.same({ a = 2 }, json.decode('{"a":1,"a":2}'))
  end)

  describe("numbers", function()
    local cases = {
      { "0", 0 }, { "-0", 0 }, { "7", 7 }, { "-12", -12 }, { "3.25", 3.25 },
      { "-0.5", -0.5 }, { "1e3", 1000 }, { "1E3", 1000 }, { "1e+3", 1000 },
      { "25e-2", 0.25 }, { "-1.5E-1", -0.15 }, { "0e0", 0 },
      { "12345678901234", 12345678901234 },
    }
    for _, c in ipairs(cases) do
      it("decodes " .. c[1], function()
        assert.are.equal(c[2], json.decode(c[1]))
      end)
    end

    it("decodes numbers inside arrays", function()
      assert.are.same({ 1, -2, 0.5, 100 }, json.decode("[1,-2,0.5,1e2]"))
    end)
  end)

  describe("strings", function()
    it("decodes the simple escapes", function()
      assert.are.equal('"\\/\b\f\n\r\t', json.decode([["\"\\\/\b\f\n\r\t"]]))
    end)

    it("decodes \\u escapes to UTF-8 of 1 to 3 bytes", function()
      assert.are.equal("A", json.decode([["\u0041"]]))
      assert.are.equal("\0", json.decode([["\u0000"]]))
      assert.are.equal("\195\169", json.decode([["\u00e9"]]))   -- é
      assert.are.equal("\195\169", json.decode([["\u00E9"]]))
      assert.are.equal("\226\130\172", json.decode([["\u20ac"]])) -- €
      assert.are.equal("\239\191\191", json.decode([["\uffff"]]))
    end)

    it("decodes a surrogate pair to one 4-byte character", function()
      assert.are.equal("\240\159\152\128", json.decode([["\ud83d\ude00"]])) -- U+1F600
      assert.are.equal("x\240\144\128\128y", json.decode([["x\uD800\uDC00y"]]))
    end)

    it("keeps text around escapes", function()
      assert.are.equal("ab\ncd\te", json.decode([["ab\ncd\te"]]))
    end)

    it("passes UTF-8 and DEL through", function()
      assert.are.equal("é\127", json.decode('"é\127"'))
    end)

    it("decodes escaped keys", function()
      assert.are.same({ ["a\"b"] = 1 }, json.decode([[{"a\"b":1}]]))
    end)
  end)

  describe("errors", function()
    local cases = {
      { "", "invalid JSON at byte 1: unexpected end of input" },
      { "   ", "invalid JSON at byte 4: unexpected end of input" },
      { "[1 2]", "invalid JSON at byte 4: expected ',' or ']'" },
      { "[1,]", "invalid JSON at byte 4: expected a value" },
      { "[,1]", "invalid JSON at byte 2: expected a value" },
      { "[1", "invalid JSON at byte 3: unexpected end of input, expected ',' or ']'" },
      { '{"a":1 "b":2}', "invalid JSON at byte 8: expected ',' or '}'" },
      { '{"a" 1}', "invalid JSON at byte 6: expected ':'" },
      { "{a:1}", "invalid JSON at byte 2: expected a string key" },
      { "{1:1}", "invalid JSON at byte 2: expected a string key" },
      { '{"a":1,}', "invalid JSON at byte 8: expected a string key" },
      { '{"a":}', "invalid JSON at byte 6: expected a value" },
      { '{"items":[{"id":1,',
        "invalid JSON at byte 19: unexpected end of input, expected a string key" },
      { "[1] x", "invalid JSON at byte 5: expected the end of input" },
      { "{} {}", "invalid JSON at byte 4: expected the end of input" },
      { "truex", "invalid JSON at byte 5: expected the end of input" },
      { "tru", "invalid JSON at byte 1: expected a value" },
      { "nul", "invalid JSON at byte 1: expected a value" },
      { "True", "invalid JSON at byte 1: expected a value" },
      { "'a'", "invalid JSON at byte 1: expected a value" },
      { "+1", "invalid JSON at byte 1: expected a value" },
      { ".5", "invalid JSON at byte 1: expected a value" },
      { "NaN", "invalid JSON at byte 1: expected a value" },
      { "01", "invalid JSON at byte 2: leading zero in number" },
      { "-01", "invalid JSON at byte 3: leading zero in number" },
      { "-", "invalid JSON at byte 2: unexpected end of input, expected a digit" },
      { "-a", "invalid JSON at byte 2: expected a digit" },
      { "1.", "invalid JSON at byte 3: unexpected end of input, expected a digit" },
      { "[1.e5]", "invalid JSON at byte 4: expected a digit" },
      { "1e", "invalid JSON at byte 3: unexpected end of input, expected a digit" },
      { "[1e+]", "invalid JSON at byte 5: expected a digit" },
      { '"abc', "invalid JSON at byte 5: unterminated string" },
      { '"abc\\', "invalid JSON at byte 6: unterminated string" },
      { '"a\\x"', "invalid JSON at byte 3: invalid escape" },
      { '"a\\U0041"', "invalid JSON at byte 3: invalid escape" },
      { '"\\u12"', "invalid JSON at byte 2: invalid \\u escape" },
      { '"\\u12g4"', "invalid JSON at byte 2: invalid \\u escape" },
      { '"\\ud800"', "invalid JSON at byte 2: unpaired surrogate" },
      { '"\\ud800\\u0041"', "invalid JSON at byte 2: unpaired surrogate" },
      { '"\\ud800\\uzzzz"', "invalid JSON at byte 8: invalid \\u escape" },
      { '"\\udc00"', "invalid JSON at byte 2: unpaired surrogate" },
      { '"a\tb"', "invalid JSON at byte 3: control character in string" },
      { '"a\nb"', "invalid JSON at byte 3: control character in string" },
      { '"a\0b"', "invalid JSON at byte 3: control character in string" },
    }
    for _, c in ipairs(cases) do
      it(("reports %q"):format(c[1]), function()
        assert.are.equal(c[2], err(c[1]))
      end)
    end

    it("refuses nesting deeper than json.max_depth", function()
      local n = json.max_depth
      assert.is_table(json.decode(string.rep("[", n) .. string.rep("]", n)))
      assert.are.equal(("invalid JSON at byte %d: nested too deeply"):format(n + 1),
        err(string.rep("[", n + 1) .. string.rep("]", n + 1)))
    end)

    it("raises an error for a non-string argument", function()
      assert.has_error(function() json.decode(nil) end,
        "json.decode: expected a string, got nil")
      assert.has_error(function() json.decode({}) end,
        "json.decode: expected a string, got table")
    end)
  end)
end)

describe("json.null", function()
  it("is read-only and prints as json.null", function()
    assert.has_error(function() json.null.x = 1 end)
    assert.are.equal("json.null", tostring(json.null))
  end)
end)

describe("json.encode", function()
  it("encodes scalars", function()
    assert.are.equal("null", json.encode(nil))
    assert.are.equal("null", json.encode(json.null))
    assert.are.equal("true", json.encode(true))
    assert.are.equal("false", json.encode(false))
    assert.are.equal("12", json.encode(12))
    assert.are.equal("-3", json.encode(-3))
    assert.are.equal("0.1", json.encode(0.1))
    assert.are.equal("1e+100", json.encode(1e100))
    assert.are.equal('"hi"', json.encode("hi"))
  end)

  it("escapes strings", function()
    assert.are.equal([["a\"b\\c\n\t\u0001"]], json.encode('a"b\\c\n\t\1'))
  end)

  it("writes arrays, and objects with sorted keys", function()
    assert.are.equal('[1,"a",true]', json.encode({ 1, "a", true }))
    assert.are.equal('{"a":[1,2],"b":{"c":null},"z":1}',
      json.encode({ z = 1, a = { 1, 2 }, b = { c = json.null } }))
    assert.are.equal("{}", json.encode({}))
  end)

  it("round-trips through decode", function()
    local v = { user = "user-1", tags = { "a", "é", "\0" }, n = -1.5e-7, ok = false }
    assert.are.same(v, json.decode(json.encode(v)))
  end)

  it("returns nil and a message for what JSON cannot hold", function()
    local function msg(v) return select(2, json.encode(v)) end
    assert.are.equal("json.encode: cannot encode a function", msg(print))
    assert.are.equal("json.encode: cannot encode a number key", msg({ 1, 2, x = 3 }))
    assert.are.equal("json.encode: cannot encode NaN", msg(0 / 0))
    assert.are.equal("json.encode: cannot encode inf", msg(math.huge))
    assert.are.equal("json.encode: cannot encode -inf", msg(-math.huge))
    local t = {}
    t.self = t
    assert.are.equal("json.encode: cannot encode a table that contains itself", msg(t))
  end)
end)
