-- lua/volley/cookies.lua: a virtual user's cookie jar (RFC 6265 5.1-5.4),
-- driven as the flow runtime drives it: store() with a response's Set-Cookie
-- values, header() for each request, and the u.cookies proxy.
package.path = "lua/?.lua;" .. package.path
local cookies = require("volley.cookies")

local NOW = 1700000000  -- wall seconds of every case unless said otherwise
local HOST = "example.com"

-- A jar that has stored the given Set-Cookie values from HOST over http.
local function jar_with(list, host, path, now)
  local jar = cookies.new()
  jar:store(list, host or HOST, path or "/", false, now or NOW)
  return jar
end

-- The Cookie header a request to HOST "/" over http gets at NOW.
local function sent(jar, host, path, secure, now)
  return jar:header(host or HOST, path or "/", secure or false, now or NOW)
end

describe("cookies: parsing Set-Cookie", function()
  it("splits name and value at the first '=' and trims blanks", function()
    local jar = jar_with({ "  sid = a=b=c ; Path=/", "e=" })
    assert.are.equal("sid=a=b=c; e=", sent(jar))
    assert.are.equal("a=b=c", jar:get("sid", NOW))
    assert.are.equal("", jar:get("e", NOW))
  end)

  it("ignores a value without '=', with an empty name or with control bytes", function()
    local jar = jar_with({ "justtext", "=novalue", " =x; Path=/", "a=1\0", "b\r=2",
                           "ok=1" })
    assert.are.equal(1, jar:count())
    assert.are.equal("ok=1", sent(jar))
  end)

  it("reads attribute names in any case and ignores unknown ones", function()
    local jar = jar_with({ "a=1; PATH=/p; sEcUrE; SameSite=Strict; Foo=bar; HTTPONLY" })
    assert.is_nil(sent(jar, HOST, "/p", false))
    assert.are.equal("a=1", sent(jar, HOST, "/p", true))
  end)

  it("never raises on garbage, whatever the arguments", function()
    local jar = cookies.new()
    assert.has_no.errors(function()
      jar:store(nil, HOST, "/", false, NOW)
      jar:store({ 42, {}, true }, HOST, "/", false, NOW)
      jar:store({ ";;;", "=;=;", "a=1; Expires=; Max-Age=; Domain=; Path=",
                  "b=2; expires=\255\0:::", "c=3;max-age=-" }, HOST, nil, false, NOW)
      jar:store({ "d=4" }, nil, "/", false, NOW)
    end)
    -- a, b and c are well-formed apart from their attributes, which are ignored.
    assert.are.equal("a=1; b=2; c=3", sent(jar))
  end)

  it("lets the last of repeated attributes win", function()
    local jar = jar_with({ "a=1; Path=/x; Path=/y" })
    assert.is_nil(sent(jar, HOST, "/x"))
    assert.are.equal("a=1", sent(jar, HOST, "/y"))
  end)
end)

