#!/usr/bin/env bash
# --targets FILE: three targets of one origin with different methods,
# headers and a body file reach the server in the right proportion (round
# robin: exactly; random: roughly), as the server's request log shows
# method, path, headers and body of each; a URL list, stdin, comments,
# blank lines and CRLF; -H, -m and -b as defaults; -R and HTTP/2 (h2c).
# Each target is named "METHOD path": its figures in text, JSON and HTML.
# Every bad file is exit 2 with its line number, and nothing is sent.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

# log_counts: the request log of the stopped server, as "COUNT LINE" with
# the connection number left out, one line per kind of request.
log_counts() { cut -d' ' -f2- "$T/req.log" | sort | uniq -c | sed 's/^ *//'; }
# count_of LINE: how many requests the log has of exactly LINE.
count_of() { cut -d' ' -f2- "$T/req.log" | grep -cxF -- "$1" || true; }
start_logged() { start_target --log "$T/req.log" --log-bodies; U="http://127.0.0.1:$PORT"; }
# tv NAME ARGS...: run_volley in $T, where the targets files and bodies are.
tv() { local d=$PWD; cd "$T"; run_volley "$@"; cd "$d"; }

# FNV-1a (32 bits) of a file, as volley-target's --log-bodies writes it.
fnv() {
    python3 - "$1" <<'PY'
import sys
h = 2166136261
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 16777619) & 0xffffffff
print("%08x" % h)
PY
}

# write_three: the three targets, on the server now running.
write_three() {
    cat > "$T/three.txt" <<EOF
# three targets of one origin
GET $U/a?page=1

POST $U/items
Content-Type: application/json
X-Kind: create
@bodies/item.json

PUT $U/items/7
X-Run: own
X-Kind: update
EOF
}

mkdir -p "$T/bodies"
printf '{"item":42,"name":"volley"}' > "$T/bodies/item.json"
BODY="body=27:$(fnv "$T/bodies/item.json")"

# 1. The proof: GET, POST with a body file, PUT with its own header (which
# wins over -H's of the same name). Round robin with -n 3000: exactly 1000
# each, whatever -t and -c. The body path is relative to the working
# directory, as in vegeta.
start_logged
write_three
tv rr -n 3000 -c 6 -t 2 -H 'X-Run: r1' --targets three.txt
check_eq "$RC" 0 "round robin: exit status"
check_adds_up rr
check_eq "$(jget "$T/rr.json" requests.completed)" 3000 "round robin: completed"
check_eq "$(jget "$T/rr.json" options.targets.count)" 3 "JSON: options.targets.count"
check_eq "$(jget "$T/rr.json" options.targets.order)" round-robin "JSON: options.targets.order"
check_eq "$(jget "$T/rr.json" options.targets.file)" three.txt "JSON: options.targets.file"
check_eq "$(jget "$T/rr.json" target.url)" "$U" "JSON: the run's URL is the origin"
check_grep "$T/rr.out" "^Running 3000 requests @ $U \(3 targets from three.txt, round robin\)$" "the header line"
stop_target
check_eq "$(count_of "GET /a?page=1 X-Run=r1")" 1000 "round robin: GET /a?page=1"
check_eq "$(count_of "POST /items X-Run=r1 X-Kind=create $BODY")" 1000 "round robin: POST /items with the body file"
check_eq "$(count_of "PUT /items/7 X-Run=own X-Kind=update")" 1000 "round robin: PUT /items/7, its own X-Run"
check_eq "$(wc -l < "$T/req.log")" 3000 "round robin: nothing else"

# 2. Random order: each target about a third (25-42 % is far outside
# chance: 3000 draws give a standard deviation under 1 %).
start_logged
write_three
tv rnd -n 3000 -c 4 -t 2 --targets three.txt --targets-order random "$U/"
check_eq "$RC" 0 "random: exit status"
check_eq "$(jget "$T/rnd.json" options.targets.order)" random "JSON: random order"
check_grep "$T/rnd.out" "\(3 targets from three.txt, random order\)$" "random: the header line"
stop_target
for line in "GET /a?page=1" "POST /items X-Kind=create $BODY" "PUT /items/7 X-Run=own X-Kind=update"; do
    n=$(count_of "$line")
    if [ "$n" -ge 750 ] && [ "$n" -le 1260 ]; then ok; else fail "random: $line: $n of 3000"; fi
