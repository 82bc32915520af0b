-- volley llm's requests: the JSON body vLLM bench serve sends for a
-- sample, and the run's rows (one line per prompt, made once before the
-- run, so that no JSON is encoded while it runs).
--
-- completions: model, prompt, max_tokens, repetition_penalty 1.0, stream,
-- stream_options.include_usage; chat: model, messages (one user message
-- with the prompt, or the dataset's messages), max_completion_tokens,
-- stream, stream_options. Both: ignore_eos when asked, the sampling
-- options given, then --extra-body's fields (which win).
local json = require("volley.json")

local M = {}

local SAMPLING = { "temperature", "top_p", "top_k", "min_p", "frequency_penalty",
                   "presence_penalty", "repetition_penalty" }

-- The body of sample s under settings o, as a table.
function M.fields(o, s)
  local b = { stream = true, stream_options = { include_usage = true } }
  local model = o.served_model_name or o.model
  if model then b.model = model end
  if o.kind == "chat" then
    b.messages = s.messages or { { role = "user", content = s.prompt } }
    b.max_completion_tokens = s.output_len
  else
    b.prompt = s.prompt
    b.max_tokens = s.output_len
    b.repetition_penalty = 1.0
  end
  if o.ignore_eos then b.ignore_eos = true end
  for _, k in ipairs(SAMPLING) do
    if o[k] ~= nil then b[k] = o[k] end
  end
  if o.extra then
    for k, v in pairs(o.extra) do b[k] = v end
  end
  return b
end

-- The body of sample s, as JSON text (no LF or TAB in it: JSON escapes them).
function M.encode(o, s)
  local text = assert(json.encode(M.fields(o, s)))
  return text
end

-- Row k (0-based) of the run's file: "k TAB prompt_len TAB body".
function M.row(o, s, k)
  return ("%d\t%d\t%s"):format(k, s.prompt_len, M.encode(o, s))
end

-- A row back into its parts: k, prompt_len, body.
function M.split(row)
  local a = row:find("\t", 1, true)
  local b = row:find("\t", a + 1, true)
  return tonumber(row:sub(1, a - 1)), tonumber(row:sub(a + 1, b - 1)), row:sub(b + 1)
end

return M
