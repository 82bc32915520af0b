"""Records a HAR 1.2 file of a page load in headless Chromium, through
the DevTools protocol over --remote-debugging-pipe (fd 3: commands to the
browser, fd 4: its replies and events, each JSON message ended by a NUL
byte; no websocket needed). Chromium has no HAR flag: the entries are
built here from Network.* events, as DevTools' own exporter does
(startedDateTime from wallTime, time from the monotonic timestamps,
_resourceType from the request's type, a redirect's hop as an entry of
its own with redirectURL). Waits until document.title is DONE_TITLE, then
until no request is in flight. stdlib only.

    har_record.py CHROMIUM URL OUT.har PROFILE_DIR [DONE_TITLE]
"""
import datetime
import json
import os
import select
import subprocess
import sys
import time

chromium, url, out_path, profile = sys.argv[1:5]
done_title = sys.argv[5] if len(sys.argv) > 5 else "done"
DEADLINE = time.monotonic() + 40

to_r, to_w = os.pipe()
from_r, from_w = os.pipe()


def child_fds():
    os.dup2(to_r, 3)
    os.dup2(from_w, 4)
    os.set_inheritable(3, True)
    os.set_inheritable(4, True)


proc = subprocess.Popen(
    [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--disable-default-apps", "--proxy-server=127.0.0.1:9",
     "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
    preexec_fn=child_fds, close_fds=False, stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile + ".err"), "w"))
os.close(to_r)
os.close(from_w)

buf = b""
next_id = 0
events = []


def send(method, params=None, session=None):
    global next_id
    next_id += 1
    msg = {"id": next_id, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    os.write(to_w, json.dumps(msg).encode() + b"\0")
    return next_id


def read_messages(timeout):
    """Messages that arrive within timeout seconds (at least one read)."""
    global buf
    got = []
    r, _, _ = select.select([from_r], [], [], timeout)
    if r:
        chunk = os.read(from_r, 1 << 20)
        if not chunk:
            raise SystemExit("har_record: chromium closed the pipe: " + open(profile + ".err").read()[-400:])
        buf += chunk
        while b"\0" in buf:
            m, buf = buf.split(b"\0", 1)
            got.append(json.loads(m))
    return got


def call(method, params=None, session=None):
    i = send(method, params, session)
    reply = None
    while reply is None and time.monotonic() < DEADLINE:
        # Every other message read meanwhile is kept, in order, for the
        # event loop: those after the reply in the same read too.
        for m in read_messages(1):
            if m.get("id") == i:
                reply = m
            else:
                events.append(m)
    if reply is None:
        raise SystemExit("har_record: no reply to " + method)
    if "error" in reply:
        raise SystemExit("har_record: %s: %s" % (method, reply["error"]))
    return reply.get("result", {})


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Network.enable", {}, session)
    call("Network.setCacheDisabled", {"cacheDisabled": True}, session)
    call("Page.enable", {}, session)
    events.clear()
    call("Page.navigate", {"url": url}, session)

    reqs = {}      # requestId -> the entry being built
    early = {}     # requestId -> ExtraInfo headers that came before their request
    order = []     # entries in the order they started
    done = False
    quiet_since = None

    def handle(m):
        global done
        if m.get("sessionId") != session:
            return
        meth, p = m.get("method"), m.get("params", {})
        if meth == "Network.requestWillBeSent":
            rid = p["requestId"]
            prev = reqs.get(rid)
            if prev is not None and "redirectResponse" in p:
                rr = p["redirectResponse"]
                prev["response"] = rr
                prev["end"] = p["timestamp"]
                prev["redirectURL"] = p["request"]["url"]
            e = {"req": p["request"], "ts": p["timestamp"], "wall": p["wallTime"],
                 "type": p.get("type", "Other"), "extra": early.pop(rid, None) if prev is None else None}
            reqs[rid] = e
            order.append(e)
        elif meth == "Network.requestWillBeSentExtraInfo":
            # The headers as sent (Cookie included). It may come before
            # requestWillBeSent, and a redirect's hop has one of its own.
            e = reqs.get(p["requestId"])
            if e is not None and e["extra"] is None:
                e["extra"] = p["headers"]
            elif e is None:
                early[p["requestId"]] = p["headers"]
        elif meth == "Network.responseReceived":
            e = reqs.get(p["requestId"])
            if e is not None:
                e["response"] = p["response"]
        elif meth in ("Network.loadingFinished", "Network.loadingFailed"):
            e = reqs.get(p["requestId"])
            if e is not None:
                e["end"] = p["timestamp"]
                if meth == "Network.loadingFailed":
                    e["failed"] = True

    while time.monotonic() < DEADLINE:
        for m in events:
            handle(m)
        events.clear()
        for m in read_messages(0.2):
            handle(m)
        if not done:
            r = call("Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session)
            done = r.get("result", {}).get("value") == done_title
            continue
        in_flight = [e for e in order if "end" not in e]
        if in_flight:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 0.5:
            break
    else:
        raise SystemExit("har_record: the page did not finish in time (title %r: %s; in flight: %s)" % (
            done_title, "seen" if done else "not seen", " ".join(e["req"]["url"][:80] for e in order if "end" not in e)))

    def hlist(d):
        return [{"name": k, "value": v} for k, v in (d or {}).items()]

    entries = []
    for e in order:
        req, res = e["req"], e.get("response", {})
        started = datetime.datetime.fromtimestamp(e["wall"], datetime.timezone.utc)
        headers = e["extra"] if e["extra"] is not None else req.get("headers", {})
        request = {"method": req["method"], "url": req["url"] + req.get("urlFragment", ""),
                   "httpVersion": res.get("protocol", "http/1.1"), "headers": hlist(headers),
                   "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1}
        if "postData" in req:
            ctype = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
            request["postData"] = {"mimeType": ctype, "text": req["postData"]}
        entry = {
            "startedDateTime": started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "time": max(0.0, (e.get("end", e["ts"]) - e["ts"]) * 1000),
            "_resourceType": e["type"].lower(),
            "request": request,
            "response": {"status": 0 if e.get("failed") and not res else res.get("status", 0),
                         "statusText": res.get("statusText", ""), "httpVersion": res.get("protocol", ""),
                         "headers": hlist(res.get("headers")), "cookies": [],
                         "content": {"size": 0, "mimeType": res.get("mimeType", "")},
                         "redirectURL": e.get("redirectURL", ""), "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0},
        }
        entries.append(entry)
    har = {"log": {"version": "1.2", "creator": {"name": "har_record.py", "version": "1"},
                   "pages": [], "entries": entries}}
    with open(out_path, "w") as f:
        json.dump(har, f, indent=1)
finally:
    try:
        send("Browser.close")
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
