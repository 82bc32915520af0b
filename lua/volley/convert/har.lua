-- `volley convert`'s reading of a HAR 1.2 file (a browser's recording):
-- the JSON checked to be a HAR, each entry's request taken with its
-- start and duration, and the entries a replay leaves out set apart with
-- the reason (not http(s), served from the browser's cache, never
-- answered, an asset under --no-assets). Every bad input is one line.
local json = require("volley.json")
local uri = require("volley.uri")

local har = {}

local format, lower, match, sub = string.format, string.lower, string.match, string.sub

-- Days from 1970-01-01 to y-m-d (proleptic Gregorian): the cookie dates'.
local days_from_civil = require("volley.cookie_date").days_from_civil

-- An ISO 8601 date-time as HAR writes it ("2026-12-08T00:34:52.123Z",
-- "...+01:00", fractions of any length) in seconds since the epoch, or nil.
function har.parse_date(s)
  if type(s) ~= "string" then return nil end
  local y, mo, d, h, mi, sec, rest = match(s, "^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d%.?%d*)(.*)$")
  if not y then return nil end
  local t = days_from_civil(tonumber(y), tonumber(mo), tonumber(d)) * 86400
    + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec)
  if rest == "Z" or rest == "" then return t end
  local sign, oh, om = match(rest, "^([+-])(%d%d):?(%d%d)$")
  if not sign then return nil end
  local off = tonumber(oh) * 3600 + tonumber(om) * 60
  return sign == "+" and t - off or t + off
end

-- Where byte pos of text is, as "line L" (1-based).
local function line_of(text, pos)
  local _, n = text:sub(1, pos - 1):gsub("\n", "")
  return n + 1
end

