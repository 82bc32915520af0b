# Long names in the text report's tables are written whole (issue 31: check
# names were cut short at 28 characters and "..."): a check, a group and a
# request name of 80 characters each appear whole, on a line of their own,
# with their row's figures on the next line in the table's columns; short
# names keep their one-line rows; the Thresholds block shows a long
# expression (a threshold on the long check) whole, its figures aligned.
# The same from `volley report` on the saved result.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"

long_check="the landing page answers 200 and its body says hello world, and nothing else!!!!"
long_group="a group whose name goes on well past the thirty-two columns of the name column!!"
long_name="GET the landing page by a request name that is much longer than thirty-two chars"
cat > "$T/flow.lua" <<LUA
local s = {}
function s.user(u)
  local r = u:get("/", { name = "$long_name" })
  u:check(r.status == 200, "$long_check")
  u:check(r.status == 404, "short check")
  u:group("$long_group", function() u:get("/", { name = "short" }) end)
end
return s
LUA
for s in "$long_check" "$long_group" "$long_name"; do check_eq "${#s}" 80 "an 80-character name"; done

# aligned FILE TABLE COLUMN NAME...: in FILE's table TABLE (its header line
# starts with "  TABLE "), each NAME is whole on a line of its own, and
# the figure under COLUMN (the header's word) ends where COLUMN does on
# every row: the long names' next lines and the short names' rows.
aligned() {
    python3 - "$@" <<'PY' || fail "$2: $(sed -n "/^  $2 /,/^  [A-Z]/p" "$1" | head -12)"
import sys
path, table, column, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
lines = open(path).read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("  " + table + " "))
end = lines[head].index(" " + column) + 1 + len(column)  # the column's right edge
rows = []
i = head + 1
while i < len(lines) and lines[i].startswith("    "):
    rows.append(lines[i])
    i += 1
for name in names:
    at = [k for k, l in enumerate(rows) if l == "    " + name]
    assert len(at) == 1, ("the name is not whole on a line of its own", name, rows)
    nxt = rows[at[0] + 1]
    assert nxt[:end].strip() and not nxt[:4 + 33].strip(), ("the figures' line", nxt)
figure_rows = [r for r in rows if r.strip() not in names]
assert figure_rows, rows
for r in figure_rows:  # a figure ends at the column's right edge
    assert len(r) >= end and r[end - 1] != " " and (len(r) == end or r[end] == " "), ("not in the column", end, r)
PY
    ok
}

run_volley run -s "$T/flow.lua" --iterations 4 -c 1 --threshold "checks{name=\"$long_check\"} == 1" \
    --threshold 'p99 < 1m' "$url/"
check_eq "$RC" 0 "run: exit status"
aligned "$T/run.out" Checks passed "$long_check"
aligned "$T/run.out" Groups count "$long_group"
aligned "$T/run.out" Names requests "$long_name"
check_grep "$T/run.out" '^    short check +0 +4 +0\.00%$' "run: a short check keeps its one-line row"
check_grep "$T/run.out" '^    short +4 +0 ' "run: a short request name keeps its one-line row"
# The Thresholds block: the long expression whole, its figures under the others'.
python3 - "$T/run.out" "checks{name=\"$long_check\"} == 1" <<'PY' || fail "thresholds block: $(sed -n '/^Thresholds:/,$p' "$T/run.out")"
import sys
lines = open(sys.argv[1]).read().split("\n")
at = lines.index("Thresholds:")
block = lines[at + 1:at + 4]
assert block[0] == "  --threshold  " + sys.argv[2], block
assert block[1].endswith("  1  pass") and not block[1][:15].strip(), block
assert block[2].startswith("  --threshold  p99 < 1m ") and block[2].endswith("  pass"), block
assert len(block[1]) == len(block[2]), ("the figures are not in one column", block)
PY
ok

# volley report on the saved result: the same tables.
RC=0
"$VOLLEY" report "$T/run.json" > "$T/rep.out" 2> "$T/rep.err" || RC=$?
check_eq "$RC" 0 "report: exit status"
aligned "$T/rep.out" Checks passed "$long_check"
aligned "$T/rep.out" Groups count "$long_group"
for t in Checks Groups Names; do
    if diff <(sed -n "/^  $t /,/^  [A-Z]/p" "$T/run.out") <(sed -n "/^  $t /,/^  [A-Z]/p" "$T/rep.out") > /dev/null; then ok; else
        fail "report: the $t table differs from the run's"; fi
done

stop_target
finish
