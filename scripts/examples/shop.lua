-- A user flow through a web shop with cookie sessions: each iteration of a
-- virtual user logs in (a form post answered 303 to /home, followed, with
-- the session cookie kept per user), looks at 3 items, puts 1 or 2 of them
-- in the cart and checks out, with a little think time between steps.
-- Every request carries "X-Vuser: <u.id>" so the server can tell the users
-- apart. User u is "user<u.id>" with password "pw-user<u.id>".
-- Request names: "login" (the POST and its redirect hop), "item", "cart",
-- "pay"; the cart and the payment are in the group "checkout". Checks:
--   "logged in"   the login ended on a 200 "hello user<id>";
--   "item"        an item answered 200 with its id and a numeric price;
--   "in cart"     the cart answered 200 with the items so far;
--   "paid"        the checkout answered 200 and paid for the whole cart.
-- Think time between steps is the word after `--`, think=TIME: seconds as
-- u:sleep takes them (think=0.5) or with a unit (think=250ms); default 5ms,
-- think=0 for none.
--
--   volley -c 20 -d 30s -s examples.shop http://127.0.0.1:9292/ -- think=5ms
--
-- The server it was written against is tests/integration/apps/shop.
local s = {}

local think = 0.005 -- seconds, set by init in each worker's state

local UNITS = { [""] = 1, s = 1, ms = 1e-3 }

function s.init(args)
  for _, word in ipairs(args) do
    local num, unit = word:match("^think=(%d*%.?%d+)(%a*)$")
    local n = num and UNITS[unit] and tonumber(num) * UNITS[unit]
    if not n or n > 60 then
      error(("shop: expected think=TIME (seconds such as 0.5, or 250ms; at most 60s), not %q"):format(word), 0)
    end
    think = n
  end
end

local function pause(u)
  if think > 0 then u:sleep(think) end
end

-- The items an iteration looks at: fixed by the user and the iteration,
-- so a run is the same whatever the seed, and users do not all ask for
-- the same items.
local function item_id(u, k)
  return (u.id * 7 + u.iteration * 3 + k) % 100 + 1
end

function s.user(u)
  -- One table for the user's whole life: the header never changes.
  u.vuser_headers = u.vuser_headers or { ["X-Vuser"] = tostring(u.id) }
  local hdr = u.vuser_headers
  local name = "user" .. u.id

  local r = u:post("/login", { form = { user = name, password = "pw-" .. name },
                               name = "login", headers = hdr })
  if not u:check(r.status == 200 and r.body == "hello " .. name .. "\n", "logged in") then return end
  pause(u)

  local seen = {}
  for k = 1, 3 do
    local id = item_id(u, k)
    local item = u:get("/items/" .. id, { name = "item", headers = hdr })
    local doc = item.status == 200 and item:json()
    if u:check(type(doc) == "table" and doc.id == id and type(doc.price) == "number", "item") then
      seen[#seen + 1] = id
    end
    pause(u)
  end
  if #seen == 0 then return end

  u:group("checkout", function()
    local want = math.min(#seen, 1 + (u.id + u.iteration) % 2)
    for k = 1, want do
      local c = u:post("/cart", { json = { id = seen[k] }, name = "cart", headers = hdr })
      local doc = c.status == 200 and c:json()
      if not u:check(type(doc) == "table" and doc.items == k, "in cart") then return end
    end
    pause(u)
    local p = u:post("/checkout", { name = "pay", headers = hdr })
    local doc = p.status == 200 and p:json()
    u:check(type(doc) == "table" and doc.paid == want, "paid")
  end)
end

return s
