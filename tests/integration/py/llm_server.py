#!/usr/bin/python3
"""An OpenAI-compatible streaming server written independently of
volley-target (aiohttp, as real Python model servers are), for checking
volley's LLM measurements against a second implementation.

POST /v1/chat/completions and /v1/completions, the same chunk format,
request fields and truth log as volley-target's (tests/target/README.md,
"LLM endpoints"): max_tokens / max_completion_tokens, stream,
stream_options.include_usage, model, user (else X-Request-Id) as the
request id, and the knobs vt_first_ms, vt_gap_ms, vt_stall_at +
vt_stall_ms, vt_error_at, vt_cut_at, vt_nodone, vt_bad_json, vt_status,
vt_prompt_tokens. aiohttp's StreamResponse sends chunked encoding; each
event write is one chunk, the last token goes with finish, usage and
[DONE] in one write. Truth log times are time.monotonic_ns() (Linux's
CLOCK_MONOTONIC) taken just before each `await resp.write(...)`.

Usage: llm_server.py --port 0 --port-file F [--llm-log F] [--max-seconds S]
                     [--tls-cert PEM --tls-key PEM] [--tokens N]
Listens on 127.0.0.1 only; exits on SIGTERM/SIGINT or after --max-seconds,
with the truth log complete."""
import argparse
import asyncio
import json
import os
import signal
import ssl
import sys
import time
import weakref

from aiohttp import web

STATE = {"log": None, "sid": 0, "exiting": False, "tokens": 16, "conns": weakref.WeakKeyDictionary()}


def next_conn():
    STATE["nconn"] = STATE.get("nconn", 0) + 1
    return STATE["nconn"]


def log(*fields):
    if STATE["log"]:
        STATE["log"].write(" ".join(str(f) for f in fields) + "\n")


def dumps(o):
    return json.dumps(o, separators=(",", ":"))


def words(v):
    """Whitespace-separated words of a prompt or of messages' contents."""
    if isinstance(v, str):
        return len(v.split())
    if isinstance(v, list):
        return sum(words(x) if not isinstance(x, (int, float)) else 1 for x in v)
    if isinstance(v, dict):
        return sum(words(v[k]) for k in ("content", "text") if k in v)
    return 0


def error_answer(status, message):
    typ = "server_error" if status >= 500 else "invalid_request_error"
    return web.Response(status=status, content_type="application/json",
                        text=dumps({"error": {"message": message, "type": typ, "code": status}}))


def safe_id(s):
    return "".join(c if " " < c < "\x7f" else "?" for c in s[:64]) or "-"


async def sleep_until(t_ns):
    """Never returns before t_ns (asyncio may wake a little early)."""
    while True:
        d = (t_ns - time.monotonic_ns()) / 1e9
        if d <= 0:
            return
        await asyncio.sleep(d)


