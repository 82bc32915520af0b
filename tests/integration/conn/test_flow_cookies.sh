# A flow's cookie jar and redirects against py/cookie_server.py: a hostile
# server that sets 15 new 4000-byte cookies (and one of 5000) on every
# response cannot make the requests' heads or volley's memory grow (at most
# 50 cookies of a domain, none over 4096 bytes: RFC 6265 6.1); domain
# cookies are kept for the host of the Host header sent (-H Host, or a
# request's own), not the URL's; a Location is resolved as RFC 3986 says
# (../, ?query, #fragment, //host).
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py

# start_server NAME: py/cookie_server.py logging to $T/NAME.log; sets CPORT.
start_server() {
    python3 "$PY/cookie_server.py" "$T/$1.port" "$T/$1.log" 60 &
    CPID=$!
    TARGET_PIDS+=("$CPID")
    wait_port_file "$T/$1.port" "$CPID" || { echo "cookie_server.py did not start" >&2; exit 1; }
    CPORT=$(cat "$T/$1.port")
}
stop_server() { kill "$CPID" 2>/dev/null || true; wait "$CPID" 2>/dev/null || true; }

# 1. The flood: 2 users, every iteration one request to /flood. Without
# bounds a user's jar took every cookie up to 3000 of 4 KB (12 MB heads):
# here 900 after 60 iterations, 3.6 MB heads.
cat > "$S/flood.lua" <<'EOF'
local s = {}
function s.user(u) u:get("/flood") end
return s
EOF
# peak ITERATIONS: volley's peak RSS (kB) for a flood of ITERATIONS.
peak() {
    python3 - "$VOLLEY" "$S/flood.lua" "$1" "http://127.0.0.1:$CPORT/" "$T/flood$1.json" <<'PY'
import resource, subprocess, sys
volley, script, n, url, out = sys.argv[1:6]
rc = subprocess.call([volley, "-q", "-s", script, "-t", "1", "-c", "2", "--iterations", n,
                      "--json", out, url], timeout=60, stdout=subprocess.DEVNULL)
if rc != 0:
    sys.exit("volley exited %d" % rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
start_server flood
short=$(peak 6) || fail "flood: the 6-iteration run failed"
long=$(peak 60) || fail "flood: the 60-iteration run failed"
stop_server
echo "flood: peak RSS ${short:-?} kB after 6 iterations, ${long:-?} kB after 60"
check_eq "$(grep -c '^/flood ' "$T/flood.log")" 66 "flood: every request reached the server"
python3 - "$T/flood.log" <<'PY' || fail "flood: the requests' Cookie headers are not bounded"
import sys
rows = [l.split() for l in open(sys.argv[1])]
cookie_bytes = max(int(r[2]) for r in rows)
cookies = max(int(r[3]) for r in rows)
print("flood: largest Cookie header %d bytes, %d cookies; largest head %d bytes"
      % (cookie_bytes, cookies, max(int(r[5]) for r in rows)))
assert cookies == 50, cookies                      # full, and no more
assert cookie_bytes <= 50 * (4096 + 2), cookie_bytes
assert not any(r[4] == "1" for r in rows), "the 5000-byte cookie was sent"
PY
ok
if [ "${SANITIZED:-OFF}" = ON ]; then
    echo "flood: peak RSS not compared under sanitizers (their allocators keep freed memory)"
elif [ -n "$short" ] && [ -n "$long" ]; then
    # Bounded, the jar is full after one response: ten times the
    # iterations add noise (a few MB of garbage at most). Unbounded it grew
    # by 54 x 15 cookies of 4 KB per user (and heads to match).
    if [ $((long - short)) -lt 8192 ]; then ok; else
        fail "flood: peak RSS grew by $((long - short)) kB from 6 to 60 iterations"; fi
fi

# 2. Domain cookies and the Host header: -H Host names www.shop.example,
# a request's own Host names x.other.example; each Domain cookie comes back
# to its hosts and to no other.
cat > "$S/host.lua" <<'EOF'
local s = {}
function s.user(u)
  u:get("/domain/shop.example")
  u:get("/shop")
  u:get("/domain/other.example", { headers = { host = "x.other.example" } })
  u:get("/other", { headers = { Host = "y.other.example:8080" } })
  u:check(u.cookies.sid ~= nil, "readable")
end
return s
EOF
start_server host
run_volley host -s "$S/host.lua" -t 1 -c 1 --iterations 1 -H "Host: www.shop.example" "http://127.0.0.1:$CPORT/"
stop_server
check_eq "$RC" 0 "host: exit status"
check_eq "$(awk '$1 == "/shop" { print $2, $4 }' "$T/host.log")" "www.shop.example 1" \
    "host: the Domain=shop.example cookie sent back under -H Host"
check_grep "$T/host.log" '^/other y\.other\.example:8080 [0-9]+ 1 ' "host: a request's own Host: only its domain's cookie"

# 3. Redirects resolved by RFC 3986: /a/b/c -> ../d?x=1#frag -> ?y=2 ->
# //127.0.0.1:PORT/e (this server) -> //elsewhere.invalid/f (not followed).
cat > "$S/redir.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/a/b/c")
  u:check(r.status == 302 and r.url == "/e", "final")
end
return s
EOF
start_server redir
run_volley redir -s "$S/redir.lua" -t 1 -c 1 --iterations 1 "http://127.0.0.1:$CPORT/"
stop_server
check_eq "$RC" 0 "redir: exit status"
check_eq "$(awk '{ printf "%s ", $1 }' "$T/redir.log")" "/a/b/c /a/d?x=1 /a/d?y=2 /e " "redir: the hops' targets"
check_eq "$(jget "$T/redir.json" checks.names.final.passed)" 1 "redir: the last response"
finish
