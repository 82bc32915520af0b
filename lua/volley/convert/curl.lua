-- `volley convert --curl`: a curl command line (as a browser's "Copy as
-- cURL" or a terminal gives it) read into one request, the way curl would
-- send it: method, URL, headers in order, body. parse() takes the words
-- (volley.convert.shell splits the line); emit() writes the request as a
-- flow's u:request{...} table, or a one-request flow script.
local luatext = require("volley.convert.luatext")
local uri = require("volley.uri")

local curl = {}

local concat = table.concat
local format, byte, char, sub, lower = string.format, string.byte, string.char, string.sub, string.lower

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

function curl.base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = byte(s, i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = {}
    for k = 3, 0, -1 do
      local v = math.floor(n / 64 ^ k) % 64
      q[#q + 1] = sub(B64, v + 1, v + 1)
    end
    if not b then q[3], q[4] = "=", "=" elseif not c then q[4] = "=" end
    out[#out + 1] = concat(q)
  end
  return concat(out)
end

-- --data-urlencode's encoding (curl's tool_getparam.c): every byte but
-- the unreserved ones as %XX, and a space as "+".
function curl.escape(s)
  return (s:gsub("[^%w%-%._~ ]", function(c) return format("%%%02X", byte(c)) end):gsub(" ", "+"))
end

-- Options with a value (the next word, or the rest of a short one: -XPOST).
local VALUE = {
  ["-X"] = "request", ["--request"] = "request",
  ["-H"] = "header", ["--header"] = "header",
  ["-d"] = "data", ["--data"] = "data", ["--data-ascii"] = "data",
  ["--data-raw"] = "data-raw", ["--data-binary"] = "data-binary",
  ["--data-urlencode"] = "data-urlencode", ["--json"] = "json",
  ["-u"] = "user", ["--user"] = "user",
  ["-b"] = "cookie", ["--cookie"] = "cookie",
  ["-A"] = "user-agent", ["--user-agent"] = "user-agent",
  ["-e"] = "referer", ["--referer"] = "referer",
  ["--url"] = "url",
  ["-m"] = "max-time", ["--max-time"] = "max-time",
  ["-F"] = "form", ["--form"] = "form", ["--form-string"] = "form-string",
  -- Taken and left out: where curl writes, how long it connects or retries.
  ["-o"] = "ignore", ["--output"] = "ignore", ["--connect-timeout"] = "ignore", ["--retry"] = "ignore",
  ["-w"] = "ignore", ["--write-out"] = "ignore",
}

-- Flags. "note" ones change what curl does in a way volley does not
-- copy: said on stderr.
local FLAG = {
  ["-G"] = "get", ["--get"] = "get",
  ["-I"] = "head", ["--head"] = "head",
  ["-L"] = "location", ["--location"] = "location",
  ["-k"] = "insecure", ["--insecure"] = "insecure",
  ["--compressed"] = "compressed",
  -- Output and transfer details, nothing of the request: left out.
  ["-s"] = "ignore", ["--silent"] = "ignore", ["-S"] = "ignore", ["--show-error"] = "ignore",
  ["-v"] = "ignore", ["--verbose"] = "ignore", ["-i"] = "ignore", ["--include"] = "ignore",
  ["-f"] = "ignore", ["--fail"] = "ignore", ["-O"] = "ignore", ["--remote-name"] = "ignore",
  ["-#"] = "ignore", ["--progress-bar"] = "ignore", ["--no-progress-meter"] = "ignore",
  ["--http1.1"] = "ignore", ["--http2"] = "http2", ["--globoff"] = "ignore", ["-g"] = "ignore",
}

local NOTES = {
  compressed = "--compressed: left out (volley does not decode compressed bodies, so the request asks for none)",
  insecure = "-k: left out (volley does not check certificates unless --verify is given)",
  location = "-L: left out (a flow follows redirects on the target by itself, up to 10)",
  http2 = "--http2: left out (give volley --http2 or --h2c to run the flow over HTTP/2)",
  ["content-length"] = "-H Content-Length: left out (volley sets it from the body)",
}

-- A header line "Name: value" as { name, value }; "Name;" is the header
-- with an empty value; "Name:" removes one of curl's own (nil, name).
local function header_pair(line)
  local name, value = line:match("^([^:;]+):%s*(.*)$")
  if name then
    if value == "" then return nil, name end
    return { name, value }
  end
  name = line:match("^([^:;]+);%s*$")
  if name then return { name, "" } end
  return false
end

local function find_header(headers, name)
  local n = lower(name)
  for i, kv in ipairs(headers) do
    if lower(kv[1]) == n then return i end
  end
end

-- The text of an @file (or stdin, "-", which is refused).
local function at_file(opt, name, read_file, strip)
  if name == "-" then return nil, opt .. " @-: reads stdin; save it to a file and give @FILE" end
  local text, err = read_file(name)
  if not text then return nil, format("%s @%s: %s", opt, name, err or "cannot be read") end
  if strip then text = text:gsub("[\r\n]", "") end
  return text
end

-- One --data-urlencode value as curl encodes it.
local function urlencode_part(v, read_file)
  local name, rest = v:match("^([^=@]*)=(.*)$")
  if name then
    return (name ~= "" and name .. "=" or "") .. curl.escape(rest)
  end
  name, rest = v:match("^([^=@]*)@(.*)$")
  if name then
    local text, err = at_file("--data-urlencode", rest, read_file, false)
    if not text then return nil, err end
    return (name ~= "" and name .. "=" or "") .. curl.escape(text)
  end
  return curl.escape(v)
end

-- One -F value as curl reads it (its man page's -F): name=value,
-- name=@file (uploaded, with ;type= and ;filename= after it), name=<file
-- (the file's text as the value); { name, value } with value a string or
-- { file = path, type = t, filename = f }, or nil and one line. literal:
-- --form-string, whose value is taken as it is.
local function form_part(v, literal, read_file)
  local name, value = v:match("^([^=]+)=(.*)$")
  if not name then return nil, format("-F %s: not name=value (or name=@file)", v) end
  if literal then return { name, value } end
  local first = sub(value, 1, 1)
  if first == "@" or first == "<" then
    local path, params = value:sub(2):match("^([^;]*)(.*)$")
    if path == "" then return nil, format("-F %s: no file after %s", v, first) end
    local ctype, filename
    for k, x in params:gmatch(";%s*(%a+)=([^;]*)") do
      k = lower(k)
      if k == "type" then ctype = x elseif k == "filename" then filename = x:gsub('^"(.*)"$', "%1") end
    end
    if first == "<" then
      local text, err = at_file("-F", path, read_file, false)
      if not text then return nil, (err:gsub("^%-F @", "-F <")) end
      return { name, text }
    end
    return { name, { file = path, type = ctype, filename = filename } }
  end
  return { name, (value:gsub(";%s*type=[^;]*$", "")) } -- a text part's ;type= is curl's, not sent as text
end

-- The request of words (words[1] is curl): { method, url, headers = {
-- {name, value}, ... }, body, timeout, notes = { ... } }, or nil and one
-- line. read_file(path) returns a file's text or nil, message.
function curl.parse(words, read_file)
  local first = words[1]
  if not first then return nil, "an empty command (give a curl command line)" end
  if not (first == "curl" or first:match("/curl$")) then
    return nil, format("not a curl command: it starts with %q (copy it with \"Copy as cURL\")", first)
  end
  local r = { headers = {}, notes = {} }
  local urls, data, form, unknown, removed = {}, {}, {}, {}, {}
  local method, get, head, json, user, ua, referer, cookie
  local noted = {}
  local function note(what)
    if NOTES[what] and not noted[what] then
      noted[what] = true
      r.notes[#r.notes + 1] = NOTES[what]
    end
  end
  local function take(kind, v)
    if kind == "request" then method = v
    elseif kind == "header" then
      if v:sub(1, 1) == "@" then return format("-H %s: headers from a file are not read; give each -H", v) end
      local kv, name = header_pair(v)
      if kv and lower(kv[1]) == "content-length" then
        note("content-length")
      elseif kv then r.headers[#r.headers + 1] = kv
      elseif name then removed[lower(name)] = true
      else return format("-H %q: not a header (Name: value)", v) end
    elseif kind == "data" or kind == "data-binary" or kind == "json" then
      local text = v
      if v:sub(1, 1) == "@" then
        local err
        text, err = at_file(kind == "data" and "-d" or "--" .. kind, v:sub(2), read_file, kind == "data")
        if not text then return err end
      end
      data[#data + 1] = text
      if kind == "json" then json = true end
    elseif kind == "data-raw" then data[#data + 1] = v
    elseif kind == "data-urlencode" then
      local text, err = urlencode_part(v, read_file)
      if not text then return err end
      data[#data + 1] = text
    elseif kind == "user" then user = v
    elseif kind == "cookie" then
      if not v:find("=", 1, true) then
        return format("-b %s: a cookie file is not read; give the cookies themselves (-b 'name=value; ...')", v)
      end
      cookie = v
    elseif kind == "user-agent" then ua = v
    elseif kind == "referer" then referer = v:gsub(";auto$", "")
    elseif kind == "url" then urls[#urls + 1] = v
    elseif kind == "max-time" then
      local t = tonumber(v)
      if not t or t <= 0 then return format("-m %q: not a number of seconds", v) end
      r.timeout = t
    elseif kind == "form" or kind == "form-string" then
      local part, err = form_part(v, kind == "form-string", read_file)
      if not part then return err end
      form[#form + 1] = part
    elseif kind == "get" then get = true
    elseif kind == "head" then head = true
    elseif kind ~= "ignore" then note(kind)
    end
  end
  local i = 2
  local only_urls = false
  while i <= #words do
    local w = words[i]
    if only_urls or sub(w, 1, 1) ~= "-" or w == "-" then
      urls[#urls + 1] = w
    elseif w == "--" then
      only_urls = true
    elseif VALUE[w] then
      if i == #words then return nil, format("%s: needs a value", w) end
      local err = take(VALUE[w], words[i + 1])
      if err then return nil, err end
      i = i + 1
    elseif FLAG[w] then
      take(FLAG[w])
    elseif sub(w, 2, 2) ~= "-" then
      -- Short options run together (-sSL), the last may take the rest or
      -- the next word as its value (-XPOST, -sX POST).
      local j = 2
      while j <= #w do
        local o = "-" .. sub(w, j, j)
        if VALUE[o] then
          local v = sub(w, j + 1)
          if v == "" then
            if i == #words then return nil, format("%s: needs a value", o) end
            i = i + 1
            v = words[i]
          end
          local err = take(VALUE[o], v)
          if err then return nil, err end
          break
        elseif FLAG[o] then
          take(FLAG[o])
        else
          unknown[#unknown + 1] = o
        end
        j = j + 1
      end
    else
      unknown[#unknown + 1] = w
    end
    i = i + 1
  end
  if #unknown > 0 then
    return nil, format("curl option%s not converted: %s (remove %s, or write the request by hand)",
      #unknown > 1 and "s" or "", concat(unknown, ", "), #unknown > 1 and "them" or "it")
  end
  if #urls == 0 then return nil, "no URL in the curl command" end
  if #urls > 1 then return nil, format("more than one URL (%s): one request a command", concat(urls, ", ")) end
  local url = urls[1]
  if not url:match("^%a[%w+.-]*://") then url = "http://" .. url end
  local c = uri.parse(url)
  local scheme = lower(c.scheme)
  if scheme ~= "http" and scheme ~= "https" then
    return nil, format("%s: not an http:// or https:// URL", urls[1])
  end
  local userinfo, hostport = (c.authority or ""):match("^(.*)@(.*)$")
  if userinfo and not user then user = userinfo end
  hostport = hostport or c.authority or ""
  if hostport == "" then return nil, format("%s: no host in the URL", urls[1]) end
  local path = c.path ~= "" and c.path or "/"
  local query = c.query
  if #form > 0 and (#data > 0 or get) then
    return nil, format("-F with %s: curl sends one kind of body (a multipart form, or -d's)", get and "-G" or "-d")
  end
  local body
  if #data > 0 then
    local joined = concat(data, "&")
    if get then
      query = (query and query ~= "" and query .. "&" or "") .. joined
    else
      body = joined
    end
  end
  if #form > 0 then r.multipart = form end
  r.method = method or (head and "HEAD") or ((body or r.multipart) and "POST") or "GET"
  r.origin = scheme .. "://" .. hostport
  r.path = path .. (query and "?" .. query or "")
  r.body = body
  -- curl's own headers, where the command did not give or remove them.
  local function default(name, value, front)
    if find_header(r.headers, name) or removed[lower(name)] then return end
    if front then table.insert(r.headers, 1, { name, value }) else r.headers[#r.headers + 1] = { name, value } end
  end
  if user then
    if not user:find(":", 1, true) then
      return nil, format("-u %s: no password (curl would ask for one); give user:password", user)
    end
    default("Authorization", "Basic " .. curl.base64(user), true)
  end
  if referer then default("Referer", referer) end
  if ua then default("User-Agent", ua) end
  if cookie then default("Cookie", cookie) end
  if json then
    default("Content-Type", "application/json")
    default("Accept", "application/json")
  end
  default("Accept", "*/*", true)
  if body and not json then default("Content-Type", "application/x-www-form-urlencoded") end
  r.url = r.origin .. r.path
  return r
end

-- The request as u:request{...} source, at indent.
function curl.table_text(r, indent)
  indent = indent or ""
  local fields = { { "method", luatext.quote(r.method) }, { "path", luatext.quote(r.path) } }
  if #r.headers > 0 then
    -- A Lua table holds one value a name: a repeated header becomes one,
    -- its values joined with ", " (RFC 9110 5.3), Cookie's with "; ".
    local merged, at = {}, {}
    for _, kv in ipairs(r.headers) do
      local k = lower(kv[1])
      if at[k] then
        local m = merged[at[k]]
        m[2] = m[2] .. (k == "cookie" and "; " or ", ") .. kv[2]
      else
        merged[#merged + 1] = { kv[1], kv[2] }
        at[k] = #merged
      end
    end
    fields[#fields + 1] = { "headers", luatext.pairs_table(merged) }
  end
  if r.body then fields[#fields + 1] = { "body", luatext.quote(r.body) } end
  if r.multipart then
    -- a list of { name, value } pairs, in curl's order (names may repeat);
    -- a file is volley.file, read once when the script loads
    local parts = {}
    for _, p in ipairs(r.multipart) do
      local v = p[2]
      local text
      if type(v) == "table" then
        local args = { luatext.quote(v.file) }
        if v.type or v.filename then args[2] = v.type and luatext.quote(v.type) or "nil" end
        if v.filename then args[3] = luatext.quote(v.filename) end
        text = "volley.file(" .. concat(args, ", ") .. ")"
      else
        text = luatext.quote(v)
      end
      parts[#parts + 1] = "{ " .. luatext.quote(p[1]) .. ", " .. text .. " }"
    end
    fields[#fields + 1] = { "multipart", "{ " .. concat(parts, ", ") .. " }" }
  end
  if r.timeout then fields[#fields + 1] = { "timeout", format("%.14g", r.timeout) } end
  return "u:request" .. luatext.fields(fields, indent, 100)
end

-- The whole output: the request table with a comment naming the target,
-- or (flow) a flow script that sends it once an iteration.
function curl.emit(r, line, flow)
  local out = {}
  local origin_url = r.origin .. "/"
  out[#out + 1] = "-- Converted by volley convert --curl from:"
  for l in (line:gsub("\\\r?\n", "")):gmatch("[^\n]+") do
    out[#out + 1] = "--   " .. luatext.comment(l)
  end
  out[#out + 1] = luatext.comment(format("-- The target: %s (the path below is on it).", origin_url))
  if r.origin:match("^https:") then
    out[#out + 1] = "-- volley checks no certificate unless --verify is given."
  end
  if flow then
    out[#out + 1] = luatext.comment(format("--   volley -s flow.lua --iterations 1 %s", origin_url))
    out[#out + 1] = "local s = {}"
    out[#out + 1] = ""
    out[#out + 1] = "function s.user(u)"
    out[#out + 1] = "  " .. curl.table_text(r, "  ")
    out[#out + 1] = "end"
    out[#out + 1] = ""
    out[#out + 1] = "return s"
  else
    out[#out + 1] = curl.table_text(r, "")
  end
  return concat(out, "\n") .. "\n"
end

return curl
