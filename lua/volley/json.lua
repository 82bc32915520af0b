-- A small, strict JSON decoder (RFC 8259) and a simple encoder, in plain
-- Lua 5.1 / LuaJIT, for scripts that check response bodies. Objects and
-- arrays become plain tables (arrays indexed 1..n); JSON null becomes
-- json.null so that arrays keep their length and objects their keys.
local json = {}

local byte, char, find, sub = string.byte, string.char, string.find, string.sub
local concat, tonumber, tostring = table.concat, tonumber, tostring
local floor = math.floor

-- Stands for JSON null in decoded values; encode() writes it as null.
json.null = setmetatable({}, {
  __tostring = function() return "json.null" end,
  __newindex = function() error("json.null is read-only", 2) end,
})

-- Deeper documents are refused rather than risk a Lua stack overflow.
json.max_depth = 512

local B_QUOTE, B_BACKSLASH, B_MINUS = 34, 92, 45
local B_LBRACE, B_RBRACE, B_LBRACKET, B_RBRACKET = 123, 125, 91, 93
local B_COMMA, B_COLON = 44, 58

-- A decode error unwinds with this table; decode() turns it into nil, msg.
local function fail(pos, what)
  error({ pos = pos, what = what }, 0)
end

-- Index of the first byte at or after pos that is not JSON whitespace.
-- Byte loops like this one are compiled by LuaJIT; its pattern matching is
-- not, and is slower even on long runs.
local function skip(s, pos)
  local b = byte(s, pos)
  while b == 32 or b == 10 or b == 13 or b == 9 do
    pos = pos + 1
    b = byte(s, pos)
  end
  return pos
end

-- Index of the first byte at or after pos that is not a digit.
local function digits(s, pos)
  local b = byte(s, pos)
  while b and b >= 48 and b <= 57 do
    pos = pos + 1
    b = byte(s, pos)
  end
  return pos
end

local escapes = {
  [34] = '"', [92] = "\\", [47] = "/",
  [98] = "\b", [102] = "\f", [110] = "\n", [114] = "\r", [116] = "\t",
}

