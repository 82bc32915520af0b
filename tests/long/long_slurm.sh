# Slurm for real (make test-long; about 25 s): a one-node cluster of
# Debian's slurm-wlm and munge, started here from a temporary folder with
# its own munge key and socket, its own ports and nothing in /etc, runs
# docs/examples/distributed/slurm.sbatch: three tasks, task I shard I of 3,
# one start time for all, then `volley merge`. What the server counted
# equals the merged count, and each shard did its exact share. A second job
# at a fixed rate with --hlog merges the interval logs too. Everything the
# test started stops in the EXIT trap, by the pids the daemons wrote, also
# when a check fails; after a SIGKILL, which runs no trap, a watchdog stops
# it. Needs root (SlurmUser=root): skipped otherwise, and where the
# packages are missing outside CI (`make test-long` installs them).
source "$TESTLIB"
SBATCH_FILE=$(cd "$(dirname "$0")/../.." && pwd)/docs/examples/distributed/slurm.sbatch

missing=""
for c in munged munge unmunge slurmctld slurmd sbatch srun sinfo squeue scancel; do
    command -v "$c" > /dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: missing:$missing (make test-long installs slurm-wlm and munge)" >&2
        exit 1
    fi
    echo "$(basename "$0"): skipped: missing:$missing (apt-get install slurm-wlm munge)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "$(basename "$0"): skipped: the one-node cluster runs its daemons as root"
    exit 0
fi

# Nothing from an enclosing Slurm job or another cluster's configuration.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SRUN_|SALLOC_)' || true); do unset "$v"; done

S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/out"
# munged wants every folder above its socket searchable by all.
chmod 0711 "$T" "$S"
export SLURM_CONF=$S/slurm.conf

