# Named requests end to end. The proof: a scenario that logs in once per
# connection (the server closes every 40th response, so connections open
# again and log in again) and names its item requests "item": each name's
# count is exactly the server's count of its path (its request log), the
# names' counts add up to the run's, and the names' latency histograms
# (decoded independently, py/hdrlog.py) merge into the run's bucket for
# bucket, with the same count, min, max and exact sums. Then: the same
# under -R (service times too) and in --hlog (a tag per name, adding up to
# the name's histogram, which Java's HistogramLogProcessor reads); validation failures by reason per name; the cap
# on names (a script error naming the name and the cap; the report of
# what was done); wrk style (volley.name, the table form of wrk.format,
# a default request named in init()); thresholds on a name; the HTML
# table; HTTP/2 streams (nginx, if present); and runs without a script unchanged.
source "$TESTLIB"
PYDIR="$(dirname "$TESTLIB")/py"
S=$T/scripts
mkdir -p "$S"

# path_count LOG METHOD PREFIX: requests of the server's log (volley-target
# --log: "SEQ METHOD TARGET ...") whose target starts with PREFIX.
path_count() { awk -v m="$2" -v p="$3" '$2 == m && index($3, p) == 1 { n++ } END { print n + 0 }' "$1"; }

# names_add_up NAME [HIST...]: in $T/NAME.json, the names' counts add up
# to the run's (every request named), each name's accounting holds, and
# for each histogram (default latency) the names' merge into the run's
# exactly; with $T/NAME.hlog, each name's intervals (Tag=name:NAME) add up
# to its latency histogram.
names_add_up() {
    local n=$1
    shift
    PYTHONPATH="$PYDIR" python3 - "$T/$n" "${@:-latency}" <<'PY' > "$T/$n.py" 2>&1 && ok || fail "$n: names do not add up: $(tail -4 "$T/$n.py")"
import json, os, sys
import hdrlog
r = json.load(open(sys.argv[1] + ".json"))
names = r["names"]
assert names, "no names"
for k in ("started", "completed", "failed", "cut_off"):
    assert sum(v["requests"][k] for v in names.values()) == r["requests"][k], k
for kind, total in r["errors"].items():
    assert sum(v["errors"][kind] for v in names.values()) == total, kind
for code, total in r["status"].items():
    assert sum(v["status"].get(code, 0) for v in names.values()) == total, code
for name, v in names.items():
    q = v["requests"]
    assert q["started"] == q["completed"] + q["failed"] + q["cut_off"], (name, q)
    assert q["failed"] == sum(v["errors"].values()), (name, q)
    assert q["completed"] + v["errors"]["validation"] == sum(v["status"].values()), (name, q)
for h in sys.argv[2:]:
    run = r[h]
    parts = [v[h] for v in names.values() if v[h]["count"]]
    assert sum(p["count"] for p in parts) == run["count"], h
    assert min(p["min"] for p in parts) == run["min"], (h, "min")
    assert max(p["max"] for p in parts) == run["max"], (h, "max")
    assert sum(int(p["sum"]) for p in parts) == int(run["sum"]), (h, "sum")
    assert sum(int(p["sum_sq"]) for p in parts) == int(run["sum_sq"]), (h, "sum_sq")
    merged = {}
    for p in parts:
        config, counts = hdrlog.decode(p["hdr"])
        assert config == (1, 3600000000000, 3), config
        for k, c in counts.items():
            merged[k] = merged.get(k, 0) + c
    assert merged == hdrlog.decode(run["hdr"])[1], (h, "buckets")
    print(h, run["count"], "from", len(parts), "names")
if os.path.exists(sys.argv[1] + ".hlog"):
    log = hdrlog.read_log(sys.argv[1] + ".hlog")
    for name, v in names.items():
        assert hdrlog.merge(log, "name:" + name)[1] == hdrlog.decode(v["latency"]["hdr"])[1], ("hlog", name)
PY
}

cat > "$S/shop.lua" <<'LUA'
-- Logs in once per connection, then asks for items, each named "item".
local s = {}
function s.connect(conn)
  conn.token, conn.n = nil, 0
end
function s.request(conn)
  if not conn.token then return { method = "POST", path = "/login", name = "login" } end
  conn.n = conn.n + 1
  return { path = "/items/" .. conn.id .. "-" .. conn.n, name = "item",
           headers = { Authorization = "Bearer " .. conn.token } }
end
function s.response(conn, res)
  if conn.token then
    if res.status ~= 200 then return false, "status " .. res.status end
    return
  end
  conn.token = res.body:match('"token":"([^"]+)"')
  if not conn.token then return false, "no token" end
