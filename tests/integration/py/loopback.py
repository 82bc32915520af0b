"""What the test servers share: a listener on a free loopback port whose
number reaches the test through a file written whole (temporary file, then
rename), so a reader never sees half of it; a bounded accept loop that
serves each connection on a thread of its own; and the request heads of a
keep-alive connection, one after another."""
import os
import socket
import threading
import time


def listen(port_file):
    """Listens on 127.0.0.1 (a free port), publishes the port in port_file
    and returns the listening socket."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)
    tmp = f"{port_file}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{ls.getsockname()[1]}\n")
    os.rename(tmp, port_file)
    return ls


def serve_for(ls, seconds, serve, timeout=5, args=()):
    """Accepts on ls for seconds, then returns; each connection (timeout:
    its socket's) is served by serve(conn, *args) on a daemon thread."""
    end = time.monotonic() + seconds
    ls.settimeout(0.2)
    while time.monotonic() < end:
        try:
            conn, _ = ls.accept()
        except socket.timeout:
            continue
        conn.settimeout(timeout)
        threading.Thread(target=serve, args=(conn,) + tuple(args), daemon=True).start()


def heads(conn, max_head=None, chunk=65536):
    """The request heads conn sends (bytes, without the blank line), one
    at a time, until it closes (or sends a head longer than max_head).
    Bodies are not read: the servers that use this answer bodiless
    requests. OSError goes to the caller."""
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            if max_head is not None and len(buf) > max_head:
                return
            data = conn.recv(chunk)
            if not data:
                return
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        yield head
