# Habits from other tools, named instead of failing silently (issue 29):
# -m post is sent as typed, with one note on stderr that methods are
# case-sensitive; curl's -b @file is refused, pointing at --body-file; an
# IPv6 address without brackets gets the bracketed URL.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT/"

# -m post: sent as typed, one note line.
run_volley lower -n 2 -c 1 -m post "$url"
check_eq "$RC" 0 "-m post: exit status"
check_eq "$(grep -c . "$T/lower.err")" 1 "-m post: one line on stderr"
check_grep "$T/lower.err" '^volley: -m post: methods are case-sensitive and it is sent as typed; most servers want -m POST$' \
    "-m post: the note"
# A method in its own case, or one that is no standard method, gets no note.
for m in POST PURGE purge; do
    run_volley "m_$m" -n 1 -c 1 -m "$m" "$url"
    check_eq "$RC" 0 "-m $m: exit status"
    check_eq "$(grep -c . "$T/m_$m.err")" 0 "-m $m: nothing on stderr"
done
stop_target
# volley-target's parser, as many servers, knows only POST: a 400 each.
check_eq "$(jget "$T/lower.json" status.400)" 2 "-m post: sent as typed (refused by the server)"

# refused ERE ARGS...: exit 2, that one line on stderr, nothing sent.
refused() {
    local pat=$1
    shift
    RC=0
    timeout 10 "$VOLLEY" "$@" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "volley $*: exit status"
    check_eq "$(wc -l < "$T/bad.err")" 1 "volley $*: one line on stderr"
    check_grep "$T/bad.err" "$pat" "volley $*: message"
}
refused '^volley: -b: "@body.json" is curl.s way to name a file; volley sends -b as typed: use --body-file body.json$' \
    -n 1 -b @body.json "$url"
refused '^volley: http://::1:8080/: an IPv6 address goes in brackets \(did you mean http://\[::1\]:8080/ \?\)$' \
    -n 1 http://::1:8080/
refused '^volley: http://::1/x: an IPv6 address goes in brackets \(did you mean http://\[::1\]/x \?\)$' \
    -n 1 http://::1/x
# An '@' elsewhere in the body, or alone, is a body.
start_target --log "$T/b.log" --log-bodies
run_volley at -n 1 -c 1 -b 'a@b' "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "-b a@b: exit status"
stop_target
check_grep "$T/b.log" ' POST / body=3:' "-b a@b: sent as a body"

finish
