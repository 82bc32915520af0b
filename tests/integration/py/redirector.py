"""A loopback HTTP/1.1 server of redirects, for flows' checks on the
final response (test_flow_habits.sh), keep-alive throughout:

  /away   302 to another origin (http://other.invalid/x)
  /here   302 to /ok, on this server
  /ok     200, body "ok"

Usage: redirector.py PORT_FILE SECONDS (it exits after SECONDS)."""
import sys

from loopback import heads, listen, serve_for


def answer(path):
    if path == "/away":
        return b"HTTP/1.1 302 Found\r\nLocation: http://other.invalid/x\r\nContent-Length: 0\r\n\r\n"
    if path == "/here":
        return b"HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 0\r\n\r\n"
    return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def serve(conn):
    try:
        for head in heads(conn):
            conn.sendall(answer(head.split(b"\r\n", 1)[0].split(b" ")[1].decode()))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    serve_for(listen(sys.argv[1]), float(sys.argv[2]), serve)


if __name__ == "__main__":
    main()
