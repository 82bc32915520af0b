#!/usr/bin/python3
"""Checks an OpenAI-compatible test server (volley-target's /v1 paths or
llm_server.py) with llm_client.py, in two steps:

  llm_check.py run --port P --out OBS [--tls] [--cases a,b,...]
      sends each case's requests, checks the answers (event sequence and
      JSON exactly, framing, knobs) and writes what the client saw to OBS;
  llm_check.py verify --obs OBS --truth LOG [--stats STATS]
      once the server has exited: its truth log (llm_truth.read_truth)
      against what the client saw: the same events in the same order with
      the same sizes, each written no later than the client read it and no
      earlier than its request was read, the end of each response, and
      (--stats) the server's llm_* counters.

Times are only compared with each other (same clock), never with a fixed
number, except the lower bounds a knob guarantees (a stall of S ms leaves
at least S ms between two writes). Prints one line per failed check, exits
1 if any failed."""
import argparse
import json
import os
import re
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_client  # noqa: E402
import llm_truth   # noqa: E402
from llm_client import Conn, chat_body, completion_body  # noqa: E402

FAILS = []
OBS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def dumps(o):
    return json.dumps(o, separators=(",", ":"))


def expected_chat(sid, model, n, usage, prompt, done=True):
    """The data lines of a normal chat stream, as the servers write them
    (sid: the N of chatcmpl-N, None to match any)."""
    def ev(choices, extra=None):
        d = {"id": "chatcmpl-%s" % sid, "object": "chat.completion.chunk", "created": 0,
             "model": model, "choices": choices}
        d.update(extra or {})
        return dumps(d)
    out = [ev([{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}])]
    for i in range(1, n + 1):
        out.append(ev([{"index": 0, "delta": {"content": "tok%d " % i}, "logprobs": None, "finish_reason": None}]))
    out.append(ev([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "length"}]))
    if usage:
        out.append(ev([], {"usage": {"prompt_tokens": prompt, "total_tokens": prompt + n, "completion_tokens": n}}))
    if done:
        out.append("[DONE]")
    return out


def expected_completion(sid, model, n, usage, prompt):
    def ev(choices, extra=None):
        d = {"id": "cmpl-%s" % sid, "object": "text_completion", "created": 0, "model": model, "choices": choices}
        d.update(extra or {})
        return dumps(d)
    out = [ev([{"index": 0, "text": "tok%d " % i, "logprobs": None, "finish_reason": None}]) for i in range(1, n + 1)]
    out.append(ev([{"index": 0, "text": "", "logprobs": None, "finish_reason": "length"}]))
    if usage:
        out.append(ev([], {"usage": {"prompt_tokens": prompt, "total_tokens": prompt + n, "completion_tokens": n}}))
    out.append("[DONE]")
    return out


def sid_of(r):
    """The N of the stream's first event id (chatcmpl-N / cmpl-N)."""
    for e in r.events:
        if e.data.startswith("{") and '"id"' in e.data:
            return json.loads(e.data)["id"].split("-", 1)[1]
    return None


def label(e, ntok):
    """The truth log's K for an event the client read (ntok: tokens before it)."""
    if e.data == "[DONE]":
        return "d"
    try:
        d = json.loads(e.data)
    except ValueError:
        return str(ntok + 1)        # vt_bad_json's token events
    if "error" in d:
        return "x"
    if d.get("choices") == [] and "usage" in d:
        return "u"
    c = d["choices"][0]
    if c.get("finish_reason"):
        return "f"
    if "role" in c.get("delta", {}):
        return "0"
    text = c.get("text", c.get("delta", {}).get("content", ""))
    return re.match(r"tok(\d+)", text).group(1)


def record(case, rid, r, how, stream=True):
    """Keep what the client saw of response r for the verify step."""
    ks, ntok = [], 0
    events = [e for e in r.events if not e.comment]
    for e in events:
        k = label(e, ntok)
        ntok += k.isdigit() and k != "0"
        ks.append(k)
    OBS.append({"case": case, "id": rid, "stream": stream, "ks": ks, "bytes": [len(e.raw) for e in events],
                "arrive": [e.t_ns for e in events], "t_start": r.t_start, "how": how,
                "body_bytes": len(r.body)})


def is_sse(r, what):
    check(r.status == 200, "%s: status %s" % (what, r.status))
    check(r.headers.get("content-type", "").startswith("text/event-stream"),
          "%s: content-type %r" % (what, r.headers.get("content-type")))
    check(r.headers.get("cache-control") == "no-cache", "%s: cache-control %r" % (what, r.headers.get("cache-control")))


