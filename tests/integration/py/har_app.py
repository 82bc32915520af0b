"""A small web app for test_convert_har.sh: a page with a stylesheet
(answered 300 ms late), a script and an image; the script waits, then calls the API with fetch (a
GET, a JSON POST that needs the page's cookie, a form POST answered with
a 303 to another page). Every request is logged as one line, "METHOD
PATH COOKIE BODY" (COOKIE: whether the sid cookie came; BODY: the body's
length), flushed at once. stdlib only (runs under any python3).

    har_app.py PORT_FILE LOG_FILE MAX_SECONDS
"""
import http.server
import sys
import threading
import time
import urllib.parse

PAGE = b"""<!DOCTYPE html>
<html><head><title>shop</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js"></script>
</head><body><h1>Shop</h1><img src="/static/logo.png" alt="logo"></body></html>
"""
SCRIPT = b"""window.addEventListener("load", function () {
  setTimeout(async function () {
    // Each body read whole: a response whose body is never read never
    // finishes loading in DevTools' eyes.
    await (await fetch("/api/items/42", { headers: { "Accept": "application/json", "X-Requested-With": "fetch" } })).text();
    await (await fetch("/api/cart", { method: "POST", headers: { "Content-Type": "application/json" },
                                      body: JSON.stringify({ id: 42, qty: 2 }) })).text();
    await (await fetch("/login", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
                                   body: "user=ann&password=s3cret%21" })).text();
    document.title = "done";
  }, 300);
});
"""
CSS = b"body { font-family: sans-serif; } h1 { color: #333; }\n"
# A 1x1 PNG.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")

lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, ctype, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_one(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        cookie = "sid" if "sid=abc" in (self.headers.get("Cookie") or "") else "-"
        with lock:
            LOG.write("%s %s %s %d\n" % (self.command, self.path, cookie, len(body)))
            LOG.flush()
        p = self.path
        if p == "/":
            return self.reply(200, "text/html", PAGE, [("Set-Cookie", "sid=abc; Path=/")])
        if p == "/static/app.css":
            # Slow, so that the browser has the script and the image in
            # flight with it, whatever the machine's load: one batch.
            time.sleep(0.3)
            return self.reply(200, "text/css", CSS)
        if p == "/static/app.js":
            return self.reply(200, "application/javascript", SCRIPT)
        if p == "/static/logo.png":
            return self.reply(200, "image/png", PNG)
        if p == "/api/items/42" and self.command == "GET":
            return self.reply(200, "application/json", b'{"id":42,"price":7}')
        if p == "/api/cart" and self.command == "POST":
            if cookie != "sid" or body != b'{"id":42,"qty":2}':
                return self.reply(403, "text/plain", b"no session or bad body\n")
            return self.reply(201, "application/json", b'{"ok":true}')
        if p == "/login" and self.command == "POST":
            # Parsed, as a real app does: a flow's form = {...} sends the
            # fields in key order, the browser in the page's.
            form = urllib.parse.parse_qs(body.decode(), strict_parsing=True)
            if form != {"user": ["ann"], "password": ["s3cret!"]}:
                return self.reply(400, "text/plain", b"bad form\n")
            return self.reply(303, "text/plain", b"", [("Location", "/account")])
        if p == "/account":
            return self.reply(200, "application/json", b'{"user":"ann"}')
        return self.reply(404, "text/plain", b"not found\n")

    do_GET = do_POST = do_HEAD = handle_one


if __name__ == "__main__":
    port_file, log_file, max_seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    LOG = open(log_file, "a")  # appended: a test may empty it between phases
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Timer(max_seconds, srv.shutdown).start()
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()
