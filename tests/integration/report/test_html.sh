# --html and `volley report`: the report is one self-contained file (no
# URL but the target's, in escaped text and the embedded JSON), holds the
# charts and the run's numbers, `volley report` of the saved JSON writes
# the same file, and a bad saved result gets one clear error. The command
# line, as given, is the JSON's "command" and the page's first line.
source "$TESTLIB"

start_target
U="http://127.0.0.1:$PORT"
mkdir -p "$T/out"

# check_self_contained FILE: nothing outside the embedded JSON refers to
# anything but the target's URL, and there is no script but the JSON.
check_self_contained() {
    if python3 - "$1" "$U" <<'PY'; then ok; else fail "$1 is not self-contained"; fi
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
start = html.index('<script type="application/json" id="volley-result">')
end = html.index("</script>", start)
outside = html[:start] + html[end + len("</script>"):]
bad = []
if "<script" in outside: bad.append("a script element")
for pat in (r"\bsrc\s*=", r"\bhref\s*=", r"url\(", r"@import", r"<link", r"<img", r"<iframe", r"<object"):
    if re.search(pat, outside, re.I): bad.append(pat)
for m in re.finditer(r"(?:https?:)?//[^\s<\"']*", outside):
    if not m.group(0).startswith(sys.argv[2]) and not m.group(0).startswith("//"):
        bad.append(m.group(0))
    if m.group(0).startswith("//"): bad.append("protocol-relative " + m.group(0))
if html.count("<script") != 1: bad.append("more than one script element")
if bad:
    print(bad, file=sys.stderr); sys.exit(1)
PY
}

# check_embedded FILE JSON: the embedded JSON is the same value as JSON.
check_embedded() {
    if python3 - "$1" "$2" <<'PY'; then ok; else fail "$1: the embedded JSON is not $2"; fi
import json, sys
html = open(sys.argv[1], encoding="utf-8").read()
tag = '<script type="application/json" id="volley-result">'
start = html.index(tag) + len(tag)
body = html[start:html.index("</script>", start)]
assert "<" not in body
assert json.loads(body) == json.load(open(sys.argv[2], encoding="utf-8"))
PY
}

count_of() { { grep -o "$2" "$1" || true; } | wc -l; }

# 1. A closed-loop run.
rc=0; "$VOLLEY" -q -c 4 -n 2000 --json "$T/out/a.json" --html "$T/out/a.html" "$U/" 2> "$T/a.err" || rc=$?
check_eq "$rc" 0 "closed run: exit status"
check_eq "$(ls "$T/out" | tr '\n' ' ')" "a.html a.json " "closed run: the two files and nothing else"
check_self_contained "$T/out/a.html"
check_embedded "$T/out/a.html" "$T/out/a.json"
check_grep "$T/out/a.html" '<span id="completed">2000</span>' "closed run: completed requests"
check_grep "$T/out/a.html" '<span id="failed">0</span>' "closed run: failed requests"
check_grep "$T/out/a.html" '<tr><td>200</td><td class="n">2000</td></tr>' "closed run: status table"
check_grep "$T/out/a.html" 'Latency by percentile' "closed run: the distribution chart"
check_grep "$T/out/a.html" '99\.99%</text>' "closed run: the distribution's log axis"
check_grep "$T/out/a.html" 'Responses per second by status class' "closed run: responses over time"
check_grep "$T/out/a.html" 'Latency over time' "closed run: latency over time"
check_ge "$(count_of "$T/out/a.html" '<svg ')" 3 "closed run: svg charts"
check_ge "$(count_of "$T/out/a.html" '<polyline ')" 5 "closed run: lines drawn"
check_grep "$T/out/a.html" 'No request failed' "closed run: no failures chart"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$T/out/a.json")" \
    "['$VOLLEY', '-q', '-c', '4', '-n', '2000', '--json', '$T/out/a.json', '--html', '$T/out/a.html', '$U/']" \
    "closed run: the JSON's command, the argv as given"
