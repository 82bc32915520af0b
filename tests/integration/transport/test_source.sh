# --source, and running out of local ports (EADDRNOTAVAIL, the "ports" error
# kind), inside network namespaces this test makes (unshare --net), each with
# only loopback up and its own narrowed ephemeral port range of 50 ports
# (net.ipv4.ip_local_port_range is per namespace: the host's is never
# touched):
#  1. -c 80 from one address: the connections past the 50 ports fail as
#     "ports" (JSON errors.ports), and the text report says what to do
#     (--source, ip_local_port_range);
#  2. -c 80 with --source 127.0.0.1-127.0.0.2: 100 ports, every connection
#     opens, the server's count equals volley's, and the server's timing log
#     (--timing-peers) shows the connections bound round robin to the two
#     addresses;
#  3. bad --source values (malformed, backwards, mixed families, an IPv6
#     source for an IPv4 target, an address not on this machine): exit 2,
#     one line naming --source, no request sent;
#  4. `localhost` (127.0.0.1 then ::1) against a server on both loopbacks:
#     --source ::1 runs against ::1, --source 127.0.0.2 against 127.0.0.1,
#     each request at the server of the source's family, the start-up
#     probe's connection included; over https both probes (TCP, then the
#     TLS handshake) come from the source too.
# Each case gets a fresh namespace, so no port in TIME_WAIT from one case
# is in the way of the next. Where namespaces are not allowed, the test says
# so and passes (exit 0).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"

if ! unshare --net true 2> "$T/unshare.err"; then
    echo "$(basename "$0"): skipped: unshare --net is not allowed here ($(head -n 1 "$T/unshare.err"))"
    exit 0
fi

# The case run inside each namespace: NAME [volley args]. It brings lo up,
# narrows the port range, starts volley-target with a timing log, runs
# volley against it, and leaves NAME.{json,out,err,rc,tlog,stats} in $OUT
# (the server's timing log and stats file).
# lib.sh makes the case its own temporary folder and stops its server.
cat > "$T/inner.sh" <<'SH'
source "$TESTLIB"
name=$1
shift
if command -v ip > /dev/null; then
    ip link set lo up
    # LO_HOST_ONLY=1: lo keeps 127.0.0.1 alone (a /32, not the /8), so
    # 127.0.0.9 is an address this machine does not have.
    if [ "${LO_HOST_ONLY:-}" = 1 ]; then
        ip addr del 127.0.0.1/8 dev lo
        ip addr add 127.0.0.1/32 dev lo
    fi
else
    # no iproute2: set IFF_UP on lo with SIOCSIFFLAGS
    python3 -c '
import fcntl, socket, struct
s = socket.socket()
flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))'
fi
echo "40000 40049" > /proc/sys/net/ipv4/ip_local_port_range
# The server's counters from its stats file: once the ports have run out,
# not even target_stat could connect.
start_target --timing-log "$OUT/$name.tlog" --timing-peers --stats-file "$OUT/$name.stats"
run_volley "$name" "$@" "http://127.0.0.1:$PORT/"
stop_target
for f in json out err; do [ -f "$T/$name.$f" ] && cp "$T/$name.$f" "$OUT/"; done
echo "$RC" > "$OUT/$name.rc"
SH
# ns NAME [volley args]: runs the case in a new network namespace; RC is
# volley's exit status.
ns() {
    local name=$1
    OUT=$T TESTLIB=$TESTLIB timeout -s KILL 90 unshare --net bash "$T/inner.sh" "$@" > "$T/$name.ns" 2>&1 ||
        fail "$name: the namespace case failed: $(tail -3 "$T/$name.ns")"
    RC=$(cat "$T/$name.rc" 2>/dev/null || echo none)
}
# received NAME: the server's count of requests received in case NAME.
received() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["received"])' "$T/$1.stats"; }

