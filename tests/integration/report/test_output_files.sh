# Result files (--json, --hlog): never half there under their own name; a
# run that never starts leaves what was there; volley never removes a path
# it did not create (devices, pipes). --json is written after the run, and
# a killed run leaves no temporary file for it; --hlog is written as the
# run goes to NAME.partial.XXXXXX, renamed to NAME when the run ends (also
# on SIGTERM), and a killed run leaves it there with every interval that
# was complete.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT/"
dead="http://127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')/"
D=$T/out
mkdir -p "$D"

# vrun NAME ARGS...: volley with its output in $T/NAME.{out,err}, status in RC.
vrun() {
    local name=$1
    shift
    RC=0
    timeout -s KILL 60 "$VOLLEY" "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}
only_files() { # WHAT EXPECTED...: the folder holds exactly these names
    local what=$1
    shift
    check_eq "$(cd "$D" && ls -A | sort | tr '\n' ' ')" "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" "$what: files in the folder"
}

# A run that never starts (refused) keeps an existing file as it was.
echo important > "$D/keep.json"
echo important > "$D/keep.hlog"
vrun refused --json "$D/keep.json" --hlog "$D/keep.hlog" -n 5 "$dead"
check_eq "$RC" 1 "refused target: exit status"
check_eq "$(cat "$D/keep.json")" important "refused target: --json file untouched"
check_eq "$(cat "$D/keep.hlog")" important "refused target: --hlog file untouched"
only_files "refused target" keep.json keep.hlog

# A path that is not a regular file is written as it is and never removed:
# a named pipe stands for /dev/null (removing the device is what once
# happened, as root). With a refused target nothing opens it (opening a
# pipe with no reader would block).
mkfifo "$D/pipe"
vrun fifo_refused --json "$D/pipe" --hlog "$D/pipe" -n 5 "$dead"
check_eq "$RC" 1 "pipe, refused target: exit status"
if [ -p "$D/pipe" ]; then ok; else fail "pipe, refused target: the pipe was removed"; fi
# A run that goes writes its JSON into the pipe, and the pipe stays.
cat "$D/pipe" > "$T/fromfifo.json" &
reader=$!
vrun fifo_ok --json "$D/pipe" -n 20 "$url"
wait "$reader"
check_eq "$RC" 0 "pipe: exit status"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"]["completed"])' "$T/fromfifo.json")" 20 \
    "pipe: the JSON came through it"
if [ -p "$D/pipe" ]; then ok; else fail "pipe: the pipe was removed"; fi
vrun devnull --json /dev/null --hlog /dev/null -n 20 "$url"
check_eq "$RC" 0 "/dev/null: exit status"
if [ -c /dev/null ]; then ok; else fail "/dev/null is no longer a device"; fi
rm "$D/pipe"

# A run replaces the file whole, keeps its mode, and leaves no temporary
# file; through a symlink the link stays and its target is replaced.
chmod 640 "$D/keep.json"
ln -s keep.json "$D/link.json"
vrun replace --json "$D/link.json" --hlog "$D/keep.hlog" -n 30 "$url"
check_eq "$RC" 0 "replace: exit status"
check_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"]["completed"])' "$D/keep.json")" 30 \
    "replace: the new result"
check_grep "$D/keep.hlog" "^#\[StartTime: " "replace: the new --hlog"
check_eq "$(stat -c %a "$D/keep.json")" 640 "replace: the file's mode is kept"
if [ -L "$D/link.json" ]; then ok; else fail "replace: the symlink was replaced by a file"; fi
only_files "replace" keep.json keep.hlog link.json
rm "$D/link.json"

# A new file gets the umask's mode.
( umask 027 && exec "$VOLLEY" -q --json "$D/new.json" -n 5 "$url" ) || fail "new file: volley failed"
check_eq "$(stat -c %a "$D/new.json")" 640 "new file: mode from the umask"
rm "$D/new.json"

# A run that fails to start (a script error in init()) leaves the files,
# and removes the --hlog partial file it had opened.
echo important > "$D/keep.json"
echo important > "$D/keep.hlog"
printf 'function init(args) error("no init") end\n' > "$T/initerr.lua"
vrun initerr --json "$D/keep.json" --hlog "$D/keep.hlog" -s "$T/initerr.lua" -n 5 "$url"
check_eq "$RC" 1 "init() error: exit status"
check_eq "$(cat "$D/keep.json")" important "init() error: --json file untouched"
check_eq "$(cat "$D/keep.hlog")" important "init() error: --hlog file untouched"
only_files "init() error" keep.json keep.hlog

# A killed run leaves the previous result whole and no temporary file.
"$VOLLEY" -q --json "$D/keep.json" -d 20s -c 2 "$url" > /dev/null 2>&1 &
vpid=$!
sleep 0.5
signal_wait KILL "$vpid"
check_eq "$(cat "$D/keep.json")" important "killed run: --json file untouched"
only_files "killed run" keep.json keep.hlog

# interval_lines FILE: the hlog's interval lines (not the header's).
interval_lines() { grep -cE '^(Tag=[a-z]+,)?[0-9]+\.[0-9]{3},' "$1" || true; }

# A killed run with --hlog keeps what it measured: NAME untouched, and
# NAME.partial.XXXXXX holding the header and each interval that was
# complete (flushed as it went). If the machine is slow to get 2 intervals
# out in 2.5 s, it waits for them (up to 10 s more) before the kill: what
# is tested is that they are still there after it, not how soon they came.
"$VOLLEY" -q --hlog "$D/keep.hlog" --hlog-interval 500ms -d 20s -c 2 "$url" > /dev/null 2>&1 &
vpid=$!
sleep 2.5
for _ in $(seq 1 100); do
    p=$(ls "$D"/keep.hlog.partial.* 2>/dev/null | head -n 1)
    [ -n "$p" ] && [ "$(interval_lines "$p")" -ge 2 ] && break
    sleep 0.1
done
signal_wait KILL "$vpid"
check_eq "$(cat "$D/keep.hlog")" important "killed --hlog run: --hlog file untouched"
partials=("$D"/keep.hlog.partial.*)
check_eq "${#partials[@]}" 1 "killed --hlog run: one partial file"
p=${partials[0]}
if [ -f "$p" ]; then
    check_grep "$p" '^#\[Histogram log format version 1\.3\]$' "killed --hlog run: the partial file's header"
    check_grep "$p" '^"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"$' \
        "killed --hlog run: the partial file's legend"
    check_ge "$(interval_lines "$p")" 2 "killed --hlog run: intervals in the partial file"
    check_eq "$(grep -cE '^[0-9]+\.[0-9]{3},0\.500,' "$p")" "$(interval_lines "$p")" \
        "killed --hlog run: whole intervals only"
fi
# Unlike the killed --json run above, this one leaves a file beside the
# others, by design: the partial log is what the run measured.
only_files "killed --hlog run" keep.json keep.hlog "$(basename "$p")"
rm -f "$D"/keep.hlog.partial.*

# SIGTERM ends the run as a deadline would: the partial file becomes NAME.
"$VOLLEY" -q --hlog "$D/keep.hlog" --hlog-interval 500ms -d 20s -c 2 "$url" > /dev/null 2>&1 &
vpid=$!
sleep 1.5
signal_wait TERM "$vpid"
check_eq "$RC" 105 "SIGTERM --hlog run: exit status (interrupted)"
check_grep "$D/keep.hlog" '^#\[Histogram log format version 1\.3\]$' "SIGTERM --hlog run: the new log"
check_ge "$(interval_lines "$D/keep.hlog")" 1 "SIGTERM --hlog run: intervals"
only_files "SIGTERM --hlog run" keep.json keep.hlog

# Bad paths are bad options: exit 2 before anything is sent.
before=$(target_stat received)
vrun nodir --json "$D/nodir/x.json" -n 5 "$url"
check_eq "$RC" 2 "missing folder: exit status"
check_grep "$T/nodir.err" "^volley: --json: $D/nodir/x.json: No such file or directory$" "missing folder: message"
vrun isdir --hlog "$D" -n 5 "$url"
check_eq "$RC" 2 "a folder: exit status"
check_grep "$T/isdir.err" "^volley: --hlog: $D: Is a directory$" "a folder: message"
vrun hlogstdout --hlog - -n 5 "$url"
check_eq "$RC" 2 "--hlog -: exit status"
check_grep "$T/hlogstdout.err" "^volley: --hlog: -: stdout has the report; give a file name$" "--hlog -: message"
if [ "$(id -u)" != 0 ]; then
    mkdir "$D/ro" && chmod 555 "$D/ro"
    vrun rodir --json "$D/ro/x.json" -n 5 "$url"
    check_eq "$RC" 2 "read-only folder: exit status"
    check_grep "$T/rodir.err" "cannot write in its folder" "read-only folder: message"
    chmod 755 "$D/ro"
fi
check_eq "$(target_stat received)" "$before" "bad paths: nothing was sent"
finish
