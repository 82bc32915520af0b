-- URI references (RFC 3986): splitting one into its five components
-- (Appendix B), resolving a reference against a base URI (section 5.2:
-- merge, remove_dot_segments) and putting the components back together
-- (5.3). Used where a flow follows a redirect's Location. Plain Lua 5.1 /
-- LuaJIT, no FFI: volley.testing runs it under plain busted.
--
-- Contract: strings in, strings out, never raises on a string. Nothing is
-- percent-decoded, case-folded or checked against the grammar: a
-- reference is taken apart as Appendix B's regular expression does, so
-- every string is some reference. The resolution is the strict one of
-- 5.2.2 ("http:g" is the absolute URI http:g, not a relative "g").
local uri = {}

local find, sub, match, concat = string.find, string.sub, string.match, table.concat
local remove = table.remove

-- The components of reference s: { scheme, authority, path, query,
-- fragment }; scheme, authority, query and fragment are nil when absent
-- (an empty "?" is a query "", not none), path is always a string.
function uri.parse(s)
  local c = {}
  local rest = s
  local scheme = match(rest, "^([^:/?#]+):")
  if scheme then
    c.scheme = scheme
    rest = sub(rest, #scheme + 2)
  end
  if sub(rest, 1, 2) == "//" then
    local authority = match(rest, "^//([^/?#]*)")
    c.authority = authority
    rest = sub(rest, #authority + 3)
  end
  local path = match(rest, "^[^?#]*")
  c.path = path
  rest = sub(rest, #path + 1)
  if sub(rest, 1, 1) == "?" then
    local query = match(rest, "^%?([^#]*)")
    c.query = query
    rest = sub(rest, #query + 2)
  end
  if sub(rest, 1, 1) == "#" then c.fragment = sub(rest, 2) end
  return c
end

-- The path without its "." and ".." segments (5.2.4), step by step as the
-- RFC gives it: output is a list of segments, each with its leading "/"
-- when it had one, so "remove the last segment" is one table.remove.
function uri.remove_dot_segments(path)
  if not find(path, ".", 1, true) then return path end -- no dot, no dot segment
  local input, out = path, {}
  while input ~= "" do
    if sub(input, 1, 3) == "../" then
      input = sub(input, 4)                                -- A
    elseif sub(input, 1, 2) == "./" then
      input = sub(input, 3)                                -- A
    elseif sub(input, 1, 3) == "/./" then
      input = sub(input, 3)                                -- B
    elseif input == "/." then
      input = "/"                                          -- B
    elseif sub(input, 1, 4) == "/../" then
      input = sub(input, 4)                                -- C
      remove(out)
    elseif input == "/.." then
      input = "/"                                          -- C
      remove(out)
    elseif input == "." or input == ".." then
      input = ""                                           -- D
    else
      local seg = match(input, "^/?[^/]*")                 -- E
      out[#out + 1] = seg
      input = sub(input, #seg + 1)
    end
  end
  return concat(out)
end

-- The merged path of a relative-path reference (5.2.3).
local function merge(base, path)
  if base.authority and base.path == "" then return "/" .. path end
  local dir = match(base.path, "^(.*/)")
  return dir and dir .. path or path
end

-- The string of components c (5.3).
function uri.recompose(c)
  local out = {}
  if c.scheme then out[#out + 1] = c.scheme .. ":" end
  if c.authority then out[#out + 1] = "//" .. c.authority end
  out[#out + 1] = c.path
  if c.query then out[#out + 1] = "?" .. c.query end
  if c.fragment then out[#out + 1] = "#" .. c.fragment end
  return concat(out)
end

-- The target URI of reference ref against the absolute URI base (5.2.2,
-- strict): a network-path reference ("//h/x") takes base's scheme only, an
-- absolute-path one ("/x") base's scheme and authority, a query-only one
-- ("?q") base's path too, an empty one base's path and query; ref's
-- fragment is kept (a request drops it: uri.without_fragment).
function uri.resolve(base, ref)
  local b, r = uri.parse(base), uri.parse(ref)
  local t = {}
  if r.scheme then
    t.scheme, t.authority, t.path, t.query = r.scheme, r.authority, uri.remove_dot_segments(r.path), r.query
  else
    if r.authority then
      t.authority, t.path, t.query = r.authority, uri.remove_dot_segments(r.path), r.query
    else
      if r.path == "" then
        t.path = b.path
        if r.query then t.query = r.query else t.query = b.query end
      else
        if sub(r.path, 1, 1) == "/" then
          t.path = uri.remove_dot_segments(r.path)
        else
          t.path = uri.remove_dot_segments(merge(b, r.path))
        end
        t.query = r.query
      end
      t.authority = b.authority
    end
    t.scheme = b.scheme
  end
  t.fragment = r.fragment
  return uri.recompose(t)
end

-- s without its fragment (what a request sends: RFC 3986 3.5, RFC 9110
-- 7.1: the fragment stays with the client).
function uri.without_fragment(s)
  local h = find(s, "#", 1, true)
  return h and sub(s, 1, h - 1) or s
end

return uri