# ---- cases ------------------------------------------------------------------

def case_chat(port, tls):
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(3, usage=True, user="chat-1", model="m-1"))
    is_sse(r, "chat")
    exp = expected_chat(sid_of(r), "m-1", 3, True, 3)
    check(r.data() == exp, "chat: events\n  got  %s\n  want %s" % (r.data(), exp))
    check(all(e.raw.endswith(b"\n\n") and not e.raw.endswith(b"\n\n\n") for e in r.events), "chat: event ends")
    check(r.framing == "chunked" and r.complete, "chat: chunked and complete (%s %s)" % (r.framing, r.complete))
    # the role alone, then one chunk per token, the last with finish, usage and [DONE]
    check(len(r.chunks) == 4, "chat: %d chunks, want 4 (role, tok1, tok2, tok3+f+u+d)" % len(r.chunks))
    record("chat", "chat-1", r, "done")
    c.close()


def case_completion(port, tls):
    c = Conn(port, tls)
    r = c.request("/v1/completions", completion_body(2, usage=False, user="comp-1", model="m-2"))
    is_sse(r, "completion")
    exp = expected_completion(sid_of(r), "m-2", 2, False, 2)
    check(r.data() == exp, "completion: events\n  got  %s\n  want %s" % (r.data(), exp))
    check(len(r.chunks) == 2, "completion: %d chunks, want 2" % len(r.chunks))
    record("completion", "comp-1", r, "done")
    # usage on, the prompt's words counted, or vt_prompt_tokens
    r = c.request("/v1/completions", completion_body(1, usage=True, user="comp-2", prompt="a  b\tc\nd e"))
    exp = expected_completion(sid_of(r), "m", 1, True, 5)
    check(r.data() == exp, "completion usage: events\n  got  %s\n  want %s" % (r.data(), exp))
    record("completion", "comp-2", r, "done")
    c.close()


def case_usage(port, tls):
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(2, usage=False, user="usage-off"))
    check(r.data() == expected_chat(sid_of(r), "m", 2, False, 3), "usage off: %s" % r.data())
    record("usage", "usage-off", r, "done")
    r = c.request("/v1/chat/completions", chat_body(2, user="usage-none", vt_prompt_tokens=40))
    check(r.data() == expected_chat(sid_of(r), "m", 2, False, 40), "usage absent: %s" % r.data())
    record("usage", "usage-none", r, "done")
    r = c.request("/v1/chat/completions", chat_body(2, usage=True, user="usage-p", vt_prompt_tokens=40))
    check(r.data() == expected_chat(sid_of(r), "m", 2, True, 40), "vt_prompt_tokens: %s" % r.data())
    record("usage", "usage-p", r, "done")
    c.close()


def case_plain(port, tls):
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(3, stream=False, user="plain-1"))
    check(r.status == 200 and r.framing == "length", "plain: %s %s" % (r.status, r.framing))
    d = json.loads(r.body)
    check(d["object"] == "chat.completion" and d["choices"][0]["message"]["content"] == "tok1 tok2 tok3 "
          and d["choices"][0]["finish_reason"] == "length"
          and d["usage"] == {"prompt_tokens": 3, "total_tokens": 6, "completion_tokens": 3}, "plain: %s" % d)
    r = c.request("/v1/completions", completion_body(2, stream=False, user="plain-2"))
    d = json.loads(r.body)
    check(d["object"] == "text_completion" and d["choices"][0]["text"] == "tok1 tok2 "
          and d["usage"]["completion_tokens"] == 2, "plain completion: %s" % d)
    c.close()


