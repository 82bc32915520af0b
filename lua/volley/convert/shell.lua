-- A POSIX shell command line split into words as sh would (no expansion):
-- 'single' quotes, "double" quotes (backslash escapes $ ` " \ and a line
-- end there), bash's $'...' (C escapes), backslash outside quotes, and a
-- backslash before a line end joining lines. For `volley convert --curl`,
-- which takes a command copied from a browser's devtools or a terminal.
local shell = {}

local byte, char, sub, find = string.byte, string.char, string.sub, string.find
local concat = table.concat

local ansi = { a = "\a", b = "\b", e = "\27", E = "\27", f = "\f", n = "\n", r = "\r", t = "\t", v = "\v",
  ["\\"] = "\\", ["'"] = "'", ['"'] = '"', ["?"] = "?" }

-- The byte sequence of code point cp in UTF-8.
local function utf8(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then return char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
    0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

-- $'...' from i (just after the opening quote): the text and the index
-- after the closing quote, or nil when it does not close.
local function dollar_single(s, i)
  local out = {}
  while i <= #s do
    local c = sub(s, i, i)
    if c == "'" then return concat(out), i + 1 end
    if c == "\\" then
      local e = sub(s, i + 1, i + 1)
      if ansi[e] then
        out[#out + 1] = ansi[e]; i = i + 2
      elseif e == "x" then
        local h = s:match("^%x%x?", i + 2) or ""
        out[#out + 1] = h ~= "" and char(tonumber(h, 16)) or "\\x"; i = i + 2 + #h
      elseif e == "u" or e == "U" then
        local h = s:match(e == "u" and "^%x%x?%x?%x?" or "^%x%x?%x?%x?%x?%x?%x?%x?", i + 2) or ""
        out[#out + 1] = h ~= "" and utf8(tonumber(h, 16)) or "\\" .. e; i = i + 2 + #h
      elseif e:match("[0-7]") then
        local o = s:match("^[0-7][0-7]?[0-7]?", i + 1)
        out[#out + 1] = char(tonumber(o, 8) % 256); i = i + 1 + #o
      elseif e == "c" and i + 2 <= #s then
        out[#out + 1] = char(byte(s, i + 2) % 32); i = i + 3
      else
        out[#out + 1] = "\\" .. e; i = i + 2
      end
    else
      out[#out + 1] = c; i = i + 1
    end
  end
  return nil
end

-- The words of s, or nil and a message naming what does not close.
function shell.split(s)
  local words, cur, inword = {}, {}, false
  local i, n = 1, #s
  local function finish()
    if inword then words[#words + 1] = concat(cur) end
    cur, inword = {}, false
  end
  while i <= n do
    local c = sub(s, i, i)
    if c == " " or c == "\t" or c == "\n" or c == "\r" then
      finish(); i = i + 1
    elseif c == "\\" then
      local nx = sub(s, i + 1, i + 1)
      if nx == "\n" then
        i = i + 2                                   -- a line joined: no word break
      elseif nx == "\r" and sub(s, i + 2, i + 2) == "\n" then
        i = i + 3                                   -- the same, with a CRLF line end
      elseif nx == "" then
        return nil, "the command ends in a backslash"
      else
        cur[#cur + 1] = nx; inword = true; i = i + 2
      end
    elseif c == "'" then
      local e = find(s, "'", i + 1, true)
      if not e then return nil, "a single quote (') does not close" end
      cur[#cur + 1] = sub(s, i + 1, e - 1); inword = true; i = e + 1
    elseif c == "$" and sub(s, i + 1, i + 1) == "'" then
      local text, nexti = dollar_single(s, i + 2)
      if not text then return nil, "a $'...' quote does not close" end
      cur[#cur + 1] = text; inword = true; i = nexti
    elseif c == '"' then
      i = i + 1
      local closed = false
      while i <= n do
        local d = sub(s, i, i)
        if d == '"' then closed = true; i = i + 1; break end
        if d == "\\" then
          local nx = sub(s, i + 1, i + 1)
          if nx == "\n" then
            i = i + 2
          elseif nx == "$" or nx == "`" or nx == '"' or nx == "\\" then
            cur[#cur + 1] = nx; i = i + 2
          else
            cur[#cur + 1] = "\\"; i = i + 1
          end
        else
          cur[#cur + 1] = d; i = i + 1
        end
      end
      if not closed then return nil, 'a double quote (") does not close' end
      inword = true
    else
      cur[#cur + 1] = c; inword = true; i = i + 1
    end
  end
  finish()
  return words
end

return shell
