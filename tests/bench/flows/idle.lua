-- Benchmark script (tests/bench/flows.sh, memory): the same idle
-- connections as sleepy.lua's users, without a flow. delay() returns 0 for
-- the thread's first N calls (N is the word after `--`) and 10 minutes
-- after that: each connection sends one request and then stays quiet.
local n, calls = 0, 0

function init(args)
  n = tonumber(args[1] or "") or 0
end

function delay()
  calls = calls + 1
  return calls <= n and 0 or 600000
end
