-- lua/volley/bridge.lua: what a request() hook returns becomes bytes.
package.path = "lua/?.lua;" .. package.path
local wrk = require("wrk")
local bridge = require("volley.bridge")

describe("bridge.request", function()
  before_each(function()
    wrk.method, wrk.path, wrk.headers, wrk.body = "GET", "/", { Host = "h" }, nil
  end)

  it("passes a string through", function()
    assert.are.equal("raw", bridge.request(function() return "raw" end))
  end)

  it("gives the default request for nil", function()
    assert.are.equal("GET / HTTP/1.1\r\nHost: h\r\n\r\n", bridge.request(function() end))
  end)

  it("merges a table with the defaults", function()
    wrk.headers["X-A"] = "1"
    local r = bridge.request(function() return { path = "/p", headers = { ["X-B"] = "2" } } end)
    assert.truthy(r:match("^GET /p HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nX%-A: 1\r\n"))
    assert.truthy(r:find("\r\nX%-B: 2\r\n"))
  end)

  it("passes the connection table to the hook", function()
    local seen
    bridge.request(function(conn) seen = conn; return "x" end, { id = 3 })
    assert.are.equal(3, seen.id)
  end)

  it("refuses CR/LF in a table's header, with no position (C adds the hook's)", function()
    local ok, err = pcall(bridge.request, function()
      return { headers = { Authorization = "Bearer x\r\nX-Injected: 1" } }
    end)
    assert.is_false(ok)
    assert.are.equal('wrk.format: header "Authorization" value contains CR/LF/NUL', err)
    ok, err = pcall(bridge.request, function() return { method = "GET /a HTTP/1.1\r\n\r\nDELETE" } end)
    assert.is_false(ok)
    assert.truthy(err:find('^wrk.format: method "GET /a HTTP/1.1\\x0d'))
  end)

  it("sends a string as it is, CR/LF and all (the script's own bytes)", function()
    local raw = "GET / HTTP/1.1\r\nX-A: 1\r\n\r\n"
    assert.are.equal(raw, bridge.request(function() return raw end))
  end)

  it("checks a table's name, with no position (C adds the hook's)", function()
    local ok, err = pcall(bridge.request, function() return { path = "/", name = 5 } end)
    assert.is_false(ok)
    assert.are.equal("returned a table whose name is a number (a string expected)", err)
  end)

  it("rejects other types with a message", function()
    local ok, err = pcall(bridge.request, function() return 5 end)
    assert.is_false(ok)
    assert.are.equal("returned a number (a string, a table or nil expected)", err)
  end)

  describe("a table's keys", function()
    -- The nearest name is C's (src/base/nearest.c, through the FFI): stubbed
    -- here with what it answers, and checked to be asked about the keys.
    local api = require("volley.api")
    local real, asked
    before_each(function()
      real, asked = api.nearest, {}
      api.nearest = function(word, list)
        asked[#asked + 1] = word .. "|" .. list
        return ({ pth = "path", header = "headers" })[word]
      end
    end)
    after_each(function() api.nearest = real end)

    it("refuses an unknown key, naming the nearest field", function()
      local ok, err = pcall(bridge.request, function() return { pth = "/x" } end)
      assert.is_false(ok)
      assert.are.equal('unknown key "pth" in the request table (did you mean "path"?)', err)
      assert.are.same({ "pth|method path headers body name stream" }, asked)
    end)

    it("lists the fields when none is near", function()
      local ok, err = pcall(bridge.request, function() return { path = "/", zzz = 1 } end)
      assert.is_false(ok)
      assert.are.equal('unknown key "zzz" in the request table (its keys are method, path, headers, body, name and stream)',
        err)
    end)

    it("names a key that is not a string as it is", function()
      local ok, err = pcall(bridge.request, function() return { "/x" } end)
      assert.is_false(ok)
      assert.are.equal("unknown key 1 in the request table (its keys are method, path, headers, body, name and stream)", err)
      assert.are.same({}, asked)
    end)

    it("takes every known field", function()
      local r = bridge.request(function()
        return { method = "POST", path = "/p", headers = { ["X-A"] = "1" }, body = "b" }
      end)
      assert.truthy(r:match("^POST /p HTTP/1%.1\r\n"))
      assert.are.same({}, asked)
    end)

    it("knows name (which needs a worker's state: none is bound here)", function()
      local ok, err = pcall(bridge.request, function() return { path = "/p", name = "post" } end)
      assert.is_false(ok)
      assert.truthy(err:find("not available", 1, true), err)
      assert.is_nil(err:find("unknown key", 1, true))
    end)
  end)
end)

describe("bridge response verdicts", function()
  local function failures() return bridge.failures end

  before_each(function()
    for k in pairs(bridge.failures) do bridge.failures[k] = nil end
  end)

  it("counts false, reason by reason", function()
    local bound, reads, arity = bridge.bind_response(function(conn, res)
      if conn.bad then return false, "bad one" end
    end, true)
    assert.is_true(reads)
    assert.are.equal(2, arity)
    assert.is_false(bound({}))
    assert.is_true(bound({ bad = true }))
    assert.is_true(bound({ bad = true }))
    assert.are.equal(2, failures()["bad one"])
  end)

  it("names a missing reason and stringifies others", function()
    local bound = bridge.bind_response(function(conn) return false, conn.reason end, true)
    bound({})
    bound({ reason = 42 })
    assert.are.equal(1, failures()["response() returned false"])
    assert.are.equal(1, failures()["42"])
  end)

  it("accepts true and nothing, rejects other types", function()
    local bound = bridge.bind_response(function(conn) return conn.r end, true)
    assert.is_false(bound({ r = true }))
    assert.is_false(bound({}))
    local ok, err = pcall(bound, { r = "yes" })
    assert.is_false(ok)
    assert.are.equal("returned a string (nothing, true, or false and a reason expected)", err)
  end)

  it("reads a wrk-style hook's arity from its parameters", function()
    local _, reads, arity = bridge.bind_response(function() end, false)
    assert.are.same({ false, 1 }, { reads, arity })
    _, reads, arity = bridge.bind_response(function(status, headers) end, false)
    assert.are.same({ true, 2 }, { reads, arity })
    _, reads, arity = bridge.bind_response(function(...) end, false)
    assert.are.same({ true, 3 }, { reads, arity })
  end)
end)

describe("volley outside a worker", function()
  it("refuses custom metrics in the main state, naming the phase", function()
    bridge.start(nil)
    bridge.set_phase("setup")
    local ok, err = pcall(volley.counter, "x")
    assert.is_false(ok)
    assert.truthy(err:find("volley.counter: not available in setup()", 1, true))
  end)

  it("refuses request names in the main state, naming the phase", function()
    bridge.start(nil)
    bridge.set_phase("done")
    local ok, err = pcall(volley.name, "x")
    assert.is_false(ok)
    assert.truthy(err:find("volley.name: not available in done() (the main state)", 1, true))
    ok, err = pcall(wrk.format, { name = "x" })
    assert.is_false(ok)
    assert.truthy(err:find("wrk.format: name: not available in done()", 1, true))
  end)
end)