def case_knobs(port, tls):
    c = Conn(port, tls)
    # vt_error_at: an error event instead of token 2, a proper end, no [DONE]
    r = c.request("/v1/chat/completions", chat_body(4, user="err-1", vt_error_at=2))
    data = r.data()
    check(len(data) == 3 and json.loads(data[2]) ==
          {"error": {"message": json.loads(data[2])["error"]["message"], "type": "server_error", "code": 500}}
          and r.complete and "[DONE]" not in data, "error_at: %s complete=%s" % (data, r.complete))
    record("knobs", "err-1", r, "error")
    # vt_nodone: a normal end without [DONE]
    r = c.request("/v1/chat/completions", chat_body(2, usage=True, user="nodone-1", vt_nodone=True))
    check(r.data() == expected_chat(sid_of(r), "m", 2, True, 3, done=False) and r.complete,
          "nodone: %s" % r.data())
    record("knobs", "nodone-1", r, "nodone")
    # vt_bad_json: the token events are not JSON
    r = c.request("/v1/chat/completions", chat_body(2, user="bad-1", vt_bad_json=True))
    data = r.data()
    check(data[1:3] == ["{not json", "{not json"] and data[-1] == "[DONE]", "bad_json: %s" % data)
    record("knobs", "bad-1", r, "done")
    # vt_stall_at / vt_stall_ms: token 3 written at least 150 ms after token 2
    # (the server's write times: verify checks them in the truth log)
    r = c.request("/v1/chat/completions", chat_body(4, user="stall-1", vt_stall_at=3, vt_stall_ms=150))
    check(len(r.data()) == 7, "stall: %s" % r.data())
    record("knobs", "stall-1", r, "done")
    OBS[-1]["min_gap"] = [3, 150 * 10**6]
    # vt_first_ms: at least that long from the request to the first token
    r = c.request("/v1/chat/completions", chat_body(1, user="first-1", vt_first_ms=100))
    toks = [e for e in r.events if '"content":"tok' in e.data]
    check(toks and toks[0].t_ns - r.t_start >= 100e6, "first_ms: first token too early")
    record("knobs", "first-1", r, "done")
    # vt_status: a JSON error answer, not streamed
    r = c.request("/v1/chat/completions", chat_body(2, user="status-1", vt_status=503))
    check(r.status == 503 and json.loads(r.body)["error"]["code"] == 503 and r.framing == "length",
          "status: %s %r" % (r.status, r.body))
    # the request id from X-Request-Id when there is no user field
    r = c.request("/v1/chat/completions", chat_body(1), headers={"X-Request-Id": "hdr-1"})
    record("knobs", "hdr-1", r, "done")
    c.close()
    # vt_cut_at: the connection closes before token 3, no 0 chunk
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(4, user="cut-1", vt_cut_at=3))
    check(len(r.data()) == 3 and not r.complete and r.eof, "cut: %s complete=%s eof=%s" % (r.data(), r.complete, r.eof))
    record("knobs", "cut-1", r, "cut")
    c.close()


def case_refused(port, tls):
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", b"this is not json", headers={"X-Request-Id": "bad-body"})
    check(r.status == 400 and "error" in json.loads(r.body), "not JSON: %s %r" % (r.status, r.body))
    r = c.request("/v1/chat/completions", {"max_tokens": "many"}, headers={"X-Request-Id": "bad-field"})
    check(r.status == 400 and "max_tokens" in json.loads(r.body)["error"]["message"],
          "bad max_tokens: %s %r" % (r.status, r.body))
    for body, words in ((b'{"max_tokens":2} x', "trailing"), (b"[1,2]", "not a JSON object"),
                        (b'{"stream":"yes"}', "stream must be a boolean"),
                        (b'{"max_tokens":2.5}', "max_tokens must be a whole number"),
                        (b'{"vt_gap_ms":-1}', "vt_gap_ms must be a number from 0"),
                        (b'{"prompt":"a\\q"}', "bad escape"), (b"[" * 100 + b"]" * 100, "not a JSON object"),
                        (b'{"a":' + b"[" * 100 + b"]" * 100 + b"}", "nested too deeply")):
        r = c.request("/v1/completions", body, headers={"X-Request-Id": "bad"})
        check(r.status == 400 and words in json.loads(r.body)["error"]["message"],
              "refused %r: %s %r" % (body[:30], r.status, r.body))
    r = c.request("/v1/completions", None, method="GET", headers={"X-Request-Id": "get"})
    check(r.status == 405 and "error" in json.loads(r.body), "GET: %s %r" % (r.status, r.body))
    r = c.request("/", None, method="GET")          # the connection still serves the rest
    check(r.status == 200 and r.body == b"hello world", "after refusals: %s %r" % (r.status, r.body))
    c.close()


