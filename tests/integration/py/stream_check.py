#!/usr/bin/python3
"""What volley saw of a run of streams (tests/integration/lua/stream_log.lua's
client log) against the server's truth log (llm_truth.py reads it), for the
stream tests (tests/integration/conn/test_stream_*.sh):

  - every response volley completed (an `r` line) is a request of the truth
    log, and volley was handed exactly the events the server wrote for it,
    of the same kinds in the same order (with --prefix: the first ones, for
    streams the client ended early); its res.events is that count;
  - causality, on one clock (CLOCK_MONOTONIC): every event's ev.t (from the
    request's start) is at least the server's write time less the time it
    read the request (the request started before the server read it, and
    an event is read after it is written); volley.now() in the event hook
    is after the write; request() ran before the server read the request;
  - the time to first token as volley measured it less the server's
    (first token write - request read), and per token gap the same: printed
    as p50/p99/max (never asserted: the bound is the benchmark's), with
    the two parts of the TTFT error one can see from outside: request()
    to the server's read, and an event's write to its hook's call.

CLI: stream_check.py TRUTH CLIENT [--prefix] [--requests N]
Prints `requests R events E` and the error lines; one `FAIL: ...` line per
failed check (at most 20) and exit 1 if any."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_truth  # noqa: E402


def read_client(path):
    """{id: {"q": now_us, "events": [(kind, t_us, now_us)], "r": (status, events)}}"""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if len(p) < 3:
                raise ValueError("%s:%d: not a client line: %r" % (path, n, line))
            r = out.setdefault(p[0], {"q": None, "events": [], "r": None})
            if p[1] == "q":
                r["q"] = float(p[2])
            elif p[1] == "e":
                r["events"].append((p[2], float(p[3]), float(p[4])))
            elif p[1] == "r":
                r["r"] = (int(p[2]), int(p[3]))
    return out


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("client")
    ap.add_argument("--prefix", action="store_true", help="volley ended the streams early: a prefix of the truth")
    ap.add_argument("--requests", type=int, help="how many responses volley must have completed")
    a = ap.parse_args(argv)
    truth = {}
    for r in llm_truth.read_truth(a.truth):
        if r.id in truth:
            print("FAIL: request id %s twice in the truth log" % r.id)
            return 1
        truth[r.id] = r
    client = read_client(a.client)
    fails = []
    done = [i for i, c in client.items() if c["r"] is not None]
    if a.requests is not None and len(done) != a.requests:
        fails.append("%d responses completed, %d expected" % (len(done), a.requests))
    events = 0
    compared, send, late = {}, [], []
    for i in sorted(done):
        c, t = client[i], truth.get(i)
        if t is None:
            fails.append("%s: completed by volley, not in the truth log" % i)
            continue
        kinds = [k for k, _, _ in c["events"]]
        tk = [str(k) for k, _, _ in t.events]
        if kinds != (tk[:len(kinds)] if a.prefix else tk):
            fails.append("%s: volley saw events %s, the server wrote %s" % (i, " ".join(kinds), " ".join(tk)))
            continue
        if c["r"][1] != len(kinds):
            fails.append("%s: res.events %d, event() called %d times" % (i, c["r"][1], len(kinds)))
        events += len(kinds)
        if c["q"] * 1000 > t.q_ns:
            fails.append("%s: request() ran at %.0f ns, after the server read it (%d)" % (i, c["q"] * 1000, t.q_ns))
        send.append(t.q_ns - c["q"] * 1000)
        for (k, t_us, now_us), (_, w_ns, _) in zip(c["events"], t.events):
            late.append(now_us * 1000 - w_ns)
            if round(t_us * 1000) < w_ns - t.q_ns:
                fails.append("%s: event %s at %.3f us from the start, written %d ns after the request was read"
                             % (i, k, t_us, w_ns - t.q_ns))
            if now_us * 1000 < w_ns:
                fails.append("%s: event %s handed to the hook at %.0f ns, before it was written (%d)"
                             % (i, k, now_us * 1000, w_ns))
        toks = [(int(k), t_us) for k, t_us, _ in c["events"] if k.isdigit() and int(k) >= 1]
        if toks:
            compared[i] = toks
    # the errors as llm_truth.py computes them (its client log's form)
    rows, _ = llm_truth.compare([truth[i] for i in compared], compared)
    ttft_err = [r["ttft_err_ns"] for r in rows]
    gap_err = [e for r in rows for e in r["itl_err_ns"]]
    print("requests %d events %d" % (len(done), events))
    for name, v in (("ttft_err_us", ttft_err), ("itl_err_us", gap_err), ("request_to_server_us", send),
                    ("write_to_hook_us", late)):
        p = llm_truth.percentiles(v)
        if p["n"]:
            print("%s n=%d p50=%.1f p99=%.1f max=%.1f" % (name, p["n"], p["p50"] / 1e3, p["p99"] / 1e3, p["max"] / 1e3))
    for f in fails[:20]:
        print("FAIL: " + f)
    if len(fails) > 20:
        print("FAIL: ... and %d more" % (len(fails) - 20))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
