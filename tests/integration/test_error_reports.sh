# Reports that show what went wrong (issue 23): read failures by cause, in
# the text report, the JSON and `volley report` of it, against a server
# that answers badly on purpose (py/misanswer.py).
source "$TESTLIB"

PY=$(dirname "$TESTLIB")/py
python3 "$PY/misanswer.py" "$T/mis.port" 60 &
TARGET_PIDS+=($!)
wait_port_file "$T/mis.port" "$!" || { echo "misanswer.py did not start" >&2; exit 1; }
MPORT=$(cat "$T/mis.port")
M=http://127.0.0.1:$MPORT

# jreasons NAME MEMBER: a JSON member's reasons as "reason=count;..." and
# its other count.
jreasons() {
    python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print(";".join("%s=%d" % (r["reason"], r["count"]) for r in v["reasons"]) + " other=%d" % v["other"])
PY
}

# 1. Read failures by cause: each path's failures under one reason, on
# the line under Failed requests and in the JSON's read_failures, which
# `volley report` reads back.
for c in "drop:closed before the response" "head:closed in the head" "reset:reset by peer" \
    "cut:body cut short at 5 of 100 bytes" "cutchunk:body cut short at 5 bytes (chunked)"; do
    path=${c%%:*} why=${c#*:}
    run_volley "r_$path" -n 4 -c 1 "$M/$path"
    check_no_response "r_$path" "$path" "4 requests failed: read 4"
    check_eq "$(grep -A1 '^  Failed requests:' "$T/r_$path.out" | tail -n 1)" "    read: $why (4)" "$path: the read reason line"
    check_eq "$(jreasons "r_$path" read_failures)" "$why=4 other=0" "$path: read_failures in the JSON"
    "$VOLLEY" report "$T/r_$path.json" > "$T/r_$path.rep" 2> /dev/null || true
    check_grep "$T/r_$path.rep" "^    read: ${why//[()]/.} \(4\)$" "$path: volley report shows the reason"
done
# A run without read failures has no reasons and no reason line.
run_volley r_ok -n 6 -c 1 "$M/"
check_eq "$(jreasons r_ok read_failures)" " other=0" "no read failure: no reasons"
if grep -q '    read:' "$T/r_ok.out"; then fail "no read failure: a read reason line"; else ok; fi

finish
