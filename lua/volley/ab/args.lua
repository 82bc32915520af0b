-- ab's command line, as ApacheBench 2.3 (Debian apache2-utils) reads it:
-- apr_getopt's rules (clusters, `-c10` and `-c 10`, `--` or any `--word`
-- ends the options, the first non-option word ends them too), atoi()
-- numbers, the order checks (-i/-p/-u/-m, -n/-t), URL parsing with
-- apr_parse_addr_port's rules, and every message and exit status ab gives.
--
-- parse(argv) returns a settings table, or nil and what ab would print and
-- exit with: { stdout = s?, stderr = s?, status = n }. Nothing is printed
-- and nothing exits here, so the specs can check every path; scripts/ab.lua
-- does the printing. Files (-p/-u) are read through a function the caller
-- may replace.
local M = {}

M.MAX_CONCURRENCY = 200000 -- Debian's build (ab says "Range 0..200000")
M.TLIMIT_REQUESTS = 50000  -- -t implies -n 50000
M.USER_AGENT = "ApacheBench/2.3"

-- The option letters; true for those that take a value. -I -Z -f -E are
-- ab's TLS options. volley ab's own options are words (LONG_OPTIONS).
local OPTIONS = {}
local LONG_OPTIONS = { ["--tls-resume"] = "tls-resume" }
do
  local spec = "n:c:t:s:b:T:p:u:v:lrkVhwiIx:y:z:C:H:P:A:g:X:de:SqB:m:Z:f:E:"
  for letter, colon in spec:gmatch("(%a)(:?)") do OPTIONS[letter] = colon == ":" end
end

M.AB_USAGE = [[
Usage: ab [options] [http[s]://]hostname[:port]/path
Options are:
    -n requests     Number of requests to perform
    -c concurrency  Number of multiple requests to make at a time
    -t timelimit    Seconds to max. to spend on benchmarking
                    This implies -n 50000
    -s timeout      Seconds to max. wait for each response
                    Default is 30 seconds
    -b windowsize   Size of TCP send/receive buffer, in bytes
    -B address      Address to bind to when making outgoing connections
    -p postfile     File containing data to POST. Remember also to set -T
    -u putfile      File containing data to PUT. Remember also to set -T
    -T content-type Content-type header to use for POST/PUT data, eg.
                    'application/x-www-form-urlencoded'
                    Default is 'text/plain'
    -v verbosity    How much troubleshooting info to print
    -w              Print out results in HTML tables
    -i              Use HEAD instead of GET
    -x attributes   String to insert as table attributes
    -y attributes   String to insert as tr attributes
    -z attributes   String to insert as td or th attributes
    -C attribute    Add cookie, eg. 'Apache=1234'. (repeatable)
    -H attribute    Add Arbitrary header line, eg. 'Accept-Encoding: gzip'
                    Inserted after all normal header lines. (repeatable)
    -A attribute    Add Basic WWW Authentication, the attributes
                    are a colon separated username and password.
    -P attribute    Add Basic Proxy Authentication, the attributes
                    are a colon separated username and password.
    -X proxy:port   Proxyserver and port number to use
    -V              Print version number and exit
    -k              Use HTTP KeepAlive feature
    -d              Do not show percentiles served table.
    -S              Do not show confidence estimators and warnings.
    -q              Do not show progress when doing more than 150 requests
    -l              Accept variable document length (use this for dynamic pages)
    -g filename     Output collected data to gnuplot format file.
    -e filename     Output CSV file with percentages served
    -r              Don't exit on socket receive errors.
    -m method       Method name
    -h              Display usage information (this message)
    -I              Disable TLS Server Name Indication (SNI) extension
    -Z ciphersuite  Specify SSL/TLS cipher suite (See openssl ciphers)
    -f protocol     Specify SSL/TLS protocol
                    (SSL2, TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)
    -E certfile     Specify optional client certificate chain and private key
]]

-- volley ab's own options, after ab's in its usage text (ab has none of
-- them; every usage text volley ab prints ends with these lines).
M.VOLLEY_USAGE = [[
volley ab only:
    --tls-resume    Resume TLS sessions on new connections (ab makes a full
                    handshake on every connection; see docs/ab.md)
]]

M.USAGE = M.AB_USAGE .. M.VOLLEY_USAGE

-- ab's banner (its "$Revision$" is printed as is: the keyword is never
-- expanded in the builds users have). -w makes it HTML.
function M.banner(html)
  if html then
    return "<p>\n"
      .. " This is ApacheBench, Version 2.3 <i>&lt;$Revision$&gt;</i><br>\n"
      .. " Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/<br>\n"
      .. " Licensed to The Apache Software Foundation, http://www.apache.org/<br>\n"
      .. "</p>\n<p>\n"
  end
  return "This is ApacheBench, Version 2.3 <$Revision$>\n"
    .. "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
    .. "Licensed to The Apache Software Foundation, http://www.apache.org/\n"
    .. "\n"
