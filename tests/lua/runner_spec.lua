-- volley.runner (what a flow's iteration runs: user(u), weighted tasks, a
-- sequence; on_start and on_stop), volley.wait (between, pacing,
-- throughput) and volley.user_rng, through volley.testing's fake user,
-- which runs them as volley does.
package.path = "lua/?.lua;" .. package.path
local testing = require("volley.testing")
local runner = require("volley.runner")
local wait = require("volley.wait")
local user_rng = require("volley.user_rng")

local OK = { ["GET /*"] = { status = 200 } }

local function user(id, seed)
  return testing.user{ id = id or 1, seed = seed or 7, responses = OK }
end

-- The paths a result's requests went to, in order, as one string (a
-- failed comparison of two long lists would print them whole).
local function paths(result)
  local out = {}
  for i, q in ipairs(result.requests) do out[i] = q.path end
  return table.concat(out, " ")
end

describe("volley.user_rng", function()
  it("draws in (0, 1), the same for the same seed and id, apart for another id or seed", function()
    local a, b, c, d = user_rng.new(5, 1), user_rng.new(5, 1), user_rng.new(5, 2), user_rng.new(6, 1)
    local same, other_id, other_seed = true, 0, 0
    for _ = 1, 1000 do
      local x, y, z, w = a:draw(), b:draw(), c:draw(), d:draw()
      assert.is_true(x > 0 and x < 1)
      if x ~= y then same = false end
      if x == z then other_id = other_id + 1 end
      if x == w then other_seed = other_seed + 1 end
    end
    assert.is_true(same)
    assert.are.equal(0, other_id)
    assert.are.equal(0, other_seed)
  end)

  it("is uniform: each tenth of (0, 1) within 4 sigma of 10000 draws' tenth", function()
    local g, bins = user_rng.new(2 ^ 52 + 3, 123456), {}
    for i = 0, 9 do bins[i] = 0 end
    local n = 100000
    for _ = 1, n do
      local k = math.floor(g:draw() * 10)
      bins[k] = bins[k] + 1
    end
    local sigma = math.sqrt(n * 0.1 * 0.9)
    for i = 0, 9 do assert.is_true(math.abs(bins[i] - n / 10) < 4 * sigma, "bin " .. i .. ": " .. bins[i]) end
  end)
end)

describe("volley.wait", function()
  it("refuses bad rules with one line naming the function", function()
    assert.has_error(function() wait.between(3, 1) end, "volley.between: a = 3 is more than b = 1 (a <= b expected)")
    assert.has_error(function() wait.between("x", 1) end)
    assert.has_error(function() wait.between(-1, 1) end)
    assert.has_error(function() wait.pacing(0) end)
    assert.has_error(function() wait.pacing(-1) end)
    assert.has_error(function() wait.throughput(0) end,
      "volley.throughput: 0 is not a rate (runs a second per user, a number > 0 such as 2)")
    assert.has_error(function() wait.throughput("2") end)
    assert.has_error(function() wait.check(3) end, "the scenario's wait is the number 3, not a wait rule"
      .. " (volley.between(a, b), volley.pacing(seconds) or volley.throughput(runs a second))")
  end)

  it("takes u:sleep's times", function()
    local r = wait.between("250ms", "1s")
    assert.are.equal(0.25, r.lo)
    assert.are.equal(1, r.hi)
    assert.are.equal(0.5, wait.throughput(2).period)
    assert.are.equal(60, wait.pacing("1m").period)
  end)

  it("paces from the due start: a late wake-up does not push the next runs back", function()
    local r, st = wait.pacing(10), {}
    wait.begin(r, st, 0)
    assert.are.equal(7, wait.after(r, st, 3))     -- due at 10
    wait.begin(r, st, 10.5)                      -- woke late
    assert.are.equal(8.5, wait.after(r, st, 11.5)) -- due at 20, not 20.5
    wait.begin(r, st, 20)
    assert.are.equal(0, wait.after(r, st, 35))   -- took longer: at once
    wait.begin(r, st, 35)
    assert.are.equal(10, wait.after(r, st, 35))  -- anchored at its own start
  end)
end)

