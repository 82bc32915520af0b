"""A small HTTPS/1.1 client for the TLS tests (python's ssl, no volley).

usage: tls_get.py [options] HOST PORT [PATH...]

Opens --conns connections one after another (each offering the previous
one's session when --resume is given) and sends every PATH on each, one
after the other on the same connection (keep-alive), reading each response
whole (Content-Length, chunked, or until close). Prints, per connection,

    conn <i> <version> <resumed 0|1> <alpn or -> <server CN or ->

and per response

    resp <path> <status> <body length> <pattern ok|bad|-> <end>

where <pattern> checks the body against volley-target's pattern (for
/bytes/, /chunked/, /tiny/, /cut/ and nginx's /static/ paths; - for others)
and <end> is "ok" for a framed body read whole, "close_notify" or "bare_eof"
for a body read until close, or "error:<what>:<how the stream ended>" (e.g.
error:eof_in_body:bare_eof).
A connection whose handshake fails prints "handshake_error <reason>" and the
exit status is 3. A response that ends in error: exit status 1, as for any
other failure ("error <what>").

--plain: no TLS at all (the conn line then reads "conn <i> plain 0 - -").
--pipeline: send all the requests of a connection in one write, then read.
--body N: each request is a POST with an N-byte body (Content-Length).

--stat KEY: instead, GET /__stats (not verified unless --ca) and print only
the counter KEY.
"""
import argparse
import json
import socket
import ssl
import sys

PATTERN = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


class Conn:
    """A byte reader over an SSL socket that tells close_notify from a bare EOF."""

    def __init__(self, sock):
        self.sock, self.buf, self.eof = sock, b"", None

    def fill(self):
        if self.eof:
            return False
        try:
            data = self.sock.recv(65536)
        except ssl.SSLEOFError:
            self.eof = "bare_eof"
            return False
        except ssl.SSLError as e:
            # OpenSSL 3 names a bare EOF "unexpected eof while reading"
            if "UNEXPECTED_EOF" in str(e).upper().replace(" ", "_"):
                self.eof = "bare_eof"
                return False
            raise
        if not data:
            self.eof = "close_notify" if isinstance(self.sock, ssl.SSLSocket) else "eof"
            return False
        self.buf += data
        return True

    def line(self):
        while b"\r\n" not in self.buf:
            if not self.fill():
                raise EOFError("eof_in_head")
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def take(self, n):
        while len(self.buf) < n:
            if not self.fill():
                raise EOFError("eof_in_body")
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        while self.fill():
            pass
        out, self.buf = self.buf, b""
        return out


def read_response(c, head):
    status_line = c.line()
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = c.line()
        if not line:
            break
        k, v = line.split(b":", 1)
        headers[k.strip().lower().decode()] = v.strip().decode()
    if 100 <= status < 200:
        return read_response(c, head)
    end = "ok"
    if head or status in (204, 304):
        body = b""
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int(c.line().split(b";")[0], 16)
            if size == 0:
                while c.line():
                    pass
                break
            body += c.take(size)
            c.take(2)
    elif "content-length" in headers:
        body = c.take(int(headers["content-length"]))
    else:
        body = c.rest()
        end = c.eof
    return status, headers, body, end


