# The man pages docs/man/volley.1 and volley-ab.1: every option `volley
# --help` lists (and `volley report --help` and `volley compare --help`) is
# an item of volley.1, every flag of `volley ab -h` one of volley-ab.1, so
# that a new option cannot be left out; and both pages render without a
# warning (man --warnings, groff -ww). Skipped (77) after the option checks
# where man or groff is missing (make test installs man-db).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/pkg_lib.sh"

MAN=$SRC/docs/man

# tags PAGE: the tag line of each .TP item.
tags() { awk 'prev == ".TP" { print } { prev = $0 }' "$1"; }
# roff OPTION: OPTION as the page writes it (\- for each -), as an ERE.
roff() { printf '%s' "$1" | sed 's/\./\\./g; s/-/\\\\-/g'; }

tags "$MAN/volley.1" > "$T/volley.tags"
for o in $(help_long_options) $(help_long_options report) $(help_long_options compare) $(help_short_options); do
    # The option, then a font change, a blank, a comma, "=", "[" or the end.
    if grep -qE -- "$(roff "$o")(\\\\f|[][ ,=]|\$)" "$T/volley.tags"; then ok; else fail "volley.1: no item for $o"; fi
done
check_ge "$(help_long_options | wc -l)" 40 "volley --help: long options found"

tags "$MAN/volley-ab.1" > "$T/ab.tags"
for f in $(ab_flags); do
    if grep -qE -- "^\\.BI? $(roff "$f")( |\$)" "$T/ab.tags"; then ok; else fail "volley-ab.1: no item for $f"; fi
done
check_ge "$(ab_flags | wc -l)" 30 "volley ab -h: flags found"

# Every bundled script is named where -s is described.
for s in $(bundled_scripts); do
    check_grep "$MAN/volley.1" "^\\.B $s\$" "volley.1: bundled script $s"
done

if ! command -v man > /dev/null || ! command -v groff > /dev/null; then
    finish
    echo "SKIP: man or groff not found, the pages were not rendered (apt-get install -y man-db; make test installs it)"
    exit 77
fi
for page in volley.1 volley-ab.1; do
    check_man "$MAN/$page" "$page"
    check_eq "$(groff -ww -man -z "$MAN/$page" 2>&1)" "" "$page: groff -ww"
done
check_grep "$T/man.out" '^ +volley-ab -k -n 10000 -c 100 http://127.0.0.1:8080/$' "volley-ab.1: an example, rendered"
finish
