#!/bin/bash
# Runs one volley run as N shards with GNU parallel, on this machine or on
# hosts reached over ssh (--sshlogin), then merges the shards' results.
# The start time is resolved once here, so every shard starts on the same
# instant (over ssh the hosts' clocks must agree: NTP or chrony).
#
#   parallel.sh [options] -- VOLLEY_OPTIONS... URL
#
#   -j N        number of shards (default: the number of --source items,
#               else the number of ssh logins, else 3)
#   -S LOGINS   comma-separated ssh logins for GNU parallel's --sshlogin
#               (`load1,load2`, `user@10.0.0.7`; `:` is this machine).
#               Default: local processes, no ssh
#   -s SOURCES  space-separated local addresses, one item per shard, given
#               to that shard as --source (an item may itself be a list or a
#               range: '10.0.0.5 10.0.0.6' or '127.0.0.2-127.0.0.9 127.0.1.2')
#   -o DIR      where the shards' results and the merged result go
#               (default ./volley-RUN_ID)
#   -b VOLLEY   volley's path on the machines running the shards (default
#               volley)
#   -m VOLLEY   volley's path here, for `volley merge` (default: as -b)
#   --start-at T   epoch seconds, or +DURATION from now (default +10s)
#   --run-id ID    default: the date, the time and 4 random hex digits
#
# Each shard writes its JSON result to stdout (`--json -`); parallel's
# --results keeps it as DIR/shard-I.json, with the shard's stderr in
# DIR/shard-I.err. Then `volley merge` prints the whole run's report and
# writes DIR/merged.json. Exit status: volley merge's when it refused or
# failed, else the number of shards that did not exit 0 (parallel's).
#
# GNU parallel substitutes its replacement strings ({}, {#}, {%}, {.}, ...)
# in the command: keep them out of the volley options.
set -euo pipefail

usage() { sed -n '7,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "parallel.sh: $*" >&2; exit 2; }

shards="" logins="" sources="" out="" volley=volley merger="" start_at=+10s run_id=""
while [ $# -gt 0 ]; do
    case $1 in
        -j|-S|-s|-o|-b|-m|--start-at|--run-id) [ $# -ge 2 ] || die "$1 needs a value" ;;
    esac
    case $1 in
        -j) shards=$2; shift 2 ;;
        -S) logins=$2; shift 2 ;;
        -s) sources=$2; shift 2 ;;
        -o) out=$2; shift 2 ;;
        -b) volley=$2; shift 2 ;;
        -m) merger=$2; shift 2 ;;
        --start-at) start_at=$2; shift 2 ;;
        --run-id) run_id=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) usage ;;
        *) die "unknown option $1 (the volley options go after --)" ;;
    esac
done
[ $# -gt 0 ] || usage
command -v parallel > /dev/null || die "GNU parallel is not installed (Debian: apt-get install parallel)"
merger=${merger:-$volley}

read -r -a source_list <<< "$sources"
if [ -z "$shards" ]; then
    if [ ${#source_list[@]} -gt 0 ]; then
        shards=${#source_list[@]}
    elif [ -n "$logins" ]; then
        shards=$(awk -F, '{ print NF }' <<< "$logins")
    else
        shards=3
    fi
fi
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "-j: \"$shards\" is not a number of shards"
if [ ${#source_list[@]} -gt 0 ] && [ ${#source_list[@]} -ne "$shards" ]; then
    die "-s: ${#source_list[@]} source items for $shards shards (one item per shard)"
fi

# The start: resolved once, to epoch seconds with milliseconds.
now=$(date +%s.%N)
case $start_at in
    +*)
        start=$(awk -v now="$now" -v d="${start_at#+}" 'BEGIN {
            if (match(d, /^[0-9]+(\.[0-9]+)?/) == 0) exit 1
            n = substr(d, 1, RLENGTH); u = substr(d, RLENGTH + 1)
            if (u == "ms") n /= 1000; else if (u == "m") n *= 60; else if (u == "h") n *= 3600
            else if (u != "s" && u != "") exit 1
            printf "%.3f\n", now + n }') || die "--start-at: \"$start_at\" is not +DURATION (+10s, +500ms, +2m)"
        ;;
    *)
        [[ $start_at =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--start-at: \"$start_at\" is not epoch seconds or +DURATION"
        start=$start_at
        ;;
esac
if [ -z "$run_id" ]; then
    run_id=$(date -u +%Y%m%d-%H%M%S)-$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
fi
[[ $run_id =~ ^[A-Za-z0-9._-]{1,64}$ ]] || die "--run-id: \"$run_id\" is not 1 to 64 letters, digits, '.', '_' or '-'"
out=${out:-volley-$run_id}
mkdir -p "$out"

# All shards must run at once: as many job slots as shards (per host over
# ssh, rounded up, since parallel spreads the jobs over the hosts).
popts=(--will-cite -q --halt never --joblog "$out/joblog")
if [ -n "$logins" ]; then
    hosts=$(awk -F, '{ print NF }' <<< "$logins")
    popts+=(--sshlogin "$logins" -j $(((shards + hosts - 1) / hosts)))
else
    popts+=(-j "$shards")
fi
# {shard} is the job's sequence number minus 1: 0..N-1, in input order.
popts+=(--rpl '{shard} $_ = $job->seq() - 1' --results "$out/shard-{shard}")

cmd=("$volley" --shard "{shard}/$shards" --start-at "$start" --run-id "$run_id" --json -)
if [ ${#source_list[@]} -gt 0 ]; then
    cmd+=(--source "{}")
    inputs=("${source_list[@]}")
else
    mapfile -t inputs < <(seq 1 "$shards")
fi
cmd+=("$@")

echo "parallel.sh: run $run_id, $shards shards, start at $start, results in $out" >&2
prc=0
parallel "${popts[@]}" "${cmd[@]}" ::: "${inputs[@]}" || prc=$?

# parallel kept stdout as shard-I, stderr as shard-I.err, the job's number as
# shard-I.seq. A shard that wrote nothing (it refused to start, say) leaves
# no result, and merge names it as missing.
files=()
for ((i = 0; i < shards; i++)); do
    rm -f "$out/shard-$i.seq"
    if [ -s "$out/shard-$i" ]; then
        mv "$out/shard-$i" "$out/shard-$i.json"
        files+=("$out/shard-$i.json")
    else
        rm -f "$out/shard-$i"
    fi
    if [ -s "$out/shard-$i.err" ]; then
        sed "s/^/shard $i: /" "$out/shard-$i.err" >&2
    fi
done
if [ "$prc" -gt "$shards" ]; then
    echo "parallel.sh: GNU parallel failed (exit status $prc)" >&2
elif [ "$prc" -gt 0 ]; then
    echo "parallel.sh: $prc of $shards shards did not exit 0 (see $out/joblog)" >&2
fi

mrc=0
"$merger" merge "${files[@]}" --json "$out/merged.json" || mrc=$?
[ "$mrc" -ne 0 ] && exit "$mrc"
exit "$prc"