-- Resource types (Chromium's _resourceType) that are a page's assets.
local ASSET_TYPES = { stylesheet = true, image = true, media = true, font = true, script = true,
  texttrack = true, manifest = true }
-- Resource types that never reached the server as a replayable request.
local SKIP_TYPES = { websocket = "a WebSocket" }
local ASSET_EXT = {}
for e in ("png jpg jpeg gif webp avif svg ico bmp css js mjs map woff woff2 ttf otf eot mp4 webm mp3 ogg wav m4a")
    :gmatch("%S+") do
  ASSET_EXT[e] = true
end

-- Whether an entry is an asset: by its _resourceType when the browser
-- gave one (other than "other"), else its response's MIME type, else
-- its path's extension.
function har.is_asset(e)
  local rt = e._resourceType and lower(e._resourceType)
  if rt and rt ~= "other" and rt ~= "" then return ASSET_TYPES[rt] == true end
  local mime = lower(e.mime or "")
  if mime ~= "" then
    if match(mime, "^image/") or match(mime, "^font/") or match(mime, "^audio/") or match(mime, "^video/")
        or match(mime, "^text/css") or match(mime, "javascript") or match(mime, "^application/font")
        or match(mime, "^application/x%-font") then
      return true
    end
    if match(mime, "^text/html") or match(mime, "json") or match(mime, "xml") or match(mime, "^text/plain") then
      return false
    end
  end
  local ext = match(match(e.path or "", "^[^?#]*"), "%.([%w]+)$")
  return ext ~= nil and ASSET_EXT[lower(ext)] == true
end

local function field(t, k)
  if type(t) == "table" then return t[k] end
end

-- A header list as { {name, value}, ... }, or nil and why.
local function header_list(hs, where)
  local out = {}
  if hs == nil then return out end
  if type(hs) ~= "table" then return nil, where .. ".headers is not a list" end
  for i, h in ipairs(hs) do
    if type(h) ~= "table" or type(h.name) ~= "string" or type(h.value) ~= "string" then
      return nil, format("%s.headers[%d] has no name and value strings", where, i - 1)
    end
    out[#out + 1] = { h.name, h.value }
  end
  return out
end

local REDIRECTS = { [301] = true, [302] = true, [303] = true, [307] = true, [308] = true }

-- Marks the browser's hops: each entry that answered with a redirect gets
-- .hop, the first later entry that requested where it pointed (by URL,
-- without the fragment), and that entry .hop_of. A flow follows redirects
-- on its target by itself, so such a hop is not a request of its own
-- (volley.convert.flowtext decides).
function har.link_redirects(entries)
  for i, a in ipairs(entries) do
    if REDIRECTS[a.status] and a.redirect then
      for j = i + 1, #entries do
        local b = entries[j]
        if not b.hop_of and uri.without_fragment(b.url) == a.redirect then
          a.hop, b.hop_of = b, a
          break
        end
      end
    end
  end
end

-- The HAR of text, named source in messages: { creator = "Chromium 156",
-- entries = { e, ... }, skipped = { [reason] = count } }, or nil and one
-- line. Each e: { index (0-based, as in the file), method, url, scheme,
-- authority, path (with its query), headers, post = { mime, text, params }
-- or nil, start (seconds), time (ms), status, mime, _resourceType }.
-- Entries are in the order they started (stable for equal times).
function har.read(text, source)
  local doc, err = json.decode(text)
  if doc == nil then
    local pos = tonumber(match(err, "at byte (%d+)")) or 1
    if pos > #text then
      return nil, format("%s: truncated: the JSON ends at byte %d (line %d) before it is complete", source,
        #text, line_of(text, #text + 1))
    end
    local what = match(err, "at byte %d+: (.*)$") or err
    return nil, format("%s: not JSON: byte %d (line %d): %s", source, pos, line_of(text, pos), what)
  end
  local entries = field(field(doc, "log"), "entries")
  if type(entries) ~= "table" then
    return nil, format('%s: not a HAR file: no log.entries (a HAR is {"log": {"entries": [...]}})', source)
  end
  local creator = field(field(doc, "log"), "creator")
  local out = { entries = {}, skipped = {}, total = #entries }
  if type(creator) == "table" and type(creator.name) == "string" then
    out.creator = creator.name .. (type(creator.version) == "string" and " " .. creator.version or "")
  end
  local function skip(why) out.skipped[why] = (out.skipped[why] or 0) + 1 end
  for i, raw in ipairs(entries) do
    local where = format("%s: entry %d", source, i - 1)
    local req = field(raw, "request")
    if type(req) ~= "table" then return nil, where .. " has no request" end
    if type(req.url) ~= "string" or req.url == "" then return nil, where .. " has no request.url" end
    if type(req.method) ~= "string" or not match(req.method, "^[!#$%%&'*+.^_`|~%w%-]+$") then
      return nil, where .. " has no request.method (or not a method)"
    end
    local start = har.parse_date(raw.startedDateTime)
    if not start then
      return nil, format("%s: startedDateTime %s is not an ISO 8601 date-time", where,
        type(raw.startedDateTime) == "string" and format("%q", raw.startedDateTime) or "is missing and")
    end
    local headers, herr = header_list(req.headers, where .. ": request")
    if not headers then return nil, herr end
    local scheme, authority, rest = match(req.url, "^(%a[%w+.-]*)://([^/?#]*)([^#]*)")
    scheme = scheme and lower(scheme)
    local res = field(raw, "response")
    local e = {
      index = i - 1, method = req.method, url = req.url, headers = headers, start = start,
      time = tonumber(raw.time) or 0, status = tonumber(field(res, "status")) or 0,
      mime = field(field(res, "content"), "mimeType"), _resourceType = raw._resourceType,
    }
    if e.time < 0 then e.time = 0 end
    -- Where a redirect points: HAR's redirectURL, else its Location.
    if e.status >= 300 and e.status < 400 then
      local loc = field(res, "redirectURL")
      if type(loc) ~= "string" or loc == "" then
        loc = nil
        local rh = field(res, "headers")
        if type(rh) == "table" then
          for _, h in ipairs(rh) do
            if type(h) == "table" and type(h.name) == "string" and lower(h.name) == "location"
                and type(h.value) == "string" then
              loc = h.value
            end
          end
        end
      end
      if loc then e.redirect = uri.without_fragment(uri.resolve(req.url, loc)) end
    end
    if type(e.mime) ~= "string" then e.mime = nil end
    if type(e._resourceType) ~= "string" then e._resourceType = nil end
    if scheme ~= "http" and scheme ~= "https" then
      skip("not http(s) (" .. (match(req.url, "^(%a[%w+.-]*):") or "no scheme") .. ")")
    elseif e._resourceType and SKIP_TYPES[lower(e._resourceType)] then
      skip(SKIP_TYPES[lower(e._resourceType)])
    elseif raw._fromCache ~= nil then
      skip("served from the browser's cache")
    elseif e.status == 0 then
      skip("not answered in the browser (status 0)")
    else
      -- The origin as a browser compares them: the scheme's own port
      -- left out.
      authority = lower(authority)
      local host, port = match(authority, "^(.*):(%d*)$")
      if host and not match(host, "^%[[^%]]*$") and (port == "" or (scheme == "http" and port == "80")
          or (scheme == "https" and port == "443")) then
        authority = host
      end
      e.scheme, e.authority = scheme, authority
      e.path = rest ~= "" and rest or "/"
      if sub(e.path, 1, 1) == "?" then e.path = "/" .. e.path end
      local post = req.postData
      if type(post) == "table" then
        e.post = { mime = type(post.mimeType) == "string" and post.mimeType or nil,
          text = type(post.text) == "string" and post.text or nil, params = type(post.params) == "table" and post.params or nil }
      end
      out.entries[#out.entries + 1] = e
    end
  end
  -- Stable: by start, then by place in the file.
  table.sort(out.entries, function(a, b)
    if a.start ~= b.start then return a.start < b.start end
    return a.index < b.index
  end)
  har.link_redirects(out.entries)
  return out
end

return har
