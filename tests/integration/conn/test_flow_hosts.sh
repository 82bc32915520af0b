# A flow that reaches other hosts (--allow-host; docs/scripting.md, "Other
# hosts"): volley-target on 127.0.0.1 (the target) and a second one on
# 127.0.0.2, counted exactly on both; one connection per user to the
# second host, kept alive across iterations; a host not allowed fails its
# request with one counted reason and the flow goes on; bad --allow-host
# values exit 2; cookies follow RFC 6265 across hosts; redirects to an
# allowed host are followed on its connection, to others not; https on
# the other host with its SNI and --verify; a refused connect and a server
# that closes the other host's connection end the run cleanly.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
S=$T/scripts
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py

# start_on ADDR NAME [options]: volley-target on ADDR, its request log in
# $T/NAME.log and its stats in $T/NAME.stats; sets PORT and TPID.
start_on() {
    local addr=$1 name=$2
    shift 2
    start_target --bind "$addr" --log "$T/$name.log" --stats-file "$T/$name.stats" "$@"
}
# stats NAME KEY: a counter of a stopped volley-target's stats file.
stats() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$T/$1.stats" "$2"; }

# 1. The target and a second host: exact counts on both, per name and per
# host; one connection per user to the second host however many iterations.
start_on 127.0.0.1 one
P1=$PORT T1=$TPID
start_on 127.0.0.2 two
P2=$PORT T2=$TPID
cat > "$S/two.lua" <<EOF
local s = {}
function s.user(u)
  u:get("/page")
  local r = u:get("http://127.0.0.2:$P2/app.css")
  u:check(r.status == 200, "css")
  local b = u:batch({ "/api", "http://127.0.0.2:$P2/img.png", { path = "http://127.0.0.2:$P2/named", name = "img2" } })
  u:check(not b[2].failed and not b[3].failed, "batch")
end
return s
EOF
RC=0
"$VOLLEY" -s "$S/two.lua" -t 1 -c 3 --iterations 40 --allow-host "127.0.0.2:$P2" --json "$T/two.json" \
    "http://127.0.0.1:$P1/" > "$T/two.out" 2>&1 || RC=$?
kill "$T1" "$T2"; wait "$T1" "$T2" 2>/dev/null || true
check_eq "$RC" 0 "two hosts: exit status ($(head -c 300 "$T/two.out"))"
check_eq "$(grep -c ' GET /page$' "$T/one.log")" 40 "two hosts: /page on the target"
check_eq "$(grep -c ' GET /api$' "$T/one.log")" 40 "two hosts: /api on the target"
check_eq "$(grep -c ' GET /app.css$' "$T/two.log")" 40 "two hosts: /app.css on the second host"
check_eq "$(grep -c ' GET /img.png$' "$T/two.log")" 40 "two hosts: /img.png on the second host"
check_eq "$(grep -c ' GET /named$' "$T/two.log")" 40 "two hosts: /named on the second host"
check_eq "$(wc -l < "$T/one.log")" 80 "two hosts: nothing else on the target"
check_eq "$(stats two connections)" 3 "two hosts: one kept-alive connection per user to the second host"
check_eq "$(jget "$T/two.json" iterations.completed)" 40 "two hosts: iterations"
check_eq "$(jget "$T/two.json" requests.completed)" 200 "two hosts: requests"
python3 - "$T/two.json" "$P1" "$P2" <<'PY' || fail "two hosts: names and hosts in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p1, p2 = sys.argv[2], sys.argv[3]
names = {k: n["requests"]["completed"] for k, n in d["names"].items()}
want = {"GET /page": 40, "GET /api": 40, "GET 127.0.0.2:%s/app.css" % p2: 40,
        "GET 127.0.0.2:%s/img.png" % p2: 40, "img2": 40}
assert names == want, names
hosts = [(h["origin"], h["target"], h["requests"], h["failed"]) for h in d["hosts"]]
assert hosts == [("http://127.0.0.1:%s" % p1, True, 80, 0), ("http://127.0.0.2:%s" % p2, False, 120, 0)], hosts
assert d["checks"]["failed"] == 0 and d["checks"]["passed"] == 80, d["checks"]
PY
ok
check_grep "$T/two.out" "^  Hosts +requests +failed$" "two hosts: the text report's Hosts block"
check_grep "$T/two.out" "^    http://127.0.0.2:$P2 +120 +0$" "two hosts: the second host's row"

