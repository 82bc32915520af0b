"""A small, strict HTTP/2 client for checking the HTTP/2 test servers.

usage: /usr/bin/python3 h2_get.py [options] HOST PORT

  --tls             TLS with ALPN h2 (verified against --ca if given)
  --ca FILE         CA certificate for --tls
  -n N              requests in all (default 1)
  -m M              streams open at once per connection (default 1), and
                    never more than the server's SETTINGS_MAX_CONCURRENT_STREAMS
  --path P          request path (default /)
  --post BYTES      POST a body of BYTES bytes instead of a GET
  --timeout S       gives up after S seconds without any input (default 10)
  --eager           opens streams before the server's SETTINGS arrive
  --ignore-limit    ignores the server's SETTINGS_MAX_CONCURRENT_STREAMS (a
                    client that breaks the rules)
  -v                one line per response: resp STREAM STATUS BODY_LENGTH BODY[:20]

Opens connections one after another until N requests are answered or reset.
After a GOAWAY it opens no stream on that connection, finishes the streams up
to its last_stream_id and retries the later ones on a new connection. The last
line is
  result ok=A reset=B goaways=C conns=D retried=E unanswered=F bytes=G error=E
(reset: streams reset by the server; error: none, timeout, protocol (an
HTTP/2 protocol error from the server), closed (closed with streams open) or
tls). Exit status 0 if all N got a 200, 1 if not, 3 on a timeout, 4 on a
protocol error or a close with streams open, 5 on a TLS failure.
"""
import argparse
import collections
import socket
import ssl
import sys

import h2.config
import h2.events
import h2.exceptions
from h2.settings import SettingCodes

from h2_common import H2Connection, pattern


class Fatal(Exception):
    pass