end
return s
LUA

# 1. The proof.
start_target --close-every 40 --log "$T/shop.log"
url="http://127.0.0.1:$PORT"
run_volley shop -n 3000 -c 6 -t 2 -s "$S/shop.lua" "$url/"
check_eq "$RC" 0 "shop: exit status"
stop_target
logins=$(path_count "$T/shop.log" POST /login)
items=$(path_count "$T/shop.log" GET /items/)
check_ge "$logins" 60 "shop: a login per connection, and connections closed every 40 responses"
check_eq "$(jget "$T/shop.json" names.login.requests.started)" "$logins" "shop: login started = the server's /login"
check_eq "$(jget "$T/shop.json" names.login.requests.completed)" "$logins" "shop: login completed = the server's /login"
check_eq "$(jget "$T/shop.json" names.item.requests.started)" "$items" "shop: item started = the server's /items/"
check_eq "$(jget "$T/shop.json" names.item.requests.completed)" "$items" "shop: item completed = the server's /items/"
check_eq "$((logins + items))" 3000 "shop: the server got the run's requests"
check_eq "$(jget "$T/shop.json" requests.failed)" 0 "shop: nothing failed"
check_adds_up shop
names_add_up shop
check_grep "$T/shop.out" '^  Names +requests +failed +p50 +p90 +p99 +max +status$' "shop: the table's head"
check_grep "$T/shop.out" "^    login +$logins +0 +[0-9.]+[mu]?s +[0-9.]+[mu]?s +[0-9.]+[mu]?s +[0-9.]+[mu]?s  200: $logins\$" \
    "shop: login's row"
check_grep "$T/shop.out" "^    item +$items +0 .*  200: $items\$" "shop: item's row"
if [ "$(grep -n '^    login' "$T/shop.out" | cut -d: -f1)" -lt "$(grep -n '^    item' "$T/shop.out" | cut -d: -f1)" ]; then
    ok
else
    fail "shop: names in order of first use"
fi

# 2. -R: latency (from the intended time) and service per name; --hlog
# gets a tag per name whose intervals add up to the name's histogram.
start_target --close-every 40
url="http://127.0.0.1:$PORT"
run_volley open -R 1500 -d 2s -c 8 -t 2 -s "$S/shop.lua" --hlog "$T/open.hlog" --hlog-interval 500ms "$url/"
check_rate_rc "open: exit status"
check_adds_up open
names_add_up open latency service
check_grep "$T/open.hlog" '^Tag=name:login,0\.000,0\.500,' "open: login's tag from the first interval"
check_grep "$T/open.hlog" '^Tag=name:item,1\.500,0\.500,' "open: item's tag"
# HdrHistogram's own HistogramLogProcessor reads a name's tag.
JAR=/usr/share/java/hdrhistogram.jar
if command -v java > /dev/null && [ -f "$JAR" ]; then
    RC=0
    timeout 60 java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor -i "$T/open.hlog" -csv -tag name:item \
        -o "$T/java.item" > "$T/java.out" 2>&1 || RC=$?
    check_eq "$RC" 0 "open: HistogramLogProcessor -tag name:item: $(head -c 200 "$T/java.out")"
    check_eq "$(awk -F, '/^[0-9]/ { n = $6 } END { print n }' "$T/java.item")" \
        "$(jget "$T/open.json" names.item.latency.count)" "open: Java's total count of name:item"
else
    echo "skip: HistogramLogProcessor (no java or HdrHistogram jar)"
fi

# 3. Validation failures by reason, per name; a name's own 404s (one
# connection: conn.n numbers every request).
cat > "$S/check.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  if conn.n % 4 == 0 then return { path = "/status/404", name = "missing" } end
  return { path = "/json/items/" .. conn.n % 3, name = "list" }
end
function s.response(conn, res)
  if res.status == 404 then
    if conn.n % 8 == 0 then return false, "gone" end
    return
  end
  if not res.body:find('"id":2', 1, true) then return false, "short list" end
end
return s
LUA
stop_target
start_target
url="http://127.0.0.1:$PORT"
run_volley check -n 800 -c 1 -t 1 -s "$S/check.lua" "$url/"
check_eq "$RC" 0 "check: exit status"
names_add_up check
check_eq "$(jget "$T/check.json" names.missing.status.404)" 200 "check: missing: 200 answered 404"
check_eq "$(jget "$T/check.json" names.missing.errors.validation)" 100 "check: missing: half failed"
python3 - "$T/check.json" <<'PY' && ok || fail "check: reasons per name"
import json, sys
n = json.load(open(sys.argv[1]))["names"]
assert n["missing"]["failures"]["reasons"] == [{"reason": "gone", "count": 100}], n["missing"]["failures"]
assert n["list"]["failures"]["reasons"] == [{"reason": "short list", "count": n["list"]["errors"]["validation"]}]
assert n["list"]["errors"]["validation"] > 0
PY