# volley report shows the block again from the JSON; volley merge adds
# two shards' rows by origin.
"$VOLLEY" report "$T/two.json" > "$T/two.report" 2>&1 || fail "two hosts: volley report"
check_grep "$T/two.report" "^    http://127.0.0.2:$P2 +120 +0$" "two hosts: volley report's Hosts block"
start_on 127.0.0.1 s1
P1=$PORT T1=$TPID
start_on 127.0.0.2 s2
P2=$PORT T2=$TPID
sed -i "s/127.0.0.2:[0-9]*/127.0.0.2:$P2/g" "$S/two.lua"
for i in 0 1; do
    "$VOLLEY" -q -s "$S/two.lua" -t 1 -c 4 --iterations 20 --shard "$i/2" --run-id hosts --allow-host "127.0.0.2:$P2" \
        --json "$T/shard$i.json" "http://127.0.0.1:$P1/" > /dev/null 2>&1 || fail "shard $i: exit status"
done
kill "$T1" "$T2"; wait "$T1" "$T2" 2>/dev/null || true
"$VOLLEY" merge "$T/shard0.json" "$T/shard1.json" --json "$T/merged.json" > /dev/null 2>&1 || fail "merge: exit status"
python3 - "$T/merged.json" "$P1" "$P2" <<'PY' || fail "merge: the shards' hosts added up"
import json, sys
d = json.load(open(sys.argv[1]))
hosts = [(h["origin"], h["requests"], h["failed"]) for h in d["hosts"]]
assert hosts == [("http://127.0.0.1:%s" % sys.argv[2], 40, 0), ("http://127.0.0.2:%s" % sys.argv[3], 60, 0)], hosts
PY
ok

# 2. A host not allowed: its request fails unsent, one reason line, counted;
# the flow goes on (each iteration completes).
start_on 127.0.0.1 deny
P1=$PORT T1=$TPID
cat > "$S/deny.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("http://127.0.0.3:8082/x")
  u:check(r.failed and r.status == 0 and r.reason == "host not allowed: 127.0.0.3:8082 (--allow-host)", "refused")
  u:get("/after")
end
return s
EOF
RC=0
"$VOLLEY" -s "$S/deny.lua" -t 1 -c 2 --iterations 10 --json "$T/deny.json" "http://127.0.0.1:$P1/" > "$T/deny.out" 2>&1 || RC=$?
kill "$T1"; wait "$T1" 2>/dev/null || true
check_eq "$RC" 0 "not allowed: exit status ($(head -c 300 "$T/deny.out"))"
check_eq "$(grep -c 'host not allowed' "$T/deny.out")" 1 "not allowed: one reason line"
check_grep "$T/deny.out" "validation: host not allowed: 127\.0\.0\.3:8082 \(--allow-host\) \(10\)" "not allowed: the reason, counted"
check_eq "$(grep -c ' GET /after$' "$T/deny.log")" 10 "not allowed: the flow goes on"
check_eq "$(wc -l < "$T/deny.log")" 10 "not allowed: nothing else sent"
check_eq "$(jget "$T/deny.json" iterations.completed)" 10 "not allowed: iterations complete"
check_eq "$(jget "$T/deny.json" errors.validation)" 10 "not allowed: counted failed"
python3 - "$T/deny.json" <<'PY' || fail "not allowed: the check and the reason in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["checks"]["passed"], d["checks"]["failed"], list(d["checks"]["names"])) == (10, 0, ["refused"]), d["checks"]
r = d["failures"]["reasons"]
assert [(x["reason"], x["count"]) for x in r] == [("host not allowed: 127.0.0.3:8082 (--allow-host)", 10)], r
PY
ok