class Client:
    def __init__(self, a):
        self.a = a
        self.todo = a.n
        self.r = dict(ok=0, reset=0, goaways=0, conns=0, retried=0, unanswered=0, bytes=0)
        self.body = pattern(a.post) if a.post is not None else b""

    def connect(self):
        s = socket.create_connection((self.a.host, self.a.port), timeout=self.a.timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.a.tls:
            ctx = ssl.create_default_context(cafile=self.a.ca) if self.a.ca else ssl._create_unverified_context()
            ctx.set_alpn_protocols(["h2"])
            try:
                s = ctx.wrap_socket(s, server_hostname=self.a.host)
            except ssl.SSLError as e:
                raise Fatal(("tls", str(e)))
            if s.selected_alpn_protocol() != "h2":
                raise Fatal(("tls", f"ALPN {s.selected_alpn_protocol()!r}"))
        self.r["conns"] += 1
        return s

    def run_connection(self):
        a = self.a
        s = self.connect()
        h = H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        h.initiate_connection()
        s.sendall(h.data_to_send())
        streams = {}          # stream id -> [status, body length, body prefix, bytes left to send]
        have_settings = a.eager
        first = b""           # the start of the server's input, until it is a SETTINGS header
        last = None           # last_stream_id of a GOAWAY received
        try:
            while True:
                if have_settings and last is None:
                    limit = min(a.m, h.remote_settings.max_concurrent_streams)
                    while self.todo > 0 and len(streams) < limit:
                        sid = h.get_next_available_stream_id()
                        method = b"POST" if a.post is not None else b"GET"
                        hdrs = [(b":method", method), (b":scheme", b"https" if a.tls else b"http"),
                                (b":authority", f"{a.host}:{a.port}".encode()), (b":path", a.path.encode())]
                        if a.post is not None:
                            hdrs.append((b"content-length", str(len(self.body)).encode()))
                        h.send_headers(sid, hdrs, end_stream=a.post is None)
                        streams[sid] = [None, 0, b"", memoryview(self.body) if a.post is not None else None]
                        self.todo -= 1
                for sid, st in streams.items():
                    buf = st[3]
                    while buf is not None:
                        n = min(h.local_flow_control_window(sid), h.max_outbound_frame_size, len(buf))
                        if n <= 0 and len(buf) > 0:
                            break
                        h.send_data(sid, buf[:n].tobytes(), end_stream=n == len(buf))
                        buf = buf[n:] if n < len(buf) else None
                    st[3] = buf
                out = h.data_to_send()
                if out:
                    s.sendall(out)
                if not streams and (self.todo == 0 or last is not None):
                    return
                try:
                    data = s.recv(65536)
                except socket.timeout:
                    raise Fatal(("timeout", f"{len(streams)} streams open"))
                if not data:
                    self.r["unanswered"] += len(streams)
                    raise Fatal(("closed", f"{len(streams)} streams open"))
                if first is not None:
                    # h2 would wait for all of a frame whose length is
                    # garbage; a server's preface starts with SETTINGS.
                    first += data
                    if len(first) >= 9:
                        if first[3] != 4 or first[5:9] != bytes(4) or int.from_bytes(first[:3], "big") > 16384:
                            self.r["unanswered"] += len(streams)
                            raise Fatal(("protocol", f"not a SETTINGS frame: {first[:9]!r}"))
                        first = None
                try:
                    events = h.receive_data(data)
                except h2.exceptions.ProtocolError as e:
                    self.r["unanswered"] += len(streams)
                    raise Fatal(("protocol", repr(e)))
                for ev in events:
                    if isinstance(ev, h2.events.RemoteSettingsChanged):
                        have_settings = True
                        if a.ignore_limit:   # h2 would enforce it when sending
                            h.remote_settings._settings[SettingCodes.MAX_CONCURRENT_STREAMS] = \
                                collections.deque([2**31 - 1])
                    elif isinstance(ev, h2.events.ResponseReceived):
                        streams[ev.stream_id][0] = dict(ev.headers).get(b":status", b"?").decode()
                    elif isinstance(ev, h2.events.DataReceived):
                        st = streams.get(ev.stream_id)
                        if st is not None:
                            st[1] += len(ev.data)
                            if len(st[2]) < 20:
                                st[2] = (st[2] + ev.data)[:20]
                        self.r["bytes"] += len(ev.data)
                        h.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    elif isinstance(ev, h2.events.StreamEnded):
                        st = streams.pop(ev.stream_id, None)
                        if st is None:
                            continue
                        if st[0] == "200":
                            self.r["ok"] += 1
                        if a.v:
                            print(f"resp {ev.stream_id} {st[0]} {st[1]} {st[2].decode(errors='replace')!r}")
                    elif isinstance(ev, h2.events.StreamReset):
                        if streams.pop(ev.stream_id, None) is not None:
                            self.r["reset"] += 1
                            if a.v:
                                print(f"reset {ev.stream_id} {getattr(ev.error_code, 'name', ev.error_code)}")
                    elif isinstance(ev, h2.events.ConnectionTerminated):
                        self.r["goaways"] += 1
                        last = ev.last_stream_id
                        if a.v:
                            print(f"goaway {last} {getattr(ev.error_code, 'name', ev.error_code)}")
                        for sid in [sid for sid in streams if sid > last]:
                            del streams[sid]
                            self.todo += 1
                            self.r["retried"] += 1
                out = h.data_to_send()
                if out:
                    s.sendall(out)
        finally:
            s.close()

    def run(self):
        error, why = "none", ""
        try:
            while self.todo > 0:
                self.run_connection()
        except Fatal as e:
            error, why = e.args[0]
        except OSError as e:
            error, why = "closed", repr(e)
        if why:
            print(f"error: {why}", file=sys.stderr)
        print("result " + " ".join(f"{k}={v}" for k, v in self.r.items()) + f" error={error}")
        if error != "none":
            return {"timeout": 3, "tls": 5}.get(error, 4)
        return 0 if self.r["ok"] == self.a.n else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tls", action="store_true")
    p.add_argument("--ca")
    p.add_argument("-n", type=int, default=1)
    p.add_argument("-m", type=int, default=1)
    p.add_argument("--path", default="/")
    p.add_argument("--post", type=int)
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--eager", action="store_true")
    p.add_argument("--ignore-limit", action="store_true")
    p.add_argument("-v", action="store_true")
    p.add_argument("host")
    p.add_argument("port", type=int)
    sys.exit(Client(p.parse_args()).run())


if __name__ == "__main__":
    main()
