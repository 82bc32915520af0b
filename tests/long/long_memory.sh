# Memory does not grow with the run's length (make test-long; 30 s): --hlog
# is written as the run goes and the series is spooled to a temporary file,
# so a 12 s run peaks where a 3 s run does. With 1 ms intervals at -R 2000
# on 2 threads a run hands over 6,000 encoded intervals a second; kept in
# memory until the end (as volley once did) that made the 12 s run's peak
# about 2.9 MB higher than the 3 s run's. At 10 ms and -R 200 the intervals
# are too small to rise above the start-up's peak either way; that run is
# measured and printed too. Peak RSS is the kernel's (VmHWM, as getrusage
# reports it for the child). Not under sanitizers, whose allocators keep
# freed memory on purpose.
source "$TESTLIB"
if [ "${SANITIZED:-OFF}" = ON ]; then
    echo "$(basename "$0"): skipped under sanitizers (their allocators keep freed memory)"
    exit 0
fi

start_target
url="http://127.0.0.1:$PORT/"

# peak D INTERVAL RATE: peak RSS in kB of a -d D run with --hlog.
peak() {
    python3 - "$VOLLEY" "$T" "$url" "$@" <<'PY'
import resource, subprocess, sys
volley, t, url, d, interval, rate = sys.argv[1:7]
rc = subprocess.call([volley, "-q", "--hlog", t + "/m.hlog", "--hlog-interval", interval, "-R", rate,
                      "-c", "4", "-t", "2", "-d", d, "--json", t + "/m.json", url], timeout=60)
if rc != 0:
    sys.exit("volley exited %d" % rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

for cfg in "10ms 200" "1ms 2000"; do
    set -- $cfg
    short=$(peak 3s "$1" "$2") || { fail "$cfg: the 3 s run failed"; continue; }
    long=$(peak 12s "$1" "$2") || { fail "$cfg: the 12 s run failed"; continue; }
    lines=$(grep -vc '^[#"]' "$T/m.hlog")
    echo "--hlog-interval $1 -R $2: peak RSS 3 s ${short} kB, 12 s ${long} kB (+$((long - short)) kB); 12 s log: $lines lines"
    check_ge "$lines" $((12000 / ${1%ms} * 9 / 10)) "$cfg: the 12 s log's intervals"
    # Noise is a few hundred kB; the old growth was ten times that.
    if [ $((long - short)) -lt 1024 ]; then ok; else fail "$cfg: peak RSS grew by $((long - short)) kB from 3 s to 12 s"; fi
done
stop_target
finish