async def handle(request, chat):
    raw = await request.read()
    q_ns = time.monotonic_ns()
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError
    except ValueError:
        body = None
    user = body.get("user") if body else None
    rid = safe_id(user if isinstance(user, str) else request.headers.get("X-Request-Id", "-"))
    conns = STATE["conns"]
    if request.transport not in conns:           # connections numbered as they come: 1, 2, ...
        conns[request.transport] = next_conn()
    log("q", rid, conns[request.transport], q_ns)
    if body is None:
        log("z", rid, time.monotonic_ns(), "error")
        return error_answer(400, "the body is not a JSON object")

    def num(name, default):
        v = body.get(name, default)
        return default if v is None else v
    n = int(num("max_tokens", num("max_completion_tokens", STATE["tokens"])))
    first_ns, gap_ns = num("vt_first_ms", 0) * 1e6, num("vt_gap_ms", 0) * 1e6
    stall_at, stall_ns = num("vt_stall_at", 0), num("vt_stall_ms", 0) * 1e6
    error_at, cut_at = num("vt_error_at", 0), num("vt_cut_at", 0)
    prompt = int(num("vt_prompt_tokens", words(body.get("prompt", body.get("messages")))))
    model = body.get("model", "volley-target")
    if "vt_status" in body:
        log("z", rid, time.monotonic_ns(), "error")
        return error_answer(int(body["vt_status"]), "injected status (vt_status)")
    STATE["sid"] += 1
    ident = "%s-%d" % ("chatcmpl" if chat else "cmpl", STATE["sid"])
    usage_d = {"prompt_tokens": prompt, "total_tokens": prompt + n, "completion_tokens": n}
    if not body.get("stream"):
        await sleep_until(q_ns + first_ns + max(n - 1, 0) * gap_ns + (stall_ns if 1 <= stall_at <= n else 0))
        text = "".join("tok%d " % i for i in range(1, n + 1))
        choice = ({"index": 0, "message": {"role": "assistant", "content": text}} if chat else
                  {"index": 0, "text": text})
        choice.update({"logprobs": None, "finish_reason": "length"})
        log("z", rid, time.monotonic_ns(), "done")
        return web.Response(content_type="application/json", text=dumps(
            {"id": ident, "object": "chat.completion" if chat else "text_completion", "created": 0,
             "model": model, "choices": [choice], "usage": usage_d}))

    obj = "chat.completion.chunk" if chat else "text_completion"

    def event(choices, extra=None):
        d = {"id": ident, "object": obj, "created": 0, "model": model, "choices": choices}
        d.update(extra or {})
        return ("data: " + dumps(d) + "\n\n").encode()

    def choice(content=None, finish=None, role=False):
        if chat:
            delta = {"role": "assistant", "content": ""} if role else ({} if content is None else {"content": content})
            return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        return [{"index": 0, "text": content or "", "logprobs": None, "finish_reason": finish}]

    so = body.get("stream_options") or {}
    usage = bool(so.get("include_usage")) if isinstance(so, dict) else False
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    resp.enable_chunked_encoding()
    await resp.prepare(request)
    how = "client-gone"

    async def write(events):
        """One write: [(K, bytes), ...]; returns the time taken before it."""
        t = time.monotonic_ns()
        await resp.write(b"".join(b for _, b in events))
        for k, b in events:
            log("e", rid, k, t, len(b))
        return t

    try:
        if chat:
            await write([(0, event(choice(role=True)))])
        t = q_ns + first_ns
        for k in range(1, n + 1):
            if k == stall_at:
                t += stall_ns
            await sleep_until(t)
            if k == error_at:
                err = {"error": {"message": "injected error before token %d (vt_error_at)" % k,
                                 "type": "server_error", "code": 500}}
                await write([("x", ("data: " + dumps(err) + "\n\n").encode())])
                how = "error"
                break
            if k == cut_at:
                request.transport.close()     # no 0 chunk: the body just stops
                how = "cut"
                break
            tok = b"data: {not json\n\n" if body.get("vt_bad_json") else event(choice("tok%d " % k))
            evs = [(k, tok)]
            if k == n:
                evs.append(("f", event(choice(finish="length"))))
                if usage:
                    evs.append(("u", event([], {"usage": usage_d})))
                if not body.get("vt_nodone"):
                    evs.append(("d", b"data: [DONE]\n\n"))
            t = await write(evs) + gap_ns
        else:
            if n == 0:
                evs = [("f", event(choice(finish="length")))] + ([("u", event([], {"usage": usage_d}))] if usage else [])
                await write(evs + ([] if body.get("vt_nodone") else [("d", b"data: [DONE]\n\n")]))
            how = "nodone" if body.get("vt_nodone") else "done"
        if how != "cut":
            await resp.write_eof()
    except (asyncio.CancelledError, ConnectionError):
        log("z", rid, time.monotonic_ns(), "shutdown" if STATE["exiting"] else "client-gone")
        raise
    log("z", rid, time.monotonic_ns(), how)
    return resp


async def main(a):
    app = web.Application(client_max_size=1024 * 1024)
    app.router.add_post("/v1/chat/completions", lambda r: handle(r, True))
    app.router.add_post("/v1/completions", lambda r: handle(r, False))
    ctx = None
    if a.tls_cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", a.port, ssl_context=ctx, shutdown_timeout=0.5)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    tmp = "%s.tmp.%d" % (a.port_file, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, a.port_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), a.max_seconds)
    except asyncio.TimeoutError:
        pass
    STATE["exiting"] = True
    await runner.cleanup()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--llm-log")
    ap.add_argument("--max-seconds", type=float, default=60)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--tokens", type=int, default=16, help="max_tokens when a request gives none")
    args = ap.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        sys.exit("llm_server.py: --tls-cert and --tls-key need each other")
    STATE["tokens"] = args.tokens
    if args.llm_log:
        STATE["log"] = open(args.llm_log, "w", buffering=1024 * 1024)
    try:
        asyncio.run(main(args))
    finally:
        if STATE["log"]:
            STATE["log"].close()