check_grep "$T/out/a.html" "^<p class=\"cmd\" id=\"command\">$VOLLEY -q -c 4 -n 2000 --json $T/out/a.json --html $T/out/a.html $U/</p>\$" \
    "closed run: the command at the top of the page"

# The command's words as a shell reads them back: quoted where they need
# it (a blank, a quote, a dollar), HTML-escaped.
rc=0; "$VOLLEY" -q -n 20 -H "X-Q: it's <b>&" -H 'X-E: $x' --json "$T/q.json" --html "$T/q.html" "$U/" 2> "$T/q.err" || rc=$?
check_eq "$rc" 0 "quoted command: exit status"
check_grep "$T/q.html" "^<p class=\"cmd\" id=\"command\">$VOLLEY -q -n 20 -H &#39;X-Q: it&#39;\\\\&#39;&#39;s &lt;b&gt;&amp;&#39; -H &#39;X-E: [$]x&#39; --json " \
    "quoted command: quotes and escapes"
python3 - "$T/q.html" "$T/q.json" <<'PY' || fail "quoted command: the page's line is not the shell's words"
import html, json, re, shlex, sys
line = re.search(r'<p class="cmd" id="command">(.*)</p>', open(sys.argv[1]).read()).group(1)
assert shlex.split(html.unescape(line)) == json.load(open(sys.argv[2]))["command"], line
PY
ok

# volley report of the saved JSON: the same file.
rc=0; "$VOLLEY" report "$T/out/a.json" --html "$T/out/b.html" 2> "$T/b.err" || rc=$?
check_eq "$rc" 0 "volley report: exit status"
if cmp -s "$T/out/a.html" "$T/out/b.html"; then ok; else fail "volley report: not the same page as --html"; fi
check_eq "$(wc -c < "$T/b.err")" 0 "volley report: nothing on stderr"

# 2. The open model: service time beside latency, sent against the target.
rc=0; "$VOLLEY" -q -c 4 -R 300 -d 2s --json "$T/r.json" --html "$T/r.html" "$U/" 2> "$T/r.err" || rc=$?
RC=$rc; check_rate_rc "-R run: exit status"
check_self_contained "$T/r.html"
check_embedded "$T/r.html" "$T/r.json"
check_grep "$T/r.html" 'Latency and service time by percentile' "-R run: both distributions"
check_grep "$T/r.html" '<i></i>service time</span>' "-R run: the service time in the legend"
check_grep "$T/r.html" 'against the target rate' "-R run: sent against the target rate"
check_grep "$T/r.html" 'open model at 300 requests/s' "-R run: the model"
check_grep "$T/r.html" 'Rate sent' "-R run: the rate sent"
completed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"]["completed"])' "$T/r.json")
check_grep "$T/r.html" "<span id=\"completed\">$completed</span>" "-R run: completed requests"

# 2b. One slow outlier among fast requests: "Latency over time" is on a
# log scale, so p50 stays readable under max (on a linear one from 0, p50
# at 1/1000 of max would lie on the axis); each line's height above the
# bottom is its value's log. Thresholds show their figures as the text
# report prints them.
python3 -c "
print('GET $U/delay/300')
for i in range(3000): print('GET $U/')" > "$T/outlier.txt"
rc=0; "$VOLLEY" -c 2 -n 12004 --targets "$T/outlier.txt" --threshold 'p99 < 10s' --threshold 'rps > 1' \
    --threshold 'errors < 1%' --threshold 'requests > 5' --json "$T/o.json" --html "$T/o.html" > "$T/o.out" 2> "$T/o.err" || rc=$?
