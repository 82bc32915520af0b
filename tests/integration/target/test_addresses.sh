# IPv6 literals, and names with several addresses: `localhost` must work
# with a server on 127.0.0.1 only and with one on ::1 only.
source "$TESTLIB"

start_target --bind 127.0.0.1
run_volley v4 -n 100 -c 2 "http://localhost:$PORT/"
check_eq "$RC" 0 "localhost -> IPv4-only server: exit status"
check_eq "$(jget "$T/v4.json" status.200)" 100 "localhost -> IPv4-only server: completed"
check_eq "$(target_stat received)" 100 "IPv4-only server: received"
stop_target

if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null; then
    start_target --bind ::1
    run_volley v6 -n 100 -c 2 "http://[::1]:$PORT/"
    check_eq "$RC" 0 "[::1]: exit status"
    check_eq "$(jget "$T/v6.json" status.200)" 100 "[::1]: completed"
    check_eq "$(jget "$T/v6.json" target.address)" "[::1]:$PORT" "[::1]: address"
    # localhost is ::1 too, whatever the resolver lists (RFC 6761), so it
    # reaches an IPv6-only server; tests/unit/test_probe.c covers the
    # fallback order with explicit address lists either way.
    run_volley v6name -n 100 -c 2 "http://localhost:$PORT/"
    check_eq "$(jget "$T/v6name.json" status.200)" 100 "localhost -> IPv6-only server: completed"
    check_eq "$(target_stat received ::1)" 200 "IPv6-only server: received"
    stop_target
else
    echo "skip: no IPv6 loopback on this machine"
fi
finish
