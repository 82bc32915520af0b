"""A loopback HTTP/1.1 server of redirects, for flows' checks on the
final response (test_flow_habits.sh), keep-alive throughout:

  /away   302 to another origin (http://other.invalid/x)
  /here   302 to /ok, on this server
  /ok     200, body "ok"

Usage: redirector.py PORT_FILE SECONDS (it exits after SECONDS)."""
import socket
import sys
import threading
import time

from loopback import listen


def answer(path):
    if path == "/away":
        return b"HTTP/1.1 302 Found\r\nLocation: http://other.invalid/x\r\nContent-Length: 0\r\n\r\n"
    if path == "/here":
        return b"HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 0\r\n\r\n"
    return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def serve(conn):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            conn.sendall(answer(head.split(b"\r\n", 1)[0].split(b" ")[1].decode()))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    ls = listen(sys.argv[1])
    end = time.monotonic() + float(sys.argv[2])
    ls.settimeout(0.2)
    while time.monotonic() < end:
        try:
            conn, _ = ls.accept()
        except socket.timeout:
            continue
        conn.settimeout(5)
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
