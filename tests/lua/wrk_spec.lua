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

  it("leaves out a Content-Length header when there is no body, as wrk does", function()
    local r = wrk.format("POST", "/", { ["Content-Length"] = "5", ["content-length"] = "7" })
    assert.are.equal("POST / HTTP/1.1\r\nHost: example:8080\r\n\r\n", r)
    wrk.headers["Content-Length"] = "9"
    assert.are.equal("GET / HTTP/1.1\r\nHost: example:8080\r\n\r\n", wrk.format())
  end)

  it("replaces a Content-Length header with the body's length", function()
    local r = wrk.format("POST", "/", { ["Content-Length"] = "0" }, "abc")
    assert.are.equal("POST / HTTP/1.1\r\nHost: example:8080\r\nContent-Length: 3\r\n\r\nabc", r)
  end)

  it("does not change the header table it is given", function()
    local h = { ["X-A"] = "1" }
    wrk.format("PUT", "/", h, "body")
    assert.are.same({ ["X-A"] = "1" }, h)
  end)
end)

describe("wrk.format refuses CR, LF and NUL", function()
  before_each(function()
    wrk.method, wrk.path, wrk.headers, wrk.body = "GET", "/", { Host = "example:8080" }, nil
  end)

  -- The message of wrk.format(...)'s error, called from this file.
  local function format_error(...)
    local ok, err = pcall(function(...) local r = wrk.format(...); return r end, ...)
    assert.is_false(ok)
    return err
  end

  it("in a header value, naming the header but not the value", function()
    local err = format_error(nil, nil, { Authorization = "Bearer t\r\nX-Injected: 1" })
    assert.truthy(err:find('wrk.format: header "Authorization" value contains CR/LF/NUL$'))
    assert.falsy(err:find("Injected"))
    for _, v in ipairs({ "a\rb", "a\nb", "a\0b" }) do
      assert.truthy(format_error(nil, nil, { ["X-A"] = v }):find('header "X%-A" value contains CR/LF/NUL'))
    end
  end)

  it("in a header name, the method and the path, shown escaped on one line", function()
    assert.truthy(format_error(nil, nil, { ["X-A\r\nX-B"] = "1" })
      :find('wrk.format: header name "X%-A\\x0d\\x0aX%-B" contains CR/LF/NUL$'))
    assert.truthy(format_error("GET / HTTP/1.1\r\n\r\nDELETE", "/all")
      :find('wrk.format: method "GET / HTTP/1.1\\x0d\\x0a\\x0d\\x0aDELETE" contains CR/LF/NUL$'))
    assert.truthy(format_error(nil, "/a\0b"):find('wrk.format: path "/a\\x00b" contains CR/LF/NUL$'))
  end)

  it("in the wrk fields and the default Host", function()
    wrk.path = "/x\n"
    assert.truthy(format_error():find("path"))
    wrk.path = "/"
    wrk.headers.Host = "h\r\nX: 1"
    assert.truthy(format_error(nil, nil, {}):find('header "Host" value contains CR/LF/NUL$'))
  end)

  it("names the line that called it", function()
    local err = format_error(nil, nil, { ["X-A"] = "\n" })
    assert.truthy(err:match("^[^:]*wrk_spec%.lua:%d+: wrk%.format: "), err)
  end)

  it("accepts TAB, other control bytes and anything in the body", function()
    local r = wrk.format("POST", "/", { ["X-A"] = "a\tb\1" }, "line1\r\nline2\0")
    assert.truthy(r:find("\r\nX%-A: a\tb\1\r\n"))
    assert.truthy(r:match("\r\n\r\nline1\r\nline2%z$"))
  end)

  it("leaves a number value alone", function()
    assert.truthy(wrk.format(nil, nil, { ["X-N"] = 5 }):find("\r\nX%-N: 5\r\n"))
  end)
end)

