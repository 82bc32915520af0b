#!/bin/sh
# Renders k8s-job.yaml for one volley run: picks the start time (now plus a
# lead long enough for every pod to be scheduled and pull its image) and the
# run id, fills in the template and prints the manifest on stdout, or hands
# it to `kubectl apply -f -` with --apply.
#
#   k8s-launch.sh [options] -- VOLLEY_OPTIONS... URL
#
#   -n N        shards, one pod each (default 3)
#   -i IMAGE    an image with volley on its PATH (default volley:latest)
#   -l SECONDS  from now to the start (default 60)
#   -w SECONDS  the longest the run may take once started (default 900): the
#               Job's deadline, and how long the merge Job waits for shards
#   -c CPU      CPU request of each pod (default 1)
#   -r RUN_ID   letters, digits, ._- (default: the date, the time and 4
#               random hex digits)
#   -f FILE     the template (default: k8s-job.yaml next to this script)
#   --apply     run `kubectl apply -f -` on the manifest instead of printing
#
# The run id and the start time are printed on stderr.
set -eu

usage() { sed -n '7,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "k8s-launch.sh: $*" >&2; exit 2; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; }

shards=3 image=volley:latest lead=60 wait=900 cpu=1 run_id="" apply=0
template=$(dirname "$0")/k8s-job.yaml
while [ $# -gt 0 ]; do
    case $1 in
        -n|-i|-l|-w|-c|-r|-f) [ $# -ge 2 ] || die "$1 needs a value" ;;
    esac
    case $1 in
        -n) shards=$2; shift 2 ;;
        -i) image=$2; shift 2 ;;
        -l) lead=$2; shift 2 ;;
        -w) wait=$2; shift 2 ;;
        -c) cpu=$2; shift 2 ;;
        -r) run_id=$2; shift 2 ;;
        -f) template=$2; shift 2 ;;
        --apply) apply=1; shift ;;
        --) shift; break ;;
        -h|--help) usage ;;
        *) die "unknown option $1 (the volley options go after --)" ;;
    esac
done
[ $# -gt 0 ] || usage
{ isnum "$shards" && [ "$shards" -ge 1 ]; } || die "-n: \"$shards\" is not a number of shards"
isnum "$lead" || die "-l: \"$lead\" is not a number of seconds"
isnum "$wait" || die "-w: \"$wait\" is not a number of seconds"
[ -r "$template" ] || die "$template: cannot read the template"

if [ -z "$run_id" ]; then
    run_id=$(date -u +%Y%m%d-%H%M%S)-$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
fi
case $run_id in
    *[!A-Za-z0-9._-]*) die "-r: \"$run_id\" has characters other than letters, digits and ._-" ;;
esac
[ ${#run_id} -le 64 ] || die "-r: \"$run_id\" is longer than 64 characters"

# Kubernetes names: lowercase letters, digits and '-', short enough that
# NAME-merge and the pods' names fit in 63 characters.
name=volley-$(printf '%s' "$run_id" | tr 'A-Z._' 'a-z--' | cut -c1-40 | sed 's/-*$//')

start=$(($(date +%s) + lead))

# The volley options, one YAML list item each: double-quoted, with '\',
# '"', tabs, CRs and newlines escaped for YAML, and '$' doubled so that
# Kubernetes does not expand a $(...) in them.
args=""
for a in "$@"; do
    q=$(printf '%sX' "$a" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\$/$$/g' -e 's/\t/\\t/g' -e 's/\r/\\r/g' |
        sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g')
    q=${q%X}
    args="$args- \"$q\"
"
done

render() {
    NAME=$name RUN_ID=$run_id SHARDS=$shards START_AT=$start IMAGE=$image CPU=$cpu \
    DEADLINE=$((lead + wait)) WAIT_UNTIL=$((start + wait)) MERGE_DEADLINE=$((lead + wait + 300)) \
    VOLLEY_ARGS=$args awk -v known=" NAME RUN_ID SHARDS START_AT IMAGE CPU DEADLINE WAIT_UNTIL MERGE_DEADLINE " '
        /^ *# VOLLEY_ARGS$/ {
            indent = $0; sub(/#.*/, "", indent)
            n = split(ENVIRON["VOLLEY_ARGS"], lines, "\n")
            for (i = 1; i <= n; i++) if (lines[i] != "") print indent lines[i]
            next
        }
        {
            out = ""
            while (match($0, /\$\{[A-Z_]+\}/)) {
                key = substr($0, RSTART + 2, RLENGTH - 3)
                if (index(known, " " key " ") == 0) {
                    print "k8s-launch.sh: unknown placeholder ${" key "}" > "/dev/stderr"
                    exit 1
                }
                out = out substr($0, 1, RSTART - 1) ENVIRON[key]
                $0 = substr($0, RSTART + RLENGTH)
            }
            print out $0
        }' "$template"
}

echo "k8s-launch.sh: run $run_id (Jobs $name and $name-merge), $shards shards, start at $start ($(date -u -d "@$start" '+%Y-%m-%d %H:%M:%S UTC'))" >&2
if [ "$apply" = 1 ]; then
    manifest=$(render)
    printf '%s\n' "$manifest" | kubectl apply -f -
    echo "k8s-launch.sh: the merged report: kubectl logs -f job/$name-merge" >&2
else
    render
fi