# A script's options() may give the list (allow_host), as --allow-host.
start_on 127.0.0.2 opt
PO=$PORT TO=$TPID
cat > "$S/opt.lua" <<EOF
local s = {}
function s.options() return { allow_host = "127.0.0.2:$PO" } end
function s.user(u) u:get("http://127.0.0.2:$PO/opt") end
return s
EOF
RC=0
"$VOLLEY" -s "$S/opt.lua" --no-probe -t 1 -c 1 --iterations 3 http://127.0.0.1:9/ > "$T/opt.out" 2>&1 || RC=$?
kill "$TO"; wait "$TO" 2>/dev/null || true
check_eq "$RC" 0 "options() allow_host: exit status ($(head -c 300 "$T/opt.out"))"
check_eq "$(grep -c ' GET /opt$' "$T/opt.log")" 3 "options() allow_host: the host reached"

# Bad values of --allow-host: one line naming the option, exit 2.
for bad in "" "a b" "127.0.0.2:" "127.0.0.2:99999" "127.0.0.2:x" "[::1" "a,,b"; do
    RC=0
    "$VOLLEY" -s "$S/deny.lua" --iterations 1 --allow-host "$bad" http://127.0.0.1:9/ > "$T/bad.out" 2>&1 || RC=$?
    check_eq "$RC" 2 "--allow-host '$bad': exit status"
    check_eq "$(wc -l < "$T/bad.out")" 1 "--allow-host '$bad': one line"
    check_grep "$T/bad.out" "^volley: --allow-host: " "--allow-host '$bad': names the option"
done
RC=0
"$VOLLEY" -n 1 --allow-host 127.0.0.2 http://127.0.0.1:9/ > "$T/bad.out" 2>&1 || RC=$?
check_eq "$RC" 2 "--allow-host without a flow: exit status"
check_grep "$T/bad.out" "^volley: --allow-host: only a flow" "--allow-host without a flow: says so"
# Other hosts' connections go straight to them: with a proxy (the
# option's or the environment's) or a Unix socket, refused before any
# connect.
RC=0
"$VOLLEY" -s "$S/deny.lua" --iterations 1 --allow-host 127.0.0.2 --proxy http://127.0.0.1:9 http://127.0.0.1:9/ > "$T/bad.out" 2>&1 || RC=$?
check_eq "$RC" 2 "--allow-host with --proxy: exit status"
check_eq "$(wc -l < "$T/bad.out")" 1 "--allow-host with --proxy: one line"
check_grep "$T/bad.out" "^volley: --allow-host: other hosts are not reached through a proxy" "--allow-host with --proxy: says so"
RC=0
http_proxy=http://127.0.0.1:9 "$VOLLEY" -s "$S/deny.lua" --iterations 1 --allow-host 127.0.0.2 http://127.0.0.1:9/ > "$T/bad.out" 2>&1 || RC=$?
check_eq "$RC" 2 "--allow-host with http_proxy: exit status"
RC=0
python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$T/u.sock" # a socket file no one listens on
"$VOLLEY" -s "$S/deny.lua" --iterations 1 --allow-host 127.0.0.2 --unix-socket "$T/u.sock" http://127.0.0.1:9/ > "$T/bad.out" 2>&1 || RC=$?
check_eq "$RC" 2 "--allow-host with --unix-socket: exit status"
check_grep "$T/bad.out" "^volley: --allow-host: other hosts are not reached over --unix-socket" "--allow-host with --unix-socket: says so"

# 3. Cookies across hosts (py/hosts_server.py on both): a cookie set by one
# host goes back to it only; a Domain naming the other host is refused
# (RFC 6265 5.3 step 6: it does not domain-match the request's host).
# 4. Redirects: to the allowed host followed, on its connection (Host:
# its own), relative ones against it; to a host not allowed not followed.
start_py() {
    python3 "$PY/hosts_server.py" "$1" "$T/$2.port" "$T/$2.log" 60 &
    TARGET_PIDS+=("$!")
    wait_port_file "$T/$2.port" "$!" || { echo "hosts_server.py did not start" >&2; exit 1; }
}
start_py 127.0.0.1 ca
start_py 127.0.0.2 cb
start_py 127.0.0.3 cc
A=127.0.0.1:$(cat "$T/ca.port") B=127.0.0.2:$(cat "$T/cb.port") C=127.0.0.3:$(cat "$T/cc.port")
cat > "$S/cookies.lua" <<EOF
local s = {}
function s.user(u)
  u:get("/set/a")
  u:get("http://$B/set/b")
  u:get("/domain/d/127.0.0.2")
  u:get("/check")
  u:get("http://$B/check")
  local r = u:get("/go?http://$B/landed")
  u:check(r.status == 200 and r.url == "http://$B/landed", "followed")
  u:get("http://$B/go?/back")
  r = u:get("/go?http://$C/no")
  u:check(r.status == 302, "not followed")
