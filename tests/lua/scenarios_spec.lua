-- lua/volley/scenarios.lua: a script's scenarios list checked as it loads:
-- the list form, each entry's fields (the nearest name for a misspelt one),
-- a name used twice, a flow beside the list, and the load's combinations.
package.path = "lua/?.lua;" .. package.path
local scenarios = require("volley.scenarios")

-- api.nearest's stand-in: the one name of the list that is a letter swap
-- or one letter off word (enough for these specs).
local function nearest(word, list)
  for name in list:gmatch("%S+") do
    if #name == #word then
      local diff = 0
      for i = 1, #name do if name:sub(i, i) ~= word:sub(i, i) then diff = diff + 1 end end
      if diff <= 2 then return name end
    end
  end
end

local function f(u) end

local function err_of(t)
  local ok, e = pcall(scenarios.check, t, nearest)
  assert.is_false(ok)
  return e
end

describe("scenarios.check", function()
  it("gives nil for a script of one scenario", function()
    assert.is_nil(scenarios.check({ user = f }, nearest))
  end)

  it("gives the list back when it is right", function()
    local list = {
      { name = "browse", weight = 3, user = f },
      { name = "buy", rate = 20, max_users = 5, start = "30s", duration = 60, user = f },
      { name = "ramp", stages = "10s:5,10s:0", user = f },
      { name = "some", users = 2, iterations = 10, user = f, data = {} },
    }
    assert.are.equal(list, scenarios.check({ scenarios = list }, nearest))
  end)

  it("refuses a name used twice, naming both places", function()
    assert.are.equal('scenario "a": the name is used twice (scenarios[1] and scenarios[3])', err_of({ scenarios = {
      { name = "a", users = 1, user = f }, { name = "b", users = 1, user = f }, { name = "a", users = 1, user = f } } }))
  end)

  it("refuses a map: the names go inside the entries", function()
    assert.matches('not a map: key "browse"', err_of({ scenarios = { browse = { users = 1, user = f } } }), 1, true)
  end)

  it("names the nearest field to a misspelt one", function()
    assert.are.equal('scenario "a": unknown field "usres" (did you mean "users"?)',
      err_of({ scenarios = { { name = "a", usres = 1, user = f } } }))
  end)

  it("refuses an entry without a flow, without a name, or with a bad name", function()
    assert.matches("no flow", err_of({ scenarios = { { name = "a", users = 1 } } }), 1, true)
    assert.matches("no name", err_of({ scenarios = { { users = 1, user = f } } }), 1, true)
    assert.matches("letters, digits", err_of({ scenarios = { { name = "a b", users = 1, user = f } } }), 1, true)
  end)

  it("refuses loads that contradict each other", function()
    assert.matches("users and weight both",
      err_of({ scenarios = { { name = "a", users = 1, weight = 1, user = f } } }), 1, true)
    assert.matches("rate with users",
      err_of({ scenarios = { { name = "a", users = 1, rate = 5, user = f } } }), 1, true)
    assert.matches("max_users is an open scenario's",
      err_of({ scenarios = { { name = "a", users = 1, max_users = 3, user = f } } }), 1, true)
    assert.matches("stages with duration",
      err_of({ scenarios = { { name = "a", stages = "1s:1", duration = "5s", user = f } } }), 1, true)
    assert.matches("rate 0 only with stages", err_of({ scenarios = { { name = "a", rate = 0, user = f } } }), 1, true)
    assert.matches("a whole number", err_of({ scenarios = { { name = "a", users = 1.5, user = f } } }), 1, true)
    assert.matches("start is a boolean", err_of({ scenarios = { { name = "a", users = 1, start = true, user = f } } }),
      1, true)
  end)

  it("refuses a flow beside the list", function()
    assert.matches("both scenarios and user",
      err_of({ user = f, scenarios = { { name = "a", users = 1, user = f } } }), 1, true)
  end)

  it("refuses an empty list and one that is not a table", function()
    assert.matches("the list is empty", err_of({ scenarios = {} }), 1, true)
    assert.matches("scenarios is a string", err_of({ scenarios = "a" }), 1, true)
  end)

  it("refuses a threshold that is not an expression", function()
    assert.matches('thresholds%[2%]: an expression', err_of({ scenarios = {
      { name = "a", users = 1, thresholds = { "p99 < 1s", 3 }, user = f } } }))
  end)
end)

describe("scenarios.threshold_words", function()
  it("labels each scenario's thresholds and fail_if with its name", function()
    local list = {
      { name = "a", users = 1, user = f, thresholds = { "iteration.p95 < 2s", "p99 < 1s" } },
      { name = "b.2", users = 1, user = f, fail_if = { " failures{reason=\"x\"} > 0" },
        thresholds = { "latency{name=\"item\"}.p99 < 1s" } },
    }
    assert.are.same({
      "--threshold", 'iteration{scenario="a"}.p95 < 2s',
      "--threshold", 'p99{scenario="a"} < 1s',
      "--threshold", 'latency{scenario="b.2",name="item"}.p99 < 1s',
      "--fail-if", ' failures{scenario="b.2",reason="x"} > 0',
    }, scenarios.threshold_words(scenarios.check({ scenarios = list }, nearest)))
  end)
end)
