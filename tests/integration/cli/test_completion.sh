# The bash completion, completion/volley.bash: it loads in a plain bash
# (no bash-completion package) and registers volley and volley-ab; it lists
# every option of `volley --help`, every flag of `volley ab -h` and every
# bundled script; and completing sample command lines (COMP_WORDS and
# COMP_CWORD set as bash sets them) offers the expected words: options,
# enumerated values (also after --opt=), files, *.lua files and bundled
# names after -s, the subcommands.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/pkg_lib.sh"

BASH_COMPLETION=$SRC/completion/volley.bash
check_bash_completion "$BASH_COMPLETION" volley.bash

# list VARIABLE: a word list of volley.bash, one a line.
list() { bash -c 'source "$1"; printf "%s\n" ${!2}' _ "$BASH_COMPLETION" "$1" | sort -u; }
missing() { comm -23 <(sort -u) <(list "$1"); }
check_eq "$(help_long_options | missing _volley_options)" "" "options of volley --help missing from volley.bash"
check_eq "$(help_short_options | missing _volley_options)" "" "short options of volley --help missing from volley.bash"
check_eq "$(ab_flags | missing _volley_ab_flags)" "" "flags of volley ab -h missing from volley.bash"
check_eq "$(list _volley_bundled)" "$(bundled_scripts)" "bundled scripts in volley.bash"

# A folder to complete file names in.
mkdir -p "$T/cwd/sub"
touch "$T/cwd/a.json" "$T/cwd/s.lua" "$T/cwd/notes.txt"

# complete_words WORD...: what _volley offers for the command line WORD...,
# the last word being the one completed; sorted, on one line.
complete_words() {
    (cd "$T/cwd" && bash -c '
        source "$1"
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _volley "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$BASH_COMPLETION" "$@") | sort | tr '\n' ' ' | sed 's/ $//'
}
# expect "WORDS" CANDIDATES: bash splits --opt=value into --opt, =, value.
expect() {
    local words
    read -ra words <<< "$1"
    [[ $1 == *" " ]] && words+=("")
    check_eq "$(complete_words "${words[@]}")" "$2" "completing [$1]"
}
expect "volley --prog" "--progress"
expect "volley --progress " "auto bar lines none"
expect "volley --progress =" "auto bar lines none"
expect "volley --progress = l" "lines"
expect "volley -d 3s --ht" "--html --http1.0 --http2 --http2=strict"
expect "volley --http2 =" "strict"
expect "volley --tls-resume " "off on"
expect "volley --tls-max 1." "1.0 1.1 1.2 1.3"
expect "volley -m P" "PATCH POST PUT"
expect "volley -c " ""
expect "volley --fail-if " ""
expect "volley --threshold " ""
expect "volley --thre" "--threads --threshold"
expect "volley --thres" "--threshold"
expect "volley -s " "ab examples.json_check examples.login examples.metric examples.paths examples.shop examples.wrk_migration llm s.lua sub"
expect "volley -c 5 --script ex" "examples.json_check examples.login examples.metric examples.paths examples.shop examples.wrk_migration"
expect "volley --json " "- a.json notes.txt s.lua sub"
expect "volley --body-file n" "notes.txt"
expect "volley " "ab compare convert llm merge report"
expect "volley convert --no" "--no-assets"
expect "volley convert -o " "a.json notes.txt s.lua sub"
expect "volley llm --back" "--backend"
expect "volley llm --backend " "openai openai-chat vllm"
expect "volley -s s.lua http://127.0.0.1/ -- " "a.json notes.txt s.lua sub"
expect "volley report " "a.json sub"
expect "volley report a.json -" "--fail-if --help --html --json --threshold -q"
expect "volley report a.json --json " "- a.json notes.txt s.lua sub"
expect "volley compare a.json " "a.json sub"
expect "volley compare --f" "--fail-if"
expect "volley compare --t" "--threshold"
expect "volley ab -f TLS1." "TLS1.1 TLS1.2 TLS1.3"
expect "volley ab -p " "a.json notes.txt s.lua sub"
expect "volley-ab -k" "-k"
expect "volley ab --tls" "--tls-resume"
expect "volley ab -n 10 -" "$(ab_flags | sort | tr '\n' ' ' | sed 's/ $//')"
expect "./build/volley --no-k" "--no-keepalive"
finish
