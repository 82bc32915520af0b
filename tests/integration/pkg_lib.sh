# Helpers for the tests of what volley installs: the man pages, the shell
# completions, `cmake --install` and the Debian package. Sourced after
# lib.sh. SRC is the source tree, BUILD the build folder (volley's).
SRC=$(cd "$(dirname "$TESTLIB")/../.." && pwd)
BUILD=$(dirname "$VOLLEY")

# help_long_options [report|compare]: the long options `volley [CMD] --help`
# lists, one a line (--http2[=strict] as --http2).
help_long_options() { "$VOLLEY" "$@" --help | grep -oE -- '--[a-z0-9][a-z0-9.-]*' | sort -u; }

# help_short_options: the short options of `volley --help` (-c, -t, ...).
help_short_options() { "$VOLLEY" --help | grep -oE '^  -[A-Za-z],' | tr -d ' ,' | sort -u; }

# ab_flags: the flags `volley ab -h` lists (on stderr; it exits 22, as ab).
ab_flags() {
    { "$VOLLEY" ab -h 2>&1 > /dev/null || true; } | grep -oE '^ +-[A-Za-z]' | tr -d ' ' | sort -u
}

# bundled_scripts: the names -s finds inside the binary (scripts/NAME.lua,
# dots for folders), one a line.
bundled_scripts() { (cd "$SRC/scripts" && find . -name '*.lua' | sed 's|^\./||; s|\.lua$||; s|/|.|g' | sort); }

# check_man PAGE WHAT: man renders PAGE (a file, gzipped or not) at 80
# columns with no warning on stderr, with a NAME section and no line wider
# than the page.
check_man() {
    local out=$T/man.out err=$T/man.err
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$1" > "$out" 2> "$err" || fail "$2: man exited $?"
    check_eq "$(cat "$err")" "" "$2: man --warnings"
    check_grep "$out" '^NAME$' "$2: rendered"
    check_eq "$(awk 'length($0) > 80' "$out")" "" "$2: lines wider than 80 columns"
}

# check_bash_completion FILE WHAT: FILE, sourced in a plain bash, registers
# _volley for volley and volley-ab.
check_bash_completion() {
    local out
    out=$(bash -c 'source "$1" && complete -p volley volley-ab' _ "$1" 2>&1) || fail "$2: sourcing failed: $out"
    check_eq "$out" $'complete -F _volley volley\ncomplete -F _volley volley-ab' "$2: complete -p"
}
