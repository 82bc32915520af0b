# Streams under the open model (-R), and a stall inside one stream.
#
# 1. Every stream of the server pauses 1 s (--llm-stall-all-at-ms T
#    --llm-stall-all-ms 1000: no token falls due in the window) while
#    volley sends 500 streams a second on 24 connections: the connections
#    fill with paused streams and the arrivals due meanwhile wait for one.
#    Timed from when they were due (stream.first_event, stream.ttft), about
#    a sixth of the run's streams took most of the window more: the tail
#    shows it. Timed from their first byte written (the service twins), only
#    the streams already on the wire, at most 24 of 4000 (0.6 %), waited:
#    their p99 stays under a third of the window (as
#    tests/integration/run/test_open_model.sh does for requests). The
#    bounds come from the window the server logged (its truth log's `s`
#    line), with margins for a loaded 2-core machine.
# 2. One stream stalls 1 s before token 5 (vt_stall_at, vt_stall_ms): the
#    gap volley measured across the stall, from the hook's ev.t and in the
#    JSON's event_gap and itl max, is at least the server's write gap less
#    how late volley read the event before it (its hook ran after it was
#    read: an upper bound, known), a causal bound, not a duration.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/stream_lib.sh"

# 1. The open model.
start_target --llm-log "$T/open.truth" --llm-stall-all-at-ms 2500 --llm-stall-all-ms 1000
STREAM_KNOBS='"max_tokens":3,"vt_first_ms":2,"vt_gap_ms":1' run_volley open -s "$STREAM_LUA" \
    -R 500 -d 8s -c 24 -t 2 "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_rate_rc "open: exit status ($(tail -n 2 "$T/open.err"))"
python3 - "$STREAM_DIR/py" "$T/open.truth" "$T/open.json" <<'PY' && ok || fail "open: the stall in the tail from the due time, not in the service time"
import json, sys
sys.path.insert(0, sys.argv[1])
import llm_truth
w = []
reqs = llm_truth.read_truth(sys.argv[2], w)
(a, b), = w
stall_us = (b - a) / 1e3
# the window fell inside the run: streams read before it and after it
assert any(r.q_ns < a for r in reqs) and any(r.q_ns > b for r in reqs), "the stall window is not inside the run"
s = json.load(open(sys.argv[3]))["stream"]
print("stall window %.0f ms; streams %d" % (stall_us / 1e3, s["streams"]))
for h in ("first_event", "ttft", "service_first_event", "service_ttft"):
    print("%-20s p50 %9.1f  p99 %9.1f  max %9.1f us" % (h, s[h]["p50"], s[h]["p99"], s[h]["max"]))
assert s["streams"] >= 3000, s["streams"]
for h in ("first_event", "ttft"):
    assert s[h]["count"] == s["streams"], (h, s[h]["count"])
    assert s[h]["p99"] >= stall_us / 2, (h, s[h]["p99"], stall_us)
for h in ("service_first_event", "service_ttft"):
    assert s[h]["count"] == s["streams"], (h, s[h]["count"])
    assert s[h]["p99"] < stall_us / 3, (h, s[h]["p99"], stall_us)
# the stall is in the service twin's max (a stream on the wire waited it
# out) but not in its p99
assert s["service_ttft"]["max"] >= stall_us / 2, s["service_ttft"]["max"]
PY

# 2. A stall of 1 s before token 5, in 2 streams of 8 tokens 2 ms apart.
start_target --llm-log "$T/stall.truth"
run_stream stall '"max_tokens":8,"vt_gap_ms":2,"vt_stall_at":5,"vt_stall_ms":1000' -n 2 -c 1 -t 1 \
    "http://127.0.0.1:$PORT/"
stop_wait "$TPID"
check_eq "$RC" 0 "stall: exit status ($(tail -n 2 "$T/stall.err"))"
check_stream stall "$T/stall.truth" --requests 2
python3 - "$STREAM_DIR/py" "$T/stall.truth" "$T/stall.cl" "$T/stall.json" <<'PY' && ok || fail "stall: the gap across the stall"
import json, sys
sys.path.insert(0, sys.argv[1])
import llm_truth, stream_check
truth = {r.id: r for r in llm_truth.read_truth(sys.argv[2])}
client = stream_check.read_client(sys.argv[3])
s = json.load(open(sys.argv[4]))["stream"]
bounds = []
for rid, c in client.items():
    t = truth[rid]
    w = {str(k): ns for k, ns, _ in t.events}
    ev = {k: (t_us, now_us) for k, t_us, now_us in c["events"]}
    truth_gap = w["5"] - w["4"]
    assert truth_gap >= 1_000_000_000, truth_gap            # the knob's own guarantee
    late4 = ev["4"][1] * 1000 - w["4"]                       # token 4 read at most this late
    gap = (ev["5"][0] - ev["4"][0]) * 1000                   # volley's gap, from ev.t
    print("%s: server gap %.3f ms, volley's %.3f ms, token 4 read at most %.3f ms late"
          % (rid, truth_gap / 1e6, gap / 1e6, late4 / 1e6))
    assert gap >= truth_gap - late4 - 1, (rid, gap, truth_gap, late4)
    bounds.append(truth_gap - late4)
# the core's own histograms (3 significant digits: 0.1 % of slack)
for h in ("event_gap", "itl"):
    print("JSON %s max %.1f us" % (h, s[h]["max"]))
    assert s[h]["max"] * 1000 >= max(bounds) * 0.999, (h, s[h]["max"], max(bounds))
PY

finish
