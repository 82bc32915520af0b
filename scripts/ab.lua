-- ApacheBench 2.3 (Debian apache2-utils) on volley: ab's flags, its
-- request bytes and its report, line for line.
--
--   volley ab -n 1000 -c 10 http://127.0.0.1:8080/
--   volley -s ab -- -k -n 1000 -c 10 http://127.0.0.1:8080/
--
-- options() reads ab's command line (volley.ab.args) and turns it into a
-- run: one thread (ab is one loop, and the report needs completion order),
-- -c connections, -n requests, -t as a duration, -s as the timeout, a new
-- connection per request without -k. volley prints no report of its own
-- and keeps one sample per completed request; done() computes ab's report
-- from them (volley.ab.report). init() gives each worker ab's request
-- bytes (volley.ab.request); there is no request() or response() hook, so
-- nothing runs in Lua per request.
--
-- Where volley differs from ab (the report's numbers come from volley's
-- measurements, so these show):
--   - Bodies are counted decoded: a chunked response's Document Length and
--     HTML transferred leave out the chunk framing ab counts, and with -k
--     a chunked or length-less response does not stall the run as in ab.
--   - Keep-alive follows HTTP: a response is kept alive when the server
--     keeps the connection open, not when its head has the word Keep-Alive.
--   - A request that times out (-s), or a connect that does not complete
--     within -s, ends ab at once; here the run goes on and then exits as ab
--     would have: its message, "Total of N requests completed", status
--     119. Receive and connect errors without -r do the same (status 104
--     or 111) after the run. Before the run, a first connect that does not
--     complete within -s ends it as in ab.
--   - Failed requests: Connect counts volley's connect errors, Receive its
--     read and parse errors, Exceptions its timeouts (which end the run as
--     above, so a printed report has none). ab counts a refused connection
--     under -r as a completed request with Receive and Exceptions
--     failures; volley's start-up probe stops such a run instead.
--   - Ctrl-C prints the text report and exits 1, as ab does
--     (result.interrupted). Any other run that gets to its report exits 0,
--     as ab does, also when no request completed (volley itself would
--     exit 1 then).
--   - -b (socket buffers) and -B (bind address) are accepted and ignored.
--   - -X sends the full URL as the request target and connects to the
--     proxy, as ab does; -P only adds its header.
--   - -v 2 prints each response's first read as its "header received"
--     (with --heads); a head spread over several reads is one block, not
--     one per read as in ab. The blocks come after the run.
--   - https: every connection makes a full handshake, as in ab (volley's
--     own default is to resume sessions); --tls-resume, volley ab's own
--     option, resumes them, which makes Connect times shorter than ab's
--     and requests per second higher without -k. The TLS lines come from the
--     start-up probe's handshake; a handshake that fails there stops the
--     run with volley's message (ab counts a 0-byte response per attempt).
--     TLS failures during the run are Connect failures. -v 2 does not
--     print ab's certificate and session dumps. A bad -Z or a key that
--     does not match its certificate is volley's error (exit 2), after the
--     banner; ab's comes before it (exit 1).
local ab_args = require("volley.ab.args")
local request = require("volley.ab.request")
local report = require("volley.ab.report")
report.sort = require("volley.api").sort_numbers
report.select_pair = require("volley.api").select_pair

local s = {}

-- The settings, kept in the main state from options() for done().
local o

-- Prints what ab prints before it exits, and exits with its status.
local function quit(e)
  if e.stdout then io.stdout:write(e.stdout) end
  io.stdout:flush()
  if e.stderr then io.stderr:write(e.stderr) end
  os.exit(e.status)
end

-- ab's exit for a failed system call: "what: message (code)" on stderr,
-- the requests done so far on stdout, and the code's low 8 bits as status.
local function apr_error(what, message, code, done)
  quit({
    stderr = ("%s: %s (%d)\n"):format(what, message, code),
    stdout = (done or 0) > 0 and ("Total of %d requests completed\n"):format(done) or nil,
    status = code % 256,
  })
end

-- The host and port volley connects to (the proxy with -X).
local function connect_target()
  if o.proxy_host then return o.proxy_host, o.proxy_port end
  return o.url.hostname, o.url.port
end

local TLS_VERSIONS = { [10] = "1.0", [11] = "1.1", [12] = "1.2", [13] = "1.3" }

