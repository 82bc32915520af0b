-- test_llm_jit.sh's script: volley llm (the bundled scripts.llm, as
-- `volley llm` runs it) with every thread's traces watched by a trace
-- handler (trace_aborts.lua), as jit.v would watch them.
local s = require("scripts.llm")
local init = s.init

function s.init(args)
  dofile(assert(os.getenv("TRACE_ABORTS_LUA")))()
  return init(args)
end

return s
