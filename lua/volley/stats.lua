-- Statistics objects over volley's histograms, as done() receives them:
-- .count .min .max .mean .stdev .clamped, :percentile(p), #s (the number of distinct
-- recorded values) and s(i) (the i-th distinct value and its count, in
-- increasing order), as in wrk. Values are divided by the object's scale
-- (nanoseconds -> microseconds: 1000). They are cdata, not tables, so that
-- # works under LuaJIT's Lua 5.1 rules, as on wrk's userdata.
--
-- wrk-style scripts get wrk's quirks (wrk 4.1's script_stats_index, checked
-- against wrk itself): .min, .max and :percentile(p) are whole numbers
-- (wrk keeps whole microseconds), and an unknown field is not nil but the
-- key as a string (requests.total is "total", latency[1] is "1"), so that
-- scripts which print such a field run on as in wrk. .count stays
-- volley's (wrk gives "count").
local ffi = require("ffi")
local api = require("volley.api")

ffi.cdef [[
struct volley_stats { const void *h; double scale; bool wrk; };
]]

local stats = {}

-- The distinct values and counts of each object, read once on first use.
local cache = setmetatable({}, { __mode = "k" })

local function values(self)
  local t = cache[self]
  if t then return t end
  local c = api.c
  local n = c.hist_values(self.h, nil, nil, 0)
  local vs, cs = ffi.new("int64_t[?]", n), ffi.new("int64_t[?]", n)
  c.hist_values(self.h, vs, cs, n)
  t = { values = {}, counts = {} }
  for i = 0, n - 1 do
    t.values[i + 1] = tonumber(vs[i]) / self.scale
    t.counts[i + 1] = tonumber(cs[i])
  end
  cache[self] = t
  return t
end

local methods = {}

local floor = math.floor

-- A value of h in the object's unit: the nearest whole one for wrk style.
local function scaled(self, v)
  v = tonumber(v) / self.scale
  if self.wrk then return floor(v + 0.5) end
  return v
end

function methods.percentile(self, p)
  if type(p) ~= "number" or p < 0 or p > 100 then
    error("percentile: a number from 0 to 100 expected", 2)
  end
  return scaled(self, api.c.hist_percentile(self.h, p))
end

local fields = {
  count = function(self) return tonumber(api.c.hist_count(self.h)) end,
  min = function(self) return scaled(self, api.c.hist_min(self.h)) end,
  max = function(self) return scaled(self, api.c.hist_max(self.h)) end,
  mean = function(self) return api.c.hist_mean(self.h) / self.scale end,
  stdev = function(self) return api.c.hist_stdev(self.h) / self.scale end,
  clamped = function(self) return tonumber(api.c.hist_clamped(self.h)) end,
}

ffi.metatype("struct volley_stats", {
  __index = function(self, k)
    local f = fields[k]
    if f then return f(self) end
    local m = methods[k]
    if m == nil and self.wrk then
      local t = type(k)
      if t == "string" or t == "number" then return tostring(k) end
    end
    return m
  end,
  __len = function(self) return #values(self).values end,
  __call = function(self, i)
    local t = values(self)
    return t.values[i], t.counts[i]
  end,
  __tostring = function(self)
    return ("stats: count %d, min %g, max %g, mean %g"):format(self.count, self.min, self.max, self.mean)
  end,
})

-- A stats object over the histogram at h (a C pointer that stays valid for
-- as long as the object is used: done() and what it calls); wrk: true for
-- wrk-style done(), with wrk's whole numbers and unknown fields.
function stats.new(h, scale, wrk)
  return ffi.new("struct volley_stats", h, scale, wrk == true)
end

return stats
