# docs/examples/distributed/parallel.sh with GNU parallel: three shards as
# local processes, each from its own source address, one start time, then
# `volley merge`. The merged count equals N and the server's count, each
# shard did its exact share (counted by the server per source address), and
# the shard files are shards 0, 1 and 2 of one run. Then the --sshlogin path
# with a stand-in for ssh that runs the command here (no ssh server needed),
# and a shard that refuses to start: merge names it missing. Skipped with a
# message where GNU parallel is missing, except in CI (the Makefile's
# TEST_PACKAGES has it).
source "$TESTLIB"
LAUNCHER=$(cd "$(dirname "$0")/../../.." && pwd)/docs/examples/distributed/parallel.sh

if ! command -v parallel > /dev/null; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: GNU parallel is not installed (make test installs it)" >&2
        exit 1
    fi
    echo "$(basename "$0"): skipped: GNU parallel is not installed (apt-get install parallel)"
    exit 0
fi

# launch NAME [parallel.sh options] -- [volley options]: the launcher with
# results in $T/NAME, its stdout and stderr in $T/NAME.out and .err; RC.
launch() {
    local name=$1
    shift
    RC=0
    rm -rf "${T:?}/$name"
    timeout -s KILL 60 bash "$LAUNCHER" -b "$VOLLEY" -o "$T/$name" "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?
}

# attempt NAME LEAD [parallel.sh options] -- [volley options, @URL@ for the
# URL]: a fresh server (timing log $T/NAME.tlog with peers, request log
# $T/NAME.rlog), the launcher with --start-at +LEADs, the server's counters
# in RECEIVED and ANSWERED, the server stopped (its logs are then complete);
# BEFORE and AFTER are the clock around the launch, LEAD the lead used. A shard that was not
# ready by the start refuses to start: that is the machine being slow, not
# the launcher, so the case runs again with twice the lead (three tries).
attempt() {
    local name=$1
    LEAD=$2
    shift 2
    for _ in 1 2 3; do
        start_target --timing-log "$T/$name.tlog" --timing-peers --log "$T/$name.rlog"
        BEFORE=$(date +%s.%N)
        launch "$name" --start-at "+${LEAD}s" "${@//@URL@/http://127.0.0.1:$PORT/}"
        AFTER=$(date +%s.%N)
        RECEIVED=$(target_stat received)
        ANSWERED=$(target_stat answered)
        stop_target
        grep -q 'not starting' "$T/$name.err" || return 0
        echo "$name: a shard was not ready by +${LEAD}s; again with $((LEAD * 2))s" >&2
        LEAD=$((LEAD * 2))
    done
}

# check_shards NAME RUN_ID N: shard-0..N-1.json are shards 0..N-1 of N of
# RUN_ID with one start time (the JSON's start_time too), merged.json the
# whole run; each shard's completed count in $T/NAME.counts, the start in
# $T/NAME.start.
check_shards() {
    python3 - "$T/$1" "$2" "$3" "$T/$1" <<'PY' || fail "$1: the shards' results: $(tail -n 3 "$T/$1.err")"
import json, sys
d, rid, n, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
starts, counts = set(), []
for i in range(n):
    r = json.load(open("%s/shard-%d.json" % (d, i)))
    run = r["run"]
    assert (run["id"], run["shard"], run["shards"]) == (rid, i, n), run
    assert run["start_at"] is not None and r["start_time"] == run["start_at"], (run, r["start_time"])
    starts.add(run["start_at"])
    counts.append(str(r["requests"]["completed"]))
assert len(starts) == 1, starts
m = json.load(open(d + "/merged.json"))["run"]
assert (m["id"], m["shard"], m["shards"]) == (rid, None, n) and m["start_at"] in starts, m
open(base + ".counts", "w").write(" ".join(counts))
open(base + ".start", "w").write("%.3f" % starts.pop())
PY
}

# Local processes, each shard its own source address.
attempt local 2 -j 3 -s "127.0.0.2 127.0.0.3 127.0.0.4" --run-id par-local -- -n 3000 -c 6 -t 1 @URL@
check_eq "$RC" 0 "local: exit status"
check_shards local par-local 3
check_eq "$(cat "$T/local.counts")" "1000 1000 1000" "local: each shard's completed requests"
check_eq "$(jget "$T/local/merged.json" requests.completed)" 3000 "local: merged completed"
check_eq "$(jget "$T/local/merged.json" status.200)" 3000 "local: merged status 200"
check_grep "$T/local.out" "^  3000 requests in [0-9.]+s, " "local: the merged report on stdout"
check_grep "$T/local.err" "^parallel.sh: run par-local, 3 shards, start at [0-9.]+, results in " "local: the launcher's line"
# +LEADs was resolved once, by the launcher, between BEFORE and AFTER.
if awk -v s="$(cat "$T/local.start")" -v b="$BEFORE" -v a="$AFTER" -v l="$LEAD" \
    'BEGIN { exit !(s >= b + l - 0.001 && s <= a + l) }'; then ok; else
    fail "local: start $(cat "$T/local.start") is not +${LEAD}s from the launch ($BEFORE .. $AFTER)"; fi
