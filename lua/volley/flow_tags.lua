-- A flow request's tags (opts.tags = { kind = "api" }, k6's tags): the
-- table turned into the id of its set of tags, which C records the
-- request's figures under (src/script/script_tags.c, src/stats/stats_tags.c).
-- Each (key, value) pair and each set is handed to C once per worker and
-- cached here: a tagged request seen before costs a walk of its table and
-- a few table lookups, no call into C and no garbage.
local tags = {}

-- next, not pairs: the same walk (volley's own, outside the JIT), without
-- pairs' call and check per request.
local next, type = next, type

local c_tag, c_tagset, PER_REQUEST -- the bridge's (tags.bind)
local groups = {}  -- key -> value -> group id
local sets = {}    -- a trie over group ids in a table's walk order; [0]: the set's id

function tags.bind(bridge)
  c_tag, c_tagset, PER_REQUEST = bridge.c_flow_tag, bridge.c_flow_tagset, bridge.TAGS_PER_REQUEST
end

-- The group of the pair k = v of fn's opts.tags, made at its first use
-- here; an error at level (as error's) for a key or value that is not one.
local function group(k, v, fn, level)
  if type(k) ~= "string" then
    error(("%s: opts.tags: a tag's key is a string, not a %s"):format(fn, type(k)), level + 1)
  end
  if type(v) ~= "string" then
    error(("%s: opts.tags: the tag %q's value is a string, not a %s"):format(fn, k, type(v)), level + 1)
  end
  if v == "" or v:find("%z") then
    error(("%s: opts.tags: the tag %q's value is %s"):format(fn, k, v == "" and "empty" or "not text (a NUL)"),
      level + 1)
  end
  local g, why = c_tag(k, v)
  if not g then error(("%s: opts.tags: %q: %s"):format(fn, k, why), level + 1) end
  local by_key = groups[k]
  if not by_key then by_key = {}; groups[k] = by_key end
  by_key[v] = g
  return g
end

-- The id of fn's opts.tags t (0: none, for an empty table), for C; an
-- error at level (as error's) for a table that is not one of tags.
function tags.set(t, fn, level)
  if type(t) ~= "table" then
    error(("%s: opts.tags is a table of tags (tags = { kind = \"api\" }), not a %s"):format(fn, type(t)), level + 1)
  end
  local node, n = sets, 0
  for k, v in next, t do
    local by_key = groups[k]
    local g = by_key and by_key[v] or group(k, v, fn, level + 1)
    n = n + 1
    local next_node = node[g]
    if not next_node then next_node = {}; node[g] = next_node end
    node = next_node
  end
  local id = node[0]
  if id then return id end
  if n == 0 then return 0 end
  if n > PER_REQUEST then
    error(("%s: opts.tags: %d tags, more than the %d a request carries"):format(fn, n, PER_REQUEST), level + 1)
  end
  local list, i = {}, 0
  for k, v in next, t do i = i + 1; list[i] = groups[k][v] end
  id = c_tagset(unpack(list, 1, n))
  node[0] = id
  return id
end

return tags
