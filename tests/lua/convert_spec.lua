-- volley convert's pure parts: the shell words of a curl command
-- (volley.convert.shell), curl's options (volley.convert.curl), the HAR
-- reader (volley.convert.har) and the flow it writes
-- (volley.convert.flowtext), whose scripts are run here with
-- volley.testing's fake user: what they send is what was recorded.
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local shell = require("volley.convert.shell")
local curl = require("volley.convert.curl")
local har = require("volley.convert.har")
local flowtext = require("volley.convert.flowtext")
local luatext = require("volley.convert.luatext")
local main = require("volley.convert.main")
local json = require("volley.json")
local testing = require("volley.testing")

local function words(line) return assert(shell.split(line)) end

local files = {}
local function read_file(path)
  if files[path] then return files[path] end
  return nil, "No such file or directory"
end

local function parse(line)
  local r, err = curl.parse(words(line), read_file)
  assert(r, err)
  return r
end

local function refuse(line)
  local r, err = curl.parse(words(line), read_file)
  assert.is_nil(r)
  return err
end

local function header(r, name)
  for _, kv in ipairs(r.headers) do
    if kv[1]:lower() == name:lower() then return kv[2] end
  end
end

describe("volley.convert.shell", function()
  it("splits on blanks and keeps quoted blanks", function()
    assert.same({ "curl", "-H", "A: b c", "x y", "z" }, words([[curl -H 'A: b c' "x y" z]]))
  end)
  it("reads single quotes literally and double quotes with their escapes", function()
    assert.same({ [[a\nb]], [[$HOME "q" \ \x]] }, words([['a\nb' "\$HOME \"q\" \\ \x"]]))
  end)
  it("reads $'...' with C escapes", function()
    assert.same({ "a\tb\n'\"\\AA\195\169\0011" }, words([[$'a\tb\n\'\"\\\x41\101\u00e9\0011']]))
  end)
  it("joins lines ended by a backslash, and escapes outside quotes", function()
    assert.same({ "curl", "http://h/", "-H", "A: b" }, words("curl http://h/ \\\n  -H A:\\ b"))
    assert.same({ "curl", "x" }, words("curl \\\r\n x"))
    assert.same({ "ab" }, words("a\\\nb"))
  end)
  it("glues quoted parts of one word", function()
    assert.same({ "--data-raw", '{"a":"it\'s"}' }, words([[--data-raw '{"a":"it'\''s"}']]))
  end)
  it("says which quote does not close", function()
    assert.matches("single quote", select(2, shell.split("curl 'x")))
    assert.matches("double quote", select(2, shell.split('curl "x')))
    assert.matches("%$'", select(2, shell.split("curl $'x")))
    assert.matches("backslash", select(2, shell.split("curl x\\")))
  end)
end)

describe("volley.convert.curl", function()
  it("is GET with curl's Accept by default, the URL's path and query", function()
    local r = parse("curl 'http://127.0.0.1:8080/a/b?x=1#frag'")
    assert.equal("GET", r.method)
    assert.equal("http://127.0.0.1:8080", r.origin)
    assert.equal("/a/b?x=1", r.path)
    assert.same({ { "Accept", "*/*" } }, r.headers)
    assert.is_nil(r.body)
  end)
  it("takes a URL without a scheme as http, and --url", function()
    assert.equal("http://h:81", parse("curl h:81/x").origin)
    assert.equal("/y", parse("curl --url http://h/y").path)
    assert.equal("/", parse("curl http://h").path)
  end)
  it("-X, -XPOST, --request", function()
    assert.equal("DELETE", parse("curl -X DELETE http://h/").method)
    assert.equal("POST", parse("curl -XPOST http://h/").method)
    assert.equal("PUT", parse("curl --request PUT http://h/").method)
  end)
  it("-H adds, 'Name;' sends it empty, 'Name:' removes curl's own", function()
    local r = parse("curl -H 'X-A: 1' -H 'X-Empty;' -H 'Accept:' http://h/")
    assert.same({ { "X-A", "1" }, { "X-Empty", "" } }, r.headers)
    assert.equal("text/html", header(parse("curl -H 'accept: text/html' http://h/"), "Accept"))
    assert.matches("not a header", refuse("curl -H nocolon http://h/"))
    local cl = parse("curl -H 'Content-Length: 5' -d abc http://h/")
    assert.is_nil(header(cl, "Content-Length"))
    assert.matches("^%-H Content%-Length: left out", cl.notes[1])
  end)
  it("-d joins with & and makes a POST of a form", function()
    local r = parse("curl -d a=1 --data 'b=2 3' --data-ascii c=4 http://h/")
    assert.equal("POST", r.method)
    assert.equal("a=1&b=2 3&c=4", r.body)
    assert.equal("application/x-www-form-urlencoded", header(r, "Content-Type"))
  end)
  it("-d @file drops line ends, --data-binary @file keeps them, --data-raw takes @ as text", function()
    files["f.txt"] = "a=1\r\nb=2\n"
    assert.equal("a=1b=2", parse("curl -d @f.txt http://h/").body)
    assert.equal("a=1\r\nb=2\n", parse("curl --data-binary @f.txt http://h/").body)
    assert.equal("@f.txt", parse("curl --data-raw @f.txt http://h/").body)
    assert.matches("%-d @nope: No such file", refuse("curl -d @nope http://h/"))
    assert.matches("stdin", refuse("curl -d @- http://h/"))
  end)
  it("--data-urlencode's forms", function()
    files["v.txt"] = "a b&c"
    local r = parse("curl --data-urlencode 'a b' --data-urlencode 'k=x&y z' --data-urlencode '=v/w' " ..
      "--data-urlencode 'f@v.txt' --data-urlencode @v.txt http://h/")
    assert.equal("a+b&k=x%26y+z&v%2Fw&f=a+b%26c&a+b%26c", r.body)
  end)
  it("--json sets JSON's content type and accept", function()
    local r = parse([[curl --json '{"a":1}' http://h/api]])
    assert.equal("POST", r.method)
    assert.equal('{"a":1}', r.body)
    assert.equal("application/json", header(r, "Content-Type"))
    assert.equal("application/json", header(r, "Accept"))
  end)
  it("-u and the URL's user make Basic authorization", function()
    assert.equal("Basic YW5uOnNlY3JldA==", header(parse("curl -u ann:secret http://h/"), "Authorization"))
    assert.equal("Basic YTpi", header(parse("curl http://a:b@h/"), "Authorization"))
    assert.matches("no password", refuse("curl -u ann http://h/"))
  end)
  it("-b, -A, -e", function()
    local r = parse("curl -b 'a=1; b=2' -A 'agent/1' -e 'http://h/from;auto' http://h/")
    assert.equal("a=1; b=2", header(r, "Cookie"))
    assert.equal("agent/1", header(r, "User-Agent"))
    assert.equal("http://h/from", header(r, "Referer"))
    assert.matches("cookie file", refuse("curl -b jar.txt http://h/"))
  end)
  it("-G puts the data in the query, -I is HEAD", function()
    local r = parse("curl -G -d q=a -d n=2 'http://h/s?x=1'")
    assert.equal("GET", r.method)
    assert.equal("/s?x=1&q=a&n=2", r.path)
    assert.is_nil(r.body)
    assert.equal("HEAD", parse("curl -I http://h/").method)
    assert.equal("HEAD", parse("curl --head http://h/").method)
  end)
  it("says what it leaves out: --compressed, -k, -L, --http2", function()
    local r = parse("curl --compressed -k -L --http2 --compressed http://h/")
    assert.equal(4, #r.notes)
    assert.matches("^%-%-compressed", r.notes[1])
    assert.matches("^%-k", r.notes[2])
    assert.matches("^%-L", r.notes[3])
    assert.is_nil(header(r, "Accept-Encoding"))
  end)
  it("takes short flags run together, and -m as the timeout", function()
    local r = parse("curl -sSLkX PUT -m 2.5 http://h/")
    assert.equal("PUT", r.method)
    assert.equal(2.5, r.timeout)
    assert.matches("not a number", refuse("curl -m soon http://h/"))
  end)
  it("names every option it does not know, and refuses what it cannot convert", function()
    assert.equal("curl options not converted: --frob, -Z (remove them, or write the request by hand)",
      refuse("curl --frob -sZ http://h/"))
    assert.matches("^curl option not converted: %-%-proxy", refuse("curl --proxy x http://h/"))
    assert.matches("one kind of body", refuse("curl -F a=b -d c=d http://h/"))
    assert.matches("not name=value", refuse("curl -F ab http://h/"))
    assert.matches("No such file", refuse("curl -F 'a=<missing.txt' http://h/"))
    assert.matches("needs a value", refuse("curl http://h/ -H"))
    assert.matches("headers from a file", refuse("curl -H @hs.txt http://h/"))
  end)
  it("wants curl, one http(s) URL", function()
    assert.matches('not a curl command: it starts with "wget"', refuse("wget http://h/"))
    assert.equal("no URL in the curl command", refuse("curl -H 'A: b'"))
    assert.matches("more than one URL", refuse("curl http://a/ http://b/"))
    assert.matches("not an http", refuse("curl ftp://h/x"))
    assert.equal("/usr/bin/curl", words("/usr/bin/curl http://h/")[1])
    assert.equal("GET", parse("/usr/bin/curl http://h/").method)
    assert.equal("/-x", parse("curl -- http://h/-x").path)
  end)
  it("writes a u:request table that reads back to the same request", function()
    local r = parse([[curl -X POST -H 'X-A: 1' -H 'x-a: 2' -d $'a\n"b"' http://h/p]])
    local text = curl.table_text(r)
    assert.matches("^u:request{", text)
    local got
    local fn = assert(loadstring("local u = ...; " .. text))
    fn({ request = function(_, t) got = t end })
    assert.same({ method = "POST", path = "/p", body = 'a\n"b"',
      headers = { Accept = "*/*", ["X-A"] = "1, 2", ["Content-Type"] = "application/x-www-form-urlencoded" } }, got)
  end)
  it("-F becomes multipart = { {name, value}, ... } in curl's order, files as volley.file", function()
    files["note.txt"] = "hello"
    local r = parse([[curl -F title=cat -F 'photo=@cat.jpg;type=image/jpeg;filename=c.jpg' -F 'note=<note.txt' ]]
      .. [[--form-string 'raw=@x' -F 'doc=@a.pdf' http://h/up]])
    assert.equal("POST", r.method)
    assert.is_nil(r.body)
    assert.same({ { "title", "cat" }, { "photo", { file = "cat.jpg", type = "image/jpeg", filename = "c.jpg" } },
      { "note", "hello" }, { "raw", "@x" }, { "doc", { file = "a.pdf" } } }, r.multipart)
    local got
    local fn = assert(loadstring("local u = ...; " .. curl.table_text(r)))
    setfenv(fn, { volley = { file = function(path, t, f) return { path, t, f } end } })
    fn({ request = function(_, t) got = t end })
    assert.same({ { "title", "cat" }, { "photo", { "cat.jpg", "image/jpeg", "c.jpg" } }, { "note", "hello" },
      { "raw", "@x" }, { "doc", { "a.pdf" } } }, got.multipart)
    assert.same({ Accept = "*/*" }, got.headers) -- Content-Type and its boundary are volley's
  end)
  it("--flow writes a flow that sends it, under volley.testing", function()
    local line = [[curl -H 'X-A: 1' --json '{"a":1}' http://127.0.0.1:8080/api?x=1]]
    local text = curl.emit(parse(line), line, true)
    assert.matches("\n%-%-   volley %-s flow.lua %-%-iterations 1 http://127.0.0.1:8080/\n", text)
    local s = assert(loadstring(text))()
    local res = testing.run(s, testing.user{ responses = { ["POST /api"] = { status = 201 } } })
    assert.is_false(res.failed)
    assert.equal(1, #res.requests)
    local q = res.requests[1]
    assert.equal("/api?x=1", q.path)
    assert.equal('{"a":1}', q.body)
    assert.equal("1", q.headers["x-a"])
    assert.equal("application/json", q.headers["content-type"])
  end)
  it("base64 as RFC 4648's vectors", function()
    for _, v in ipairs({ { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
        { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" } }) do
      assert.equal(v[2], curl.base64(v[1]))
    end
  end)
end)

describe("volley.convert.luatext", function()
  it("quotes strings that read back byte for byte", function()
    for _, s in ipairs({ "plain", 'q"\\', "a\nb\r\t", "\0\1\127x1", "\195\169t\195\169", "]]" }) do
      assert.equal(s, assert(loadstring("return " .. luatext.quote(s)))())
    end
    assert.equal('"\\0011"', luatext.quote("\0011"))
  end)
  it("keys: names bare, others bracketed, keywords too", function()
    assert.equal("Accept", luatext.key("Accept"))
    assert.equal('["Content-Type"]', luatext.key("Content-Type"))
    assert.equal('["end"]', luatext.key("end"))
  end)
end)

-- A HAR's text from entries given as { method, url, start (ms after a
-- fixed time), time (ms), status, mime, type, headers, post, extra fields }.
local T0 = 1796688000 -- 2026-12-08T00:00:00Z
local function har_text(list)
  local entries = {}
  for _, x in ipairs(list) do
    local ms = x.start or 0
    local e = {
      startedDateTime = os.date("!%Y-%m-%dT%H:%M:%S", T0 + math.floor(ms / 1000)) .. (".%03dZ"):format(ms % 1000),
      time = x.time or 10,
      request = { method = x.method or "GET", url = x.url, headers = x.headers or {}, postData = x.post },
      response = { status = x.status or 200, content = { mimeType = x.mime or "text/html" },
        headers = x.res_headers or {}, redirectURL = x.redirect or "" },
      _resourceType = x.type,
    }
    for k, v in pairs(x.extra or {}) do e[k] = v end
    entries[#entries + 1] = e
  end
  return json.encode({ log = { version = "1.2", creator = { name = "spec", version = "1" }, entries = entries } })
end

local function read(list) return assert(har.read(har_text(list), "r.har")) end
local function emit(list, opts)
  opts = opts or {}
  opts.source = opts.source or "r.har"
  return assert(flowtext.emit(read(list), opts))
end
-- Runs the flow of list once with volley.testing; every request gets 200
-- unless routes says otherwise.
local function replay(text, routes, target)
  local s = assert(loadstring(text))()
  local u = testing.user{ target = target or "http://127.0.0.1:8080", responses = routes or {
    ["GET /*"] = { status = 200 }, ["POST /*"] = { status = 200 }, ["PUT /*"] = { status = 200 },
    ["OPTIONS /*"] = { status = 200 }, ["DELETE /*"] = { status = 200 },
  } }
  return testing.run(s, u)
end

local H = "http://127.0.0.1:8080"

describe("volley.convert.har", function()
  it("reads HAR's dates: Z, offsets, fractions of any length", function()
    assert.equal(T0, har.parse_date("2026-12-08T00:00:00Z"))
    assert.equal(T0 + 0.5, har.parse_date("2026-12-08T00:00:00.5Z"))
    assert.equal(T0 + 0.123456, har.parse_date("2026-12-08T00:00:00.123456Z"))
    assert.equal(T0, har.parse_date("2026-12-08T01:00:00.000+01:00"))
    assert.equal(T0, har.parse_date("2026-12-07T19:30:00-0430"))
    assert.equal(951782400, har.parse_date("2000-02-29T00:00:00Z"))
    assert.is_nil(har.parse_date("yesterday"))
    assert.is_nil(har.parse_date(12))
  end)
  it("says what is wrong with a file in one line", function()
    local function err(text) return select(2, har.read(text, "r.har")) end
    assert.equal("r.har: not JSON: byte 1 (line 1): expected a value", err("<html>"))
    assert.equal("r.har: not JSON: byte 15 (line 2): expected ':'", err('{"log":\n {"a" 1}}'))
    assert.equal("r.har: truncated: the JSON ends at byte 19 (line 2) before it is complete", err('{"log":\n{"entries":'))
    assert.matches("^r.har: not a HAR file: no log.entries", err('{"log":{}}'))
    assert.matches("^r.har: not a HAR file", err("[1,2]"))
    assert.equal("r.har: entry 1 has no request.url", err('{"log":{"entries":[{"startedDateTime":"2026-12-08T00:00:00Z",' ..
      '"request":{"method":"GET","url":"http://h/"},"response":{"status":200}},{"request":{"method":"GET"}}]}}'))
    assert.equal("r.har: entry 0 has no request", err('{"log":{"entries":[{}]}}'))
    assert.equal("r.har: entry 0 has no request.method (or not a method)",
      err('{"log":{"entries":[{"request":{"url":"http://h/","method":"GET X"}}]}}'))
  end)
  it("leaves out what never reached a server, and says why", function()
    local h = read({
      { url = H .. "/" },
      { url = "data:image/png;base64,AAAA", start = 1 },
      { url = H .. "/cached.css", start = 2, extra = { _fromCache = "memory" } },
      { url = H .. "/blocked.js", start = 3, status = 0 },
      { url = "ws://127.0.0.1:8080/ws", start = 4 },
      { url = H .. "/ws", start = 5, type = "websocket" },
    })
    assert.equal(1, #h.entries)
    assert.same({ ["not http(s) (data)"] = 1, ["not http(s) (ws)"] = 1, ["served from the browser's cache"] = 1,
      ["not answered in the browser (status 0)"] = 1, ["a WebSocket"] = 1 }, h.skipped)
  end)
  it("orders entries by start, ties in file order", function()
    local h = read({ { url = H .. "/b", start = 20 }, { url = H .. "/a", start = 10 }, { url = H .. "/c", start = 20 } })
    assert.same({ "/a", "/b", "/c" }, { h.entries[1].path, h.entries[2].path, h.entries[3].path })
  end)
  it("links a redirect to the request of its Location", function()
    local h = read({
      { method = "POST", url = H .. "/login", status = 303, res_headers = { { name = "Location", value = "/home#x" } } },
      { url = H .. "/other", start = 5 },
      { url = H .. "/home", start = 6 },
    })
    assert.equal(h.entries[3], h.entries[1].hop)
    assert.equal(h.entries[1], h.entries[3].hop_of)
    assert.is_nil(h.entries[2].hop_of)
  end)
  it("tells assets by resource type, else MIME type, else extension", function()
    assert.is_true(har.is_asset({ _resourceType = "stylesheet" }))
    assert.is_true(har.is_asset({ _resourceType = "font" }))
    assert.is_false(har.is_asset({ _resourceType = "xhr", mime = "image/png" }))
    assert.is_false(har.is_asset({ _resourceType = "document" }))
    assert.is_true(har.is_asset({ _resourceType = "other", mime = "image/svg+xml" }))
    assert.is_true(har.is_asset({ mime = "application/javascript" }))
    assert.is_false(har.is_asset({ mime = "application/json", path = "/x.js" }))
    assert.is_true(har.is_asset({ mime = "", path = "/fonts/a.woff2" }))
    assert.is_false(har.is_asset({ mime = "", path = "/api/items?x=a.png" }))
  end)
end)

describe("volley.convert.flowtext", function()
  it("keeps a request's own headers and drops each class of the others", function()
    local text = emit({ { url = H .. "/", headers = {
      { name = ":authority", value = "h" }, { name = "Host", value = "h" }, { name = "Content-Length", value = "0" },
      { name = "Connection", value = "keep-alive" }, { name = "Cookie", value = "sid=1" },
      { name = "User-Agent", value = "Mozilla/5.0 (X11)" }, { name = "If-None-Match", value = '"e"' },
      { name = "Cache-Control", value = "no-cache" }, { name = "sec-ch-ua", value = "x" },
      { name = "Sec-Fetch-Mode", value = "cors" }, { name = "Upgrade-Insecure-Requests", value = "1" },
      { name = "Priority", value = "u=0" },
      { name = "Accept", value = "text/html" }, { name = "Accept-Encoding", value = "gzip" },
      { name = "Authorization", value = "Bearer t" }, { name = "X-CSRF-Token", value = "abc" },
      { name = "Referer", value = H .. "/" },
    } } })
    local r = replay(text)
    local hs = r.requests[1].headers
    assert.equal("text/html", hs.accept)
    assert.equal("gzip", hs["accept-encoding"])
    assert.equal("Bearer t", hs.authorization)
    assert.equal("abc", hs["x-csrf-token"])
    assert.equal(H .. "/", hs.referer)
    assert.equal("volley/testing", hs["user-agent"])
    for _, n in ipairs({ "cookie", "if-none-match", "cache-control", "sec-ch-ua", "sec-fetch-mode",
        "upgrade-insecure-requests", "priority", "connection" }) do
      assert.is_nil(hs[n], n)
    end
    assert.matches("\n%-%-   HTTP/2 pseudo%-headers: :authority\n", text)
    assert.matches("\n%-%-   the user's cookie jar keeps cookies: Cookie\n", text)
    assert.matches("\n%-%-   Mozilla/5.0 %(X11%)\n", text)
  end)
  it("writes a urlencoded body as form, other bodies exactly with their type", function()
    local text = emit({
      { method = "POST", url = H .. "/login", post = { mimeType = "application/x-www-form-urlencoded", text = "user=a+b&pw=%26x" },
        headers = { { name = "Content-Type", value = "application/x-www-form-urlencoded" } } },
      { method = "POST", url = H .. "/twice", start = 20, post = { mimeType = "application/x-www-form-urlencoded", text = "a=1&a=2" } },
      { method = "PUT", url = H .. "/api", start = 40, post = { mimeType = "application/json", text = '{"b":1, "a":[2]}' } },
      { method = "POST", url = H .. "/params", start = 60,
        post = { mimeType = "application/x-www-form-urlencoded", params = { { name = "q", value = "x y" } } } },
      { method = "POST", url = H .. "/latin", start = 80,
        post = { mimeType = "application/x-www-form-urlencoded; charset=ISO-8859-1", text = "a=%E9" } },
    })
    assert.matches('form = { pw = "&x", user = "a b" }', text, 1, true)
    local r = replay(text)
    assert.equal("pw=%26x&user=a%20b", r.requests[1].body)
    assert.equal("application/x-www-form-urlencoded", r.requests[1].headers["content-type"])
    assert.equal("a=1&a=2", r.requests[2].body)
    assert.equal("application/x-www-form-urlencoded", r.requests[2].headers["content-type"])
    assert.equal('{"b":1, "a":[2]}', r.requests[3].body)
    assert.equal("application/json", r.requests[3].headers["content-type"])
    assert.equal("q=x%20y", r.requests[4].body)
    assert.equal("a=%E9", r.requests[5].body)
    assert.equal("application/x-www-form-urlencoded; charset=ISO-8859-1", r.requests[5].headers["content-type"])
  end)
  it("names requests with ids in their path, and only those", function()
    assert.equal("GET /items/{id}", flowtext.name("GET", "/items/123?x=1"))
    assert.equal("PUT /u/{id}/o/{id}", flowtext.name("PUT", "/u/550e8400-e29b-41d4-a716-446655440000/o/0042"))
    assert.equal("GET /f/{id}", flowtext.name("GET", "/f/9f86d081884c7d659a2feaa0c55ad015"))
    assert.equal("GET /t/{id}", flowtext.name("GET", "/t/AbCdEfGhIjKlMnOpQrSt1"))
    assert.is_nil(flowtext.name("GET", "/items/new"))
    assert.is_nil(flowtext.name("GET", "/v2/api"))
    assert.equal("GET cdn:81/i/{id}/x", flowtext.name("GET", "/i/7/x", "cdn:81"))
    local r = replay(emit({ { url = H .. "/items/7" }, { url = H .. "/list?page=2", start = 30 } }))
    assert.equal("GET /items/{id}", r.requests[1].name)
    assert.is_nil(r.requests[2].name)
  end)
  it("batches what started before the step's requests had ended, and sleeps the gaps", function()
    local list = {
      { url = H .. "/", start = 0, time = 100 },
      { url = H .. "/a.css", start = 120, time = 50 },   -- after the page: a new step, no sleep (20 ms)
      { url = H .. "/a.js", start = 130, time = 200 },   -- with a.css
      { url = H .. "/a.png", start = 300, time = 10 },   -- a.js still loading: the same batch
      { url = H .. "/api/1", start = 830, time = 20 },   -- 500 ms after the batch's end (330): sleep 0.5
      { url = H .. "/api/2", start = 940, time = 20 },   -- 90 ms: under the threshold
      { url = H .. "/api/3", start = 1084, time = 5 },   -- 124 ms: sleep 0.12
    }
    local steps = flowtext.steps(read(list).entries)
    local shape = {}
    for _, st in ipairs(steps) do shape[#shape + 1] = st.kind == "sleep" and st.seconds or #st.list end
    assert.same({ 1, 3, 0.5, 1, 1, 0.12, 1 }, shape)
    local text = emit(list)
    local r = replay(text)
    assert.same({ 0.5, 0.12 }, r.sleeps)
    local paths = {}
    for i, q in ipairs(r.requests) do paths[i] = q.path end
    assert.same({ "/", "/a.css", "/a.js", "/a.png", "/api/1", "/api/2", "/api/3" }, paths)
    assert.matches("\n  u:batch{\n    \"/a.css\",  %-%- 200 text/html\n", text)
    assert.matches("%-%- 7 requests in 5 steps %(1 batch%), 2 think times %(0.62 s in all%)%.", text)
    -- --think-min: a longer threshold keeps only the long gap.
    assert.same({ 0.5 }, replay(emit(list, { think_min = 0.2 })).sleeps)
  end)
  it("leaves assets out with --no-assets, and says how many", function()
    local list = {
      { url = H .. "/", type = "document" },
      { url = H .. "/a.css", start = 20, type = "stylesheet", mime = "text/css" },
      { url = H .. "/logo", start = 21, mime = "image/png" },
      { url = H .. "/f.woff2", start = 22, mime = "" },
      { url = H .. "/api", start = 40, type = "fetch", mime = "application/json" },
    }
    local text = emit(list, { no_assets = true })
    local r = replay(text)
    assert.same({ "/", "/api" }, { r.requests[1].path, r.requests[2].path })
    assert.equal(2, #r.requests)
    assert.matches("\n%-%- Left out: 3 assets %(%-%-no%-assets%)%.\n", text)
    assert.equal(5, #replay(emit(list)).requests)
    local _, err = flowtext.emit(read({ list[2] }), { no_assets = true, source = "r.har" })
    assert.equal("r.har: no request left to convert: all 1 are assets (--no-assets)", err)
  end)
  it("puts paths on the main origin and lists the other hosts for --allow-host", function()
    local text = emit({
      { url = "https://cdn.example.com/lib.js", start = 0, type = "script" },
      { url = "http://127.0.0.1:8080/", start = 10, type = "document" },
      { url = "http://127.0.0.2:8081/x", start = 30 },
      { url = "https://cdn.example.com:443/y", start = 50 },
      { url = "http://127.0.0.1:8080/z", start = 70 },
    })
    assert.matches('\n  u:get%("https://cdn.example.com/lib.js"%)', text)
    assert.matches('\n  u:get%("/"%)', text)
    assert.matches('\n  u:get%("http://127.0.0.2:8081/x"%)', text)
    assert.matches('\n  u:get%("/z"%)', text)
    assert.matches('\n  u:get%("https://cdn.example.com/y"%)', text)
    assert.matches("\n%-%-   http://127.0.0.1:8080        2  %(the target", text)
    assert.matches("\n%-%-   https://cdn.example.com      2  %(absolute URLs", text)
    assert.matches("\n%-%-   http://127.0.0.2:8081        1  %(absolute URLs", text)
    assert.matches("\n%-%-   volley %-s flow.lua %-%-iterations 1 %-%-allow%-host cdn.example.com,127.0.0.2:8081 http://127.0.0.1:8080/\n", text)
  end)
  it("leaves a redirect on the origin to the flow, and makes a hop to another origin a request", function()
    local list = {
      { method = "POST", url = H .. "/login", status = 302, time = 10, redirect = H .. "/home",
        post = { mimeType = "application/x-www-form-urlencoded", text = "u=a" } },
      { url = H .. "/home", start = 12, time = 10 },
      { url = H .. "/sso", start = 500, status = 302, time = 10, redirect = "http://127.0.0.2:9000/auth" },
      { url = "http://127.0.0.2:9000/auth", start = 512 },
    }
    local text = emit(list)
    local r = replay(text, {
      ["POST /login"] = { status = 302, headers = { Location = "/home" } },
      ["GET /home"] = { status = 200 },
      ["GET /sso"] = { status = 302, headers = { Location = "http://127.0.0.2:9000/auth" } },
    })
    assert.same({ "/login", "/home", "/sso" }, { r.requests[1].path, r.requests[2].path, r.requests[3].path })
    -- The fourth, on another origin, is the flow's own request (sent with
    -- --allow-host); never /login's hop again.
    assert.is_true(#r.requests <= 4)
    assert.matches('"/sso", { redirects = 0 }', text, 1, true)
    assert.matches('u:get("http://127.0.0.2:9000/auth")', text, 1, true)
    assert.matches("1 redirect followed %(the flow follows it itself%)", text)
    -- The hop's time counts for the next gap: 12 + 10 ms, then 478 ms: a sleep.
    assert.same({ 0.48 }, r.sleeps)
  end)
  it("sends a method without its own u: method through u:request", function()
    local text = emit({ { method = "OPTIONS", url = H .. "/api" } })
    assert.matches('u:request{ method = "OPTIONS", path = "/api" }', text, 1, true)
    assert.equal("OPTIONS", replay(text).requests[1].method)
  end)
  it("names the file, the recorder and what the steps hold", function()
    local text = emit({ { url = H .. "/" } }, { source = "shop.har", script = "shop.lua" })
    assert.matches("^%-%- A flow converted by `volley convert` from shop.har %(recorded by spec 1%):\n", text)
    assert.matches("volley %-s shop.lua ", text)
    assert.matches("\nreturn s\n$", text)
  end)
end)

describe("volley.convert.main", function()
  it("parses its command line", function()
    assert.same({ input = "r.har", no_assets = true, output = "f.lua" }, main.parse({ "--no-assets", "-o", "f.lua", "r.har" }))
    assert.same({ curl = "curl x", flow = true }, main.parse({ "--curl", "curl x", "--flow" }))
    assert.equal(0.25, main.parse({ "--think-min", "250ms", "r.har" }).think_min)
    assert.equal(2, main.parse({ "--think-min", "2", "r.har" }).think_min)
    assert.same({ help = true }, main.parse({ "-h" }))
    local function err(args) return select(2, main.parse(args)) end
    assert.equal("-o: needs a value", err({ "r.har", "-o" }))
    assert.equal("unknown option --x (volley convert --help lists them)", err({ "--x" }))
    assert.matches("^one recording at a time", err({ "a.har", "b.har" }))
    assert.matches("left over", err({ "--curl", "curl", "x" }))
    assert.matches("^%-%-no%-assets and %-%-think%-min are for a HAR", err({ "--curl", "curl x", "--no-assets" }))
    assert.matches("^%-%-flow is for %-%-curl", err({ "--flow", "r.har" }))
    assert.matches("is not a duration", err({ "--think-min", "1h", "r.har" }))
  end)
end)

describe("volley.convert's comments", function()
  it("keep line ends of names and recorders out of the code", function()
    local h = read({ { url = H .. "/", headers = { { name = "User-Agent", value = "a\rb" } } } })
    h.creator = "evil\nos.exit(3)"
    local text = assert(flowtext.emit(h, { source = "x\r.har" }))
    assert.is_nil(text:find("\nos.exit", 1, true))
    assert.is_nil(text:find("\r", 1, true))
    assert.truthy(loadstring(text))
    local line = "curl http://h/\ros.exit(3)"
    local out = curl.emit(parse("curl http://h/"), line, true)
    assert.is_nil(out:find("\r", 1, true))
  end)
end)
