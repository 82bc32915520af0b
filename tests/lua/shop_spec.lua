-- examples.shop (scripts/examples/shop.lua) driven with a stand-in for the
-- flow API's user object: a fake u whose requests go to a small model of
-- tests/integration/apps/shop kept in Lua, so the script's steps, names,
-- headers and checks are proved without volley's runtime or a server.
package.path = "lua/?.lua;scripts/?.lua;" .. package.path
local json = require("volley.json")

-- A response as the flow API returns it: status, body, r:json().
local function response(status, body)
  return {
    status = status,
    body = body,
    json = function(self) return json.decode(self.body) end,
  }
end

-- The shop's rules (app.rb), one user's session in `state`. `broken`
-- names a route that answers 500 instead.
local function shop(state, method, path, opts, broken)
  local route = method .. " " .. path:gsub("^/items/%d+$", "/items/:id")
  if route == broken then return response(500, "boom") end
  if route == "POST /login" then
    local f = opts.form
    if f.password ~= "pw-" .. f.user then return response(401, "bad user or password\n") end
    state.user, state.cart = f.user, {}
    return response(200, "hello " .. f.user .. "\n") -- the 303 already followed
  elseif route == "GET /items/:id" then
    local id = tonumber(path:match("%d+$"))
    return response(200, json.encode({ id = id, price = 100 + (id * 37) % 900 }))
  elseif not state.user then
    return response(401, "not logged in\n")
  elseif route == "POST /cart" then
    state.cart[#state.cart + 1] = opts.json.id
    return response(200, json.encode({ items = #state.cart }))
  elseif route == "POST /checkout" then
    if #state.cart == 0 then return response(409, "empty cart\n") end
    local n = #state.cart
    state.cart = {}
    return response(200, json.encode({ paid = n }))
  end
  return response(404, "")
end

-- A fake user object; u.calls records "METHOD PATH NAME GROUP X-Vuser".
local function user(id, iteration, opts)
  opts = opts or {}
  local u = { id = id, iteration = iteration, calls = {}, checks = {}, sleeps = {}, state = {} }
  local function request(self, method, path, o)
    assert(o and o.name, "every request is named")
    self.calls[#self.calls + 1] = table.concat({ method, path, o.name, self.group_name or "-",
                                                 o.headers and o.headers["X-Vuser"] or "-" }, " ")
    if opts.wrong_user and method == "POST" and path == "/login" then
      o = { form = { user = o.form.user, password = "nope" } }
    end
    return shop(self.state, method, path, o, opts.broken)
  end
  function u:get(path, o) return request(self, "GET", path, o) end
  function u:post(path, o) return request(self, "POST", path, o) end
  function u:check(ok, reason)
    self.checks[#self.checks + 1] = (ok and "ok " or "failed ") .. reason
    return ok
  end
  function u:sleep(t) self.sleeps[#self.sleeps + 1] = t end
  function u:group(name, fn)
    self.group_name = name
    fn()
    self.group_name = nil
  end
  return u
end

local function count(list, pattern)
  local n = 0
  for _, v in ipairs(list) do
    if v:find(pattern) then n = n + 1 end
  end
  return n
end

describe("examples.shop", function()
  local shop_lua
  before_each(function()
    package.loaded["examples.shop"] = nil
    shop_lua = require("examples.shop")
  end)

  it("logs in, views 3 items, fills the cart and pays, every request tagged", function()
    local u = user(3, 1)
    shop_lua.user(u)
    assert.are.equal("POST /login login - 3", u.calls[1])
    assert.are.equal(3, count(u.calls, "^GET /items/%d+ item %- 3$"))
    local carts = count(u.calls, "^POST /cart cart checkout 3$")
    assert.is_true(carts >= 1 and carts <= 2)
    assert.are.equal("POST /checkout pay checkout 3", u.calls[#u.calls])
    assert.are.equal(1 + 3 + carts + 1, #u.calls)
    assert.are.equal(0, count(u.checks, "^failed"))
    assert.are.equal(1, count(u.checks, "^ok logged in$"))
    assert.are.equal(1, count(u.checks, "^ok paid$"))
  end)

  it("puts 1 or 2 items in the cart, both sizes over iterations", function()
    local sizes = {}
    for it = 1, 4 do
      local u = user(5, it)
      shop_lua.user(u)
      sizes[count(u.calls, "^POST /cart ")] = true
      assert.are.equal(0, count(u.checks, "^failed"))
    end
    assert.is_true(sizes[1] and sizes[2])
  end)

  it("ends the iteration when the login fails", function()
    local u = user(1, 1, { wrong_user = true })
    shop_lua.user(u)
    assert.are.same({ "POST /login login - 1" }, u.calls)
    assert.are.same({ "failed logged in" }, u.checks)
  end)

  it("fails the item check and skips the checkout when no item answers", function()
    local u = user(2, 1, { broken = "GET /items/:id" })
    shop_lua.user(u)
    assert.are.equal(3, count(u.checks, "^failed item$"))
    assert.are.equal(0, count(u.calls, "/checkout"))
  end)

  it("fails \"paid\" when the checkout does not answer 200", function()
    local u = user(2, 1, { broken = "POST /checkout" })
    shop_lua.user(u)
    assert.are.equal("failed paid", u.checks[#u.checks])
  end)

  it("thinks 5 ms by default, think=TIME (seconds, or with a unit) from the arguments, none with think=0", function()
    local u = user(1, 1)
    shop_lua.init({})
    shop_lua.user(u)
    assert.is_true(#u.sleeps >= 4)
    for _, s in ipairs(u.sleeps) do assert.are.equal(0.005, s) end
    for word, want in pairs({ ["think=2ms"] = 0.002, ["think=2"] = 2, ["think=0.5s"] = 0.5 }) do
      shop_lua.init({ word })
      u = user(1, 1)
      shop_lua.user(u)
      for _, s in ipairs(u.sleeps) do assert.are.equal(want, s, word) end
    end
    shop_lua.init({ "think=0" })
    u = user(1, 1)
    shop_lua.user(u)
    assert.are.same({}, u.sleeps)
  end)

  it("refuses an argument that is not think=TIME", function()
    for _, word in ipairs({ "fast", "think=-1", "think=61", "think=5 parsecs" }) do
      assert.has_error(function() shop_lua.init({ word }) end,
        ('shop: expected think=TIME (seconds such as 0.5, or 250ms; at most 60s), not %q'):format(word))
    end
  end)
end)
