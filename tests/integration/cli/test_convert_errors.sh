# volley convert's bad input: each is one line on stderr that names the
# file or the word, nothing on stdout, no -o file left, and the exit
# status (1: the input cannot be converted, 2: a bad command line).
source "$TESTLIB"

GOOD='{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-12-08T00:00:00.000Z","time":5,
"request":{"method":"GET","url":"http://127.0.0.1:8080/a","headers":[]},"response":{"status":200,"content":{"mimeType":"text/html"}}}]}}'
printf '%s' "$GOOD" > "$T/good.har"
head -c 60 "$T/good.har" > "$T/truncated.har"
printf '<html>not a recording</html>\n' > "$T/html.har"
printf '{"log": {"pages": []}}' > "$T/nolog.har"
printf '{"log":{"entries":[{"startedDateTime":"2026-12-08T00:00:00Z","request":{"method":"GET","headers":[]},"response":{"status":200}}]}}' > "$T/nourl.har"
printf '{"log":{"entries":[{"startedDateTime":"yesterday","request":{"method":"GET","url":"http://h/"},"response":{"status":200}}]}}' > "$T/date.har"
: > "$T/empty.har"
printf '%s' "$GOOD" | sed 's|/a"|/logo.png"|; s|text/html|image/png|' > "$T/asset.har"

# refused STATUS PATTERN WHAT ARGS...: volley convert ARGS -o $T/out.lua
# exits STATUS with one stderr line matching PATTERN (an ERE).
refused() {
    local status=$1 pattern=$2 what=$3
    shift 3
    rm -f "$T/out.lua"
    RC=0
    "$VOLLEY" convert -o "$T/out.lua" "$@" > "$T/e.out" 2> "$T/e.err" || RC=$?
    check_eq "$RC" "$status" "$what: exit status"
    check_eq "$(wc -l < "$T/e.err")" 1 "$what: one line ($(cat "$T/e.err"))"
    check_grep "$T/e.err" "^volley convert: $pattern\$" "$what: the message"
    check_eq "$(wc -c < "$T/e.out")" 0 "$what: nothing on stdout"
    if [ -e "$T/out.lua" ] || ls "$T"/out.lua.* > /dev/null 2>&1; then fail "$what: an output file was left"; else ok; fi
}

refused 1 "$T/html.har: not JSON: byte 1 \\(line 1\\): expected a value" "not JSON" "$T/html.har"
refused 1 "$T/truncated.har: truncated: the JSON ends at byte 60 \\(line 1\\) before it is complete" "truncated" "$T/truncated.har"
refused 1 "$T/nolog.har: not a HAR file: no log.entries .*" "not a HAR" "$T/nolog.har"
refused 1 "$T/nourl.har: entry 0 has no request.url" "an entry without its URL" "$T/nourl.har"
refused 1 "$T/date.har: entry 0: startedDateTime \"yesterday\" is not an ISO 8601 date-time" "a bad date" "$T/date.har"
refused 1 "$T/empty.har: empty \\(a HAR file is JSON\\)" "an empty file" "$T/empty.har"
refused 1 "$T/missing.har: No such file or directory" "a missing file" "$T/missing.har"
refused 1 "$T/asset.har: no request left to convert: all 1 are assets \\(--no-assets\\)" "nothing left" --no-assets "$T/asset.har"
refused 1 "--curl: not a curl command: it starts with \"wget\" .*" "not curl" --curl "wget http://127.0.0.1/"
refused 1 "--curl: no URL in the curl command" "curl without a URL" --curl "curl -H 'Accept: x'"
refused 1 "--curl: curl options not converted: --frobnicate, -Z \\(remove them, or write the request by hand\\)" \
    "unknown curl options" --curl "curl --frobnicate -Z http://127.0.0.1/"
refused 1 "--curl: a single quote \\(.\\) does not close" "an open quote" --curl "curl 'http://127.0.0.1/"
refused 1 "--curl: -d @$T/nodata: No such file or directory" "a missing @file" --curl "curl -d @$T/nodata http://127.0.0.1/"
refused 1 "--curl: -F with -d: curl sends one kind of body \\(a multipart form, or -d.s\\)" "-F" --curl "curl -F a=b -d c=d http://127.0.0.1/"
refused 1 "--curl: -u ann: no password .*" "-u without a password" --curl "curl -u ann http://127.0.0.1/"
refused 2 "unknown option --bogus \\(volley convert --help lists them\\)" "an unknown option" --bogus "$T/good.har"
refused 2 "one recording at a time \\($T/good.har and $T/good.har\\)" "two recordings" "$T/good.har" "$T/good.har"
refused 2 "no recording given .*" "no recording"
refused 2 "--think-min: \"soon\" is not a duration .*" "a bad --think-min" --think-min soon "$T/good.har"

# The good one converts, -o writes it, and the flow is valid Lua.
rc=0; "$VOLLEY" convert -o "$T/out.lua" "$T/good.har" 2> "$T/g.err" || rc=$?
check_eq "$rc" 0 "good: exit status ($(cat "$T/g.err"))"
check_grep "$T/out.lua" '^  u:get\("/a"\)  -- 200 text/html$' "good: the request"
luajit -bl "$T/out.lua" > /dev/null 2>&1 && ok || fail "good: the flow does not compile"
# - reads the recording from stdin.
rc=0; "$VOLLEY" convert - < "$T/good.har" > "$T/stdin.lua" 2> "$T/stdin.err" || rc=$?
check_eq "$rc" 0 "stdin: exit status ($(cat "$T/stdin.err"))"
check_eq "$(sed -n '/^local s = {}$/,$p' "$T/stdin.lua")" "$(sed -n '/^local s = {}$/,$p' "$T/out.lua")" "stdin: the same flow"
check_grep "$T/stdin.lua" '^  u:get\("/a"\)  -- 200 text/html$' "stdin: the request"
# -o into a folder that is not there: said, exit 1.
rc=0; "$VOLLEY" convert -o "$T/no/such/dir/f.lua" "$T/good.har" 2> "$T/o.err" || rc=$?
check_eq "$rc" 1 "-o unwritable: exit status"
check_grep "$T/o.err" "^volley convert: -o $T/no/such/dir/f.lua: .*No such file or directory\$" "-o unwritable: the message"
# volley help convert prints the usage.
"$VOLLEY" help convert > "$T/help.out"
check_grep "$T/help.out" '^Usage: volley convert \[options\] RECORDING.har$' "volley help convert"

finish
