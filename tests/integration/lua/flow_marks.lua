-- A small flow for the report tests (HTML, --hlog, the progress line):
-- each iteration gets "/" twice, checks "<b>x</b>" (fails every 4th
-- iteration) and "ok", runs the second request in the group
-- `a&b "q",<g>` (HTML and --hlog tag escapes), and every 5th iteration
-- fails with the reason "<i>why</i>". The word after `--`, sleep=MS,
-- adds a think time (for runs that must last).
local s = {}

local think = 0 -- milliseconds

function s.init(args)
  for _, word in ipairs(args) do
    think = tonumber(word:match("^sleep=(%d+)$")) or error("flow_marks: expected sleep=MS, not " .. word, 0)
  end
end

function s.user(u)
  local r = u:get("/", { name = "first" })
  u:check(r.status == 200, "ok")
  u:check(u.iteration % 4 ~= 3, "<b>x</b>")
  if think > 0 then u:sleep(think / 1000) end -- u:sleep takes seconds
  u:group('a&b "q",<g>', function()
    u:get("/", { name = "second" })
  end)
  if u.iteration % 5 == 4 then u:fail("<i>why</i>") end
end

return s
