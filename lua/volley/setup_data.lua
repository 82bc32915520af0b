-- A flow's setup data: what setup(u) returns, carried out of the Lua state
-- it was made in as JSON text (the same text --setup-only writes and
-- --setup-data reads) and rebuilt read-only in every worker's state as
-- u.setup. Plain data only: strings, numbers, booleans and tables of them,
-- nested, no cycles; anything else is refused with the path to it.
--
-- Read-only without LUAJIT_ENABLE_LUA52COMPAT (Debian's LuaJIT is built
-- without it: a table's __len and __pairs are not looked at): each table
-- becomes a userdata (newproxy) whose metatable reads from the rebuilt
-- table (__index), refuses writes naming the field (__newindex) and gives
-- its length (# honours __len on a userdata in Lua 5.1). pairs and ipairs
-- are the global functions, so install_iterators wraps them to walk the
-- rebuilt table of such a userdata; everything else goes to the originals.
local json = require("volley.json")

local setup_data = {}

-- The text's bound: each worker's state holds a copy of the data.
setup_data.MAX_BYTES = 16 * 1024 * 1024
-- Nesting deeper than this is refused (a stack overflow otherwise).
local MAX_DEPTH = 100

local concat, format, type, pairs, ipairs, next = table.concat, string.format, type, pairs, ipairs, next

-- The path of key k below path, as the script would write it: .name for
-- an identifier, [3] for a number, ["a b"] for any other string.
local function path_of(path, k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return path .. "." .. k end
  if type(k) == "number" then return format("%s[%s]", path, json.encode(k) or tostring(k)) end
  return format("%s[%q]", path, tostring(k))
end
setup_data.path_of = path_of

-- "at .auth.refresh", or "" at the top.
local function at(path)
  return path == "" and "" or " at " .. path
end

-- The number of keys of t when they are exactly 1..n (n >= 1), else nil
-- (what volley.json writes as an array).
local sequence_length = json.array_length

local encode_value

local function encode_table(t, path, out, seen, depth, what)
  if seen[t] then
    error(format("%s returned a table that contains itself%s (a cycle: setup data is plain data)", what, at(path)), 0)
  end
  if depth > MAX_DEPTH then
    error(format("%s returned tables nested deeper than %d levels%s", what, MAX_DEPTH, at(path)), 0)
  end
  seen[t] = true
  local n = sequence_length(t)
  if n then
    out[#out + 1] = "["
    for i = 1, n do
      if i > 1 then out[#out + 1] = "," end
      encode_value(t[i], path_of(path, i), out, seen, depth + 1, what)
    end
    out[#out + 1] = "]"
  else
    local keys = {}
    for k in pairs(t) do
      if type(k) ~= "string" then
        error(format("%s returned a table with a %s key %s%s (a table is a list 1..n or has string keys only)",
          what, type(k), tostring(k), at(path)), 0)
      end
      keys[#keys + 1] = k
    end
    table.sort(keys) -- the same data always gives the same text
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = json.encode(k)
      out[#out + 1] = ":"
      encode_value(t[k], path_of(path, k), out, seen, depth + 1, what)
    end
    out[#out + 1] = "}"
  end
  seen[t] = nil
end

function encode_value(v, path, out, seen, depth, what)
  local t = type(v)
  if t == "string" or t == "boolean" then
    out[#out + 1] = json.encode(v)
  elseif t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then
      error(format("%s returned the number %s%s (not a finite number)", what, tostring(v), at(path)), 0)
    end
    out[#out + 1] = json.encode(v)
  elseif t == "table" then
    encode_table(v, path, out, seen, depth, what)
  else
    -- nil inside a table is never seen (pairs skips it); a userdata,
    -- a function, a thread or a cdata cannot leave its state
    error(format("%s returned a %s%s (setup data is plain data: strings, numbers, booleans and tables of them)",
      what, t, at(path)), 0)
  end
end

-- What setup returned (v) as JSON text, or nil for nil. Errors (raised
-- with no position) name what (e.g. "setup()") and the path to the value
-- that cannot be carried, or the size past MAX_BYTES.
function setup_data.encode(v, what)
  what = what or "setup()"
  if v == nil then return nil end
  local out = {}
  encode_value(v, "", out, {}, 0, what)
  local text = concat(out)
  if #text > setup_data.MAX_BYTES then
    error(format("%s returned %d bytes of data as JSON, more than the %d MiB setup data may hold", what,
      #text, setup_data.MAX_BYTES / 1048576), 0)
  end
  return text
end

----------------------------------------------------------------------------
-- The read-only copy.

-- frozen userdata -> its rebuilt table (weak: the data lives as long as
-- its userdata).
local frozen = setmetatable({}, { __mode = "k" })

-- The rebuilt table of a frozen value, or nil (for the iterators).
function setup_data.inner(v)
  return frozen[v]
end

local freeze

-- v rebuilt read-only; path: its place under u.setup, for messages.
-- source: where the text came from, for a null's message.
function freeze(v, path, source)
  if v == json.null then
    error(format("%s: null%s (setup data holds strings, numbers, booleans and tables)", source, at(path)), 0)
  end
  if type(v) ~= "table" then return v end
  local inner = {}
  for k, x in pairs(v) do inner[k] = freeze(x, path_of(path, k), source) end
  local p = newproxy(true)
  local mt = getmetatable(p)
  mt.__index = inner
  mt.__newindex = function(_, k)
    error(format("u.setup%s is read-only (setup data is shared by every user: copy what you change)",
      path_of(path, k)), 2)
  end
  mt.__len = function() return #inner end
  mt.__tostring = function() return "u.setup" .. path .. " (read-only setup data)" end
  mt.__metatable = "read-only setup data"
  frozen[p] = inner
  return p
end

-- The data of text (JSON, as encode makes it) rebuilt read-only; nil for
-- nil. source names the text in errors ("setup()", "--setup-data x.json").
function setup_data.decode(text, source)
  if text == nil then return nil end
  local v, err = json.decode(text)
  if v == nil then error(format("%s: %s", source, err), 0) end
  if v == json.null then return nil end -- setup returned nothing (--setup-only writes null)
  return freeze(v, "", source)
end

-- Wraps the global pairs and ipairs (once per state) so that they walk a
-- frozen table's contents; any other value goes to the originals.
function setup_data.install_iterators()
  if rawget(_G, "pairs") ~= pairs then return end -- done, or the script has its own
  _G.pairs = function(t)
    local inner = frozen[t]
    if inner then return next, inner, nil end
    return pairs(t)
  end
  _G.ipairs = function(t)
    local inner = frozen[t]
    if inner then return ipairs(inner) end
    return ipairs(t)
  end
end

-- A copy of a frozen value that the script may change (plain tables).
function setup_data.copy(v)
  local inner = frozen[v]
  if not inner then return v end
  local t = {}
  for k, x in next, inner do t[k] = setup_data.copy(x) end
  return t
end

return setup_data
