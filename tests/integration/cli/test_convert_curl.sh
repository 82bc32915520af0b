# volley convert --curl: the request a converted curl command sends is the
# one curl sends. Each command below is run by real curl (through bash, so
# the quoting is the shell's) and converted (--flow) and run once by
# volley, against tests/integration/py/head_log.py, which writes down each
# request's line, headers and body: they must be the same, headers as a
# set (a Lua table does not keep their order), but for User-Agent where
# the command gives none (curl sends its own, volley its own) and
# Accept-Encoding after --compressed (left out, and said: volley does not
# decode bodies).
source "$TESTLIB"
command -v curl > /dev/null || { echo "SKIP: no curl"; exit 77; }

/usr/bin/python3 "$(dirname "$TESTLIB")/py/head_log.py" "$T/port" "$T/log" 90 &
SRV=$!
TARGET_PIDS+=("$SRV")
wait_port_file "$T/port" "$SRV" || { echo "head_log.py did not start" >&2; exit 1; }
U="http://127.0.0.1:$(cat "$T/port")"
printf 'line one\r\nline two\n\001bin' > "$T/data.bin"
printf '{"from":"file"}\n' > "$T/data.json"

cases=(
    "curl -s '$U/api/items?x=1&y=2' -H 'Accept: application/json' -H 'X-Trace: a b'"
    "curl -X PUT $U/api/items/7 -H \"Content-Type: application/json\" --data-raw '{\"name\":\"a b\",\"n\":1}'"
    "curl $U/form -d a=1 -d 'b=two words' --data-urlencode 'c=x&y z' --data-urlencode '=only'"
    "curl -u ann:secret -b 'sid=abc; theme=dark' -A 'my-agent/1.0' -e $U/ref '$U/private'"
    "curl -G $U/search -d q=volley -d page=2"
    "curl -sSL --json '{\"a\":1}' $U/api/json"
    "curl \$'$U/esc' -H \$'X-Tab: a\\tb' \\
      -H \"X-Quote: say \\\"hi\\\"\" -XPATCH"
    "curl --data-binary @$T/data.bin -H 'Content-Type: application/octet-stream' $U/upload"
    "curl -d @$T/data.json $U/stripped"
    "curl '$U/api/cart' -H 'accept: */*' -H 'content-type: application/json' --data-raw '{\"id\":42}' --compressed"
    "curl -I $U/head"
)

# same LOG_LINE_A LOG_LINE_B EXCLUDE: the requests of two log lines compared.
same() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
skip = set(sys.argv[3].split())
def view(r):
    hs = sorted((n.lower(), v) for n, v in r["headers"] if n.lower() not in skip)
    return r["head"].split("\r\n", 1)[0], hs, r["body"]
va, vb = view(a), view(b)
if va != vb:
    print("curl:   %r\nvolley: %r" % (va, vb))
    sys.exit(1)
PY
}

i=0
for cmd in "${cases[@]}"; do
    i=$((i + 1))
    : > "$T/log"
    timeout 20 bash -c "$cmd" > /dev/null 2>&1 || true
    curl_line=$(head -n 1 "$T/log")
    rc=0; "$VOLLEY" convert --flow -o "$T/c$i.lua" --curl "$cmd" 2> "$T/c$i.err" || rc=$?
    check_eq "$rc" 0 "case $i: convert: exit status ($(cat "$T/c$i.err"))"
    : > "$T/log"
    run_volley "r$i" -s "$T/c$i.lua" --iterations 1 "$U/"
    check_eq "$RC" 0 "case $i: volley's run: exit status ($(tail -2 "$T/r$i.err"))"
    volley_line=$(head -n 1 "$T/log")
    exclude=user-agent
    case "$cmd" in *" -A "*) exclude="" ;; esac
    case "$cmd" in *--compressed*) exclude="$exclude accept-encoding" ;; esac
    if [ -n "$curl_line" ] && diff=$(same "$curl_line" "$volley_line" "$exclude"); then ok; else
        fail "case $i ($cmd): not the request curl sends: ${diff:-curl sent nothing}"; fi
done

# What a conversion says on stderr, and the table alone (no --flow).
rc=0; "$VOLLEY" convert --curl "curl -k -L --compressed https://127.0.0.1:1/x" > "$T/t.lua" 2> "$T/t.err" || rc=$?
check_eq "$rc" 0 "notes: exit status"
check_eq "$(grep -c '^volley convert: --curl: ' "$T/t.err")" 3 "notes: -k, -L and --compressed each said: $(cat "$T/t.err")"
check_grep "$T/t.lua" '^u:request\{ method = "GET", path = "/x", headers = \{ Accept = "\*/\*" \} \}$' "the request table alone"
check_grep "$T/t.lua" '^-- The target: https://127.0.0.1:1/ ' "the table's target in a comment"

finish
