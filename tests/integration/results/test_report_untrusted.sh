# Untrusted text in the reports: validation reasons (server data, through a
# script), metric names, -H values, the URL's path and fragment, script
# errors. The JSON stays valid JSON (invalid UTF-8 as U+FFFD, non-finite
# numbers as null); the text report and stderr show control characters as
# escapes, so nothing from a server reaches the terminal as ESC, CR or LF.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"

scripts_setup

# json_ok NAME: $T/NAME.json parses with Python's strict json module (no
# NaN or Infinity either).
json_ok() {
    if python3 - "$T/$1.json" <<'PY'; then ok; else fail "$1: $T/$1.json is not valid JSON: $(head -c 600 "$T/$1.json")"; fi
import json, sys
def no_constants(c):
    raise ValueError("not JSON: " + c)
with open(sys.argv[1], "rb") as f:
    json.loads(f.read().decode("utf-8"), parse_constant=no_constants)
PY
}

# jpy NAME EXPR: EXPR of the parsed JSON j of run NAME, printed by Python
# with ascii(), so that escapes are visible: 'caf\ufffd'.
jpy() {
    python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
print(ascii(eval(sys.argv[2])))
PY
}

# No ESC (nor any other C0 control but LF, nor DEL) in FILE.
check_no_controls() { # FILE WHAT
    if LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]' "$1"; then
        fail "$2: control bytes in $(LC_ALL=C od -c "$1" | head -20)"
    else ok; fi
}

# A server's reason with invalid UTF-8, a terminal escape and a forged
# report line; a metric name with ESC; counters that end infinite and NaN;
# a -H value with a high byte; a path with an invalid byte; a fragment
# with ESC.
cat > "$S/hostile.lua" <<'LUA'
local s = {}
function s.response(conn, res)
  volley.counter("inf", math.huge)
  volley.counter("nan", math.huge)
  volley.counter("nan", -math.huge)
  volley.counter("name\27[2J")
  volley.record("rec\r\nFailed 0:", 1)
  if res.status == 200 then
    return false, "bad \255\254 \27[31mred\27[0m\r\nFailed 0: forged\n"
  end
end
return s
LUA
runv hostile -n 20 -c 2 -t 1 -H $'X-High: caf\xe9' -s "$S/hostile.lua" "$url/p"$'\xff'"#frag"$'\x1b[31m'
check_no_response hostile "hostile" "20 requests failed: validation 20"
json_ok hostile
check_eq "$(jpy hostile 'j["failures"]["reasons"][0]["reason"]')" \
    "'bad \ufffd\ufffd \x1b[31mred\x1b[0m\r\nFailed 0: forged\n'" "JSON: invalid bytes in a reason as U+FFFD, the rest as it was"
check_eq "$(jpy hostile 'j["failures"]["reasons"][0]["count"]')" 20 "JSON: the reason's count"
check_eq "$(jpy hostile 'j["options"]["headers"]')" "['X-High: caf\\ufffd']" "JSON: -H with a high byte"
check_eq "$(jpy hostile 'j["target"]["path"]')" "'/p\\ufffd'" "JSON: a path with an invalid byte"
check_eq "$(jpy hostile 'j["metrics"]["counters"]["inf"]')" None "JSON: an infinite counter is null"
check_eq "$(jpy hostile 'j["metrics"]["counters"]["nan"]')" None "JSON: a NaN counter is null"
check_eq "$(jpy hostile 'j["metrics"]["counters"]["name\x1b[2J"]')" 20 "JSON: a metric name with ESC"
check_grep "$T/hostile.json" '"name\\u001b\[2J"' "JSON: ESC written as \\u001b"

# The text report: escapes, no control bytes, no forged line.
check_no_controls "$T/hostile.out" "text report"
check_grep "$T/hostile.out" '^    validation: bad \\xff\\xfe \\x1b\[31mred\\x1b\[0m\\r\\nFailed 0: forged\\n \(20\)$' \
    "text: the reason escaped on its own line"
check_eq "$(grep -cE '^ *Failed' "$T/hostile.out")" 1 "text: one Failed line, no forged one"
check_grep "$T/hostile.out" '^    name\\x1b\[2J +20$' "text: a counter's name escaped"
check_grep "$T/hostile.out" '^    rec\\r\\nFailed 0: +count 20 ' "text: a record's name escaped"
check_grep "$T/hostile.out" '^Running 20 requests @ http://127\.0\.0\.1:[0-9]+/p\\xff#frag\\x1b\[31m$' \
    "text: the URL escaped in the header line"
check_grep "$T/hostile.out" '^    inf +inf$' "text: an infinite counter"

# A script error with a terminal escape and a line break: one line on
# stderr, escaped, from a hook during the run and from init().
printf 'local s = {}\nfunction s.response() error("boom\\27[31m\\rFailed 0:\\nx", 0) end\nreturn s\n' > "$S/err_run.lua"
runv err_run -n 20 -c 1 -t 1 -s "$S/err_run.lua" "$url/"
check_eq "$RC" 1 "script error during the run: exit status"
check_eq "$(cat "$T/err_run.err")" "volley: $S/err_run.lua: in response(): boom\\x1b[31m\\rFailed 0:" \
    "script error during the run: escaped"
check_no_controls "$T/err_run.err" "script error during the run"
json_ok err_run
printf 'local s = {}\nfunction s.init() error("init\\27]0;title\\7", 0) end\nreturn s\n' > "$S/err_init.lua"
runv err_init -n 20 -c 1 -t 1 -s "$S/err_init.lua" "$url/"
check_eq "$RC" 1 "script error in init(): exit status"
check_eq "$(cat "$T/err_init.err")" "volley: $S/err_init.lua: in init(): init\\x1b]0;title\\x07" "script error in init(): escaped"
finish
