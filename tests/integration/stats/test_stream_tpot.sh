#!/usr/bin/env bash
# The token figures of streams computed by hand from the same reads: a
# script logs every token event's ev.t (ns-exact) and the server's usage
# count per request; TTFT (first token), ITL (each gap) and TPOT ((last -
# first) / (tokens - 1), in whole ns) computed from that log must equal the
# JSON's histograms exactly in count, min, max and sum; tokens_out the
# usage counts' sum. Closed loop and -R (then TTFT counts from the due time,
# and service_ttft from the first byte written, after the request's start
# that ev.t counts from: it is bounded by the hand's figures instead).
source "$TESTLIB"

start_target --llm-first-ms 2 --llm-gap-ms 3
URL=http://127.0.0.1:$PORT/

check_run() { # name, extra options
    local name=$1
    shift
    rm -f "$T/hand.$name".*
    HAND_LOG=$T/hand.$name run_volley "$name" -c 3 -n 30 -s "$(dirname "$TESTLIB")/lua/stream_hand.lua" --json "$T/$name.json" "$@" "$URL"
    case " $* " in
    *" -R "*) check_rate_rc "$name: exit status" ;; # 3: the rate not met on a loaded machine
    *) check_eq "$RC" 0 "$name: exit status" ;;
    esac
    python3 - "$T/$name.json" "$T/hand.$name" "$name" <<'PY' || fail "$name: the figures by hand"
import glob, json, sys
s = json.load(open(sys.argv[1]))["stream"]
reqs = {}
for f in glob.glob(sys.argv[2] + ".*"):
    for line in open(f):
        rid, kind, v = line.split()
        r = reqs.setdefault(rid, {"t": [], "u": None})
        if kind == "t":
            r["t"].append(round(float(v) * 1000))  # ns
        else:
            r["u"] = int(v)
assert len(reqs) == 30, len(reqs)
ttft = [r["t"][0] for r in reqs.values()]
itl = [b - a for r in reqs.values() for a, b in zip(r["t"], r["t"][1:])]
tpot = [(r["t"][-1] - r["t"][0]) // (r["u"] - 1) for r in reqs.values() if r["u"] > 1]
assert all(len(r["t"]) == r["u"] and r["u"] in (3, 9) for r in reqs.values()), reqs
assert s["tokens_out"] == sum(r["u"] for r in reqs.values()), s["tokens_out"]
assert s["usage_streams"] == s["token_streams"] == 30, s
def figures(h):
    return (h["count"], round(h["min"] * 1000), round(h["max"] * 1000), int(h["sum"]))
for name, vals in (("itl", itl), ("tpot", tpot)) + ((("ttft", ttft),) if sys.argv[3] == "closed" else ()):
    got, want = figures(s[name]), (len(vals), min(vals), max(vals), sum(vals))
    assert got == want, (name, got, want)
if sys.argv[3] == "open":
    # service_ttft counts from the first byte written, ev.t from the request's
    # start, which comes first (the connect, or the moment the arrival was
    # taken): never more than ev.t's first token, each.
    n, lo, hi, total = figures(s["service_ttft"])
    assert n == len(ttft) and lo <= min(ttft) and hi <= max(ttft) and total <= sum(ttft), (figures(s["service_ttft"]), ttft)
PY
    ok
}

check_run closed
check_run open -R 100
finish