check_eq "$rc" 0 "outlier: exit status"
check_grep "$T/o.html" '<text class="unit" x="4" y="12">ms \(log scale\)</text>' "outlier: the log scale's unit"
python3 - "$T/o.html" "$T/o.json" <<'PY' || fail "outlier: latency over time is not on a log scale"
import json, math, re, sys
page = open(sys.argv[1]).read()
fig = page[page.index('id="latency"'):]
fig = fig[:fig.index("</figure>")]
ticks = [(float(v), float(y)) for y, v in re.findall(r'<text class="yl" x="[0-9.]+" y="([0-9.]+)">([^<]+)</text>', fig)]
decades = [t for t in ticks if math.log10(t[0]) == round(math.log10(t[0]))]
assert len(decades) >= 4, ticks
step = decades[0][1] - decades[1][1]
for a, b in zip(decades, decades[1:]):  # equal room for each decade
    assert abs(b[0] / a[0] - 10) < 1e-9 and abs((a[1] - b[1]) - step) < 0.2, ticks
lo, bottom = decades[0][0], decades[0][1] - 4  # a label sits 4 below its line
def height(v):  # where the axis puts v, above the bottom
    return math.log10(v / lo) * step
lines = re.findall(r'<g class="c(\d)[^"]*"><polyline points="([^"]+)"', fig)
ys = {int(c): [float(p.split(",")[1]) for p in pts.split()] for c, pts in lines}
pts = [p for p in json.load(open(sys.argv[2]))["series"]["points"] if p["latency"]["count"]]
assert len(ys[0]) == len(pts) == len(ys[3]), (len(ys[0]), len(pts))
for y50, ymax, p in zip(ys[0], ys[3], pts):
    l = p["latency"]
    assert abs((bottom - y50) - height(l["p50"] / 1e3)) < 1.5, (y50, l["p50"], ticks)
    assert abs((bottom - ymax) - height(l["max"] / 1e3)) < 1.5, (ymax, l["max"], ticks)
    assert bottom - y50 > 5, (y50, bottom)  # off the axis
assert max(p["latency"]["max"] for p in pts) > 1000 * min(p["latency"]["p50"] for p in pts), pts
PY
ok
python3 - "$T/o.html" "$T/o.out" <<'PY' || fail "outlier: the thresholds' figures are not the text report's"
import re, sys
page = open(sys.argv[1]).read()
rows = re.findall(r'<tr><td>--threshold</td><td><code>([^<]+)</code></td><td class="n">([^<]+)</td>', page)
text = dict(re.findall(r'^  --threshold  (\S.*?\S)  +(\S+)  (?:pass|FAIL)$', open(sys.argv[2]).read(), re.M))
rows = [(e.replace("&lt;", "<").replace("&gt;", ">"), v) for e, v in rows]
assert len(rows) == 4 and all(text[e] == v for e, v in rows), (rows, text)
assert re.fullmatch(r"[0-9.]+(us|ms|s)", dict(rows)["p99 < 10s"]) and dict(rows)["errors < 1%"] == "0%", rows
assert dict(rows)["rps > 1"].endswith("/s") and dict(rows)["requests > 5"] == "12004", rows
PY
ok

# 3. Failures: timeouts (no response completed: exit 1, the file is still written).
rc=0; "$VOLLEY" -q -c 2 -d 1s --timeout 200ms --json "$T/f.json" --html "$T/f.html" "$U/never" 2> "$T/f.err" || rc=$?
check_eq "$rc" 1 "timeouts: exit status"
check_self_contained "$T/f.html"
check_grep "$T/f.html" 'Failed requests per second by kind' "timeouts: failures over time"
check_grep "$T/f.html" '<tr><td>timeout</td><td class="n">[0-9]+</td></tr>' "timeouts: the errors table"
check_grep "$T/f.html" 'No latency was recorded' "timeouts: no distribution"
check_grep "$T/f.html" '<span id="completed">0</span>' "timeouts: completed requests"

