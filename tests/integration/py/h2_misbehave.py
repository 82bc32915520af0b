"""A loopback HTTP/2 server that misbehaves on purpose, for volley's HTTP/2 tests.

usage: /usr/bin/python3 h2_misbehave.py MODE PORT_FILE STATS_FILE [CERT KEY]

Runs under Debian's /usr/bin/python3 (python3-h2). Cleartext HTTP/2 with prior
knowledge by default; with CERT and KEY, TLS with ALPN h2 (it speaks HTTP/2
whatever the client offered). Listens on 127.0.0.1, port chosen by the kernel,
written to PORT_FILE (via a rename) once listening. Exits by itself after
H2_LIFETIME_S seconds (default 60), whatever is going on.

Every answered request gets 200 with content-length: "hello world", or
1048576 bytes for a path starting with /big (the pattern
"a..zA..Z0..9-\\n"[i % 64]); in tinywindow mode a request with a body gets
its length in decimal. MODE changes that:

  ok          answers every request
  goaway      after H2_GOAWAY_AFTER (20) streams on a connection, sends GOAWAY
              (NO_ERROR) whose last_stream_id is that stream, answers the
              streams up to it, ignores later ones and closes the connection
              once the others are answered
  rst         RST_STREAM (H2_RST_CODE: INTERNAL_ERROR or REFUSED_STREAM or a
              number; default INTERNAL_ERROR) on every H2_RST_EVERY-th (3)
              stream received, counted over all connections; answers the others
  maxstreams  SETTINGS_MAX_CONCURRENT_STREAMS = H2_MAX_STREAMS (2), answers
              after H2_DELAY_MS (20) ms; streams over the limit once the
              client has acknowledged the settings are refused (REFUSED_STREAM)
  tinywindow  SETTINGS_INITIAL_WINDOW_SIZE = H2_WINDOW (100); the connection
              window stays at 65535; WINDOW_UPDATEs as the data is consumed
  stopread    reads the client's preface and SETTINGS, answers them, then
              never reads again and holds the connection open
  garbage     answers the preface with an HTTP/1.1 response (not HTTP/2 frames)
  malformed   every H2_BAD_EVERY-th (3) stream received, counted over all
              connections, gets a malformed response (RFC 9113 8.1-8.2), in
              turn: content-length one more than the body sent, a field name
              in upper case (X-Bad), a connection-specific field (connection);
              the others get the normal answer

and the modes of h2_responses.py (rstmid, shortbody, trailers, batch: how a
response ends), with their counters (cut, short, long, trailers, batches).

In every mode H2_MAX_STREAMS (128 but in maxstreams) is advertised and
H2_DELAY_MS (0 but in maxstreams) delays each answer. The stats file (JSON,
rewritten through a rename before any byte of the event it counts is sent)
holds:
  connections      TCP connections accepted
  closed           connections finished (by either side)
  tls_failed       TLS handshakes that failed
  received         streams opened by the client (HEADERS)
  answered         responses whose last byte was queued
  reset            RST_STREAMs sent (rst mode, refused streams)
  over_limit       streams refused for exceeding the advertised limit
  ignored          streams after a GOAWAY's last_stream_id (never answered)
  goaways          GOAWAYs sent (goaway mode, protocol errors)
  client_resets    RST_STREAMs received
  client_goaways   GOAWAYs received
  body_bytes       request body bytes received
  max_open         most streams open at once once the client had acknowledged
                   our SETTINGS (what it is bound by)
  max_open_all     most streams open at once at any time (before the
                   acknowledgement a client may open more)
  protocol_errors  connections ended by an HTTP/2 protocol error of the client
  garbage_sent     garbage answers sent
  malformed        malformed responses sent (malformed mode)
  bad_length, bad_name, bad_connection
                   the same by kind

Modes on the connection's life (no stream can open, or none is processed):

  nosettings  never sends anything (no SETTINGS, no answer): reads and counts
              the client's HEADERS frames as received, until the client closes
  maxstreams0 SETTINGS_MAX_CONCURRENT_STREAMS = 0; every stream received is
              refused (REFUSED_STREAM, counted as reset and over_limit)
  first0      SETTINGS_MAX_CONCURRENT_STREAMS = 0; the streams received
              before the client acknowledged it (the one a client sends with
              its preface) are answered, later ones refused (over_limit)
  silent0     SETTINGS_MAX_CONCURRENT_STREAMS = 0; the streams received are
              neither answered nor refused (held until the client closes)
  lower0      H2_MAX_STREAMS as in ok mode; once H2_LOWER_AFTER (3) streams
              are answered on a connection, a new SETTINGS lowers it to 0
              (counted as lowered); later streams are refused (over_limit)
  goaway0     SETTINGS, then at once GOAWAY (H2_GOAWAY_CODE: NO_ERROR or a
              name or a number) with last_stream_id 0; every stream is
              ignored; closes after the client's first bytes
RST_STREAM REFUSED_STREAM on every stream is rst mode with H2_RST_EVERY=1
H2_RST_CODE=REFUSED_STREAM.
"""
import collections
import heapq
import json
import os
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.events
import h2.exceptions
from h2.errors import ErrorCodes
from h2.settings import Settings, SettingCodes
from hyperframe.frame import GoAwayFrame, SettingsFrame

