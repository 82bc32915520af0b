"""A listener whose connects never complete: its accept queue is full and
it accepts nothing more, so the kernel drops the SYN of every new connect
and connect() waits (until the client gives up, or the SYN retries run out
after about two minutes). Loopback only.

    full_backlog.py PORT_FILE MAX_SECONDS [SERVE]

With SERVE > 0 it first answers SERVE HTTP/1.0 requests, one connection at
a time, "200 OK" with a 5-byte body, then the connection is closed;
connections that close without a request (a client's start-up checks) do
not count. The queue is filled before the last answer goes out, so the
client's next connect is the first one that hangs. It exits after
MAX_SECONDS whatever happens."""
import os
import select
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loopback  # noqa: E402


def fill(ls):
    """Makes ls's accept queue full: backlog 0 (one connection waits), then
    connects to it until a connect does not complete (its SYN was dropped).
    Returns the sockets, which must stay open."""
    ls.listen(0)  # Linux: listen() again only sets the backlog
    port = ls.getsockname()[1]
    held = []
    for _ in range(20):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        held.append(c)
        _, w, _ = select.select([], [c], [], 0.3)
        if not w:
            return held
    raise SystemExit("full_backlog.py: the accept queue never filled")


def serve(ls, n):
    served = 0
    while served < n:
        conn, _ = ls.accept()
        conn.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        if b"\r\n\r\n" not in data:
            conn.close()
            continue
        served += 1
        held = fill(ls) if served == n else None
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        conn.close()
    return held


def main():
    port_file, max_seconds = sys.argv[1], float(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    threading.Timer(max_seconds, lambda: os._exit(0)).start()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    held = fill(ls) if n == 0 else None
    tmp = f"{port_file}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{ls.getsockname()[1]}\n")
    os.rename(tmp, port_file)
    if n > 0:
        held = serve(ls, n)
    threading.Event().wait()  # keeps ls and held open until the timer
    del held


main()