check_eq "$RECEIVED" 3000 "local: server received"
check_eq "$ANSWERED" 3000 "local: server answered"
# The server's count per source address: shard I came from 127.0.0.(I+2).
peers=$(awk '$1 == "r" { n[$3]++ } END { for (p in n) print p ":" n[p] }' "$T/local.tlog" | sort | tr '\n' ' ')
check_eq "$peers" "127.0.0.2:1000 127.0.0.3:1000 127.0.0.4:1000 " "local: server's requests per source address"

# --sshlogin with three "hosts": a stand-in for ssh runs the command here,
# after the remote shell's word splitting (so quoting is tested), in the
# environment sshd gives a session: the login's SHELL, HOME, USER, LOGNAME
# and PATH, nothing of the caller's. (GNU parallel's remote wrapper execs
# $SHELL; CI runs without SHELL set, so passing the caller's environment
# through would test a session no sshd ever makes.)
cat > "$T/fake-ssh" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do case $1 in -l|-p|-o) shift 2 ;; -*) shift ;; *) break ;; esac; done
echo "$1" >> "${0%/*}/ssh.hosts"
shift
[ "${1:-}" = -- ] && shift
IFS=: read -r user _ _ _ _ home shell < <(getent passwd "$(id -u)")
exec env -i SHELL="${shell:-/bin/sh}" HOME="$home" USER="$user" LOGNAME="$user" \
    PATH=/usr/local/bin:/usr/bin:/bin bash -c "$*"
EOF
chmod +x "$T/fake-ssh"
export PARALLEL_SSH=$T/fake-ssh
attempt ssh 2 -S h1,h2,h3 --run-id par-ssh -- -n 900 -c 3 -t 1 -H 'X-Quoted: a  "b" $HOME' @URL@
unset PARALLEL_SSH
check_eq "$RC" 0 "ssh: exit status"
check_shards ssh par-ssh 3
check_eq "$(cat "$T/ssh.counts")" "300 300 300" "ssh: each shard's completed requests"
check_eq "$(jget "$T/ssh/merged.json" requests.completed)" 900 "ssh: merged completed"
check_eq "$RECEIVED" 900 "ssh: server received"
check_eq "$(sort -u "$T/ssh.hosts" | tr '\n' ' ')" "h1 h2 h3 " "ssh: the jobs went through ssh to the three logins"
check_eq "$(awk -F'\t' 'NR > 1 { print $2 }' "$T/ssh/joblog" | sort | tr '\n' ' ')" "h1 h2 h3 " "ssh: parallel's job log"
check_eq "$(grep -c ' X-Quoted=a  "b" \$HOME$' "$T/ssh.rlog")" 900 "ssh: the header reached the server as given"

# A shard that cannot start (a bad --source): its stderr is passed on and
# merge refuses the incomplete run, naming the missing shard (exit 9).
attempt broken 2 -s "127.0.0.2 no-such-address 127.0.0.4" --run-id par-broken -- -n 300 -c 3 -t 1 @URL@
check_eq "$RC" 9 "broken: exit status (merge: a shard missing)"
check_grep "$T/broken.err" "^shard 1: volley: --source: " "broken: shard 1's message"
check_grep "$T/broken.err" "^parallel.sh: 1 of 3 shards did not exit 0" "broken: the launcher says one shard failed"
check_grep "$T/broken.err" "^volley merge: .*shard 1" "broken: merge names shard 1"
if [ -e "$T/broken/shard-1.json" ]; then fail "broken: shard 1 left a result file"; else ok; fi

# Bad launcher options: exit 2, nothing run.
launch badj -j 0 -- -n 10 "http://127.0.0.1:1/"
check_eq "$RC" 2 "-j 0: exit status"
check_grep "$T/badj.err" "^parallel.sh: -j: " "-j 0: message"
launch bads -j 2 -s "127.0.0.2 127.0.0.3 127.0.0.4" -- -n 10 "http://127.0.0.1:1/"
check_eq "$RC" 2 "-s with 3 items for -j 2: exit status"
launch badt --start-at soon -- -n 10 "http://127.0.0.1:1/"
check_eq "$RC" 2 "--start-at soon: exit status"
check_grep "$T/badt.err" "^parallel.sh: --start-at: " "--start-at soon: message"
finish
