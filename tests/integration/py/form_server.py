"""A loopback aiohttp app for flows that upload files and log in with a
CSRF token (test_flow_upload.sh, test_flow_html.sh). aiohttp's own
multipart parser reads the uploads, as a real Python app would. Every
request adds one line to LOG, written as it comes (flushed):

    <method> <path> <status> <detail>

  POST /upload     multipart/form-data, parsed by aiohttp (request.post());
                   detail: the fields as JSON, sorted by name, a file as
                   {"filename", "type", "sha256", "size"}, a text field as
                   its value; 400 when the body is not multipart.
  GET  /login      an HTML page of a per-session token (a session cookie,
                   set here): in a <meta name="csrf-token" content=...> and
                   in a form's hidden authenticity_token input, HTML-escaped
                   (the token ends in "&x<y", so its attribute holds
                   "&amp;x&lt;y"); plus decoys (another form's token, a
                   commented-out input).
  POST /login      a url-encoded form: 403 unless authenticity_token is the
                   session's token, else 200 and the session is logged in.
  POST /like       403 unless the X-CSRF-Token header is the session's
                   token and the session is logged in.

Usage: form_server.py PORT_FILE LOG SECONDS (it exits after SECONDS)."""
import asyncio
import hashlib
import html
import json
import os
import secrets
import sys

from aiohttp import web

SESSIONS = {}  # session id -> {"token", "in"}


def log(request, status, detail=""):
    LOG.write("%s %s %d %s\n" % (request.method, request.path, status, detail))
    LOG.flush()


def session(request):
    sid = request.cookies.get("sid")
    return SESSIONS.get(sid), sid


async def upload(request):
    if not request.content_type.startswith("multipart/form-data"):
        log(request, 400, "not multipart: " + request.content_type)
        return web.Response(status=400, text="not multipart")
    form = await request.post()
    fields = {}
    for name in dict.fromkeys(form):  # a MultiDict: each name once
        values = form.getall(name)
        out = []
        for v in values:
            if isinstance(v, web.FileField):
                data = v.file.read()
                out.append({"filename": v.filename, "type": v.content_type,
                            "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
            else:
                out.append(v)
        fields[name] = out[0] if len(out) == 1 else out
    log(request, 200, json.dumps(fields, sort_keys=True))
    return web.Response(text="ok")


PAGE = """<!DOCTYPE html>
<html><head><title>Log in</title>
<meta charset="utf-8"><meta name="csrf-param" content="authenticity_token">
<meta name="csrf-token" content="%(tok)s">
</head><body>
<!-- <input type="hidden" name="authenticity_token" value="decoy-in-a-comment"> -->
<form id="search" action="/search"><input type="hidden" name="search_token" value="decoy">
<input name=q></form>
<table><tr><td><table class="inner"><tr><td>nested<td>cells</table></td></tr></table>
<form id="login" action="/login" method="post">
<input type="hidden" name="authenticity_token" value="%(tok)s">
<input type="text" name="user"><p>unclosed paragraph
<input type="submit" value="Log in">
</form></body></html>
"""


async def login_page(request):
    st, sid = session(request)
    if st is None:
        sid = secrets.token_hex(16)
        st = SESSIONS[sid] = {"token": secrets.token_urlsafe(24) + "&x<y", "in": False}
    resp = web.Response(text=PAGE % {"tok": html.escape(st["token"])}, content_type="text/html")
    resp.set_cookie("sid", sid, path="/")
    log(request, 200)
    return resp


async def login(request):
    st, _ = session(request)
    form = await request.post()
    if st is None or form.get("authenticity_token") != st["token"]:
        log(request, 403, "bad token")
        return web.Response(status=403, text="bad token")
    st["in"] = True
    log(request, 200)
    return web.Response(text="welcome")


async def like(request):
    st, _ = session(request)
    if st is None or not st["in"] or request.headers.get("X-CSRF-Token") != st["token"]:
        log(request, 403, "bad token")
        return web.Response(status=403, text="bad token")
    log(request, 200)
    return web.Response(text="liked")


async def main(port_file, seconds):
    app = web.Application(client_max_size=64 << 20)
    app.router.add_post("/upload", upload)
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login)
    app.router.add_post("/like", like)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, shutdown_timeout=0.5)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    tmp = "%s.tmp.%d" % (port_file, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, port_file)
    await asyncio.sleep(seconds)
    await runner.cleanup()


if __name__ == "__main__":
    LOG = open(sys.argv[2], "a")
    asyncio.run(main(sys.argv[1], float(sys.argv[3])))
