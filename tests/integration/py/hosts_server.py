"""A loopback HTTP/1.1 server on a given address, for flows that reach
other hosts (test_flow_hosts.sh). Every request adds one line to LOG,
written as it comes (flushed):

    <conn> <METHOD> <target> <host> <cookie>

conn: the connection's number on this server (from 1, in accept order);
host: its Host header; cookie: its Cookie header, or - if none.

  /set/NAME          Set-Cookie: NAME=1; Path=/
  /domain/NAME/D     Set-Cookie: NAME=1; Domain=D; Path=/
  /go?URL            302, Location: URL
  anything else      200 "ok"

Usage: hosts_server.py ADDR PORT_FILE LOG SECONDS (it exits after
SECONDS)."""
import itertools
import os
import socket
import sys
import threading

from loopback import heads, serve_for

LOCK = threading.Lock()
CONNS = itertools.count(1)


def listen(addr, port_file):
    """loopback.listen on addr (any of 127.0.0.0/8)."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, 0))
    ls.listen(128)
    tmp = f"{port_file}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{ls.getsockname()[1]}\n")
    os.rename(tmp, port_file)
    return ls


def answer(target):
    if target.startswith("/set/"):
        return 200, [b"Set-Cookie: %s=1; Path=/" % target[5:].encode()]
    if target.startswith("/domain/"):
        name, _, domain = target[8:].partition("/")
        return 200, [b"Set-Cookie: %s=1; Domain=%s; Path=/" % (name.encode(), domain.encode())]
    if target.startswith("/go?"):
        return 302, [b"Location: " + target[4:].encode()]
    return 200, []


def serve(conn, log):
    with LOCK:
        n = next(CONNS)
    try:
        for head in heads(conn):
            lines = head.split(b"\r\n")
            method, target = lines[0].split(b" ")[:2]
            host, cookie = b"-", b"-"
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"host":
                    host = value.strip()
                elif name == b"cookie":
                    cookie = value.strip().replace(b" ", b"")
            with LOCK:
                log.write("%d %s %s %s %s\n" % (n, method.decode(), target.decode(), host.decode(), cookie.decode()))
                log.flush()
            status, extra = answer(target.decode())
            conn.sendall(b"\r\n".join([b"HTTP/1.1 %d X" % status] + extra + [b"Content-Length: 2", b"", b"ok"]))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    addr, port_file, log, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with open(log, "w") as f:
        serve_for(listen(addr, port_file), seconds, serve, args=(f,))


if __name__ == "__main__":
    main()
