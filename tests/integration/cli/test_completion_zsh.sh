# The zsh completion, completion/_volley: compinit registers it for volley
# and volley-ab; it lists every option of `volley --help`, every flag of
# `volley ab -h` and every bundled script; and completing sample command
# lines in a real interactive zsh (on a pseudo-terminal, zsh/zpty, with
# compadd wrapped to print what is offered) offers the expected words.
# Skipped (77) where zsh is not installed: it is not among make test's
# packages.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/pkg_lib.sh"

if ! command -v zsh > /dev/null; then
    echo "SKIP: zsh not found (apt-get install -y zsh)"
    exit 77
fi
ZSH_COMPLETION=$SRC/completion/_volley
check_eq "$(zsh -n "$ZSH_COMPLETION" 2>&1)" "" "_volley: zsh -n"
check_eq "$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- $_comps[volley] $_comps[volley-ab]' _ "$SRC/completion")" \
    "_volley _volley" "compinit registers _volley"

# Every option and flag is in an _arguments spec ('--name', '-c+', '{-c+,...}').
specs=$(grep -oE -- "(^|[{,')*])-{1,2}[A-Za-z0-9][A-Za-z0-9.-]*" "$ZSH_COMPLETION" | sed "s/^[{,')*]//" | sort -u)
for o in $(help_long_options) $(help_short_options) $(ab_flags); do
    if grep -qxF -- "$o" <<< "$specs"; then ok; else fail "_volley: no spec for $o"; fi
done
check_eq "$(sed -n 's/^ *bundled=(\(.*\))$/\1/p' "$ZSH_COMPLETION" | tr ' ' '\n' | sort)" "$(bundled_scripts)" \
    "bundled scripts in _volley"

mkdir -p "$T/cwd/sub"
touch "$T/cwd/a.json" "$T/cwd/s.lua" "$T/cwd/notes.txt"

# complete_words LINE: what zsh offers on TAB at the end of LINE, sorted,
# on one line. An interactive zsh on a pseudo-terminal with compinit; its
# compadd prints each word it adds; a function run after the completion
# prints a marker, read up to (with a time limit).
complete_words() {
    (cd "$T/cwd" && timeout 20 zsh -f -c '
        zmodload zsh/zpty || exit 2
        zpty z zsh -f -i
        zpty -w z "PS1=\"%% \"; fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep"
        zpty -w z "compadd() {
            if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi
            local -a hits; builtin compadd -A hits \"\$@\"
            local h; for h in \$hits; do print -r -- \$'"'"'\\n'"'"'\"WORD:\$h\"; done
            builtin compadd \"\$@\"
        }"
        zpty -w z "completed() { print -r -- \$'"'"'\\n'"'"'COMPLETION\"-\"DONE; }; comppostfuncs=(completed); print RE\"\"ADY"
        zpty -r z out "*READY*"
        zpty -n -w z "$2"$'"'"'\t'"'"'
        zpty -r z out "*COMPLETION-DONE*"
        zpty -d z
        print -r -- "$out"' _ "$SRC/completion" "$1") | tr -d '\r' | sed -n 's/^WORD://p' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
expect() { check_eq "$(complete_words "$1")" "$2" "completing [$1]"; }
expect "volley --prog" "--progress"
expect "volley --progress=" "auto bar lines none"
expect "volley --tls-resume=" "off on"
expect "volley --http2=" "strict"
expect "volley -s " "ab examples.json_check examples.login examples.metric examples.paths examples.shop examples.wrk_migration llm s.lua sub"
expect "volley --json " "- a.json notes.txt s.lua sub"
expect "volley report " "a.json sub"
expect "volley convert --no" "--no-assets"
expect "volley compare --" "--fail-if --help --html --threshold"
expect "volley ab -f " "ALL TLS1 TLS1.1 TLS1.2 TLS1.3"
expect "volley-ab -f TLS1." "TLS1.1 TLS1.2 TLS1.3"
expect "volley ab --tls" "--tls-resume"
finish