# Validation failures with their reasons, from a script.
rc=0; "$VOLLEY" -q -c 2 -n 200 -s examples.json_check --json "$T/v.json" --html "$T/v.html" "$U/" -- bad 2> "$T/v.err" || rc=$?
check_eq "$rc" 1 "validation: exit status (no response completed)"
check_grep "$T/v.html" '<tr><td>invalid JSON</td><td class="n">200</td></tr>' "validation: the reasons table"
check_grep "$T/v.html" '<tr><td>validation</td><td class="n">200</td></tr>' "validation: the errors table"

# 3b. A flow (user(u)): the iterations, checks and groups sections hold
# the JSON's figures, and the script's names and reasons are escaped.
FLOW="$(dirname "$TESTLIB")/lua/flow_marks.lua"
rc=0; "$VOLLEY" -q -c 4 -t 2 --iterations 300 -s "$FLOW" --json "$T/w.json" --html "$T/w.html" "$U/" 2> "$T/w.err" || rc=$?
check_eq "$rc" 0 "flow: exit status"
check_self_contained "$T/w.html"
check_embedded "$T/w.html" "$T/w.json"
check_grep "$T/w.html" '<h2>Iterations</h2>' "flow: the iterations section"
check_grep "$T/w.html" '<h2>Checks</h2>' "flow: the checks section"
check_grep "$T/w.html" '<h2>Groups</h2>' "flow: the groups section"
check_grep "$T/w.html" 'Asked for</th><td>300 iterations</td>' "flow: the iterations asked for"
check_grep "$T/w.html" '<tr><td>&lt;b&gt;x&lt;/b&gt;</td>' "flow: a check's name escaped"
check_grep "$T/w.html" '<tr><td>a&amp;b &quot;q&quot;,&lt;g&gt;</td>' "flow: a group's name escaped"
check_grep "$T/w.html" '<tr><td>&lt;i&gt;why&lt;/i&gt;</td>' "flow: a failure reason escaped"
if sed '/id="volley-result"/,$d' "$T/w.html" | grep -q '<b>x</b>\|<i>why</i>\|<g>'; then
    fail "flow: a script's name unescaped in the page"
else
    ok
fi
if python3 - "$T/w.html" "$T/w.json" <<'PY'; then ok; else fail "flow: the page's figures are not the JSON's"; fi
import html, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
page = page[:page.index('id="volley-result"')]
r = json.load(open(sys.argv[2]))
it = r["iterations"]
def fmt(us):  # fmt_time, from microseconds
    return "%.1fus" % us if us < 1e3 else "%.2fms" % (us / 1e3) if us < 1e6 else "%.2fs" % (us / 1e6)
for key in ("completed", "failed", "cut_off", "started"):
    m = re.search(r'<span id="iterations-%s">(\d+)</span>' % key, page)
    assert m and int(m.group(1)) == it[key], (key, m and m.group(1), it[key])
