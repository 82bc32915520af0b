-- Lua source text for `volley convert`'s output: strings as double-quoted
-- literals that read back byte for byte, table keys, and a request's
-- options table on one line or several. Strings in, strings out.
local luatext = {}

local byte, format, gsub, match = string.byte, string.format, string.gsub, string.match
local concat = table.concat

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

-- s as a Lua string literal: printable ASCII and UTF-8 as they are,
-- quotes, backslashes and line ends escaped, other control bytes (and
-- DEL) as \ddd with three digits, so that a digit after one reads right.
function luatext.quote(s)
  return '"' .. gsub(s, '[%c"\\\127]', function(c)
    return escapes[c] or format("\\%03d", byte(c))
  end) .. '"'
end

-- s made safe inside a -- comment: control bytes (a line end, and \r,
-- which Lua also reads as one, would end the comment) as blanks.
function luatext.comment(s)
  return (gsub(s, "%c", " "))
end

local keywords = {}
for w in ("and break do else elseif end false for function if in local nil not or repeat return then true until while")
    :gmatch("%a+") do
  keywords[w] = true
end

-- k as a table key: a bare name when it is one, else ["k"].
function luatext.key(k)
  if match(k, "^[%a_][%w_]*$") and not keywords[k] then return k end
  return "[" .. luatext.quote(k) .. "]"
end

-- A list of { name, value } pairs as a table constructor, in their order:
-- { ["Accept"] = "text/html", ... }. Later pairs of the same name are the
-- caller's to merge (a Lua table holds one value a key).
-- With indent (the indent of the line the table starts on), a table
-- longer than 100 characters there is one pair a line.
function luatext.pairs_table(list, indent)
  local parts = {}
  for i, kv in ipairs(list) do parts[i] = luatext.key(kv[1]) .. " = " .. luatext.quote(kv[2]) end
  local one = "{ " .. concat(parts, ", ") .. " }"
  if not indent or #one + #indent + 12 <= 100 then return one end
  return "{\n" .. indent .. "  " .. concat(parts, ",\n" .. indent .. "  ") .. ",\n" .. indent .. "}"
end

-- An options table from fields, a list of { key, text } (text already Lua
-- source), with indent as the closing brace's indent. Short ones (up to
-- width characters) on one line, others one field a line.
function luatext.fields(fields, indent, width)
  local parts = {}
  for i, f in ipairs(fields) do parts[i] = f[1] .. " = " .. f[2] end
  local one = "{ " .. concat(parts, ", ") .. " }"
  if #one + #indent <= (width or 100) then return one end
  return "{\n" .. indent .. "  " .. concat(parts, ",\n" .. indent .. "  ") .. ",\n" .. indent .. "}"
end

return luatext
