-- lua/volley/uri.lua: RFC 3986 reference resolution (section 5.2), checked
-- against every example of section 5.4, and the parts a redirect's
-- Location uses (volley.flow_http.redirect_path).
package.path = "lua/?.lua;" .. package.path
local uri = require("volley.uri")
local http = require("volley.flow_http")

local BASE = "http://a/b/c/d;p?q"

local function check(cases)
  for _, case in ipairs(cases) do
    assert.are.equal(case[2], uri.resolve(BASE, case[1]), "reference " .. case[1])
  end
end

describe("uri.resolve (RFC 3986 5.4)", function()
  it("resolves the normal examples (5.4.1)", function()
    check({
      { "g:h", "g:h" },
      { "g", "http://a/b/c/g" },
      { "./g", "http://a/b/c/g" },
      { "g/", "http://a/b/c/g/" },
      { "/g", "http://a/g" },
      { "//g", "http://g" },
      { "?y", "http://a/b/c/d;p?y" },
      { "g?y", "http://a/b/c/g?y" },
      { "#s", "http://a/b/c/d;p?q#s" },
      { "g#s", "http://a/b/c/g#s" },
      { "g?y#s", "http://a/b/c/g?y#s" },
      { ";x", "http://a/b/c/;x" },
      { "g;x", "http://a/b/c/g;x" },
      { "g;x?y#s", "http://a/b/c/g;x?y#s" },
      { "", "http://a/b/c/d;p?q" },
      { ".", "http://a/b/c/" },
      { "./", "http://a/b/c/" },
      { "..", "http://a/b/" },
      { "../", "http://a/b/" },
      { "../g", "http://a/b/g" },
      { "../..", "http://a/" },
      { "../../", "http://a/" },
      { "../../g", "http://a/g" },
    })
  end)

  it("resolves the abnormal examples (5.4.2), strictly", function()
    check({
      { "../../../g", "http://a/g" },
      { "../../../../g", "http://a/g" },
      { "/./g", "http://a/g" },
      { "/../g", "http://a/g" },
      { "g.", "http://a/b/c/g." },
      { ".g", "http://a/b/c/.g" },
      { "g..", "http://a/b/c/g.." },
      { "..g", "http://a/b/c/..g" },
      { "./../g", "http://a/b/g" },
      { "./g/.", "http://a/b/c/g/" },
      { "g/./h", "http://a/b/c/g/h" },
      { "g/../h", "http://a/b/c/h" },
      { "g;x=1/./y", "http://a/b/c/g;x=1/y" },
      { "g;x=1/../y", "http://a/b/c/y" },
      { "g?y/./x", "http://a/b/c/g?y/./x" },
      { "g?y/../x", "http://a/b/c/g?y/../x" },
      { "g#s/./x", "http://a/b/c/g#s/./x" },
      { "g#s/../x", "http://a/b/c/g#s/../x" },
      { "http:g", "http:g" },
    })
  end)

  it("merges against a base with an authority and an empty path as '/' (5.2.3)", function()
    assert.are.equal("http://a/g", uri.resolve("http://a", "g"))
    assert.are.equal("http://a?x", uri.resolve("http://a", "?x"))
  end)

  it("removes dot segments as 5.2.4's walk-through does", function()
    assert.are.equal("/a/g", uri.remove_dot_segments("/a/b/c/./../../g"))
    assert.are.equal("mid/6", uri.remove_dot_segments("mid/content=5/../6"))
    assert.are.equal("/a/b", uri.remove_dot_segments("/a/b"))
  end)

  it("splits a reference as Appendix B does, an empty query being one", function()
    assert.are.same({ scheme = "http", authority = "h:1", path = "/p", query = "", fragment = "f" },
      uri.parse("http://h:1/p?#f"))
    assert.are.same({ path = "" }, uri.parse(""))
    assert.are.same({ authority = "", path = "/x" }, uri.parse("///x"))
  end)

  it("drops the fragment for a request", function()
    assert.are.equal("http://a/b?q", uri.without_fragment("http://a/b?q#f#g"))
    assert.are.equal("/x", uri.without_fragment("/x"))
  end)
end)

