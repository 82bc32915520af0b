-- scripts/ab.lua's pure parts: ab's command line (volley.ab.args), the
-- request bytes (volley.ab.request) and the report's arithmetic and text
-- (volley.ab.report), checked against the real ab runs kept in
-- /work/shared/reference/ab-samples/ (numbers copied here, so the specs do
-- not need that directory).
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local args = require("volley.ab.args")
local request = require("volley.ab.request")
local report = require("volley.ab.report")

-- Splits a command line on blanks (the specs' arguments have none inside).
local function words(line)
  local t = {}
  for w in line:gmatch("%S+") do t[#t + 1] = w end
  return t
end

-- Parses a command line that must be accepted.
local function parse(line, readfile)
  local o, err = args.parse(type(line) == "table" and line or words(line), readfile)
  assert(o, err and (err.stderr or err.stdout))
  return o
end

-- Parses a command line that must be refused; returns what ab prints.
local function refuse(line, readfile)
  local o, err = args.parse(type(line) == "table" and line or words(line), readfile)
  assert(o == nil, "accepted: " .. (type(line) == "table" and table.concat(line, " ") or line))
  return err
end

local function files(map)
  return function(path)
    if map[path] then return map[path] end
    return nil, "open", "No such file or directory"
  end
end

local URL = "http://127.0.0.1:8765/index.html"

describe("ab's command line", function()
  it("has ab's defaults", function()
    local o = parse(URL)
    assert.are.same({ 1, 1, 0, 30, 0, "GET" }, { o.requests, o.concurrency, o.tlimit, o.timeout, o.verbosity, o.method })
    assert.are.same({ false, false, false, true, true, false },
      { o.keepalive, o.nolength, o.recverrok, o.percentile, o.confidence, o.html })
    assert.is_nil(o.body)
    assert.are.equal(0, o.heartbeat)
    assert.are.equal("", o.warnings)
    assert.are.same({ "127.0.0.1", 8765, "/index.html", ":8765", "127.0.0.1" },
      { o.url.hostname, o.url.port, o.url.path, o.url.colonhost, o.url.host_field })
  end)

  it("reads every flag", function()
    local o = parse({
      "-n", "300", "-c", "7", "-s", "5", "-b", "65536", "-B", "127.0.0.1", "-T", "text/csv",
      "-v", "3", "-l", "-r", "-k", "-d", "-S", "-q", "-g", "g.tsv", "-e", "e.csv",
      "-C", "a=1", "-H", "X-A: 1", "-A", "u:p", "-P", "x:y", "-X", "proxy:3128", "-m", "PATCH", URL,
    })
    assert.are.same({ 300, 7, 5, 65536, "127.0.0.1", "text/csv", 3 },
      { o.requests, o.concurrency, o.timeout, o.windowsize, o.bind, o.content_type, o.verbosity })
    assert.are.same({ true, true, true, false, false, false },
      { o.nolength, o.recverrok, o.keepalive, o.percentile, o.confidence, o.progress })
    assert.are.same({ "g.tsv", "e.csv", "a=1", "PATCH", "proxy", 3128 },
      { o.gnuplot, o.csv, o.cookie, o.method, o.proxy_host, o.proxy_port })
    assert.are.same({ "X-A: 1" }, o.headers)
    assert.are.equal("Authorization: Basic dTpw\r\nProxy-Authorization: Basic eDp5\r\n", o.auth)
  end)

  it("turns on HTML with -w, -x, -y and -z, keeping their attributes", function()
    assert.is_true(parse("-w " .. URL).html)
    local o = parse("-x border=1 -y class=r -z align=right " .. URL)
    assert.are.same({ true, "border=1", "class=r", "align=right" }, { o.html, o.table_attrs, o.tr_attrs, o.td_attrs })
    assert.are.same({ "", "", "bgcolor=white" }, { parse(URL).table_attrs, parse(URL).tr_attrs, parse(URL).td_attrs })
  end)

  it("takes values glued or apart, and clusters of flags", function()
    local o = parse("-n5 -kc 2 " .. URL)
    assert.are.same({ 5, 2, true }, { o.requests, o.concurrency, o.keepalive })
    o = parse("-kqc2 -n 3 " .. URL)
    assert.are.same({ 3, 2, true, false }, { o.requests, o.concurrency, o.keepalive, o.progress })
  end)

  it("ends the options at --, at any --word, and at the first other word", function()
    assert.are.equal(5, parse("-n 5 -- " .. URL).requests)
    assert.are.equal(1, parse("--foo " .. URL).requests)
    assert.truthy(refuse("-- -n 5 " .. URL).stderr:find("^ab: wrong number of arguments\n"))
    assert.truthy(refuse(URL .. " -n 5").stderr:find("^ab: wrong number of arguments\n"))
    assert.truthy(refuse("--foo -n 3 " .. URL).stderr:find("^ab: wrong number of arguments\n"))
  end)

  it("reads a lone - as the URL", function()
    local err = refuse("-n 3 -")
    assert.truthy(err.stderr:find("^ab: invalid URL\nUsage: ab "))
  end)

  it("goes on after an illegal option when the URL is the one word left, as ab does", function()
    local o = parse("-j " .. URL)
    assert.are.equal("ab: illegal option -- j\n", o.warnings)
    assert.are.equal(1, o.requests)
  end)

  it("stops at an illegal option, and then counts the words left", function()
    local err = refuse("-j -n 3 " .. URL)
    assert.are.equal("ab: illegal option -- j\nab: wrong number of arguments\n" .. args.USAGE, err.stderr)
    assert.are.equal(22, err.status)
    -- in a cluster the rest of the cluster is still unread
    assert.truthy(refuse("-jk " .. URL).stderr:find("^ab: illegal option %-%- j\nab: wrong number"))
    assert.truthy(refuse("-kj -n 3 " .. URL).stderr:find("^ab: illegal option %-%- j\nab: wrong number"))
    assert.are.equal("ab: illegal option -- :\n", parse("-n 3 -: " .. URL).warnings)
  end)

  it("reports a missing value", function()
    local err = refuse("-n")
    assert.are.equal("ab: option requires an argument -- n\nab: wrong number of arguments\n" .. args.USAGE, err.stderr)
    assert.are.equal(22, err.status)
  end)

  it("prints the usage for -h and with no URL", function()
    assert.are.same({ stderr = args.USAGE, status = 22 }, refuse("-h " .. URL))
    assert.are.same({ stderr = "ab: wrong number of arguments\n" .. args.USAGE, status = 22 }, refuse("-n 5"))
    assert.truthy(args.USAGE:find("^Usage: ab %[options%] %[http%[s%]://%]hostname%[:port%]/path\nOptions are:\n"))
    assert.truthy(args.AB_USAGE:find("\n    %-E certfile     Specify optional client certificate chain and private key\n$"))
    -- ab's text, then volley ab's own options
    assert.are.equal(args.AB_USAGE .. args.VOLLEY_USAGE, args.USAGE)
    assert.truthy(args.VOLLEY_USAGE:find("^volley ab only:\n    %-%-tls%-resume "))
  end)

  it("prints the banner for -V (HTML after -w) and exits 0, whatever follows", function()
    local err = refuse("-V -n 0")
    assert.are.same({ stdout = args.banner(false), status = 0 }, err)
    assert.are.equal("This is ApacheBench, Version 2.3 <$Revision$>\n"
      .. "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
      .. "Licensed to The Apache Software Foundation, http://www.apache.org/\n\n", err.stdout)
    assert.truthy(refuse("-w -V").stdout:find("^<p>\n This is ApacheBench, Version 2.3 <i>&lt;%$Revision%$&gt;</i><br>\n"))
    assert.truthy(args.banner(true):find("<br>\n</p>\n<p>\n$"))
  end)

  it("refuses a number of requests that is not above 0 (err(): exit 1)", function()
    for _, n in ipairs({ "0", "-3", "abc", "" }) do
      assert.are.same({ stderr = "Invalid number of requests\n\n", status = 1 }, refuse({ "-n", n, URL }))
    end
  end)

  it("checks the concurrency against its range and the requests", function()
    assert.are.same({ stderr = "ab: Invalid Concurrency [Range 0..200000]\n" .. args.USAGE, status = 22 },
      refuse("-c -1 " .. URL))
    assert.are.equal(22, refuse("-n 300000 -c 200001 " .. URL).status)
    assert.are.equal(200000, parse("-n 300000 -c 200000 " .. URL).concurrency)
    assert.are.same({ stderr = "ab: Cannot use concurrency level greater than total number of requests\n"
      .. args.USAGE, status = 22 }, refuse("-n 5 -c 10 " .. URL))
    assert.are.equal(0, parse("-c 0 " .. URL).concurrency) -- ab fails later, when it polls
  end)

  it("lets the last of -n and -t set the number of requests", function()
    local o = parse("-n 300 -t 1 " .. URL)
    assert.are.same({ 50000, 1 }, { o.requests, o.tlimit })
    o = parse("-t 1 -n 300 " .. URL)
    assert.are.same({ 300, 1 }, { o.requests, o.tlimit })
    assert.are.equal(22, refuse("-t 1 -n 3 -c 5 " .. URL).status)
  end)

  it("shows progress every max(n/10, 100) requests above 150, unless -q", function()
    assert.are.equal(0, parse("-n 150 " .. URL).heartbeat)
    assert.are.equal(100, parse("-n 151 " .. URL).heartbeat)
    assert.are.equal(100, parse("-n 1000 " .. URL).heartbeat)
    assert.are.equal(205, parse("-n 2057 " .. URL).heartbeat)
    assert.are.equal(5000, parse("-t 1 " .. URL).heartbeat)
    assert.are.equal(0, parse("-q -n 2000 " .. URL).heartbeat)
  end)

  it("allows one method: -i, -p, -u refuse an earlier one; -m after them wins", function()
    local fs = files({ ["post.txt"] = "a=1" })
    assert.are.same({ stderr = "Cannot mix POST with other methods\n\n", status = 1 }, refuse("-i -p post.txt " .. URL, fs))
    assert.are.same({ stderr = "Cannot mix PUT with other methods\n\n", status = 1 }, refuse("-p post.txt -u post.txt " .. URL, fs))
    assert.are.same({ stderr = "Cannot mix HEAD with other methods\n\n", status = 1 }, refuse("-m X -i " .. URL, fs))
    assert.are.equal(1, refuse("-m X -p post.txt " .. URL, fs).status)
    local o = parse("-p post.txt -m X " .. URL, fs)
    assert.are.same({ "X", "a=1" }, { o.method, o.body })
    o = parse("-i -m X " .. URL, fs)
    assert.are.same({ "X" }, { o.method, o.body })
    assert.are.same({ "PUT", "a=1" }, { parse("-u post.txt " .. URL, fs).method, parse("-u post.txt " .. URL, fs).body })
    assert.are.equal("HEAD", parse("-i " .. URL).method)
  end)

  it("says when the body file cannot be read", function()
    assert.are.same({ stderr = "ab: Could not open POST data file (nope): No such file or directory\n", status = 1 },
      refuse("-u nope " .. URL, files({})))
    local dir = function() return nil, "read", "Is a directory" end
    assert.are.same({ stderr = "ab: Could not read POST data file: Is a directory\n", status = 1 },
      refuse("-p /tmp " .. URL, dir))
  end)

  it("reads a real body file whole, binary", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write("a\0b\r\n")
    f:close()
    assert.are.equal("a\0b\r\n", parse({ "-p", path, URL }).body)
    os.remove(path)
    assert.truthy(refuse({ "-p", path, URL }).stderr:find(": No such file or directory\n$"))
  end)

  it("keeps the last -C and every -A and -P, and notes -H Host, Accept and User-Agent in any case", function()
    local o = parse({ "-C", "a=1", "-C", "b=2", "-A", "  user:pass", "-A", "x:y", URL })
    assert.are.equal("b=2", o.cookie)
    assert.are.equal("Authorization: Basic dXNlcjpwYXNz\r\nAuthorization: Basic eDp5\r\n", o.auth)
    o = parse({ "-H", "host: h", "-H", "ACCEPT: x", "-H", "user-agent: me", URL })
    assert.are.same({ true, true, true }, { o.opt_host, o.opt_accept, o.opt_useragent })
    o = parse({ "-H", "X-Host: h", "-H", "Accepts: x", URL })
    assert.are.same({ false, false, false }, { o.opt_host, o.opt_accept, o.opt_useragent })
  end)

  it("refuses credentials whose base64 is over 1023 characters", function()
    assert.truthy(parse({ "-A", ("a"):rep(765), URL }))
    assert.are.same({ stderr = "Authentication credentials too long\n\n", status = 1 }, refuse({ "-A", ("a"):rep(766), URL }))
    assert.are.same({ stderr = "Proxy credentials too long\n\n", status = 1 }, refuse({ "-P", ("a"):rep(766), URL }))
  end)

  it("reads -X as host[:port], port 0 when none", function()
    local o = parse("-X proxy " .. URL)
    assert.are.same({ "proxy", 0 }, { o.proxy_host, o.proxy_port })
    o = parse("-X 10.0.0.1:8080:9 " .. URL)
    assert.are.same({ "10.0.0.1", 8080 }, { o.proxy_host, o.proxy_port })
  end)

  it("reads ab's TLS flags: -f, -Z, -E, -I", function()
    local o = parse("-Z ECDHE-RSA-AES128-GCM-SHA256 -f TLS1.2 -I https://localhost:8443/")
    assert.are.same({ 12, "ECDHE-RSA-AES128-GCM-SHA256", false, false, true },
      { o.tls_version, o.cipher, o.ciphers_tls13, o.use_sni, o.url.https })
    assert.is_nil(o.sni)
    o = parse("https://localhost:8443/")
    assert.are.same({ true, "localhost" }, { o.use_sni, o.sni })
    assert.is_nil(o.tls_version)
    assert.is_nil(o.cipher)
  end)

  it("resumes TLS sessions only with --tls-resume, volley ab's own option, among ab's", function()
    assert.is_false(parse("https://localhost:8443/").tls_resume)
    assert.is_false(parse("-k -n 5 https://localhost:8443/").tls_resume)
    local o = parse("-n 5 --tls-resume -c 2 https://localhost:8443/")
    assert.are.same({ true, 5, 2 }, { o.tls_resume, o.requests, o.concurrency })
    assert.is_true(parse("--tls-resume https://localhost:8443/").tls_resume)
    -- any other --word still ends the options, as in ab
    assert.are.equal(22, refuse("--tls-resumes -n 5 https://localhost:8443/").status)
    assert.are.equal(1, parse("--other https://localhost:8443/").requests)
    -- after the URL it is a word too many, as any option there
    assert.are.equal(22, refuse("https://localhost:8443/ --tls-resume").status)
  end)

  it("reads -f as ab does: a prefix in any case, TLS1.3 before TLS1, anything else ignored", function()
    local function version(flags) return parse(flags .. " https://h/").tls_version end
    assert.are.same({ 10, 11, 12, 13 }, { version("-f TLS1"), version("-f TLS1.1"), version("-f tls1.2"), version("-f Tls1.3") })
    assert.are.equal(12, version("-f TLS1.2x"))   -- a prefix is enough
    assert.are.equal(10, version("-f TLS1.4"))    -- "TLS1" matches
    assert.is_nil(version("-f TLS1.2 -f ALL"))    -- ALL clears the bounds
    assert.is_nil(version("-f all"))
    for _, ignored in ipairs({ "SSL2", "SSL3", "TLS", "foo" }) do
      assert.are.equal(12, version("-f TLS1.2 -f " .. ignored), ignored)
      assert.is_nil(version("-f " .. ignored), ignored)
    end
    assert.are.equal(12, parse({ "-f", "TLS1.2", "-f", "", "https://h/" }).tls_version)
  end)

  it("takes -Z as TLS 1.3 suites only with -f TLS1.3, wherever -f comes", function()
    assert.is_true(parse("-Z TLS_AES_128_GCM_SHA256 -f TLS1.3 https://h/").ciphers_tls13)
    assert.is_true(parse("-f TLS1.3 -Z TLS_AES_128_GCM_SHA256 https://h/").ciphers_tls13)
    assert.is_false(parse("-Z TLS_AES_128_GCM_SHA256 -f TLS1.3 -f ALL https://h/").ciphers_tls13)
    assert.is_false(parse("-Z AES128-SHA https://h/").ciphers_tls13)
  end)

  it("sends the -H Host: value or the URL's host as the server name, none for an IP address or with -I", function()
    local function sni(line) return parse(type(line) == "table" and line or words(line)).sni end
    assert.are.equal("localhost", sni("https://localhost/"))
    assert.is_nil(sni("https://127.0.0.1/"))
    assert.is_nil(sni("https://[::1]:8443/"))
    assert.are.equal("example.test", sni({ "-H", "Host:   example.test  ", "https://127.0.0.1/" }))
    assert.are.equal("b.test:99", sni({ "-H", "Host: a.test", "-H", "host: b.test:99", "https://localhost/" }))
    assert.is_nil(sni({ "-H", "Host: ", "https://localhost/" }))          -- empty: none, not the URL's host
    assert.is_nil(sni({ "-H", "Host: 10.1", "https://localhost/" }))
    assert.is_nil(sni({ "-I", "-H", "Host: example.test", "https://localhost/" }))
    assert.are.equal("localhost", sni("-X 127.0.0.1:3128 https://localhost/")) -- not the proxy's name
  end)

  it("takes what apr_ipsubnet_create takes for an IP address", function()
    for _, ip in ipairs({ "127.0.0.1", "10", "10.1", "10.1.2", "1.2.3.", "010.1.1.1", "255.255.255.255",
      "::1", "fe80::1", "::", "2001:db8::1.2.3.4", "::FFFF" }) do
      assert.is_true(args.is_ip_literal(ip), ip)
    end
    for _, name in ipairs({ "", "localhost", "127.0.0.1:5", "1.2.3.4.5", "256.1.1.1", "1..2", ".1", "12ab",
      "[::1]", "fe80::1%eth0", "::ffff:1.2.3.4", "::FFFF:102:304", "1.2.3.4.5.6.7.8.9" }) do
      assert.is_false(args.is_ip_literal(name), name)
    end
  end)

  it("checks -E's file as ab does, before the banner, for http URLs too", function()
    local pem = "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n"
    local key = "-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----\n"
    local fs = files({ ["both.pem"] = pem .. key, ["cert.pem"] = pem, ["ec.pem"] = pem .. key:gsub("PRIVATE", "EC PRIVATE"),
      ["key.pem"] = key })
    assert.are.equal("both.pem", parse("-E both.pem " .. URL, fs).cert)
    assert.are.equal("ec.pem", parse("-E ec.pem https://h/", fs).cert)
    assert.are.same({ stderr = "unable to get certificate from 'none.pem'\n", status = 1 }, refuse("-E none.pem " .. URL, fs))
    assert.are.same({ stderr = "unable to get certificate from 'key.pem'\n", status = 1 }, refuse("-E key.pem " .. URL, fs))
    assert.are.same({ stderr = "unable to get private key from 'cert.pem'\n", status = 1 }, refuse("-E cert.pem " .. URL, fs))
    -- after the URL and -c checks
    assert.are.equal(22, refuse("-E none.pem -n 1 -c 2 " .. URL, fs).status)
    assert.are.equal(22, refuse("-E none.pem nourl", fs).status)
  end)
end)

describe("ab's atoi and base64", function()
  it("reads numbers as C's atoi does", function()
    local cases = { ["10"] = 10, ["  7"] = 7, ["+3"] = 3, ["-3"] = -3, ["5abc"] = 5, ["abc"] = 0, [""] = 0,
      ["- 3"] = 0, ["4294967297"] = 1, ["2147483648"] = -2147483648, ["99999999999999999999"] = -1 }
    for s, n in pairs(cases) do assert.are.equal(n, args.atoi(s), s) end
  end)

  it("encodes base64 with padding", function()
    assert.are.same({ "", "YQ==", "YWI=", "YWJj", "dXNlcjpwYXNz" },
      { args.base64(""), args.base64("a"), args.base64("ab"), args.base64("abc"), args.base64("user:pass") })
    assert.are.equal("AP8=", args.base64("\0\255"))
  end)
end)

describe("ab's URLs", function()
  local function url(u) return args.parse_url(u) end

  it("needs a path; the scheme is optional; the query and fragment stay in the path", function()
    assert.is_nil(url("http://127.0.0.1:8765"))
    local u = url("127.0.0.1:8080/a?b=1#c")
    assert.are.same({ "127.0.0.1", 8080, "/a?b=1#c", false }, { u.hostname, u.port, u.path, u.https })
    u = url("http://example.test/")
    assert.are.same({ "example.test", 80, "" }, { u.hostname, u.port, u.colonhost })
    assert.are.same({ 443, "" }, { url("https://h/").port, url("https://h/").colonhost })
    assert.are.equal(":80", url("https://h:80/").colonhost)
  end)

  it("refuses what apr_parse_addr_port refuses", function()
    for _, bad in ipairs({ "http://:80/", "http://127.0.0.1:0/", "http://h:65536/", "http:///", "http://80/",
      "http://[::1/", "http://[zz]/", "http://[fe80::1%eth0]/" }) do
      assert.is_nil(url(bad), bad)
    end
  end)

  it("takes a port that is not all digits as part of the host, as ab does", function()
    assert.are.same({ "127.0.0.1:abc", 80 }, { url("http://127.0.0.1:abc/").hostname, url("http://127.0.0.1:abc/").port })
    assert.are.equal("http:", url("http://").hostname) -- "http://" alone is not a scheme
  end)

  it("reads bracketed IPv6 addresses", function()
    local u = url("http://[::1]:8080/x")
    assert.are.same({ "::1", "[::1]", 8080, ":8080" }, { u.hostname, u.host_field, u.port, u.colonhost })
    assert.are.equal("2001:db8::ffff:1.2.3.4", url("http://[2001:db8::ffff:1.2.3.4]/").hostname)
    assert.truthy(url("http://[1:2:3:4:5:6:7:8]/"))
    assert.is_nil(url("http://[1:2:3:4:5:6:7:8:9]/"))
    assert.is_nil(url("http://[1::2::3]/"))
  end)
end)

describe("ab's request bytes", function()
  local function req(line, readfile) return request.head(parse(line, readfile)) end

  it("are the -v 2 sample's: Cookie (last -C), Authorization, -H lines, Host, no Accept", function()
    local head = req({ "-n", "3", "-c", "1", "-v", "2", "-C", "a=1", "-C", "b=2", "-A", "user:pass",
      "-H", "X-Test: 1", "-H", "Accept: text/plain", "http://127.0.0.1:8767/plain" })
    assert.are.equal("GET /plain HTTP/1.0\r\nCookie: b=2\r\nAuthorization: Basic dXNlcjpwYXNz\r\n"
      .. "X-Test: 1\r\nAccept: text/plain\r\nHost: 127.0.0.1:8767\r\nUser-Agent: ApacheBench/2.3\r\n\r\n", head)
  end)

  it("have the defaults, and no port in Host for port 80", function()
    assert.are.equal("GET / HTTP/1.0\r\nHost: example.test\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n",
      req("http://example.test/"))
    assert.are.equal("HEAD / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: [::1]:81\r\nUser-Agent: ApacheBench/2.3\r\n"
      .. "Accept: */*\r\n\r\n", req("-i -k http://[::1]:81/"))
  end)

  it("are the POST sample's 158 bytes of head, then the body", function()
    local o = parse("-p post.txt -T application/x-www-form-urlencoded http://127.0.0.1:8767/post",
      files({ ["post.txt"] = ("x"):rep(1000) }))
    local bytes, head = request.build(o)
    assert.are.equal("POST /post HTTP/1.0\r\nContent-length: 1000\r\nContent-type: application/x-www-form-urlencoded\r\n"
      .. "Host: 127.0.0.1:8767\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n", head)
    assert.are.equal(158, #head)
    assert.are.equal(head .. ("x"):rep(1000), bytes)
  end)

  it("put Content-length and text/plain after the credentials and before the -H lines", function()
    local head = req({ "-k", "-u", "f", "-C", "c=1", "-P", "p:q", "-H", "X-A: 1", "-H", "Host: other", "-H",
      "User-Agent: mine", "http://h:8/put" }, files({ f = "abc" }))
    assert.are.equal("PUT /put HTTP/1.0\r\nConnection: Keep-Alive\r\nCookie: c=1\r\nProxy-Authorization: Basic cDpx\r\n"
      .. "Content-length: 3\r\nContent-type: text/plain\r\nX-A: 1\r\nHost: other\r\nUser-Agent: mine\r\nAccept: */*\r\n\r\n",
      head)
  end)

  it("send the URL as typed through a proxy (-X), and a custom method with -m", function()
    assert.truthy(req("-X 127.0.0.1:3128 http://example.test/via?p=1"):find("^GET http://example.test/via%?p=1 HTTP/1.0\r\n"))
    assert.truthy(req("-X p:1 example.test/x"):find("^GET example.test/x HTTP/1.0\r\n"))
    assert.truthy(req("-m DELETE http://h/thing"):find("^DELETE /thing HTTP/1.0\r\n"))
  end)

  it("refuse a head of 8192 bytes or more", function()
    local long = "X-Long: " .. ("a"):rep(8191 - 71 - 8) -- 71: the rest of the head
    local o = parse({ "-H", long, "http://h/" })
    local head = request.head(o)
    assert.are.equal(8191, #head)
    assert.truthy(request.build(o))
    o = parse({ "-H", long .. "a", "http://h/" })
    local bytes, err = request.build(o)
    assert.is_nil(bytes)
    assert.are.same({ stderr = "Request too long\n\n", status = 1 }, err)
  end)
end)

-- A run as scripts/ab.lua hands it to volley.ab.report.
local function run_of(t)
  local n = #t.total
  local r = {
    n = n, duration = t.duration or 1, read = t.read or 0, written = t.written or 0,
    errors = t.errors or { connect = 0, read = 0, write = 0, timeout = 0, parse = 0 },
    first_head = t.first_head, total = t.total, connect = t.connect or {}, waiting = t.waiting or {},
    body = t.body or {}, status = t.status or {}, keepalive = t.keepalive or {}, start = t.start or {},
  }
  for i = 1, n do
    r.connect[i] = r.connect[i] or 0
    r.waiting[i] = r.waiting[i] or t.total[i]
    r.body[i] = r.body[i] or 0
    r.status[i] = r.status[i] or 200
    r.keepalive[i] = r.keepalive[i] or 0
    r.start[i] = r.start[i] or 0
  end
  return r
end

local function fill(n, v)
  local t = {}
  for i = 1, n do t[i] = v end
  return t
end

-- The reference runs (ab-sample-g.tsv: the -g file of `ab -n 200 -c 10 -e
-- ab.csv -g ab.tsv`, ctime, dtime, ttime and wait in ms per request, sorted
-- by ttime). The specs that need it are pending when it is not there.
local SAMPLES = "/work/shared/reference/ab-samples/"

local function sample_g_rows()
  local f = io.open(SAMPLES .. "ab-sample-g.tsv")
  if not f then return nil end
  local rows = {}
  f:read("*l")
  for line in f:lines() do
    local date, sec, c, d, t, w = line:match("^([^\t]+)\t(%d+)\t(%d+)\t(%d+)\t(%d+)\t(%d+)$")
    rows[#rows + 1] = { date = date, sec = tonumber(sec), c = tonumber(c), d = tonumber(d), t = tonumber(t), w = tonumber(w) }
  end
  f:close()
  return rows
end

describe("ab's statistics", function()
  it("round to ms half up, in integers", function()
    assert.are.same({ 0, 0, 1, 1, 2, 11 }, { report.rms(0), report.rms(499), report.rms(500), report.rms(1499),
      report.rms(1500), report.rms(10890) })
  end)

  it("use the truncated mean, the sample sd and ab's median rule", function()
    local row = report.row({ 1000, 2000, 4000, 5000 }) -- even: x[n/2], the upper middle
    assert.are.same({ 1000, 5000, 3000, 4000 }, { row.min, row.max, row.mean, row.median })
    assert.are.near(math.sqrt(10e6 / 3), row.sd, 1e-9)
    row = report.row({ 3, 1, 2 }) -- odd n > 1: (x[n/2] + x[n/2 + 1]) / 2, truncated
    assert.are.same({ 2, 2 }, { row.mean, row.median })
    row = report.row({ 7 })
    assert.are.same({ 7, 7, 7, 7, 0 }, { row.min, row.max, row.mean, row.median, row.sd })
    assert.are.equal(1, report.row({ 1, 1, 2 }).mean) -- 4/3 truncated
  end)

  it("give the -i -n 5 sample's median 6 while its 50% row says 3", function()
    local run = run_of({ total = { 9500, 2400, 12400, 3400, 3400 } })
    local t = report.times(run)
    assert.are.equal(6, report.rms(t.total.median))
    assert.truthy(report.percentiles(t.sorted):find("\n  50%%      3\n  66%%     10\n  75%%     10\n  80%%     12\n"))
  end)

  it("reproduce the -g run's tables from its per-request data", function()
    local rows = sample_g_rows()
    if not rows then return pending("ab-sample-g.tsv not found") end
    assert.are.equal(200, #rows)
    local connect, total, waiting = {}, {}, {}
    for i, r in ipairs(rows) do
      -- µs values that round to the file's ms: total - connect must round
      -- to dtime, which is ttime - 1 in a few rows (ctime 0.4, say)
      total[i] = r.t * 1000 - 400
      connect[i] = r.d == r.t - r.c and r.c * 1000 or 400
      waiting[i] = r.w * 1000
    end
    local run = run_of({ total = total, connect = connect, waiting = waiting })
    local t = report.times(run)
    -- printed: Processing 1 5 1.6 5 11, Waiting 1 4 1.5 4 9, Total 1 5 1.6 5 11
    local function check(row, min, mean, sd, median, max)
      assert.are.same({ min, median, max }, { report.rms(row.min), report.rms(row.median), report.rms(row.max) })
      assert.are.near(mean, report.rms(row.mean), 1) -- the file keeps ms, the run had µs
      assert.are.near(sd, row.sd / 1000, 0.3)
    end
    check(t.connect, 0, 0, 0.1, 0, 0)
    check(t.processing, 1, 5, 1.6, 5, 11)
    check(t.waiting, 1, 4, 1.5, 4, 9)
    check(t.total, 1, 5, 1.6, 5, 11)
    assert.are.equal("\nPercentage of the requests served within a certain time (ms)\n"
      .. "  50%      5\n  66%      5\n  75%      6\n  80%      6\n  90%      7\n  95%      8\n"
      .. "  98%     10\n  99%     11\n 100%     11 (longest request)\n", report.percentiles(t.sorted))
  end)

  it("write the -g run's file back, sorted by total time, with local time text", function()
    local rows = sample_g_rows()
    if not rows then return pending("ab-sample-g.tsv not found") end
    local connect, total, waiting, start = {}, {}, {}, {}
    for i, r in ipairs(rows) do
      total[i] = r.t * 1000 - 400
      connect[i] = r.d == r.t - r.c and 0 or 400
      waiting[i] = r.w * 1000
      start[i] = r.sec + 0.25
    end
    -- fed in reverse completion order: the file must come out sorted
    local rev = function(t) local r = {} for i = #t, 1, -1 do r[#r + 1] = t[i] end return r end
    local run = run_of({ total = rev(total), connect = rev(connect), waiting = rev(waiting), start = rev(start) })
    local utc = function(fmt, sec) return os.date("!" .. fmt, sec) end
    local f = assert(io.open(SAMPLES .. "ab-sample-g.tsv", "rb"))
    local want = f:read("*a")
    f:close()
    local got = report.gnuplot(run, utc)
    -- the same rows; within a ttime the file's order is qsort's, so compare sorted lines
    local function lines(s) local t = {} for l in s:gmatch("[^\n]+") do t[#t + 1] = l end table.sort(t) return t end
    assert.are.same(lines(want), lines(got))
    local ttimes = {}
    for l in got:gmatch("\n[^\t]+\t%d+\t%d+\t%d+\t(%d+)") do ttimes[#ttimes + 1] = tonumber(l) end
    for i = 2, #ttimes do assert.is_true(ttimes[i - 1] <= ttimes[i]) end
    assert.are.equal("Sun Nov 29 21:39:55 2026", utc("%a %b %d %H:%M:%S %Y", 1795988395))
    assert.are.equal("Sun Nov 01 00:00:00 2026", utc("%a %b %d %H:%M:%S %Y", 1793491200)) -- day zero-padded
  end)

  -- ab-sample-e.csv: the same run's -e file (ms, µs precision).
  local E = {
    1.027, 1.936, 2.194, 2.556, 2.708, 2.871, 2.953, 2.975, 3.119, 3.195, 3.292, 3.400, 3.460, 3.541, 3.542,
    3.574, 3.607, 3.623, 3.717, 3.785, 3.814, 3.838, 3.854, 3.883, 3.897, 3.939, 3.958, 3.968, 3.987, 3.993,
    3.997, 4.036, 4.114, 4.123, 4.139, 4.163, 4.192, 4.200, 4.204, 4.222, 4.226, 4.273, 4.364, 4.440, 4.493,
    4.499, 4.523, 4.559, 4.576, 4.603, 4.668, 4.712, 4.760, 4.773, 4.800, 4.830, 4.843, 4.929, 4.967, 5.034,
    5.138, 5.220, 5.226, 5.275, 5.295, 5.376, 5.405, 5.442, 5.455, 5.550, 5.659, 5.689, 5.700, 5.736, 5.801,
    5.810, 5.903, 5.932, 6.120, 6.183, 6.282, 6.293, 6.342, 6.393, 6.488, 6.494, 6.597, 6.739, 6.904, 6.930,
    7.227, 7.255, 7.551, 7.693, 7.756, 7.850, 7.946, 8.925, 9.740, 10.731, 10.890,
  }

  -- 200 sorted totals (µs) consistent with E: with n = 200 the CSV reads
  -- index 2i for row i, the table index 2p for p%.
  local function e_totals()
    local t = {}
    t[1] = math.floor(E[1] * 1000 + 0.5)
    for i = 1, 99 do
      t[2 * i + 1] = math.floor(E[i + 1] * 1000 + 0.5)
      t[2 * i] = t[2 * i - 1] -- odd 0-based indexes repeat the previous value
    end
    t[200] = math.floor(E[101] * 1000 + 0.5)
    return t
  end

  it("write the -e file of the sample run, byte for byte", function()
    local t = e_totals()
    local want = { "Percentage served,Time in ms\n" }
    for i = 0, 100 do want[#want + 1] = ("%d,%.3f\n"):format(i, E[i + 1]) end
    assert.are.equal(table.concat(want), report.csv(t, 200))
    local f = io.open(SAMPLES .. "ab-sample-e.csv", "rb")
    if f then
      assert.are.equal(f:read("*a"), report.csv(t, 200))
      f:close()
    end
    -- and the same run's percentage table
    assert.truthy(report.percentiles(t):find("  50%%      5\n  66%%      5\n  75%%      6\n  80%%      6\n"
      .. "  90%%      7\n  95%%      8\n  98%%     10\n  99%%     11\n 100%%     11 %(longest request%)\n$"))
  end)

  it("index the -e file by round half up, and past the run: ab's zeroed slots, else the longest", function()
    local csv = report.csv({ 1000, 2000, 3000 }, 3)
    -- i = 17: 0.5 + 0.51 -> index 1; i = 16: 0.98 -> 0; i = 84: 3.02 -> past the end
    assert.truthy(csv:find("\n16,1%.000\n17,2%.000\n"))
    assert.truthy(csv:find("\n83,3%.000\n84,3%.000\n"))
    csv = report.csv({ 1000, 2000, 3000 }, 50000) -- -t: room for 50000, zeroes past the run
    assert.truthy(csv:find("\n83,3%.000\n84,0%.000\n"))
    assert.truthy(csv:find("\n99,0%.000\n100,3%.000\n$"))
    assert.truthy(csv:find("^Percentage served,Time in ms\n0,1%.000\n"))
  end)

  it("warn when the rounded mean and median are more than one sd apart (the n = 15 sample)", function()
    local connect = {}
    local total = {}
    for i = 1, 15 do
      connect[i] = i <= 5 and 0 or 1600
      total[i] = connect[i] + 1000 * i -- processing times too spread to warn
    end
    local run = run_of({ connect = connect, total = total, waiting = fill(15, 2000) })
    local t = report.times(run)
    assert.are.equal("Connect:        0    1   0.8      2       2\n",
      report.times_table(t, true):match("Connect:[^\n]*\n"))
    assert.are.equal("WARNING: The median and mean for the initial connection time are not within a normal deviation\n"
      .. "        These results are probably not that reliable.\n", report.warnings(t))
  end)

  it("call it an ERROR beyond twice the sd, and check the rows in order", function()
    local t = report.times(run_of({ total = { 499, 499, 501 }, waiting = { 499, 499, 501 } }))
    local w = report.warnings(t)
    assert.are.equal("ERROR: The median and mean for the processing time are more than twice the standard\n"
      .. "       deviation apart. These results are NOT reliable.\n"
      .. "ERROR: The median and mean for the waiting time are more than twice the standard\n"
      .. "       deviation apart. These results are NOT reliable.\n"
      .. "ERROR: The median and mean for the total time are more than twice the standard\n"
      .. "       deviation apart. These results are NOT reliable.\n", w)
    assert.are.equal("", report.warnings(report.times(run_of({ total = { 1000, 2000, 3000, 4000 } }))))
  end)

  it("print min, avg and max only with -S, and no warnings", function()
    local connect = {}
    for i = 1, 15 do connect[i] = i <= 5 and 0 or 1600 end
    local t = report.times(run_of({ connect = connect, total = fill(15, 10000) }))
    assert.are.equal("\nConnection Times (ms)\n              min   avg   max\n"
      .. "Connect:        0     1    2\nProcessing:     8     9   10\nWaiting:       10    10   10\n"
      .. "Total:         10    10   10\n", report.times_table(t, false))
  end)
end)

describe("ab's report", function()
  local HEAD = "HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11.7\r\nDate: Sun, 29 Nov 2026 21:39:42 GMT\r\n"
    .. "Content-type: text/html\r\nContent-Length: 927\r\n\r\n<html>"

  it("finds Server Software as ab does", function()
    assert.are.equal("SimpleHTTP/0.6", report.server_name(HEAD))
    assert.are.equal("nginx", report.server_name("HTTP/1.1 200 OK\r\nserver: nginx\r\n\r\n"))
    assert.are.equal("ab", report.server_name("HTTP/1.1 200 OK\r\nX-Server: ab\r\n\r\n"))
    assert.are.equal("ginx", report.server_name("HTTP/1.1 200 OK\r\nServer:nginx\r\n\r\n"))
    assert.are.equal("caf", report.server_name("HTTP/1.1 200 OK\r\nServer: caf\195\169\r\n\r\n"))
    assert.are.equal("", report.server_name("HTTP/1.1 200 OK\r\n\r\n"))
    assert.are.equal("", report.server_name("HTTP/1.1 200 OK\r\n\0Server: x\r\n\r\n"))
    assert.are.equal("", report.server_name(nil))
    assert.are.equal(1023, #report.server_name("Server: " .. ("x"):rep(2000)))
  end)

  it("prints ab's TLS lines after Server Port for https", function()
    local tls = { protocol = "TLSv1.3", cipher = "TLS_AES_256_GCM_SHA384", peer_key_bits = 256, cipher_bits = 256,
      temp_key = "X25519 253 bits" }
    local o = parse("-n 1 https://localhost:8443/")
    local run = run_of({ total = { 1000 }, body = { 11 } })
    run.tls = tls
    local text = report.text(o, run, report.counters(o, run), report.times(run))
    assert.truthy(text:find("\nServer Port:            8443\n"
      .. "SSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,256,256\n"
      .. "Server Temp Key:        X25519 253 bits\n"
      .. "TLS Server Name:        localhost\n\nDocument Path:", 1, true))
    -- no server name for an IP address or with -I; no temp key when there was none
    tls.temp_key = ""
    for _, line in ipairs({ "-n 1 https://127.0.0.1:8443/", "-I -n 1 https://localhost:8443/" }) do
      o = parse(line)
      assert.are.equal("SSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,256,256\n", report.tls_lines(o, tls))
    end
    -- no handshake (result.tls is nil): only the name, as ab prints it
    assert.are.equal("TLS Server Name:        localhost\n", report.tls_lines(parse("https://localhost/"), nil))
    assert.are.equal("", report.tls_lines(parse(URL), tls))
  end)

  it("counts TLS failures as Connect failures", function()
    local run = run_of({ total = { 1000 }, errors = { connect = 1, read = 0, parse = 0, timeout = 0, write = 0, tls = 3 } })
    local c = report.counters(parse("https://localhost/"), run)
    assert.are.same({ 4, 4 }, { c.err_conn, c.bad })
  end)

  it("counts Length failures against the first body, unless -l, and non-2xx, and kept-alive responses", function()
    local run = run_of({ total = fill(5, 1000), body = { 15, 15, 12, 18, 15 }, status = { 200, 500, 301, 204, 200 },
      keepalive = { 1, 1, 0, 1, 0 }, errors = { connect = 1, read = 2, parse = 3, timeout = 4, write = 5 } })
    local c = report.counters(parse(URL), run)
    assert.are.same({ 5, 15, 2, 75, 2, 3 }, { c.done, c.doclen, c.err_length, c.totalbread, c.err_response, c.doneka })
    assert.are.same({ 1, 5, 4, 5, 12 }, { c.err_conn, c.err_recv, c.err_except, c.epipe, c.bad })
    c = report.counters(parse("-l " .. URL), run)
    assert.are.same({ 0, 10 }, { c.err_length, c.bad })
  end)

  it("is the -n 1 sample's, line for line", function()
    local o = parse("-n 1 " .. URL)
    local run = run_of({ total = { 1293 }, connect = { 700 }, waiting = { 900 }, body = { 927 }, read = 1113,
      duration = 0.001293, first_head = HEAD })
    local c = report.counters(o, run)
    assert.are.equal([[


Server Software:        SimpleHTTP/0.6
Server Hostname:        127.0.0.1
Server Port:            8765

Document Path:          /index.html
Document Length:        927 bytes

Concurrency Level:      1
Time taken for tests:   0.001 seconds
Complete requests:      1
Failed requests:        0
Total transferred:      1113 bytes
HTML transferred:       927 bytes
Requests per second:    773.40 [#/sec] (mean)
Time per request:       1.293 [ms] (mean)
Time per request:       1.293 [ms] (mean, across all concurrent requests)
Transfer rate:          840.61 [Kbytes/sec] received

Connection Times (ms)
              min  mean[+/-sd] median   max
Connect:        1    1   0.0      1       1
Processing:     1    1   0.0      1       1
Waiting:        1    1   0.0      1       1
Total:          1    1   0.0      1       1
]], report.text(o, run, c, report.times(run)))
  end)

  it("has the basic sample's counts and rates", function()
    local o = parse("-n 200 -c 10 " .. URL)
    local run = run_of({ total = fill(200, 3000), body = fill(200, 927), read = 222600, duration = 0.11771, first_head = HEAD })
    local text = report.text(o, run, report.counters(o, run), report.times(run))
    assert.are.equal([[


Server Software:        SimpleHTTP/0.6
Server Hostname:        127.0.0.1
Server Port:            8765

Document Path:          /index.html
Document Length:        927 bytes

Concurrency Level:      10
Time taken for tests:   0.118 seconds
Complete requests:      200
Failed requests:        0
Total transferred:      222600 bytes
HTML transferred:       185400 bytes
Requests per second:    1699.09 [#/sec] (mean)
Time per request:       5.886 [ms] (mean)
Time per request:       0.589 [ms] (mean, across all concurrent requests)
Transfer rate:          1846.77 [Kbytes/sec] received
]], text:match("^(.-\n)\nConnection Times"))
  end)

  it("adds Total body sent and the sent and total rates with -p (the POST sample)", function()
    local o = parse("-n 200 -c 10 -p post.txt http://127.0.0.1:8767/post", files({ ["post.txt"] = ("x"):rep(1000) }))
    local run = run_of({ total = fill(200, 3000), body = fill(200, 9), read = 27800, written = 231600, duration = 0.19908 })
    local text = report.text(o, run, report.counters(o, run), report.times(run))
    assert.truthy(text:find("\nTotal transferred:      27800 bytes\nTotal body sent:        231600\n"
      .. "HTML transferred:       1800 bytes\n", 1, true))
    assert.truthy(text:find("\nTransfer rate:          136.37 [Kbytes/sec] received\n"
      .. "                        1136.09 kb/s sent\n                        1272.45 kb/s total\n", 1, true))
  end)

  it("shows the breakdown, Write errors, Non-2xx, Keep-Alive and Variable when due", function()
    local o = parse("-k -l -n 3 " .. URL)
    local run = run_of({ total = { 1000, 1000, 1000 }, status = { 200, 404, 200 }, keepalive = { 1, 1, 0 },
      errors = { connect = 0, read = 1, parse = 0, timeout = 0, write = 2 } })
    local text = report.text(o, run, report.counters(o, run), report.times(run))
    assert.truthy(text:find("\nDocument Length:        Variable\n", 1, true))
    assert.truthy(text:find("\nFailed requests:        1\n   (Connect: 0, Receive: 1, Length: 0, Exceptions: 0)\n"
      .. "Write errors:           2\nNon-2xx responses:      1\nKeep-Alive requests:    2\nTotal transferred:", 1, true))
    o = parse("-n 3 " .. URL)
    text = report.text(o, run, report.counters(o, run), report.times(run))
    assert.falsy(text:find("Keep-Alive requests"))
  end)

  it("leaves out the rates, tables and percentages when nothing completed, and the percentages for one or -d", function()
    local o = parse("-n 10 " .. URL)
    local run = run_of({ total = {}, duration = 0.5, errors = { connect = 10, read = 0, parse = 0, timeout = 0, write = 0 } })
    local text = report.text(o, run, report.counters(o, run), nil)
    assert.truthy(text:find("Document Length:        0 bytes\n", 1, true))
    assert.truthy(text:find("HTML transferred:       0 bytes\n$"))
    run = run_of({ total = { 1000 } })
    assert.falsy(report.text(o, run, report.counters(o, run), report.times(run)):find("Percentage"))
    run = run_of({ total = { 1000, 2000 } })
    assert.truthy(report.text(o, run, report.counters(o, run), report.times(run)):find("Percentage"))
    o = parse("-d -n 10 " .. URL)
    assert.falsy(report.text(o, run, report.counters(o, run), report.times(run)):find("Percentage"))
  end)

  it("is the -x -z -p HTML sample's, line for line", function()
    local o = parse("-x border=1 -z align=right -n 20 -c 2 -p post.txt http://127.0.0.1:8767/post",
      files({ ["post.txt"] = "a=1&b=2\n" }))
    local total, connect = fill(20, 2500), fill(20, 100)
    total[1], total[2] = 1000, 7000
    local run = run_of({ total = total, connect = connect, body = fill(20, 9), read = 2780, written = 22700,
      duration = 0.029258, first_head = "HTTP/1.0 200 OK\r\nServer: BaseHTTP/0.6 Python/3.11.7\r\n\r\n" })
    assert.are.equal([[


<table border=1>
<tr ><th colspan=2 align=right>Server Software:</th><td colspan=2 align=right>BaseHTTP/0.6</td></tr>
<tr ><th colspan=2 align=right>Server Hostname:</th><td colspan=2 align=right>127.0.0.1</td></tr>
<tr ><th colspan=2 align=right>Server Port:</th><td colspan=2 align=right>8767</td></tr>
<tr ><th colspan=2 align=right>Document Path:</th><td colspan=2 align=right>/post</td></tr>
<tr ><th colspan=2 align=right>Document Length:</th><td colspan=2 align=right>9 bytes</td></tr>
<tr ><th colspan=2 align=right>Concurrency Level:</th><td colspan=2 align=right>2</td></tr>
<tr ><th colspan=2 align=right>Time taken for tests:</th><td colspan=2 align=right>0.029 seconds</td></tr>
<tr ><th colspan=2 align=right>Complete requests:</th><td colspan=2 align=right>20</td></tr>
<tr ><th colspan=2 align=right>Failed requests:</th><td colspan=2 align=right>0</td></tr>
<tr ><th colspan=2 align=right>Total transferred:</th><td colspan=2 align=right>2780 bytes</td></tr>
<tr ><th colspan=2 align=right>Total body sent:</th><td colspan=2 align=right>22700</td></tr>
<tr ><th colspan=2 align=right>HTML transferred:</th><td colspan=2 align=right>180 bytes</td></tr>
<tr ><th colspan=2 align=right>Requests per second:</th><td colspan=2 align=right>683.57</td></tr>
<tr ><th colspan=2 align=right>Transfer rate:</th><td colspan=2 align=right>92.79 kb/s received</td></tr>
<tr ><td colspan=2 align=right>&nbsp;</td><td colspan=2 align=right>757.67 kb/s sent</td></tr>
<tr ><td colspan=2 align=right>&nbsp;</td><td colspan=2 align=right>850.46 kb/s total</td></tr>
<tr ><th align=right colspan=4>Connection Times (ms)</th></tr>
<tr ><th align=right>&nbsp;</th> <th align=right>min</th>   <th align=right>avg</th>   <th align=right>max</th></tr>
<tr ><th align=right>Connect:</th><td align=right>    0</td><td align=right>    0</td><td align=right>    0</td></tr>
<tr ><th align=right>Processing:</th><td align=right>    1</td><td align=right>    2</td><td align=right>    7</td></tr>
<tr ><th align=right>Total:</th><td align=right>    1</td><td align=right>    2</td><td align=right>    7</td></tr>
</table>
]], report.html(o, run, report.counters(o, run)))
  end)

  it("puts the HTML breakdown without Receive, and the default attributes", function()
    local o = parse("-w -n 2 " .. URL)
    local run = run_of({ total = {}, errors = { connect = 2, read = 1, parse = 0, timeout = 0, write = 0 } })
    local html = report.html(o, run, report.counters(o, run))
    assert.truthy(html:find("^\n\n<table >\n<tr ><th colspan=2 bgcolor=white>Server Software:</th>"
      .. "<td colspan=2 bgcolor=white></td></tr>\n"))
    assert.truthy(html:find("<tr ><td colspan=4 bgcolor=white >   (Connect: 2, Length: 0, Exceptions: 0)</td></tr>\n", 1, true))
    assert.truthy(html:find("</td></tr>\n</table>\n$"))
    assert.falsy(html:find("Connection Times"))
  end)
end)

describe("scripts/ab.lua's init", function()
  it("makes wrk.request return ab's bytes", function()
    local saved = _G.wrk
    _G.wrk = {}
    local ab = require("ab")
    ab.init({ [0] = "http://127.0.0.1:1/", "-k", "-n", "2", "http://example.test:81/x" })
    assert.are.equal("GET /x HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: example.test:81\r\n"
      .. "User-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n", wrk.request())
    assert.is_nil(ab.request)
    assert.is_nil(ab.response)
    _G.wrk = saved
  end)
end)
