-- Benchmark script (tests/bench/flows.sh): the requests of get_loop.lua,
-- GETs of /items/1..K in turn on each connection, built by request(conn)
-- with wrk.format, the request() way of sending them.
local s = {}

local k = 10

function s.init(args)
  if args[1] then k = assert(tonumber(args[1]), "request_loop.lua: K (a number) expected") end
end

local reqs = {}
for i = 1, 100 do reqs[i] = "/items/" .. i end

function s.connect(conn)
  conn.i = 0
end

function s.request(conn)
  conn.i = conn.i % k + 1
  return wrk.format("GET", reqs[conn.i])
end

return s