end
return s
EOF
RC=0
"$VOLLEY" -s "$S/cookies.lua" -t 1 -c 1 --iterations 2 --allow-host "$B" --json "$T/cookies.json" \
    "http://$A/" > "$T/cookies.out" 2>&1 || RC=$?
check_eq "$RC" 0 "cookies: exit status ($(head -c 300 "$T/cookies.out"))"
check_eq "$(grep -c ' GET /check 127.0.0.1:[0-9]* a=1$' "$T/ca.log")" 2 "cookies: the target's cookie to the target only"
check_eq "$(grep -c ' GET /check 127.0.0.2:[0-9]* b=1$' "$T/cb.log")" 2 "cookies: the second host's cookie to it only"
check_eq "$(cat "$T/ca.log" "$T/cb.log" | grep -c 'd=1')" 0 "cookies: a Domain naming another host is refused"
check_eq "$(grep -c " GET /landed $B b=1$" "$T/cb.log")" 2 "redirect: followed to the allowed host, with its Host and cookie"
check_eq "$(grep -c " GET /back $B b=1$" "$T/cb.log")" 2 "redirect: a relative Location against the second host"
check_eq "$(wc -l < "$T/cc.log")" 0 "redirect: not followed to a host not allowed"
check_eq "$(awk '{print $1}' "$T/cb.log" | sort -u | wc -l)" 1 "cookies: one connection to the second host"
python3 - "$T/cookies.json" <<'PY' || fail "cookies: the checks"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["checks"]["passed"], d["checks"]["failed"], sorted(d["checks"]["names"])) == \
    (4, 0, ["followed", "not followed"]), d["checks"]
PY
ok

# 5. https on the other host: SNI its name (localhost), checked with
# --verify against the test CA; a certificate for another name fails those
# requests with the TLS reason, counted, the flow going on.
tls_certs || exit 1
start_on 127.0.0.1 plain
P1=$PORT T1=$TPID
start_target --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY" --tls-log "$T/tls.log" --stats-file "$T/tls.stats"
PT=$PORT TT=$TPID
cat > "$S/tls.lua" <<EOF
local s = {}
function s.user(u)
  local r = u:get("https://localhost:$PT/secure")
  u:check(r.status == 200, "https")
  u:get("/plain")
end
return s
EOF
RC=0
"$VOLLEY" -s "$S/tls.lua" -t 1 -c 2 --iterations 6 --allow-host "localhost:$PT" --verify --cacert "$TLS_CA" \
    --json "$T/tls.json" "http://127.0.0.1:$P1/" > "$T/tls.out" 2>&1 || RC=$?
kill "$T1" "$TT"; wait "$T1" "$TT" 2>/dev/null || true
check_eq "$RC" 0 "https: exit status ($(head -c 300 "$T/tls.out"))"
check_eq "$(jget "$T/tls.json" requests.completed)" 12 "https: every request answered"
check_eq "$(stats tls connections)" 2 "https: one connection per user"
check_eq "$(awk '$4 == "localhost"' "$T/tls.log" | wc -l)" 2 "https: SNI is the other host's name"
tls_leaf only.test DNS:only.test || exit 1
start_on 127.0.0.1 plain2
P1=$PORT T1=$TPID
start_target --tls-cert "$TLS_LEAF_CERT" --tls-key "$TLS_LEAF_KEY"
PT=$PORT TT=$TPID
sed -i "s/localhost:[0-9]*/localhost:$PT/" "$S/tls.lua"
RC=0
"$VOLLEY" -s "$S/tls.lua" -t 1 -c 1 --iterations 3 --allow-host "localhost:$PT" --verify --cacert "$TLS_CA" \
    --json "$T/tls2.json" "http://127.0.0.1:$P1/" > "$T/tls2.out" 2>&1 || RC=$?
