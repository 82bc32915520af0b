-- Benchmark hook (bench.sh --hooks): a request() building a dynamic path
-- and header per request, the same script for wrk and volley.
local n = 0

request = function()
  n = n + 1
  return wrk.format(nil, "/item/" .. n, { ["X-Request-Id"] = tostring(n) })
end
