# Helpers for the volley llm tests (tests/integration/llm/), against
# volley-target's OpenAI endpoints: needs lib.sh.

# run_llm NAME [volley llm args]: `volley llm ARGS --json $T/NAME.json`,
# stdout in $T/NAME.out, stderr in $T/NAME.err; sets RC. At most 60 s.
run_llm() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" llm "$@" --json "$T/$name.json" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

# report_value NAME LABEL: the value of the line "LABEL:" of the block.
report_value() {
    sed -n '/^=* Serving Benchmark Result =*$/,$p' "$T/$1.out" | sed -n "s/^$2: *\([^ ]*\) *$/\1/p"
}