describe("cookies.parse_date (RFC 6265 5.1.1)", function()
  local date = cookies.parse_date

  it("reads the RFC 1123, RFC 850 and asctime forms", function()
    assert.are.equal(1445412480, date("Wed, 21 Oct 2015 07:28:00 GMT"))
    assert.are.equal(784111777, date("Sunday, 06-Nov-94 08:49:37 GMT"))
    assert.are.equal(784111777, date("Sun Nov  6 08:49:37 1994"))
    assert.are.equal(784111777, date("Sun, 06 Nov 1994 08:49:37 GMT"))
  end)

  it("takes tokens in any order, any delimiters, month names in any case", function()
    assert.are.equal(1445412480, date("2015 oct 21 7:28:0"))
    assert.are.equal(1445412480, date("21-OCTOBER-2015!07:28:00"))
  end)

  it("maps two-digit years: 70-99 to 19xx, 00-69 to 20xx", function()
    assert.are.equal(date("01 Jan 1970 00:00:00"), date("01 Jan 70 00:00:00"))
    assert.are.equal(0, date("01 Jan 70 00:00:00"))
    assert.are.equal(date("01 Jan 2069 00:00:00"), date("01 Jan 69 00:00:00"))
    assert.are.equal(date("31 Dec 1999 23:59:59"), date("31 Dec 99 23:59:59"))
  end)

  it("handles leap years and the days before 1970", function()
    assert.are.equal(951782400, date("29 Feb 2000 00:00:00"))
    assert.are.equal(-86400, date("31 Dec 1969 00:00:00"))
    assert.are.equal(date("01 Mar 2024 00:00:00") - 86400, date("29 Feb 2024 00:00:00"))
  end)

  it("refuses incomplete and impossible dates", function()
    assert.is_nil(date("Wed, 21 Oct 2015"))            -- no time
    assert.is_nil(date("21 2015 07:28:00"))            -- no month
    assert.is_nil(date("Oct 2015 07:28:00"))           -- no day (2015 has 4 digits)
    assert.is_nil(date("29 Feb 2023 00:00:00"))        -- not a leap year
    assert.is_nil(date("31 Apr 2023 00:00:00"))
    assert.is_nil(date("32 Jan 2023 00:00:00"))
    assert.is_nil(date("21 Oct 2015 24:00:00"))
    assert.is_nil(date("21 Oct 2015 07:60:00"))
    assert.is_nil(date("21 Oct 2015 07:28:60"))
    assert.is_nil(date("21 Oct 1600 07:28:00"))        -- before 1601
    assert.is_nil(date("21 Oct 2015 107:28:00"))       -- three-digit hour
    assert.is_nil(date(""))
    assert.is_nil(date(nil))
  end)
end)

describe("cookies: expiry", function()
  local T = 1445412480  -- Wed, 21 Oct 2015 07:28:00 GMT

  it("keeps a cookie until its Expires and drops it then, from the jar too", function()
    local jar = jar_with({ "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT" }, HOST, "/", T - 100)
    assert.are.equal("a=1", sent(jar, HOST, "/", false, T - 0.5))
    assert.are.equal(1, jar:count())
    assert.is_nil(sent(jar, HOST, "/", false, T))
    assert.are.equal(0, jar:count())
  end)

  it("ignores an invalid Expires: the cookie is a session one", function()
    local jar = jar_with({ "a=1; Expires=tomorrow" })
    assert.are.equal("a=1", sent(jar, HOST, "/", false, NOW + 1e9))
  end)

  it("counts Max-Age from now, in seconds", function()
    local jar = jar_with({ "a=1; Max-Age=60" }, HOST, "/", 1000.5)
    assert.are.equal("a=1", sent(jar, HOST, "/", false, 1060))
    assert.is_nil(sent(jar, HOST, "/", false, 1060.5))
  end)

  it("prefers Max-Age to Expires, in either order", function()
    local later = "Expires=Wed, 21 Oct 2015 07:28:00 GMT"
    local jar = jar_with({ "a=1; " .. later .. "; Max-Age=10",
                           "b=2; Max-Age=10; " .. later }, HOST, "/", T - 1000)
    assert.are.equal("a=1; b=2", sent(jar, HOST, "/", false, T - 991))
    assert.is_nil(sent(jar, HOST, "/", false, T - 990))
    -- And the other way: a past Expires does not override a Max-Age.
    jar = jar_with({ "c=3; Max-Age=100; Expires=Thu, 01 Jan 1970 00:00:00 GMT" })
    assert.are.equal("c=3", sent(jar))
  end)

  it("ignores a Max-Age that is not an integer", function()
    local jar = jar_with({ "a=1; Max-Age=1.5", "b=2; Max-Age=ten", "c=3; Max-Age=+5" })
    assert.are.equal("a=1; b=2; c=3", sent(jar, HOST, "/", false, NOW + 1e6))
  end)

  it("deletes the stored cookie on Max-Age <= 0 or a past Expires", function()
    local jar = jar_with({ "a=1", "b=2", "c=3", "d=4" })
    assert.are.equal(4, jar:count())
    jar:store({ "a=x; Max-Age=0", "b=x; Max-Age=-1",
                "c=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT" }, HOST, "/", false, NOW)
    assert.are.equal(1, jar:count())  -- gone at once, not at the next header()
    assert.are.equal("d=4", sent(jar))
  end)

  it("does not store a cookie that arrives expired", function()
    local jar = jar_with({ "a=1; Max-Age=0" })
    assert.are.equal(0, jar:count())
  end)
end)

