-- volley.data: data files for scripts (CSV with a header row, or a row per
-- line). C (src/script/data.c) reads and parses each file once per process and
-- every Lua state shares that copy; this side makes a Lua string only when
-- a script reads a field, and picks the row of an iteration by the mode.
local ffi = require("ffi")
local api = require("volley.api")

local data = {}

local KINDS = { csv = 0, lines = 1 }
local OPTIONS = { csv = { mode = true, separator = true }, lines = { mode = true } }
local OPTION_NAMES = { csv = "mode separator", lines = "mode" }
local MODE_NAMES = "per_user per_iteration random"

local lenbuf = ffi.new("size_t[1]")
local errbuf = ffi.new("char[512]")

-- The data objects of this state (weak: an object a script dropped goes).
local objects = setmetatable({}, { __mode = "k" })

local function cell(h, row, col)
  local p = api.c.data_cell(h, row, col, lenbuf)
  return ffi.string(p, lenbuf[0])
end

-- A list of names for a message: "a, b and c", the first 8 of them.
local function list(names)
  local n = #names
  local shown = {}
  for i = 1, math.min(n, 8) do shown[i] = names[i] end
  if n > 8 then return table.concat(shown, ", ") .. ", ... (" .. n .. " in all)" end
  if n == 1 then return shown[1] end
  return table.concat(shown, ", ", 1, n - 1) .. " and " .. shown[n]
end

-- " (did you mean "x"?)" for a word near one of names (a space-separated
-- list, at most 32), else " (" .. otherwise .. ")".
local function suggest(word, names, otherwise)
  local near = type(word) == "string" and api.nearest(word, names)
  if near then return (' (did you mean "%s"?)'):format(near) end
  return " (" .. otherwise .. ")"
end

local function quoted(k)
  return type(k) == "string" and ('"%s"'):format(k) or tostring(k)
end

-- The mode and separator byte of opts, checked for fn (errors at level, as
-- error's, from check_options' caller).
local function check_options(fn, kind, opts, level)
  level = level + 1
  if opts == nil then return "per_user", 44 end
  if type(opts) ~= "table" then
    error(("%s: the options must be a table, not a %s"):format(fn, type(opts)), level)
  end
  for k in pairs(opts) do
    if not OPTIONS[kind][k] then
      if kind == "lines" and k == "separator" then
        error(("%s: separator is an option of volley.data.csv only (a lines file has one field)"):format(fn), level)
      end
      error(("%s: unknown option %s%s"):format(fn, quoted(k),
        suggest(k, OPTION_NAMES[kind], kind == "csv" and "the options are mode and separator" or "the option is mode")),
        level)
    end
  end
  local mode = opts.mode
  if mode == nil then
    mode = "per_user"
  elseif type(mode) ~= "string" or not (" " .. MODE_NAMES .. " "):find(" " .. mode .. " ", 1, true) then
    error(("%s: mode %s is not a mode%s"):format(fn, quoted(mode),
      suggest(mode, MODE_NAMES, "the modes are per_user, per_iteration and random")), level)
  end
  local sep = opts.separator
  if sep == nil then return mode, 44 end
  if type(sep) ~= "string" or #sep ~= 1 or sep:find('["\r\n%z]') then
    error(("%s: the separator must be one byte other than a quote, CR, LF or NUL, not %s"):format(fn,
      type(sep) == "string" and ("%q"):format(sep):gsub("\\\n", "\\n") or "a " .. type(sep)), level)
  end
  return mode, sep:byte()
end

-- Row objects of a csv file (one metatable per data object): row.name and
-- row[col] read a field, as a new string; nothing can be assigned.
local function row_maker(h, path, names, nrows)
  local cols = {}
  for i, name in ipairs(names) do cols[name] = i - 1 end
  local nfields = #names
  local name_list = table.concat(names, " ")
  local index = setmetatable({}, { __mode = "k" }) -- row object -> row (0-based)
  local mt = {
    __index = function(r, k)
      local col = cols[k]
      if col == nil and type(k) == "number" and k >= 1 and k <= nfields and k % 1 == 0 then col = k - 1 end
      if col == nil then
        if type(k) == "number" then
          error(("%s: row[%s]: the rows have fields 1 to %d"):format(path, tostring(k), nfields), 2)
        end
        error(("%s: no field %s%s"):format(path, quoted(k), suggest(k, name_list, "its fields are " .. list(names))), 2)
      end
      return cell(h, index[r], col)
    end,
    __newindex = function(_, k)
      error(("%s: a row is read-only (it was assigned %s)"):format(path, quoted(k)), 2)
    end,
    __tostring = function(r) return ("row %d of %s"):format(index[r] + 1, path) end,
    __metatable = false,
  }
  -- Made at a row's first use in this state and kept while it is used.
  local cache = setmetatable({}, { __mode = "v" })
  return function(i)
    local r = cache[i]
    if r then return r end
    r = setmetatable({}, mt)
    index[r] = i - 1
    cache[i] = r
    return r
  end
