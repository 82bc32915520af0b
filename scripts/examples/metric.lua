-- Custom metrics: requests /json/items/N (N is the first word after `--`,
-- default 10), decodes each reply with volley.json and reports two numbers
-- of its own next to volley's:
--   volley.counter("items", n)            the items received, summed;
--   volley.record("bytes_per_item", x)    a histogram of the reply's size
--                                         (head included) per item.
-- A reply that is not a 200 with an "items" array fails ("bad status",
-- "invalid JSON", "no items") and adds to neither.
--
--   volley -c 10 -d 10s -s examples.metric http://127.0.0.1:8080/ -- 100
local json = require("volley.json")

local s = {}

local path -- set by init, in each worker's state

function s.init(args)
  local word = args[1] or "10"
  local n = tonumber(word)
  if not n or n ~= math.floor(n) or n < 0 or n > 10000 then
    error(("metric: N must be a whole number from 0 to 10000, not %q")
      :format(word), 0)
  end
  path = "/json/items/" .. n
end

function s.request()
  return { method = "GET", path = path }
end

function s.response(_, res)
  if res.status ~= 200 then return false, "bad status" end
  local doc = json.decode(res.body)
  if doc == nil then return false, "invalid JSON" end
  local items = type(doc) == "table" and doc.items
  if type(items) ~= "table" then return false, "no items" end
  -- volley is read here, at call time, not captured when the script loads.
  volley.counter("items", #items)
  if #items > 0 then
    volley.record("bytes_per_item", res.bytes / #items)
  end
end

return s