# 4. The cap: a name per path fails at the 1001st name, naming it; the
# report of what was done has the names so far (the text lists 100).
cat > "$S/cap.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  local path = "/items/" .. conn.id .. "-" .. conn.n
  return { path = path, name = path }
end
return s
LUA
run_volley cap -n 5000 -c 2 -t 2 -s "$S/cap.lua" "$url/"
check_eq "$RC" 1 "cap: exit status"
check_grep "$T/cap.err" '^volley: .*cap\.lua: in request\(\): more than 1000 request names \(name "/items/[0-9]+-[0-9]+"\): group dynamic paths under one name$' \
    "cap: the error names the name and the cap"
check_grep "$T/cap.out" '^    \(900 more names: the JSON has every name\)$' "cap: the text lists 100 names"
check_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["names"]))' "$T/cap.json")" 1000 \
    "cap: the JSON has the 1000 names"
check_adds_up cap

# 5. wrk style: volley.name, the table form of wrk.format, and a default
# request named in init().
cat > "$S/wrk.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  if n % 3 == 0 then
    volley.name("three")
    return wrk.format(nil, "/three/" .. n)
  end
  return wrk.format{ path = "/other/" .. n, name = "other", headers = { ["X-N"] = tostring(n) } }
end
LUA
stop_target
start_target --log "$T/wrk.log"
url="http://127.0.0.1:$PORT"
run_volley wrk -n 900 -c 3 -t 1 -s "$S/wrk.lua" "$url/"
check_eq "$RC" 0 "wrk: exit status"
stop_target
check_eq "$(jget "$T/wrk.json" names.three.requests.completed)" "$(path_count "$T/wrk.log" GET /three/)" \
    "wrk: volley.name = the server's /three/"
check_eq "$(jget "$T/wrk.json" names.other.requests.completed)" "$(path_count "$T/wrk.log" GET /other/)" \
    "wrk: wrk.format{name=} = the server's /other/"
check_eq "$(jget "$T/wrk.json" names.three.requests.completed)" 300 "wrk: every third"
check_grep "$T/wrk.log" '^[0-9]+ GET /other/1 X-N=1$' "wrk: the table form merges headers"
names_add_up wrk
start_target
url="http://127.0.0.1:$PORT"
printf 'function init() volley.name("all") end\n' > "$S/init.lua"
run_volley init -n 200 -c 2 -t 2 -s "$S/init.lua" "$url/"
check_eq "$(jget "$T/init.json" names.all.requests.completed)" 200 "init: the default request named"
printf 'function setup(t) volley.name("x") end\n' > "$S/setup.lua"
run_volley setup -n 10 -c 1 -s "$S/setup.lua" "$url/"
check_eq "$RC" 1 "setup: exit status"
check_grep "$T/setup.err" 'setup\.lua:1: in setup\(\): volley\.name: not available in setup\(\) \(the main state\)' \
    "setup: volley.name in the main state"
printf 'function request() volley.name(7); return wrk.format() end\n' > "$S/bad.lua"
run_volley bad -n 10 -c 1 -s "$S/bad.lua" "$url/"
check_grep "$T/bad.err" 'bad\.lua:1: in request\(\): volley\.name: a request name must be a non-empty string, not a number$' \
    "bad: a name that is not a string"
printf 'function request() return {path = "/", name = ""} end\n' > "$S/empty.lua"
run_volley empty -n 10 -c 1 -s "$S/empty.lua" "$url/"
check_grep "$T/empty.err" 'empty\.lua: in request\(\): a request name must be a non-empty string, not an empty one$' \
    "empty: an empty name"

# A name is the script's text: escaped in the table, whole in the JSON.
printf 'function init() volley.name("red\\27[31m\\nline") end\n' > "$S/evil.lua"
run_volley evil -n 20 -c 1 -s "$S/evil.lua" "$url/"
check_grep "$T/evil.out" '^    red\\x1b\[31m\\nline +20 +0 ' "evil: the name escaped in the table"
if grep -q $'\x1b' "$T/evil.out"; then fail "evil: an ESC reached the report"; else ok; fi
check_eq "$(python3 -c 'import json,sys; print(repr(list(json.load(open(sys.argv[1]))["names"])))' "$T/evil.json")" \
    "['red\\x1b[31m\\nline']" "evil: the name whole in the JSON"