end

-- volley.shard as it is when a row is taken: set in every state before
-- the chunk runs, but read late so that a state that sets it afterwards
-- (or none, in a spec) still gets its part.
local function shard()
  local v = rawget(_G, "volley")
  local s = v and v.shard
  if s then return s.index, s.count end
  return 0, 1
end

-- The function that picks a row (1-based) for take(self, user_id).
local function picker(mode, h, n, path)
  if mode == "per_user" then
    return function(user_id)
      if type(user_id) ~= "number" or user_id < 1 or user_id % 1 ~= 0 then
        error(("%s: take(%s): per_user needs the user's id (an integer from 1)"):format(path, tostring(user_id)), 3)
      end
      return (user_id - 1) % n + 1
    end
  elseif mode == "per_iteration" then
    return function()
      local index, count = shard()
      return api.c.data_iteration_row(h, index, count) + 1
    end
  end
  return function() return math.random(n) end
end

local function open(fn, kind, path, opts)
  if type(path) ~= "string" or path == "" or path:find("\0", 1, true) then
    error(("%s: the path must be a non-empty string without NUL, not %s"):format(fn,
      type(path) == "string" and ("%q"):format(path) or "a " .. type(path)), 3)
  end
  local mode, sep = check_options(fn, kind, opts, 3)
  local h = api.c.data_open(path, KINDS[kind], sep, errbuf, ffi.sizeof(errbuf))
  if h == nil then error(fn .. ": " .. ffi.string(errbuf), 3) end
  local n = api.c.data_rows(h)

  local fields, row
  if kind == "csv" then
    fields = {}
    for i = 1, api.c.data_fields(h) do
      local p = api.c.data_field_name(h, i - 1, lenbuf)
      fields[i] = ffi.string(p, lenbuf[0])
    end
    row = row_maker(h, path, fields, n)
  else
    row = function(i) return cell(h, i - 1, 0) end
  end
  local pick = picker(mode, h, n, path)

  local d = newproxy(true)
  local methods = {
    fields = fields,
    path = path,
    mode = mode,
    count = function() return n end,
    -- Row i (1-based): a csv row object, or a lines file's line.
    row = function(_, i)
      if type(i) ~= "number" or i < 1 or i > n or i % 1 ~= 0 then
        error(("%s: row(%s): the rows are 1 to %d"):format(path, tostring(i), n), 2)
      end
      return row(i)
    end,
    -- The row of user_id's next iteration, by the mode.
    take = function(_, user_id) return row(pick(user_id)) end,
  }
  local mt = getmetatable(d)
  mt.__index = function(_, k)
    local v = methods[k]
    if v == nil and k ~= "fields" then
      error(("%s: a data object has no %s (it has count, row, take, fields, path and mode)"):format(path, quoted(k)), 2)
    end
    return v
  end
  mt.__newindex = function(_, k)
    error(("%s: a data object is read-only (it was assigned %s)"):format(path, quoted(k)), 2)
  end
  mt.__len = function() return n end
  mt.__tostring = function() return ("data %s (%s, %d rows, %s)"):format(path, kind, n, mode) end
  mt.__metatable = false
  objects[d] = true
  return d
end

-- volley.data.csv(path [, opts]): a CSV file whose first row names the
-- fields. opts.mode: "per_user" (default), "per_iteration" or "random";
-- opts.separator: one byte (default ",").
function data.csv(path, opts)
  local d = open("volley.data.csv", "csv", path, opts)
  return d
end

-- volley.data.lines(path [, opts]): a file of one row per line; opts.mode
-- as csv's.
function data.lines(path, opts)
  local d = open("volley.data.lines", "lines", path, opts)
  return d
end

-- Whether x is a data object (of this state).
function data.is(x)
  return objects[x] == true
end

return data
