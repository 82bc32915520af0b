# What a worker's Lua state holds when its script has plain hooks: the
# flow modules (volley.flow, flow_http, cookies, json) and volley.data are
# required at their first use, not by the bridge when every state starts.
# Loaded eagerly they doubled a request() hook's live heap (118 -> 220 KB),
# which the collector walks again for every request's garbage: the hook
# cost about 0.5 us a request more (docs/performance.md, Hooks).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup

# request() and response() as the benchmark's (tests/bench/hook_*.lua); the
# first request of each thread reports the modules loaded and the live heap
# after a full collection, on stderr.
cat > "$S/plain.lua" <<'LUA'
local n, told = 0, false
local lazy = { "volley.flow", "volley.flow_http", "volley.cookies", "volley.json", "volley.data" }
request = function()
  n = n + 1
  if not told then
    told = true
    local loaded = {}
    for _, m in ipairs(lazy) do
      if package.loaded[m] ~= nil then loaded[#loaded + 1] = m end
    end
    collectgarbage("collect")
    io.stderr:write(("heap-check loaded=[%s] kb=%d\n"):format(table.concat(loaded, ","), collectgarbage("count")))
  end
  return wrk.format(nil, "/item/" .. n, { ["X-Request-Id"] = tostring(n) })
end
response = function(status, headers, body)
  if status ~= 200 then return false, "status " .. status end
end
LUA
run_complete plain 20 -c 2 -t 2 -s "$S/plain.lua" "$url/"
check_eq "$(grep -c '^heap-check loaded=\[\] ' "$T/plain.err")" 2 \
    "request(): no flow or data module in either worker's state ($(grep heap-check "$T/plain.err" | tr '\n' ' '))"
# About 100 KB at the first request with the modules left out, 190 KB with
# them (90 KB before flows existed): the bound sits between.
max_kb=$(sed -n 's/^heap-check .* kb=\([0-9]*\)$/\1/p' "$T/plain.err" | sort -n | tail -n 1)
if [ -n "$max_kb" ] && [ "$max_kb" -le 150 ]; then ok; else
    fail "request(): a worker's live Lua heap is ${max_kb:-?} KB (at most 150 expected)"; fi

# volley.data is still there when a script reads it (loaded then), at load
# time as in a hook.
printf 'id\n1\n2\n' > "$S/rows.csv"
cat > "$S/data.lua" <<LUA
assert(package.loaded["volley.data"] == nil, "volley.data loaded before its first use")
local rows = volley.data.csv("$S/rows.csv")
assert(package.loaded["volley.data"] ~= nil, "volley.data not loaded by its use")
request = function()
  assert(volley.data.is(rows), "volley.data.is: not a data file")
  return wrk.format(nil, "/")
end
LUA
run_complete data 4 -c 1 -t 1 -s "$S/data.lua" "$url/"

finish