describe("volley.runner", function()
  local function refused(s, msg)
    local ok, e = pcall(runner.compile, s)
    assert.is_false(ok)
    assert.are.equal(msg, e)
  end
  local f = function() end

  it("refuses each bad scenario with one line", function()
    refused({ tasks = { { fn = f } } },
      "the scenario's tasks[1] has no weight (write { weight = 4, fn = browse }; a function alone has weight 1)")
    refused({ tasks = { { weight = -1, fn = f } } }, "the scenario's tasks[1].weight is -1 (a number >= 0 expected)")
    refused({ tasks = { { weight = 0 / 0, fn = f } } }, "the scenario's tasks[1].weight is nan (a number >= 0 expected)")
    refused({ tasks = { { weight = "2", fn = f } } }, "the scenario's tasks[1].weight is a string (a number >= 0 expected)")
    refused({ tasks = { { weight = 0, fn = f } } }, "the scenario's tasks weigh 0 in all (one weight > 0 at least)")
    refused({ tasks = { { weight = 1, fn = "browse" } } }, "the scenario's tasks[1].fn is a string (a function expected)")
    refused({ tasks = { "browse" } },
      "the scenario's tasks[1] is a string (a function, or a table { weight = 4, fn = browse })")
    refused({ tasks = {} }, "the scenario's tasks is empty (one task at least)")
    refused({ tasks = f }, "the scenario's tasks is a function (a list: { { weight = 4, fn = browse }, ... } or"
      .. " { browse, buy })")
    refused({ tasks = { [f] = 4 } }, "the scenario's tasks is keyed by functions ({ [browse] = 4 }), which has no"
      .. " order: write tasks = { { weight = 4, fn = browse }, ... }")
    refused({ tasks = { { weight = 1, fn = f, wieght = 2 } } },
      "the scenario's tasks[1] has the key \"wieght\" (the keys are weight, fn and name)")
    refused({ user = f, tasks = { f } },
      "the scenario gives both user and tasks: choose one (user(u), tasks = { ... } or sequence = { ... })")
    refused({ tasks = { f }, sequence = { f } },
      "the scenario gives both tasks and sequence: choose one (user(u), tasks = { ... } or sequence = { ... })")
    refused({ sequence = { { weight = 1, fn = f } } },
      "the scenario's sequence[1] has the key \"weight\" (the keys are fn and name)")
    refused({ user = f, on_start = 1 }, "the scenario's on_start is a number, not a function")
    refused({ on_stop = f }, "the scenario gives on_stop but no flow to run it with (user(u), tasks = { ... } or"
      .. " sequence = { ... })")
    assert.is_nil(runner.compile({}))
  end)

  it("names a task by its name, its key in the scenario, the name it was defined under, or its place", function()
    local s = {}
    function s.on_start() end -- a key of s
    local function browse() end
    local r = runner.compile({ tasks = { { weight = 1, fn = f, name = "named" }, s.on_start, browse, function() end },
      on_start = s.on_start })
    assert.are.same({ "named", "on_start", "browse", "task 4" }, r.names)
  end)
end)