def case_endless(port, tls):
    """The streams that end only when the client goes away."""
    # vt_huge: one data: line that never ends; the client gives up
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(4, user="huge-1", vt_huge=True), stop_after=40000)
    check(r.body.startswith(b"data: xxxx") and b"\n" not in r.body and len(r.body) >= 40000,
          "huge: %r..." % r.body[:40])
    OBS.append({"case": "endless", "id": "huge-1", "stream": True, "ks": [], "bytes": [],
                "arrive": [], "t_start": r.t_start, "how": "client-gone", "body_bytes": len(r.body)})
    # vt_comments_only: ": ping" lines, never an event
    c = Conn(port, tls)
    r = c.request("/v1/chat/completions", chat_body(4, user="ping-1", vt_comments_only=True, vt_gap_ms=20),
                  stop_after=24)
    check(len(r.events) >= 3 and all(e.comment and e.raw == b": ping\n\n" for e in r.events),
          "comments_only: %r" % r.body)
    record("endless", "ping-1", r, "client-gone")
    # vt_silent: the head, then nothing at all
    c = Conn(port, tls)
    body = b'{"stream":true,"vt_silent":true,"user":"silent-1"}'
    c.s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                % (len(body), body))
    head = b""
    try:
        while b"\r\n\r\n" not in head:
            head += c.s.recv(4096)
        c.s.settimeout(0.3)        # then nothing more: no event, no chunk
        head += c.s.recv(4096)
        check(False, "silent: got bytes after the head: %r" % head)
    except socket.timeout:
        check(head.startswith(b"HTTP/1.1 200") and head.endswith(b"\r\n\r\n"), "silent: %r" % head)
    OBS.append({"case": "endless", "id": "silent-1", "stream": True, "ks": [], "bytes": [], "arrive": [],
                "t_start": 0, "how": "client-gone", "body_bytes": 0})
    c.close()


def case_framing(port, tls):
    for fr in ("length", "close", "chunked"):
        c = Conn(port, tls)
        r = c.request("/v1/chat/completions", chat_body(3, usage=True, user="fr-" + fr, vt_framing=fr))
        is_sse(r, "framing " + fr)
        check(r.framing == fr and r.complete, "framing %s: got %s complete=%s" % (fr, r.framing, r.complete))
        check(r.data() == expected_chat(sid_of(r), "m", 3, True, 3), "framing %s: %s" % (fr, r.data()))
        if fr == "close":
            check(r.eof and r.headers.get("connection") == "close", "framing close: no close")
        if fr == "length":
            check(int(r.headers["content-length"]) == len(r.body), "framing length: length")
        record("framing", "fr-" + fr, r, "done")
        c.close()
    # vt_event_bytes: events padded to the size asked for
    c = Conn(port, tls)
    r = c.request("/v1/completions", completion_body(3, user="pad-1", vt_event_bytes=600, vt_framing="length"))
    sizes = [len(e.raw) for e in r.events if b'"text":"tok' in e.raw]
    check(sizes == [600, 600, 600] and r.complete, "event_bytes: %s" % sizes)
    record("framing", "pad-1", r, "done")
    c.close()


def case_keepalive(port, tls):
    c = Conn(port, tls)
    for i in range(3):
        r = c.request("/v1/chat/completions", chat_body(2, user="ka-%d" % i, vt_gap_ms=1))
        check(r.complete and r.data()[-1] == "[DONE]" and not r.eof, "keep-alive %d: %s" % (i, r.data()))
        record("keepalive", "ka-%d" % i, r, "done")
    c.close()


def case_concurrent(port, tls, n=200, tokens=5):
    results = [None] * n

    def one(i):
        try:
            c = Conn(port, tls, timeout=30)
            results[i] = c.request("/v1/chat/completions", chat_body(tokens, usage=True, user="cc-%d" % i,
                                                                     vt_gap_ms=5))
            c.close()
        except Exception as e:  # noqa: BLE001 (reported below)
            results[i] = e
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [i for i, r in enumerate(results)
           if isinstance(r, Exception) or r.data() != expected_chat(sid_of(r), "m", tokens, True, 3)]
    check(not bad, "concurrent: %d of %d streams wrong, e.g. %s" % (len(bad), n, results[bad[0]] if bad else ""))
    for i, r in enumerate(results):
        if not isinstance(r, Exception):
            record("concurrent", "cc-%d" % i, r, "done")


def case_stall_all(port, tls, n=3):
    """For a server started with --llm-stall-all-at-ms: long streams that
    cross its window (verify checks them against the window)."""
    results = [None] * n

    def one(i):
        c = Conn(port, tls, timeout=30)
        results[i] = c.request("/v1/completions", completion_body(60, user="sa-%d" % i, vt_gap_ms=20))
        c.close()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        check(r is not None and r.complete, "stall_all %d: incomplete" % i)
        if r is not None:
            record("stall_all", "sa-%d" % i, r, "done")


CASES = {"chat": case_chat, "completion": case_completion, "usage": case_usage, "plain": case_plain,
         "knobs": case_knobs, "refused": case_refused, "endless": case_endless, "framing": case_framing,
         "keepalive": case_keepalive, "concurrent": case_concurrent, "stall_all": case_stall_all}
DEFAULT = [c for c in CASES if c != "stall_all"]


# ---- verify -----------------------------------------------------------------

