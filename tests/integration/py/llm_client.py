"""A small HTTP/1.1 client for the OpenAI-compatible test servers
(volley-target's /v1 paths and llm_server.py): one request at a time on a
kept-alive connection (plain or TLS), the response's framing decoded by
hand (chunked, Content-Length or read-until-close) so a test sees exactly
what the server sent, and the server-sent events split out with the
CLOCK_MONOTONIC time of the read that completed each. Standard library
only; used by llm_check.py."""
import json
import socket
import ssl
import time


class Event:
    """One SSE event block: raw bytes (with the blank line that ends it),
    its data lines joined, whether it was only comments, and when the read
    that completed it returned (time.monotonic_ns())."""

    def __init__(self, raw, t_ns):
        self.raw = raw
        self.t_ns = t_ns
        lines = raw.decode("utf-8", "replace").split("\n")
        data = [l[5:].lstrip(" ") if l.startswith("data:") else None for l in lines if l]
        self.comment = all(l.startswith(":") for l in lines if l)
        self.data = "\n".join(d for d in data if d is not None)

    def json(self):
        return json.loads(self.data)


class Response:
    def __init__(self):
        self.status = 0
        self.headers = {}
        self.framing = None      # "chunked", "length" or "close"
        self.body = b""
        self.chunks = []         # chunk sizes (chunked framing)
        self.complete = False    # the framing's end was seen (0 chunk, length, EOF)
        self.eof = False         # the server closed the connection
        self.events = []
        self.t_start = 0         # monotonic ns just before the request was sent
        self.t_end = 0

    def data(self):
        return [e.data for e in self.events if not e.comment]


class Conn:
    """A connection to 127.0.0.1:port (TLS if tls: no verification, the
    servers' certificates are made on the spot)."""

    def __init__(self, port, tls=False, timeout=10):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(s, server_hostname="localhost")
        self.s = s
        self.buf = b""
        self.closed = False
        self.reads = 0

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def _more(self):
        """Reads once into buf; False at EOF (or a reset)."""
        try:
            data = self.s.recv(262144)
        except (ConnectionResetError, ssl.SSLError):
            data = b""
        self.reads += 1
        if not data:
            self.closed = True
            return False
        self.buf += data
        return True

    def request(self, path, body=None, headers=None, method="POST", stop_after=None):
        """Sends one request (body: a dict sent as JSON, bytes, or None) and
        reads its response. stop_after: close the connection once that many
        body bytes have arrived (a client giving up on an endless body)."""
        r = Response()
        if isinstance(body, dict):
            body = json.dumps(body).encode()
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % (method, path)
        for k, v in (headers or {}).items():
            head += "%s: %s\r\n" % (k, v)
        if body is not None:
            head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        r.t_start = time.monotonic_ns()
        self.s.sendall(head.encode() + b"\r\n" + (body or b""))
        while b"\r\n\r\n" not in self.buf:
            if not self._more():
                raise EOFError("closed before the response head")
        raw_head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw_head.decode("latin-1").split("\r\n")
        r.status = int(lines[0].split()[1])
        for line in lines[1:]:
            k, _, v = line.partition(":")
            r.headers[k.strip().lower()] = v.strip()
        pending = b""            # body bytes not yet split into events

        def take(data, t):
            nonlocal pending
            r.body += data
            pending += data
            while b"\n\n" in pending:
                block, pending = pending.split(b"\n\n", 1)
                r.events.append(Event(block + b"\n\n", t))

        def stop():
            return stop_after is not None and len(r.body) >= stop_after

        if r.headers.get("transfer-encoding", "").lower() == "chunked":
            r.framing = "chunked"
            while not stop():
                while b"\r\n" not in self.buf:
                    if not self._more():
                        break
                if b"\r\n" not in self.buf:
                    break
                size_line, rest = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                self.buf = rest
                while len(self.buf) < size + 2 and self._more():
                    pass
                t = time.monotonic_ns()
                if len(self.buf) < size + 2:
                    take(self.buf[:size], t)
                    break
                if size == 0:
                    self.buf = self.buf[2:]
                    r.complete = True
                    break
                r.chunks.append(size)
                take(self.buf[:size], t)
                self.buf = self.buf[size + 2:]
        elif "content-length" in r.headers:
            r.framing = "length"
            left = int(r.headers["content-length"])
            while left and not stop():
                if not self.buf and not self._more():
                    break
                t = time.monotonic_ns()
                part, self.buf = self.buf[:left], self.buf[left:]
                left -= len(part)
                take(part, t)
            r.complete = left == 0
        else:
            r.framing = "close"
            while not stop():
                if not self.buf and not self._more():
                    r.complete = True
                    break
                t = time.monotonic_ns()
                part, self.buf = self.buf, b""
                take(part, t)
        if pending:
            r.events.append(Event(pending, time.monotonic_ns()))   # an unfinished event
        r.eof = self.closed
        r.t_end = time.monotonic_ns()
        if stop_after is not None:
            self.close()
        return r


def chat_body(tokens, stream=True, usage=None, **extra):
    b = {"model": "m", "messages": [{"role": "user", "content": "one two three"}],
         "max_tokens": tokens, "stream": stream}
    if usage is not None:
        b["stream_options"] = {"include_usage": usage}
    b.update(extra)
    return b


def completion_body(tokens, stream=True, usage=None, **extra):
    b = {"model": "m", "prompt": "one two", "max_tokens": tokens, "stream": stream}
    if usage is not None:
        b["stream_options"] = {"include_usage": usage}
    b.update(extra)
    return b
