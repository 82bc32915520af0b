#!/usr/bin/env bash
# The README's sample report is today's report: `make demo`'s first run
# (-c 50 -d 3s against volley-target) prints the same lines in the same
# order, each the same once its figures are set aside (a number with its
# unit, such as 412.4us, 3.00s or 26.46MB, counts as one figure).
source "${TESTLIB:?}"
README=$(dirname "$TESTLIB")/../../README.md

# shape: the lines on stdin with every figure as N and blanks squeezed.
shape() { sed -E 's/[0-9]+(\.[0-9]+)?(us|ms|s|[KMG]?B)?/N/g; s/ +/ /g; s/ $//'; }

# The block after "A report looks like this", its 4-space indent removed.
awk '/^A report looks like this/ { on = 1; next } on && /^    / { print substr($0, 5); got = 1; next }
     on && got { exit }' "$README" > "$T/sample"
check_grep "$T/sample" '^Running 3s test @ ' "README: the sample report found"

start_target
run_volley demo -c 50 -d 3s "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "the demo's run: exit status ($(head -c 300 "$T/demo.err"))"
check_eq "$(shape < "$T/sample")" "$(shape < "$T/demo.out")" "README's sample report against today's (figures as N)"
finish