def verify_window(obs, by_id, window):
    """--llm-stall-all-at-ms: a stream the client started before the window
    has at most one token write inside it (one that fell due before it and
    was written late), and goes on after it."""
    start, end = window
    for o in obs:
        if o["case"] != "stall_all" or o["t_start"] >= start:
            continue
        t = by_id[o["id"]][0]
        times = [tt for _, tt in t.tokens()]
        inside = [tt for tt in times if start <= tt < end]
        check(len(inside) <= 1 and times and times[-1] >= end,
              "%s: %d token writes inside the stall window, last write %s the window's end"
              % (o["id"], len(inside), "after" if times and times[-1] >= end else "before"))


def verify(obs, truth_path, stats_path):
    windows = []
    reqs = llm_truth.read_truth(truth_path, windows)
    by_id = {}
    for r in reqs:
        by_id.setdefault(r.id, []).append(r)
    for o in obs:
        rs = by_id.get(o["id"], [])
        if not check(len(rs) == 1, "%s: %d truth requests, want 1" % (o["id"], len(rs))):
            continue
        t = rs[0]
        ks = [str(k) for k, _, _ in t.events]
        check(t.how == o["how"], "%s: ended %s, want %s" % (o["id"], t.how, o["how"]))
        if o["id"] == "huge-1":
            check(ks == ["1"] and t.events[0][2] >= o["body_bytes"],
                  "huge: truth %s, client read %d bytes" % (t.events, o["body_bytes"]))
            continue
        check(ks == o["ks"], "%s: truth events %s, client read %s" % (o["id"], ks, o["ks"]))
        check([b for _, _, b in t.events] == o["bytes"], "%s: event sizes %s, client %s"
              % (o["id"], [b for _, _, b in t.events], o["bytes"]))
        times = [tt for _, tt, _ in t.events]
        check(times == sorted(times) and all(tt >= t.q_ns for tt in times), "%s: write times out of order" % o["id"])
        check(t.end_ns is not None and all(t.end_ns >= tt for tt in times), "%s: end before a write" % o["id"])
        if o["t_start"]:
            check(o["t_start"] <= t.q_ns, "%s: request read before the client sent it" % o["id"])
        if "min_gap" in o:
            k, ns = o["min_gap"]
            tok = dict(t.tokens())
            check(k in tok and k - 1 in tok and tok[k] - tok[k - 1] >= ns,
                  "%s: token %d written %s ns after token %d, want >= %d"
                  % (o["id"], k, tok.get(k, 0) - tok.get(k - 1, 0), k - 1, ns))
        # same clock: nothing is read before it was written
        if ks == o["ks"]:
            late = [k for k, tt, a in zip(ks, times, o["arrive"]) if a < tt]
            check(not late, "%s: events %s read before they were written" % (o["id"], late))
    for w in windows:
        verify_window(obs, by_id, w)
    if any(o["case"] == "stall_all" for o in obs):
        check(windows, "stall_all: no s line in the truth log")
    if stats_path:
        s = json.load(open(stats_path))
        streams = [o for o in obs if o["stream"]]
        want = {"llm_done": sum("d" in o["ks"] for o in streams),
                "llm_events": sum(sum(k.isdigit() and k != "0" for k in o["ks"]) for o in streams),
                "llm_cut": sum(o["how"] == "client-gone" for o in streams)}
        for k, v in want.items():
            check(s.get(k) == v, "stats %s = %s, want %s" % (k, s.get(k), v))
        check(s.get("llm_streams", 0) >= len(streams), "stats llm_streams = %s, want >= %d"
              % (s.get("llm_streams"), len(streams)))


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=("run", "verify"))
    ap.add_argument("--port", type=int)
    ap.add_argument("--tls", action="store_true")
    ap.add_argument("--cases", default=",".join(DEFAULT))
    ap.add_argument("--concurrent", type=int, default=200)
    ap.add_argument("--out")
    ap.add_argument("--obs")
    ap.add_argument("--truth")
    ap.add_argument("--stats")
    a = ap.parse_args(argv)
    if a.step == "run":
        for name in a.cases.split(","):
            try:
                if name == "concurrent":
                    case_concurrent(a.port, a.tls, a.concurrent)
                else:
                    CASES[name](a.port, a.tls)
            except Exception as e:  # noqa: BLE001 (a broken case is one failure)
                import traceback
                FAILS.append("%s: %s: %s\n%s" % (name, type(e).__name__, e, traceback.format_exc()))
        with open(a.out, "w") as f:
            json.dump(OBS, f)
    else:
        verify(json.load(open(a.obs)), a.truth, a.stats)
    for f in FAILS:
        print("FAIL: %s" % f)
    print("llm_check %s: %d failed" % (a.step, len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
