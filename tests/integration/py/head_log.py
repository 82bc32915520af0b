"""A server that writes down the head of every request it gets, for the
tests of what volley sends (tests/integration/http/test_user_agent.sh).

    head_log.py PORT_FILE LOG [SECONDS]

Listens on a free port of 127.0.0.1 (written to PORT_FILE once it listens) and speaks HTTP/1.x or cleartext HTTP/2 with
prior knowledge (a connection that opens with the HTTP/2 preface). Each
request adds one JSON line to LOG once its head is in, before it is
answered: {"proto": "h1", "path": ..., "head": the head's bytes as
received (request line through the blank line, latin-1), "headers":
[[name, value], ...], "body": its Content-Length bytes (latin-1)} or {"proto": "h2", "path": ..., "headers": the
header list as received, pseudo-headers included}. Every request gets 200
with a 2-byte body ("ok"). It exits after SECONDS (60). Needs python3-h2:
run it with /usr/bin/python3.
"""
import json
import os
import socketserver
import sys
import threading

import h2.config
import h2.connection
import h2.events

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
LOCK = threading.Lock()


def record(log, entry):
    with LOCK, open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        buf = b""
        while len(buf) < len(PREFACE) and PREFACE.startswith(buf):
            chunk = sock.recv(65536)
            if not chunk:
                return
            buf += chunk
        if buf.startswith(PREFACE):
            self.h2(sock, buf)
        else:
            self.h1(sock, buf)

    def h1(self, sock, buf):
        while True:
            while b"\r\n\r\n" not in buf:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
            end = buf.index(b"\r\n\r\n") + 4
            head, buf = buf[:end], buf[end:]
            lines = head.decode("latin-1").split("\r\n")
            headers = [line.split(":", 1) for line in lines[1:] if line]
            headers = [[n, v.strip(" \t")] for n, v in headers]
            length = sum(int(v) for n, v in headers if n.lower() == "content-length")
            while len(buf) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[:length], buf[length:]
            record(self.server.log, {"proto": "h1", "path": lines[0].split(" ")[1],
                                     "head": head.decode("latin-1"), "headers": headers,
                                     "body": body.decode("latin-1")})
            close = lines[0].endswith("HTTP/1.0") and not any(
                n.lower() == "connection" and v.lower() == "keep-alive" for n, v in headers)
            close = close or any(n.lower() == "connection" and v.lower() == "close" for n, v in headers)
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                         + (b"Connection: close\r\n" if close else b"") + b"\r\nok")
            if close:
                return

    def h2(self, sock, buf):
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        data = buf
        while True:
            for ev in conn.receive_data(data):
                if isinstance(ev, h2.events.RequestReceived):
                    headers = [[n.decode("latin-1"), v.decode("latin-1")] for n, v in ev.headers]
                    path = next((v for n, v in headers if n == ":path"), "")
                    record(self.server.log, {"proto": "h2", "path": path, "headers": headers})
                    conn.send_headers(ev.stream_id, [(":status", "200"), ("content-length", "2")])
                    conn.send_data(ev.stream_id, b"ok", end_stream=True)
                elif isinstance(ev, h2.events.DataReceived):
                    conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    sock.sendall(conn.data_to_send())
                    return
            out = conn.data_to_send()
            if out:
                sock.sendall(out)
            data = sock.recv(65536)
            if not data:
                return


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    port_file, log = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    srv = Server(("127.0.0.1", 0), Handler)
    srv.log = log
    with open(port_file + ".tmp", "w") as f:
        f.write(f"{srv.server_address[1]}\n")
    os.rename(port_file + ".tmp", port_file)
    threading.Timer(seconds, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
