# User flows over HTTP/2 (nginx, cleartext and TLS): every request of the
# users is one nginx logged over HTTP/2, each user keeps one connection
# (nginx's connection numbers: one per user) through its think time, the
# counts add up, and the open model of iterations runs over it too. A
# per-request timeout over HTTP/2 comes back to the flow as "timeout".
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

tls_certs || exit 1
S=$T/scripts
mkdir -p "$S"
nginx_h2_count() { grep -c '^HTTP/2.0 ' "$T/nginx_h2.access" || true; }

cat > "$S/h2flow.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/", { name = "root" })
  u:check(r.status == 200 and r.body == "hello world", "hello")
  u:sleep(0.005)
  local big = u:get("/static/100k", { name = "big" })
  u:check(#big.body == 100000, "100k")
  u:group("post", function()
    local p = u:post("/post", { body = string.rep("x", 1000) })
    u:check(p.body == "1000", "posted")
  end)
end
return s
EOF

for mode in h2c tls; do
    rm -f "$T/nginx_h2.access"
    if [ "$mode" = h2c ]; then
        start_nginx_h2 --h2c || exit 1
        run_volley "$mode" -s "$S/h2flow.lua" --h2c -t 2 -c 4 --iterations 20 "$h2url/"
    else
        start_nginx_h2 || exit 1
        run_volley "$mode" -s "$S/h2flow.lua" --http2 --cacert "$TLS_CA" -t 2 -c 4 --iterations 20 "$h2url/"
    fi
    kill "$H2_PID" 2> /dev/null || true; wait "$H2_PID" 2> /dev/null || true
    check_eq "$RC" 0 "$mode: exit status ($(tail -2 "$T/$mode.err"))"
    check_adds_up "$mode"
    check_eq "$(jget "$T/$mode.json" iterations.completed)" 20 "$mode: 20 iterations"
    check_eq "$(jget "$T/$mode.json" checks.failed)" 0 "$mode: every check passed"
    check_eq "$(jget "$T/$mode.json" requests.completed)" 60 "$mode: 60 requests"
    check_eq "$(nginx_h2_count)" 60 "$mode: nginx logged 60 HTTP/2 requests"
    # nginx's $connection (field 6) of the logged requests: one per user (4),
    # however long each slept (the /post proxy's own connections are not in this log)
    check_eq "$(awk '$1 == "HTTP/2.0" { print $6 }' "$T/nginx_h2.access" | sort -u | wc -l)" 4 "$mode: one connection a user"
done

# u:batch over HTTP/2: the requests as streams of the user's own
# connection (8 a batch, more than the 6 streams a flow opens at once),
# responses in order.
cat > "$S/h2batch.lua" <<'EOF'
local s = {}
function s.user(u)
  local list = {}
  for i = 1, 8 do list[i] = i % 2 == 0 and "/static/100k" or "/" end
  local rs = u:batch(list)
  local ok = #rs == 8
  for i = 1, 8 do ok = ok and #rs[i].body == (i % 2 == 0 and 100000 or 11) end
  u:check(ok, "in order")
end
return s
EOF
rm -f "$T/nginx_h2.access"
start_nginx_h2 --h2c || exit 1
run_volley h2batch -s "$S/h2batch.lua" --h2c -t 1 -c 2 --iterations 6 "$h2url/"
kill "$H2_PID" 2> /dev/null || true; wait "$H2_PID" 2> /dev/null || true
check_eq "$RC" 0 "h2 batch: exit status ($(tail -2 "$T/h2batch.err"))"
check_adds_up h2batch
check_eq "$(jget "$T/h2batch.json" checks.failed)" 0 "h2 batch: responses in order"
check_eq "$(nginx_h2_count)" 48 "h2 batch: nginx logged 48 HTTP/2 requests"
check_eq "$(awk '$1 == "HTTP/2.0" { print $6 }' "$T/nginx_h2.access" | sort -u | wc -l)" 2 "h2 batch: one connection a user"
check_ge "$(jget "$T/h2batch.json" http2.max_streams_open)" 2 "h2 batch: streams at once"

# The open model of iterations over h2c, and a timeout per request.
cat > "$S/h2slow.lua" <<'EOF'
local s = {}
function s.user(u)
  local r = u:get("/", { timeout = "5s" })
  u:check(r.status == 200, "fast")
end
return s
EOF
rm -f "$T/nginx_h2.access"
start_nginx_h2 --h2c || exit 1
run_volley open -s "$S/h2slow.lua" --h2c -R 50 -d 2s -c 5 -t 1 "$h2url/"
kill "$H2_PID" 2> /dev/null || true; wait "$H2_PID" 2> /dev/null || true
check_rate_rc "open over h2c: exit status"
check_adds_up open
python3 - "$T/open.json" <<'PY' || fail "open over h2c: iterations against the schedule"
import json, sys
r = json.load(open(sys.argv[1]))
i = r["iterations"]
assert i["started"] == r["rate"]["sent"] and r["rate"]["sent"] + r["rate"]["unsent"] == 100, (i, r["rate"])
assert i["started"] == i["completed"] + i["failed"] + i["cut_off"], i
assert r["checks"]["failed"] == 0, r["checks"]
PY
ok

finish
