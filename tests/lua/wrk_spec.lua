-- wrk.format builds requests as wrk's does (lua/wrk.lua).
package.path = "lua/?.lua;" .. package.path
local wrk = require("wrk")

describe("wrk.format", function()
  before_each(function()
    wrk.method, wrk.path, wrk.headers, wrk.body = "GET", "/", { Host = "example:8080" }, nil
  end)

  it("formats the default request from the wrk fields", function()
    assert.are.equal("GET / HTTP/1.1\r\nHost: example:8080\r\n\r\n", wrk.format())
  end)

  it("takes method, path and body, and sets Content-Length", function()
    local r = wrk.format("POST", "/items?x=1", {}, "abc")
    assert.truthy(r:match("^POST /items%?x=1 HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nContent%-Length: 3\r\n"))
    assert.truthy(r:find("\r\nHost: example:8080\r\n"))
    assert.truthy(r:match("\r\n\r\nabc$"))
  end)

  it("keeps a Host header given in any case and copies no second one", function()
    local r = wrk.format(nil, nil, { host = "other" })
    assert.truthy(r:find("\r\nhost: other\r\n"))
    assert.falsy(r:find("Host: example"))
  end)

  it("does not change the header table it is given", function()
    local h = { ["X-A"] = "1" }
    wrk.format("PUT", "/", h, "body")
    assert.are.same({ ["X-A"] = "1" }, h)
  end)
end)
