-- volley llm's prompts: vLLM bench serve's random, sharegpt and custom
-- datasets without a tokenizer. A token is a word here: the random dataset
-- draws N words from a fixed vocabulary, and a file's prompt and answer are
-- counted in whitespace-separated words. Everything is seeded by --seed
-- and nothing else, so every shard and thread sees the same list, and
-- prompt k of the random dataset is a function of (seed, k) alone.
--
-- build(o, read) returns a list of samples { prompt = s | messages = t,
-- prompt_len = n, output_len = n }, or nil and one line naming the
-- dataset, the file and the line. read(path) returns the file's text, or
-- nil and the system's message (io by default; the specs pass a table).
local json = require("volley.json")

local M = {}

-- The vocabulary of the random dataset: short, common, one token each in
-- most tokenizers.
M.VOCAB = {}
for w in ([[the of and to in is was for that with on as by at from his her this
which are have had not but be an were they their one all has been there can
more when who will would no out so what up about into than them its time only
some could new these two may then first any like now my over such our man me
even most made after also did many before must years back where much your way
well down should because each just those people how too little state good very
make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since
against go came right used take three states himself few house use during
without again place around however home small found mrs thought went say part
once general high upon school every don does got united left number course war
until always away something fact though water less public put think almost hand
enough far took head yet government system better set told nothing night end
why called didn eyes find going look asked later knew point next city business
give group toward young days let room president side social given present
several order national possible rather second face per among form important
often things looking early white case john become large big need four within
felt along children saw best church ever least power development light thing
seemed family interest want members mind country area others done turned
although open god service certain kind problem began different door thus help
sense means whole matter perhaps itself york times law human line above name
example action company hands local show whether five history gave today either
act feet across taken past quite anything seen having death experience body
word half really field week words already information tell together college
shall money period held keep sure free real probably seems behind cannot miss
political air question making office brought whose special heard major
problems ago became federal moment study available known result street economic
boy position reason change south board individual job areas society]]):gmatch("%a+") do
  M.VOCAB[#M.VOCAB + 1] = w
end

local MOD = 2147483647 -- Park and Miller's generator: exact in doubles

-- A generator for stream (seed, k): a function returning integers in [lo, hi].
function M.rng(seed, k)
  -- Mix seed and k into a state in [1, MOD - 1], the same on every platform.
  local x = (seed % MOD) * 16807 % MOD
  x = (x + (k % MOD) * 48271 + 1) % MOD
  for _ = 1, 3 do x = x * 48271 % MOD end
  if x == 0 then x = 1 end
  return function(lo, hi)
    x = x * 48271 % MOD
    return lo + x % (hi - lo + 1)
  end
end

-- vLLM's bounds for a length L and ratio r: [floor(L(1-r)), ceil(L(1+r))].
function M.bounds(len, ratio, least)
  local lo = math.floor(len * (1 - ratio) + 1e-9)
  local hi = math.ceil(len * (1 + ratio) - 1e-9)
  if least then lo, hi = math.max(lo, least), math.max(hi, least) end
  return lo, hi
end

local function words(r, n, out)
  local v, nv = M.VOCAB, #M.VOCAB
  for _ = 1, n do out[#out + 1] = v[r(1, nv)] end
  return out
end

-- Prompt k (0-based) of the random dataset.
function M.random_sample(o, k)
  local in_lo, in_hi = M.bounds(o.random_input_len, o.random_range_ratio)
  local out_lo, out_hi = M.bounds(o.random_output_len, o.random_range_ratio, 1)
  local r = M.rng(o.seed, k + 1)
  local input_len, output_len = r(in_lo, in_hi), r(out_lo, out_hi)
  local w = {}
  if o.random_prefix_len > 0 then words(M.rng(o.seed, 0), o.random_prefix_len, w) end
  words(r, input_len, w)
  return { prompt = table.concat(w, " "), prompt_len = #w, output_len = output_len }
end

-- Whitespace-separated words of s.
function M.count_words(s)
  local n = 0
  for _ in s:gmatch("%S+") do n = n + 1 end
  return n
end

-- vLLM's shuffle (random.shuffle with the seed), here with the seeded generator.
local function shuffle(list, seed)
  local r = M.rng(seed, 0x5eed)
  for i = #list, 2, -1 do
    local j = r(1, i)
    list[i], list[j] = list[j], list[i]
  end
end

-- The first n samples of list, cycling when it has fewer (vLLM oversamples).
local function take(list, n)
  local out = {}
  for i = 1, n do out[i] = list[(i - 1) % #list + 1] end
  return out
end

-- ShareGPT: a JSON array of { conversations = { {value = prompt}, {value =
-- answer}, ... } }, filtered as vLLM does (at least 4 words each, a
-- prompt of at most 1024 and both at most 2048; with --sharegpt-output-len
-- only the prompt's bounds).
function M.sharegpt(o, text, path)
  local data, err = json.decode(text)
  if not data then return nil, ("--dataset-path %s: not JSON (%s)"):format(path, err) end
  if type(data) ~= "table" or (next(data) ~= nil and data[1] == nil) then
    return nil, ("--dataset-path %s: not a JSON array of conversations (ShareGPT's format)"):format(path)
  end
  local list = {}
  for _, entry in ipairs(data) do
    local conv = type(entry) == "table" and entry.conversations
    if type(conv) == "table" and #conv >= 2 and type(conv[1]) == "table" and type(conv[2]) == "table"
        and type(conv[1].value) == "string" and type(conv[2].value) == "string" then
      list[#list + 1] = { conv[1].value, conv[2].value }
    end
  end
  if not o.disable_shuffle then shuffle(list, o.seed) end
  local out = {}
  for _, pair in ipairs(list) do
    if #out == o.num_prompts then break end
    local prompt_len = M.count_words(pair[1])
    local output_len = o.sharegpt_output_len or M.count_words(pair[2])
    local fixed = o.sharegpt_output_len ~= nil
    local ok = prompt_len >= 4 and (fixed or output_len >= 4)
      and prompt_len <= 1024 and (fixed or prompt_len + output_len <= 2048)
    if ok then out[#out + 1] = { prompt = pair[1], prompt_len = prompt_len, output_len = output_len } end
  end
  if #out == 0 then
    return nil, ("--dataset-path %s: no conversation has a prompt and an answer of 4 to 1024 words"):format(path)
  end
  return take(out, o.num_prompts)
end

-- custom: JSON lines, each an object with "prompt" (a string) or
-- "messages" (a chat's list), and optionally "output_len".
function M.custom(o, text, path)
  local list, n = {}, 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:match("%S") then
      local v, err = json.decode(line)
      if type(v) ~= "table" then
        return nil, ("--dataset-path %s:%d: not a JSON object (%s)"):format(path, n, err or type(v))
      end
      local s = { output_len = o.custom_output_len }
      if v.output_len ~= nil then
        if type(v.output_len) ~= "number" or v.output_len < 1 or v.output_len % 1 ~= 0 then
          return nil, ("--dataset-path %s:%d: output_len is not a whole number from 1"):format(path, n)
        end
        s.output_len = v.output_len
      end
      if type(v.prompt) == "string" then
        s.prompt, s.prompt_len = v.prompt, M.count_words(v.prompt)
      elseif type(v.messages) == "table" and v.messages[1] then
        if o.kind ~= "chat" then
          return nil, ("--dataset-path %s:%d: messages need --backend openai-chat"):format(path, n)
        end
        local w = 0
        for _, m in ipairs(v.messages) do
          if type(m) ~= "table" or type(m.content) ~= "string" then
            return nil, ("--dataset-path %s:%d: a message without a string content"):format(path, n)
          end
          w = w + M.count_words(m.content)
        end
        s.messages, s.prompt_len = v.messages, w
      else
        return nil, ("--dataset-path %s:%d: no \"prompt\" string or \"messages\" list"):format(path, n)
      end
      list[#list + 1] = s
    end
  end
  if #list == 0 then return nil, ("--dataset-path %s: no prompt"):format(path) end
  if not o.disable_shuffle then shuffle(list, o.seed) end
  return take(list, o.num_prompts)
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("*a")
  f:close()
  return text
end

function M.build(o, read)
  if o.dataset_name == "random" then
    local out = {}
    for k = 0, o.num_prompts - 1 do out[k + 1] = M.random_sample(o, k) end
    return out
  end
  local text, err = (read or read_file)(o.dataset_path)
  if not text then return nil, ("--dataset-path: %s"):format(err) end
  if o.dataset_name == "sharegpt" then return M.sharegpt(o, text, o.dataset_path) end
  return M.custom(o, text, o.dataset_path)
end

return M
