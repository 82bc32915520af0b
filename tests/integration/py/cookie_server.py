"""A loopback HTTP/1.1 server for the flow's cookie jar and redirects
(test_flow_cookies.sh). Every request adds one line to LOG, written as it
comes (flushed):

    <target> <host> <cookie_bytes> <cookies> <big> <head_bytes>

target: the request-target as sent; host: its Host header (- if none);
cookie_bytes: the length of its Cookie header(s) (0 if none); cookies: how
many name=value pairs they hold; big: 1 when a cookie named big was sent
(one longer than 4096 bytes); head_bytes: the length of the whole head.

  /flood          a hostile server: 15 Set-Cookie of 4000 bytes each with
                  names never used before (f<n>), and one of 5000 bytes
                  (big), on every response (a 65 KB head: volley reads
                  heads up to 80 KB)
  /domain/D       Set-Cookie: sid=D; Domain=D; Path=/
  /a/b/c          302, Location: ../d?x=1#frag
  /a/d?x=1        302, Location: ?y=2
  /a/d?y=2        302, Location: //127.0.0.1:PORT/e (this server)
  /e              302, Location: //elsewhere.invalid/f (not followed)
  anything else   200 "ok"

Heads are read whole however long (up to 64 MB), so a client that sends
huge ones is measured, not refused. Usage: cookie_server.py PORT_FILE LOG
SECONDS (it exits after SECONDS)."""
import itertools
import sys
import threading

from loopback import heads, listen, serve_for

NAMES = itertools.count(1)
LOCK = threading.Lock()
MAX_HEAD = 64 << 20


def response(target, port):
    """The head lines (after the status line's) and status of target."""
    if target == "/flood":
        with LOCK:
            first = next(NAMES)
            for _ in range(14):
                next(NAMES)
        lines = [b"Set-Cookie: f%d=%s; Path=/" % (first + i, b"v" * 4000) for i in range(15)]
        lines.append(b"Set-Cookie: big=%s" % (b"b" * 5000))
        return 200, lines
    if target.startswith("/domain/"):
        d = target[8:].encode()
        return 200, [b"Set-Cookie: sid=%s; Domain=%s; Path=/" % (d, d)]
    where = {"/a/b/c": "../d?x=1#frag", "/a/d?x=1": "?y=2", "/a/d?y=2": "//127.0.0.1:%d/e" % port,
             "/e": "//elsewhere.invalid/f"}.get(target)
    if where:
        return 302, [b"Location: " + where.encode()]
    return 200, []


def serve(conn, log, port):
    try:
        for head in heads(conn, MAX_HEAD, 1 << 20):
            lines = head.split(b"\r\n")
            target = lines[0].split(b" ")[1].decode()
            host, cookie = b"-", []
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"host":
                    host = value.strip()
                elif name == b"cookie":
                    cookie.append(value.strip())
            pairs = [p for c in cookie for p in c.split(b"; ") if p]
            big = any(p.startswith(b"big=") for p in pairs)
            with LOCK:
                log.write("%s %s %d %d %d %d\n" % (target, host.decode(), sum(len(c) for c in cookie),
                                                   len(pairs), big, len(head) + 4))
                log.flush()
            status, extra = response(target, port)
            out = [b"HTTP/1.1 %d X" % status] + extra + [b"Content-Length: 2", b"", b"ok"]
            conn.sendall(b"\r\n".join(out))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    ls = listen(sys.argv[1])
    port = ls.getsockname()[1]
    log = open(sys.argv[2], "w")
    serve_for(ls, float(sys.argv[3]), serve, timeout=20, args=(log, port))


if __name__ == "__main__":
    main()
