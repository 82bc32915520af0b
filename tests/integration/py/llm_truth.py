#!/usr/bin/python3
"""The truth log of the LLM test servers (volley-target --llm-log,
llm_server.py --llm-log), read back, and compared with what a client
measured.

Truth log lines (times: CLOCK_MONOTONIC ns; see tests/target/README.md):
    q ID CONN T        the request was fully read
    e ID K T BYTES     an event was written: K = 0 role, 1..N tokens,
                       f finish, u usage, d [DONE], x error
    z ID T HOW         the response ended: done, error, cut, client-gone,
                       nodone, shutdown
    s FROM TO          (first line, with --llm-stall-all-at-ms) the window
                       in which no stream's step falls due

Client log lines (what volley's tests write from a Lua hook):
    ID K T_US          token K's event arrived T_US microseconds after the
                       client started the request (other K are ignored)

Per request: ttft_ns (the first token's write - q), the gaps between
token writes, the number of token events, how it ended; against a client
log: ttft error (client first token - truth ttft) and one error per gap
(client gap - truth gap), with p50/p99/max over all requests.

CLI: llm_truth.py TRUTH [--client CLIENT] [--json]
Standard library only."""
import argparse
import json
import sys


class Request:
    def __init__(self, rid, conn, q_ns):
        self.id = rid
        self.conn = conn
        self.q_ns = q_ns
        self.events = []         # (k, t_ns, bytes); k an int for tokens, else a letter
        self.end_ns = None
        self.how = None

    def tokens(self):
        return [(k, t) for k, t, _ in self.events if isinstance(k, int) and k >= 1]

    def ttft_ns(self):
        toks = self.tokens()
        return toks[0][1] - self.q_ns if toks else None

    def gaps_ns(self):
        toks = self.tokens()
        return [b[1] - a[1] for a, b in zip(toks, toks[1:])]

    def summary(self):
        return {"id": self.id, "conn": self.conn, "ttft_ns": self.ttft_ns(),
                "gaps_ns": self.gaps_ns(), "tokens": len(self.tokens()),
                "events": [str(k) for k, _, _ in self.events], "how": self.how}


def read_truth(path, windows=None):
    """The requests of a truth log, in the order they were read. A line
    belongs to the latest request of its ID that has not ended yet; s lines
    go to windows (a list) as (from, to). Raises ValueError, naming the
    line, on a line that does not parse."""
    reqs, open_by_id = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            try:
                if p[0] == "q" and len(p) == 4:
                    r = Request(p[1], int(p[2]), int(p[3]))
                    reqs.append(r)
                    open_by_id.setdefault(p[1], []).append(r)
                elif p[0] == "e" and len(p) == 5:
                    k = int(p[2]) if p[2].isdigit() else p[2]
                    open_by_id[p[1]][-1].events.append((k, int(p[3]), int(p[4])))
                elif p[0] == "s" and len(p) == 3:
                    if windows is not None:
                        windows.append((int(p[1]), int(p[2])))
                elif p[0] == "z" and len(p) == 4:
                    r = open_by_id[p[1]].pop()
                    r.end_ns, r.how = int(p[2]), p[3]
                else:
                    raise ValueError
            except (ValueError, IndexError, KeyError):
                raise ValueError("%s:%d: not a truth log line: %r" % (path, n, line.rstrip("\n")))
    return reqs


def read_client(path):
    """{ID: [(k, t_us), ...]} of a client log's token lines, in file order."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if not p:
                continue
            if len(p) != 3:
                raise ValueError("%s:%d: not 'ID K T_US': %r" % (path, n, line.rstrip("\n")))
            if p[1].isdigit() and int(p[1]) >= 1:
                out.setdefault(p[0], []).append((int(p[1]), float(p[2])))
    return out


def compare(reqs, client):
    """Per request found in both logs (by ID; IDs used by more than one
    truth request are skipped as ambiguous): {"id", "ttft_err_ns",
    "itl_err_ns": [...]}. Also returns the IDs missing on either side."""
    count = {}
    for r in reqs:
        count[r.id] = count.get(r.id, 0) + 1
    rows, missing = [], []
    for r in reqs:
        if count[r.id] > 1 or r.id == "-":
            continue
        c = client.get(r.id)
        truth = dict(r.tokens())
        if not c or not truth:
            if truth:
                missing.append(r.id)
            continue
        c = sorted(c)
        row = {"id": r.id, "ttft_err_ns": None, "itl_err_ns": []}
        if c[0][0] == min(truth):
            row["ttft_err_ns"] = round(c[0][1] * 1000) - (truth[c[0][0]] - r.q_ns)
        for (k1, t1), (k2, t2) in zip(c, c[1:]):
            if k2 == k1 + 1 and k1 in truth and k2 in truth:
                row["itl_err_ns"].append(round((t2 - t1) * 1000) - (truth[k2] - truth[k1]))
        rows.append(row)
    missing += [i for i in client if i not in count]
    return rows, missing


def percentiles(values):
    """{"n", "p50", "p99", "max"} (nearest rank); None values are dropped."""
    v = sorted(x for x in values if x is not None)
    if not v:
        return {"n": 0, "p50": None, "p99": None, "max": None}

    def rank(p):
        return v[min(len(v) - 1, max(0, -(-p * len(v) // 100) - 1))]
    return {"n": len(v), "p50": rank(50), "p99": rank(99), "max": v[-1]}


def report(reqs, rows=None):
    out = {"requests": [r.summary() for r in reqs],
           "ttft_ns": percentiles(r.ttft_ns() for r in reqs),
           "gap_ns": percentiles(g for r in reqs for g in r.gaps_ns())}
    if rows is not None:
        out["ttft_err_ns"] = percentiles(r["ttft_err_ns"] for r in rows)
        out["itl_err_ns"] = percentiles(e for r in rows for e in r["itl_err_ns"])
        out["compared"] = len(rows)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description="Read an LLM truth log; compare a client log with it.")
    ap.add_argument("truth")
    ap.add_argument("--client", help="client log: ID K T_US per token event")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    try:
        reqs = read_truth(a.truth)
        rows, missing = compare(reqs, read_client(a.client)) if a.client else (None, [])
    except (OSError, ValueError) as e:
        print("llm_truth: %s" % e, file=sys.stderr)
        return 2
    rep = report(reqs, rows)
    if a.client:
        rep["missing"] = missing
    if a.json:
        print(json.dumps(rep))
        return 0
    for r in rep["requests"]:
        print("%s conn=%s tokens=%d ttft_ns=%s how=%s" % (r["id"], r["conn"], r["tokens"], r["ttft_ns"], r["how"]))
    for key in ("ttft_ns", "gap_ns", "ttft_err_ns", "itl_err_ns"):
        if key in rep:
            s = rep[key]
            print("%s: n=%d p50=%s p99=%s max=%s" % (key, s["n"], s["p50"], s["p99"], s["max"]))
    if missing:
        print("missing on one side: %s" % " ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