describe("flow_http.redirect_path: a Location as a path of the target", function()
  local T = { scheme = "http", host = "127.0.0.1", port = 8080 }

  it("resolves relative, query-only, dot and fragment references against the request's URL", function()
    local from = "/shop/cart/view?id=3"
    assert.are.equal("/shop/cart/pay", http.redirect_path("pay", from, T))
    assert.are.equal("/shop/cart/view?page=2", http.redirect_path("?page=2", from, T))
    assert.are.equal("/shop/login", http.redirect_path("../login", from, T))
    assert.are.equal("/login", http.redirect_path("../../../../login", from, T))
    assert.are.equal("/shop/cart/x", http.redirect_path("./x#top", from, T))
    assert.are.equal("/shop/cart/view?id=3", http.redirect_path("#frag", from, T))
    assert.are.equal("/shop/cart/view?id=3", http.redirect_path("", from, T))
    assert.are.equal("/a/c", http.redirect_path("/a/b/../c", from, T))
  end)

  it("follows a network-path or absolute reference to the target itself", function()
    assert.are.equal("/x?y", http.redirect_path("//127.0.0.1:8080/x?y#z", "/", T))
    assert.are.equal("/", http.redirect_path("http://127.0.0.1:8080", "/a", T))
    assert.are.equal("/g", http.redirect_path("http://127.0.0.1:8080/a/../g", "/", T))
    local T6 = { scheme = "http", host = "::1", port = 80 }
    assert.are.equal("/v6", http.redirect_path("//[::1]/v6", "/", T6))
    assert.are.equal("/v6/b", http.redirect_path("b", "/v6/a", T6))
  end)

  it("does not follow one to another origin (host, port or scheme), nor a non-http URI", function()
    assert.is_nil(http.redirect_path("//evil.example/x", "/", T))
    assert.is_nil(http.redirect_path("//127.0.0.1:9090/x", "/", T))
    assert.is_nil(http.redirect_path("https://127.0.0.1:8080/x", "/", T))
    assert.is_nil(http.redirect_path("mailto:a@b", "/", T))
    assert.is_nil(http.redirect_path("http:g", "/", T))
  end)
end)

describe("flow_http: other hosts (--allow-host)", function()
  local T = { scheme = "http", host = "127.0.0.1", port = 8080,
              allow = { { "127.0.0.2", 8081 }, { "cdn.test", 0 }, { "::1", 8443 } } }

  it("locates a URL on the target or on another origin, one table per origin", function()
    assert.are.same({ "/a?b" }, { http.locate("http://127.0.0.1:8080/a?b", T) })
    local p, o = http.locate("HTTPS://CDN.test/x.css", T)
    assert.are.equal("/x.css", p)
    assert.are.same({ "https", "cdn.test", 443, "cdn.test", "https://cdn.test" },
      { o.scheme, o.host, o.port, o.authority, o.key })
    assert.are.equal(o, select(2, http.locate("https://cdn.test:443/y", T)))
    p, o = http.locate("http://[::1]:8443", T)
    assert.are.same({ "/", "[::1]:8443" }, { p, o.authority })
    assert.is_nil(http.locate("ftp://cdn.test/x", T))
  end)

  it("allows the listed hosts, on their port or any", function()
    local function allowed(url) return http.allowed(select(2, http.locate(url, T)), T) end
    assert.is_true(allowed("http://127.0.0.2:8081/"))
    assert.is_false(allowed("http://127.0.0.2:8082/"))
    assert.is_true(allowed("http://cdn.test:9999/"))
    assert.is_true(allowed("https://[::1]:8443/"))
    assert.is_false(allowed("http://127.0.0.1:9090/")) -- the target's host, another port
    assert.is_false(http.allowed(select(2, http.locate("http://127.0.0.2:8081/", T)), { scheme = "http" }))
    assert.are.equal("host not allowed: [::2]:80 (--allow-host)",
      http.not_allowed(select(2, http.locate("http://[::2]/", T))))
  end)

  it("prepares a request to another origin, and the reason for one not allowed", function()
    local m, p, _, _, _, o, why = http.prepare("u:get", "GET", "http://127.0.0.2:8081/app.css", {}, T, 1)
    assert.are.same({ "GET", "/app.css", "127.0.0.2:8081" }, { m, p, o.authority })
    assert.is_nil(why)
    _, _, _, _, _, o, why = http.prepare("u:get", "GET", "http://127.0.0.3:8082/x", {}, T, 1)
    assert.are.equal("host not allowed: 127.0.0.3:8082 (--allow-host)", why)
  end)

  it("follows a redirect to an allowed origin, relative ones against it, and not to others", function()
    local _, o = http.locate("http://127.0.0.2:8081/", T)
    local p, to = http.redirect_to("http://127.0.0.2:8081/landed", "/", T)
    assert.are.same({ "/landed", o }, { p, to })
    p, to = http.redirect_to("../b", "/a/x", T, o)
    assert.are.same({ "/b", o }, { p, to })
    p, to = http.redirect_to("http://127.0.0.1:8080/home", "/", T, o)
    assert.are.same({ "/home" }, { p, to })
    assert.is_nil(http.redirect_to("//127.0.0.3:8082/x", "/", T, o))
    local m, path, drop, next_o = http.hop(303, "http://cdn.test/x", 10, "POST", "/f", T)
    assert.are.same({ "GET", "/x", true, "cdn.test" }, { m, path, drop, next_o.authority })
  end)
end)