# 1. One source address, 80 connections, 50 ports: 30 connects fail
#    with EADDRNOTAVAIL, counted as "ports", and the report says what to do.
#    The 50 that opened carry the run: -n counts every request that started,
#    so completed + failed + cut_off = started still holds.
ns one -n 2000 -c 80 -t 2
check_adds_up one
ports=$(jget "$T/one.json" errors.ports)
check_ge "$ports" 1 "one: errors.ports"
check_eq "$(jget "$T/one.json" errors.connect)" 0 "one: the port failures are not connect errors"
check_ge "$(jget "$T/one.json" requests.completed)" 1 "one: the open connections completed requests"
check_eq "$(received one)" "$(jget "$T/one.json" requests.completed)" "one: server received = completed"
check_grep "$T/one.out" "--source" "one: the report's hint names --source"
check_grep "$T/one.out" "ip_local_port_range" "one: the report's hint names ip_local_port_range"
check_grep "$T/one.out" "[Pp]orts" "one: the report names the ports kind"
# The namespace's 50 ports were the limit: never more than 50 connections
# open at the server at once (the probe's included).
python3 - "$T/one.tlog" <<'PY' > "$T/one.py" 2>&1 && ok || fail "one: connections open at once: $(tail -3 "$T/one.py")"
import sys
open_now = most = 0
for line in open(sys.argv[1]):
    if line[0] in "ac":
        open_now += 1 if line[0] == "a" else -1
        most = max(most, open_now)
assert 30 <= most <= 50, most
print("one: at most", most, "connections open at once")
PY
cat "$T/one.py"
echo "one: exit $RC, errors.ports $ports; the report says:"
grep -iE 'ports|source|ip_local' "$T/one.out" || true

# 2. Two source addresses: 100 ports for 80 connections, no failure at all.
ns two -n 2000 -c 80 -t 2 --source 127.0.0.1-127.0.0.2
check_eq "$RC" 0 "two: exit status (stderr: $(head -c 300 "$T/two.err" 2>/dev/null))"
check_adds_up two
check_eq "$(jget "$T/two.json" errors.ports)" 0 "two: errors.ports"
check_eq "$(jget "$T/two.json" requests.failed)" 0 "two: failed"
check_eq "$(jget "$T/two.json" requests.completed)" 2000 "two: completed"
check_eq "$(jget "$T/two.json" connections_opened)" 80 "two: connections opened"
check_eq "$(received two)" 2000 "two: server received = completed"
# Round robin by connection number: 40 connections from each address. The
# first connection the server accepted is the start-up probe's, made before
# the run's from the first source address: it is checked, then left out.
cat > "$T/rr.py" <<'PY'
import sys
log, per, want = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
first = sys.argv[3]
acc, req = {}, {}
probe = None
for line in open(log):
    f = line.split()
    if f[0] == "a":
        if probe is None:
            probe = f[2]
            continue
        acc[f[2]] = acc.get(f[2], 0) + 1
    elif f[0] == "r":
        req[f[2]] = req.get(f[2], 0) + 1
assert probe == first, ("the probe came from", probe)
assert acc == {a: per for a in want}, acc
assert set(req) == want, req
print("probe from", probe, "connections per source", acc, "requests per source", req)
PY
python3 "$T/rr.py" "$T/two.tlog" 40 127.0.0.1 127.0.0.2 > "$T/two.py" 2>&1 && ok ||
    fail "two: round robin over the sources: $(tail -3 "$T/two.py")"
cat "$T/two.py"
# A list works as a range does: three addresses, given one by one.
ns list -n 300 -c 30 -t 1 --source 127.0.0.3,127.0.0.4,127.0.0.5
check_eq "$RC" 0 "list: exit status (stderr: $(head -c 300 "$T/list.err" 2>/dev/null))"
python3 "$T/rr.py" "$T/list.tlog" 10 127.0.0.3 127.0.0.4 127.0.0.5 > "$T/list.py" 2>&1 && ok ||
    fail "list: round robin over the sources: $(tail -3 "$T/list.py")"
cat "$T/list.py"

# 3. Bad values: exit 2, one line naming --source, nothing sent (checked on a
#    server in the host's namespace: these never get as far as a connect).
start_target
for bad in "" "nothere" "127.0.0.1," ",127.0.0.1" "127.0.0.9-127.0.0.2" "127.0.0.1-" "-127.0.0.1" \
    "127.0.0.1-nothere" "127.0.0.256" "127.0.0.1-::1" "127.0.0.1/8" "::1-::2" "127.0.0.1,,127.0.0.2" \
    "127.0.0.0-127.255.255.255" "::1,127.0.0.1" "127.0.0.1,::1"; do
    run_volley bad -n 1 --source "$bad" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 2 "--source '$bad': exit status (stderr: $(head -c 200 "$T/bad.err"))"
    check_eq "$(wc -l < "$T/bad.err")" 1 "--source '$bad': one stderr line"
    check_grep "$T/bad.err" "--source" "--source '$bad': the message names --source"