-- ab's TLS settings as volley's options: -f bounds the version both ways;
-- -Z is the TLS 1.3 suites with -f TLS1.3, else the cipher list (as ab
-- picks SSL_CTX_set_ciphersuites or SSL_CTX_set_cipher_list); -E is the
-- client certificate with its key in the same file; the server name is
-- ab's (the -H Host: value or the URL's host, none for an IP address or
-- with -I), also through a proxy (-X). Sessions are not resumed, as in
-- ab, unless --tls-resume asks for it: see docs/ab.md.
local function tls_options(run)
  if o.tls_version then
    run.tls_min = TLS_VERSIONS[o.tls_version]
    run.tls_max = run.tls_min
  end
  if o.cipher and o.ciphers_tls13 then
    run.ciphersuites = o.cipher
  elseif o.cipher then
    run.ciphers = o.cipher
  end
  run.cert = o.cert
  run.sni = o.sni or false
  run.tls_resume = o.tls_resume
end

-- What ab does between printing "Benchmarking" and its first request, when
-- it fails there: the target does not resolve; -c 0 (an empty poll set) or
-- -s 0 (a poll that times out at once) fail its first poll; nothing
-- accepts the connection. Checked here so that the messages and statuses
-- are ab's, not volley's own start-up errors. The check opens (and closes)
-- one connection, as volley's start-up probe does.
local function fail_before_run()
  local host, port = connect_target()
  local ok, addrs = pcall(wrk.lookup, host, tostring(port))
  if not ok then
    apr_error("apr_sockaddr_info_get() for " .. host, "Name or service not known", 670002)
  end
  if o.concurrency == 0 then apr_error("apr_pollset_poll", "Invalid argument", 22) end
  if o.timeout == 0 then apr_error("apr_pollset_poll", "The timeout specified has expired", 70007) end
  -- ab's first connect is all its poll waits on, for -s seconds (a negative
  -- -s: no limit): a connect that never completes (a listener whose accept
  -- queue is full drops the SYN) ends ab on the poll's timeout, -r or not.
  -- A connect that fails moves on to the next address, as in ab.
  local message, code = "Connection refused", 111
  for _, addr in ipairs(addrs) do
    local connected, why, errno = wrk.connect(addr, o.timeout)
    if connected then return true end
    if why == "timeout" then apr_error("apr_pollset_poll", "The timeout specified has expired", 70007) end
    message, code = why, errno
  end
  -- With -r the run goes on, and every refused connect is counted as a
  -- Connect failure (ab counts each as a completed request with Receive
  -- and Exceptions failures: see docs/ab.md). Without it ab stops on the
  -- error its recv() then sees: refused (111), unreachable, ...
  if not o.recverrok then apr_error("apr_socket_recv", message, code) end
  return false
end

function s.options(args)
  local err
  o, err = ab_args.parse(args)
  if not o then quit(err) end
  io.stderr:write(o.warnings)
  io.stdout:write(ab_args.banner(o.html))
  if not o.html then
    io.stdout:write("Benchmarking ", o.url.hostname, " ")
    if o.proxy_host then io.stdout:write(("[through %s:%d] "):format(o.proxy_host, o.proxy_port)) end
    io.stdout:write("(be patient)", o.heartbeat > 0 and "\n" or "...")
  end
  io.stdout:flush()
  local bytes, head = request.build(o)
  if not bytes then quit(head) end
  if o.verbosity >= 2 then
    io.stdout:write("INFO: ", o.method, " header == \n---\n", head, "\n---\n")
    io.stdout:flush()
  end
  local reachable = fail_before_run()

  local host, port = connect_target()
  if host:find(":", 1, true) then host = "[" .. host .. "]" end
  local run = {
    url = ("%s://%s:%d/"):format(o.url.https and "https" or "http", host, port),
    requests = o.requests,
    connections = o.concurrency,
    threads = 1,
    timeout = o.timeout > 0 and o.timeout or 8640000, -- a negative -s never times out: 100 days
    keepalive = o.keepalive,
    quiet = true,
    samples = true,
    probe = reachable, -- -r against a refused port: no start-up probe, the run counts the refusals
    one_first = true, -- ab opens one connection, and the others once it gets an answer
    heads = o.verbosity >= 2 or nil, -- -v 2 shows each response's first read
    proxy = "", -- ab reads no proxy from the environment; -X is its own (connect_target)
  }
  if o.url.https then tls_options(run) end
  -- -t 0 is no limit; a negative -t ends ab after its first poll.
  if o.tlimit ~= 0 then run.duration = o.tlimit > 0 and o.tlimit or 0.001 end
  if o.heartbeat > 0 then run.heartbeat = o.heartbeat end
  return run
end

function s.init(args)
  local settings, err = ab_args.parse(args)
  if not settings then error("ab: " .. tostring(err.stderr), 0) end
  local bytes = request.build(settings)
  wrk.request = function() return bytes end
