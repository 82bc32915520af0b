# What a first-time user meets: -h, --help and `volley help [TOPIC]` (with
# examples and volley ab), the hint for a URL without its scheme, a script
# that cannot be opened, localhost against a server on ::1 only and on
# 127.0.0.1 only (whatever /etc/hosts lists), and --version's libraries.
source "$TESTLIB"

# out NAME ARGS...: runs volley ARGS (no --json), stdout/stderr in
# $T/NAME.out/.err, exit status in RC.
out() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 30 "$VOLLEY" "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

# 1. Help: --help, -h and `volley help` print the same usage, with
# examples and volley ab, on stdout; exit 0.
out help --help
check_eq "$RC" 0 "--help: exit status"
check_grep "$T/help.out" '^Usage: volley \[options\] URL' "--help: usage"
check_grep "$T/help.out" '^  -h, --help ' "--help: lists -h"
check_grep "$T/help.out" '^      --seed N ' "--help: lists --seed"
check_grep "$T/help.out" '^Examples:$' "--help: examples"
check_eq "$(sed -n '/^Examples:$/,$p' "$T/help.out" | grep -c '^  volley ')" 5 "--help: five examples"
check_grep "$T/help.out" '^  volley ab -n 1000 -c 10 http://' "--help: a volley ab example"
check_grep "$T/help.out" '^  volley ab \[ab options\] URL .*volley help ab' "--help: volley ab among the commands"
check_eq "$(awk 'length($0) > 80' "$T/help.out" | wc -l)" 0 "--help: fits 80 columns"
check_eq "$(wc -c < "$T/help.err")" 0 "--help: nothing on stderr"
for args in "-h" "help" "-c 5 -h http://127.0.0.1:1/"; do
    # shellcheck disable=SC2086
    out h $args
    check_eq "$RC" 0 "$args: exit status"
    if cmp -s "$T/help.out" "$T/h.out"; then ok; else fail "$args: not --help's text"; fi
done

# volley help ab: volley ab's usage (the bundled ab script's own text) on
# stdout, exit 0; `volley ab -h` stays as ab: the same options on stderr,
# exit 22.
out helpab help ab
check_eq "$RC" 0 "help ab: exit status"
check_eq "$(head -n 1 "$T/helpab.out")" 'Usage: volley ab [options] [http[s]://]hostname[:port]/path' "help ab: first line"
check_grep "$T/helpab.out" '^    -n requests     Number of requests to perform$' "help ab: ab's options"
check_grep "$T/helpab.out" 'volley-ab' "help ab: the volley-ab name"
out abh ab -h
check_eq "$RC" 22 "volley ab -h: exit status (ab's)"
check_eq "$(wc -c < "$T/abh.out")" 0 "volley ab -h: nothing on stdout (as ab)"
check_eq "$(head -n 1 "$T/abh.err")" 'Usage: ab [options] [http[s]://]hostname[:port]/path' "volley ab -h: ab's usage"
if diff <(tail -n +2 "$T/abh.err") <(sed -n "2,$(wc -l < "$T/abh.err")p" "$T/helpab.out") > /dev/null; then ok; else
    fail "help ab: the options differ from volley ab -h's"; fi
for topic in report compare; do
    out "help_$topic" help "$topic"
    check_eq "$RC" 0 "help $topic: exit status"
    out "dash_$topic" "$topic" --help
    if cmp -s "$T/help_$topic.out" "$T/dash_$topic.out"; then ok; else fail "help $topic: not volley $topic --help"; fi
done
out helpbad help reprot
check_eq "$RC/$(cat "$T/helpbad.err")" '2/volley help: unknown topic "reprot" (did you mean "report"?)' "help with a typo"
out helpbad help frobnicate
check_eq "$RC/$(cat "$T/helpbad.err")" \
    '2/volley help: unknown topic "frobnicate" (volley help, volley help ab, llm, report, compare, merge or convert)' "help with an unknown topic"

# 2. A URL without its scheme: a hint when it can be a host, exit 2,
# nothing sent; the plain message for words that cannot be.
start_target
for u in "localhost:$PORT/" "127.0.0.1:$PORT" "[::1]:80/x" "example.com/path" "myhost:8080"; do
    out hint -n 1 "$u"
    check_eq "$RC" 2 "$u: exit status"
    check_eq "$(cat "$T/hint.err")" "volley: $u: not a URL; did you mean http://$u ?" "$u: the hint"
done
for u in "nonsense" "s.lua" "example.com" "a b:80/"; do
    out nohint -n 1 "$u"
    check_eq "$RC" 2 "$u: exit status"
    check_eq "$(cat "$T/nohint.err")" "volley: $u: not a URL (expected http://host[:port]/path)" "$u: no hint"
done
check_eq "$(target_stat received)" 0 "URL hints: nothing sent"

# 3. A script that cannot be opened says why (exit 1); a bundled name
# that is near one gets it; a file named like a bundled script gets the
# ./ it needs.
out nofile -n 1 -s "$T/nosuch.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC/$(cat "$T/nofile.err")" "1/volley: -s $T/nosuch.lua: No such file or directory" "missing script"
mkdir -p "$T/dir.lua"
out dirscript -n 1 -s "$T/dir.lua" "http://127.0.0.1:$PORT/"
check_eq "$RC/$(cat "$T/dirscript.err")" "1/volley: -s $T/dir.lua: Is a directory" "a directory as the script"
out typo -n 1 -s examples.logn "http://127.0.0.1:$PORT/"
check_eq "$RC/$(cat "$T/typo.err")" '1/volley: -s examples.logn: no such bundled script (did you mean "examples.login"?)' \
    "bundled script name with a typo"