done
check_eq "$(wc -l < "$T/req.log")" 3000 "random: every request is one of the three"

# 3. -n not a multiple of the count, three threads: the first targets get
# the one more (1000 = 334 + 333 + 333); with -R the same.
start_logged
write_three
tv rr3 -n 1000 -c 3 -t 3 --targets three.txt
tv rate -n 600 -R 2000 -c 4 -t 2 --targets three.txt
check_rate_rc "-R: exit status"
stop_target
check_eq "$(count_of "GET /a?page=1")" $((334 + 200)) "-n 1000 -t 3 and -R -n 600: GET"
check_eq "$(count_of "POST /items X-Kind=create $BODY")" $((333 + 200)) "-n 1000 -t 3 and -R -n 600: POST"
check_eq "$(count_of "PUT /items/7 X-Run=own X-Kind=update")" $((333 + 200)) "-n 1000 -t 3 and -R -n 600: PUT"

# 4. One URL a line, from stdin, with comments, blank lines and CRLF line
# ends; -m gives their method, -b the body of every target without @path.
start_logged
printf '# a list\r\n%s/x\r\n\r\n  %s/y?q=1  \r\n# end\r\n' "$U" "$U" > "$T/urls.txt"
RC=0
timeout -s KILL 60 "$VOLLEY" --json "$T/stdin.json" -n 10 -c 2 -t 1 --targets - < "$T/urls.txt" \
    > "$T/stdin.out" 2> "$T/stdin.err" || RC=$?
check_eq "$RC" 0 "stdin: exit status"
check_grep "$T/stdin.out" "\(2 targets from stdin, round robin\)$" "stdin: the header line"
check_eq "$(jget "$T/stdin.json" options.targets.file)" - "stdin: the JSON's file"
printf 'ab' > "$T/ab.body"
tv put -n 4 -c 1 -m PUT -b ab --targets urls.txt
check_eq "$RC" 0 "-m and -b: exit status"
stop_target
check_eq "$(count_of "GET /x")" 5 "stdin: GET /x"
check_eq "$(count_of "GET /y?q=1")" 5 "stdin: GET /y?q=1"
check_eq "$(count_of "PUT /x body=2:$(fnv "$T/ab.body")")" 2 "-m PUT -b ab: /x"
check_eq "$(count_of "PUT /y?q=1 body=2:$(fnv "$T/ab.body")")" 2 "-m PUT -b ab: /y"

# 5. Bad files: exit 2, one line with the line number, nothing sent (the
# server's count stays 0).
start_target
U="http://127.0.0.1:$PORT"
bad() { # NAME EXPECTED-STDERR-ERE FILE-CONTENT [volley args...]
    local name=$1 want=$2 content=$3
    shift 3
    printf '%b' "$content" > "$T/$name.txt"
    RC=0
    (cd "$T" && timeout -s KILL 30 "$VOLLEY" -n 5 --targets "$name.txt" "$@" > "$T/$name.out" 2> "$T/$name.err") || RC=$?
    check_eq "$RC" 2 "$name: exit status"
    check_grep "$T/$name.err" "^volley: --targets $name.txt:$want$" "$name: the message"
    check_eq "$(wc -l < "$T/$name.err")" 1 "$name: one line"
}
bad malformed '3: expected "METHOD URL" or a URL, found "GET /relative"' "GET $U/a\n\nGET /relative\n"
bad origin "4: http://127.0.0.1:1/x: a second origin \(the first, line 1: $U\); one origin per run" \
    "GET $U/a\nX-A: 1\n\nGET http://127.0.0.1:1/x\n"
