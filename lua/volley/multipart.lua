-- multipart/form-data bodies (RFC 7578) for a flow's requests (opts.multipart)
-- and the files they upload (volley.file). Plain Lua: volley.flow_http
-- builds a request's body with it, for the real user and the fake one of
-- volley.testing alike. A file is read once: volley.file's reader (the
-- bridge's: C reads it once per process, data.c) gives its bytes, made a
-- Lua string once per Lua state at its first upload.
local multipart = {}

local find, concat, sort = string.find, table.concat, table.sort

-- Content types by file extension; any other is application/octet-stream.
local TYPES = {
  jpg = "image/jpeg", jpeg = "image/jpeg", png = "image/png", gif = "image/gif", webp = "image/webp",
  svg = "image/svg+xml", ico = "image/x-icon", bmp = "image/bmp", avif = "image/avif",
  txt = "text/plain", html = "text/html", htm = "text/html", css = "text/css", csv = "text/csv",
  js = "text/javascript", json = "application/json", xml = "application/xml", pdf = "application/pdf",
  zip = "application/zip", gz = "application/gzip", tar = "application/x-tar",
  mp3 = "audio/mpeg", wav = "audio/wav", mp4 = "video/mp4", webm = "video/webm",
}
local DEFAULT_TYPE = "application/octet-stream"

local FILE = {} -- the metatable of file objects
local files = setmetatable({}, { __mode = "k" }) -- the file objects of this state
FILE.__index = function(_, k)
  error(("a file has no field %s (volley.file(path [, content_type [, filename]]) is used as a multipart"
    .. " field's value)"):format(type(k) == "string" and '"' .. k .. '"' or tostring(k)), 2)
end
FILE.__newindex = function() error("a file is read-only", 2) end
FILE.__tostring = function(f) return ("file %s (%s)"):format(rawget(f, "path"), rawget(f, "ctype")) end
FILE.__metatable = false

-- v for a message on one line (%q, with its newlines as \n).
local function shown(v)
  return type(v) == "string" and (("%q"):format(v):gsub("\\\n", "\\n")) or "a " .. type(v)
end

