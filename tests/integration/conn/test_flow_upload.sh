# File uploads in a flow (opts.multipart, volley.file) against
# py/form_server.py, whose aiohttp parses multipart/form-data as a real
# Python app does: the server's sha256 of every file part and the text
# fields match, exact counts; a binary file with NULs, CR LF and "--" in
# it, a file of 3 MB, names with quotes and CR LF, repeated names in a
# list of pairs; the per-connection style's volley.multipart; a missing
# file and multipart with body are one line each.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"
PY=$(dirname "$TESTLIB")/py
FPY=/usr/bin/python3   # aiohttp is Debian's
"$FPY" -c 'import aiohttp' 2> /dev/null || { echo "python3-aiohttp is missing" >&2; exit 1; }

"$FPY" "$PY/form_server.py" "$T/form.port" "$T/form.log" 90 &
FPID=$!
TARGET_PIDS+=("$FPID")
wait_port_file "$T/form.port" "$FPID" || { echo "form_server.py did not start" >&2; exit 1; }
FPORT=$(cat "$T/form.port")

cd "$T"
printf 'head\0\r\n--\r\n\r\n--volley-\0tail\r\n' > bin.dat
head -c 3000000 /dev/urandom > big.bin
: > empty.txt

# 1. Two users, 4 iterations each, two uploads an iteration: every part
# arrives whole, once.
cat > "$S/upload.lua" <<'EOF2'
local s = {}
local bin = volley.file("bin.dat", "application/x-test")
local big = volley.file("big.bin")
local empty = volley.file("empty.txt", nil, 'say "hi"\r\n.txt')
function s.user(u)
  local r = u:post("/upload", { multipart = { title = 'a "quoted"\r\nname', n = 42, bin = bin, big = big } })
  u:check(r.status == 200, "upload 200")
  r = u:put("/upload", { method = "POST", multipart = { { "z", "first" }, { "a", "2" }, { "a", empty } } })
  u:check(r.status == 200, "pairs 200")
