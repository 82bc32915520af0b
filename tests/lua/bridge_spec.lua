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

  it("rejects other types with a message", function()
    local ok, err = pcall(bridge.request, function() return 5 end)
    assert.is_false(ok)
    assert.are.equal("returned a number (a string, a table or nil expected)", err)
  end)
end)