describe("cookies: domains", function()
  it("sends a host-only cookie to its exact host only", function()
    local jar = jar_with({ "a=1" })
    assert.are.equal("a=1", sent(jar, "example.com"))
    assert.is_nil(sent(jar, "www.example.com"))
    assert.is_nil(sent(jar, "other.com"))
  end)

  it("sends a domain cookie to the domain and its subdomains", function()
    local jar = jar_with({ "a=1; Domain=.Example.COM" }, "www.example.com")
    assert.are.equal("a=1", sent(jar, "example.com"))
    assert.are.equal("a=1", sent(jar, "www.example.com"))
    assert.are.equal("a=1", sent(jar, "a.b.example.com"))
    assert.is_nil(sent(jar, "notexample.com"))
    assert.is_nil(sent(jar, "example.com.evil"))
  end)

  it("makes Domain equal to the host a domain cookie, not host-only", function()
    local jar = jar_with({ "a=1; Domain=example.com" }, "example.com")
    assert.are.equal("a=1", sent(jar, "sub.example.com"))
  end)

  it("treats an empty Domain (or a lone dot) as none: host-only", function()
    local jar = jar_with({ "a=1; Domain=", "b=2; Domain=." }, "www.example.com")
    assert.are.equal("a=1; b=2", sent(jar, "www.example.com"))
    assert.is_nil(sent(jar, "x.www.example.com"))
  end)

  it("ignores a cookie whose Domain does not domain-match the host", function()
    local jar = jar_with({ "a=1; Domain=other.com", "b=2; Domain=www.example.com",
                           "c=3; Domain=ample.com", "d=4; Domain=example.com" },
                         "example.com")
    assert.are.equal(1, jar:count())
    assert.are.equal("d=4", sent(jar))
  end)

  it("refuses a dotless Domain unless it is the host (no public-suffix list)", function()
    local jar = jar_with({ "a=1; Domain=com", "b=2; Domain=.com" }, "example.com")
    assert.are.equal(0, jar:count())
    jar = jar_with({ "c=3; Domain=localhost" }, "localhost")
    assert.are.equal("c=3", sent(jar, "localhost"))
  end)

  it("lets an IP-address host match only itself", function()
    local jar = jar_with({ "a=1; Domain=127.0.0.1", "b=2; Domain=0.0.1", "c=3" },
                         "127.0.0.1")
    assert.are.equal("a=1; c=3", sent(jar, "127.0.0.1"))
    assert.is_nil(sent(jar, "10.0.0.1"))
    jar = jar_with({ "d=4; Domain=1" }, "::1")
    assert.are.equal(0, jar:count())
    jar = jar_with({ "e=5" }, "::1")
    assert.are.equal("e=5", sent(jar, "::1"))
  end)

  it("does not send a domain cookie to an IP host that merely ends like it", function()
    -- A domain cookie for 0.0.1 can only come from a name host under it.
    local jar = jar_with({ "a=1; Domain=0.0.1" }, "x.0.0.1")
    assert.are.equal(1, jar:count())
    assert.is_nil(sent(jar, "127.0.0.1"))
    assert.are.equal("a=1", sent(jar, "y.0.0.1"))
  end)
end)

