"""Checks an open-model run against a stalling server (coordinated omission).

usage: stall_check.py TIMING_LOG VOLLEY_JSON RATE STALLS MARGIN_MS

The expected corrected latencies are derived from the stall windows the
server logged (volley-target --timing-log): an arrival due inside a window
of length L waits for the window's end, so the R*L arrivals of a window see
latencies spread uniformly over (0, L]; every other arrival takes about
nothing. Only the first STALLS windows fall inside the run (a stall after
the last request delays nothing). Asserts: corrected p99 within MARGIN_MS of
the expected p99; p99.9 at least 90 % of the expected one; service-time p99
under a third of the shortest stall (only requests already written wait
out a stall; a third, not a few ms, so that a loaded machine's own delays
cannot fail it); the backlog's send lag reaching most of a stall.
"""
import json
import sys

log, result, rate, nstalls, margin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
stalls = [(int(a), int(b)) for _, a, b in (l.split() for l in open(log) if l.startswith("s "))][:nstalls]
assert len(stalls) == nstalls, stalls
r = json.load(open(result))
sent = r["requests"]["started"]
vals = []
for a, b in stalls:
    n = round((b - a) * rate / 1e9)
    vals += [(b - a) * (j + 0.5) / n / 1e6 for j in range(n)]
vals += [0.0] * (sent - len(vals))
vals.sort()


def q(p):
    return vals[max(1, int(p / 100 * len(vals) + 0.5)) - 1]


lat, service, lag = r["latency"], r["service"], r["sendlag"]
print("stalls %s ms; expected p99 %.1f p99.9 %.1f ms; volley p99 %.1f p99.9 %.1f ms, service p99 %.2f ms" % (
    [round((b - a) / 1e6) for a, b in stalls], q(99), q(99.9), lat["p99"] / 1e3, lat["p99.9"] / 1e3,
    service["p99"] / 1e3))
assert abs(lat["p99"] / 1e3 - q(99)) <= margin, ("p99", lat["p99"], q(99))
assert lat["p99.9"] / 1e3 >= 0.9 * q(99.9), ("p99.9", lat["p99.9"], q(99.9))
shortest = min(b - a for a, b in stalls) / 1e6
assert service["p99"] / 1e3 < shortest / 3, ("service p99", service, shortest)
assert lag["max"] / 1e3 >= 0.8 * shortest, ("send lag max", lag, shortest)
