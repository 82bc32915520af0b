"""A loopback HTTP/1.1 server that answers badly on purpose, one way per
path, for the reports of what went wrong (read failures by cause, the
first error body, --show-errors):

  /drop       closes without answering
  /head       half a head, then a close
  /reset      reads the request, then resets the connection (RST)
  /cut        Content-Length: 100 and 5 bytes of body, then a close
  /cutchunk   a chunked body cut after its first 5-byte chunk
  /plain400   nginx's answer to plain HTTP on its TLS port (400)
  /status/N   status N with an X-Volley-Test header and a body naming it

Usage: misanswer.py PORT_FILE SECONDS (it exits after SECONDS)."""
import socket
import struct
import sys

from loopback import heads, listen, serve_for

PLAIN400 = (b"<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\r\n"
            b"<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n"
            b"<center>The plain HTTP request was sent to HTTPS port</center>\r\n"
            b"<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def answer(path):
    """The bytes to send for path, and how to end: "close", "reset" or
    "keep"."""
    if path == "/drop":
        return b"", "close"
    if path == "/head":
        return b"HTTP/1.1 200 OK\r\nContent-Le", "close"
    if path == "/reset":
        return b"", "reset"
    if path == "/cut":
        return b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello", "close"
    if path == "/cutchunk":
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", "close"
    if path == "/plain400":
        return (b"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Type: text/html\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(PLAIN400) + PLAIN400), "close"
    if path.startswith("/status/"):
        code = int(path[8:])
        body = b"failed: \"%d\"\n\x01" % code
        return (b"HTTP/1.1 %d Whatever\r\nX-Volley-Test: %s\r\nContent-Length: %d\r\n\r\n"
                % (code, path.encode(), len(body)) + body), "keep"
    return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "keep"


def serve(conn):
    try:
        for head in heads(conn):
            path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
            out, end = answer(path)
            if out:
                conn.sendall(out)
            if end == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if end == "close":
                conn.shutdown(socket.SHUT_WR)
                return
    except OSError:
        pass
    finally:
        conn.close()


def main():
    serve_for(listen(sys.argv[1]), float(sys.argv[2]), serve)


if __name__ == "__main__":
    main()