bad scheme "2: https://127.0.0.1:$PORT/: a second origin \(the first, line 1: $U\); one origin per run" \
    "$U/\nhttps://127.0.0.1:$PORT/\n"
bad urlarg "1: http://127.0.0.1:1/x: not the origin of the URL given \($U\); one origin per run" \
    "GET http://127.0.0.1:1/x\n" "$U/"
bad nobody '3: @missing.json: No such file or directory' "POST $U/a\nContent-Type: text/plain\n@missing.json\n"
bad method '2: "G\(E\)T" is not a method name' "# methods are tokens\nG(E)T $U/a\n"
bad empty ' no targets \(the file is empty, or holds only blank lines and comments\)' ""
bad comments ' no targets \(the file is empty, or holds only blank lines and comments\)' "# one\n\n# two\n"
bad header '2: expected a header \(.Name: value.\), an @path body line or "METHOD URL", found "Bad header"' \
    "GET $U/a\nBad header\n"
bad control '2: "X-A: 1\\rX" contains a control character \(only TAB is allowed\)' "GET $U/a\nX-A: 1\rX\n"
bad nul '2: a NUL byte in the line' "GET $U/a\nX-A: \0\n"
bad length '1: Content-Length: 3 but the target has no body; only 0 is allowed' "GET $U/a\n" -H 'Content-Length: 3'
head -c 70000 /dev/zero | tr '\0' a > "$T/long.part"
bad long '2: a line longer than 65536 bytes' "GET $U/a\nX-A: $(cat "$T/long.part")\n"
RC=0
"$VOLLEY" --targets "$T/none.txt" > /dev/null 2> "$T/none.err" || RC=$?
check_eq "$RC" 2 "a missing file: exit status"
check_grep "$T/none.err" "^volley: --targets $T/none.txt: No such file or directory$" "a missing file: the message"
RC=0
"$VOLLEY" --targets "$T/three.txt" -s "$T/x.lua" > /dev/null 2> "$T/script.err" || RC=$?
check_eq "$RC" 2 "-s: exit status"
check_grep "$T/script.err" '^volley: --targets: cannot be combined with -s \(a script builds its own requests\)$' "-s: the message"
RC=0
"$VOLLEY" --targets-order random "$U/" > /dev/null 2> "$T/order.err" || RC=$?
check_eq "$RC" 2 "--targets-order alone: exit status"
check_grep "$T/order.err" '^volley: --targets-order: only with --targets$' "--targets-order alone: the message"
RC=0
"$VOLLEY" --targets "$T/three.txt" --targets-order shuffled > /dev/null 2> "$T/order2.err" || RC=$?
check_eq "$RC" 2 "--targets-order shuffled: exit status"
check_grep "$T/order2.err" '^volley: --targets-order: "shuffled" is not round-robin or random$' "--targets-order: the message"
check_eq "$(target_stat received)" 0 "bad files: nothing was sent"
stop_target

# 6. HTTP/2 (h2c, nginx): the same three targets as streams; nginx's log
# has method and path, and /post proxies the body (so it was sent whole).
if start_nginx_h2 --h2c; then
    H="http://127.0.0.1:$H2_PORT"
    cat > "$T/h2.txt" <<EOF
GET $H/
POST $H/post
Content-Type: application/json
@bodies/item.json
PUT $H/static/none
X-Kind: update
EOF
    tv h2 -n 300 -c 2 -t 1 --h2c --streams 4 --targets h2.txt
    check_eq "$RC" 0 "h2c: exit status"
    check_adds_up h2
    check_eq "$(jget "$T/h2.json" status.200)" 200 "h2c: GET / and POST /post answered 200"
    check_eq "$(jget "$T/h2.json" "names.GET /.requests.completed")" 100 "h2c: GET /'s figures"
    check_eq "$(jget "$T/h2.json" "names.PUT /static/none.requests.started")" 100 "h2c: PUT /static/none's figures"
    kill "$H2_PID" 2> /dev/null || true
    wait "$H2_PID" 2> /dev/null || true
    check_eq "$(grep -c '^HTTP/2.0 GET / 200 ' "$T/nginx_h2.access")" 100 "h2c: GET /"
    check_eq "$(grep -c '^HTTP/2.0 POST /post 200 2 ' "$T/nginx_h2.access")" 100 "h2c: POST /post, 27 bytes read"
    check_eq "$(grep -c '^HTTP/2.0 PUT /static/none ' "$T/nginx_h2.access")" 100 "h2c: PUT /static/none"
