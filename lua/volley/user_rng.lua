-- Each flow user's own random numbers (its task choices, its between
-- waits): L'Ecuyer's MRG32k3a, whose arithmetic is exact in doubles, so
-- that it is plain Lua (volley.testing runs it under plain busted) and
-- gives the same draws in the binary and in a unit test. A user's
-- generator is seeded from the run's users' seed and the user's id, so the
-- same --seed gives every user the same draws whatever -t is, and users
-- draw independently of each other and of the script's math.random.
local user_rng = {}

local floor = math.floor

local M1, M2 = 4294967087, 4294944443
local A12, A13N, A21, A23N = 1403580, 810728, 527612, 1370589
local NORM = 1 / (M1 + 1)

-- x mod m for |x| < 2^53 (x - q*m is exact there; q's rounding is
-- corrected).
local function mod(x, m)
  local r = x - floor(x / m) * m
  if r < 0 then return r + m end
  if r >= m then return r - m end
  return r
end

-- The generator's next draw in (0, 1).
local function draw(g)
  local p1 = mod(A12 * g[2] - A13N * g[1], M1)
  g[1], g[2], g[3] = g[2], g[3], p1
  local p2 = mod(A21 * g[6] - A23N * g[4], M2)
  g[4], g[5], g[6] = g[5], g[6], p2
  if p1 > p2 then return (p1 - p2) * NORM end
  return (p1 - p2 + M1) * NORM
end

local mt = { __index = { draw = draw } }

-- A generator for user id (a whole number >= 0) of a run whose users'
-- seed is seed (a whole number below 2^53). Both components' states are
-- kept non-zero; the first draws are thrown away, so that neighbouring ids
-- and seeds (whose states differ a little, and a linear generator's
-- differences grow only step by step) start on unrelated draws.
function user_rng.new(seed, id)
  local a, b, c = mod(seed, M1), mod(floor(seed / M1), M1), mod(id, M1)
  local g = setmetatable({ mod(a, M1 - 1) + 1, b, c, mod(c, M2 - 1) + 1, mod(a, M2), mod(b + 7919, M2) }, mt)
  for _ = 1, 24 do draw(g) end
  return g
end

return user_rng
