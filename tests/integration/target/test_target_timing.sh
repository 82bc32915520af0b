# volley-target's timing features, checked with a plain python3 client (not
# volley): precise --delay-ms and /delay/D, --stall-every/--stall-ms with the
# --timing-log, and --drop-every. Lower bounds are guarantees of the server;
# upper bounds are generous, for a loaded machine.
source "$TESTLIB"

# A tiny HTTP/1.1 client. Modes:
#   seq PORT PATH N          N requests in a row on one kept-alive connection;
#                            prints each latency in ms (send to full response)
#   each PORT N TIMEOUT      N requests, each on its own connection; prints
#                            "ok" or "none" (no byte within TIMEOUT s) for each.
#                            After the 2nd, fetches /__stats (must not count).
#                            Request 3 carries a second, pipelined request.
cat > "$T/client.py" <<'PY'
import socket, sys, time

REQ = b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"

def connect(port, timeout):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

def read_response(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError("closed before the head")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError("closed in the body")
        body += chunk
    return head.split(b"\r\n", 1)[0], body

mode, port = sys.argv[1], int(sys.argv[2])
if mode == "seq":
    path, n = sys.argv[3].encode(), int(sys.argv[4])
    s = connect(port, 10)
    for _ in range(n):
        t0 = time.monotonic_ns()
        s.sendall(REQ % path)
        status, body = read_response(s)
        t1 = time.monotonic_ns()
        assert status.startswith(b"HTTP/1.1 200") and body == b"hello world", (status, body)
        print("%.3f" % ((t1 - t0) / 1e6))
elif mode == "each":
    n, timeout = int(sys.argv[3]), float(sys.argv[4])
    for i in range(1, n + 1):
        s = connect(port, timeout)
        s.sendall(REQ % b"/" + (REQ % b"/" if i == 3 else b""))
        try:
            status, body = read_response(s)
            assert body == b"hello world", body
            print("ok")
        except socket.timeout:
            print("none")
        s.close()
        if i == 2:
            s = connect(port, 5)
            s.sendall(REQ % b"/__stats")
            status, body = read_response(s)
            assert b'"ignored":0}' in body, body
            s.close()
PY

# median FILE, min FILE: of a column of numbers
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { sort -g "$1" | head -n 1; }
# fcheck EXPR WHAT: a floating-point comparison, e.g. "10.2 >= 10"
fcheck() { if awk "BEGIN { exit !($1) }"; then ok; else fail "$2: $1 is false"; fi; }

# (a) --delay-ms 10: never early, and precise (ev_timer was up to ~1 ms late).
start_target --max-seconds 20 --delay-ms 10
python3 "$T/client.py" seq "$PORT" / 20 > "$T/a.ms" || fail "delay-ms: client failed"
check_eq "$(wc -l < "$T/a.ms")" 20 "delay-ms: responses"
fcheck "$(minimum "$T/a.ms") >= 10" "delay-ms 10: min latency (ms)"
fcheck "$(median "$T/a.ms") <= 13" "delay-ms 10: median latency (ms)"
stop_target

# (b) /delay/3 without --delay-ms.
start_target --max-seconds 20
python3 "$T/client.py" seq "$PORT" /delay/3 10 > "$T/b.ms" || fail "/delay/3: client failed"
check_eq "$(wc -l < "$T/b.ms")" 10 "/delay/3: responses"
fcheck "$(minimum "$T/b.ms") >= 3" "/delay/3: min latency (ms)"
fcheck "$(median "$T/b.ms") <= 6" "/delay/3: median latency (ms)"
stop_target

# (c) A 300 ms whole-server stall after every 5th request, in the timing log:
# after the 5th and the 10th of 12 requests, between reading them and
# reading the next one.
start_target --max-seconds 20 --stall-every 5 --stall-ms 300 --timing-log "$T/timing"
python3 "$T/client.py" seq "$PORT" / 12 > "$T/c.ms" || fail "stall: client failed"
check_eq "$(wc -l < "$T/c.ms")" 12 "stall: responses"
stop_target                        # the timing log is complete once it exited
python3 - "$T/timing" <<'PY' && ok || fail "stall: timing log $(tr '\n' ' ' < "$T/timing")"
import sys
lines = [l.split() for l in open(sys.argv[1])]
r = [int(l[1]) for l in lines if l[0] == "r" and len(l) == 2]
s = [(int(l[1]), int(l[2])) for l in lines if l[0] == "s" and len(l) == 3]
ac = [int(l[1]) for l in lines if l[0] in ("a", "c") and len(l) == 2]
assert len(r) + len(s) + len(ac) == len(lines), "unknown lines"
assert len(r) == 12, "%d r lines" % len(r)
assert len(s) == 2, "%d s lines" % len(s)
assert all(a <= b for a, b in zip(r, r[1:])), "r not non-decreasing"
for (start, end), after in zip(s, (5, 10)):
    assert 300e6 <= end - start < 400e6, "stall of %d ns" % (end - start)
    assert r[after - 1] <= start and end <= r[after], "stall not after request %d" % after
# the log is in event order: each stall line right after its request's line
kinds = "".join(l[0] for l in lines if l[0] in "rs")
assert kinds == "rrrrrsrrrrrsrr", kinds
PY

# (d) --drop-every 3: requests 3 and 6 are read but never answered, nor is
# anything after them on their connection; /__stats does not count.
start_target --max-seconds 20 --drop-every 3 --stats-file "$T/d.stats"
python3 "$T/client.py" each "$PORT" 6 0.5 > "$T/d.out" || fail "drop-every: client failed"
check_eq "$(tr '\n' ' ' < "$T/d.out")" "ok ok none ok ok none " "drop-every 3: answered"
stop_target
check_eq "$(jget "$T/d.stats" ignored)" 2 "drop-every: ignored"
check_eq "$(jget "$T/d.stats" received)" 6 "drop-every: received (not the pipelined one)"
check_eq "$(jget "$T/d.stats" answered)" 4 "drop-every: answered"
check_grep "$T/d.stats" '"authorized":0,"ignored":2}$' "drop-every: ignored is the last counter"

finish
