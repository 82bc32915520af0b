# The HTML report and volley compare's page in a real browser: headless
# Chromium renders them, the DOM holds the charts (the report's status
# classes stacked) and the run's numbers, and the pages fetched nothing.
# Fetches are read from Chromium's net log: every request a page makes
# carries the page's site (file://) in its network isolation key, which
# tells them from Chromium's own background requests. A canary page with
# an <img> and a stylesheet from elsewhere proves that the check sees
# fetches. A screenshot is saved ($VOLLEY_SCREENSHOT, when set, gets a
# copy; docs/img's two are taken with these same Chromium flags from the
# runs their captions describe; the compare page's is $T/compare.png). Skipped (status 77) when
# Chromium (Debian's chromium, a `make test` dependency) is not there or
# cannot start.
source "$TESTLIB"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIP: chromium not found (apt-get install -y chromium; make test installs it)"
    exit 77
fi

# chrome ARGS...: headless Chromium with a fresh profile, no background
# services, every non-loopback request sent to a closed proxy port; at
# most 60 s.
chrome() {
    timeout -k 5 60 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
        --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' \
        --user-data-dir="$T/profile" "$@" 2> "$T/chromium.err"
}

echo '<!DOCTYPE html><p id="x">ok</p>' > "$T/probe.html"
if ! chrome --dump-dom "file://$T/probe.html" > "$T/probe.dom" || ! grep -q '<p id="x">ok</p>' "$T/probe.dom"; then
    echo "SKIP: chromium cannot run here: $(tail -3 "$T/chromium.err")"
    exit 77
fi

start_target
U="http://127.0.0.1:$PORT"

# page_fetches NETLOG: the URLs a page (file://) requested, one a line.
page_fetches() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
types = {v: k for k, v in j["constants"]["logEventTypes"].items()}
for e in j["events"]:
    p = e.get("params", {})
    if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "file://" in p.get("network_isolation_key", "") \
            and not p.get("url", "").startswith("file:"):
        print(p["url"])
PY
}

rc=0; "$VOLLEY" -q -c 4 -n 3000 --json "$T/a.json" --html "$T/a.html" "$U/" 2> "$T/a.err" || rc=$?
check_eq "$rc" 0 "run: exit status"
# Whether a stats request counts itself: d is 0 or 1.
s1=$(target_stat received)
s2=$(target_stat received)
d=$((s2 - s1))

chrome --log-net-log="$T/net.json" --dump-dom "file://$T/a.html" > "$T/a.dom" || fail "chromium --dump-dom failed: $(tail -3 "$T/chromium.err")"
check_grep "$T/a.dom" '<span id="completed">3000</span>' "DOM: completed requests"
check_grep "$T/a.dom" '<span id="failed">0</span>' "DOM: failed requests"
check_grep "$T/a.dom" 'Latency by percentile' "DOM: the distribution chart"
check_ge "$(grep -o '<svg ' "$T/a.dom" | wc -l)" 3 "DOM: svg charts"
check_ge "$(grep -o '<polyline ' "$T/a.dom" | wc -l)" 5 "DOM: lines drawn"
check_grep "$T/a.dom" 'id="volley-result"' "DOM: the embedded result"
check_grep "$T/a.dom" '<figure class="chart stacked" id="status-classes">' "DOM: the status classes, stacked"
check_ge "$(sed -n '/id="status-classes"/,/<\/figure>/p' "$T/a.dom" | grep -o '<polygon ' | wc -l)" 1 "DOM: the status classes' bands"
check_eq "$(page_fetches "$T/net.json" | wc -l)" 0 "the report fetched nothing: $(page_fetches "$T/net.json" | head -3)"
check_eq "$(target_stat received)" "$((s2 + d))" "no request reached the target from the page"

# The command line on top, latency over time on a log scale, and the
# thresholds' figures as the text report prints them, as the browser
# renders them.
rc=0; "$VOLLEY" -c 2 -n 2000 --threshold 'p99 < 10s' --html "$T/t.html" "$U/" > "$T/t.out" 2> "$T/t.err" || rc=$?
check_eq "$rc" 0 "thresholds run: exit status"
chrome --dump-dom "file://$T/t.html" > "$T/t.dom" || fail "chromium --dump-dom of the thresholds run failed"
check_grep "$T/t.dom" "<p class=\"cmd\" id=\"command\">$VOLLEY -c 2 -n 2000 --threshold 'p99 &lt; 10s' --html $T/t.html $U/</p>" \
    "DOM: the command line (the DOM writes &#39; as ')"
