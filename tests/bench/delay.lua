-- Benchmark script (bench.sh --tls, memory): each connection waits a second
-- after every response, so 2,000 connections stay open and nearly idle.
-- The same script for wrk and volley.
function delay()
  return 1000
end
