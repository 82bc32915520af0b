-- ab's report, computed as ApacheBench 2.3 computes it: from every
-- completed request's times (integer microseconds), with ab's integer
-- means, sample standard deviation, its median rule, half-up rounding to
-- milliseconds, and its percentile and CSV indexes. Pure functions over
-- plain tables, so that the specs can feed them known data.
--
-- A run, as scripts/ab.lua builds it from done(result):
--   run.n                         completed requests (ab's "done")
--   run.connect, .total, .waiting arrays 1..n, microseconds, completion order
--   run.body, .status, .keepalive arrays 1..n (keepalive: 1 or 0)
--   run.start                     array 1..n, epoch seconds (for -g)
--   run.duration                  seconds ("Time taken for tests")
--   run.read, run.written         bytes
--   run.errors                    { connect, read, write, timeout, parse }
--   run.first_head                the first response's first bytes, or nil
--   run.tls                       https: what the handshake agreed on
--                                 (done(result).tls), or nil
local M = {}

-- How arrays of numbers are sorted: table.sort here (specs run outside
-- volley); scripts/ab.lua swaps in volley's C sort for long runs.
M.sort = table.sort
M.select_pair = nil -- (values, n, k) -> k-th and (k+1)-th smallest; set by scripts/ab.lua

-- An empty array with room for n values (LuaJIT's table.new when there is
-- one: a long array is then not grown step by step).
local ok, table_new = pcall(require, "table.new")
function M.new_array(n)
  return ok and table_new(n, 0) or {}
end

-- C division of integers: truncation toward zero.
local function idiv(a, b)
  local q = a / b
  return q >= 0 and math.floor(q) or math.ceil(q)
end

-- ab's ap_round_ms: microseconds to milliseconds, half up, in integers.
function M.rms(us)
  return idiv(us + 500, 1000)
end

-- Server Software: the word 8 bytes after the first "Server:" (any case,
-- so "X-Server:" matches too) in the first response's head, up to a byte
-- <= 0x20 or >= 0x80 (a signed char that is not > 32), at most 1023 bytes.
function M.server_name(head)
  if not head then return "" end
  head = head:match("^[^%z]*") -- ab searches a C string
  local at = head:lower():find("server:", 1, true)
  if not at then return "" end
  local word = head:match("^[\33-\127]*", at + 8) or ""
  return word:sub(1, 1023)
end

-- The five figures of one Connection Times row, in microseconds: min,
-- max, mean (integer, truncated), sd (sample standard deviation around
-- that truncated mean, a double; 0 for one value) and median, with ab's
-- rule: for an odd count above 1 the mean of the middle value and the one
-- after it, else the value at index n/2 (0-based). With sorted, also
-- returns the values sorted (the totals' sorted copy gives the
-- percentiles); without, the median may come from M.select_pair.
function M.row(values, sorted_too)
  local n = #values
  local min, max, sum = math.huge, -math.huge, 0
  for i = 1, n do
    local x = values[i]
    if x < min then min = x end
    if x > max then max = x end
    sum = sum + x
  end
  local mean = idiv(sum, n)
  local sq = 0
  for i = 1, n do
    local d = values[i] - mean
    sq = sq + d * d
  end
  local h = math.floor(n / 2) + 1 -- 1-based index of ab's x[n/2]
  local sorted, x, y
  if sorted_too or not M.select_pair then
    sorted = M.new_array(n)
    for i = 1, n do sorted[i] = values[i] end
    M.sort(sorted)
    x, y = sorted[h], sorted[h + 1]
  else
    x, y = M.select_pair(values, n, h)
  end
  local median = (n > 1 and n % 2 == 1) and idiv(x + y, 2) or x
  return {
    min = min, max = max, mean = mean, median = median,
    sd = n > 1 and math.sqrt(sq / (n - 1)) or 0,
  }, sorted
end

-- The four rows (connect, processing = total - connect, waiting, total)
-- and the sorted totals. run.n must be > 0.
function M.times(run)
  local processing = M.new_array(run.n)
  for i = 1, run.n do processing[i] = run.total[i] - run.connect[i] end
  local t = {}
  t.connect = M.row(run.connect)
  t.processing = M.row(processing)
  t.waiting = M.row(run.waiting)
  t.total, t.sorted = M.row(run.total, true)
  return t
end

local ROWS = {
  { "connect", "Connect:    ", "the initial connection time" },
  { "processing", "Processing: ", "the processing time" },
  { "waiting", "Waiting:    ", "the waiting time" },
  { "total", "Total:      ", "the total time" },
}

-- ab's check of each row, on the rounded mean and median (ms) against
-- the sd (ms): ERROR beyond twice the sd, WARNING beyond once.
function M.warnings(t)
  local out = {}
  for _, r in ipairs(ROWS) do
    local row = t[r[1]]
    local d = math.abs(M.rms(row.mean) - M.rms(row.median))
    local sd = row.sd / 1000
    if d > 2 * sd then
      out[#out + 1] = "ERROR: The median and mean for " .. r[3] .. " are more than twice the standard\n"
        .. "       deviation apart. These results are NOT reliable.\n"
    elseif d > sd then
      out[#out + 1] = "WARNING: The median and mean for " .. r[3] .. " are not within a normal deviation\n"
        .. "        These results are probably not that reliable.\n"
    end
  end
  return table.concat(out)
end

-- The Connection Times table: with confidence (not -S) min, mean, sd,
-- median, max and the warnings; with -S min, avg, max only.
function M.times_table(t, confidence)
  local out = { "\nConnection Times (ms)\n" }
  if confidence then
    out[#out + 1] = "              min  mean[+/-sd] median   max\n"
  else
    out[#out + 1] = "              min   avg   max\n"
  end
  local rms = M.rms
  for _, r in ipairs(ROWS) do
    local row = t[r[1]]
    if confidence then
      out[#out + 1] = r[2] .. ("%5d %4d %5.1f %6d %7d\n")
        :format(rms(row.min), rms(row.mean), row.sd / 1000, rms(row.median), rms(row.max))
    else
      out[#out + 1] = r[2] .. ("%5d %5d%5d\n"):format(rms(row.min), rms(row.mean), rms(row.max))
    end
  end
  if confidence then out[#out + 1] = M.warnings(t) end
  return table.concat(out)
end

M.PERCENTS = { 50, 66, 75, 80, 90, 95, 98, 99, 100 }

-- The percentage table from the sorted totals: p% is the value at index
-- floor(n * p / 100) (0-based), 100% the longest.
function M.percentiles(sorted)
  local n = #sorted
  local out = { "\nPercentage of the requests served within a certain time (ms)\n" }
  for _, p in ipairs(M.PERCENTS) do
    if p >= 100 then
      out[#out + 1] = (" 100%%  %5d (longest request)\n"):format(M.rms(sorted[n]))
    else
      out[#out + 1] = ("  %d%%  %5d\n"):format(p, M.rms(sorted[math.floor(n * p / 100) + 1]))
    end
  end
  return table.concat(out)
end

-- The -e file. Row i (1..99) takes the total at index floor(0.5 + n*i/100)
-- (0-based, rounded half up: not the table's index), in ms with µs
-- precision. For small n that index reaches n, past the recorded requests:
-- ab then reads its (zeroed) slots for the requests it did not record
-- when -n (or -t's 50000) left room, and memory past its array when it did
-- not; that last case prints the longest time here.
function M.csv(sorted, requests)
  local n = #sorted
  local out = { "Percentage served,Time in ms\n" }
  for i = 0, 100 do
    local us
    if i == 0 then
      us = sorted[1]
    elseif i == 100 then
      us = sorted[n]
    else
      local idx = math.floor(0.5 + n * i / 100.0)
      if idx < n then us = sorted[idx + 1]
      elseif idx < requests then us = 0
      else us = sorted[n] end
    end
    out[#out + 1] = ("%d,%.3f\n"):format(i, us / 1000)
  end
  return table.concat(out)
end

-- The -g file: one row per request, sorted by total time as ab leaves its
-- array (ties in completion order), with the start as local time text and
-- epoch seconds, then connect, processing, total and waiting in ms.
-- date(format, seconds) formats the time (os.date by default).
function M.gnuplot(run, date)
  date = date or os.date
  local order = {}
  for i = 1, run.n do order[i] = i end
  local total = run.total
  table.sort(order, function(a, b)
    if total[a] ~= total[b] then return total[a] < total[b] end
    return a < b
  end)
  local out = { "starttime\tseconds\tctime\tdtime\tttime\twait\n" }
  local rms = M.rms
  for k = 1, #order do
    local i = order[k]
    local sec = math.floor(run.start[i])
    out[k + 1] = ("%s\t%d\t%d\t%d\t%d\t%d\n"):format(date("%a %b %d %H:%M:%S %Y", sec), sec,
      rms(run.connect[i]), rms(total[i] - run.connect[i]), rms(total[i]), rms(run.waiting[i]))
  end
  return table.concat(out)
end

-- ab's counters for a run with settings o (volley.ab.args):
--   done, doclen (the first response's body), err_length (later bodies of
--   another length, unless -l), totalbread (bodies), err_response (status
--   not 2xx), doneka (kept-alive responses), and the failure counts mapped
--   from volley's kinds: Connect = connect + tls (ab's connect time ends
--   when the handshake does), Receive = read + parse, Exceptions =
--   timeout; Write errors = write (not in Failed, as in ab).
function M.counters(o, run)
  local c = {
    done = run.n, doclen = 0, err_length = 0, totalbread = 0, err_response = 0, doneka = 0,
    err_conn = (run.errors.connect or 0) + (run.errors.tls or 0),
    err_recv = (run.errors.read or 0) + (run.errors.parse or 0),
    err_except = run.errors.timeout or 0,
    epipe = run.errors.write or 0,
    servername = M.server_name(run.first_head),
  }
  if run.n > 0 then c.doclen = run.body[1] end
  for i = 1, run.n do
    local body = run.body[i]
    c.totalbread = c.totalbread + body
    if i > 1 and body ~= c.doclen and not o.nolength then c.err_length = c.err_length + 1 end
    local s = run.status[i]
    if s < 200 or s > 299 then c.err_response = c.err_response + 1 end
    if run.keepalive[i] ~= 0 then c.doneka = c.doneka + 1 end
  end
  c.bad = c.err_conn + c.err_recv + c.err_length + c.err_except
  return c
end

-- ab's TLS lines, after Server Port (https only): the protocol, cipher,
-- bits of the server certificate's key and of the cipher, and the
-- server's ephemeral key, when a handshake succeeded; the server name
-- sent, whenever one is sent (even if no handshake succeeded).
function M.tls_lines(o, tls)
  if not o.url.https then return "" end
  local out = {}
  if tls then
    out[#out + 1] = ("SSL/TLS Protocol:       %s,%s,%d,%d\n")
      :format(tls.protocol, tls.cipher, tls.peer_key_bits, tls.cipher_bits)
    if tls.temp_key ~= "" then out[#out + 1] = ("Server Temp Key:        %s\n"):format(tls.temp_key) end
  end
  if o.sni then out[#out + 1] = ("TLS Server Name:        %s\n"):format(o.sni) end
  return table.concat(out)
end

-- The text report (from the two blank lines ab starts it with), after the
-- "..done" or "Finished" line. t is M.times(run) when run.n > 0.
function M.text(o, run, c, t)
  local secs = run.duration
  local out = {
    "\n\n",
    ("Server Software:        %s\n"):format(c.servername),
    ("Server Hostname:        %s\n"):format(o.url.hostname),
    ("Server Port:            %d\n"):format(o.url.port),
    M.tls_lines(o, run.tls),
    "\n",
    ("Document Path:          %s\n"):format(o.url.path),
    o.nolength and "Document Length:        Variable\n" or ("Document Length:        %d bytes\n"):format(c.doclen),
    "\n",
    ("Concurrency Level:      %d\n"):format(o.concurrency),
    ("Time taken for tests:   %.3f seconds\n"):format(secs),
    ("Complete requests:      %d\n"):format(c.done),
    ("Failed requests:        %d\n"):format(c.bad),
  }
  local function add(s) out[#out + 1] = s end
  if c.bad ~= 0 then
    add(("   (Connect: %d, Receive: %d, Length: %d, Exceptions: %d)\n")
      :format(c.err_conn, c.err_recv, c.err_length, c.err_except))
  end
  if c.epipe ~= 0 then add(("Write errors:           %d\n"):format(c.epipe)) end
  if c.err_response ~= 0 then add(("Non-2xx responses:      %d\n"):format(c.err_response)) end
  if o.keepalive then add(("Keep-Alive requests:    %d\n"):format(c.doneka)) end
  add(("Total transferred:      %d bytes\n"):format(run.read))
  if o.body then add(("Total body sent:        %d\n"):format(run.written)) end
  add(("HTML transferred:       %d bytes\n"):format(c.totalbread))
  if secs ~= 0 and c.done ~= 0 then
    add(("Requests per second:    %.2f [#/sec] (mean)\n"):format(c.done / secs))
    add(("Time per request:       %.3f [ms] (mean)\n"):format(o.concurrency * secs * 1000 / c.done))
    add(("Time per request:       %.3f [ms] (mean, across all concurrent requests)\n"):format(secs * 1000 / c.done))
    add(("Transfer rate:          %.2f [Kbytes/sec] received\n"):format(run.read / 1024 / secs))
    if o.body then
      add(("                        %.2f kb/s sent\n"):format(run.written / 1024 / secs))
      add(("                        %.2f kb/s total\n"):format((run.read + run.written) / 1024 / secs))
    end
  end
  if c.done > 0 then
    add(M.times_table(t, o.confidence))
    if o.percentile and c.done > 1 then add(M.percentiles(t.sorted)) end
  end
  return table.concat(out)
end

-- The -w report: ab's HTML table (no Receive count, Write errors, Time per
-- request, Waiting row, sd, median or percentages). Its Connection Times
-- round the sums to ms before dividing, and Processing is derived from
-- the Total and Connect figures rather than from each request.
function M.html(o, run, c)
  local tr, td = o.tr_attrs, o.td_attrs
  local out = { ("\n\n<table %s>\n"):format(o.table_attrs) }
  local function row(label, value)
    out[#out + 1] = ("<tr %s><th colspan=2 %s>%s:</th><td colspan=2 %s>%s</td></tr>\n")
      :format(tr, td, label, td, value)
  end
  local function more(value)
    out[#out + 1] = ("<tr %s><td colspan=2 %s>&nbsp;</td><td colspan=2 %s>%s</td></tr>\n"):format(tr, td, td, value)
  end
  local secs = run.duration
  row("Server Software", c.servername)
  row("Server Hostname", o.url.hostname)
  row("Server Port", o.url.port)
  row("Document Path", o.url.path)
  row("Document Length", c.doclen .. " bytes")
  row("Concurrency Level", o.concurrency)
  row("Time taken for tests", ("%.3f seconds"):format(secs))
  row("Complete requests", c.done)
  row("Failed requests", c.bad)
  if c.bad ~= 0 then
    out[#out + 1] = ("<tr %s><td colspan=4 %s >   (Connect: %d, Length: %d, Exceptions: %d)</td></tr>\n")
      :format(tr, td, c.err_conn, c.err_length, c.err_except)
  end
  if c.err_response ~= 0 then row("Non-2xx responses", c.err_response) end
  if o.keepalive then row("Keep-Alive requests", c.doneka) end
  row("Total transferred", ("%d bytes"):format(run.read))
  if o.body then row("Total body sent", ("%d"):format(run.written)) end
  row("HTML transferred", ("%d bytes"):format(c.totalbread))
  if secs ~= 0 then
    row("Requests per second", ("%.2f"):format(c.done / secs))
    row("Transfer rate", ("%.2f kb/s received"):format(run.read / 1024 / secs))
    if o.body then
      more(("%.2f kb/s sent"):format(run.written / 1024 / secs))
      more(("%.2f kb/s total"):format((run.read + run.written) / 1024 / secs))
    end
  end
  local n = c.done
  if n > 0 then
    local mincon, maxcon, mintot, maxtot, sumcon, sumtot = math.huge, -math.huge, math.huge, -math.huge, 0, 0
    for i = 1, n do
      local con, tot = run.connect[i], run.total[i]
      mincon, maxcon = math.min(mincon, con), math.max(maxcon, con)
      mintot, maxtot = math.min(mintot, tot), math.max(maxtot, tot)
      sumcon, sumtot = sumcon + con, sumtot + tot
    end
    local rms = M.rms
    mincon, maxcon, mintot, maxtot = rms(mincon), rms(maxcon), rms(mintot), rms(maxtot)
    sumcon, sumtot = rms(sumcon), rms(sumtot)
    local function times(label, a, b, d)
      out[#out + 1] = ("<tr %s><th %s>%s:</th><td %s>%5d</td><td %s>%5d</td><td %s>%5d</td></tr>\n")
        :format(tr, td, label, td, a, td, b, td, d)
    end
    out[#out + 1] = ("<tr %s><th %s colspan=4>Connection Times (ms)</th></tr>\n"):format(tr, td)
    out[#out + 1] = ("<tr %s><th %s>&nbsp;</th> <th %s>min</th>   <th %s>avg</th>   <th %s>max</th></tr>\n")
      :format(tr, td, td, td, td)
    times("Connect", mincon, idiv(sumcon, n), maxcon)
    times("Processing", mintot - mincon, idiv(sumtot, n) - idiv(sumcon, n), maxtot - maxcon)
    times("Total", mintot, idiv(sumtot, n), maxtot)
  end
  out[#out + 1] = "</table>\n"
  return table.concat(out)
end

return M
