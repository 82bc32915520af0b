# `cmake --install` into a temporary prefix (make install's command with
# --prefix): the binary, the volley-ab link, the man pages, the bash and
# zsh completions and the docs land in their folders and work from there
# (check_installed, pkg_lib.sh), and nothing else is installed.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/pkg_lib.sh"

P=$T/prefix
if cmake --install "$BUILD" --prefix "$P" > "$T/install.out" 2>&1; then ok; else fail "cmake --install: $(cat "$T/install.out")"; fi
start_target
check_installed "$P" "cmake --install"
# Only these: no test program, library or header.
check_eq "$(cd "$P" && find . -type f -o -type l | sed 's|^\./||' | grep -vE '^(bin/volley|bin/volley-ab|share/man/man1/volley(-ab)?\.1\.gz|share/bash-completion/completions/volley(-ab)?|share/zsh/vendor-completions/_volley|share/doc/volley/.*)$' || true)" \
    "" "cmake --install: files other than volley's"
finish