DAEMON_PIDS=()
SBATCH_PID=""
# alive PID: the process exists and is not a zombie.
alive() { [ -e "/proc/$1" ] && ! grep -q '^[^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
stop_pid() {
    local pid=$1 i
    # Only our cluster's daemon: its command line names $S.
    grep -qF "$S/" "/proc/$pid/cmdline" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null || return 0
    for i in $(seq 1 100); do alive "$pid" || return 0; sleep 0.1; done
    echo "$(basename "$0"): pid $pid did not stop on SIGTERM in 10 s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
}
slurm_stop() {
    local i pid
    if [ -n "$SBATCH_PID" ]; then kill "$SBATCH_PID" 2>/dev/null || true; wait "$SBATCH_PID" 2>/dev/null || true; fi
    # Jobs first, while slurmctld and slurmd can still end their steps.
    if [ -f "$S/slurmctld.pid" ] && [ -f "$S/slurmd.pid" ]; then
        timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
        for i in $(seq 1 50); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    # slurmd, slurmctld, munged, in that order (daemons wrote their pids).
    for ((i = ${#DAEMON_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${DAEMON_PIDS[i]}"; done
}
trap 'slurm_stop; cleanup' EXIT
# A SIGKILL (ctest's timeout) runs no trap, and the daemons, detached, would
# outlive the test: a watchdog, detached too, waits for this shell to end
# (at most 400 s) and then stops whatever of this cluster is left: the
# sbatch client, the jobs, the daemons, each known by the pid file it wrote
# and by its command line naming $S; then it removes $T.
setsid -f bash -c '
    d=$2
    for _ in $(seq 1 400); do kill -0 "$1" 2> /dev/null || break; sleep 1; done
    [ -d "$d" ] || exit 0
    stop() { p=$(cat "$d/$1.pid" 2> /dev/null) && grep -qF "$d/" "/proc/$p/cmdline" 2> /dev/null && kill "$p"; }
    stop sbatch
    SLURM_CONF=$d/slurm.conf timeout 10 scancel --quiet --user=root
    for f in slurmd slurmctld munged; do stop "$f"; sleep 1; done
    rm -rf "$3"' long_slurm-watchdog "$$" "$S" "$T" > /dev/null 2>&1 < /dev/null

# start_daemon NAME PIDFILE COMMAND...: runs a daemon that forks into the
# background, and keeps the pid it writes.
start_daemon() {
    local name=$1 pidfile=$2 i
    shift 2
    "$@" || { echo "FAIL: $name did not start: $(tail -n 5 "$S/$name.log" 2>/dev/null)" >&2; exit 1; }
    for i in $(seq 1 100); do [ -s "$pidfile" ] && break; sleep 0.05; done
    [ -s "$pidfile" ] || { echo "FAIL: $name wrote no pid file: $(tail -n 5 "$S/$name.log" 2>/dev/null)" >&2; exit 1; }
    DAEMON_PIDS+=("$(cat "$pidfile")")
}

# munge: its own 1024-byte key, socket, pid, log and seed files.
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 status=none
chmod 0400 "$S/munge.key"
start_daemon munged "$S/munged.pid" munged --key-file="$S/munge.key" --socket="$S/munge.sock" \
    --pid-file="$S/munged.pid" --log-file="$S/munged.log" --seed-file="$S/munged.seed"
if munge -n -S "$S/munge.sock" | unmunge -S "$S/munge.sock" > /dev/null; then ok; else
    fail "munge: a credential made with our socket does not decode"; exit 1; fi

# Two free ports for slurmctld and slurmd. The cluster talks over loopback
# (NodeAddr, SlurmctldHost); with NoInAddrAny slurmd listens on 127.0.0.1
# only, while slurmctld (22.05) still listens on every address at its port,
# where only a munge credential made with this test's key is accepted.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cat > "$SLURM_CONF" <<EOF
ClusterName=volleytest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
CommunicationParameters=NoInAddrAny
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
start_daemon slurmctld "$S/slurmctld.pid" slurmctld -f "$SLURM_CONF"
start_daemon slurmd "$S/slurmd.pid" slurmd -f "$SLURM_CONF"
state=""
for i in $(seq 1 150); do
    state=$(timeout 5 sinfo -h -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
if [ "$state" = idle ]; then ok; else
    fail "the node is not idle after 30 s (sinfo: '$state'): $(tail -n 3 "$S/slurmctld.log") $(tail -n 3 "$S/slurmd.log")"
    exit 1
fi

# sbatch_run NAME [volley options, @URL@ for the URL]: a fresh server,
# slurm.sbatch as three tasks on the one node, waited for (its exit status
# in RC, results in $S/out/NAME), the server's counters in RECEIVED and
# ANSWERED, the server stopped. A task that was not ready by the start
# refuses to start: the machine being slow, not the script, so the job
# runs again with twice the lead (three tries).
sbatch_run() {
    local name=$1 lead=3
    shift
    for _ in 1 2 3; do
        start_target
        rm -rf "${S:?}/out/$name"
        RC=0
        VOLLEY=$VOLLEY VOLLEY_LEAD=$lead VOLLEY_RUN_ID="slurm-$name" VOLLEY_OUT="$S/out/$name" \
            timeout -s KILL 120 sbatch --wait --quiet -n 3 --ntasks-per-node=3 --time=2 \
            --output="$S/out/$name.log" --chdir="$S/out" "$SBATCH_FILE" "${@//@URL@/http://127.0.0.1:$PORT/}" &
        SBATCH_PID=$!
        echo "$SBATCH_PID" > "$S/sbatch.pid"
        wait "$SBATCH_PID" || RC=$?
        SBATCH_PID=""
        RECEIVED=$(target_stat received)
        ANSWERED=$(target_stat answered)
        stop_target
        grep -q 'not starting' "$S/out/$name"/shard-*.out 2>/dev/null || return 0
        echo "$name: a task was not ready by the start; again with $((lead * 2)) s ahead" >&2
        lead=$((lead * 2))
    done
}

# check_shards NAME: shard-0..2.json are shards 0, 1, 2 of 3 of run
# slurm-NAME, with one start time (the JSON's start_time too); each shard's
# count of completed requests in $S/out/NAME.counts.
check_shards() {
    python3 - "$S/out/$1" "slurm-$1" > "$S/out/$1.counts" <<'PY' || fail "$1: the shards' results"
import json, sys
d, rid = sys.argv[1], sys.argv[2]
starts, counts = set(), []
for i in range(3):
    r = json.load(open("%s/shard-%d.json" % (d, i)))
    run = r["run"]
    assert (run["id"], run["shard"], run["shards"]) == (rid, i, 3), run
    assert run["start_at"] is not None and r["start_time"] == run["start_at"], (run, r["start_time"])
    starts.add(run["start_at"])
    counts.append(str(r["requests"]["completed"]))
assert len(starts) == 1, starts
m = json.load(open(d + "/merged.json"))["run"]
assert (m["id"], m["shard"], m["shards"], m["start_at"]) == (rid, None, 3, starts.pop()), m
print(" ".join(counts))
PY
}

# -n: 3000 requests in all, exactly 1000 a shard.
sbatch_run exact -n 3000 -c 6 -t 1 @URL@
check_eq "$RC" 0 "exact: sbatch --wait's exit status (the job's)"
check_shards exact
check_eq "$(cat "$S/out/exact.counts")" "1000 1000 1000" "exact: each shard's completed requests"
check_eq "$(jget "$S/out/exact/merged.json" requests.completed)" 3000 "exact: merged completed"
check_eq "$(jget "$S/out/exact/merged.json" status.200)" 3000 "exact: merged status 200"
check_eq "$RECEIVED" 3000 "exact: server received"
check_eq "$ANSWERED" 3000 "exact: server answered"
check_grep "$S/out/exact.log" "^  3000 requests in [0-9.]+s, " "exact: the merged report in the job's output"

# -R with --hlog: the shards' interval logs merge too, and the merged count
# is what the server answered.
VOLLEY_HLOG=1 sbatch_run rate -R 300 -d 2s -c 6 -t 1 @URL@
if [ "$RC" = 0 ] || [ "$RC" = 3 ]; then ok; else fail "rate: sbatch --wait's exit status: $RC"; fi
check_shards rate
check_eq "$(jget "$S/out/rate/merged.json" requests.completed)" "$ANSWERED" "rate: merged completed = server answered"
check_ge "$(jget "$S/out/rate/merged.json" requests.completed)" 500 "rate: merged completed"
for i in 0 1 2; do check_grep "$S/out/rate/shard-$i.hlog" "run=slurm-rate shard=$i/3" "rate: shard $i's hlog header"; done
check_grep "$S/out/rate/merged.hlog" "^#\[StartTime: " "rate: merged hlog"
finish
