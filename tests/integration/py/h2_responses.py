"""h2_misbehave.py's modes whose responses are framed wrong or unusually,
for volley's tests of how a response ends (tests/integration/test_h2_responses.sh).

Each mode changes only how an answer goes out (h2_misbehave.Conn calls
schedule() when a request has ended and answer() when it is due); the
connection, its counters and its settings are h2_misbehave's. Every counter
of KEYS is written before the bytes of the event it counts are sent.

  rstmid     HEADERS with content-length 1000, 5 DATA bytes ("hello"), then
             RST_STREAM(NO_ERROR): a response cut short (counted: cut)
  shortbody  END_STREAM with DATA that disagrees with content-length, in
             turn: 5 bytes ("hello") under content-length 10 (short), then
             11 ("hello world") under content-length 5 (long)
  trailers   200, content-length 5, DATA "hello", then a trailing HEADERS
             (END_STREAM) "x-trailer: yes" (counted: trailers, and answered)
  batch      holds each request until H2_BATCH (4) are held on the
             connection, then answers them all ("hello world") in a single
             write, so that their responses arrive in one read (counted:
             batches, and answered)
"""
from h2.errors import ErrorCodes

import os

MODES = ("rstmid", "shortbody", "trailers", "batch")
KEYS = ("cut", "short", "long", "trailers", "batches")


def handles(mode):
    return mode in MODES


def schedule(conn, sid):
    """A request has ended. Returns True when this module holds it (batch);
    else the caller answers it as usual (through answer())."""
    if conn.mode != "batch":
        return False
    held = conn.__dict__.setdefault("held", [])
    held.append(sid)
    if len(held) >= int(os.environ.get("H2_BATCH", 4)):
        conn.stats.add("batches")
        for s in held:
            _whole(conn, s, b"hello world")
        held.clear()
    return True   # the caller's flush writes them together


def answer(conn, sid):
    """Answers stream sid as the mode says."""
    h = conn.h
    if conn.mode == "rstmid":
        conn.stats.add("cut")
        h.send_headers(sid, [(b":status", b"200"), (b"content-length", b"1000")])
        h.send_data(sid, b"hello")
        h.reset_stream(sid, ErrorCodes.NO_ERROR)
        _done(conn, sid)
    elif conn.mode == "shortbody":
        n = conn.stats.next_stream()
        kind, length, body = ("short", 10, b"hello") if n % 2 else ("long", 5, b"hello world")
        conn.stats.add(kind)
        h.send_headers(sid, [(b":status", b"200"), (b"content-length", str(length).encode())])
        h.send_data(sid, body, end_stream=True)
        _done(conn, sid)
    elif conn.mode == "trailers":
        conn.stats.add("trailers")
        conn.stats.add("answered")
        h.send_headers(sid, [(b":status", b"200"), (b"content-length", b"5")])
        h.send_data(sid, b"hello")
        h.send_headers(sid, [(b"x-trailer", b"yes")], end_stream=True)
        _done(conn, sid)
    else:
        _whole(conn, sid, b"hello world")


def _whole(conn, sid, body):
    conn.stats.add("answered")
    conn.h.send_headers(sid, [(b":status", b"200"), (b"content-length", str(len(body)).encode())])
    conn.h.send_data(sid, body, end_stream=True)
    _done(conn, sid)


def _done(conn, sid):
    conn.req.pop(sid, None)
    conn.open.discard(sid)