done
# (connections first: each target_stat is a connection of its own)
check_eq "$(target_stat connections)" 1 "bad --source values: nothing connected"
check_eq "$(target_stat received)" 0 "bad --source values: nothing sent"
stop_target

# Addresses that parse but cannot serve this target: exit 2, one line naming
# --source. An IPv6 source for an IPv4 target (known only once the target
# is resolved), and an address that is not on this machine (a loopback
# address taken off lo inside the namespace).
for case in "v6only|::1|is IPv6 but the target|" "foreign|127.0.0.9|cannot bind to 127.0.0.9|1"; do
    IFS='|' read -r name src msg host_only <<< "$case"
    if [ -n "$host_only" ] && ! command -v ip > /dev/null; then
        echo "--source $src: skipped: no ip (iproute2) to take 127.0.0.9 off lo"
        continue
    fi
    LO_HOST_ONLY=$host_only ns "$name" -n 20 -c 4 -t 1 --source "$src"
    check_eq "$RC" 2 "--source $src: exit status (stderr: $(head -c 300 "$T/$name.err" 2>/dev/null))"
    check_eq "$(wc -l < "$T/$name.err")" 1 "--source $src: one stderr line"
    check_grep "$T/$name.err" "^volley: --source: .*$msg" "--source $src: the message"
    check_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["received"])' "$T/$name.stats")" 0 "--source $src: nothing sent"
done

# localhost against a server on each loopback, one port: the target's
# addresses are narrowed to the sources' family before the probe, so
# --source ::1 is not refused for localhost's first address, 127.0.0.1.
# The servers' counters come from their stats files when they stop, so
# that every connection they accepted is volley's.
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null; then
    start_target --bind 127.0.0.1 --timing-log "$T/both4.tlog" --timing-peers --stats-file "$T/both4.stats"
    V4PID=$TPID
    start_target --bind ::1 --port "$PORT" --timing-log "$T/both6.tlog" --timing-peers --stats-file "$T/both6.stats"
    run_volley both6 -n 50 -c 2 -t 1 --source ::1 "http://localhost:$PORT/"
    check_eq "$RC" 0 "localhost, --source ::1: exit status (stderr: $(head -c 300 "$T/both6.err"))"
    check_eq "$(jget "$T/both6.json" target.address)" "[::1]:$PORT" "localhost, --source ::1: the address used"
    run_volley both4 -n 30 -c 2 -t 1 --source 127.0.0.2 "http://localhost:$PORT/"
    check_eq "$RC" 0 "localhost, --source 127.0.0.2: exit status (stderr: $(head -c 300 "$T/both4.err"))"
    check_eq "$(jget "$T/both4.json" target.address)" "127.0.0.1:$PORT" "localhost, --source 127.0.0.2: the address used"
    stop_target
    TPID=$V4PID stop_target
    check_eq "$(jget "$T/both6.stats" received)" 50 "localhost, --source ::1: the ::1 server received"
    check_eq "$(jget "$T/both4.stats" received)" 30 "localhost, --source 127.0.0.2: the 127.0.0.1 server received"
    # Every connection each server accepted, the probe's too, came from
    # the source (the timing logs' accept lines carry the peer).
    for f in both4:127.0.0.2 both6:::1; do
        log=${f%%:*} want=${f#*:}
        peers=$(awk '$1 == "a" { print $3 }' "$T/$log.tlog" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' ')
        check_eq "$peers" "${want}x3 " "localhost, --source $want: the peers of every accepted connection (the probe and -c 2)"
    done
else
    echo "localhost with --source: skipped: no IPv6 loopback"
fi

# https: the TCP probe, the TLS probe's handshake and both connections of
# the run, all from 127.0.0.3.
start_tls_target --timing-log "$T/tls.tlog" --timing-peers --stats-file "$T/tls.stats"
run_volley tls -n 20 -c 2 -t 1 --source 127.0.0.3 "$surl/"
check_eq "$RC" 0 "https, --source 127.0.0.3: exit status (stderr: $(head -c 300 "$T/tls.err"))"
check_eq "$(jget "$T/tls.json" requests.completed)" 20 "https, --source 127.0.0.3: completed"
stop_target
check_eq "$(jget "$T/tls.stats" received)" 20 "https, --source 127.0.0.3: the server received"
check_eq "$(awk '$1 == "a" { print $3 }' "$T/tls.tlog" | sort | uniq -c | awk '{ print $2 "x" $1 }')" "127.0.0.3x4" \
    "https, --source 127.0.0.3: the peers of every accepted connection (two probes and -c 2)"

finish
