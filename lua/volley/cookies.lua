-- A virtual user's cookie jar (RFC 6265, sections 5.1-5.4): filled from the
-- Set-Cookie values of each response (store), read back as the Cookie header
-- of each request (header), and the u.cookies table scripts see (proxy).
-- Plain Lua 5.1 / LuaJIT; one jar per user, so an empty jar is an empty table.
--
-- Contract, per RFC 6265 unless said otherwise:
--   * Parsing (5.2): name=value split at the first '='; a value without '=' or
--     with an empty name drops the whole Set-Cookie value. Expires uses the
--     cookie-date algorithm of 5.1.1; Max-Age (an integer; <= 0 expires now)
--     wins over Expires; an invalid Expires or Max-Age is ignored. Domain loses
--     a leading dot and is lower-cased; Path not starting with '/' means the
--     default path (5.1.4). Secure is honoured when sending; HttpOnly is kept
--     but has no effect here (there is no non-HTTP API to hide it from);
--     SameSite and unknown attributes are ignored. For each attribute the last
--     occurrence wins. Malformed input is ignored, never raises.
--   * Storage (5.3): a Domain that does not domain-match the request host drops
--     the cookie; an IP-address host only matches itself. Same name, domain and
--     path replaces the old cookie, keeping its creation time; a cookie that
--     arrives already expired deletes the old one. Expired cookies are dropped
--     as they are met.
--   * Limits (6.1's minimums, taken as maximums, so that no server can grow a
--     user's jar or request heads without end): a Set-Cookie value longer
--     than cookies.max_bytes (4096: name, '=', value and all attributes with
--     their separators, as received) is ignored, as is a script's cookie whose
--     name=value is; at most cookies.max_per_domain (50) cookies share a domain
--     (the Domain attribute's, or the host of a host-only cookie) and
--     cookies.max_cookies (3000) are in a jar. A cookie that takes a jar past
--     a limit is stored, then cookies are evicted in 5.3's order: expired ones
--     first, then the oldest (by creation time) of a domain over its limit,
--     then the oldest of all.
--   * Sending (5.4): host-only cookies go to their exact host, domain cookies to
--     domain-matching hosts; path-match of 5.1.4; Secure ones only when secure.
--     Order: longer paths first, then earlier creation.
--   * Time is whatever the caller passes as now (wall seconds); nothing here
--     reads a clock or calls os.date.
--
-- Not implemented, on purpose:
--   * No public-suffix list: instead a Domain without any dot that differs from
--     the host (Domain=com) is refused. Domain=example.co.uk is accepted.
--   * No IDNA: hosts are compared as the lower-case strings the caller gives.
--   * Eviction takes the oldest by creation time, not the least recently
--     accessed (5.3 step 12 asks for the earliest last-access date): a load
--     test's user has no reading history worth keeping, and creation order is
--     the jar's own order, so no stamp is written per request.
--   * store's secure argument does not restrict anything: RFC 6265 stores
--     Secure cookies received over http (RFC 6265bis would not); they are still
--     only sent over https.
--   * Beyond RFC 6265: a name or value with control characters (other than tab)
--     is ignored, as RFC 6265bis does, so no header can be split by a cookie.
--   * The proxy's clear method shadows a cookie named "clear": p.clear is the
--     method; such a cookie is still stored and sent, only not readable as
--     p.clear (jar:get("clear", now) reads it).
local cookies = {}

local byte, find, sub, lower, match, gmatch =
  string.byte, string.find, string.sub, string.lower, string.match, string.gmatch
local concat, sort, remove = table.concat, table.sort, table.remove
local huge = math.huge
local type, tonumber, tostring, error, setmetatable, pairs =
  type, tonumber, tostring, error, setmetatable, pairs

-- A jar holds at most this many cookies (RFC 6265 6.1's minimum).
cookies.max_cookies = 3000
-- At most this many cookies share a domain (6.1's minimum).
cookies.max_per_domain = 50
-- A Set-Cookie value (name=value and attributes) longer than this is ignored,
-- as is a script's cookie whose name=value is (6.1's minimum).
cookies.max_bytes = 4096

local B_SLASH, B_DOT = 47, 46
-- Control characters other than tab (RFC 6265bis refuses them in cookies).
local CTL = "[%z\1-\8\10-\31\127]"

-- Creation and last-set order of cookies, shared by all jars: only the order
-- matters, and a jar then needs no counter of its own.
local stamp = 0

local function trim(s)
  return match(s, "^[ \t]*(.-)[ \t]*$")
end

-- Parses a cookie-date (RFC 6265 5.1.1) to seconds since the epoch (UTC), or
-- nil (volley.cookie_date).
cookies.parse_date = require("volley.cookie_date").parse

---------------------------------------------------------------------------
-- Matching (5.1.3, 5.1.4)
---------------------------------------------------------------------------

-- True when host is an IPv4 or IPv6 address: such a host matches no domain
-- but itself.
local function is_ip(host)
  return find(host, ":", 1, true) ~= nil or find(host, "^%d+%.%d+%.%d+%.%d+$") ~= nil
end

-- The path of a request target without its query; "/" if empty.
local function uri_path(path)
  if type(path) ~= "string" then return "/" end
  local q = find(path, "?", 1, true)
  if q then path = sub(path, 1, q - 1) end
  if path == "" then return "/" end
  return path
end

-- The default path of 5.1.4 for a request path (already without query).
local function default_path(path)
  if byte(path, 1) ~= B_SLASH then return "/" end
  local dir = match(path, "^(.*)/")
  if dir == "" then return "/" end
  return dir
end

-- Whether the request path path-matches the cookie path cp (5.1.4).
local function path_match(path, cp)
  if cp == path then return true end
  local n = #cp
  if #path <= n or sub(path, 1, n) ~= cp then return false end
  return byte(cp, n) == B_SLASH or byte(path, n + 1) == B_SLASH
end

-- Whether host is dot .. something: dot is ".domain", so this is the suffix
-- half of domain-match (5.1.3); the identical half is checked by callers.
local function ends_with(host, dot)
  local start = #host - #dot + 1
  return start > 1 and find(host, dot, start, true) ~= nil
end

-- Whether cookie c goes with a request to host and path (already normalised).
local function sends(c, host, path, secure)
  if c.secure and not secure then return false end
  if c.domain ~= host then
    local dot = c.dot
    if not dot or not ends_with(host, dot) or is_ip(host) then return false end
  end
  return path_match(path, c.path)
end

local function expired(c, now)
  local e = c.expires
  return e ~= nil and e <= now
end

---------------------------------------------------------------------------
-- Parsing (5.2) and the cookie it makes (5.3 steps 1-10)
---------------------------------------------------------------------------

-- A new cookie table. dot is ".domain" for a domain cookie, false for a
-- host-only one; expires is nil for a session cookie.
local function new_cookie(name, value, domain, dot, path)
  return {
    name = name, value = value, pair = name .. "=" .. value,
    domain = domain, dot = dot, path = path,
    secure = false, http_only = false, expires = nil,
    created = 0, set = 0,
  }
end

-- The cookie of one Set-Cookie value received from host for path, or nil
-- when the value must be ignored.
local function parse(s, host, path, now)
  if #s > cookies.max_bytes then return nil end
  local semi = find(s, ";", 1, true)
  local nv = semi and sub(s, 1, semi - 1) or s
  local eq = find(nv, "=", 1, true)
  if not eq then return nil end
  local name, value = trim(sub(nv, 1, eq - 1)), trim(sub(nv, eq + 1))
  if name == "" or find(name, CTL) or find(value, CTL) then
    return nil
  end
  local secure, http_only = false, false
  local expires, max_age, domain, cpath
  if semi then
    for av in gmatch(sub(s, semi + 1), "[^;]+") do
      local e = find(av, "=", 1, true)
      local an, val
      if e then
        an, val = lower(trim(sub(av, 1, e - 1))), trim(sub(av, e + 1))
      else
        an, val = lower(trim(av)), ""
      end
      if an == "expires" then
        expires = cookies.parse_date(val) or expires
      elseif an == "max-age" then
        if find(val, "^%-?%d+$") then
          local delta = tonumber(val)
          max_age = delta <= 0 and -huge or now + delta
        end
      elseif an == "domain" then
        if val ~= "" then
          if byte(val, 1) == B_DOT then val = sub(val, 2) end
          domain = lower(val)
        end
      elseif an == "path" then
        -- false: this (last so far) Path asks for the default path.
        cpath = byte(val, 1) == B_SLASH and val or false
      elseif an == "secure" then
        secure = true
      elseif an == "httponly" then
        http_only = true
      end
    end
  end
  local dot = false
  if domain and domain ~= "" then
    if domain ~= host then
      if not find(domain, ".", 1, true) then return nil end  -- Domain=com
      if is_ip(host) or not ends_with(host, "." .. domain) then return nil end
    end
    dot = "." .. domain
  else
    domain = host
  end
  local c = new_cookie(name, value, domain, dot, cpath or default_path(path))
  c.secure, c.http_only = secure, http_only
  if max_age then
    c.expires = max_age
  elseif expires then
    c.expires = expires
  end
  return c
end

---------------------------------------------------------------------------
-- The request's host (5.1.2's canonicalized request-host)
---------------------------------------------------------------------------

-- The host of a Host header value, lower case, without port or IPv6
-- brackets ("[::1]:8080" -> "::1", "Shop.Example:80" -> "shop.example").
function cookies.host_of(value)
  value = lower(trim(tostring(value)))
  local v6 = match(value, "^%[([^%]]*)%]")
  if v6 then return v6 end
  local name = match(value, "^([^:]*):%d*$")
  return name or value
end

-- The value of the header called host (any case) in headers, or nil.
local function host_header(headers)
  local v = headers.Host or headers.host
  if v ~= nil then return v end
  for name, value in pairs(headers) do
    if type(name) == "string" and #name == 4 and lower(name) == "host" then return value end
  end
  return nil
end

local last_value, last_host -- the last Host value and its host: most runs send one

-- The host a request's cookies are stored for and sent to: the Host header
-- it sends (headers, a request's own, win over base, the command line's, as
-- volley.flow_http.build sends them), as cookies.host_of gives it; default
-- when it sends none. headers may be nil.
function cookies.request_host(headers, base, default)
  local v = headers and host_header(headers)
  if v == nil and base then v = host_header(base) end
  if v == nil then return default end
  if v ~= last_value then last_value, last_host = v, cookies.host_of(v) end
  if last_host == "" then return default end
  return last_host
end

---------------------------------------------------------------------------
-- The jar
---------------------------------------------------------------------------

-- A jar is an array of cookies in creation order (a replaced cookie keeps
-- its place, as it keeps its creation time); methods live in the metatable.
local Jar = {}
Jar.__index = Jar

-- Returns a new, empty jar.
function cookies.new()
  return setmetatable({}, Jar)
end

-- Drops the first k cookies of jar for which pick(c, arg) is true (the k
-- oldest of them: the jar is in creation order), keeping the order of the
-- others.
local function drop_oldest(jar, k, pick, arg)
  local n, j = #jar, 0
  for i = 1, n do
    local c = jar[i]
    if k > 0 and pick(c, arg) then
      k = k - 1
    else
      j = j + 1
      jar[j] = c
    end
  end
  for i = n, j + 1, -1 do jar[i] = nil end
end

-- Drops the cookies c of jar for which drop(c, arg) is true, keeping the
-- order of the others.
local function filter(jar, drop, arg)
  drop_oldest(jar, math.huge, drop, arg)
end

-- Drops the expired cookies of jar.
local function purge(jar, now)
  filter(jar, expired, now)
end

local function named(c, name)
  return c.name == name
end


local function of_domain(c, domain)
  return c.domain == domain
end

local function any()
  return true
end

-- Brings jar back within its limits after a cookie of domain was added, in
-- the order of 5.3 step 12: expired cookies (none known when now is nil),
-- then the oldest of a domain over its limit, then the oldest of all. Only
-- domain can be over its limit: every insert leaves the others within it.
local function evict(jar, domain, now)
  if now then purge(jar, now) end
  local same = 0
  for i = 1, #jar do
    if jar[i].domain == domain then same = same + 1 end
  end
  if same > cookies.max_per_domain then
    drop_oldest(jar, same - cookies.max_per_domain, of_domain, domain)
  end
  if #jar > cookies.max_cookies then drop_oldest(jar, #jar - cookies.max_cookies, any) end
end

-- Stores cookie c (5.3 steps 11-12), then evicts what the limits ask. now
-- may be nil (a script's session cookie cannot have expired); then no
-- expired cookie is looked for.
local function insert(jar, c, now)
  local n = #jar
  local name, domain, path = c.name, c.domain, c.path
  stamp = stamp + 1
  c.set = stamp
  local same = 0 -- cookies of c's domain already in the jar
  for i = 1, n do
    local old = jar[i]
    if old.domain == domain then
      if old.name == name and old.path == path then
        if now and expired(c, now) then
          remove(jar, i)
        else
          c.created = old.created
          jar[i] = c
        end
        return
      end
      same = same + 1
    end
  end
  if now and expired(c, now) then return end
  c.created = stamp
  jar[n + 1] = c
  if same >= cookies.max_per_domain or n >= cookies.max_cookies then evict(jar, domain, now) end
end

-- Stores the cookies of one response. set_cookie: the list of its Set-Cookie
-- header values, in order (may be empty); host: the request's host, lower
-- case, without port; path: the request's path (a "?query" is not part of
-- it); secure: the request went over https; now: wall seconds. Values that
-- are malformed or not allowed for host are ignored; never raises.
function Jar:store(set_cookie, host, path, secure, now)
  if type(set_cookie) ~= "table" or type(host) ~= "string"
     or type(now) ~= "number" then
    return
  end
  local rpath = uri_path(path)
  for i = 1, #set_cookie do
    local s = set_cookie[i]
    if type(s) == "string" then
      local c = parse(s, host, rpath, now)
      if c then insert(self, c, now) end
    end
  end
end

-- Longer paths first, then earlier creation (5.4 step 2).
local function send_order(a, b)
  local la, lb = #a.path, #b.path
  if la ~= lb then return la > lb end
  return a.created < b.created
end

-- The Cookie header value ("a=1; b=2") for a request to host and path over
-- https or not (secure) at wall time now, or nil when no cookie matches.
-- Drops expired cookies from the jar. An empty jar costs one length check;
-- one matching cookie returns a string kept with it (no string is built).
function Jar:header(host, path, secure, now)
  local n = #self
  if n == 0 then return nil end
  path = uri_path(path)
  local first, list, stale = nil, nil, false
  local plen, mixed = nil, false
  for i = 1, n do
    local c = self[i]
    if expired(c, now) then
      stale = true
    elseif sends(c, host, path, secure) then
      if not first then
        first, plen = c, #c.path
      else
        if not list then list = { first } end
        list[#list + 1] = c
        if #c.path ~= plen then mixed = true end
      end
    end
  end
  if stale then purge(self, now) end
  if not list then return first and first.pair end
  -- The jar is in creation order, so only differing path lengths need a sort.
  if mixed then sort(list, send_order) end
  for i = 1, #list do list[i] = list[i].pair end
  return concat(list, "; ")
end

-- The value of the most recently set cookie called name that has not expired
-- at now (any domain or path), or nil. now nil: expiry is not checked.
function Jar:get(name, now)
  local best
  for i = 1, #self do
    local c = self[i]
    if c.name == name and not (now and expired(c, now))
       and (not best or c.set > best.set) then
      best = c
    end
  end
  return best and best.value
end

-- Why a script's cookie cannot be set, or nil when it can.
local function refuse(name, value)
  if type(name) ~= "string" or name == "" then return "the name is empty" end
  if find(name, "[=; \t]") or find(name, CTL) then
    return "the name has '=', ';', a space or a control character"
  end
  if find(value, ";", 1, true) or find(value, CTL) then
    return "the value has ';' or a control character"
  end
  if #name + 1 + #value > cookies.max_bytes then
    return "name=value is longer than " .. cookies.max_bytes .. " bytes"
  end
  return nil
end

-- Sets the cookie name to value as a script wants it: host-only for host,
-- path "/", a session cookie, not secure; it replaces a cookie of the same
-- name, domain and path. value nil deletes every cookie called name. now
-- (wall seconds, may be nil): when the jar must evict, expired cookies go
-- first. Returns true, or false and why when the cookie cannot be sent as
-- given (empty name, ';' or control characters, over cookies.max_bytes).
function Jar:set(name, value, host, now)
  if value == nil then
    filter(self, named, name)
    return true
  end
  local why = refuse(name, value)
  if why then return false, why end
  insert(self, new_cookie(name, value, lower(host), false, "/"), now)
  return true
end

-- Empties the jar.
function Jar:clear()
  for i = #self, 1, -1 do self[i] = nil end
end

-- How many cookies the jar holds (expired ones not yet dropped included).
function Jar:count()
  return #self
end

---------------------------------------------------------------------------
-- u.cookies
---------------------------------------------------------------------------

-- Keys of a proxy's own fields: tables, so that no cookie name (a string)
-- can reach or overwrite them.
local K_JAR, K_HOST, K_NOW = {}, {}, {}

local function proxy_clear(p)
  p[K_JAR]:clear()
end

local Proxy = {}

function Proxy.__index(p, name)
  if name == "clear" then return proxy_clear end
  if type(name) ~= "string" then return nil end
  return p[K_JAR]:get(name, p[K_NOW]())
end

function Proxy.__newindex(p, name, value)
  if type(name) ~= "string" then
    error("u.cookies: a cookie name must be a string, not a " .. type(name), 2)
  end
  if value ~= nil and type(value) ~= "string" then
    error("u.cookies." .. name .. ": a string or nil expected, not a "
          .. type(value), 2)
  end
  local ok, why = p[K_JAR]:set(name, value, p[K_HOST], p[K_NOW]())
  if not ok then error("u.cookies." .. name .. ": " .. why, 2) end
end

-- The table a flow gives its script as u.cookies: p.NAME reads the cookie
-- (jar:get at now_fn()), p.NAME = "v" sets it host-only for host (a value
-- that is not a string or nil raises "u.cookies.NAME: a string or nil
-- expected, not a TYPE"; one that cannot be sent raises with why), p.NAME =
-- nil deletes it, p:clear() empties the jar. host: the target's host;
-- now_fn: returns the current wall seconds. Iteration is not supported.
function cookies.proxy(jar, host, now_fn)
  return setmetatable({ [K_JAR] = jar, [K_HOST] = host, [K_NOW] = now_fn }, Proxy)
end

return cookies