local function utf8(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then
    return char(0xC0 + floor(cp / 0x40), 0x80 + cp % 0x40)
  end
  if cp < 0x10000 then
    return char(0xE0 + floor(cp / 0x1000), 0x80 + floor(cp / 0x40) % 0x40,
                0x80 + cp % 0x40)
  end
  return char(0xF0 + floor(cp / 0x40000), 0x80 + floor(cp / 0x1000) % 0x40,
              0x80 + floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end

-- The 4 hex digits of a \u escape whose backslash is at pos.
local function hex4(s, pos)
  if not find(s, "^%x%x%x%x", pos + 2) then
    fail(pos, "invalid \\u escape")
  end
  return tonumber(sub(s, pos + 2, pos + 5), 16)
end

-- A string whose opening quote is at pos: returns the string and the index
-- after the closing quote. Runs without escapes are copied with one sub().
local function decode_string(s, pos)
  local i = pos + 1
  local parts, n = nil, 0
  while true do
    local j, b = i, byte(s, i)
    while b and b ~= B_QUOTE and b ~= B_BACKSLASH and b >= 32 do
      j = j + 1
      b = byte(s, j)
    end
    if not b then fail(#s + 1, "unterminated string") end
    if b == B_QUOTE then
      if not parts then return sub(s, i, j - 1), j + 1 end
      n = n + 1; parts[n] = sub(s, i, j - 1)
      return concat(parts, "", 1, n), j + 1
    end
    if b ~= B_BACKSLASH then fail(j, "control character in string") end
    parts = parts or {}
    n = n + 1; parts[n] = sub(s, i, j - 1)
    local e = byte(s, j + 1)
    local plain = escapes[e]
    if plain then
      n = n + 1; parts[n] = plain
      i = j + 2
    elseif e == 117 then -- u
      local cp = hex4(s, j)
      i = j + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        if not find(s, "^\\u", i) then fail(j, "unpaired surrogate") end
        local lo = hex4(s, i)
        if lo < 0xDC00 or lo > 0xDFFF then fail(j, "unpaired surrogate") end
        cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
        i = i + 6
      elseif cp >= 0xDC00 and cp <= 0xDFFF then
        fail(j, "unpaired surrogate")
      end
      n = n + 1; parts[n] = utf8(cp)
    elseif e == nil then
      fail(#s + 1, "unterminated string")
    else
      fail(j, "invalid escape")
    end
  end
end

-- A number starting at pos (a '-' or a digit), in JSON's grammar:
-- -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
local function decode_number(s, pos)
  local i = pos
  if byte(s, i) == B_MINUS then i = i + 1 end
  local b = byte(s, i)
  if b == 48 then -- '0'
    i = i + 1
    b = byte(s, i)
    if b and b >= 48 and b <= 57 then fail(i, "leading zero in number") end
  else
    local e = digits(s, i)
    if e == i then fail(i, "expected a digit") end
    i = e
    b = byte(s, i)
  end
  if b == 46 then -- '.'
    local e = digits(s, i + 1)
    if e == i + 1 then fail(e, "expected a digit") end
    i = e
    b = byte(s, i)
  end
  if b == 101 or b == 69 then -- 'e' 'E'
    i = i + 1
    b = byte(s, i)
    if b == 43 or b == 45 then i = i + 1 end -- '+' '-'
    local e = digits(s, i)
    if e == i then fail(i, "expected a digit") end
    i = e
  end
  return tonumber(sub(s, pos, i - 1)), i
end

local decode_value

local function decode_array(s, pos, depth)
  local t, n = {}, 0
  pos = skip(s, pos + 1)
  if byte(s, pos) == B_RBRACKET then return t, pos + 1 end
  while true do
    local v
    v, pos = decode_value(s, pos, depth)
    n = n + 1; t[n] = v
    pos = skip(s, pos)
    local b = byte(s, pos)
    if b == B_RBRACKET then return t, pos + 1 end
    if b ~= B_COMMA then fail(pos, "expected ',' or ']'") end
    pos = skip(s, pos + 1)
  end
end

local function decode_object(s, pos, depth)
  local t = {}
  pos = skip(s, pos + 1)
  if byte(s, pos) == B_RBRACE then return t, pos + 1 end
  while true do
    if byte(s, pos) ~= B_QUOTE then fail(pos, "expected a string key") end
    local k, v
    k, pos = decode_string(s, pos)
    pos = skip(s, pos)
    if byte(s, pos) ~= B_COLON then fail(pos, "expected ':'") end
    v, pos = decode_value(s, skip(s, pos + 1), depth)
    t[k] = v
    pos = skip(s, pos)
    local b = byte(s, pos)
    if b == B_RBRACE then return t, pos + 1 end
    if b ~= B_COMMA then fail(pos, "expected ',' or '}'") end
    pos = skip(s, pos + 1)
  end
end

local literals = { t = "true", f = "false", n = "null" }
local literal_values = { t = true, f = false, n = json.null }

-- The value at pos (whitespace already skipped): returns it and the index
-- after it.
function decode_value(s, pos, depth)
  local b = byte(s, pos)
  if b == B_QUOTE then return decode_string(s, pos) end
  if b == B_LBRACE or b == B_LBRACKET then
    if depth >= json.max_depth then fail(pos, "nested too deeply") end
    if b == B_LBRACE then return decode_object(s, pos, depth + 1) end
    return decode_array(s, pos, depth + 1)
  end
  if b == B_MINUS or (b and b >= 48 and b <= 57) then
    return decode_number(s, pos)
  end
  if b == nil then fail(pos, "unexpected end of input") end
  local c = char(b)
  local word = literals[c]
  if word and sub(s, pos, pos + #word - 1) == word then
    return literal_values[c], pos + #word
  end
  fail(pos, "expected a value")
end

local function decode_text(s)
  local value, pos = decode_value(s, skip(s, 1), 0)
  pos = skip(s, pos)
  if pos <= #s then fail(pos, "expected the end of input") end
  return value
end

-- Decodes the JSON text s (one value, optionally surrounded by whitespace).
-- Returns the value, or nil and a message such as
-- "invalid JSON at byte 17: expected ',' or '}'" (bytes count from 1; at
-- the end of the input the byte is #s + 1 and the message says so). Strings
-- are not checked to be valid UTF-8. A non-string s is the caller's bug: an
-- error is raised.
function json.decode(s)
  if type(s) ~= "string" then
    error("json.decode: expected a string, got " .. type(s), 2)
  end
  local ok, v = pcall(decode_text, s)
  if ok then return v end
  if type(v) ~= "table" then error(v, 0) end
  local what = v.what
  if v.pos > #s and what ~= "unexpected end of input"
      and what ~= "unterminated string" then
    what = "unexpected end of input, " .. what
  end
  return nil, ("invalid JSON at byte %d: %s"):format(v.pos, what)
end

-- Encoding: for simple data (tables of strings, numbers, booleans).

local escaped = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}
local function escape_char(c)
  return escaped[c] or ("\\u%04x"):format(byte(c))
end

local function encode_string(s)
  return '"' .. s:gsub('[%z\1-\31"\\]', escape_char) .. '"'
end

local function encode_number(x)
  if x ~= x then fail(nil, "cannot encode NaN") end
  if x == math.huge or x == -math.huge then
    fail(nil, "cannot encode " .. (x > 0 and "inf" or "-inf"))
  end
  if x == floor(x) and x >= -2^53 and x <= 2^53 then
    return ("%d"):format(x)
  end
  local s = ("%.14g"):format(x)
  if tonumber(s) ~= x then s = ("%.17g"):format(x) end
  return s
end

-- A table is an array when its keys are exactly 1..n with n >= 1.
local function array_length(t)
  local n = #t
  if n == 0 then return nil end
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  if count == n then return n end
  return nil
end
json.array_length = array_length -- volley.setup_data's lists too

local encode_value

local function encode_table(t, out, seen)
  if seen[t] then fail(nil, "cannot encode a table that contains itself") end
  seen[t] = true
  local n = array_length(t)
  if n then
    out[#out + 1] = "["
    for i = 1, n do
      if i > 1 then out[#out + 1] = "," end
      encode_value(t[i], out, seen)
    end
    out[#out + 1] = "]"
  else
    local keys = {}
    for k in pairs(t) do
      if type(k) ~= "string" then
        fail(nil, "cannot encode a " .. type(k) .. " key")
      end
      keys[#keys + 1] = k
    end
    table.sort(keys) -- the same table always encodes to the same text
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = encode_string(k)
      out[#out + 1] = ":"
      encode_value(t[k], out, seen)
    end
    out[#out + 1] = "}"
  end
  seen[t] = nil
end

function encode_value(v, out, seen)
  local t = type(v)
  if v == nil or v == json.null then
    out[#out + 1] = "null"
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "number" then
    out[#out + 1] = encode_number(v)
  elseif t == "string" then
    out[#out + 1] = encode_string(v)
  elseif t == "table" then
    encode_table(v, out, seen)
  else
    fail(nil, "cannot encode a " .. t)
  end
end

-- Encodes v as JSON text. Tables with keys 1..n become arrays, other
-- tables objects (string keys only, written in sorted order); an empty
-- table is {}. nil and json.null are null. Returns the text, or nil and a
-- message for what JSON cannot hold (functions, NaN, non-string keys,
-- cycles).
function json.encode(v)
  local out = {}
  local ok, err = pcall(encode_value, v, out, {})
  if ok then return concat(out) end
  if type(err) ~= "table" then error(err, 0) end
  return nil, "json.encode: " .. err.what
end

return json
