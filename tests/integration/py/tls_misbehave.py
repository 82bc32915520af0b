"""A loopback server that gets TLS wrong on purpose, for volley's failure tests.

usage: tls_misbehave.py MODE PORT_FILE CERT KEY

MODE:
  stall    accepts TCP connections and never reads or answers (the
           ClientHello goes unanswered); holds every socket open
  plain    plain HTTP, no TLS: answers "HTTP/1.1 200 OK", Content-Length: 11,
           "hello world" to each request head, and once, at once, to input
           that does not look like HTTP (such as a TLS ClientHello)
  cutbody  TLS: answers each request head with Content-Length: 100 and only
           10 body bytes, then closes the TCP connection without close_notify
  outages  TLS, ALPN http/1.1 only (a client offering h2 gets HTTP/1.1): one
           connection at a time; once its request head is read the listener
           closes (connects are refused), the request gets "hello world"
           with Connection: close, and TLS_OUTAGE_MS (300) ms after that the
           same port listens again for the next one

Listens on 127.0.0.1, port chosen by the kernel, written to PORT_FILE (via a
rename, so a reader never sees it half written) once listening. Exits by
itself after 60 s, whatever is going on.
"""
import os
import socket
import ssl
import sys
import threading
import time

import loopback

LIFETIME_S = 60
HELLO = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"
CUT = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789"


def serve_stall(conn, held):
    held.append(conn)   # never read, never written, never closed before exit


def read_heads(conn, buf):
    """Reads until a request head ends; returns (True, rest) or (False, b"") at EOF."""
    while b"\r\n\r\n" not in buf:
        data = conn.recv(65536)
        if not data:
            return False, b""
        buf += data
        if not buf[:1].isalpha():
            return True, b""   # not HTTP (a ClientHello?): answer anyway
    return True, buf.split(b"\r\n\r\n", 1)[1]


def serve_plain(conn, held):
    buf = b""
    try:
        while True:
            ok, buf = read_heads(conn, buf)
            if not ok:
                break
            conn.sendall(HELLO)
    except OSError:
        pass
    conn.close()


def serve_cutbody(conn, ctx):
    try:
        conn.settimeout(30)
        s = ctx.wrap_socket(conn, server_side=True)
        ok, _ = read_heads(s, b"")
        if ok:
            s.sendall(CUT)
        # SSLSocket.shutdown() shuts the TCP socket down without SSL_shutdown:
        # a FIN and no close_notify.
        s.shutdown(socket.SHUT_RDWR)
        s.close()
    except (OSError, ssl.SSLError):
        conn.close()


def relisten(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(8)
    return ls


def serve_outages(port_file, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    outage = int(os.environ.get("TLS_OUTAGE_MS", "300")) / 1000
    ls = loopback.listen(port_file)
    port = ls.getsockname()[1]
    while True:
        conn, _ = ls.accept()
        try:
            conn.settimeout(30)
            s = ctx.wrap_socket(conn, server_side=True)
            ok, _ = read_heads(s, b"")
            ls.close()  # before the answer: the client's next connect is refused
            if ok:
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello world")
            s.close()
        except (OSError, ssl.SSLError):
            conn.close()
            ls.close()
        time.sleep(outage)
        ls = relisten(port)


def main():
    mode, port_file, cert, key = sys.argv[1:5]
    if mode not in ("stall", "plain", "cutbody", "outages"):
        sys.exit(f"tls_misbehave.py: unknown mode {mode!r}")
    threading.Timer(LIFETIME_S, lambda: os._exit(0)).start()
    if mode == "outages":
        serve_outages(port_file, cert, key)
    ctx = None
    if mode == "cutbody":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
    ls = loopback.listen(port_file)
    held = []
    while True:
        conn, _ = ls.accept()
        if mode == "stall":
            serve_stall(conn, held)
        elif mode == "plain":
            threading.Thread(target=serve_plain, args=(conn, held), daemon=True).start()
        else:
            threading.Thread(target=serve_cutbody, args=(conn, ctx), daemon=True).start()


if __name__ == "__main__":
    main()
