-- HTML pages for flows: r:html() parses a response's body (C, libgumbo:
-- src/markup/html_doc.c) into a document, once per response and only when
-- the script asks; doc:find(selector) returns a selection, as k6's
-- parseHTML(body).find(selector) does. The parse allocates in C, off the
-- request path. A flow frees a document with its response, when the user
-- sends its next request (html.release); a document read after that is
-- an error that says so, as a response is. One never released (volley.testing's)
-- is freed by the collector.
local ffi = require("ffi")
local api = require("volley.api")

local html = {}

local lower = string.lower
local lenbuf = ffi.new("size_t[1]")
local errbuf = ffi.new("char[256]")
local nodes_out = ffi.new("struct html_node *const *[1]")
local node_array = ffi.typeof("struct html_node *[?]")

local doc_mt, sel_mt = {}, {}
local doc_methods, sel_methods = {}, {}
doc_mt.__index = function(_, k)
  local m = doc_methods[k]
  if m == nil then
    error(("a document has no %s (it has find)"):format(type(k) == "string" and '"' .. k .. '"' or tostring(k)), 2)
  end
  return m
end
sel_mt.__index = function(_, k)
  local m = sel_methods[k]
  if m == nil then
    error(("a selection has no %s (it has size, attr, text, each, first, last and eq)"):format(
      type(k) == "string" and '"' .. k .. '"' or tostring(k)), 2)
  end
  return m
end

-- A selection: { doc, nodes (a cdata array, 0-based), n }. It keeps its
-- document, so its nodes stay valid until the document is released.
local function selection(doc, nodes, n)
  return setmetatable({ doc, nodes, n }, sel_mt)
end

-- The document of the page s (a string): { cdata struct html_doc * (freed
-- by the collector, or by html.release: then false) }.
function html.parse(s)
  local d = ffi.gc(api.c.html_parse(s, #s), api.c.html_free)
  return setmetatable({ d }, doc_mt)
end

-- Frees the documents of the list docs now.
function html.release(docs)
  for i = 1, #docs do
    local d = docs[i][1]
    if d then
      ffi.gc(d, nil)
      api.c.html_free(d)
      docs[i][1] = false
    end
  end
end

-- doc's struct html_doc *, or an error (at level, from the caller) when it
-- was released.
local function live(doc, level)
  local d = doc[1]
  if not d then
    error("a page (r:html()) was read after its user sent the next request: it is valid until then"
      .. " (keep what you need, e.g. local token = doc:find(...):attr(\"value\"))", level + 1)
  end
  return d
end

-- doc:find(selector): the elements that match, in document order; an
-- error at the script's line when the selector does not parse (fn names
-- the call in it).
local function find(doc, selector, fn)
  if type(selector) ~= "string" then
    error(("%s: the selector must be a string, not a %s"):format(fn, type(selector)), 3)
  end
  local n = api.c.html_find(live(doc, 3), selector, #selector, nodes_out, errbuf, ffi.sizeof(errbuf))
  if n < 0 then
    error(("%s: bad selector %s: %s"):format(fn, ("%q"):format(selector):gsub("\\\n", "\\n"), ffi.string(errbuf)), 3)
  end
  local nodes = node_array(n)
  if n > 0 then ffi.copy(nodes, nodes_out[0], n * ffi.sizeof("struct html_node *")) end
  return selection(doc, nodes, n)
end

function doc_methods.find(doc, selector)
  local sel = find(doc, selector, "r:html():find")
  return sel -- not a tail call: find's errors are at the script's line, 2 frames up
end

function sel_methods.size(sel) return sel[3] end

-- The first element's attribute name (any case), or nil (no element, or
-- no such attribute).
function sel_methods.attr(sel, name)
  if type(name) ~= "string" then error(("sel:attr: the name must be a string, not a %s"):format(type(name)), 2) end
  live(sel[1], 2)
  if sel[3] == 0 then return nil end
  local p = api.c.html_attr(sel[2][0], lower(name), lenbuf)
  if p == nil then return nil end
  return ffi.string(p, lenbuf[0])
end

-- The first element's text content (its descendants' text), or nil when
-- the selection is empty.
function sel_methods.text(sel)
  local d = live(sel[1], 2)
  if sel[3] == 0 then return nil end
  local p = api.c.html_text(d, sel[2][0], lenbuf)
  return ffi.string(p, lenbuf[0])
end

-- The i-th element (1-based; negative from the end) as a selection of
-- one, or an empty selection.
function sel_methods.eq(sel, i)
  if type(i) ~= "number" or i % 1 ~= 0 then
    error(("sel:eq: the index must be an integer, not %s"):format(tostring(i)), 2)
  end
  local n = sel[3]
  if i < 0 then i = n + 1 + i end
  if i < 1 or i > n then return selection(sel[1], node_array(0), 0) end
  local one = node_array(1)
  one[0] = sel[2][i - 1]
  return selection(sel[1], one, 1)
end

function sel_methods.first(sel) return sel_methods.eq(sel, 1) end
function sel_methods.last(sel) return sel_methods.eq(sel, -1) end

-- fn(i, element) for each element in order (i 1-based, element a
-- selection of one); stops early when fn returns false.
function sel_methods.each(sel, fn)
  if type(fn) ~= "function" then error(("sel:each: a function expected, not a %s"):format(type(fn)), 2) end
  for i = 1, sel[3] do
    if fn(i, sel_methods.eq(sel, i)) == false then break end
  end
  return sel
end

sel_mt.__tostring = function(sel) return ("selection of %d element%s"):format(sel[3], sel[3] == 1 and "" or "s") end
doc_mt.__tostring = function() return "HTML document" end

return html