describe("cookies: paths", function()
  it("defaults the path to the request path's directory, query aside", function()
    local jar = jar_with({ "a=1" }, HOST, "/app/login?next=/x/y/z")
    assert.are.equal("a=1", sent(jar, HOST, "/app"))
    assert.are.equal("a=1", sent(jar, HOST, "/app/other"))
    assert.is_nil(sent(jar, HOST, "/"))
    assert.is_nil(sent(jar, HOST, "/application"))
  end)

  it("defaults to / for a request path with a single slash, or none", function()
    local jar = jar_with({ "a=1" }, HOST, "/login")
    jar:store({ "b=2" }, HOST, "", false, NOW)
    jar:store({ "c=3" }, HOST, "?q=/a/b", false, NOW)
    assert.are.equal("a=1; b=2; c=3", sent(jar, HOST, "/"))
  end)

  it("uses the default path for a Path that does not start with '/'", function()
    local jar = jar_with({ "a=1; Path=relative/p" }, HOST, "/d/page")
    assert.are.equal("a=1", sent(jar, HOST, "/d"))
    assert.is_nil(sent(jar, HOST, "/relative/p"))
  end)

  it("path-matches as 5.1.4 says", function()
    local jar = jar_with({ "a=1; Path=/a", "s=2; Path=/s/" })
    assert.are.equal("a=1", sent(jar, HOST, "/a"))
    assert.are.equal("a=1", sent(jar, HOST, "/a/"))
    assert.are.equal("a=1", sent(jar, HOST, "/a/b?x"))
    assert.is_nil(sent(jar, HOST, "/ab"))
    assert.is_nil(sent(jar, HOST, "/"))
    assert.are.equal("s=2", sent(jar, HOST, "/s/t"))
    assert.are.equal("s=2", sent(jar, HOST, "/s/"))
    assert.is_nil(sent(jar, HOST, "/s"))
  end)

  it("does not count the query of the request path", function()
    local jar = jar_with({ "a=1; Path=/a" })
    assert.is_nil(sent(jar, HOST, "/?/a"))
    assert.are.equal("a=1", sent(jar, HOST, "/a?b=c"))
  end)
end)

describe("cookies: Secure", function()
  it("sends a Secure cookie over https only", function()
    local jar = jar_with({ "s=1; Secure", "p=2" })
    assert.are.equal("p=2", sent(jar, HOST, "/", false))
    assert.are.equal("s=1; p=2", sent(jar, HOST, "/", true))
  end)
end)

