-- `volley convert`'s flow script from a HAR's entries (volley.convert.har):
-- which headers are kept, how a body is written, the requests that
-- started together as one u:batch, the recorded gaps as u:sleep, names
-- with ids taken out of paths, and the comment block at the top (hosts,
-- the command line to run it, what was left out). docs/convert.md says
-- why each choice is made.
local luatext = require("volley.convert.luatext")
local har = require("volley.convert.har")

local flowtext = {}

local format, lower, match, gsub, sub = string.format, string.lower, string.match, string.gsub, string.sub
local concat, floor = table.concat, math.floor

-- Gaps shorter than this (seconds) are not think time: a browser's own
-- work between requests (parsing, running the page's script).
flowtext.THINK_MIN = 0.1
-- u:batch's most requests.
local BATCH_MAX = 1000

-- Headers dropped, by class (lower-case name -> the class, for the note).
local DROP = {}
local function drop(class, names)
  for n in names:gmatch("%S+") do DROP[n] = class end
end
drop("volley sets it", "host content-length")
drop("hop-by-hop", "connection keep-alive transfer-encoding te upgrade proxy-connection")
drop("the user's cookie jar keeps cookies", "cookie")
drop("volley sends its own", "user-agent")
drop("the recording browser's cache state", "if-none-match if-modified-since if-match if-unmodified-since if-range cache-control pragma")
drop("browser noise", "upgrade-insecure-requests dnt priority purpose sec-purpose x-client-data")

-- Why a header is dropped, or nil to keep it.
function flowtext.drop_reason(name)
  local n = lower(name)
  if sub(n, 1, 1) == ":" then return "HTTP/2 pseudo-headers" end
  if match(n, "^sec%-ch%-") or match(n, "^sec%-fetch%-") then return "browser noise" end
  return DROP[n]
end

-- Path segments that are ids: numbers, UUIDs, long hex (hashes), long
-- tokens with digits in them.
local function id_like(seg)
  if match(seg, "^%d+$") then return true end
  if match(seg, "^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$") then return true end
  if #seg >= 16 and match(seg, "^%x+$") then return true end
  if #seg >= 20 and match(seg, "%d") and match(seg, "^[%w_%-]+$") then return true end
  return false
end

-- A request's name: "METHOD path" (without the query) with each id
-- segment as {id}; nil when that is volley's default name (no id).
-- prefix is the host for a request to another host.
function flowtext.name(method, path, prefix)
  local p = match(path, "^[^?#]*")
  local changed = false
  local named = gsub(p, "[^/]+", function(seg)
    if id_like(seg) then changed = true; return "{id}" end
  end)
  if not changed then return nil end
  return method .. " " .. (prefix or "") .. named
end

local METHODS = { GET = "get", HEAD = "head", DELETE = "delete", POST = "post", PUT = "put", PATCH = "patch" }

-- Splits a urlencoded body into pairs, or nil when it is not plainly one
-- (a key given twice, a key without "=", bytes a form would encode apart).
local function form_pairs(text)
  local list, seen = {}, {}
  local function dec(s)
    return (gsub(gsub(s, "+", " "), "%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
  end
  for part in (text .. "&"):gmatch("([^&]*)&") do
    local k, v = match(part, "^([^=]+)=(.*)$")
    if not k then return nil end
    k, v = dec(k), dec(v)
    if seen[k] then return nil end
    seen[k] = true
    list[#list + 1] = { k, v }
  end
  if #list == 0 then return nil end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return list
end

-- The options of entry e as { key, lua-text } fields, and its request's
-- path (or URL) text; notes collects the header names dropped.
local function request_fields(e, ctx, indent)
  local fields = {}
  local headers = {}
  local content_type
  local at = {}
  for _, kv in ipairs(e.headers) do
    local why = flowtext.drop_reason(kv[1])
    if why then
      local n = lower(kv[1])
      ctx.dropped[why] = ctx.dropped[why] or {}
      if not ctx.dropped[why][n] then
        ctx.dropped[why][n] = true
        ctx.dropped_order[#ctx.dropped_order + 1] = { why, kv[1] }
      end
      if n == "user-agent" and not ctx.user_agent then ctx.user_agent = kv[2] end
    else
      local n = lower(kv[1])
      if n == "content-type" then content_type = kv[2] end
      if at[n] then
        -- One value a name: repeated fields joined (RFC 9110 5.3).
        headers[at[n]][2] = headers[at[n]][2] .. ", " .. kv[2]
      else
        headers[#headers + 1] = { kv[1], kv[2] }
        at[n] = #headers
      end
    end
  end
  local body_field
  local post = e.post
  local text = post and post.text
  if post and (not text or text == "") and post.params and #post.params > 0 then
    local ok = true
    local parts = {}
    for _, p in ipairs(post.params) do
      if type(p) ~= "table" or type(p.name) ~= "string" or p.fileName ~= nil then ok = false break end
      parts[#parts + 1] = p.name .. "=" .. (type(p.value) == "string" and p.value or "")
    end
    if ok and match(lower(post.mime or ""), "^application/x%-www%-form%-urlencoded") then text = concat(parts, "&") end
  end
  if text and text ~= "" then
    local mime = lower(match(content_type or post.mime or "", "^%s*([^;%s]+)") or "")
    local plain_form = mime == "application/x-www-form-urlencoded" and not match(lower(content_type or post.mime or ""), ";")
    local pairs_ = plain_form and form_pairs(text)
    if pairs_ then
      body_field = { "form", luatext.pairs_table(pairs_, indent) }
      -- form sets it.
      for i = #headers, 1, -1 do
        if lower(headers[i][1]) == "content-type" then table.remove(headers, i) end
      end
    else
      body_field = { "body", luatext.quote(text) }
      if not content_type and post.mime and post.mime ~= "" then headers[#headers + 1] = { "Content-Type", post.mime } end
    end
  end
  local target
  if e.origin == ctx.origin then
    target = e.path
  else
    target = e.scheme .. "://" .. e.authority .. e.path
  end
  local name = flowtext.name(e.method, e.path, e.origin ~= ctx.origin and e.authority or nil)
  if #headers > 0 then fields[#fields + 1] = { "headers", luatext.pairs_table(headers, indent) } end
  if body_field then fields[#fields + 1] = body_field end
  if name then fields[#fields + 1] = { "name", luatext.quote(name) } end
  if e.no_follow then fields[#fields + 1] = { "redirects", "0" } end
  return target, fields
end

local function status_note(e)
  local mime = e.mime and match(e.mime, "^%s*([^;%s]+)")
  return "-- " .. e.status .. (mime and " " .. mime or "")
end

-- One request of the user on its own: u:get("/x", {...}) -- 200 text/html
local function single(e, ctx, indent)
  local target, fields = request_fields(e, ctx, indent .. "  ")
  local m = METHODS[e.method]
  local text
  if m then
    text = format("u:%s(%s%s)", m, luatext.quote(target),
      #fields > 0 and ", " .. luatext.fields(fields, indent, 100 - #m - #target - 8) or "")
  else
    table.insert(fields, 1, { "path", luatext.quote(target) })
    table.insert(fields, 1, { "method", luatext.quote(e.method) })
    text = "u:request" .. luatext.fields(fields, indent, 100)
  end
  return indent .. text .. "  " .. status_note(e)
end

-- One request in a batch: "/x" or { method = ..., path = ..., ... }.
local function item(e, ctx, indent)
  local target, fields = request_fields(e, ctx, indent .. "  ")
  local text
  if e.method == "GET" and #fields == 0 then
    text = luatext.quote(target)
  else
    table.insert(fields, 1, { "path", luatext.quote(target) })
    if e.method ~= "GET" then table.insert(fields, 1, { "method", luatext.quote(e.method) }) end
    text = luatext.fields(fields, indent, 100)
  end
  return indent .. text .. ",  " .. status_note(e)
end

-- Steps of entries: { kind = "sleep", seconds } and { kind = "requests",
-- list }. A request joins the step before it when it started before every
-- request of that step had ended (the browser had them in flight
-- together); a new step after a gap of at least think_min seconds from
-- that end is preceded by a sleep of the gap, rounded to 10 ms.
function flowtext.steps(entries, think_min)
  think_min = think_min or flowtext.THINK_MIN
  local steps, cur, cur_end = {}, nil, nil
  for _, e in ipairs(entries) do
    local e_end = e.start + e.time / 1000
    if cur and e.start < cur_end and #cur.list < BATCH_MAX then
      cur.list[#cur.list + 1] = e
      if e_end > cur_end then cur_end = e_end end
    else
      if cur_end then
        local gap = e.start - cur_end
        if gap >= think_min then
          steps[#steps + 1] = { kind = "sleep", seconds = floor(gap * 100 + 0.5) / 100 }
        end
      end
      cur = { kind = "requests", list = { e } }
      steps[#steps + 1] = cur
      cur_end = e_end
    end
  end
  return steps
end

-- The origin the flow's paths are on: the first document's (a page the
-- user opened), else the first request's.
function flowtext.main_origin(entries)
  for _, e in ipairs(entries) do
    if e._resourceType and lower(e._resourceType) == "document" then return e.scheme .. "://" .. e.authority end
  end
  for _, e in ipairs(entries) do
    if match(lower(e.mime or ""), "^text/html") then return e.scheme .. "://" .. e.authority end
  end
  return entries[1].scheme .. "://" .. entries[1].authority
end

-- A host as --allow-host takes it: host, with :port when not the scheme's.
local function allow_host(scheme, authority)
  local host, port = match(authority, "^(.*):(%d+)$")
  if not host then return authority end
  if (scheme == "http" and port == "80") or (scheme == "https" and port == "443") then return host end
  return authority
end

-- The flow script for h (volley.convert.har.read's result). opts:
-- no_assets, source (the HAR's name), script (the name the command line
-- shows), think_min. Returns the text, or nil and one line.
function flowtext.emit(h, opts)
  local entries, assets, hops = {}, 0, 0
  for _, e in ipairs(h.entries) do e.origin = e.scheme .. "://" .. e.authority end
  for _, e in ipairs(h.entries) do
    if e.hop_of and e.hop_of.origin == e.origin then
      -- A redirect on one origin: the flow follows it by itself, to the
      -- Location the server gives then; the request that led there
      -- lasts until the hop ended.
      hops = hops + 1
      local root = e.hop_of
      while root.hop_of and root.hop_of.origin == root.origin do root = root.hop_of end
      local t = (e.start - root.start) * 1000 + e.time
      if t > root.time then root.time = t end
    elseif opts.no_assets and har.is_asset(e) then
      assets = assets + 1
    else
      -- A hop to another origin is a request of the flow's own, and the
      -- redirect that led there is not followed (redirects = 0).
      if e.hop and e.hop.origin ~= e.origin then e.no_follow = true end
      entries[#entries + 1] = e
    end
  end
  if #entries == 0 then
    if assets > 0 then
      return nil, format("%s: no request left to convert: all %d are assets (--no-assets)", opts.source, assets)
    end
    return nil, format("%s: no HTTP request to convert (%d entries, none sent to a server)", opts.source, h.total)
  end
  local ctx = { origin = flowtext.main_origin(entries), dropped = {}, dropped_order = {} }
  local steps = flowtext.steps(entries, opts.think_min)
  local body = {}
  local nsleep, slept, nbatch = 0, 0, 0
  for _, st in ipairs(steps) do
    if st.kind == "sleep" then
      nsleep, slept = nsleep + 1, slept + st.seconds
      body[#body + 1] = format("  u:sleep(%s)", format("%.2f", st.seconds):gsub("0+$", ""):gsub("%.$", ""))
    elseif #st.list == 1 then
      body[#body + 1] = single(st.list[1], ctx, "  ")
    else
      nbatch = nbatch + 1
      body[#body + 1] = "  u:batch{"
      for _, e in ipairs(st.list) do body[#body + 1] = item(e, ctx, "    ") end
      body[#body + 1] = "  }"
    end
  end
  -- Hosts, in order of first use, the target's first.
  local hosts, by = {}, {}
  for _, e in ipairs(entries) do
    local o = e.origin
    if not by[o] then
      by[o] = { origin = o, n = 0, scheme = e.scheme, authority = e.authority }
      if o == ctx.origin then table.insert(hosts, 1, by[o]) else hosts[#hosts + 1] = by[o] end
    end
    by[o].n = by[o].n + 1
  end
  local head = {}
  head[#head + 1] = format("-- A flow converted by `volley convert` from %s%s:", opts.source,
    h.creator and " (recorded by " .. h.creator .. ")" or "")
  head[#head + 1] = format("-- %d request%s in %d step%s (%d batch%s), %d think time%s (%s s in all).", #entries,
    #entries == 1 and "" or "s", #steps - nsleep, #steps - nsleep == 1 and "" or "s", nbatch, nbatch == 1 and "" or "es",
    nsleep, nsleep == 1 and "" or "s", format("%.2f", slept):gsub("0+$", ""):gsub("%.$", ""))
  head[#head + 1] = "--"
  head[#head + 1] = "-- Hosts (requests):"
  local allow = {}
  local width = 0
  for _, x in ipairs(hosts) do if #x.origin > width then width = #x.origin end end
  for _, x in ipairs(hosts) do
    local what = x.origin == ctx.origin and "the target: the paths below are on it"
      or "absolute URLs below: needs --allow-host"
    if x.origin ~= ctx.origin then allow[#allow + 1] = allow_host(x.scheme, x.authority) end
    head[#head + 1] = format("--   %-" .. width .. "s  %5d  (%s)", x.origin, x.n, what)
  end
  head[#head + 1] = "--"
  head[#head + 1] = "-- Run it once against the recorded target (or give another URL):"
  head[#head + 1] = format("--   volley -s %s --iterations 1%s %s/", opts.script or "flow.lua",
    #allow > 0 and " --allow-host " .. concat(allow, ",") or "", ctx.origin)
  local left = {}
  local reasons = {}
  for why in pairs(h.skipped) do reasons[#reasons + 1] = why end
  table.sort(reasons)
  for _, why in ipairs(reasons) do left[#left + 1] = format("%d %s", h.skipped[why], why) end
  if hops > 0 then
    left[#left + 1] = format("%d redirect%s followed (the flow follows %s itself)", hops, hops == 1 and "" or "s",
      hops == 1 and "it" or "them")
  end
  if assets > 0 then left[#left + 1] = format("%d asset%s (--no-assets)", assets, assets == 1 and "" or "s") end
  if #left > 0 then
    head[#head + 1] = "--"
    head[#head + 1] = "-- Left out: " .. concat(left, ", ") .. "."
  end
  if #ctx.dropped_order > 0 then
    head[#head + 1] = "--"
    head[#head + 1] = "-- Headers left out (docs/convert.md says why):"
    local classes, names = {}, {}
    for _, d in ipairs(ctx.dropped_order) do
      if not names[d[1]] then
        names[d[1]] = {}
        classes[#classes + 1] = d[1]
      end
      names[d[1]][#names[d[1]] + 1] = d[2]
    end
    for _, c in ipairs(classes) do
      head[#head + 1] = format("--   %s: %s", c, concat(names[c], ", "))
    end
    if ctx.user_agent then
      head[#head + 1] = "-- The recorded User-Agent (to send it: -H 'User-Agent: ...'):"
      head[#head + 1] = "--   " .. ctx.user_agent
    end
  end
  local out = {}
  for _, l in ipairs(head) do out[#out + 1] = luatext.comment(l) end
  out[#out + 1] = "local s = {}"
  out[#out + 1] = ""
  out[#out + 1] = "function s.user(u)"
  for _, l in ipairs(body) do out[#out + 1] = l end
  out[#out + 1] = "end"
  out[#out + 1] = ""
  out[#out + 1] = "return s"
  return concat(out, "\n") .. "\n"
end

return flowtext
