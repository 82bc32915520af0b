"""An HTTP proxy that answers CONNECT oddly on purpose, for the tunnel's
failure tests (test_proxy_answers.sh).

usage: proxy_misbehave.py MODE PORT_FILE TARGET_PORT

Each connection's CONNECT head is read whole (the request line is logged
to stdout, one line each, flushed), then, by MODE:
  minimal  "HTTP/1.1 200\\r\\n\\r\\n" (no reason phrase), then the bytes
           relayed both ways to 127.0.0.1:TARGET_PORT
  split    "HTTP/1.0 200 Connection established\\r\\n\\r\\n" one byte at a
           time, 5 ms apart, then relayed
  garbage  "hello there\\r\\n\\r\\n" (no status line), then closes
  close    closes without a word
  long     a 200 status line and 4000 bytes of headers, no end, then holds
  stall    never answers (holds the socket)
  refuse   "HTTP/1.1 502 Bad\\x01Gateway\\r\\nContent-Length: 5\\r\\n\\r\\nnope!"
           then closes (a control byte in the reason phrase)

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening);
exits by itself after 60 s.
"""
import os
import socket
import sys
import threading
import time

import loopback

LIFETIME_S = 60


def relay(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def tunnel(conn, target_port):
    up = socket.create_connection(("127.0.0.1", target_port), timeout=30)
    threading.Thread(target=relay, args=(up, conn), daemon=True).start()
    relay(conn, up)


def serve(conn, mode, target_port, held, log):
    try:
        buf = b""
        while b"\r\n\r\n" not in buf:
            data = conn.recv(4096)
            if not data:
                return
            buf += data
        with log:
            print(buf.split(b"\r\n", 1)[0].decode("latin-1"), flush=True)
        if mode == "minimal":
            conn.sendall(b"HTTP/1.1 200\r\n\r\n")
            tunnel(conn, target_port)
        elif mode == "split":
            for byte in b"HTTP/1.0 200 Connection established\r\n\r\n":
                conn.sendall(bytes([byte]))
                time.sleep(0.005)
            tunnel(conn, target_port)
        elif mode == "garbage":
            conn.sendall(b"hello there\r\n\r\n")
        elif mode == "long":
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"p" * 4000 + b"\r\n")
            held.append(conn)
            return
        elif mode == "stall":
            held.append(conn)
            return
        elif mode == "refuse":
            conn.sendall(b"HTTP/1.1 502 Bad\x01Gateway\r\nContent-Length: 5\r\n\r\nnope!")
        conn.close()
    except OSError:
        conn.close()


def main():
    mode, port_file, target_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode not in ("minimal", "split", "garbage", "close", "long", "stall", "refuse"):
        sys.exit(f"proxy_misbehave.py: unknown mode {mode!r}")
    threading.Timer(LIFETIME_S, lambda: os._exit(0)).start()
    ls = loopback.listen(port_file)
    held, log = [], threading.Lock()
    loopback.serve_for(ls, LIFETIME_S, serve, 30, (mode, target_port, held, log))


if __name__ == "__main__":
    main()