else
    echo "skip: HTTP/2 (no nginx)"
fi

# 7. Per-target figures: each target is a request name, "METHOD path"
# (path and query), so a slow one and a failing one stand out; targets of
# one name share it. Text, JSON, HTML and volley report show them.
start_logged
cat > "$T/named.txt" <<EOF
GET $U/a
GET $U/delay/30
POST $U/status/500
GET $U/drop
GET $U/a
GET $U/a?x=1
EOF
tv named -n 600 -c 3 -t 1 --targets named.txt --html "$T/named.html"
stop_target
check_eq "$RC" 0 "names: exit status"
check_adds_up named
python3 - "$T/named.json" <<'PY' || fail "names: the JSON's per-target figures"
import json, sys
r = json.load(open(sys.argv[1]))
n = r["names"]
assert list(n) == ["GET /a", "GET /delay/30", "POST /status/500", "GET /drop", "GET /a?x=1"], list(n)
q = {k: v["requests"] for k, v in n.items()}
assert q["GET /a"]["started"] == 200 and q["GET /a"]["completed"] == 200, q
assert q["GET /delay/30"]["completed"] == 100 and q["GET /a?x=1"]["completed"] == 100, q
assert n["POST /status/500"]["status"] == {"500": 100}, n["POST /status/500"]
assert q["GET /drop"]["failed"] == 100 and q["GET /drop"]["completed"] == 0, q
assert n["GET /drop"]["errors"]["read"] == 100, n["GET /drop"]["errors"]
assert n["GET /delay/30"]["latency"]["p50"] >= 30000 > n["GET /a"]["latency"]["p50"], n
assert sum(v["started"] for v in q.values()) == r["requests"]["started"], q
PY
ok
check_grep "$T/named.out" '^  Names +requests +failed +p50' "names: the text's table"
check_grep "$T/named.out" '^    GET /a +200 +0 ' "names: GET /a's row"
check_grep "$T/named.out" '^    GET /drop +0 +100 +- ' "names: GET /drop's row, failing"
check_grep "$T/named.out" '^    POST /status/500 +100 +0 .*500: 100$' "names: POST /status/500's row"
check_grep "$T/named.html" '<tr><td>GET /delay/30</td><td class="n">100</td><td class="n">0</td>' "names: the HTML's row"
"$VOLLEY" report "$T/named.json" > "$T/named.r.out" 2> /dev/null || true
check_grep "$T/named.r.out" '^    GET /drop +0 +100 +- ' "names: volley report's row"

# 8. More distinct names than a run keeps (1000): the first 999 are named,
# every target past them shares "(other targets)", and the figures still
# add up to the run's.
start_target
python3 -c "
for i in range(1200): print('http://127.0.0.1:$PORT/p/%d' % i)" > "$T/many.txt"
tv many -n 1200 -c 2 -t 1 --targets many.txt
stop_target
check_eq "$RC" 0 "many names: exit status"
python3 - "$T/many.json" <<'PY' || fail "many names: the JSON"
import json, sys
r = json.load(open(sys.argv[1]))
n = r["names"]
assert len(n) == 1000, len(n)
assert list(n)[998] == "GET /p/998" and list(n)[999] == "(other targets)", list(n)[997:]
assert n["(other targets)"]["requests"]["completed"] == 201, n["(other targets)"]["requests"]
assert sum(v["requests"]["completed"] for v in n.values()) == 1200
PY
ok

finish