from h2_common import H2Connection, pattern

import h2_responses
import loopback

MODES = ("ok", "goaway", "rst", "maxstreams", "tinywindow", "stopread", "garbage", "malformed")
BAD_KINDS = ("bad_length", "bad_name", "bad_connection")
BIG = pattern(1048576)
HELLO = b"hello world"
GARBAGE = (b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
           b"Content-Length: 11\r\nConnection: close\r\n\r\nbad request")
KEYS = ("connections", "closed", "tls_failed", "received", "answered", "reset",
        "over_limit", "ignored", "goaways", "client_resets", "client_goaways",
        "body_bytes", "max_open", "max_open_all", "protocol_errors", "garbage_sent",
        "malformed", "lowered") + BAD_KINDS
UNLIMITED = 2**31 - 1
LIFE_MODES = ("nosettings", "maxstreams0", "goaway0", "first0", "silent0", "lower0")
ZERO_MODES = ("maxstreams0", "first0", "silent0")
MODES = MODES + LIFE_MODES


def env_int(name, default):
    return int(os.environ.get(name, default))


def env_code(name, default):
    """An HTTP/2 error code from the environment: a name (REFUSED_STREAM) or a number."""
    v = os.environ.get(name, default)
    return int(v) if v.isdigit() else int(ErrorCodes[v])