end

-- C's isspace in the C locale.
local function isspace(b)
  return b == 32 or (b >= 9 and b <= 13)
end

-- C's atoi as glibc has it: leading blanks, a sign, digits, anything after
-- ignored; the long result is truncated to int (so 4294967297 is 1).
-- Values past 2^53 are treated as overflow (LONG_MAX or LONG_MIN, which
-- truncate to -1 and 0).
function M.atoi(s)
  local i, n = 1, #s
  while i <= n and isspace(s:byte(i)) do i = i + 1 end
  local sign = 1
  local c = s:sub(i, i)
  if c == "-" or c == "+" then
    if c == "-" then sign = -1 end
    i = i + 1
  end
  local digits = s:match("^%d+", i)
  if not digits then return 0 end
  local v = tonumber(digits)
  if v > 2 ^ 53 then return sign > 0 and -1 or 0 end
  v = (sign * v) % 2 ^ 32 -- the low 32 bits, as the cast to int keeps them
  return v >= 2 ^ 31 and v - 2 ^ 32 or v
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

-- Base64 with padding (apr_base64_encode).
function M.base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = {
      math.floor(n / 262144) % 64, math.floor(n / 4096) % 64,
      math.floor(n / 64) % 64, n % 64,
    }
    out[#out + 1] = B64:sub(q[1] + 1, q[1] + 1) .. B64:sub(q[2] + 1, q[2] + 1)
      .. (b and B64:sub(q[3] + 1, q[3] + 1) or "=")
      .. (c and B64:sub(q[4] + 1, q[4] + 1) or "=")
  end
  return table.concat(out)
end

-- Whether s is an IPv6 address inet_pton accepts: up to 8 hex groups of 1-4
-- digits, at most one "::", optionally ending in a dotted IPv4 address.
local function is_ipv6(s)
  local head, tail = s, nil
  local dc = s:find("::", 1, true)
  if dc then
    if s:find("::", dc + 1, true) then return false end
    head, tail = s:sub(1, dc - 1), s:sub(dc + 2)
  end
  local groups = 0
  local function count(part, last)
    if part == "" then return true end
    local fields = {}
    for f in (part .. ":"):gmatch("([^:]*):") do fields[#fields + 1] = f end
    for i, f in ipairs(fields) do
      if last and i == #fields and f:find(".", 1, true) then
        local a, b, c, d = f:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
        if not a then return false end
        for _, x in ipairs({ a, b, c, d }) do
          if #x > 3 or tonumber(x) > 255 then return false end
        end
        groups = groups + 2
      elseif f:match("^%x%x?%x?%x?$") then
        groups = groups + 1
      else
        return false
      end
    end
    return true
  end
  if not count(head, tail == nil) or (tail and not count(tail, true)) then return false end
  if dc then return groups <= 7 end
  return groups == 8
end

-- apr_parse_addr_port: "host", "host:port", "[v6]" or "[v6]:port".
-- Returns host (nil if none), scope id, port (0 if none); or nil, "bad".
local function parse_addr_port(str)
  local last = #str
  local ch = last
  while ch >= 1 and str:byte(ch) >= 48 and str:byte(ch) <= 57 do ch = ch - 1 end
  if ch < 1 then -- the whole string is a port (or empty)
    local port = M.atoi(str)
    if port < 1 or port > 65535 then return nil, "bad" end
    return nil, nil, port
  end
  local port = 0
  if str:sub(ch, ch) == ":" and ch < last then
    if ch == 1 then return nil, "bad" end
    port = M.atoi(str:sub(ch + 1))
    if port < 1 or port > 65535 then return nil, "bad" end
    last = ch - 1
  end
  local addr = str:sub(1, last)
  if addr:sub(1, 1) ~= "[" then return addr, nil, port end
  -- "[v6]" (a scope id after % is allowed here only)
  local close = addr:find("]", 1, true)
  if close ~= #addr then return nil, "bad" end
  local inner, scope = addr:sub(2, -2), nil
  local pct = inner:find("%", 1, true)
  if pct then
    if pct == #inner then return nil, "bad" end
    inner, scope = inner:sub(1, pct - 1), inner:sub(pct + 1)
  end
  if not is_ipv6(inner) then return nil, "bad" end
  return inner, scope, port
end

-- ab's parse_url. Returns { full, https, hostname, host_field, port, path,
-- colonhost } or nil when ab says "invalid URL". The scheme is optional;
-- the path (from the first "/", query and fragment included) is not.
function M.parse_url(url)
  local rest, https = url, false
  if #url > 7 and url:sub(1, 7) == "http://" then
    rest = url:sub(8)
  elseif #url > 8 and url:sub(1, 8) == "https://" then
    rest, https = url:sub(9), true
  end
  local slash = rest:find("/", 1, true)
  if not slash then return nil end
  local hostport = rest:sub(1, slash - 1)
  local host, scope, port = parse_addr_port(hostport)
  if not host or scope then return nil end
  if port == 0 then port = https and 443 or 80 end
  return {
    full = url,
    https = https,
    hostname = host,
    host_field = hostport:sub(1, 1) == "[" and "[" .. host .. "]" or host,
    port = port,
    path = rest:sub(slash),
    colonhost = port ~= (https and 443 or 80) and ":" .. port or "",
  }
end

-- What ab prints before exiting for a usage error (EINVAL, 22).
local function usage_error(message)
  return { stderr = (message or "") .. M.USAGE, status = 22 }
end

-- What ab's err() does: the message, a newline, exit 1.
local function fatal(message)
  return { stderr = message .. "\n", status = 1 }
end

-- The whole file, or nil, the step that failed ("open" or "read") and the
-- system's message without the file name Lua puts before it.
local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, "open", err:sub(1, #path + 2) == path .. ": " and err:sub(#path + 3) or err
  end
  local data, rerr = f:read("*a")
  f:close()
  if not data then return nil, "read", rerr end
  return data
end

-- The body file of -p/-u, or what ab prints when it cannot be read.
local function body_file(path, readfile)
  local data, step, err = (readfile or read_file)(path)
  if data then return data end
  if step == "open" then
    return nil, fatal(("ab: Could not open POST data file (%s): %s"):format(path, err))
  end
  return nil, fatal("ab: Could not read POST data file: " .. tostring(err))
end

-- apr_getopt, one step. st = { ind = next word (1-based), place = the rest
-- of a cluster }. Returns "eof"; or "bad", message; or "ok", letter, value.
local function getopt(argv, st)
  if st.place == "" then
    local w = argv[st.ind]
    if w == nil or w:sub(1, 1) ~= "-" then return "eof" end
    if #w > 1 and w:sub(2, 2) == "-" then -- "--", and any "--word" too
      st.ind = st.ind + 1
      -- volley ab's own options are whole words among ab's; to ab such a
      -- word would end the options (so no ab command line has one).
      if LONG_OPTIONS[w] then return "ok", LONG_OPTIONS[w] end
      return "eof"
    end
    st.place = #w > 1 and w:sub(2) or w -- a lone "-" is read as the letter "-"
  end
  local letter = st.place:sub(1, 1)
  st.place = st.place:sub(2)
  local takes = OPTIONS[letter]
  if takes == nil then
    if letter == "-" then return "eof" end -- a lone "-": a word, not an option
    if st.place == "" then st.ind = st.ind + 1 end
    return "bad", "ab: illegal option -- " .. letter .. "\n"
  end
  if not takes then
    if st.place == "" then st.ind = st.ind + 1 end
    return "ok", letter
  end
  local value = st.place
  if value == "" then
    st.ind = st.ind + 1
    if st.ind > #argv then
      return "bad", "ab: option requires an argument -- " .. letter .. "\n"
    end
    value = argv[st.ind]
  end
  st.place = ""
  st.ind = st.ind + 1
  return "ok", letter, value
end

-- Does line start with name (a "Name:" prefix), in any case?
local function has_prefix(line, name)
  return line:sub(1, #name):lower() == name:lower()
end

-- Basic credentials as ab encodes them: leading blanks dropped, and at
-- most 1023 characters of base64.
local function credentials(value, too_long)
  local i = 1
  while i <= #value and isspace(value:byte(i)) do i = i + 1 end
  value = value:sub(i)
  if math.floor((#value + 2) / 3) * 4 + 1 > 1024 then return nil, fatal(too_long) end
  return M.base64(value)
end

-- ab's -f: the first of these names that the value starts with, in any
-- case ("TLS1.3" is tried before "TLS1"), gives the lowest and highest
-- version (10 is TLS 1.0, 13 TLS 1.3; ALL: no bounds). Any other value is
-- ignored and the earlier -f stays, as in ab; SSL2 and SSL3 are among
-- them (Debian's OpenSSL 3 has neither, so ab built on it ignores them).
M.PROTOCOLS = {
  { "ALL", false }, { "TLS1.1", 11 }, { "TLS1.2", 12 }, { "TLS1.3", 13 }, { "TLS1", 10 },
}

local function protocol(value)
  local lower = value:lower()
  for _, p in ipairs(M.PROTOCOLS) do
    if lower:sub(1, #p[1]) == p[1]:lower() then return p[2] end
  end
  return nil
end

-- Whether ab takes name for an IP address, which gets no SNI: what
-- apr_ipsubnet_create accepts. An IPv6 address (not IPv4-mapped: apr
-- refuses those), an IPv4 address, or a "network" of one to four decimal
-- numbers up to 255 separated by dots, a trailing dot allowed ("10",
-- "10.1", "1.2.3."). "1.2.3.4.5", "256.1.1.1" and "127.0.0.1:5" are names.
function M.is_ip_literal(name)
  if name:find(":", 1, true) then
    local lower = name:lower()
    if not is_ipv6(lower) then return false end
    local prefix, tail = lower:match("^([0:]*):ffff:(.*)$")
    local mapped = prefix and (tail:match("^%d+%.%d+%.%d+%.%d+$") or tail:match("^%x+:%x+$"))
    return not mapped
  end
  if #name > 15 or not name:match("^%d[%d.]*$") or name:find("..", 1, true) then return false end
  local parts = 0
  for num in name:gmatch("%d+") do
    parts = parts + 1
    if parts > 4 or tonumber(num) > 255 then return false end
  end
  return true
end

-- The server name ab sends (SNI) for settings o: the -H Host: value
-- (blanks around it dropped) or the URL's host; none (nil) with -I, for an
-- empty name or an IP address.
local function server_name(o)
  if not o.use_sni then return nil end
  local name = o.url.hostname
  for _, h in ipairs(o.headers) do
    if has_prefix(h, "Host:") then name = h:sub(6) end -- the last -H Host: wins
  end
  name = name:gsub("^%s+", ""):gsub("%s+$", "")
  if name == "" or M.is_ip_literal(name) then return nil end
  return name
end

-- ab's check of -E: a PEM file with the certificate (chain) and the
-- private key. Returns nil, or what ab prints (its first line; the
-- OpenSSL error lines after it are not reproduced) and exits with.
local function check_cert(path, readfile)
  local data = (readfile or read_file)(path)
  if not data or not data:find("-----BEGIN [%u ]*CERTIFICATE-----") then
    return fatal(("unable to get certificate from '%s'"):format(path))
  end
  if not data:find("-----BEGIN [%u ]*PRIVATE KEY-----") then
    return fatal(("unable to get private key from '%s'"):format(path))
  end
  return nil
end

-- The settings of a run:
--   requests, concurrency, tlimit (s, 0 = none), timeout (s), verbosity,
--   heartbeat (0 = no progress lines), method, body (nil unless -p/-u),
--   content_type, keepalive, nolength, recverrok, percentile, confidence,
--   html, table_attrs, tr_attrs, td_attrs, gnuplot, csv, cookie, auth,
--   headers (the -H lines), opt_host/opt_accept/opt_useragent,
--   proxy_host/proxy_port (nil without -X), windowsize, bind,
--   url (parse_url's table), warnings (stderr text to print first: an
--   illegal option that did not stop the run);
--   TLS: tls_version (-f: 10..13 for both bounds, or nil), cipher (-Z),
--   ciphers_tls13 (-Z names TLS 1.3 suites: -f TLS1.3), cert (-E),
--   use_sni (false with -I), sni (the name ab sends, or nil);
--   volley ab's own: tls_resume (--tls-resume: resume TLS sessions).
-- Or nil and { stdout?, stderr?, status }.
function M.parse(argv, readfile)
  local o = {
    requests = 1, concurrency = 1, tlimit = 0, timeout = 30, verbosity = 0,
    progress = true, method = nil, body = nil, content_type = nil,
    keepalive = false, nolength = false, recverrok = false,
    percentile = true, confidence = true, html = false,
    table_attrs = "", tr_attrs = "", td_attrs = "bgcolor=white",
    cookie = nil, auth = "", headers = {}, warnings = "",
    opt_host = false, opt_accept = false, opt_useragent = false,
    use_sni = true, tls_resume = false,
  }
  local st = { ind = 1, place = "" }
  while true do
    local r, letter, value = getopt(argv, st)
    if r == "eof" then break end
    if r == "bad" then
      -- ab stops reading options here (letter is getopt's message); the
      -- word count check below decides whether the run goes on.
      o.warnings = o.warnings .. letter
      break
    end
    if letter == "n" then
      o.requests = M.atoi(value)
      if o.requests <= 0 then return nil, fatal("Invalid number of requests\n") end
    elseif letter == "k" then o.keepalive = true
    elseif letter == "q" then o.progress = false
    elseif letter == "c" then o.concurrency = M.atoi(value)
    elseif letter == "b" then o.windowsize = M.atoi(value) -- accepted, no effect
    elseif letter == "B" then o.bind = value               -- accepted, no effect
    elseif letter == "i" then
      if o.method then return nil, fatal("Cannot mix HEAD with other methods\n") end
      o.method = "HEAD"
    elseif letter == "p" or letter == "u" then
      if o.method then
        return nil, fatal(("Cannot mix %s with other methods\n"):format(letter == "p" and "POST" or "PUT"))
      end
      local data, err = body_file(value, readfile)
      if not data then return nil, err end
      o.method, o.body = letter == "p" and "POST" or "PUT", data
    elseif letter == "m" then o.method = value
    elseif letter == "g" then o.gnuplot = value
    elseif letter == "e" then o.csv = value
    elseif letter == "d" then o.percentile = false
    elseif letter == "S" then o.confidence = false
    elseif letter == "l" then o.nolength = true
    elseif letter == "r" then o.recverrok = true
    elseif letter == "v" then o.verbosity = M.atoi(value)
    elseif letter == "t" then
      o.tlimit = M.atoi(value)
      o.requests = M.TLIMIT_REQUESTS
    elseif letter == "s" then o.timeout = M.atoi(value)
    elseif letter == "T" then o.content_type = value
    elseif letter == "C" then o.cookie = value -- the last one wins, as in ab 2.4
    elseif letter == "A" or letter == "P" then
      local name = letter == "A" and "Authorization" or "Proxy-Authorization"
      local b64, err = credentials(value, letter == "A" and "Authentication credentials too long\n"
        or "Proxy credentials too long\n")
      if not b64 then return nil, err end
      o.auth = o.auth .. name .. ": Basic " .. b64 .. "\r\n"
    elseif letter == "H" then
      o.headers[#o.headers + 1] = value
      if has_prefix(value, "Host:") then o.opt_host = true
      elseif has_prefix(value, "Accept:") then o.opt_accept = true
      elseif has_prefix(value, "User-Agent:") then o.opt_useragent = true
      end
    elseif letter == "w" then o.html = true
    elseif letter == "x" then o.html, o.table_attrs = true, value
    elseif letter == "y" then o.html, o.tr_attrs = true, value
    elseif letter == "z" then o.html, o.td_attrs = true, value
    elseif letter == "X" then
      local host, port = value:match("^([^:]*):(.*)$")
      o.proxy_host, o.proxy_port = host or value, port and M.atoi(port) or 0
    elseif letter == "h" then return nil, usage_error()
    elseif letter == "V" then return nil, { stdout = M.banner(o.html), status = 0 }
    elseif letter == "Z" then o.cipher = value
    elseif letter == "f" then
      local v = protocol(value)
      if v ~= nil then o.tls_version = v or nil end
    elseif letter == "E" then o.cert = value
    elseif letter == "I" then o.use_sni = false
    elseif letter == "tls-resume" then o.tls_resume = true
    end
  end
  if st.ind ~= #argv then
    return nil, { stderr = o.warnings .. "ab: wrong number of arguments\n" .. M.USAGE, status = 22 }
  end
  o.method = o.method or "GET"
  o.url = M.parse_url(argv[st.ind])
  if not o.url then return nil, { stderr = o.warnings .. "ab: invalid URL\n" .. M.USAGE, status = 22 } end
  if o.concurrency < 0 or o.concurrency > M.MAX_CONCURRENCY then
    return nil, { stderr = o.warnings .. ("ab: Invalid Concurrency [Range 0..%d]\n"):format(M.MAX_CONCURRENCY)
      .. M.USAGE, status = 22 }
  end
  if o.concurrency > o.requests then
    return nil, { stderr = o.warnings .. "ab: Cannot use concurrency level greater than total number of requests\n"
      .. M.USAGE, status = 22 }
  end
  -- ab loads -E (and sets -Z) now, for http URLs too, before its banner.
  if o.cert then
    local err = check_cert(o.cert, readfile)
    if err then return nil, err end
  end
  o.ciphers_tls13 = o.tls_version == 13
  o.sni = server_name(o)
  o.heartbeat = 0
  if o.progress and o.requests > 150 then
    o.heartbeat = math.max(math.floor(o.requests / 10), 100)
  end
  return o
end

return M
