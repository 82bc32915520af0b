-- `volley convert`: its command line, the files it reads and writes, and
-- its exit status. src/cli/cmd_convert.c calls main(args) in a state of
-- its own; the work is in volley.convert.har and .flowtext (HAR to a flow)
-- and volley.convert.shell and .curl (a curl command to a request).
local har = require("volley.convert.har")
local flowtext = require("volley.convert.flowtext")
local shell = require("volley.convert.shell")
local curl = require("volley.convert.curl")

local main = {}

main.USAGE = [[
Usage: volley convert [options] RECORDING.har
       volley convert --curl 'curl ...'

Turns a browser's HAR recording into a flow script (requests in order,
assets started together as u:batch, recorded gaps as u:sleep), or a curl
command line into a u:request{...} table. The script goes to stdout.
RECORDING.har may be - for stdin.

  -o, --output FILE   write the script to FILE instead of stdout
      --no-assets     leave out images, CSS, JavaScript, fonts and media
      --think-min T   gaps shorter than T are not think time (default 100ms)
      --curl LINE     convert a curl command line (one word: quote it)
      --flow          with --curl: a whole one-request flow script
  -h, --help          this text

  volley convert recording.har > flow.lua
  volley convert --no-assets -o api.lua recording.har
  volley convert --curl 'curl -X POST -H "Content-Type: application/json" -d "{}" http://127.0.0.1:8080/api'

docs/convert.md has what is kept and left out, and why.
]]

-- A duration for --think-min: seconds, or with ms/s.
local function seconds(v)
  local n, unit = v:match("^(%d+%.?%d*)(%a*)$")
  n = tonumber(n)
  if not n then return nil end
  if unit == "ms" then return n / 1000 end
  if unit == "s" or unit == "" then return n end
  return nil
end

local parse

-- The settings of args, or nil and one line.
function main.parse(args)
  local ok, o, err = pcall(parse, args)
  if ok then return o, err end
  if type(o) == "table" then return nil, o.msg end
  error(o, 0)
end

function parse(args)
  local o = {}
  local i = 1
  while i <= #args do
    local a = args[i]
    local function value()
      i = i + 1
      if args[i] == nil then error({ msg = a .. ": needs a value" }) end
      return args[i]
    end
    if a == "-h" or a == "--help" then o.help = true
    elseif a == "-o" or a == "--output" then o.output = value()
    elseif a == "--no-assets" then o.no_assets = true
    elseif a == "--flow" then o.flow = true
    elseif a == "--curl" then o.curl = value()
    elseif a == "--think-min" then
      local v = value()
      o.think_min = seconds(v)
      if not o.think_min then return nil, ("--think-min: %q is not a duration (100ms, 0.5s)"):format(v) end
    elseif a:sub(1, 1) == "-" and a ~= "-" then
      return nil, ("unknown option %s (volley convert --help lists them)"):format(a)
    elseif o.input then
      return nil, ("one recording at a time (%s and %s)"):format(o.input, a)
    else
      o.input = a
    end
    i = i + 1
  end
  if o.help then return o end
  if o.curl and o.input then return nil, ("--curl takes the command as one word; %s is left over (quote the whole command)"):format(o.input) end
  if not o.curl and not o.input then return nil, "no recording given (volley convert RECORDING.har, or --curl 'curl ...')" end
  if o.curl and (o.no_assets or o.think_min) then return nil, "--no-assets and --think-min are for a HAR recording, not --curl" end
  if o.flow and not o.curl then return nil, "--flow is for --curl (a HAR always becomes a flow)" end
  return o
end

local function read_file(path)
  if path == "-" then return io.stdin:read("*a") or "" end
  local f, err = io.open(path, "rb")
  if not f then return nil, (err or path):gsub("^" .. path:gsub("%p", "%%%0") .. ": ", "") end
  local text = f:read("*a")
  f:close()
  if not text then return nil, "cannot be read" end
  return text
end

-- The text to write, or nil and one line.
local function convert(o)
  if o.curl then
    local words, err = shell.split(o.curl)
    if not words then return nil, "--curl: " .. err end
    local r
    r, err = curl.parse(words, read_file)
    if not r then return nil, "--curl: " .. err end
    for _, n in ipairs(r.notes) do io.stderr:write("volley convert: --curl: ", n, "\n") end
    return curl.emit(r, o.curl, o.flow)
  end
  local text, err = read_file(o.input)
  if not text then return nil, o.input .. ": " .. err end
  if text == "" then return nil, o.input .. ": empty (a HAR file is JSON)" end
  local h
  h, err = har.read(text, o.input)
  if not h then return nil, err end
  return flowtext.emit(h, { no_assets = o.no_assets, source = o.input, think_min = o.think_min,
    script = o.output or "flow.lua" })
end

-- Runs the command; returns the exit status: 0, 1 when the input cannot
-- be converted or the output written, 2 for a bad command line.
function main.main(args)
  local o, err = main.parse(args)
  if not o then
    io.stderr:write("volley convert: ", err, "\n")
    return 2
  end
  if o.help then
    io.stdout:write(main.USAGE)
    return 0
  end
  local text
  text, err = convert(o)
  if not text then
    io.stderr:write("volley convert: ", err, "\n")
    return 1
  end
  if o.output then
    -- Whole or not at all: written beside, then renamed into place.
    local tmp = o.output .. ".tmp"
    local f, ferr = io.open(tmp, "wb")
    local ok = f and f:write(text) and f:close()
    if ok then ok, ferr = os.rename(tmp, o.output) end
    if not ok then
      if f then os.remove(tmp) end
      ferr = ferr and ferr:gsub("^.-: ([^:]+)$", "%1")
      io.stderr:write("volley convert: -o ", o.output, ": ", ferr or "cannot be written", "\n")
      return 1
    end
  else
    io.stdout:write(text)
    io.stdout:flush()
  end
  return 0
end

return main
