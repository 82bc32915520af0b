-- Response validation: requests /json/items/N and checks every reply with
-- the JSON decoder bundled with volley (volley.json). N is the first word
-- after `--` (default 10); the word `bad` requests /json/bad instead, whose
-- truncated body shows failures being counted. A reply that fails a check
-- is a failed request, counted under its reason:
--   "bad status"        status other than 200;
--   "not JSON"          Content-Type other than application/json;
--   "invalid JSON"      the body does not decode;
--   "no items"          the document has no "items" array;
--   "wrong item count"  "items" does not hold exactly N elements;
--   "bad item"          an item without a numeric "id" and a string "name".
--
--   volley -c 10 -d 10s -s examples.json_check http://127.0.0.1:8080/ -- 100
--   volley -c 10 -d 10s -s examples.json_check http://127.0.0.1:8080/ -- bad
local json = require("volley.json")

local s = {}

local count, path -- set by init, in each worker's state

function s.init(args)
  local word = args[1] or "10"
  if word == "bad" then
    count, path = 10, "/json/bad"
    return
  end
  count = tonumber(word)
  if not count or count ~= math.floor(count) or count < 0 or count > 10000 then
    error(("json_check: N must be a whole number from 0 to 10000, not %q")
      :format(word), 0)
  end
  path = "/json/items/" .. count
end

function s.request()
  return { method = "GET", path = path }
end

-- The media type of a Content-Type value, lower case, without parameters.
local function media_type(value)
  local t = value and value:match("^%s*([^;%s]+)")
  return t and t:lower()
end

function s.response(_, res)
  if res.status ~= 200 then return false, "bad status" end
  if media_type(res.headers["Content-Type"]) ~= "application/json" then
    return false, "not JSON"
  end
  local doc = json.decode(res.body)
  if doc == nil then return false, "invalid JSON" end
  local items = type(doc) == "table" and doc.items
  if type(items) ~= "table" then return false, "no items" end
  -- Decoded arrays have no holes (null is json.null), so # is the length;
  -- next() catches a non-empty object where an empty array is expected.
  if #items ~= count or (count == 0 and next(items) ~= nil) then
    return false, "wrong item count"
  end
  for i = 1, count do
    local item = items[i]
    if type(item) ~= "table" or type(item.id) ~= "number"
        or type(item.name) ~= "string" then
      return false, "bad item"
    end
  end
end

return s
