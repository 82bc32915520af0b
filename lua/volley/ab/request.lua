-- The request ab sends, byte for byte, from volley.ab.args' settings. ab
-- builds it once and sends the same bytes for every request:
--
--   METHOD path-or-full-URL HTTP/1.0
--   Connection: Keep-Alive              -k
--   Cookie: ...                         the last -C
--   Authorization: Basic ...            -A, then Proxy-Authorization (-P)
--   Content-length: N                   -p/-u (lowercase l and t, as ab)
--   Content-type: T                     -T, default text/plain
--   the -H lines, in order
--   Host: host[:port]                   unless a -H line starts with Host:
--   User-Agent: ApacheBench/2.3         unless -H User-Agent:
--   Accept: */*                         unless -H Accept:
--   (blank line) body
local args = require("volley.ab.args")

local M = {}

-- ab refuses a request head that does not fit its 8192-byte buffer.
M.MAX_HEAD = 8192

-- The request head (up to and including the blank line) for settings o.
function M.head(o)
  local url = o.url
  local parts = {
    o.method, " ", o.proxy_host and url.full or url.path, " HTTP/1.0\r\n",
    o.keepalive and "Connection: Keep-Alive\r\n" or "",
    o.cookie and "Cookie: " .. o.cookie .. "\r\n" or "",
    o.auth,
  }
  if o.body then
    parts[#parts + 1] = ("Content-length: %d\r\nContent-type: %s\r\n")
      :format(#o.body, o.content_type or "text/plain")
  end
  for _, line in ipairs(o.headers) do parts[#parts + 1] = line .. "\r\n" end
  if not o.opt_host then parts[#parts + 1] = "Host: " .. url.host_field .. url.colonhost .. "\r\n" end
  if not o.opt_useragent then parts[#parts + 1] = "User-Agent: " .. args.USER_AGENT .. "\r\n" end
  if not o.opt_accept then parts[#parts + 1] = "Accept: */*\r\n" end
  parts[#parts + 1] = "\r\n"
  return table.concat(parts)
end

-- The whole request (head and body), or nil and what ab prints and exits
-- with when the head is too long.
function M.build(o)
  local head = M.head(o)
  if #head >= M.MAX_HEAD then return nil, { stderr = "Request too long\n\n", status = 1 } end
  return head .. (o.body or ""), head
end

return M