def pattern_check(path, body):
    if not any(path.startswith(p) for p in ("/bytes/", "/chunked/", "/tiny/", "/cut/", "/static/")):
        return "-"
    want = (PATTERN * (len(body) // 64 + 1))[:len(body)]
    return "ok" if body == want else "bad"


def make_context(a):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # Tell a bare EOF from close_notify (python may be built to ignore it).
    ctx.options &= ~getattr(ssl, "OP_IGNORE_UNEXPECTED_EOF", 0)
    if a.ca:
        ctx.load_verify_locations(a.ca)
        ctx.check_hostname = a.sni is not None or not a.no_sni
    else:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if a.cert:
        ctx.load_cert_chain(a.cert, a.key)
    if a.min:
        ctx.minimum_version = VERSIONS[a.min]
    if a.max:
        ctx.maximum_version = VERSIONS[a.max]
    if a.alpn:
        ctx.set_alpn_protocols(a.alpn.split(","))
    if a.no_tickets:
        ctx.options |= ssl.OP_NO_TICKET
    return ctx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("paths", nargs="*", default=["/"])
    ap.add_argument("--ca", help="verify the server against this CA (default: no verification)")
    ap.add_argument("--cert", help="client certificate (with --key)")
    ap.add_argument("--key")
    ap.add_argument("--sni", help="server name to send and check (default: the host, unless an IP)")
    ap.add_argument("--no-sni", action="store_true", help="send no server name")
    ap.add_argument("--alpn", help="comma-separated ALPN protocols to offer")
    ap.add_argument("--min", choices=VERSIONS)
    ap.add_argument("--max", choices=VERSIONS)
    ap.add_argument("--no-tickets", action="store_true", help="client refuses session tickets")
    ap.add_argument("--conns", type=int, default=1)
    ap.add_argument("--resume", action="store_true", help="offer the previous connection's session")
    ap.add_argument("--method", default="GET")
    ap.add_argument("--close", action="store_true", help="send Connection: close on the last request")
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--stat")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--pipeline", action="store_true")
    ap.add_argument("--body", type=int, default=0)
    a = ap.parse_args()

    ctx = make_context(a)
    if a.stat:
        a.paths = ["/__stats"]
    session = None
    for i in range(1, a.conns + 1):
        raw = socket.create_connection((a.host, a.port), timeout=a.timeout)
        name = None if a.no_sni else (a.sni or a.host)
        if a.plain:
            s, head = raw, f"conn {i} plain 0 - -"
        else:
            try:
                s = ctx.wrap_socket(raw, server_hostname=name, session=session if a.resume else None,
                                    suppress_ragged_eofs=False)
            except (ssl.SSLError, OSError) as e:
                print(f"handshake_error {getattr(e, 'reason', None) or e}")
                sys.exit(3)
            cn = "-"
            for rdn in ((s.getpeercert() if a.ca else None) or {}).get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        cn = v
            head = f"conn {i} {s.version()} {int(s.session_reused)} {s.selected_alpn_protocol() or '-'} {cn}"
        c = Conn(s)
        out = []
        method = "POST" if a.body else a.method
        body = b"x" * a.body
        reqs = []
        for k, path in enumerate(a.paths):
            hdrs = f"Host: {a.sni or a.host}\r\n"
            if a.close and k == len(a.paths) - 1:
                hdrs += "Connection: close\r\n"
            if a.body:
                hdrs += f"Content-Length: {a.body}\r\n"
            reqs.append(f"{method} {path} HTTP/1.1\r\n{hdrs}\r\n".encode() + body)
        try:
            if a.pipeline:
                s.sendall(b"".join(reqs))
            for k, path in enumerate(a.paths):
                if not a.pipeline:
                    s.sendall(reqs[k])
                try:
                    status, headers, body, end = read_response(c, method == "HEAD")
                except EOFError as e:
                    out.append(f"resp {path} - - - error:{e}:{c.eof}")
                    break
                if a.stat:
                    print(json.loads(body)[a.stat])
                    return
                out.append(f"resp {path} {status} {len(body)} {pattern_check(path, body)} {end}")
        except ssl.SSLError as e:
            # TLS 1.3: a refused client certificate shows up at the first read
            out.append(f"handshake_error {e.reason or e}" if not out else f"error {e.reason or e}")
        print(head)
        for line in out:
            print(line)
        session = None if a.plain else s.session
        s.close()
        if any(l.startswith("handshake_error") for l in out):
            sys.exit(3)
        if any(l.startswith("error") or " error:" in l for l in out):
            sys.exit(1)


if __name__ == "__main__":
    main()
