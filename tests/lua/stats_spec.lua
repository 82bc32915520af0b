-- lua/volley/stats.lua: the stats objects done() gets. The C histogram
-- functions are stubbed: one histogram in nanoseconds.
package.path = "lua/?.lua;" .. package.path
local api = require("volley.api")
local stats = require("volley.stats")

describe("stats objects", function()
  setup(function()
    api.c = {
      hist_count = function() return 3 end,
      hist_min = function() return 90452 end,          -- 90.452 us
      hist_max = function() return 1200600 end,        -- 1200.6 us
      hist_mean = function() return 500250.5 end,
      hist_stdev = function() return 1500.25 end,
      hist_percentile = function(_, p) return p == 50 and 90452 or 1200499 end,
    }
  end)
  teardown(function() api.c = nil end)

  describe("wrk style", function()
    local s
    before_each(function() s = stats.new(nil, 1e3, true) end)

    it("gives min, max and percentiles in whole microseconds, as wrk", function()
      assert.are.equal(90, s.min)
      assert.are.equal(1201, s.max)
      assert.are.equal(90, s:percentile(50))
      assert.are.equal(1200, s:percentile(99))
    end)

    it("keeps mean and stdev precise, as wrk", function()
      assert.are.equal(500.2505, s.mean)
      assert.are.equal(1.50025, s.stdev)
    end)

    it("answers an unknown field with its key as a string, as wrk", function()
      assert.are.equal("total", s.total)
      assert.are.equal("foo", s.foo)
      assert.are.equal("1", s[1])
      assert.are.equal("requests: total", "requests: " .. s.total)
      assert.is_nil(s[true])
    end)

    it("keeps volley's count and the percentile method", function()
      assert.are.equal(3, s.count)
      assert.are.equal("function", type(s.percentile))
    end)
  end)

  describe("scenario style", function()
    local s
    before_each(function() s = stats.new(nil, 1e3) end)

    it("keeps the precise values", function()
      assert.are.equal(90.452, s.min)
      assert.are.equal(1200.6, s.max)
      assert.are.equal(90.452, s:percentile(50))
    end)

    it("gives nil for an unknown field", function()
      assert.is_nil(s.total)
      assert.is_nil(s[1])
    end)
  end)
end)
