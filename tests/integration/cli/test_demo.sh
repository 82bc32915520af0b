# `make demo` builds what it runs, quietly: only the volley and
# volley-target targets, its output kept in BUILD/demo-build.log and shown
# only when the build fails; then the two runs of scripts/demo.sh. cmake is
# a stand-in on PATH that logs its arguments and prints build noise (a real
# build takes minutes); BUILD holds links to the binaries ctest built, so
# the demo's runs are real. PACKAGES= leaves the Debian packages alone.
source "$TESTLIB"

SRC=$(cd "$(dirname "$TESTLIB")/../.." && pwd)
command -v make > /dev/null || { echo "skip: no make"; finish; exit 0; }
mkdir -p "$T/bin" "$T/b"
cat > "$T/bin/cmake" <<'SH'
#!/bin/sh
echo "$*" >> "$FAKE_CMAKE_LOG"
echo "[ 42%] Building C object noise.c.o"
echo "noise on stderr" >&2
exit "${FAKE_CMAKE_RC:-0}"
SH
chmod +x "$T/bin/cmake"
ln -s "$VOLLEY" "$T/b/volley"
ln -s "$VOLLEY_TARGET" "$T/b/volley-target"

# demo NAME: make demo into $T/NAME.out/.err, status in RC.
demo() {
    RC=0
    PATH="$T/bin:$PATH" FAKE_CMAKE_LOG="$T/$1.cmake" timeout -s KILL 60 \
        make -s -C "$SRC" demo BUILD="$T/b" JOBS=2 PACKAGES= > "$T/$1.out" 2> "$T/$1.err" || RC=$?
}

demo ok
check_eq "$RC" 0 "demo: exit status"
check_eq "$(grep -c . "$T/ok.err")" 0 "demo: nothing on stderr: $(head -c 300 "$T/ok.err")"
check_eq "$(head -n 1 "$T/ok.out" | sed 's/[0-9]*\/$//')" "volley -c 50 -d 3s http://127.0.0.1:" "demo: the first line is the first run's command"
check_eq "$(grep -c noise "$T/ok.out")" 0 "demo: no build output"
check_eq "$(grep -c '^Requests/sec:' "$T/ok.out")" 2 "demo: two reports"
check_grep "$T/ok.out" '^volley -R 2000 -d 2s -c 20 http://127\.0\.0\.1:[0-9]+/$' "demo: the open-model run"
check_eq "$(grep -c -- '--build' "$T/ok.cmake")" 1 "demo: one build"
check_grep "$T/ok.cmake" "^--build $T/b -j 2 --target volley volley-target\$" "demo: only volley and volley-target"
check_grep "$T/b/demo-build.log" 'Building C object noise' "demo: the build's output in the log"

# A build that fails: its output on stderr, the reason, no demo run.
FAKE_CMAKE_RC=1 demo bad
if [ "$RC" -ne 0 ]; then ok; else fail "failed build: demo exit status 0"; fi
check_grep "$T/bad.err" 'Building C object noise' "failed build: its output shown"
check_grep "$T/bad.err" 'noise on stderr' "failed build: its stderr shown"
check_grep "$T/bad.err" "^make demo: the build failed \\(its output above, also in $T/b/demo-build.log\\)\$" "failed build: said"
check_eq "$(grep -c '^volley ' "$T/bad.out")" 0 "failed build: no demo run"
finish