class Stats:
    """Counters shared by the connection threads, written out on each change."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.c = {k: 0 for k in KEYS + h2_responses.KEYS}
        self.streams = 0   # over all connections, for rst mode
        self.write()

    def write(self):
        tmp = f"{self.path}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(self.c, f)
        os.replace(tmp, self.path)

    def add(self, key, n=1):
        with self.lock:
            self.c[key] += n
            self.write()

    def high(self, key, value):
        with self.lock:
            if value > self.c[key]:
                self.c[key] = value
                self.write()

    def next_stream(self):
        with self.lock:
            self.streams += 1
            return self.streams


class Conn:
    """One HTTP/2 connection, served by its own thread with blocking I/O."""

    def __init__(self, sock, mode, stats, tls):
        self.sock, self.mode, self.stats, self.tls = sock, mode, stats, tls
        self.limit = env_int("H2_MAX_STREAMS", 2 if mode == "maxstreams" else 128)
        self.delay = env_int("H2_DELAY_MS", 20 if mode == "maxstreams" else 0) / 1000
        self.out = bytearray()
        self.req = {}          # stream id -> [path, request body length]
        self.pending = {}      # stream id -> response bytes not yet sent
        self.open = set()      # streams open as this server counts them
        self.timers = []       # heap of (due, stream id)
        self.acked = False     # the client acknowledged our SETTINGS
        self.count = 0         # streams received on this connection
        self.last = None       # last_stream_id of the GOAWAY we sent
        self.stop = False
        self.answered = 0      # streams answered on this connection (lower0)
        if mode in ZERO_MODES:
            self.limit = 0

    def run(self):
        if self.mode == "garbage":
            return self.garbage()
        if self.mode == "nosettings":
            return self.nosettings()
        # malformed: h2 must send the fields as given (no checks, no lower-casing)
        bad = self.mode == "malformed"
        h = self.h = H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding=None,
                                      validate_outbound_headers=not bad,
                                      normalize_outbound_headers=not bad))
        values = {SettingCodes.MAX_CONCURRENT_STREAMS: self.limit,
                  SettingCodes.MAX_HEADER_LIST_SIZE: 65536}
        window = env_int("H2_WINDOW", 100)
        if self.mode == "tinywindow":
            values[SettingCodes.INITIAL_WINDOW_SIZE] = window
        h.local_settings = Settings(client=False, initial_values=values)
        h.initiate_connection()
        # The preface carries our settings; h2's own view of them is adjusted
        # so that it neither enforces the stream limit (this server counts
        # and refuses, instead of a connection error) nor holds the client to
        # the small window before the client has acknowledged it.
        s = h.local_settings._settings
        s[SettingCodes.MAX_CONCURRENT_STREAMS] = collections.deque([UNLIMITED])
        if self.mode == "tinywindow":
            s[SettingCodes.INITIAL_WINDOW_SIZE] = collections.deque([65535, window])
        self.life_start()
        self.flush()
        while True:
            timeout = None
            if self.timers:
                # settimeout(0) would make the socket non-blocking
                timeout = max(0.001, self.timers[0][0] - time.monotonic())
            self.sock.settimeout(timeout)
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, BlockingIOError):
                data = None
            except (OSError, ssl.SSLError):
                break
            if data == b"":
                break
            if data:
                try:
                    events = h.receive_data(data)
                except h2.exceptions.ProtocolError:
                    self.stats.add("protocol_errors")
                    self.stats.add("goaways")    # h2 queued a GOAWAY
                    self.flush()
                    break
                for ev in events:
                    self.on_event(ev)
                    if self.stop:
                        break
            if self.stop:   # stopread: our SETTINGS ACK goes out, then nothing
                self.flush()
                time.sleep(3600)   # holds the socket; the lifetime timer ends us
            now = time.monotonic()
            while self.timers and self.timers[0][0] <= now:
                self.answer(heapq.heappop(self.timers)[1])
            self.send_pending()
            self.flush()
            if self.last is not None and not self.answerable():
                self.linger_close()
                return

    def on_event(self, ev):
        h = self.h
        if isinstance(ev, h2.events.RequestReceived):
            self.on_request(ev)
        elif isinstance(ev, h2.events.DataReceived):
            if ev.stream_id in self.req:
                self.req[ev.stream_id][1] += len(ev.data)
            self.stats.add("body_bytes", len(ev.data))
            h.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.schedule(ev.stream_id)
        elif isinstance(ev, h2.events.StreamReset):
            if ev.remote_reset:
                self.stats.add("client_resets")
            self.forget(ev.stream_id)
        elif isinstance(ev, h2.events.SettingsAcknowledged):
            self.acked = True
        elif isinstance(ev, h2.events.RemoteSettingsChanged):
            if self.mode == "stopread":
                self.stop = True
        elif isinstance(ev, h2.events.ConnectionTerminated):
            self.stats.add("client_goaways")

    def on_request(self, ev):
        sid = ev.stream_id
        path = dict(ev.headers).get(b":path", b"/")
        self.stats.add("received")
        self.count += 1
        if self.last is not None and sid > self.last:
            self.stats.add("ignored")
            return
        if self.life_refuse(sid):
            return
        self.req[sid] = [path, 0, None]
        self.open.add(sid)
        self.stats.high("max_open_all", len(self.open))
        if self.acked:
            self.stats.high("max_open", len(self.open))
            if len(self.open) > self.limit:
                self.stats.add("over_limit")
                self.reset(sid, ErrorCodes.REFUSED_STREAM)
                return
        if self.mode == "rst" and self.stats.next_stream() % env_int("H2_RST_EVERY", 3) == 0:
            self.reset(sid, env_code("H2_RST_CODE", "INTERNAL_ERROR"))
            return
        if self.mode == "malformed":
            n = self.stats.next_stream()
            every = env_int("H2_BAD_EVERY", 3)
            if n % every == 0:
                self.req[sid][2] = BAD_KINDS[(n // every - 1) % len(BAD_KINDS)]
        if self.mode == "goaway" and self.count == env_int("H2_GOAWAY_AFTER", 20):
            self.last = sid
            self.out += self.h.data_to_send()
            f = GoAwayFrame(0, last_stream_id=sid, error_code=0)
            self.stats.add("goaways")
            self.out += f.serialize()

    def reset(self, sid, code):
        self.stats.add("reset")
        self.h.reset_stream(sid, code)
        self.forget(sid)

    def forget(self, sid):
        self.req.pop(sid, None)
        self.pending.pop(sid, None)
        self.open.discard(sid)

    def schedule(self, sid):
        if sid not in self.req:
            return
        if h2_responses.schedule(self, sid):
            return
        if self.delay > 0:
            heapq.heappush(self.timers, (time.monotonic() + self.delay, sid))
        else:
            self.answer(sid)

    def answer(self, sid):
        if sid not in self.req or sid in self.pending:
            return
        if h2_responses.handles(self.mode):
            return h2_responses.answer(self, sid)
        path, body_len, bad = self.req[sid]
        if path.startswith(b"/big"):
            body = BIG
        elif self.mode == "tinywindow" and body_len > 0:
            body = str(body_len).encode()
        else:
            body = HELLO
        length = len(body) + (bad == "bad_length")
        fields = [(b":status", b"200"), (b"content-type", b"text/plain"),
                  (b"content-length", str(length).encode())]
        if bad == "bad_name":
            fields.append((b"X-Bad", b"1"))
        elif bad == "bad_connection":
            fields.append((b"connection", b"close"))
        if bad:
            self.stats.add("malformed")
            self.stats.add(bad)
        self.h.send_headers(sid, fields)
        self.pending[sid] = memoryview(body)

    def send_pending(self):
        h = self.h
        for sid in list(self.pending):
            buf = self.pending[sid]
            while buf:
                n = min(h.local_flow_control_window(sid), h.max_outbound_frame_size, len(buf))
                if n <= 0:
                    break
                h.send_data(sid, buf[:n].tobytes())
                buf = buf[n:]
            if buf:
                self.pending[sid] = buf
                continue
            h.end_stream(sid)
            self.stats.add("answered")
            self.life_answered()
            self.req.pop(sid, None)
            del self.pending[sid]
            self.open.discard(sid)

    def answerable(self):
        return any(sid <= self.last for sid in self.req)

    def flush(self):
        self.out += self.h.data_to_send()
        if self.out:
            self.sock.settimeout(30)
            self.sock.sendall(self.out)
            self.out = bytearray()

    def linger_close(self):
        """Close after a GOAWAY: our FIN first, then read until the client's."""
        self.flush()
        sock = self.sock
        try:
            sock.settimeout(1)
            if self.tls:
                sock = sock.unwrap()
            sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and sock.recv(65536):
                pass
        except (OSError, ssl.SSLError, ValueError):
            pass
        sock.close()

    def garbage(self):
        try:
            self.sock.settimeout(5)
            self.sock.recv(65536)
            self.stats.add("garbage_sent")
            self.sock.sendall(GARBAGE)
            self.sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and self.sock.recv(65536):
                pass
        except (OSError, ssl.SSLError):
            pass


    # The modes on the connection's life (see the docstring's end).

    def life_start(self):
        """goaway0: GOAWAY with last_stream_id 0 right after our SETTINGS."""
        if self.mode != "goaway0":
            return
        self.last = 0
        self.out += self.h.data_to_send()
        self.stats.add("goaways")
        self.out += GoAwayFrame(0, last_stream_id=0, error_code=env_code("H2_GOAWAY_CODE", "NO_ERROR")).serialize()

    def life_refuse(self, sid):
        """maxstreams0: every stream is over the limit of 0: refused.
        silent0: every stream is held, never answered."""
        if self.mode == "silent0":
            return True
        if self.mode != "maxstreams0":
            return False
        self.stats.add("over_limit")
        self.reset(sid, ErrorCodes.REFUSED_STREAM)
        return True

    def life_answered(self):
        """lower0: after H2_LOWER_AFTER answers, a SETTINGS with a limit of 0.
        The frame is our own (h2's view of its settings stays unlimited, as
        in run()); later streams are refused as over the limit."""
        self.answered += 1
        if self.mode != "lower0" or self.answered != env_int("H2_LOWER_AFTER", 3):
            return
        self.limit = 0
        self.out += self.h.data_to_send()
        self.stats.add("lowered")
        self.out += SettingsFrame(0, settings={SettingCodes.MAX_CONCURRENT_STREAMS: 0}).serialize()

    def nosettings(self):
        """Sends nothing; counts the HEADERS frames after the preface."""
        buf = b""
        preface = 24
        self.sock.settimeout(None)
        while True:
            try:
                data = self.sock.recv(65536)
            except (OSError, ssl.SSLError):
                return
            if not data:
                return
            buf += data
            if preface:
                n = min(preface, len(buf))
                buf, preface = buf[n:], preface - n
            while len(buf) >= 9:
                length = int.from_bytes(buf[0:3], "big")
                if len(buf) < 9 + length:
                    break
                if buf[3] == 0x1:   # HEADERS
                    self.stats.add("received")
                buf = buf[9 + length:]


def serve(conn, mode, stats, ctx):
    stats.add("connections")
    try:
        if ctx is not None:
            conn.settimeout(10)
            try:
                conn = ctx.wrap_socket(conn, server_side=True)
            except (OSError, ssl.SSLError):
                stats.add("tls_failed")
                return
        Conn(conn, mode, stats, ctx is not None).run()
    except (OSError, ssl.SSLError):
        pass
    finally:
        conn.close()
        stats.add("closed")


def main():
    modes = MODES + h2_responses.MODES
    if len(sys.argv) not in (4, 6) or sys.argv[1] not in modes:
        sys.exit(f"usage: h2_misbehave.py {{{'|'.join(modes)}}} PORT_FILE STATS_FILE [CERT KEY]")
    mode, port_file, stats_file = sys.argv[1:4]
    ctx = None
    if len(sys.argv) == 6:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[4], sys.argv[5])
        ctx.set_alpn_protocols(["h2"])
    stats = Stats(stats_file)
    threading.Timer(env_int("H2_LIFETIME_S", 60), lambda: os._exit(0)).start()
    ls = loopback.listen(port_file)
    while True:
        conn, _ = ls.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(conn, mode, stats, ctx), daemon=True).start()


if __name__ == "__main__":
    main()