end

-- The run as volley.ab.report takes it: plain arrays from the samples.
local function collect(result)
  local samples = result.samples
  local n = samples and samples.n or 0
  local new = require("table.new") -- LuaJIT: arrays sized once, not grown
  local run = {
    n = n, duration = result.duration, read = result.bytes.read, written = result.bytes.written,
    errors = result.errors, first_head = result.first_head, head = samples and samples.head,
    tls = result.tls,
    connect = new(n, 0), total = new(n, 0), waiting = new(n, 0), body = new(n, 0),
    status = new(n, 0), keepalive = new(n, 0), start = new(n, 0),
  }
  local p = samples and samples.ptr -- the C array itself: no metamethod per element
  for i = 0, n - 1 do
    local x = p[i]
    run.connect[i + 1] = tonumber(x.connect)
    run.total[i + 1] = tonumber(x.total)
    run.waiting[i + 1] = tonumber(x.waiting)
    run.body[i + 1] = tonumber(x.body)
    run.status[i + 1] = tonumber(x.status)
    run.keepalive[i + 1] = tonumber(x.keepalive)
    run.start[i + 1] = tonumber(x.start)
  end
  return run
end

-- What ab prints while it runs, here printed after the run (stdout
-- only, so the text is the same): failed sends, and with -v the response
-- heads and status lines.
local function run_log(run)
  local out = {}
  for _ = 1, run.errors.write or 0 do out[#out + 1] = "Send request failed!\n" end
  if o.verbosity >= 2 then
    local first = (run.first_head or ""):match("^[^%z]*")
    for i = 1, run.n do
      -- What ab prints is its buffer as a C string: up to a NUL byte.
      local head = run.head and run.head(i - 1)
      head = head and head:match("^[^%z]*") or first
      out[#out + 1] = "LOG: header received:\n" .. head .. "\n"
      local status = run.status[i]
      if status < 200 or status > 299 then
        out[#out + 1] = ("WARNING: Response code not 2xx (%03d)\n"):format(status)
      elseif o.verbosity >= 3 then
        out[#out + 1] = ("LOG: Response code = %03d\n"):format(status)
      end
    end
  end
  io.stdout:write(table.concat(out))
end

-- Writes an -e or -g file, or exits as ab does when it cannot.
local function write_file(path, what, text)
  local f, err = io.open(path, "w")
  if not f then
    quit({ stderr = ("Cannot open %s output file: %s\n"):format(what,
      err:sub(1, #path + 2) == path .. ": " and err:sub(#path + 3) or err), status = 1 })
  end
  f:write(text)
  f:close()
end

-- ab's text report and its -e and -g files.
local function text_report(run, c)
  local t = run.n > 0 and report.times(run) or nil
  io.stdout:write(report.text(o, run, c, t))
  io.stdout:flush()
  if t and o.csv then write_file(o.csv, "CSV", report.csv(t.sorted, o.requests)) end
  if t and o.gnuplot then write_file(o.gnuplot, "gnuplot", report.gnuplot(run)) end
end

function s.done(result)
  local run = collect(result)
  local c = report.counters(o, run)
  if result.interrupted then
    -- Ctrl-C: ab prints its text report at once (no Finished line, no
    -- HTML) and exits 1.
    text_report(run, c)
    os.exit(1)
  end
  run_log(run)
  local e = run.errors
  if (e.timeout or 0) > 0 or (result.requests.connect_timeouts or 0) > 0 then
    -- A response, or a connect, that -s did not see end.
    apr_error("apr_pollset_poll", "The timeout specified has expired", 70007, run.n)
  elseif not o.recverrok and (e.connect or 0) > 0 then
    apr_error("apr_socket_recv", "Connection refused", 111, run.n)
  elseif not o.recverrok and (e.read or 0) > (result.requests.closed or 0) then
    -- A reset ends ab; a server that closes without answering does not
    -- (those are Receive failures here: see docs/ab.md).
    apr_error("apr_socket_recv", "Connection reset by peer", 104, run.n)
  end
  if o.heartbeat > 0 then
    io.stdout:flush()
    io.stderr:write(("Finished %d requests\n"):format(run.n))
  else
    io.stdout:write("..done\n")
  end
  if o.html then
    io.stdout:write(report.html(o, run, c))
  else
    text_report(run, c)
  end
  io.stdout:flush()
  -- ab exits 0 after a run, whatever failed; volley's own rule (status 1
  -- and a line on stderr when no response completed, as with -r against
  -- a refused port) is not ab's.
  os.exit(0)
end

return s
