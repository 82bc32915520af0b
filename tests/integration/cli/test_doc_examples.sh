#!/usr/bin/env bash
# Every code example of README.md and docs/*.md runs as the docs say:
# py/doc_examples.py runs each Lua script and each `volley ...` command
# (bounded, pointed at volley-target, a TLS volley-target, nghttpd for
# --h2c and py/doc_shop.py for the shop flows), compiles what cannot run
# alone, and names each example that fails by its file and line.
source "${TESTLIB:?}"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"
SRC=$(cd "$(dirname "$TESTLIB")/../.." && pwd)

start_tls_target
TLS_PORT=$PORT
H2C_PORT=
if start_nghttpd --h2c > /dev/null 2>&1; then H2C_PORT=$NGHTTPD_PORT; fi
start_target

mkdir -p "$T/work"
RC=0
VOLLEY="$VOLLEY" DOCX_TARGET=$PORT DOCX_TLS=$TLS_PORT DOCX_H2C=$H2C_PORT \
    timeout -s KILL 300 python3 -B "$(dirname "$TESTLIB")/py/doc_examples.py" "$SRC" "$T/work" \
    > "$T/examples.out" 2>&1 || RC=$?
grep -v '^FAIL ' "$T/examples.out" || true
while IFS= read -r line; do fail "${line#FAIL }"; done < <(grep '^FAIL ' "$T/examples.out")
check_eq "$RC" "$([ "$FAILS" -gt 0 ] && echo 1 || echo 0)" "doc_examples.py's exit status ($(tail -n 3 "$T/examples.out"))"
check_grep "$T/examples.out" '^doc examples: commands run [1-9]' "the examples were found"
finish
