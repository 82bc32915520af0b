-- The example scenarios in scripts/examples/, driven hook by hook with plain
-- tables, as volley would call them, under a stub of the volley global.
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local wrk = require("wrk")
local bridge = require("volley.bridge")
local json = require("volley.json")

local paths = require("examples.paths")
local login = require("examples.login")
local json_check = require("examples.json_check")
local metric = require("examples.metric")
local wrk_migration = require("examples.wrk_migration")

-- A headers table whose lookup ignores the case of the name, as volley's.
local function headers(t)
  local h = {}
  for name, value in pairs(t or {}) do h[name:lower()] = value end
  return setmetatable(h, {
    __index = function(self, name)
      if type(name) == "string" then return rawget(self, name:lower()) end
    end,
  })
end

-- A res as response(conn, res) gets it.
local function res(status, head, body)
  body = body or ""
  return {
    status = status,
    headers = headers(head),
    body = body,
    bytes = 100 + #body,
    latency = 1000, connect = 10, waiting = 900,
  }
end

local JSON = { ["Content-Type"] = "application/json" }

-- {"items":[{"id":1,"name":"item-1"},...]} with n items.
local function items_body(n)
  local parts = {}
  for i = 1, n do parts[i] = ('{"id":%d,"name":"item-%d"}'):format(i, i) end
  return '{"items":[' .. table.concat(parts, ",") .. "]}"
end

-- A conn table as volley makes it, after connect(conn) when there is one.
local function open(scenario, id, thread)
  local conn = { id = id or 1, thread = thread or 1, requests = 0 }
  if scenario.connect then scenario.connect(conn) end
  return conn
end

-- What volley sends for a scenario's request(conn).
local function bytes(scenario, conn)
  return bridge.request(scenario.request, conn)
end

local counters, records

before_each(function()
  wrk.method, wrk.path, wrk.headers, wrk.body =
    "GET", "/", { Host = "127.0.0.1:8080" }, nil
  counters, records = {}, {}
  _G.volley = {
    counter = function(name, n)
      counters[name] = (counters[name] or 0) + (n or 1)
    end,
    record = function(name, value)
      assert(value >= 0, "record: negative value")
      records[name] = records[name] or {}
      table.insert(records[name], value)
    end,
    format = wrk.format,
    target = { scheme = "http", host = "127.0.0.1", port = 8080, path = "/" },
    now = function() return 0 end,
    thread = 1,
  }
end)

after_each(function()
  _G.volley = nil
end)