m = re.search(r'<span id="iterations-per_sec">([0-9.]+)</span>', page)
assert m and abs(float(m.group(1)) - it["per_sec"]) < 1e-9, (m and m.group(1), it["per_sec"])
assert it["failed"] > 0 and it["completed"] > 0, it
def table(id):
    t = re.search(r'<table id="%s">(.*?)</table>' % id, page, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", t, re.S)[1:]
    return [[html.unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", x)] for x in rows]
d = it["duration"]
row = table("iteration-duration")[0]
assert row[1] == str(d["count"]) and d["count"] == it["completed"], row
assert [row[2], row[3], row[5], row[6]] == [fmt(d["p50"]), fmt(d["p90"]), fmt(d["p99"]), fmt(d["max"])], (row, d)
reasons = table("iteration-failures")
assert reasons == [[x["reason"], str(x["count"])] for x in it["failures"]["reasons"]], reasons
checks = table("checks")
names = r["checks"]["names"]
assert [c[0] for c in checks[:-1]] == list(names), checks
for c in checks[:-1]:
    n = names[c[0]]
    assert [int(c[1]), int(c[2])] == [n["passed"], n["failed"]], (c, n)
    assert c[3] == "%.2f%%" % (100 * n["passed"] / (n["passed"] + n["failed"])), c
assert checks[-1][:3] == ["all checks", str(r["checks"]["passed"]), str(r["checks"]["failed"])], checks[-1]
assert names["<b>x</b>"]["failed"] > 0, names
groups = table("groups")
assert [g[0] for g in groups] == list(r["groups"]), groups
unit = {"us": 1, "ms": 1e3, "s": 1e6}
for g in groups:
    j = r["groups"][g[0]]
    dj = j["duration"]
    assert [int(g[1]), int(g[2])] == [j["count"], j["failed"]], (g, j)
    assert [g[3], g[4], g[6], g[7]] == [fmt(dj["p50"]), fmt(dj["p90"]), fmt(dj["p99"]), fmt(dj["max"])], (g, dj)
    p = [float(re.match(r"[0-9.]+", x).group(0)) * unit[re.search(r"[a-z]+$", x).group(0)] for x in g[3:8]]
    assert p == sorted(p), g  # p95 between p90 and p99
PY
rc=0; "$VOLLEY" report "$T/w.json" --html "$T/w2.html" 2> "$T/w2.err" || rc=$?
check_eq "$rc" 0 "flow: volley report: exit status"
if cmp -s "$T/w.html" "$T/w2.html"; then ok; else fail "flow: volley report: not the same page as --html"; fi
# A run without a flow has none of the flow's sections.
if grep -q '<h2>Iterations</h2>\|<h2>Checks</h2>\|<h2>Groups</h2>' "$T/out/a.html"; then
    fail "closed run: a flow's section"
else
    ok
fi

# 4. Bad saved results: one line naming the file and the field, exit 1,
# and the output file left as it was.
echo keep > "$T/out/keep.html"
bad_report() { # NAME EXPECTED-STDERR-REGEX
    rc=0; "$VOLLEY" report "$T/$1.json" --html "$T/out/keep.html" 2> "$T/$1.err" || rc=$?
    check_eq "$rc" 1 "$1: exit status"
    check_eq "$(wc -l < "$T/$1.err")" 1 "$1: one line on stderr"
    check_grep "$T/$1.err" "$2" "$1: the message"
    check_eq "$(cat "$T/out/keep.html")" keep "$1: the output file untouched"
}
head -c 1000 "$T/out/a.json" > "$T/trunc.json"
bad_report trunc "^volley report: $T/trunc.json: line [0-9]+, column [0-9]+ \(byte [0-9]+\): "
sed 's/"completed": 2000/"completed": "2000"/' "$T/out/a.json" > "$T/edited.json"
bad_report edited "^volley report: $T/edited.json: requests.completed: expected a number, found a string$"
python3 - "$T/out/a.json" "$T/hdr.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["latency"]["hdr"] = "HISTFAAAACh4nJNpmSzMwMDAxMAQAAAKYgG5"
json.dump(j, open(sys.argv[2], "w"))
PY
bad_report hdr "^volley report: $T/hdr.json: latency.hdr: "
python3 - "$T/out/a.json" "$T/big.json" <<'PY'
import base64, json, struct, sys, zlib
# A V2 header declaring 5 digits up to 2^62: more counts than volley decodes.
inner = struct.pack(">iiiiqqd", 0x1c849313, 0, 0, 5, 1, 1 << 62, 1.0)
z = zlib.compress(inner)
blob = struct.pack(">ii", 0x1c849314, len(z)) + z
j = json.load(open(sys.argv[1]))
j["series"]["points"][0]["latency"]["hdr"] = base64.b64encode(blob).decode()
json.dump(j, open(sys.argv[2], "w"))
PY
bad_report big "^volley report: $T/big.json: series.points\[0\].latency.hdr: histogram configuration too large"
# Counts that add up past what a result holds: 614,401 seconds of 9e15
# requests each, 1025 to a column of the page's 600, passed int64 (the
# chart was empty, the sanitizer build aborted). The sum is refused.
python3 - "$T/out/a.json" "$T/sums.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["series"]["points"] = [{"t": i, "requests": 9000000000000000} for i in range(614401)]
json.dump(j, open(sys.argv[2], "w"), separators=(",", ":"))
PY
bad_report sums "^volley report: $T/sums.json: series.points\[1\]\.requests: 9000000000000000, added to the 9000000000000000 before it, is more than 9000000000000000, the most a result counts: not a real result$"
# An older result's send span (rate.sent / rate.sent_per_sec) past what
# an int64 of ns holds: refused, not converted (undefined for a double).
python3 - "$T/out/a.json" "$T/span.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["rate"] = {"sent": 100, "sent_per_sec": 1e-300}
json.dump(j, open(sys.argv[2], "w"))
PY
bad_report span "^volley report: $T/span.json: rate.sent_per_sec: 100 sent over 1e-300 a second: more than 1e7 s of sending$"
# A flow's figures are checked as any others.
python3 - "$T/w.json" "$T/flowbad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["groups"]['a&b "q",<g>']["failed"] = -1
json.dump(j, open(sys.argv[2], "w"))
PY
bad_report flowbad "^volley report: $T/flowbad.json: groups\.a&b \"q\",<g>\.failed: expected a count \(a whole number from 0\), found -1$"
python3 - "$T/out/a.json" "$T/cmdbad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["command"] = ["volley", 7]
json.dump(j, open(sys.argv[2], "w"))
PY
bad_report cmdbad "^volley report: $T/cmdbad.json: command: item 1: expected a string$"
# A result from before "command": no line for it.
python3 - "$T/out/a.json" "$T/nocmd.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
del j["command"]
json.dump(j, open(sys.argv[2], "w"))
PY
rc=0; "$VOLLEY" report "$T/nocmd.json" --html "$T/nocmd.html" --json "$T/nocmd2.json" 2> "$T/nocmd.err" || rc=$?
check_eq "$rc" 0 "no command: exit status"
check_eq "$(grep -c 'id="command"' "$T/nocmd.html")" 0 "no command: no line on the page"
check_eq "$(jget "$T/nocmd2.json" command)" null "no command: null in the JSON written again"
printf '[1, 2]' > "$T/array.json"
bad_report array "^volley report: $T/array.json: the result: expected an object, found an array$"
bad_report missing "^volley report: $T/missing.json: No such file or directory$"

# Bad command lines: exit 2.
rc=0; "$VOLLEY" report 2> "$T/nofile.err" || rc=$?
check_eq "$rc" 2 "no result file: exit status"
check_grep "$T/nofile.err" "^volley report: missing RESULT.json" "no result file: the message"
rc=0; "$VOLLEY" report "$T/out/a.json" --text 2> "$T/unknown.err" || rc=$?
check_eq "$rc" 2 "unknown option: exit status"
check_grep "$T/unknown.err" "^volley report: --text: unknown option \(volley report takes --json FILE, --html FILE, --threshold EXPR, --fail-if EXPR and -q\)$" "unknown option: the message"
rc=0; "$VOLLEY" report "$T/out/a.json" --html "$T/nodir/x.html" 2> "$T/nodir.err" || rc=$?
check_eq "$rc" 2 "unwritable --html: exit status"
rc=0; "$VOLLEY" -q -n 10 --html "$T/nodir/x.html" "$U/" 2> "$T/runnodir.err" || rc=$?
check_eq "$rc" 2 "run with an unwritable --html: exit status"
check_grep "$T/runnodir.err" "^volley: --html: " "run with an unwritable --html: the message"
rc=0; "$VOLLEY" -q -n 10 --html - "$U/" 2> "$T/dash.err" || rc=$?
check_eq "$rc" 2 "--html -: exit status"

finish
