-- A trace handler for the JIT tests (tests/integration/*/test_*_jit.sh),
-- attached as jit.v attaches its own (jit.attach(f, "trace")): each trace
-- that aborts is written to TRACE_LOG .. thread as one line,
--     abort START -- REASON at WHERE
-- START where the trace began, WHERE where it stopped (as jit.v prints
-- them). Loaded by the test scripts with dofile(TRACE_ABORTS_LUA).
local util = require("jit.util")
local vmdef = require("jit.vmdef")

local function loc(func, pc)
  local fi = util.funcinfo(func, pc)
  return fi.loc or (fi.ffid and vmdef.ffnames[fi.ffid]) or "C"
end

-- Starts the log of this thread's state (in init()).
return function()
  local out = assert(io.open(assert(os.getenv("TRACE_LOG")) .. volley.thread, "w"))
  local start = "?"
  jit.attach(function(what, _, func, pc, err, info)
    if what == "start" then
      start = loc(func, pc)
    elseif what == "abort" then
      if type(err) == "number" then
        err = vmdef.traceerr[err]:format(type(info) == "function" and loc(info) or info)
      end
      out:write(("abort %s -- %s at %s\n"):format(start, tostring(err), loc(func, pc)))
      out:flush()
    end
  end, "trace")
end
