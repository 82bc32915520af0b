-- lua/volley/multipart.lua: multipart/form-data bodies (RFC 7578) as
-- opts.multipart builds them, read back with a parser of our own here;
-- and volley.flow_http.extract (r:extract).
package.path = "lua/?.lua;" .. package.path
local multipart = require("volley.multipart")
local http = require("volley.flow_http")

-- A reader of a file of the given bytes (volley.file's reader).
local function bytes_reader(s)
  return function() return function() return s end end
end

local function file(path, ctype, filename, bytes)
  return multipart.file("volley.file", path, ctype, filename, bytes_reader(bytes or "x"), 1)
end

-- The parts of body with boundary b: a list of { headers = {...}, data = "..." }.
local function parse(body, ctype)
  local b = ctype:match("^multipart/form%-data; boundary=(.+)$")
  assert.truthy(b, ctype)
  local dash = "--" .. b
  assert.are.equal(dash .. "\r\n", body:sub(1, #dash + 2))
  assert.are.equal("\r\n" .. dash .. "--\r\n", body:sub(-(#dash + 6)))
  local parts = {}
  local at = #dash + 3
  while true do
    local s = body:find("\r\n" .. dash, at, true)
    local chunk = body:sub(at, s - 1)
    local head, data = chunk:match("^(.-)\r\n\r\n(.*)$")
    local headers = {}
    for line in (head .. "\r\n"):gmatch("(.-)\r\n") do
      local k, v = line:match("^([^:]+): (.*)$")
      headers[k:lower()] = v
    end
    parts[#parts + 1] = { headers = headers, data = data }
    at = s + #dash + 2
    if body:sub(at, at + 1) == "--" then break end
    at = at + 2
  end
  return parts, b
end

describe("multipart.body", function()
  it("sends a table's fields sorted by name, files with their type and filename", function()
    local f = file("dir/photo.JPG", nil, nil, "\0\r\n--bin\r\n")
    local body, ctype = multipart.body("u:post", { title = "hi", n = 42, photo = f }, 1)
    local parts = parse(body, ctype)
    assert.are.equal(3, #parts)
    assert.are.equal('form-data; name="n"', parts[1].headers["content-disposition"])
    assert.are.equal("42", parts[1].data)
    assert.are.equal('form-data; name="photo"; filename="photo.JPG"', parts[2].headers["content-disposition"])
    assert.are.equal("image/jpeg", parts[2].headers["content-type"])
    assert.are.equal("\0\r\n--bin\r\n", parts[2].data)
    assert.are.equal("hi", parts[3].data)
    assert.is_nil(parts[3].headers["content-type"])
  end)

  it("keeps a list of pairs in order, repeated names too", function()
    local parts = parse(multipart.body("u:post", { { "z", "1" }, { "a", "2" }, { "z", "3" } }, 1))
    assert.are.same({ "1", "2", "3" }, { parts[1].data, parts[2].data, parts[3].data })
    assert.are.equal('form-data; name="z"', parts[3].headers["content-disposition"])
  end)

  it("escapes quotes, CR and LF in names and filenames as browsers do", function()
    local f = file("a.bin", "application/x-y", 'a"b\r\nc.txt')
    local parts = parse(multipart.body("u:post", { ['we"ird\r\n'] = f }, 1))
    assert.are.equal('form-data; name="we%22ird%0D%0A"; filename="a%22b%0D%0Ac.txt"',
      parts[1].headers["content-disposition"])
    assert.are.equal("application/x-y", parts[1].headers["content-type"])
  end)

  it("gives a file's type from its extension, else application/octet-stream", function()
    assert.are.equal("image/png", file("x.png").ctype)
    assert.are.equal("application/json", file("a/b.c/x.JSON").ctype)
    assert.are.equal("application/octet-stream", file("x.weird").ctype)
    assert.are.equal("application/octet-stream", file("noext").ctype)
    assert.are.equal("noext", file("a/noext").filename)
  end)

  it("picks another boundary when a part holds it", function()
    local _, ctype = multipart.body("u:post", { a = "1" }, 1)
    local b1 = ctype:match("boundary=(.+)$")
    assert.are.equal(32, #b1:match("^volley%-(%x+)$"))
    -- a text field, then a file, that hold the boundary in use
    local body, ctype2 = multipart.body("u:post", { a = "x--" .. b1 .. "y" }, 1)
    local b2 = ctype2:match("boundary=(.+)$")
    assert.are_not.equal(b1, b2)
    assert.are.equal("x--" .. b1 .. "y", parse(body, ctype2)[1].data)
    local f = file("f.bin", nil, nil, "\r\n--" .. b2 .. "--\r\n")
    local body3, ctype3 = multipart.body("u:post", { f = f }, 1)
    assert.are_not.equal(b2, ctype3:match("boundary=(.+)$"))
    assert.are.equal("\r\n--" .. b2 .. "--\r\n", parse(body3, ctype3)[1].data)
  end)

  it("refuses what is not a field, with the field's name", function()
    assert.has_error(function() multipart.body("u:post", { flag = true }, 1) end,
      'u:post: multipart field "flag" is a boolean (a string, a number or volley.file(path))')
    assert.has_error(function() multipart.body("u:post", { { "a", "1" }, b = "2" }, 1) end,
      'u:post: opts.multipart mixes a list of {name, value} pairs with the key "b" (give one or the other)')
    assert.has_error(function() multipart.body("u:post", { { "a" } }, 1) end,
      "u:post: opts.multipart[1] is not a {name, value} pair (a non-empty name and a value)")
  end)

  it("refuses a file it cannot read, naming the path", function()
    assert.has_error(function() multipart.file("volley.file", "/no/such/file.jpg", nil, nil, nil, 1) end,
      "volley.file: /no/such/file.jpg: No such file or directory")
    assert.has_error(function() file("x.jpg", "image/jpeg\r\nX: y") end,
      'volley.file: the content type must be a non-empty string without CR, LF or NUL, not "image/jpeg\\13\\nX: y"')
  end)

  it("is exclusive with body, json and form", function()
    assert.has_error(function() http.check_opts("u:post", { form = {}, multipart = {} }, 1) end,
      "u:post: give one of body, json, form and multipart")
  end)
end)

describe("http.extract (r:extract)", function()
  local page = '<meta name="csrf-token" content="abc"><p>[1]</p><p>[2]</p><i>x'
  it("gives the text between the first left and the next right", function()
    assert.are.equal("abc", http.extract(page, 'content="', '"', nil, 1))
    assert.are.equal("[1]", http.extract(page, "<p>", "</p>", nil, 1))
    assert.are.equal("", http.extract("ab", "a", "b", nil, 1))
  end)
  it("takes its strings plainly, not as patterns", function()
    assert.are.equal("1", http.extract("x[1].y", "[", "]", nil, 1))
    assert.are.equal("b", http.extract("a%.b%.c", "%.", "%.", nil, 1))
  end)
  it("gives nil when left or right is absent", function()
    assert.is_nil(http.extract(page, "<q>", "</q>", nil, 1))
    assert.is_nil(http.extract(page, "<i>", "</i>", nil, 1))
  end)
  it("gives every match with all, not overlapping", function()
    assert.are.same({ "[1]", "[2]" }, http.extract(page, "<p>", "</p>", "all", 1))
    assert.are.same({}, http.extract(page, "<q>", "</q>", "all", 1))
    assert.are.same({ "a", "b" }, http.extract("|a||b|", "|", "|", "all", 1))
  end)
  it("refuses empty or non-string bounds", function()
    assert.has_error(function() http.extract(page, "", "x", nil, 1) end,
      'r:extract: left and right must be non-empty strings, not "" and "x"')
    assert.has_error(function() http.extract(page, "a", "b", "every", 1) end,
      'r:extract: the third argument is "all" or nothing, not "every"')
  end)
end)