describe("cookies: storage", function()
  it("replaces a cookie of the same name, domain and path, keeping its place", function()
    local jar = jar_with({ "a=1", "b=2", "c=3" })
    jar:store({ "a=new" }, HOST, "/", false, NOW + 1)
    assert.are.equal(3, jar:count())
    assert.are.equal("a=new; b=2; c=3", sent(jar))
  end)

  it("keeps cookies of the same name apart by path and by domain", function()
    local www = "www.example.com"
    local jar = jar_with({ "a=root", "a=sub; Path=/sub", "a=dom; Domain=example.com" }, www)
    assert.are.equal(3, jar:count())
    assert.are.equal("a=sub; a=root; a=dom", sent(jar, www, "/sub/x"))
  end)

  it("lets a Domain equal to the host replace the host-only cookie (same key)", function()
    local jar = jar_with({ "a=host", "a=dom; Domain=example.com" })
    assert.are.equal(1, jar:count())
    assert.are.equal("a=dom", sent(jar, "www.example.com"))
  end)

  it("lets a later value in the same response win", function()
    local jar = jar_with({ "a=1", "a=2" })
    assert.are.equal(1, jar:count())
    assert.are.equal("a=2", sent(jar))
  end)

  it("ignores a cookie whose name and value pass cookies.max_bytes", function()
    local max = cookies.max_bytes
    local jar = jar_with({ "n=" .. string.rep("x", max - 2), "m=" .. string.rep("x", max) })
    assert.are.equal(1, jar:count())
    assert.are.equal(max - 2, #jar:get("n", NOW))
    assert.is_nil(jar:get("m", NOW))
  end)

  it("starts as an empty table", function()
    local jar = cookies.new()
    assert.is_nil(next(jar))
    assert.are.equal(0, jar:count())
    assert.is_nil(jar:header(HOST, "/", false, NOW))
  end)
end)

-- The limits of RFC 6265 6.1 (its minimums, taken as maximums) and the
-- eviction order of 5.3 step 12: expired cookies, then the oldest of a
-- domain over its limit, then the oldest of all.
describe("cookies: limits and eviction", function()
  -- The Set-Cookie values name1=v ... nameN=v (value of size bytes).
  local function many(name, n, size)
    local v, list = string.rep("v", size or 1), {}
    for i = 1, n do list[i] = name .. i .. "=" .. v end
    return list
  end

  -- host i's name, so that each host-only cookie set has a domain of its own.
  local function host(i) return "h" .. i .. ".example.com" end

  it("are RFC 6265 6.1's: 4096 bytes a cookie, 50 a domain, 3000 a jar", function()
    assert.are.equal(4096, cookies.max_bytes)
    assert.are.equal(50, cookies.max_per_domain)
    assert.are.equal(3000, cookies.max_cookies)
  end)

  it("ignores a Set-Cookie value over max_bytes, its attributes counted", function()
    local attrs = "; Path=/; Max-Age=60"
    local fits = "a=" .. string.rep("x", cookies.max_bytes - 2 - #attrs) .. attrs
    local jar = jar_with({ fits, "b" .. fits })  -- one byte over, by its name
    assert.are.equal(cookies.max_bytes, #fits)
    assert.are.equal(1, jar:count())
    assert.is_not_nil(jar:get("a", NOW))
    -- name and value small enough on their own, the attributes make it too long
    jar = jar_with({ "c=1; Path=/" .. string.rep("p", cookies.max_bytes) })
    assert.are.equal(0, jar:count())
    -- a script's cookie counts name=value
    assert.is_true(jar:set("s", string.rep("x", cookies.max_bytes - 2), HOST))
    assert.is_false(jar:set("s", string.rep("x", cookies.max_bytes - 1), HOST))
  end)

  it("keeps at most max_per_domain cookies of a domain, the domain's oldest going", function()
    local jar = jar_with({ "other=1" }, "other.org")  -- the oldest of all, another domain
    jar:store(many("c", 52), HOST, "/", false, NOW)
    assert.are.equal(51, jar:count())
    assert.are.equal("1", jar:get("other", NOW))  -- not the jar's oldest: the domain's
    assert.is_nil(jar:get("c1", NOW))
    assert.is_nil(jar:get("c2", NOW))
    assert.are.equal("v", jar:get("c3", NOW))
    assert.are.equal("v", jar:get("c52", NOW))
    assert.are.equal(50, select(2, sent(jar):gsub("=", "")))
  end)

  it("counts a domain cookie in its Domain, whatever host set it", function()
    local jar = cookies.new()
    for i = 1, 30 do jar:store({ "a" .. i .. "=1; Domain=example.com" }, host(1), "/", false, NOW) end
    for i = 1, 30 do jar:store({ "b" .. i .. "=1; Domain=example.com" }, host(2), "/", false, NOW) end
    jar:store(many("own", 5), host(1), "/", false, NOW) -- host-only: domain h1.example.com
    assert.are.equal(55, jar:count())
    assert.is_nil(jar:get("a10", NOW))
    assert.are.equal("1", jar:get("a11", NOW))
  end)

  it("counts paths of a domain together and replaces without evicting", function()
    local jar = cookies.new()
    for i = 1, 50 do jar:store({ "c=" .. i .. "; Path=/p" .. i }, HOST, "/", false, NOW) end
    jar:store({ "c=again; Path=/p1" }, HOST, "/", false, NOW)  -- a replacement: still 50
    assert.are.equal(50, jar:count())
    assert.are.equal("c=again", sent(jar, HOST, "/p1"))
    jar:store({ "c=new; Path=/q" }, HOST, "/", false, NOW)
    assert.are.equal(50, jar:count())
    assert.is_nil(sent(jar, HOST, "/p1")) -- the oldest, though replaced since
  end)

  it("evicts an expired cookie of the domain before its oldest live one", function()
    local jar = cookies.new()
    jar:store(many("c", 20), HOST, "/", false, NOW)
    jar:store({ "short=1; Max-Age=5" }, HOST, "/", false, NOW)
    jar:store(many("d", 29), HOST, "/", false, NOW)
    jar:store({ "new=1" }, HOST, "/", false, NOW + 10)
    assert.are.equal(50, jar:count())
    assert.are.equal("v", jar:get("c1", NOW + 10))
    assert.are.equal("1", jar:get("new", NOW + 10))
  end)

  it("holds at most max_cookies in all, the oldest of all going", function()
    local jar = cookies.new()
    local per = cookies.max_per_domain
    local hosts = cookies.max_cookies / per
    for h = 1, hosts + 1 do jar:store(many("c", per), host(h), "/", false, NOW) end
    assert.are.equal(cookies.max_cookies, jar:count())
    assert.is_nil(jar:header(host(1), "/", false, NOW)) -- host 1's were the oldest
    assert.are.equal(per, select(2, jar:header(host(2), "/", false, NOW):gsub("=", "")))
    assert.are.equal(per, select(2, jar:header(host(hosts + 1), "/", false, NOW):gsub("=", "")))
  end)

  it("makes room in a full jar with expired cookies (any domain) before live ones", function()
    local jar = cookies.new()
    local per = cookies.max_per_domain
    local hosts = cookies.max_cookies / per
    for h = 1, hosts do
      local list = many("c", per)
      if h == 7 then list[per] = "gone=1; Max-Age=5" end
      jar:store(list, host(h), "/", false, NOW)
    end
    jar:store({ "new=1" }, host(hosts + 1), "/", false, NOW + 10)
    assert.are.equal(cookies.max_cookies, jar:count())
    assert.are.equal(per, select(2, jar:header(host(1), "/", false, NOW + 10):gsub("=", "")))
    assert.are.equal("1", jar:get("new", NOW + 10))
  end)

  it("evicts for a script's cookie too, expired ones first", function()
    local jar = cookies.new()
    jar:store({ "short=1; Max-Age=5" }, HOST, "/", false, NOW)
    jar:store(many("c", 49), HOST, "/", false, NOW)
    local p = cookies.proxy(jar, HOST, function() return NOW + 10 end)
    p.mine = "1"
    assert.are.equal(50, jar:count())
    assert.are.equal("v", jar:get("c1", NOW + 10))
    p.more = "2"
    assert.are.equal(50, jar:count())
    assert.is_nil(jar:get("c1", NOW + 10))
  end)

  it("bounds a flood: the Cookie header of one host stays under 50 cookies of 4096 bytes", function()
    local jar = cookies.new()
    for round = 1, 20 do
      jar:store(many("r" .. round .. "x", 100, 4000), "127.0.0.1", "/", false, NOW)
    end
    assert.are.equal(50, jar:count())
    local h = jar:header("127.0.0.1", "/", false, NOW)
    assert.is_true(#h <= 50 * (cookies.max_bytes + 2))
    assert.truthy(h:find("^r20x51="))
  end)
end)

describe("cookies: header order", function()
  it("puts longer paths first, then earlier creation", function()
    local jar = jar_with({ "r1=1; Path=/", "d2=2; Path=/a/b", "m=3; Path=/a",
                           "r2=4", "d1=5; Path=/a/b" })
    assert.are.equal("d2=2; d1=5; m=3; r1=1; r2=4", sent(jar, HOST, "/a/b/c"))
    assert.are.equal("m=3; r1=1; r2=4", sent(jar, HOST, "/a/x"))
  end)

  it("orders a replaced cookie by its first creation", function()
    local jar = jar_with({ "a=1", "b=2", "c=3; Path=/x" })
    jar:store({ "a=4" }, HOST, "/", false, NOW + 5)
    assert.are.equal("a=4; b=2", sent(jar))
    assert.are.equal("c=3; a=4; b=2", sent(jar, HOST, "/x"))  -- sorted by path
  end)

  it("returns nil when no cookie matches, and drops only expired ones", function()
    local jar = jar_with({ "a=1; Path=/x", "b=2; Max-Age=1" })
    assert.is_nil(sent(jar, HOST, "/", false, NOW + 2))
    assert.are.equal(1, jar:count())
    assert.are.equal("a=1", sent(jar, HOST, "/x", false, NOW + 2))
  end)
end)

describe("cookies: get, set, clear", function()
  it("gets the most recently set live cookie of a name, any domain or path", function()
    local jar = jar_with({ "a=root", "a=sub; Path=/sub" })
    assert.are.equal("sub", jar:get("a", NOW))
    jar:store({ "a=root2" }, HOST, "/", false, NOW)
    assert.are.equal("root2", jar:get("a", NOW))
    jar:store({ "a=late; Path=/late; Max-Age=1" }, HOST, "/", false, NOW)
    assert.are.equal("late", jar:get("a", NOW))
    assert.are.equal("root2", jar:get("a", NOW + 1))
    assert.is_nil(jar:get("missing", NOW))
  end)

  it("sets a host-only, path-/, session, non-secure cookie", function()
    local jar = cookies.new()
    assert.is_true(jar:set("t", "v", "Example.com"))
    assert.are.equal("t=v", sent(jar, HOST, "/deep/path", false, NOW + 1e9))
    assert.is_nil(sent(jar, "www.example.com"))
  end)

  it("replaces a server cookie with the same name, domain and path", function()
    local jar = jar_with({ "sid=server; Secure; Max-Age=10" })
    jar:set("sid", "script", HOST)
    assert.are.equal(1, jar:count())
    assert.are.equal("sid=script", sent(jar, HOST, "/", false, NOW + 100))
  end)

  it("deletes every cookie of a name on nil, and no other", function()
    local jar = jar_with({ "a=1", "a=2; Path=/p", "b=4" })
    jar:store({ "a=3" }, "other.org", "/", false, NOW)
    assert.are.equal(4, jar:count())
    assert.is_true(jar:set("a", nil, HOST))
    assert.are.equal(1, jar:count())
    assert.are.equal("b=4", sent(jar, HOST, "/p"))
  end)

  it("refuses a cookie that cannot be sent as given", function()
    local jar = cookies.new()
    assert.is_false(jar:set("", "v", HOST))
    assert.is_false(jar:set("a=b", "v", HOST))
    assert.is_false(jar:set("a", "v; b=c", HOST))
    assert.is_false(jar:set("a", "v\r\n", HOST))
    assert.is_false(jar:set("a", string.rep("x", cookies.max_bytes), HOST))
    assert.are.equal(0, jar:count())
  end)

  it("clears the jar", function()
    local jar = jar_with({ "a=1", "b=2" })
    jar:clear()
    assert.are.equal(0, jar:count())
    assert.is_nil(sent(jar))
    assert.is_nil(next(jar))
  end)
end)

describe("cookies.proxy (u.cookies)", function()
  local jar, p, now
  before_each(function()
    jar, now = cookies.new(), NOW
    p = cookies.proxy(jar, HOST, function() return now end)
  end)

  it("reads cookies at the time now_fn gives", function()
    jar:store({ "sid=abc; Max-Age=10" }, HOST, "/", false, NOW)
    assert.are.equal("abc", p.sid)
    assert.is_nil(p.other)
    now = NOW + 10
    assert.is_nil(p.sid)
  end)

  it("sets host-only cookies for its host, and deletes on nil", function()
    p.token = "t1"
    assert.are.equal("token=t1", jar:header(HOST, "/", false, NOW))
    assert.is_nil(jar:header("www.example.com", "/", false, NOW))
    assert.are.equal("t1", p.token)
    p.token = nil
    assert.are.equal(0, jar:count())
  end)

  it("empties the jar with p:clear()", function()
    p.a, p.b = "1", "2"
    p:clear()
    assert.are.equal(0, jar:count())
    assert.is_nil(p.a)
  end)

  it("raises, naming the cookie, on a value that is not a string or nil", function()
    local ok, msg = pcall(function() p.sid = 42 end)
    assert.is_false(ok)
    assert.truthy(msg:find("u.cookies.sid: a string or nil expected, not a number", 1, true))
    assert.truthy(msg:find("cookies_spec.lua:%d+:"))  -- the script's line, not ours
    ok, msg = pcall(function() p.sid = {} end)
    assert.truthy(msg:find("not a table", 1, true))
    assert.are.equal(0, jar:count())
  end)

  it("raises on a cookie that cannot be sent and on a non-string name", function()
    local ok, msg = pcall(function() p.sid = "a;b" end)
    assert.is_false(ok)
    assert.truthy(msg:find("u.cookies.sid: the value has ';'", 1, true))
    ok, msg = pcall(function() p[1] = "x" end)
    assert.is_false(ok)
    assert.truthy(msg:find("a cookie name must be a string, not a number", 1, true))
  end)

  it("keeps clear a method: a cookie named clear is stored but not read as p.clear", function()
    jar:store({ "clear=1" }, HOST, "/", false, NOW)
    assert.are.equal("function", type(p.clear))
    assert.are.equal("1", jar:get("clear", NOW))
    assert.are.equal("clear=1", jar:header(HOST, "/", false, NOW))
  end)

  it("hides the jar behind it: no string key reaches its fields", function()
    for k in pairs(p) do assert.are_not.equal("string", type(k)) end
    p.jar = "x"  -- a cookie, not a field: the jar still works
    assert.are.equal("x", p.jar)
    assert.are.equal("jar=x", jar:header(HOST, "/", false, NOW))
  end)
end)

describe("cookies.request_host: the host cookies are kept for and sent to", function()
  it("is the Host header's host, lower case, without port or brackets", function()
    assert.are.equal("shop.example", cookies.host_of("Shop.Example:8080"))
    assert.are.equal("shop.example", cookies.host_of(" shop.example "))
    assert.are.equal("::1", cookies.host_of("[::1]:8080"))
    assert.are.equal("::1", cookies.host_of("[::1]"))
    assert.are.equal("10.0.0.1", cookies.host_of("10.0.0.1:80"))
  end)

  it("takes the request's own Host (any case) over the command line's, else the default", function()
    local base = { Host = "cli.example:8080", Accept = "*/*" }
    assert.are.equal("own.example", cookies.request_host({ hOsT = "own.example" }, base, "127.0.0.1"))
    assert.are.equal("cli.example", cookies.request_host({ ["X-A"] = "1" }, base, "127.0.0.1"))
    assert.are.equal("cli.example", cookies.request_host(nil, { HOST = "cli.example" }, "127.0.0.1"))
    assert.are.equal("127.0.0.1", cookies.request_host(nil, { Accept = "*/*" }, "127.0.0.1"))
    assert.are.equal("127.0.0.1", cookies.request_host({ Host = "" }, nil, "127.0.0.1"))
  end)

  it("lets a domain cookie set through a Host header be stored and sent back", function()
    local host = cookies.request_host(nil, { Host = "www.shop.example:8080" }, "127.0.0.1")
    local jar = cookies.new()
    jar:store({ "sid=1; Domain=shop.example" }, host, "/", false, NOW)
    assert.are.equal("sid=1", jar:header(host, "/", false, NOW))
  end)
end)
