-- How deep the script is in coroutines of its own. Required early in every
-- Lua state (src/script/script.c, after volley.traverse), it wraps
-- coroutine.resume and coroutine.wrap to count the script's resumes under
-- way (depth). A flow's request methods yield to volley, which resumes the
-- users itself (lua_resume, never through these): a u:get inside a
-- coroutine the script made would yield to the script instead and return
-- 1, so flow_http's state() refuses it while depth > 0. Asking
-- coroutine.running() in every request did the same at a cost: it is a C
-- function the JIT cannot compile, and each request's trace stopped there.
local raw_resume, raw_create = coroutine.resume, coroutine.create
local error = error

local M = { depth = 0, raw_resume = raw_resume }

local function resumed(...)
  M.depth = M.depth - 1
  return ...
end

function coroutine.resume(co, ...)
  M.depth = M.depth + 1
  return resumed(raw_resume(co, ...))
end

local resume = coroutine.resume

-- A wrapped coroutine's results, or its error raised again; a message
-- gets the position of the line that called the wrapped function in
-- front, as the builtin's does (level 2: wrapped is a tail call).
local function wrapped(ok, ...)
  if not ok then
    local e = ...
    error(e, type(e) == "string" and 2 or 0)
  end
  return ...
end

-- As the builtin: a function that resumes a new coroutine of f, raising
-- what it raises.
function coroutine.wrap(f)
  local co = raw_create(f)
  return function(...)
    return wrapped(resume(co, ...))
  end
end

return M