# 6. Thresholds on a name: pass, fail, no data, and a figure names do not keep.
run_volley th -n 500 -c 2 -s "$S/shop.lua" --threshold 'latency{name="item"}.p99 < 10s' \
    --threshold 'requests{name="login"} >= 1' --threshold 'errors{name="item"} == 0' \
    --threshold 'status{name="item"}.2xx > 99%' --threshold 'requests{name="nosuch"} > 0 or nodata' "$url/"
check_eq "$RC" 0 "thresholds: all pass"
check_grep "$T/th.out" '^  --threshold  latency\{name="item"\}\.p99 < 10s +[0-9.]+[mu]?s +pass$' "thresholds: a name's p99"
check_grep "$T/th.out" '^  --threshold  requests\{name="nosuch"\} > 0 or nodata +no data +pass$' "thresholds: or nodata"
python3 - "$T/th.json" <<'PY' && ok || fail "thresholds: JSON figures"
import json, sys
t = json.load(open(sys.argv[1]))["thresholds"]
assert [x["figure"] for x in t] == ['latency{name="item"}.p99', 'requests{name="login"}', 'errors{name="item"}',
                                    'status{name="item"}.2xx', 'requests{name="nosuch"}'], t
assert t[1]["observed"] >= 1 and t[4]["nodata"] is True
PY
run_volley th2 -n 100 -c 2 -s "$S/shop.lua" --threshold 'requests{name="nosuch"} > 0' "$url/"
check_eq "$RC" 99 "thresholds: a name without data fails"
check_grep "$T/th2.err" '^volley: 1 of 1 threshold failed: --threshold "requests\{name="nosuch"\} > 0"$' "thresholds: stderr"
run_volley th3 -n 10 -c 1 --threshold 'connect{name="x"}.p99 < 1s' "$url/"
check_eq "$RC" 2 "thresholds: connect by name refused"
check_grep "$T/th3.err" 'connect times are not kept per request name' "thresholds: the message"

# 7. The HTML report's table; volley report prints the same names again.
run_volley html -n 300 -c 2 -s "$S/shop.lua" --html "$T/shop.html" "$url/"
check_grep "$T/shop.html" '<table id="names"><tr><th>name</th>' "html: the names table"
check_grep "$T/shop.html" '<tr><td>login</td><td class="n">[0-9]+</td><td class="n">0</td>' "html: login's row"
"$VOLLEY" report "$T/html.json" > "$T/html.r.out" 2> /dev/null || true
if cmp -s "$T/html.out" "$T/html.r.out"; then ok; else fail "report: the text differs: $(diff "$T/html.out" "$T/html.r.out" | head -4)"; fi

# 8. A run without a script is as before: no table, "names": null. A
# script's unnamed requests count under "METHOD path" (test_default_names.sh).
run_volley plain -n 200 -c 2 "$url/"
if grep -q "Names" "$T/plain.out"; then fail "plain: a names table"; else ok; fi
check_eq "$(jget "$T/plain.json" names)" null "plain: names is null"
printf 'local s = {}\nfunction s.request(conn) return {path = "/x?y=1"} end\nreturn s\n' > "$S/unnamed.lua"
run_volley unnamed -n 200 -c 2 -s "$S/unnamed.lua" "$url/"
check_eq "$(jget "$T/unnamed.json" "names.GET /x.requests.completed")" 200 "unnamed script: named GET /x"
check_grep "$T/unnamed.out" '^    GET /x +200 +0 ' "unnamed script: GET /x's row"
stop_target

# 9. HTTP/2 (h2c): each stream keeps its own name, GOAWAY retries included.
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
if start_nginx_h2 --h2c "keepalive_requests 50;"; then
    cat > "$S/h2.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  local name = conn.n % 3 == 0 and "a" or "b"
  return { path = "/" .. name .. "/" .. conn.n, name = name }
end
return s
LUA
    run_volley h2 -n 1000 -c 2 -t 1 --h2c --streams 10 -s "$S/h2.lua" "$h2url/"
    check_eq "$RC" 0 "h2c: exit status"
    kill "$H2_PID" 2> /dev/null || true
    wait "$H2_PID" 2> /dev/null || true
    check_eq "$(jget "$T/h2.json" names.a.requests.completed)" "$(grep -c '^HTTP/2.0 GET /a/' "$T/nginx_h2.access")" \
        "h2c: a = nginx's /a/"
    check_eq "$(jget "$T/h2.json" names.b.requests.completed)" "$(grep -c '^HTTP/2.0 GET /b/' "$T/nginx_h2.access")" \
        "h2c: b = nginx's /b/"
    names_add_up h2
else
    echo "skip: h2c (no nginx)"
fi
finish
