-- Benchmark hook (bench.sh --hooks): a response() checking the body, the
-- same script for wrk and volley (wrk ignores the return values).
local bad = 0

response = function(status, headers, body)
  if status ~= 200 or not body:find("hello", 1, true) then
    bad = bad + 1
    return false, "unexpected body"
  end
end
