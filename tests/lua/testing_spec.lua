-- volley.testing, the fake flow user: its routes, request bytes,
-- redirects, cookies, checks, groups, sleeps and failures (each as
-- volley.flow has them), and examples.shop unit-tested with it against a
-- small model of the shop kept in Lua.
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local testing = require("volley.testing")
local http = require("volley.flow_http")
local json = require("volley.json")

-- A scenario of one user function.
local function flow(fn) return { user = fn } end

local HERE = "tests/lua/testing_spec.lua"

describe("volley.testing", function()
  describe("routes", function()
    it("answers an exact METHOD /path, with the query or without it", function()
      local u = testing.user{ responses = {
        ["GET /a"] = { status = 201, body = "a" },
        ["GET /a?x=1"] = { body = "a with x" },
      } }
      local seen = {}
      testing.run(flow(function(u)
        seen[1] = u:get("/a").body
        seen[2] = u:get("/a?x=1").body
        seen[3] = u:get("/a?y=2").body
      end), u)
      assert.are.same({ "a", "a with x", "a" }, seen)
    end)

    it("answers a trailing * as a prefix, the longest prefix first, for its method only", function()
      local u = testing.user{ responses = {
        ["GET /items/*"] = { body = "item" },
        ["GET /items/special*"] = { body = "special" },
        ["POST /items/*"] = { status = 204 },
      } }
      local got = {}
      testing.run(flow(function(u)
        got[1] = u:get("/items/3").body
        got[2] = u:get("/items/special/1").body
        got[3] = u:post("/items/3").status
      end), u)
      assert.are.same({ "item", "special", 204 }, got)
    end)

    it("calls a function route with the request as sent (form and JSON bodies readable)", function()
      local reqs = {}
      local u = testing.user{ responses = {
        ["POST /form"] = function(req)
          reqs[#reqs + 1] = req
          return { status = 200, body = req:form().who }
        end,
        ["POST /json"] = function(req)
          reqs[#reqs + 1] = req
          return { json = { got = req:json().n + 1 } }
        end,
      } }
      local body, n
      testing.run(flow(function(u)
        body = u:post("/form", { form = { who = "a b&c" } }).body
        n = u:post("/json", { json = { n = 41 } }):json().got
      end), u)
      assert.are.equal("a b&c", body)
      assert.are.equal(42, n)
      assert.are.equal("who=a%20b%26c", reqs[1].body)
      assert.are.equal("application/x-www-form-urlencoded", reqs[1].headers["content-type"])
      assert.are.equal("application/json", reqs[2].headers["Content-Type"])
    end)

    it("raises a request with no canned response out of run, naming it and the script's line", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local line = debug.getinfo(1, "l").currentline + 3
      local ok, err = pcall(testing.run, flow(function(u)
        -- even a script that catches its errors does not hide it
        pcall(function() u:get("/x") end)
      end), u)
      assert.is_false(ok)
      assert.are.equal(("testing.run: no canned response for GET /x (requested at %s:%d)"):format(HERE, line),
        err:match("testing%.run: .*"))
    end)

    it("refuses a bad canned response and a bad responses key", function()
      local u = testing.user{ responses = { ["GET /"] = { stauts = 200 } } }
      assert.has_error(function() testing.run(flow(function(u) u:get("/") end), u) end)
      local ok, err = pcall(testing.run, flow(function(u) u:get("/") end), u)
      assert.is_false(ok)
      assert.truthy(err:find('the canned response of "GET /" to GET /: unknown field stauts', 1, true))
      ok, err = pcall(testing.user, { responses = { ["get /"] = {} } })
      assert.is_false(ok)
      assert.truthy(err:find('responses key "get /" is not "METHOD /path", or "METHOD /prefix*"', 1, true))
      ok, err = pcall(testing.user, { respones = {} })
      assert.truthy(err:find("testing.user: unknown key respones", 1, true))
      u = testing.user{ responses = { ["GET /"] = { error = "refused" } } }
      ok, err = pcall(testing.run, flow(function(u) u:get("/") end), u)
      assert.truthy(err:find('error "refused" is not a failure kind', 1, true))
    end)
  end)

  describe("requests", function()
    it("sends the bytes volley.flow would: Host, -H headers, opts.headers, cookie, body", function()
      local u = testing.user{ target = "http://127.0.0.1:9292/", headers = { ["X-Run"] = "7" },
                              responses = { ["PUT /doc"] = { body = "" } } }
      local res = testing.run(flow(function(u)
        u:put("/doc", { json = { a = 1 }, headers = { ["X-One"] = "1" }, name = "doc" })
      end), u)
      local req = res.requests[1]
      assert.are.equal("PUT", req.method)
      assert.are.equal("/doc", req.path)
      assert.are.equal("doc", req.name)
      assert.are.equal('{"a":1}', req.body)
      assert.are.equal("127.0.0.1:9292", req.headers.host)
      assert.are.equal("7", req.headers["x-run"])
      assert.are.equal("1", req.headers["X-One"])
      -- the same lines (the base headers' order is pairs')
      local function lines(raw)
        local t = {}
        for l in raw:gmatch("[^\n]*\n?") do t[#t + 1] = l end
        table.sort(t)
        return t
      end
      assert.are.same(lines(http.build("u:put", "PUT", "/doc", { ["X-One"] = "1" },
        { ["X-Run"] = "7", Host = "127.0.0.1:9292", ["User-Agent"] = "volley/testing" }, '{"a":1}',
        "application/json", nil, 1)), lines(req.raw))
    end)

    it("sends User-Agent volley/testing unless the headers or opts.headers give one, in any case", function()
      local u = testing.user{ responses = { ["GET /*"] = { body = "" } } }
      local res = testing.run(flow(function(u)
        u:get("/a")
        u:get("/b", { headers = { ["user-AGENT"] = "mine" } })
      end), u)
      assert.are.equal("volley/testing", res.requests[1].headers["user-agent"])
      assert.are.equal("mine", res.requests[2].headers["user-agent"])
      assert.are.equal(1, select(2, res.requests[2].raw:lower():gsub("\r\nuser%-agent:", "")))
      u = testing.user{ headers = { ["USER-AGENT"] = "cli" }, responses = { ["GET /*"] = { body = "" } } }
      res = testing.run(flow(function(u) u:get("/a") end), u)
      assert.are.equal("cli", res.requests[1].headers["user-agent"])
      assert.are.equal(1, select(2, res.requests[1].raw:lower():gsub("\r\nuser%-agent:", "")))
    end)

    it("takes an absolute URL of the target, and refuses another origin as volley does", function()
      local u = testing.user{ target = "http://localhost:8080", responses = { ["GET /p"] = { body = "p" } } }
      local seen = {}
      local res = testing.run(flow(function(u)
        assert.are.equal("p", u:get("http://LOCALHOST:8080/p").body)
        local r = u:get("http://example.com/p")
        seen[1], seen[2], seen[3] = r.failed, r.status, r.reason
        local b = u:batch({ "/p", "https://[::1]:8443/x" })
        seen[4], seen[5] = b[1].failed, b[2].reason
      end), u)
      -- a failed request, the flow going on (as k6's blocked hosts)
      assert.is_false(res.failed)
      assert.are.same({ true, 0, "host not allowed: example.com:80 (--allow-host)", false,
        "host not allowed: [::1]:8443 (--allow-host)" }, seen)
      res = testing.run(flow(function(u) u:get("ftp://example.com/p") end), u)
      assert.truthy(res.reason:find('u:get: "ftp://example.com/p" is not an http:// or https:// URL', 1, true))
    end)

    it("checks the options as volley does, at the script's line", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" }, ["DELETE /"] = { status = 204 } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) u:get("/", { nmae = "x" }) end), u)
      assert.are.equal(("%s:%d: u:get: unknown option \"nmae\" (the options are %s)"):format(HERE, line,
        http.OPT_NAMES), res.reason)
      res = testing.run(flow(function(u) u:get("/", { body = "a", json = {} }) end), u)
      assert.truthy(res.reason:find("u:get: give one of body, json, form and multipart", 1, true))
      res = testing.run(flow(function(u) u:get("/", { timeout = 0 }) end), u)
      assert.truthy(res.reason:find("u:get: opts.timeout 0 is not a time (seconds > 0", 1, true))
      res = testing.run(flow(function(u) u.get(nil, "/") end), u)
      assert.truthy(res.reason:find("u:get: call it as a method (u:get(...))", 1, true))
      res = testing.run(flow(function(u) u:request({ method = "DELETE", path = "/" }) end), u)
      assert.is_false(res.failed)
      assert.are.equal(1, #res.requests)
    end)
  end)

  describe("redirects", function()
    local function follow(method, status)
      local u = testing.user{ responses = {
        [method .. " /from"] = { status = status, headers = { Location = "/to" } },
        ["GET /to"] = { body = "got" },
        [method .. " /to"] = { body = "kept" },
      } }
      local last
      local res = testing.run(flow(function(u)
        local r = u:request({ method = method, path = "/from", body = "x", name = "hop" })
        last = { status = r.status, body = r.body, url = r.url }
      end), u)
      return res, last
    end

    it("turns a POST into a GET without its body on 301, 302 and 303", function()
      for _, status in ipairs({ 301, 302, 303 }) do
        local res, last = follow("POST", status)
        assert.are.equal(2, #res.requests)
        assert.are.equal("GET", res.requests[2].method)
        assert.are.equal("", res.requests[2].body)
        assert.is_nil(res.requests[2].headers["content-length"])
        assert.are.equal("hop", res.requests[2].name)
        assert.are.same({ status = 200, body = "got", url = "/to" }, last)
      end
    end)

    it("keeps the method and the body on 307 and 308, and a PUT on 303 becomes a GET", function()
      for _, status in ipairs({ 307, 308 }) do
        local res, last = follow("POST", status)
        assert.are.equal("POST", res.requests[2].method)
        assert.are.equal("x", res.requests[2].body)
        assert.are.equal("kept", last.body)
      end
      local res = follow("PUT", 303)
      assert.are.equal("GET", res.requests[2].method)
      res = follow("PUT", 302)
      assert.are.equal("PUT", res.requests[2].method)
    end)

    it("resolves a Location as RFC 3986 does: relative, query-only, dot segments, fragment, //host", function()
      local u = testing.user{ responses = {
        ["GET /a/b/c"] = { status = 302, headers = { Location = "../d?x=1#f" } },
        ["GET /a/d"] = { status = 302, headers = { Location = "?y=2" } },
        ["GET /a/d?y=2"] = { status = 302, headers = { Location = "//127.0.0.1:8080/e" } },
        ["GET /e"] = { status = 302, headers = { Location = "//elsewhere.example/e" } },
      } }
      local res = testing.run(flow(function(u) u:get("/a/b/c") end), u)
      assert.is_false(res.failed)
      assert.are.same({ "/a/b/c", "/a/d?x=1", "/a/d?y=2", "/e" }, { res.requests[1].path, res.requests[2].path,
                                                                   res.requests[3].path, res.requests[4].path })
    end)

    it("stops at opts.redirects hops, at another origin, and at 10 hops by default", function()
      local u = testing.user{ responses = {
        ["GET /loop"] = { status = 302, headers = { Location = "loop" } },
        ["GET /away"] = { status = 302, headers = { Location = "http://example.com/" } },
      } }
      local res = testing.run(flow(function(u)
        assert.are.equal(302, u:get("/loop", { redirects = 0 }).status)
        assert.are.equal(302, u:get("/away").status)
        assert.are.equal(302, u:get("/loop").status)
      end), u)
      assert.is_false(res.failed)
      assert.are.equal(1 + 1 + 11, #res.requests)
    end)
  end)

  describe("checks on redirects", function()
    -- A 3xx that is not followed is the final response: its check runs.
    local function checked_status(path, opts)
      local u = testing.user{ responses = {
        ["GET /away"] = { status = 302, headers = { Location = "http://example.com/x" } },
        ["GET /here"] = { status = 302, headers = { Location = "/to" } },
        ["GET /loop"] = { status = 307, headers = { Location = "/loop" } },
        ["GET /bare"] = { status = 301 },
        ["GET /to"] = { body = "to" },
      } }
      local seen = {}
      opts.check = function(r)
        seen[#seen + 1] = r.status
        return r.status == 200, "status " .. r.status
      end
      local got
      local res = testing.run(flow(function(u)
        local r = u:get(path, opts)
        got = { r.status, r.failed, r.reason }
      end), u)
      return got, seen, res
    end

    it("checks a redirect to another origin, one past opts.redirects, one at the hop limit, one with no Location", function()
      for _, case in ipairs({ { "/away", {} }, { "/here", { redirects = 0 } }, { "/loop", { redirects = 2 } },
                              { "/bare", {} } }) do
        local got, seen, res = checked_status(case[1], case[2])
        local status = case[1] == "/loop" and 307 or case[1] == "/bare" and 301 or 302
        assert.are.same({ status, true, "status " .. status }, got, case[1])
        assert.are.same({ status }, seen, case[1])
        assert.are.same({ ["status " .. status] = 1 }, res.request_failures, case[1])
      end
    end)

    it("checks only the final response of a redirect that is followed", function()
      local got, seen = checked_status("/here", {})
      assert.are.same({ 200, false }, got)
      assert.are.same({ 200 }, seen)
    end)
  end)

  describe("habits from k6 and Locust", function()
    it("takes u:sleep and opts.timeout in seconds or as a duration string", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local res = testing.run(flow(function(u)
        u:sleep(1)
        u:sleep("250ms")
        u:sleep("2s")
        u:sleep("1m")
        u:sleep("1.5s")
        u:get("/", { timeout = 2.5 })
        u:get("/", { timeout = "2500ms" })
      end), u)
      assert.is_false(res.failed, res.reason)
      assert.are.same({ 1, 0.25, 2, 60, 1.5 }, res.sleeps)
    end)

    it("refuses a time that is not finite, absurd, negative or not a duration", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      for _, bad in ipairs({ math.huge, -math.huge, 0 / 0, 1e300, 200 * 86400, -1, "fast", "5 parsecs", "", {} }) do
        local res = testing.run(flow(function(u) u:get("/", { timeout = bad }) end), u)
        assert.truthy(res.failed and res.reason:find("u:get: opts.timeout .* is not a time %(seconds > 0"), tostring(bad))
        res = testing.run(flow(function(u) u:sleep(bad) end), u)
        assert.truthy(res.failed and res.reason:find("u:sleep: .* is not a time %(seconds >= 0"), tostring(bad))
      end
    end)

    it("gives the timeout to volley in milliseconds", function()
      local t = { scheme = "http", host = "127.0.0.1", port = 8080 }
      assert.are.equal(2500, select(5, http.prepare("u:get", "GET", "/", { timeout = 2.5 }, t, 1)))
      assert.are.equal(2500, select(5, http.prepare("u:get", "GET", "/", { timeout = "2500ms" }, t, 1)))
      assert.are.equal(60000, select(5, http.prepare("u:get", "GET", "/", { timeout = "1m" }, t, 1)))
      assert.are.equal(0, select(5, http.prepare("u:get", "GET", "/", {}, t, 1)))
    end)

    it("refuses a path without its leading /, naming the fix", function()
      local u = testing.user{}
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) u:get("items/1") end), u)
      assert.are.equal(('%s:%d: u:get: the path "items/1" lacks its leading "/" (did you mean "/items/1"?)'):format(
        HERE, line), res.reason)
    end)

    it("names a misspelt method of u, and leaves the script's own fields nil", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) if u.token == nil then u:gett("/") end end), u)
      assert.are.equal(("%s:%d: u:gett is not a method of u (its methods are %s)"):format(HERE, line,
        http.METHOD_NAMES), res.reason)
      -- another table's missing method is left as Lua says it
      res = testing.run(flow(function(u) local t = {} u:get("/") t:gett() end), u)
      assert.truthy(res.reason:find("attempt to call method 'gett' (a nil value)", 1, true))
      local e = "x.lua:1: attempt to call method 'gett' (a nil value)"
      assert.are.equal(e, http.explain(e, { missed = "tok" }))
    end)

    it("counts a table of named check functions called with the value (k6's check(res, {...}))", function()
      local u = testing.user{ responses = { ["GET /"] = { status = 404 } } }
      local all
      local res = testing.run(flow(function(u)
        local r = u:get("/")
        all = u:check(r, {
          ["status is 200"] = function(r) return r.status == 200 end,
          ["answered"] = function(r) return r.status > 0 end,
        })
      end), u)
      assert.is_false(res.failed, res.reason)
      assert.is_false(all)
      assert.are.same({ ["status is 200"] = { passed = 0, failed = 1 }, answered = { passed = 1, failed = 0 } },
        res.checks)
    end)

    it("refuses a function given as u:check's condition or name, and a table of non-functions, showing the forms", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) u:check(function(r) return false end, "never") end), u)
      assert.are.equal(("%s:%d: u:check: a function is not called by u:check(cond, name), so it would always"
        .. ' pass: give a condition, u:check(r.status == 200, "never"), or a table of named functions of the'
        .. ' response, u:check(r, { ["never"] = function(r) return r.status == 200 end })'):format(HERE, line),
        res.reason)
      assert.are.same({}, res.checks)
      res = testing.run(flow(function(u) u:check(u:get("/"), function(r) return true end) end), u)
      assert.truthy(res.reason:find("u:check: a function is not called by u:check(cond, name)", 1, true))
      res = testing.run(flow(function(u) u:check(u:get("/"), { ok = true }) end), u)
      assert.truthy(res.reason:find('u:check: the check "ok" is a boolean: a table of checks maps names to functions', 1, true))
      assert.are.same({}, res.checks)
    end)

    it("refuses u's methods called in a coroutine of the script's own", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local got
      local line = debug.getinfo(1, "l").currentline + 3
      local res = testing.run(flow(function(u)
        local co = coroutine.wrap(function() return u:get("/") end)
        got = co()
      end), u)
      assert.is_nil(got)
      assert.are.equal(("%s:%d: u:get: called outside its user's coroutine (in a coroutine the script made, or"
        .. " outside user(u)): call u's methods from user(u) and the functions it calls, not inside"
        .. " coroutine.create or coroutine.wrap"):format(HERE, line), res.reason)
      assert.are.equal(0, #res.requests)
    end)
  end)

  describe("batches", function()
    it("builds every request before answering any, follows no redirect, checks each", function()
      local u = testing.user{ responses = {
        ["GET /a"] = { status = 302, headers = { Location = "/b", ["Set-Cookie"] = "k=1" } },
        ["GET /c"] = { body = "c" },
        ["POST /d"] = { status = 500 },
      } }
      local got
      local res = testing.run(flow(function(u)
        local rs = u:batch({ "/a", { path = "/c", name = "c" },
                             { method = "POST", path = "/d", json = { x = 1 }, check = function(r) return r.status == 200 end } })
        got = { #rs, rs[1].status, rs[1].url, rs[2].body, rs[3].failed, rs[3].reason }
        u:get("/c")
      end), u)
      assert.is_false(res.failed)
      assert.are.same({ 3, 302, "/a", "c", true, "check returned false" }, got)
      assert.are.same({ "/a", "/c", "/d", "/c" }, { res.requests[1].path, res.requests[2].path,
                                                   res.requests[3].path, res.requests[4].path })
      assert.is_nil(res.requests[2].headers.cookie)          -- the batch's cookies are those before it
      assert.are.equal("k=1", res.requests[4].headers.cookie) -- and kept after it
      assert.are.equal('{"x":1}', res.requests[3].body)
      assert.are.same({ ["check returned false"] = 1 }, res.request_failures)
    end)

    it("refuses a bad batch at the script's line, and returns {} for an empty one", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) assert(#u:batch({}) == 0) u:batch({ "/", 3 }) end), u)
      assert.are.equal(("%s:%d: u:batch: request 2 is a number (a path or a table of options expected)"):format(
        HERE, line), res.reason)
      res = testing.run(flow(function(u) u:batch({ { path = "/", nmae = "x" } }) end), u)
      assert.truthy(res.reason:find('u:batch: request 1: unknown option "nmae"', 1, true))
      res = testing.run(flow(function(u) u:batch("/") end), u)
      assert.truthy(res.reason:find("u:batch: a list of requests expected", 1, true))
    end)
  end)

  describe("cookies", function()
    it("stores Set-Cookie (each of a list), sends them back and keeps them across iterations", function()
      local u = testing.user{ responses = {
        ["POST /login"] = { status = 303, headers = { Location = "/home", ["Set-Cookie"] = { "sid=1", "lang=en; Path=/" } } },
        ["GET /home"] = { body = "home" },
      } }
      local res = testing.run(flow(function(u)
        if u.iteration == 1 then u:post("/login") else u:get("/home") end
        u:check(u.cookies.sid == "1", "sid readable")
      end), u, 2)
      assert.are.equal(3, #res.requests)
      assert.is_nil(res.requests[1].headers.cookie)
      assert.are.equal("sid=1; lang=en", res.requests[2].headers.cookie)
      assert.are.equal("sid=1; lang=en", res.requests[3].headers.cookie)
      assert.are.same({ passed = 2, failed = 0 }, res.checks["sid readable"])
    end)

    it("lets the script set a cookie through u.cookies", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "" } } }
      local res = testing.run(flow(function(u)
        u.cookies.theme = "dark"
        u:get("/")
      end), u)
      assert.are.equal("theme=dark", res.requests[1].headers.cookie)
    end)

    it("keeps and sends domain cookies for the Host header's host (-H Host), not the URL's", function()
      local u = testing.user{ target = "http://127.0.0.1:8080", headers = { Host = "www.shop.example:8080" },
        responses = {
          ["GET /login"] = { headers = { ["Set-Cookie"] = { "sid=1; Domain=shop.example", "own=2" } } },
          ["GET /home"] = { body = "" },
        } }
      local res = testing.run(flow(function(u)
        u:get("/login")
        u.cookies.mine = "3"
        u:get("/home")
      end), u)
      assert.are.equal("sid=1; own=2; mine=3", res.requests[2].headers.cookie)
    end)

    it("takes a request's own Host header (opts.headers, any case) over the command line's", function()
      local u = testing.user{ responses = {
        ["GET /a"] = { headers = { ["Set-Cookie"] = "sid=1; Domain=a.example" } },
        ["GET /b"] = { body = "" },
      } }
      local res = testing.run(flow(function(u)
        u:get("/a", { headers = { host = "x.a.example" } })
        u:get("/b", { headers = { HOST = "y.a.example" } })
        u:get("/b")
      end), u)
      assert.are.equal("sid=1", res.requests[2].headers.cookie)
      assert.is_nil(res.requests[3].headers.cookie) -- Host: 127.0.0.1:8080
    end)
  end)

  describe("checks, groups, sleeps and failures", function()
    it("counts u:check by name and returns its condition", function()
      local u = testing.user{}
      local res = testing.run(flow(function(u)
        assert.are.equal(3, u:check(3, "a"))
        u:check(false, "a")
        u:check(nil, "b")
      end), u)
      assert.are.same({ a = { passed = 1, failed = 1 }, b = { passed = 0, failed = 1 } }, res.checks)
    end)

    it("fails a request whose opts.check fails, counts the reason, and does not check a followed redirect", function()
      local statuses = {}
      local u = testing.user{ responses = {
        ["GET /r"] = { status = 302, headers = { Location = "/bad" } },
        ["GET /bad"] = { status = 500 },
        ["GET /boom"] = { body = "" },
      } }
      local res = testing.run(flow(function(u)
        local r = u:get("/r", { check = function(r)
          statuses[#statuses + 1] = r.status
          return r.status == 200, "status " .. r.status
        end })
        assert.is_true(r.failed)
        assert.are.equal("status 500", r.reason)
        r = u:get("/boom", { check = function() error("no", 0) end })
        assert.are.equal("no", r.reason)
      end), u)
      assert.is_false(res.failed)
      assert.are.same({ 500 }, statuses)
      assert.are.same({ ["status 500"] = 1, no = 1 }, res.request_failures)
      assert.are.equal("status 500", res.requests[2].reason)
    end)

    it("fails a request on a canned failure kind: status 0, its kind as the reason", function()
      local u = testing.user{ responses = { ["GET /"] = { error = "timeout" } } }
      local got
      local res = testing.run(flow(function(u)
        local r = u:get("/")
        got = { r.status, r.failed, r.reason, r.body, r.headers.anything }
      end), u)
      assert.are.same({ 0, true, "timeout", "" }, got)
      assert.are.same({ timeout = 1 }, res.request_failures)
    end)

    it("counts a group, failed when a request in it failed or it raised, and returns fn's results", function()
      local u = testing.user{ responses = { ["GET /ok"] = { body = "" }, ["GET /down"] = { error = "connect" } } }
      local res = testing.run(flow(function(u)
        local a, b = u:group("fine", function() u:get("/ok") return 1, 2 end)
        assert.are.same({ 1, 2 }, { a, b })
        u:group("down", function() u:get("/down") end)
        u:group("fine", function() u:fail("given up") end)
      end), u)
      assert.are.same({ fine = { count = 2, failed = 1 }, down = { count = 1, failed = 1 } }, res.groups)
      assert.are.equal("fine", res.requests[1].group)
      assert.is_true(res.failed)
      assert.are.equal("given up", res.reason)
    end)

    it("records u:sleep's seconds without sleeping, and refuses a bad one at the script's line", function()
      local u = testing.user{}
      local res = testing.run(flow(function(u) u:sleep(5) u:sleep(0) u:sleep(1e6) u:sleep(0.25) end), u)
      assert.are.same({ 5, 0, 1e6, 0.25 }, res.sleeps)
      local line = debug.getinfo(1, "l").currentline + 1
      res = testing.run(flow(function(u) u:sleep(-1) end), u)
      assert.are.equal(("%s:%d: u:sleep: -1 is not a time (seconds >= 0 such as 1.5, or a duration such as"
        .. ' "250ms", "2s", "1m"; at most 100 days)'):format(HERE, line), res.reason)
    end)

    it("ends an iteration that raises as failed with file:line: message, and counts reasons over iterations", function()
      local u = testing.user{}
      local line = debug.getinfo(1, "l").currentline + 2
      local res = testing.run(flow(function(u)
        if u.iteration % 2 == 0 then error("even") end
        if u.iteration == 3 then u:fail() end
      end), u, 4)
      assert.are.equal(4, res.iterations)
      assert.is_true(res.failed)
      assert.are.equal(("%s:%d: even"):format(HERE, line), res.reason)
      assert.are.same({ [("%s:%d: even"):format(HERE, line)] = 2, ["u:fail()"] = 1 }, res.failures)
    end)

    it("refuses a script's own coroutine.yield, as volley does", function()
      local u = testing.user{}
      assert.has_error(function() testing.run(flow(function() coroutine.yield() end), u) end,
        "testing.run: in user(): coroutine.yield() called by the script (a flow's user yields only through u's methods)")
    end)
  end)

  describe("the user and its responses", function()
    it("gives id, thread, iteration and data read-only, data from a function per iteration", function()
      local u = testing.user{ id = 4, thread = 2, data = function(i) return { row = i } end }
      local seen = {}
      local res = testing.run(flow(function(u)
        seen[#seen + 1] = table.concat({ u.id, u.thread, u.iteration, u.data.row }, " ")
        u.mine = (u.mine or 0) + 1
      end), u, 2)
      assert.are.same({ "4 2 1 1", "4 2 2 2" }, seen)
      assert.are.equal(2, u.mine)
      assert.is_false(res.failed)
      res = testing.run(flow(function(u) u.iteration = 1 end), u)
      assert.truthy(res.reason:find("u.iteration is read-only", 1, true))
    end)

    it("gives a response read-only, its headers in any case, valid until the next request", function()
      local u = testing.user{ responses = { ["GET /"] = { headers = { ["X-Thing"] = "t" }, body = "b",
                                                          trailers = { ["X-Sum"] = "9" }, latency = 12 } } }
      local res = testing.run(flow(function(u)
        local r = u:get("/")
        assert.are.same({ "t", "9", 12, 1, "/" }, { r.headers["x-thing"], r.trailers["x-sum"], r.latency, r.bytes, r.url })
        local ok, err = pcall(function() r.status = 1 end)
        assert.truthy(not ok and err:find("a response is read-only (r.status)", 1, true))
        u:get("/")
        return r.body
      end), u)
      assert.is_true(res.failed)
      assert.truthy(res.reason:find("a response was read after its user sent the next request", 1, true))
    end)

    it("refuses r:json() of a body that is not JSON, at the script's line", function()
      local u = testing.user{ responses = { ["GET /"] = { body = "<html>" } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) local doc = u:get("/"):json() return doc end), u)
      assert.are.equal(("%s:%d: r:json(): the body is not JSON"):format(HERE, line),
        res.reason:match("^(.-JSON)"))
    end)

    it("raises a misspelt response field with the fields named, at the script's line", function()
      local u = testing.user{ responses = { ["GET /"] = { status = 201 } } }
      local line = debug.getinfo(1, "l").currentline + 1
      local res = testing.run(flow(function(u) return u:get("/").status_code end), u)
      assert.are.equal(('%s:%d: r.status_code: a response has no field "status_code" (did you mean r.status?)'):format(
        HERE, line), res.reason)
      res = testing.run(flow(function(u) return u:get("/").statsu end), u)
      assert.truthy(res.reason:find(('r.statsu: a response has no field "statsu" (its fields are %s)'):format(
        http.RESPONSE_NAMES), 1, true))
    end)

    it("refuses a bad run", function()
      assert.has_error(function() testing.run({}, testing.user{}) end,
        "testing.run: the scenario has no flow (user(u), tasks = { ... } or sequence = { ... })")
      assert.has_error(function() testing.run(flow(function() end), {}) end, "testing.run: u is not a testing.user")
      assert.has_error(function() testing.run(flow(function() end), testing.user{}, 0) end,
        "testing.run: the number of iterations must be a whole number >= 1, not 0")
    end)
  end)
end)