-- The whole file at path read through Lua's io: the reader of a file
-- made outside volley (plain busted); nil and the reason when it cannot
-- be read.
local function io_reader(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s, rerr = f:read("*a")
  f:close()
  if not s then return nil, path .. ": " .. tostring(rerr) end
  return function() return s end
end

-- volley.file(path [, ctype [, filename]]) for fn (its name in messages):
-- a file object. reader(path) returns a function that gives the file's
-- bytes, or nil and one line naming the path; errors at level (as
-- error's, from the caller). The file is read here, at load: a file that
-- is missing fails the script before the run starts.
function multipart.file(fn, path, ctype, filename, reader, level)
  level = level + 1
  if type(path) ~= "string" or path == "" or find(path, "\0", 1, true) then
    error(("%s: the path must be a non-empty string without NUL, not %s"):format(fn, shown(path)), level)
  end
  local base = path:match("([^/]*)$")
  if ctype == nil then
    local ext = base:match("%.([%w]+)$")
    ctype = ext and TYPES[ext:lower()] or DEFAULT_TYPE
  elseif type(ctype) ~= "string" or ctype == "" or find(ctype, "[\r\n%z]") then
    error(("%s: the content type must be a non-empty string without CR, LF or NUL, not %s"):format(fn,
      shown(ctype)), level)
  end
  if filename == nil then
    filename = base ~= "" and base or path
  elseif type(filename) ~= "string" or filename == "" then
    error(("%s: the filename must be a non-empty string, not %s"):format(fn, shown(filename)), level)
  end
  local get, err = (reader or io_reader)(path)
  if not get then error(("%s: %s"):format(fn, err), level) end
  local f = setmetatable({ path = path, ctype = ctype, filename = filename, get = get, bytes = false,
                           clear = {} }, FILE)
  files[f] = true
  return f
end

function multipart.is_file(v)
  return files[v] == true
end

-- The file's bytes, a Lua string made at its first use in this state.
local function bytes_of(f)
  local s = rawget(f, "bytes")
  if not s then
    s = rawget(f, "get")()
    rawset(f, "bytes", s)
  end
  return s
end

-- A name or filename in a Content-Disposition's quotes, as browsers send
-- it (WHATWG's multipart/form-data encoding, which RFC 7578 4.2 leaves to
-- it): '"' as %22, CR as %0D, LF as %0A.
local ESC = { ['"'] = "%22", ["\r"] = "%0D", ["\n"] = "%0A" }
local function quoted(s)
  return '"' .. s:gsub('["\r\n]', ESC) .. '"'
end

-- This state's boundary: "volley-" and 32 hex digits (128 bits) from the
-- kernel's random source (or math.random where it cannot be read), made
-- at the first multipart body and again whenever a part holds it.
local boundary

local function new_boundary()
  local f = io.open("/dev/urandom", "rb")
  local raw = f and f:read(16)
  if f then f:close() end
  local hex = {}
  for i = 1, 16 do
    hex[i] = ("%02x"):format(raw and #raw == 16 and raw:byte(i) or math.random(0, 255))
  end
  return "volley-" .. concat(hex)
end

-- Whether the boundary b occurs in any of the parts' bytes (names and
-- string values looked at each time, files once per boundary).
local function occurs(b, names, values)
  for i = 1, #names do
    if find(names[i], b, 1, true) then return true end
    local v = values[i]
    if type(v) == "string" then
      if find(v, b, 1, true) then return true end
    else
      local clear = rawget(v, "clear")
      local c = clear[b]
      if c == nil then
        c = not find(bytes_of(v), b, 1, true)
        clear[b] = c
      end
      if not c then return true end
      if find(rawget(v, "filename"), b, 1, true) then return true end
    end
  end
  return false
end

-- The fields of t in order: names and values (a string or a file), for
-- fn; errors at level. A table of name = value is sent sorted by name; a
-- list of { name, value } pairs in its order (names may repeat).
local function fields_of(fn, t, level)
  level = level + 1
  local names, values = {}, {}
  local function value_of(name, v)
    if type(v) == "number" then return tostring(v) end
    if type(v) == "string" or multipart.is_file(v) then return v end
    error(("%s: multipart field %q is a %s (a string, a number or volley.file(path))"):format(fn, name,
      type(v)), level + 1)
  end
  if t[1] ~= nil then
    for k in pairs(t) do
      if type(k) ~= "number" or k < 1 or k > #t or k % 1 ~= 0 then
        error(("%s: opts.multipart mixes a list of {name, value} pairs with the key %s (give one or the other)")
          :format(fn, type(k) == "string" and ("%q"):format(k) or tostring(k)), level)
      end
    end
    for i = 1, #t do
      local pair = t[i]
      if type(pair) ~= "table" or type(pair[1]) ~= "string" or pair[1] == "" or pair[2] == nil then
        error(("%s: opts.multipart[%d] is not a {name, value} pair (a non-empty name and a value)"):format(fn, i),
          level)
      end
      names[i], values[i] = pair[1], value_of(pair[1], pair[2])
    end
    return names, values
  end
  for k in pairs(t) do
    if type(k) ~= "string" or k == "" then
      error(("%s: opts.multipart's field names must be non-empty strings, not %s"):format(fn,
        type(k) == "string" and "an empty one" or tostring(k)), level)
    end
    names[#names + 1] = k
  end
  sort(names)
  for i, k in ipairs(names) do values[i] = value_of(k, t[k]) end
  return names, values
end

-- The body of opts.multipart t and its Content-Type (with the boundary),
-- for fn; errors at level (as error's, from the caller).
function multipart.body(fn, t, level)
  local names, values = fields_of(fn, t, level + 1)
  if not boundary then boundary = new_boundary() end
  while occurs(boundary, names, values) do boundary = new_boundary() end
  local dash = "--" .. boundary
  local out, n = {}, 0
  for i = 1, #names do
    local v = values[i]
    n = n + 1
    if type(v) == "string" then
      out[n] = dash .. "\r\nContent-Disposition: form-data; name=" .. quoted(names[i]) .. "\r\n\r\n"
      out[n + 1] = v
    else
      out[n] = dash .. "\r\nContent-Disposition: form-data; name=" .. quoted(names[i]) .. "; filename="
        .. quoted(rawget(v, "filename")) .. "\r\nContent-Type: " .. rawget(v, "ctype") .. "\r\n\r\n"
      out[n + 1] = bytes_of(v)
    end
    out[n + 2] = "\r\n"
    n = n + 2
  end
  out[n + 1] = dash .. "--\r\n"
  return concat(out, "", 1, n + 1), "multipart/form-data; boundary=" .. boundary
end

return multipart
