# --html and `volley report`: the report is one self-contained file (no
# URL but the target's, in escaped text and the embedded JSON), holds the
# charts and the run's numbers, `volley report` of the saved JSON writes
# the same file, and a bad saved result gets one clear error.
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

# volley report of the saved JSON: the same file.
rc=0; "$VOLLEY" report "$T/out/a.json" --html "$T/out/b.html" 2> "$T/b.err" || rc=$?
check_eq "$rc" 0 "volley report: exit status"
if cmp -s "$T/out/a.html" "$T/out/b.html"; then ok; else fail "volley report: not the same page as --html"; fi
check_eq "$(wc -c < "$T/b.err")" 0 "volley report: nothing on stderr"

# 2. The open model: service time beside latency, sent against the target.
rc=0; "$VOLLEY" -q -c 4 -R 300 -d 2s --json "$T/r.json" --html "$T/r.html" "$U/" 2> "$T/r.err" || rc=$?
check_eq "$rc" 0 "-R run: exit status"
check_self_contained "$T/r.html"
check_embedded "$T/r.html" "$T/r.json"
check_grep "$T/r.html" 'Latency and service time by percentile' "-R run: both distributions"
check_grep "$T/r.html" '<i></i>service time</span>' "-R run: the service time in the legend"
check_grep "$T/r.html" 'against the target rate' "-R run: sent against the target rate"
check_grep "$T/r.html" 'open model at 300 requests/s' "-R run: the model"
check_grep "$T/r.html" 'Rate sent' "-R run: the rate sent"
completed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"]["completed"])' "$T/r.json")
check_grep "$T/r.html" "<span id=\"completed\">$completed</span>" "-R run: completed requests"

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
printf '[1, 2]' > "$T/array.json"
bad_report array "^volley report: $T/array.json: the result: expected an object, found an array$"
bad_report missing "^volley report: $T/missing.json: No such file or directory$"

# Bad command lines: exit 2.
rc=0; "$VOLLEY" report 2> "$T/nofile.err" || rc=$?
check_eq "$rc" 2 "no result file: exit status"
check_grep "$T/nofile.err" "^volley report: missing RESULT.json" "no result file: the message"
rc=0; "$VOLLEY" report "$T/out/a.json" --text 2> "$T/unknown.err" || rc=$?
check_eq "$rc" 2 "unknown option: exit status"
check_grep "$T/unknown.err" "^volley report: --text: unknown option \(volley report takes --json FILE, --html FILE, --fail-if EXPR and -q\)$" "unknown option: the message"
rc=0; "$VOLLEY" report "$T/out/a.json" --html "$T/nodir/x.html" 2> "$T/nodir.err" || rc=$?
check_eq "$rc" 2 "unwritable --html: exit status"
rc=0; "$VOLLEY" -q -n 10 --html "$T/nodir/x.html" "$U/" 2> "$T/runnodir.err" || rc=$?
check_eq "$rc" 2 "run with an unwritable --html: exit status"
check_grep "$T/runnodir.err" "^volley: --html: " "run with an unwritable --html: the message"
rc=0; "$VOLLEY" -q -n 10 --html - "$U/" 2> "$T/dash.err" || rc=$?
check_eq "$rc" 2 "--html -: exit status"

finish
