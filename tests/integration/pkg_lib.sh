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
    { "$VOLLEY" ab -h 2>&1 > /dev/null || true; } | grep -oE '^ +(-[A-Za-z]|--[a-z][a-z-]*)' | tr -d ' ' | sort -u
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

# check_installed ROOT WHAT: what `cmake --install` puts under a prefix is
# under ROOT (the prefix, or usr/ of an unpacked package), and works: the
# installed volley prints the build's version, makes a short run against
# volley-target (start_target first: PORT), and runs as volley-ab; man
# renders both pages (where man is installed); the bash completion loads
# (and the zsh one parses, where zsh is installed); the docs' links all
# lead to installed files (py/doc_links.py).
check_installed() {
    local root=$1 what=$2 f
    for f in bin/volley bin/volley-ab share/man/man1/volley.1.gz share/man/man1/volley-ab.1.gz \
        share/bash-completion/completions/volley share/bash-completion/completions/volley-ab \
        share/zsh/vendor-completions/_volley share/doc/volley/README.md share/doc/volley/docs/usage.md \
        share/doc/volley/docs/img/report.png share/doc/volley/docs/distributed.md \
        share/doc/volley/docs/examples/distributed/k8s-launch.sh; do
        if [ -e "$root/$f" ]; then ok; else fail "$what: no $f"; fi
    done
    # Every link of the installed docs leads to an installed file (and heading).
    check_eq "$(python3 -B "$(dirname "$TESTLIB")/py/doc_links.py" "$root/share/doc/volley" 2>&1)" "" \
        "$what: the installed docs' links"
    if [ -x "$root/share/doc/volley/docs/examples/distributed/parallel.sh" ]; then ok; else
        fail "$what: the launcher parallel.sh is not executable"; fi
    check_eq "$(readlink "$root/bin/volley-ab")" volley "$what: bin/volley-ab links to"
    check_eq "$(readlink "$root/share/bash-completion/completions/volley-ab")" volley "$what: the completion of volley-ab links to"
    check_eq "$("$root/bin/volley" --version)" "$("$VOLLEY" --version)" "$what: volley --version"

    local url="http://127.0.0.1:$PORT/" rc=0
    "$root/bin/volley" -q -n 200 -c 4 -t 2 --json "$T/installed.json" "$url" > "$T/installed.out" 2>&1 || rc=$?
    check_eq "$rc" 0 "$what: a short run: exit status ($(head -c 300 "$T/installed.out"))"
    check_eq "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["requests"]["completed"])' \
        "$T/installed.json" 2>&1)" 200 "$what: a short run: completed requests"
    rc=0
    "$root/bin/volley-ab" -q -n 20 -c 2 "$url" > "$T/installed-ab.out" 2>&1 || rc=$?
    check_eq "$rc" 0 "$what: volley-ab: exit status"
    check_grep "$T/installed-ab.out" '^Complete requests: +20$' "$what: volley-ab runs ab"

    # Without man, test_man.sh is skipped and says so.
    if command -v man > /dev/null; then
        check_man "$root/share/man/man1/volley.1.gz" "$what: volley.1.gz"
        check_man "$root/share/man/man1/volley-ab.1.gz" "$what: volley-ab.1.gz"
    fi
    check_bash_completion "$root/share/bash-completion/completions/volley" "$what: bash completion"
    check_bash_completion "$root/share/bash-completion/completions/volley-ab" "$what: bash completion as volley-ab"
    if command -v zsh > /dev/null; then
        check_eq "$(zsh -n "$root/share/zsh/vendor-completions/_volley" 2>&1)" "" "$what: zsh -n _volley"
    fi
}