kill "$T1" "$TT"; wait "$T1" "$TT" 2>/dev/null || true
check_eq "$(jget "$T/tls2.json" errors.tls)" 3 "https, wrong name: TLS failures counted"
check_grep "$T/tls2.out" "certificate verify failed" "https, wrong name: the reason"
check_eq "$(grep -c ' GET /plain$' "$T/plain2.log")" 3 "https, wrong name: the flow goes on"

# 6. Life cycle: a refused connect on the other host is a counted connect
# failure and the run ends by itself (the target up all along is not
# given up on); a server that closes the other host's connection after
# each response gets a new one for the next request.
start_on 127.0.0.1 life
P1=$PORT T1=$TPID
FREE=$(tls_free_port)
cat > "$S/refused.lua" <<EOF
local s = {}
function s.user(u)
  local r = u:get("http://127.0.0.2:$FREE/x")
  u:check(r.failed and r.reason == "connect", "refused")
  u:get("/")
end
return s
EOF
RC=0
timeout 60 "$VOLLEY" -s "$S/refused.lua" -t 1 -c 2 --iterations 4 --allow-host "127.0.0.2:$FREE" --timeout 1s \
    --json "$T/refused.json" "http://127.0.0.1:$P1/" > "$T/refused.out" 2>&1 || RC=$?
check_eq "$RC" 0 "refused: the run ends by itself ($(head -c 300 "$T/refused.out"))"
check_eq "$(jget "$T/refused.json" errors.connect)" 4 "refused: counted connect failures"
check_eq "$(jget "$T/refused.json" iterations.completed)" 4 "refused: the iterations go on"
start_on 127.0.0.2 closer
PC=$PORT TC=$TPID
cat > "$S/close.lua" <<EOF
local s = {}
function s.user(u)
  u:get("http://127.0.0.2:$PC/close")
  u:get("/")
  u:get("http://127.0.0.2:$PC/")
end
return s
EOF
RC=0
"$VOLLEY" -s "$S/close.lua" -t 1 -c 2 --iterations 10 --allow-host "127.0.0.2:$PC" --json "$T/close.json" \
    "http://127.0.0.1:$P1/" > "$T/close.out" 2>&1 || RC=$?
kill "$T1" "$TC"; wait "$T1" "$TC" 2>/dev/null || true
check_eq "$RC" 0 "closed by the server: exit status ($(head -c 300 "$T/close.out"))"
check_eq "$(jget "$T/close.json" requests.completed)" 30 "closed by the server: every request answered"
check_eq "$(wc -l < "$T/closer.log")" 20 "closed by the server: the second host's requests"
# 7. An HTTP/2 target (nghttpd, TLS with ALPN h2 under --http2) and an
# HTTP/1.1 host beside it: the user's HTTP/2 connection waits while its
# request to the other host is in flight, single requests and batches.
source "$(dirname "$TESTLIB")/h2_lib.sh"
if start_nghttpd; then
    start_on 127.0.0.2 h1side
    PH=$PORT TH=$TPID
    cat > "$S/h2.lua" <<EOF
local s = {}
function s.user(u)
  u:get("/")
  u:get("http://127.0.0.2:$PH/one")
  local b = u:batch({ "/", "/100k", "http://127.0.0.2:$PH/two", "http://127.0.0.2:$PH/three" })
  u:check(b[2].status == 200 and #b[2].body == 100000 and b[4].status == 200, "batch")
end
return s
EOF
    RC=0
    "$VOLLEY" -s "$S/h2.lua" -t 2 -c 4 --iterations 30 --http2 --allow-host "127.0.0.2:$PH" --json "$T/h2.json" \
        "$nghttpd_url/" > "$T/h2.out" 2>&1 || RC=$?
    kill "$TH"; wait "$TH" 2>/dev/null || true
    check_eq "$RC" 0 "http2 target: exit status ($(head -c 300 "$T/h2.out"))"
    check_eq "$(jget "$T/h2.json" requests.completed)" 180 "http2 target: every request answered"
    check_eq "$(jget "$T/h2.json" checks.failed)" 0 "http2 target: the batches' checks"
    check_eq "$(wc -l < "$T/h1side.log")" 90 "http2 target: the other host's requests"
    check_eq "$(stats h1side connections)" 4 "http2 target: one connection per user to the other host"
else
    echo "http2 target: skipped (nghttpd did not start)"
fi
finish