echo 'wrk.method = "GET"' > "$T/myscript"
(cd "$T" && out plainfile -n 1 -s myscript "http://127.0.0.1:$PORT/")
check_eq "$RC/$(cat "$T/plainfile.err")" '1/volley: -s myscript: no such bundled script (for the file, write -s ./myscript)' \
    "a file named without / or .lua"
check_eq "$(target_stat received)" 0 "scripts that do not load: nothing sent"
stop_target

# 4. localhost is 127.0.0.1 and ::1 whatever /etc/hosts lists (here it
# may name only one): a server on either is found, by the run, by
# wrk.lookup and by volley ab.
cat > "$T/lookup.lua" <<'LUA'
function setup(thread)
  local list = {}
  for i, a in ipairs(wrk.lookup("localhost", "8080")) do list[i] = tostring(a) end
  print("lookup " .. table.concat(list, " "))
end
LUA
echo "/etc/hosts: $(grep -w localhost /etc/hosts | tr -s ' \t' ' ' | tr '\n' ';')"
binds="127.0.0.1"
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2> /dev/null; then
    binds="::1 127.0.0.1"
else
    echo "skip: no IPv6 loopback on this machine (the ::1-only server)"
fi
for bind in $binds; do
    start_target --bind "$bind"
    run_volley "local_$bind" -n 20 -c 2 -t 1 -s "$T/lookup.lua" "http://localhost:$PORT/"
    check_eq "$RC" 0 "localhost, server on $bind only: exit status"
    check_eq "$(jget "$T/local_$bind.json" status.200)" 20 "localhost, server on $bind only: completed"
    want=$bind
    [ "$bind" == ::1 ] && want="[::1]"
    check_eq "$(jget "$T/local_$bind.json" target.address)" "$want:$PORT" "localhost, server on $bind only: the address"
    check_grep "$T/local_$bind.out" '^lookup 127\.0\.0\.1:8080 \[::1\]:8080$' "wrk.lookup(localhost): both loopbacks"
    out "ab_$bind" ab -n 10 -c 2 "http://localhost:$PORT/"
    check_eq "$RC" 0 "volley ab, localhost, server on $bind only: exit status"
    check_grep "$T/ab_$bind.out" '^Complete requests: +10$' "volley ab, localhost, server on $bind only: complete"
    check_eq "$(target_stat received "$bind")" 30 "localhost, server on $bind only: received"
    stop_target
done
out refused -n 1 "http://localhost:1/"
check_eq "$RC/$(cat "$T/refused.err")" \
    "1/volley: localhost:1: connection refused (tried 2 addresses, last [::1]:1)" "localhost, nothing listening"

# 6. Piped (2>&1 | tee log), what volley writes comes out in the order
# written: a failed threshold's stderr line after the whole report, a
# script's print() and io.stderr lines in turn, volley report's as the
# run's (stdout into a pipe would otherwise be held in blocks).
start_target
cat > "$T/order.lua" <<'LUA'
function done()
  print("out 1")
  io.stderr:write("err 2\n")
  io.write("out 3\n")
  io.stderr:write("err 4\n")
end
LUA
RC=0
timeout -s KILL 30 "$VOLLEY" -n 20 -c 1 -t 1 --json "$T/order.json" --threshold 'p99 < 1ns' -s "$T/order.lua" \
    "http://127.0.0.1:$PORT/" 2>&1 | cat > "$T/order.all" || RC=$?
fig=$(grep -o '^  --threshold  p99 < 1ns  .*  FAIL$' "$T/order.all" || true)
check_eq "$(tail -n 7 "$T/order.all" | tr '\n' '|')" \
    "Thresholds:|$fig|volley: 1 of 1 threshold failed: --threshold \"p99 < 1ns\"|out 1|err 2|out 3|err 4|" \
    "piped: the report, the threshold's line, then done()'s lines in turn"
check_eq "$(head -n 1 "$T/order.all" | cut -c1-20)" "Running 20 requests " "piped: the header first"
timeout -s KILL 30 "$VOLLEY" report "$T/order.json" 2>&1 | cat > "$T/order_report.all" || true
check_eq "$(tail -n 1 "$T/order_report.all")" 'volley: 1 of 1 threshold failed: --threshold "p99 < 1ns"' "piped volley report: the threshold's line last"
stop_target

# 5. --version: volley's, then each library's as it runs.
out version --version
check_eq "$RC" 0 "--version: exit status"
check_eq "$(wc -l < "$T/version.out")" 6 "--version: six lines"
check_grep "$T/version.out" '^volley [0-9]+\.[0-9]+\.[0-9]+$' "--version: volley"
check_grep "$T/version.out" '^libev [0-9]+\.[0-9]+$' "--version: libev"
check_grep "$T/version.out" '^LuaJIT [0-9]+\.[0-9]+\.[0-9]+' "--version: LuaJIT"
check_grep "$T/version.out" '^http-parser [0-9]+\.[0-9]+\.[0-9]+$' "--version: http-parser"
check_grep "$T/version.out" '^nghttp2 [0-9]+\.[0-9]+\.[0-9]+' "--version: nghttp2"
check_grep "$T/version.out" '^OpenSSL [0-9]+\.[0-9]+\.[0-9]+' "--version: OpenSSL"
if command -v luajit > /dev/null; then
    check_eq "$(grep '^LuaJIT' "$T/version.out")" "$(luajit -v | awk '{ print $1, $2 }')" "--version: the LuaJIT luajit -v names"
fi
finish