----------------------------------------------------------------------------
-- examples.shop against canned routes: a model of
-- tests/integration/apps/shop (app.rb) whose sessions live in a table
-- keyed by the session cookie, as Rack's do.

local function shop_routes(opts)
  opts = opts or {}
  local sessions, next_sid = {}, 0
  local function session(req)
    local sid = (req.headers.cookie or ""):match("sid=(%d+)")
    return sid and sessions[sid]
  end
  return {
    ["POST /login"] = function(req)
      local f = req:form()
      if opts.refuse or f.password ~= "pw-" .. f.user then return { status = 401, body = "bad user or password\n" } end
      next_sid = next_sid + 1
      sessions[tostring(next_sid)] = { user = f.user, cart = {} }
      return { status = 303, headers = { Location = "/home", ["Set-Cookie"] = "sid=" .. next_sid .. "; Path=/; HttpOnly" } }
    end,
    ["GET /home"] = function(req)
      local s = session(req)
      if not s then return { status = 401, body = "not logged in\n" } end
      return { body = "hello " .. s.user .. "\n" }
    end,
    ["GET /items/*"] = function(req)
      local id = tonumber(req.path:match("^/items/(%d+)$"))
      if opts.broken_items or not id then return { status = 500, body = "boom" } end
      return { json = { id = id, price = 100 + (id * 37) % 900 } }
    end,
    ["POST /cart"] = function(req)
      local s = session(req)
      if not s then return { status = 401, body = "not logged in\n" } end
      s.cart[#s.cart + 1] = req:json().id
      return { json = { items = #s.cart } }
    end,
    ["POST /checkout"] = function(req)
      local s = session(req)
      if not s then return { status = 401, body = "not logged in\n" } end
      if #s.cart == 0 then return { status = 409, body = "empty cart\n" } end
      local n = #s.cart
      s.cart = {}
      return { json = { paid = n } }
    end,
  }
end

describe("examples.shop with volley.testing", function()
  local shop
  before_each(function()
    package.loaded["examples.shop"] = nil
    shop = require("examples.shop")
  end)

  it("logs in (the 303 followed with its cookie), views 3 items, fills the cart and pays", function()
    local u = testing.user{ id = 3, target = "http://127.0.0.1:9292/", responses = shop_routes() }
    local res = testing.run(shop, u)
    assert.is_false(res.failed)
    local lines = {}
    for i, req in ipairs(res.requests) do
      lines[i] = table.concat({ req.method, req.path, req.name, req.group or "-", req.headers["x-vuser"],
                                req.headers.cookie or "-" }, " ")
    end
    assert.are.equal("POST /login login - 3 -", lines[1])
    assert.are.equal("GET /home login - 3 sid=1", lines[2])
    for k = 3, 5 do assert.truthy(lines[k]:match("^GET /items/%d+ item %- 3 sid=1$"), lines[k]) end
    local carts = #res.requests - 6
    assert.is_true(carts == 1 or carts == 2)
    for k = 6, 5 + carts do assert.are.equal("POST /cart cart checkout 3 sid=1", lines[k]) end
    assert.are.equal("POST /checkout pay checkout 3 sid=1", lines[#lines])
    assert.are.same({ passed = 1, failed = 0 }, res.checks["logged in"])
    assert.are.same({ passed = 3, failed = 0 }, res.checks.item)
    assert.are.same({ passed = carts, failed = 0 }, res.checks["in cart"])
    assert.are.same({ passed = 1, failed = 0 }, res.checks.paid)
    assert.are.same({ checkout = { count = 1, failed = 0 } }, res.groups)
    assert.are.same({ 0.005, 0.005, 0.005, 0.005, 0.005 }, res.sleeps) -- 5 ms, in seconds
    assert.are.equal("password=pw-user3&user=user3", res.requests[1].body)
    assert.are.equal(json.encode({ id = tonumber(res.requests[3].path:match("%d+$")) }), res.requests[6].body)
  end)

  it("puts 1 and 2 items in the cart over iterations, one login per iteration", function()
    local u = testing.user{ id = 5, responses = shop_routes() }
    shop.init({ "think=0" })
    local res = testing.run(shop, u, 4)
    local logins, carts = 0, 0
    for _, req in ipairs(res.requests) do
      if req.path == "/login" then logins = logins + 1 end
      if req.path == "/cart" then carts = carts + 1 end
    end
    assert.are.equal(4, logins)
    assert.are.equal(6, carts) -- 2, 1, 2, 1 as (id + iteration) % 2 alternates
    assert.are.same({ passed = 4, failed = 0 }, res.checks.paid)
    assert.are.same({}, res.sleeps)
    assert.are.same({ checkout = { count = 4, failed = 0 } }, res.groups)
  end)

  it("stops after the login when it is refused: one request, the check failed, nothing else", function()
    local u = testing.user{ id = 1, responses = shop_routes({ refuse = true }) }
    local res = testing.run(shop, u)
    assert.are.equal(1, #res.requests)
    assert.are.equal(401, res.requests[1].status)
    assert.are.same({ ["logged in"] = { passed = 0, failed = 1 } }, res.checks)
    assert.are.same({}, res.groups)
    assert.are.same({}, res.sleeps)
    assert.is_false(res.failed) -- a failed check is not a failed iteration
  end)

  it("fails the item check and skips the checkout when the items answer 500", function()
    local u = testing.user{ id = 2, responses = shop_routes({ broken_items = true }) }
    local res = testing.run(shop, u)
    assert.are.same({ passed = 0, failed = 3 }, res.checks.item)
    assert.is_nil(res.groups.checkout)
    for _, req in ipairs(res.requests) do assert.are_not.equal("/checkout", req.path) end
  end)
end)