describe("wrk.format's table form", function()
  local named
  before_each(function()
    wrk.method, wrk.path, wrk.headers, wrk.body = "GET", "/", { Host = "example:8080", ["X-A"] = "1" }, nil
    named = {}
    wrk._name = function(name, prefix, level) named[#named + 1] = { name, prefix, level } end
  end)

  it("formats a table as a request table: wrk fields for what is missing, headers added", function()
    local r = wrk.format{ path = "/t", headers = { ["x-a"] = "2", ["X-B"] = "3" }, body = "hi" }
    assert.truthy(r:match("^GET /t HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nx%-a: 2\r\n"))
    assert.falsy(r:find("X-A: 1", 1, true))
    assert.truthy(r:find("\r\nX%-B: 3\r\n"))
    assert.truthy(r:find("\r\nContent%-Length: 2\r\n\r\nhi$"))
    assert.are.equal(0, #named)
  end)

  it("names the request through wrk._name", function()
    wrk.format{ path = "/t", name = "item" }
    assert.are.same({ "item", "wrk.format: ", 3 }, named[1])
  end)

  it("refuses a field of the wrong type, at the caller's line", function()
    local ok, err = pcall(function() local r = wrk.format{ name = 5 }; return r end)
    assert.is_false(ok)
    assert.truthy(err:find("wrk.format: the table's name is a number (a string expected)", 1, true))
    assert.truthy(err:find("^[^:]*wrk_spec.lua:%d+:"))
  end)

  it("keeps the positional form as wrk's", function()
    assert.are.equal("GET /p HTTP/1.1\r\nHost: h\r\n\r\n", wrk.format(nil, "/p", { Host = "h" }))
  end)
end)

describe("wrk._set_host, the default Host as wrk.init makes it", function()
  before_each(function()
    wrk.host, wrk.port, wrk.headers = "example", nil, {}
  end)

  local function host()
    wrk._set_host()
    return wrk.headers.Host
  end

  it("is wrk.host, then :wrk.port when the port is set", function()
    assert.are.equal("example", host())
    wrk.headers, wrk.port = {}, "8080"
    assert.are.equal("example:8080", host())
    wrk.headers, wrk.host, wrk.port = {}, "localhost", 4001
    assert.are.equal("localhost:4001", host())
  end)

  it("puts an IPv6 address in brackets", function()
    wrk.host = "::1"
    assert.are.equal("[::1]", host())
    wrk.headers, wrk.port = {}, "443"
    assert.are.equal("[::1]:443", host())
  end)

  it("keeps a Host the headers have, in any case", function()
    wrk.headers = { host = "given" }
    wrk._set_host()
    assert.are.same({ host = "given" }, wrk.headers)
  end)

  it("refuses a wrk.host that is not a string", function()
    wrk.host = {}
    assert.has_error(function() wrk._set_host() end, "wrk.host is a table (a string expected)")
  end)
end)

describe("wrk._set_user_agent_header, volley's default User-Agent", function()
  after_each(function()
    wrk._set_user_agent(nil)
    wrk.headers = {}
  end)

  it("is none outside volley (no value set)", function()
    wrk.headers = { Host = "h" }
    wrk._set_user_agent_header()
    assert.are.same({ Host = "h" }, wrk.headers)
  end)

  it("adds the value volley set, and wrk.format of wrk.headers sends it", function()
    wrk._set_user_agent("volley/9.9")
    wrk.method, wrk.path, wrk.body, wrk.headers = "GET", "/", nil, { Host = "h" }
    wrk._set_user_agent_header()
    assert.are.same({ Host = "h", ["User-Agent"] = "volley/9.9" }, wrk.headers)
    assert.truthy(wrk.format():find("\r\nUser-Agent: volley/9.9\r\n", 1, true))
    -- wrk.format given its own headers sends those (and Host) only, as wrk
    assert.are.equal("GET / HTTP/1.1\r\nHost: h\r\n\r\n", wrk.format(nil, nil, {}))
  end)

  it("keeps a User-Agent the headers have, in any case (one header, never two)", function()
    wrk._set_user_agent("volley/9.9")
    wrk.headers = { ["user-AGENT"] = "mine" }
    wrk._set_user_agent_header()
    assert.are.same({ ["user-AGENT"] = "mine" }, wrk.headers)
  end)

  it("is replaced by a request table's own, in any case", function()
    wrk._set_user_agent("volley/9.9")
    wrk.method, wrk.path, wrk.body, wrk.headers = "GET", "/", nil, { Host = "h" }
    wrk._set_user_agent_header()
    local r = wrk.format({ headers = { ["USER-AGENT"] = "t/1" } })
    assert.truthy(r:find("\r\nUSER-AGENT: t/1\r\n", 1, true))
    assert.falsy(r:find("volley/9.9", 1, true))
  end)
end)