end
return s
EOF2
run_volley upload -q -s "$S/upload.lua" -c 2 -t 1 --iterations 8 "http://127.0.0.1:$FPORT/"
check_eq "$RC" 0 "upload: exit status ($(head -c 300 "$T/upload.err"))"
check_eq "$(jget "$T/upload.json" requests.completed)" 16 "upload: requests completed"
check_eq "$(grep -c '^POST /upload 200 ' "$T/form.log")" 16 "upload: the server parsed every upload"
"$FPY" - "$T/form.log" <<'PY' || fail "upload: the server's parts differ from the files"
import hashlib, json, sys
def f(path, typ, name=None):
    data = open(path, "rb").read()
    return {"filename": name or path, "type": typ, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
one = {"title": 'a "quoted"\r\nname', "n": "42", "bin": f("bin.dat", "application/x-test"),
       "big": f("big.bin", "application/octet-stream")}
# names and filenames are escaped as browsers do ('"' %22, CR %0D, LF %0A)
two = {"z": "first", "a": ["2", f("empty.txt", "text/plain", "say %22hi%22%0D%0A.txt")]}
got = [json.loads(l.split(" ", 3)[3]) for l in open(sys.argv[1]) if l.startswith("POST /upload 200 ")]
assert got.count(one) == 8, [g for g in got if g != one and g != two][:1]
assert got.count(two) == 8, [g for g in got if g != one and g != two][:1]
PY
ok

# 2. The per-connection style: volley.multipart's body, made once, sent
# by every request.
: > "$T/form.log"
cat > "$S/wrk_style.lua" <<'EOF2'
local body, ctype = volley.multipart{ title = "cat", bin = volley.file("bin.dat", "application/x-test") }
wrk.method, wrk.path, wrk.body = "POST", "/upload", body
wrk.headers["Content-Type"] = ctype
EOF2
run_volley wrk_style -q -s "$S/wrk_style.lua" -n 6 -c 2 -t 1 "http://127.0.0.1:$FPORT/"
check_eq "$RC" 0 "wrk style: exit status ($(head -c 300 "$T/wrk_style.err"))"
"$FPY" - "$T/form.log" <<'PY' || fail "wrk style: the server's parts differ"
import hashlib, json, sys
data = open("bin.dat", "rb").read()
want = {"title": "cat", "bin": {"filename": "bin.dat", "type": "application/x-test",
                                "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}}
got = [json.loads(l.split(" ", 3)[3]) for l in open(sys.argv[1]) if l.startswith("POST /upload 200 ")]
assert got == [want] * 6, got[:1]
PY
ok

# 3. Bad input: one line each, and the run does not start.
: > "$T/form.log"
cat > "$S/missing.lua" <<'EOF2'
local s = {}
local photo = volley.file("no-such-photo.jpg", "image/jpeg")
function s.user(u) u:post("/upload", { multipart = { photo = photo } }) end
return s
EOF2
run_volley missing -q -s "$S/missing.lua" -c 1 --iterations 1 "http://127.0.0.1:$FPORT/"
check_eq "$RC" 1 "missing: exit status"
check_eq "$(cat "$T/missing.err")" "volley: $S/missing.lua:2: volley.file: no-such-photo.jpg: No such file or directory" \
    "missing: one line naming the script's line and the path"
check_eq "$(wc -l < "$T/form.log")" 0 "missing: no request was sent"

cat > "$S/both.lua" <<'EOF2'
local s = {}
function s.user(u)
  u:post("/upload", { body = "x", multipart = { a = "1" } })
end
return s
EOF2
run_volley both -s "$S/both.lua" -c 1 --iterations 1 "http://127.0.0.1:$FPORT/"
check_grep "$T/both.out" "failed: .*both.lua:3: u:post: give one of body, json, form and multipart" "both: the reason names the line"

cat > "$S/badvalue.lua" <<'EOF2'
local s = {}
function s.user(u)
  u:post("/upload", { multipart = { flag = true } })
end
return s
EOF2
run_volley badvalue -s "$S/badvalue.lua" -c 1 --iterations 1 "http://127.0.0.1:$FPORT/"
check_grep "$T/badvalue.out" "failed: .*badvalue.lua:3: u:post: multipart field \"flag\" is a boolean" "badvalue: the reason names the field"
check_eq "$(wc -l < "$T/form.log")" 0 "bad input: no request was sent"

# 4. volley convert --curl of a curl -F command: the flow it writes uploads
# the same parts (a file with its type and name, a text field, a field
# read from a file), in curl's order, parsed by the server.
printf 'from a file' > note.txt
"$VOLLEY" convert --flow --curl "curl -F title=cat -F 'photo=@bin.dat;type=image/jpeg;filename=c.jpg' -F 'note=<note.txt' http://127.0.0.1:$FPORT/upload" \
    > "$S/curl_f.lua" 2> "$T/curl_f.err" || fail "convert -F: exit status ($(cat "$T/curl_f.err"))"
run_volley curl_f -s "$S/curl_f.lua" -c 1 --iterations 2 "http://127.0.0.1:$FPORT/"
check_eq "$RC" 0 "convert -F: the flow runs ($(head -c 300 "$T/curl_f.err"))"
check_eq "$(grep -c '^POST /upload 200 ' "$T/form.log")" 2 "convert -F: both uploads parsed"
"$FPY" - "$T/form.log" bin.dat <<'PY' || fail "convert -F: the server's parts differ from curl's"
import hashlib, json, sys
data = open(sys.argv[2], "rb").read()
want = {"note": "from a file", "photo": {"filename": "c.jpg", "type": "image/jpeg",
        "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}, "title": "cat"}
for line in open(sys.argv[1]):
    got = json.loads(line.split(" ", 3)[3])
    assert got == want, (got, want)
PY
ok
finish
