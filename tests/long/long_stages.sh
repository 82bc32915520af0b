# --stages with -R at the server (make test-long; about 20 s): a ramp 0 ->
# 2000/s over 4 s, then 2 s flat; the server's arrivals per 200 ms follow
# the curve within 5 % (plus a few requests of scheduling jitter at the
# bins' edges). This is the machine's timing (when a loaded machine lets
# volley send and the server read), so the case is tried up to three
# times and passes if one try follows the curve (a schedule that does not
# follow it fails every try). The default suite proves the schedule's due
# times against the curve without a clock (tests/unit/load/test_schedule.c,
# test_curve) and the counts (tests/integration/run/test_stages.sh).
source "$TESTLIB"

for try in 1 2 3; do
    start_target --timing-log "$T/open.log"
    run_volley open -R 0 --stages 4s:2000,2s:2000 -c 20 -t 2 "http://127.0.0.1:$PORT/"
    stop_target
    check_rate_rc "-R ramp: exit status"
    if python3 - "$T/open.log" > "$T/open.py" 2>&1 <<'PY'
import sys
ts = sorted(int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("r "))
assert abs(len(ts) - 8000) <= 1, ("total", len(ts))
# Arrival k is due when N(t) = 1000 t^2 / 4 (t <= 4 s) reaches k: the
# first at t = 0. The server's clock and volley's are the same monotonic
# clock, but its t0 is unknown here: take the first arrival as t = 0.
def N(t):
    return 250.0 * t * t if t <= 4 else 4000 + 2000 * (t - 4)
t0 = ts[0]
bins = [0] * 30
for t in ts:
    b = (t - t0) // 200_000_000
    if b < 30:
        bins[b] += 1
bad = []
for i, n in enumerate(bins):
    want = N((i + 1) * 0.2) - N(i * 0.2)
    if abs(n - want) > 0.05 * want + 3:
        bad.append((i, n, want))
assert not bad, bad
PY
    then
        ok
        break
    fi
    if [ "$try" = 3 ]; then
        fail "-R ramp: the server's arrivals against the curve, three tries: $(tail -c 400 "$T/open.py")"
    else
        echo "-R ramp: try $try did not follow the curve at the server: $(tail -c 400 "$T/open.py"); again" >&2
    fi
done
finish
