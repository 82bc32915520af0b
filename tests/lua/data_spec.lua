-- lua/volley/data.lua: options and their errors (at the caller's line),
-- data objects and row objects, and the row take() picks in each mode.
-- C (src/script/data.c, tested by tests/unit/test_data.c) is replaced by a fake
-- of its struct volley_api entries over tables of rows.
package.path = "lua/?.lua;" .. package.path
local ffi = require("ffi")
local api = require("volley.api")
local data = require("volley.data")

-- Files the fake "reads": path -> { fields = {...} or nil, rows = {...} }
-- (a csv row is an array of cells, a lines row a string), or an error.
local files = {}
local opened = {} -- what data_open was asked: { path, kind, sep }

local function distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      d[i][j] = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
    end
  end
  return d[#a][#b]
end

local fake = {
  data_open = function(path, kind, sep, err, errlen)
    opened[#opened + 1] = { path, kind, sep }
    local f = files[path]
    if type(f) == "string" then
      ffi.copy(err, f)
      return nil
    end
    f.next = f.next or 0
    return f
  end,
  data_rows = function(h) return #h.rows end,
  data_fields = function(h) return h.fields and #h.fields or 1 end,
  data_field_name = function(h, i, len)
    local s = h.fields[i + 1]
    len[0] = #s
    return s
  end,
  data_cell = function(h, row, col, len)
    local r = h.rows[row + 1]
    local s = type(r) == "table" and r[col + 1] or r
    len[0] = #s
    return s
  end,
  data_iteration_row = function(h, shard, shards)
    local j = h.next
    h.next = j + 1
    return (j * shards + shard) % #h.rows
  end,
  nearest_in_list = function(word, list, buf, len)
    local best, bd = "", 3
    for name in list:gmatch("%S+") do
      local dd = distance(word, name)
      if dd < bd then best, bd = name, dd end
    end
    ffi.copy(buf, best)
    return buf
  end,
}

local function raises(pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  assert.is_false(ok)
  if not tostring(err):find(pattern) then
    error(("expected an error matching %q, got %q"):format(pattern, tostring(err)), 2)
  end
end

describe("volley.data", function()
  local saved_volley
  before_each(function()
    api.c = fake
    saved_volley = rawget(_G, "volley")
    _G.volley = nil
    files = {
      ["users.csv"] = { fields = { "id", "user" }, rows = { { "1", "ann" }, { "2", "b,ob" }, { "3", "cy" } } },
      ["ids.txt"] = { rows = { "a", "b", "c", "d", "e", "f" } },
      ["bad.csv"] = "bad.csv:7: 2 fields where the header has 3",
    }
    opened = {}
  end)
  after_each(function()
    api.c = nil
    _G.volley = saved_volley
  end)

  it("opens a csv file with the default options", function()
    local d = data.csv("users.csv")
    assert.are.same({ "users.csv", 0, 44 }, opened[1])
    assert.are.equal(3, #d)
    assert.are.equal(3, d:count())
    assert.are.same({ "id", "user" }, d.fields)
    assert.are.equal("users.csv", d.path)
    assert.are.equal("per_user", d.mode)
    assert.are.equal("data users.csv (csv, 3 rows, per_user)", tostring(d))
  end)

  it("passes the separator as a byte, and a lines file's kind", function()
    data.csv("users.csv", { separator = ";" })
    assert.are.same({ "users.csv", 0, 59 }, opened[1])
    data.csv("users.csv", { separator = "\t" })
    assert.are.equal(9, opened[2][3])
    local l = data.lines("ids.txt")
    assert.are.equal(1, opened[3][2])
    assert.is_nil(l.fields)
  end)

  it("reads a row's fields by name and by column, as strings", function()
    local r = data.csv("users.csv"):row(2)
    assert.are.equal("2", r.id)
    assert.are.equal("b,ob", r.user)
    assert.are.equal("b,ob", r[2])
    assert.are.equal("row 2 of users.csv", tostring(r))
  end)

  it("refuses unknown fields, columns out of range and assignments", function()
    local d = data.csv("users.csv")
    local r = d:row(1)
    raises('users.csv: no field "usr" %(did you mean "user"%?%)', function() return r.usr end)
    raises('users.csv: no field "zzzzzz" %(its fields are id and user%)', function() return r.zzzzzz end)
    raises("users.csv: row%[3%]: the rows have fields 1 to 2", function() return r[3] end)
    raises("users.csv: row%[0%]", function() return r[0] end)
    raises('users.csv: a row is read%-only %(it was assigned "user"%)', function() r.user = "x" end)
    raises('users.csv: a data object is read%-only %(it was assigned "mode"%)', function() d.mode = "random" end)
    raises('users.csv: a data object has no "rows"', function() return d.rows end)
    assert.is_false(pcall(setmetatable, r, nil))
  end)

  it("gives rows 1 to n and nothing else", function()
    local d = data.csv("users.csv")
    raises("users.csv: row%(0%): the rows are 1 to 3", d.row, d, 0)
    raises("users.csv: row%(4%): the rows are 1 to 3", d.row, d, 4)
    raises("users.csv: row%(1.5%)", d.row, d, 1.5)
    raises("users.csv: row%(x%)", d.row, d, "x")
    assert.are.equal("f", data.lines("ids.txt"):row(6))
  end)

  it("keeps one row object per row while it is in use", function()
    local d = data.csv("users.csv")
    local r = d:row(1)
    assert.are.equal(r, d:row(1))
    assert.are.equal(r, d:take(1))
    assert.are_not.equal(r, d:row(2))
  end)

  it("per_user: user k takes row k, wrapping, on every iteration", function()
    local d = data.lines("ids.txt")
    local got = {}
    for u = 1, 8 do got[u] = d:take(u) end
    assert.are.same({ "a", "b", "c", "d", "e", "f", "a", "b" }, got)
    assert.are.equal("c", d:take(3))
    assert.are.equal("ann", data.csv("users.csv"):take(4).user)
    for _, bad in ipairs({ 0, -1, 1.5 }) do
      raises("ids.txt: take%(" .. tostring(bad):gsub("%p", "%%%0") .. "%): per_user needs the user's id", d.take, d, bad)
    end
    raises("ids.txt: take%(nil%)", d.take, d)
  end)

  it("per_iteration: the process's counter, by the shard rule, read at take() time", function()
    local d = data.lines("ids.txt", { mode = "per_iteration" })
    -- No volley table yet: shard 0 of 1.
    assert.are.equal("a", d:take(0))
    assert.are.equal("b", d:take(0))
    _G.volley = { shard = { index = 1, count = 3 } }
    -- Iterations 2, 3: the run's iterations 2 * 3 + 1 = 7 and 10, rows 2 and 5.
    assert.are.equal("b", d:take(0))
    assert.are.equal("e", d:take(99))
    -- Another object of the same file shares the counter (the same load).
    local e = data.lines("ids.txt", { mode = "per_iteration" })
    assert.are.equal("b", e:take()) -- iteration 4: 13 % 6 = 1
  end)

  it("random: math.random's rows, replayed by its seed", function()
    local d = data.lines("ids.txt", { mode = "random" })
    local function draws()
      local t = {}
      for i = 1, 30 do t[i] = d:take() end
      return table.concat(t)
    end
    math.randomseed(5)
    local a = draws()
    math.randomseed(5)
    assert.are.equal(a, draws())
    math.randomseed(6)
    assert.are_not.equal(a, draws())
    assert.truthy(a:find("^[a-f]+$"))
  end)

  it("checks the options, naming the nearest one", function()
    raises('volley.data.csv: unknown option "mdoe" %(did you mean "mode"%?%)', data.csv, "users.csv", { mdoe = 1 })
    raises('volley.data.csv: unknown option "zzzzzzz" %(the options are mode and separator%)', data.csv,
      "users.csv", { zzzzzzz = 1 })
    raises('volley.data.lines: unknown option "zzzzzzz" %(the option is mode%)', data.lines, "ids.txt",
      { zzzzzzz = 1 })
    raises("volley.data.lines: separator is an option of volley.data.csv only", data.lines, "ids.txt",
      { separator = ";" })
    raises('volley.data.csv: mode "per%-user" is not a mode %(did you mean "per_user"%?%)', data.csv,
      "users.csv", { mode = "per-user" })
    raises("volley.data.csv: mode 3 is not a mode %(the modes are per_user, per_iteration and random%)",
      data.csv, "users.csv", { mode = 3 })
    raises('volley.data.csv: the separator must be one byte other than a quote, CR, LF or NUL, not ";;"',
      data.csv, "users.csv", { separator = ";;" })
    raises('not "\\""', data.csv, "users.csv", { separator = '"' })
    raises("not a number", data.csv, "users.csv", { separator = 44 })
    raises("volley.data.csv: the options must be a table, not a string", data.csv, "users.csv", "random")
    raises("volley.data.csv: the path must be a non%-empty string without NUL, not a nil", data.csv)
    raises('volley.data.lines: the path must be a non%-empty string without NUL, not ""', data.lines, "")
    assert.are.equal(0, #opened) -- nothing was opened for a bad call
  end)

  it("raises at the caller's line, with the data file's own", function()
    local ok, err = pcall(function() data.csv("bad.csv") end)
    assert.is_false(ok)
    assert.truthy(err:find("^[^:]*data_spec%.lua:%d+: volley%.data%.csv: bad%.csv:7: 2 fields where the header has 3$"), err)
    ok, err = pcall(function() data.csv("users.csv", { mode = "x" }) end)
    assert.truthy(err:find("^[^:]*data_spec%.lua:%d+: volley%.data%.csv: mode"), err)
    local d = data.csv("users.csv")
    ok, err = pcall(function() local r = d:take(0); return r end) -- not a tail call, which has no caller's line
    assert.truthy(err:find("^[^:]*data_spec%.lua:%d+: users%.csv: take%(0%)"), err)
    ok, err = pcall(function() return d:row(1).nope end)
    assert.truthy(err:find('^[^:]*data_spec%.lua:%d+: users%.csv: no field "nope"'), err)
  end)

  it("tells data objects from anything else", function()
    local d = data.csv("users.csv")
    assert.is_true(data.is(d))
    assert.is_true(data.is(data.lines("ids.txt")))
    assert.is_false(data.is({}))
    assert.is_false(data.is(nil))
    assert.is_false(data.is(d:row(1)))
    assert.is_false(data.is(newproxy(true)))
  end)
end)