check_grep "$T/t.dom" '<text class="unit" x="4" y="12">ms \(log scale\)</text>' "DOM: latency over time on a log scale"
p99=$(sed -n 's/^  --threshold  p99 < 10s  *\([^ ]*\)  pass$/\1/p' "$T/t.out")
check_grep "$T/t.out" '^  --threshold  p99 < 10s  +[0-9.]+(us|ms)  pass$' "the text report's threshold"
check_grep "$T/t.dom" "<td>--threshold</td><td><code>p99 &lt; 10s</code></td><td class=\"n\">$p99</td>" "DOM: the threshold's word and figure as the text's"

# volley compare's page: a second run against the first.
rc=0; "$VOLLEY" -q -c 2 -n 3000 --json "$T/b.json" "$U/" 2> "$T/b.err" || rc=$?
check_eq "$rc" 0 "second run: exit status"
s1=$(target_stat received)
rc=0; "$VOLLEY" compare "$T/a.json" "$T/b.json" --fail-if 'errors > +50%' --html "$T/c.html" > "$T/c.out" 2> "$T/c.err" || rc=$?
check_eq "$rc" 0 "compare: exit status"
chrome --log-net-log="$T/cnet.json" --dump-dom "file://$T/c.html" > "$T/c.dom" || fail "chromium --dump-dom of the compare page failed: $(tail -3 "$T/chromium.err")"
for id in settings comparison limits cmp-percentiles cmp-rps cmp-p99 volley-base volley-new; do
    check_grep "$T/c.dom" "id=\"$id\"" "compare DOM: #$id"
done
check_grep "$T/c.dom" '<p class="warn">Warning: connections \(-c\) differ: 4 in BASE, 2 in NEW</p>' "compare DOM: the settings warning"
check_grep "$T/c.dom" '<tr><td>latency p99</td>' "compare DOM: the table"
check_ge "$(grep -o '<svg ' "$T/c.dom" | wc -l)" 3 "compare DOM: svg charts"
check_ge "$(grep -o '<polyline ' "$T/c.dom" | wc -l)" 6 "compare DOM: two lines a chart"
check_eq "$(page_fetches "$T/cnet.json" | wc -l)" 0 "the compare page fetched nothing: $(page_fetches "$T/cnet.json" | head -3)"
check_eq "$(target_stat received)" "$((s1 + d))" "no request reached the target from the compare page"
chrome --hide-scrollbars --window-size=1000,2600 --screenshot="$T/compare.png" "file://$T/c.html" > /dev/null || true
check_eq "$(head -c 8 "$T/compare.png" 2> /dev/null | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "the compare page's screenshot"

# An interrupted run's page says so where the summary is, and when: the
# first run's result marked interrupted, reported again (exit 105).
python3 -c "import json, sys; r = json.load(open(sys.argv[1])); r['interrupted'] = True; json.dump(r, open(sys.argv[2], 'w'))" \
    "$T/a.json" "$T/i.json"
rc=0; "$VOLLEY" report -q "$T/i.json" --html "$T/i.html" 2> "$T/i.err" || rc=$?
check_eq "$rc" 105 "interrupted: volley report's exit status"
chrome --dump-dom "file://$T/i.html" > "$T/i.dom" || fail "chromium --dump-dom of the interrupted page failed"
check_grep "$T/i.dom" '<tr><th>Interrupted</th><td><span id="interrupted" class="warn">by SIGINT or SIGTERM, [0-9.]+ s into the run, at [0-9-]+ [0-9:]+ UTC: the figures are of that part</span>' \
    "interrupted: the page's summary says it"
check_eq "$(grep -c 'id="interrupted"' "$T/a.dom")" 0 "a whole run's page has no Interrupted row"

# The canary: a page that does fetch is caught.
printf '<!DOCTYPE html><img src="%s/canary.png"><link rel="stylesheet" href="https://example.invalid/x.css">' "$U" > "$T/canary.html"
chrome --log-net-log="$T/canary.json" --dump-dom "file://$T/canary.html" > /dev/null || true
check_eq "$(page_fetches "$T/canary.json" | sort | tr '\n' ' ')" "$U/canary.png https://example.invalid/x.css " "the canary's fetches are seen"

# A screenshot.
chrome --hide-scrollbars --window-size=1000,2600 --screenshot="$T/report.png" "file://$T/a.html" > /dev/null || true
if [ -s "$T/report.png" ] && [ "$(head -c 8 "$T/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok
    [ -n "${VOLLEY_SCREENSHOT:-}" ] && cp "$T/report.png" "$VOLLEY_SCREENSHOT"
else
    fail "no screenshot: $(tail -3 "$T/chromium.err")"
fi

finish
