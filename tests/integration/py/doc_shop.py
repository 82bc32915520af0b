"""A small web shop for the docs' flow examples, the same routes and
answers as tests/integration/apps/shop (Sinatra, which needs ruby and
puma) in the standard library alone, so that test_doc_examples can run
the docs' shop flows on any machine:

    POST /login      form or JSON {user, password}; password "pw-" + user:
                     303 to /home with a new session cookie, else 401
    GET  /home       "hello USER\\n" (401 without a session)
    GET  /items/N    {"id": N, "price": P}
    POST /cart       JSON {"id": N}: {"items": count in the cart}
    POST /checkout   {"paid": count}, the cart emptied (409 when empty)
    anything else    200 "hello world"

    start(port=0) -> (server, port): serving on 127.0.0.1 on a daemon thread.
"""
import http.server
import json
import secrets
import socket
import threading
import urllib.parse

SESSIONS = {}
LOCK = threading.Lock()


class Shop(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # The head and the body are two writes: without this, Nagle's
        # algorithm and the client's delayed ACK hold the body 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype="text/plain", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def session(self):
        for part in self.headers.get("Cookie", "").split(";"):
            k, _, v = part.strip().partition("=")
            if k == "sid":
                with LOCK:
                    return SESSIONS.get(v)
        return None

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def doc(self, raw):
        try:
            v = json.loads(raw)
        except ValueError:
            return {}
        return v if isinstance(v, dict) else {}

    def do_GET(self):
        self.body()
        path = self.path.split("?")[0]
        if path == "/home":
            s = self.session()
            return self.reply(200, "hello %s\n" % s["user"]) if s else self.reply(401, "not logged in\n")
        if path.startswith("/items/") and path[7:].isdigit():
            i = int(path[7:])
            return self.reply(200, json.dumps({"id": i, "price": 100 + (i * 37) % 900}), "application/json")
        self.reply(200, "hello world")

    def do_POST(self):
        raw = self.body()
        path = self.path.split("?")[0]
        if path == "/login":
            if self.headers.get("Content-Type", "").startswith("application/json"):
                d = self.doc(raw)
            else:
                d = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode()).items()}
            user = str(d.get("user", ""))
            if not user or d.get("password") != "pw-" + user:
                return self.reply(401, "bad user or password\n")
            sid = secrets.token_hex(8)
            with LOCK:
                SESSIONS[sid] = {"user": user, "cart": []}
            return self.reply(303, "", headers=(("Location", "/home"), ("Set-Cookie", "sid=%s; path=/" % sid)))
        s = self.session()
        if path in ("/cart", "/checkout") and not s:
            return self.reply(401, "not logged in\n")
        if path == "/cart":
            i = self.doc(raw).get("id")
            if not isinstance(i, int):
                return self.reply(400, 'need {"id": N}\n')
            s["cart"].append(i)
            return self.reply(200, json.dumps({"items": len(s["cart"])}), "application/json")
        if path == "/checkout":
            if not s["cart"]:
                return self.reply(409, "empty cart\n")
            n, s["cart"] = len(s["cart"]), []
            return self.reply(200, json.dumps({"paid": n}), "application/json")
        self.reply(200, "hello world")

    do_PUT = do_DELETE = do_PATCH = do_POST


def start(port=0):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Shop)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]