describe("tasks, sequences and wait rules under volley.testing", function()
  local function browse(u) u:get("/browse") end
  local function buy(u) u:get("/buy") end

  it("chooses tasks by weight, the same for the same seed and user", function()
    local s = { tasks = { { weight = 4, fn = browse }, { weight = 1, fn = buy } } }
    local n = 10000
    local res = testing.run(s, user(3), n)
    local b = res.groups.browse.count
    assert.are.equal(n, b + res.groups.buy.count)
    assert.are.equal(n, res.iterations)
    local sigma = math.sqrt(n * 0.8 * 0.2)
    assert.is_true(math.abs(b - 0.8 * n) < 4 * sigma, "browse " .. b)
    local same, other = paths(res) == paths(testing.run(s, user(3), n)), paths(res) == paths(testing.run(s, user(4), n))
    assert.is_true(same, "the same seed and user: the same tasks")
    assert.is_false(other, "another user: the same tasks")
  end)

  it("takes a list of functions as weight 1 each, and never runs a zero weight", function()
    local res = testing.run({ tasks = { browse, buy } }, user(), 1000)
    assert.is_true(res.groups.browse.count > 400 and res.groups.buy.count > 400)
    res = testing.run({ tasks = { { weight = 0, fn = buy }, { weight = 1, fn = browse } } }, user(), 200)
    assert.is_nil(res.groups.buy)
    assert.are.equal(200, res.groups.browse.count)
  end)

  it("ends an erring task only, counted by reason; the user goes on", function()
    local line = debug.getinfo(1, "l").currentline + 1
    local function bad(u) u:get("/bad") error("boom") end
    local res = testing.run({ tasks = { browse, bad, buy } }, user(), 300)
    local reason = ("tests/lua/runner_spec.lua:%d: boom"):format(line)
    assert.are.equal(res.groups.bad.count, res.failures[reason])
    assert.are.equal(res.groups.bad.count, res.groups.bad.failed)
    assert.is_true(res.groups.browse.count > 0 and res.groups.buy.count > 0)
    assert.are.equal(300, res.iterations)
  end)

  it("runs a sequence in order, an erring step ending only itself, with waits between and after", function()
    local function fails(u) u:get("/two") u:fail("no") end
    local s = { sequence = { browse, fails, buy }, wait = wait.between(0.5, 0.5) }
    local res = testing.run(s, user(), 2)
    assert.are.equal("/browse /two /buy /browse /two /buy", paths(res))
    assert.are.same({ 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 }, res.waits)
    assert.are.same({ no = 2 }, res.failures)
    assert.are.same({ count = 2, failed = 2 }, res.groups.fails)
  end)

  it("draws between's waits within [a, b]", function()
    local res = testing.run({ user = browse, wait = wait.between(1, 3) }, user(), 500)
    local lo, hi = math.huge, 0
    for _, w in ipairs(res.waits) do lo, hi = math.min(lo, w), math.max(hi, w) end
    assert.are.equal(500, #res.waits)
    assert.is_true(lo >= 1 and hi <= 3 and lo < 1.2 and hi > 2.8)
  end)

  it("paces: the wait is the period less what the iteration took", function()
    local u = testing.user{ responses = { ["GET /slow"] = { latency = 300 }, ["GET /fast"] = { latency = 100 } } }
    local res = testing.run({ user = function(u) u:get(u.iteration % 2 == 1 and "/fast" or "/slow") end,
      wait = wait.throughput(4) }, u, 3)
    -- 0.25 - 0.1; none after the slow one (0.3 > 0.25); then from its own start again
    assert.are.equal(2, #res.waits)
    assert.is_true(math.abs(res.waits[1] - 0.15) < 1e-9 and math.abs(res.waits[2] - 0.15) < 1e-9)
  end)

  it("runs on_start once before the first iteration and on_stop at the end; on_start's failure fails the"
    .. " iteration and is tried again", function()
    local tries = 0
    local s = {
      user = browse,
      on_start = function(u) tries = tries + 1 u:get("/login") if tries == 1 then error("down", 0) end end,
      on_stop = function(u) u:get("/logout") end,
    }
    local res = testing.run(s, user(), 3)
    assert.are.equal("/login /login /browse /browse /logout", paths(res))
    assert.are.same({ ["on_start: down"] = 1 }, res.failures)
    assert.are.same({ count = 2, failed = 1 }, res.groups.on_start)
    assert.are.same({ count = 1, failed = 0 }, res.groups.on_stop)
  end)

  it("u:sleep_between draws within [a, b] and refuses a > b", function()
    local res = testing.run({ user = function(u) u:sleep_between("100ms", 0.2) end }, user(), 100)
    for _, w in ipairs(res.sleeps) do assert.is_true(w >= 0.1 and w <= 0.2) end
    res = testing.run({ user = function(u) u:sleep_between(2, 1) end }, user())
    assert.truthy(res.reason:find("u:sleep_between: a = 2 is more than b = 1 (a <= b expected)", 1, true))
  end)
end)
