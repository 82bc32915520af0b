"""A server-sent events server for stream tests: every request on a
keep-alive connection is answered 200 with a chunked text/event-stream
body of --events events ("data: tok"), then a usage event
('data: {"usage": N}', N = --events) and "data: [DONE]". With --stall-ms
it waits that long before each event. Usage: sse_server.py PORT_FILE
SECONDS [--events N] [--stall-ms MS]."""
import argparse
import socket
import time

import loopback


def event(data):
    body = f"data: {data}\n\n".encode()
    return b"%x\r\n%s\r\n" % (len(body), body)


def serve(conn, n, stall):
    # each event its own segment at once (no Nagle wait behind the client's delayed ACK)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        for _ in loopback.heads(conn):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            for _ in range(n):
                if stall:
                    time.sleep(stall / 1000)
                conn.sendall(event("tok"))
            conn.sendall(event('{"usage": %d}' % n) + event("[DONE]") + b"0\r\n\r\n")
    except OSError:
        pass
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port_file")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--events", type=int, default=5)
    ap.add_argument("--stall-ms", type=int, default=0)
    a = ap.parse_args()
    ls = loopback.listen(a.port_file)
    loopback.serve_for(ls, a.seconds, serve, args=(a.events, a.stall_ms))


if __name__ == "__main__":
    main()