describe("examples.paths", function()
  it("cycles each connection through the table from its own offset", function()
    local c1, c2 = open(paths, 1), open(paths, 2)
    local cycle = { paths.request(c1).path }
    while true do
      local p = paths.request(c1).path
      if p == cycle[1] then break end
      for _, seen in ipairs(cycle) do assert.are_not.equal(seen, p) end
      cycle[#cycle + 1] = p
    end
    assert.is_true(#cycle >= 3)
    -- Connection 2 starts where connection 1 went second.
    assert.are.equal(cycle[2], paths.request(c2).path)
    assert.are.equal(cycle[3], paths.request(c2).path)
  end)

  it("spreads connections of the run over the table by conn.id", function()
    local first = {}
    for id = 1, 4 do first[id] = paths.request(open(paths, id)).path end
    for i = 1, 3 do
      for j = i + 1, 4 do assert.are_not.equal(first[i], first[j]) end
    end
  end)

  it("numbers the requests of each connection in X-Request", function()
    local c1, c2 = open(paths, 1), open(paths, 12, 3)
    assert.are.equal("1-1", paths.request(c1).headers["X-Request"])
    assert.are.equal("1-2", paths.request(c1).headers["X-Request"])
    assert.are.equal("12-1", paths.request(c2).headers["X-Request"])
    assert.are.equal("1-3", paths.request(c1).headers["X-Request"])
  end)

  it("adds the entry's headers and leaves the table's entries unchanged", function()
    local c = open(paths, 1)
    local r
    repeat r = paths.request(c) until r.path == "/private"
    assert.are.equal("Bearer tok-1", r.headers.Authorization)
    repeat r = paths.request(c) until r.path == "/private"
    assert.are.same({ "Authorization", "X-Request" }, (function()
      local names = {}
      for name in pairs(r.headers) do names[#names + 1] = name end
      table.sort(names)
      return names
    end)())
  end)

  it("gives requests that volley formats with the defaults", function()
    local r = bytes(paths, open(paths, 2))
    assert.truthy(r:match("^GET /json/items/1 HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nAccept: application/json\r\n", 1, true))
    assert.truthy(r:find("\r\nX-Request: 2-1\r\n", 1, true))
    assert.truthy(r:find("\r\nHost: 127.0.0.1:8080\r\n", 1, true))
  end)
end)

describe("examples.login", function()
  local LOGIN_OK = '{"token":"tok-7"}'

  it("logs in first with a JSON POST to /login", function()
    local conn = open(login, 3, 2)
    local r = login.request(conn)
    assert.are.equal("POST", r.method)
    assert.are.equal("/login", r.path)
    assert.are.equal("application/json", r.headers["Content-Type"])
    local doc = json.decode(r.body)
    assert.are.equal("user-3", doc.user)
    assert.are.equal("login", conn.pending)
  end)

  it("keeps the token of the login reply and sends it to /private", function()
    local conn = open(login)
    login.request(conn)
    assert.is_nil(login.response(conn, res(200, JSON, LOGIN_OK)))
    assert.are.equal("tok-7", conn.token)
    local r = login.request(conn)
    assert.are.equal("GET", r.method)
    assert.are.equal("/private", r.path)
    assert.are.equal("Bearer tok-7", r.headers.Authorization)
    assert.are.equal("private", conn.pending)
  end)

  it("sends the Authorization header in the request bytes", function()
    local conn = open(login)
    login.request(conn)
    login.response(conn, res(200, JSON, LOGIN_OK))
    local r = bytes(login, conn)
    assert.truthy(r:match("^GET /private HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nAuthorization: Bearer tok-7\r\n", 1, true))
  end)

  it("passes a 200 from /private and keeps the token", function()
    local conn = open(login)
    login.request(conn)
    login.response(conn, res(200, JSON, LOGIN_OK))
    for _ = 1, 3 do
      assert.are.equal("/private", login.request(conn).path)
      assert.is_nil(login.response(conn, res(200, JSON, '{"ok":true}')))
    end
  end)

  it("fails a 401 from /private as not authorized and logs in again", function()
    local conn = open(login)
    login.request(conn)
    login.response(conn, res(200, JSON, LOGIN_OK))
    login.request(conn)
    local ok, reason = login.response(conn, res(401, JSON, '{"ok":false}'))
    assert.is_false(ok)
    assert.are.equal("not authorized", reason)
    assert.are.equal("/login", login.request(conn).path)
  end)

  it("fails another status from /private and keeps the token", function()
    local conn = open(login)
    login.request(conn)
    login.response(conn, res(200, JSON, LOGIN_OK))
    login.request(conn)
    local ok, reason = login.response(conn, res(503))
    assert.is_false(ok)
    assert.are.equal("not authorized", reason)
    assert.are.equal("/private", login.request(conn).path)
  end)

  for _, case in ipairs({
    { "a body without a token", 200, '{"ok":true}' },
    { "an empty token", 200, '{"token":""}' },
    { "a token that is not a string", 200, '{"token":5}' },
    { "a body that is not JSON", 200, "hello world" },
    { "an empty body", 200, "" },
    { "a JSON array", 200, '["tok-1"]' },
    { "a status other than 200", 500, LOGIN_OK },
  }) do
    it("fails a login reply with " .. case[1] .. ", and tries again", function()
      local conn = open(login)
      login.request(conn)
      local ok, reason = login.response(conn, res(case[2], JSON, case[3]))
      assert.is_false(ok)
      assert.are.equal("login: no token", reason)
      assert.is_nil(conn.token)
      assert.are.equal("/login", login.request(conn).path)
    end)
  end

  it("keeps each connection's token to itself", function()
    local a, b = open(login, 1), open(login, 2)
    login.request(a)
    login.request(b)
    login.response(a, res(200, JSON, '{"token":"tok-1"}'))
    login.response(b, res(200, JSON, '{"token":"tok-2"}'))
    assert.are.equal("Bearer tok-1", login.request(a).headers.Authorization)
    assert.are.equal("Bearer tok-2", login.request(b).headers.Authorization)
  end)

  it("forgets the token when connect() runs for the connection", function()
    local conn = open(login)
    login.request(conn)
    login.response(conn, res(200, JSON, LOGIN_OK))
    login.connect(conn)
    assert.is_nil(conn.token)
    assert.are.equal("/login", login.request(conn).path)
  end)
end)

describe("examples.json_check", function()
  local function check(status, head, body)
    return json_check.response(open(json_check), res(status, head, body))
  end

  before_each(function()
    json_check.init({ [0] = "http://127.0.0.1:8080/" })
  end)

  it("asks for 10 items by default", function()
    assert.are.equal("/json/items/10", json_check.request(open(json_check)).path)
  end)

  it("takes N from the first script argument", function()
    json_check.init({ [0] = "http://127.0.0.1:8080/", "3" })
    assert.are.equal("/json/items/3", json_check.request(open(json_check)).path)
    assert.is_nil(check(200, JSON, items_body(3)))
  end)

  it("asks for /json/bad with the argument bad", function()
    json_check.init({ [0] = "http://127.0.0.1:8080/", "bad" })
    assert.are.equal("/json/bad", json_check.request(open(json_check)).path)
  end)

  for _, word in ipairs({ "ten", "-1", "1.5", "10001", "" }) do
    it(("refuses the argument %q"):format(word), function()
      assert.has_error(function() json_check.init({ word }) end,
        ("json_check: N must be a whole number from 0 to 10000, not %q"):format(word))
    end)
  end

  it("passes a valid reply", function()
    assert.is_nil(check(200, JSON, items_body(10)))
  end)

  it("reads Content-Type in any case, with parameters", function()
    assert.is_nil(check(200, { ["content-type"] = "application/json; charset=utf-8" },
      items_body(10)))
    assert.is_nil(check(200, { ["CONTENT-TYPE"] = "Application/JSON" }, items_body(10)))
  end)

  it("passes zero items when N is 0", function()
    json_check.init({ "0" })
    assert.is_nil(check(200, JSON, '{"items":[]}'))
    assert.are.same({ false, "wrong item count" },
      { check(200, JSON, '{"items":{"a":1}}') })
  end)

  local failures = {
    { "a status other than 200", 500, JSON, items_body(10), "bad status" },
    { "a text/plain reply", 200, { ["Content-Type"] = "text/plain" }, items_body(10), "not JSON" },
    { "no Content-Type", 200, {}, items_body(10), "not JSON" },
    { "an empty Content-Type", 200, { ["Content-Type"] = "" }, items_body(10), "not JSON" },
    { "the truncated body of /json/bad", 200, JSON, '{"items":[{"id":1,', "invalid JSON" },
    { "an empty body", 200, JSON, "", "invalid JSON" },
    { "trailing garbage", 200, JSON, items_body(10) .. "x", "invalid JSON" },
    { "no items", 200, JSON, '{"things":[]}', "no items" },
    { "items that are not an array", 200, JSON, '{"items":"many"}', "no items" },
    { "a document that is an array", 200, JSON, "[1,2]", "no items" },
    { "one item too few", 200, JSON, items_body(9), "wrong item count" },
    { "one item too many", 200, JSON, items_body(11), "wrong item count" },
    { "an item with a string id", 200, JSON,
      items_body(9):gsub("%]}$", ',{"id":"10","name":"item-10"}]}'), "bad item" },
    { "an item without a name", 200, JSON,
      items_body(9):gsub("%]}$", ',{"id":10}]}'), "bad item" },
    { "an item that is null", 200, JSON,
      items_body(9):gsub("%]}$", ",null]}"), "bad item" },
  }
  for _, f in ipairs(failures) do
    it("fails " .. f[1] .. " as " .. f[5], function()
      local ok, reason = check(f[2], f[3], f[4])
      assert.is_false(ok)
      assert.are.equal(f[5], reason)
    end)
  end
end)

describe("examples.metric", function()
  before_each(function()
    metric.init({ [0] = "http://127.0.0.1:8080/", "4" })
  end)

  it("asks for N items", function()
    assert.are.equal("/json/items/4", metric.request(open(metric)).path)
    metric.init({})
    assert.are.equal("/json/items/10", metric.request(open(metric)).path)
  end)

  it("counts the items and records the bytes per item", function()
    local r = res(200, JSON, items_body(4))
    r.bytes = 400
    assert.is_nil(metric.response(open(metric), r))
    assert.are.same({ items = 4 }, counters)
    assert.are.same({ bytes_per_item = { 100 } }, records)
    metric.response(open(metric), r)
    assert.are.same({ items = 8 }, counters)
    assert.are.same({ bytes_per_item = { 100, 100 } }, records)
  end)

  it("counts zero items and records nothing for an empty array", function()
    assert.is_nil(metric.response(open(metric), res(200, JSON, '{"items":[]}')))
    assert.are.same({ items = 0 }, counters)
    assert.are.same({}, records)
  end)

  it("fails a bad reply and adds to no metric", function()
    assert.are.same({ false, "invalid JSON" },
      { metric.response(open(metric), res(200, JSON, '{"items":[{"id":1,')) })
    assert.are.same({ false, "bad status" },
      { metric.response(open(metric), res(404, JSON, items_body(4))) })
    assert.are.same({ false, "no items" },
      { metric.response(open(metric), res(200, JSON, "{}")) })
    assert.are.same({}, counters)
    assert.are.same({}, records)
  end)

  it("uses the volley global of the moment, not one captured at load", function()
    local got
    _G.volley = {
      counter = function(name, n) got = { name, n } end,
      record = function() end,
    }
    metric.response(open(metric), res(200, JSON, items_body(2)))
    assert.are.same({ "items", 2 }, got)
  end)

  it("refuses a bad argument", function()
    assert.has_error(function() metric.init({ "lots" }) end,
      'metric: N must be a whole number from 0 to 10000, not "lots"')
  end)
end)

describe("examples.wrk_migration", function()
  local function authenticated(id)
    local conn = open(wrk_migration, id)
    wrk_migration.request(conn)
    assert.is_nil(wrk_migration.response(conn, res(200, { ["X-Token"] = "token-" .. (id or 1) })))
    return conn
  end

  it("asks /authenticate first", function()
    local conn = open(wrk_migration)
    local r = wrk_migration.request(conn)
    assert.are.equal("GET", r.method)
    assert.are.equal("/authenticate", r.path)
    -- No token yet: asking again asks /authenticate again.
    assert.are.equal("/authenticate", wrk_migration.request(conn).path)
  end)

  it("takes the token from the X-Token header, in any case", function()
    local conn = open(wrk_migration)
    wrk_migration.request(conn)
    wrk_migration.response(conn, res(200, { ["x-token"] = "token-9" }))
    assert.are.equal("token-9", conn.token)
  end)

  it("then sends the token and a per-connection counter to /resource", function()
    local conn = authenticated(1)
    for n = 0, 2 do
      local r = wrk_migration.request(conn)
      assert.are.equal("/resource?counter=" .. n, r.path)
      assert.are.equal("token-1", r.headers["X-Token"])
      assert.are.equal(tostring(n), r.headers["X-Counter"])
      assert.is_nil(wrk_migration.response(conn, res(200, {}, "hello world")))
    end
  end)

  it("keeps counters and tokens apart per connection", function()
    local a, b = authenticated(1), authenticated(2)
    wrk_migration.request(a)
    wrk_migration.request(a)
    local r = wrk_migration.request(b)
    assert.are.equal("/resource?counter=0", r.path)
    assert.are.equal("token-2", r.headers["X-Token"])
  end)

  it("gives requests that volley formats with the defaults", function()
    local r = bytes(wrk_migration, authenticated(1))
    assert.truthy(r:match("^GET /resource%?counter=0 HTTP/1%.1\r\n"))
    assert.truthy(r:find("\r\nX-Token: token-1\r\n", 1, true))
    assert.truthy(r:find("\r\nX-Counter: 0\r\n", 1, true))
    assert.truthy(r:find("\r\nHost: 127.0.0.1:8080\r\n", 1, true))
  end)

  it("fails an /authenticate reply without a token, or not a 200", function()
    local conn = open(wrk_migration)
    wrk_migration.request(conn)
    assert.are.same({ false, "authenticate: no token" },
      { wrk_migration.response(conn, res(200, {}, "hello world")) })
    assert.are.same({ false, "authenticate: bad status" },
      { wrk_migration.response(conn, res(500, { ["X-Token"] = "token-1" })) })
    assert.is_nil(conn.token)
    assert.are.equal("/authenticate", wrk_migration.request(conn).path)
  end)
end)

describe("every example", function()
  for _, name in ipairs({ "paths", "login", "json_check", "metric", "wrk_migration" }) do
    it(name .. " is a scenario: a table of hook functions", function()
      local s = require("examples." .. name)
      assert.is_table(s)
      local hooks = { init = 1, connect = 1, request = 1, delay = 1, response = 1, done = 1 }
      for key, value in pairs(s) do
        assert.truthy(hooks[key], "not a hook: " .. key)
        assert.is_function(value)
      end
      assert.is_function(s.request)
    end)
  end
end)
