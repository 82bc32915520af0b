#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/corpus_h2/: server byte streams for
fuzz_h2.c, each after one control byte (see tests/fuzz/README.md).

    python3 tests/fuzz/make_h2_corpus.py [DIR]     (default: corpus_h2 beside this file)

The harness opens streams 1, 3, 5 and 7 (GET /, GET /a, POST /p with a
5-byte body, POST /big with a 70000-byte body) before the first byte is
fed; the seeds answer them. Frames are a 9-byte header (24-bit length,
type, flags, 31-bit stream id) and a payload; header blocks are hand-made
HPACK (static table index 8 is ":status: 200")."""

import os
import struct
import sys

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIO = 0x1, 0x1, 0x4, 0x8, 0x20
NO_ERROR, PROTOCOL_ERROR, REFUSED_STREAM, CANCEL = 0x0, 0x1, 0x7, 0x8
# SETTINGS identifiers
HEADER_TABLE_SIZE, ENABLE_PUSH, MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE = 1, 2, 3, 4, 5


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", sid & 0x7FFFFFFF) + payload


def settings(*pairs, ack=False):
    return frame(SETTINGS, ACK if ack else 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def lit(name, value, first=0x00):
    """A literal header field with a new name, not Huffman coded: without
    indexing (first=0x00) or with incremental indexing (0x40)."""
    n, v = name.encode(), value.encode()
    assert len(n) < 127 and len(v) < 127
    return bytes([first, len(n)]) + n + bytes([len(v)]) + v


def status(code):
    """:status by its indexed name (static index 8), without indexing."""
    v = str(code).encode()
    return bytes([0x08, len(v)]) + v


STATUS_200 = b"\x88"
PREFACE = settings((MAX_CONCURRENT_STREAMS, 100), (INITIAL_WINDOW_SIZE, 65535), (MAX_FRAME_SIZE, 16384))
SETTINGS_ACK = settings(ack=True)
OPEN = PREFACE + SETTINGS_ACK


def headers(sid, block, end_stream=False, flags=END_HEADERS):
    return frame(HEADERS, flags | (END_STREAM if end_stream else 0), sid, block)


def data(sid, body, end_stream=True):
    return frame(DATA, END_STREAM if end_stream else 0, sid, body)


def rst(sid, code):
    return frame(RST_STREAM, 0, sid, struct.pack(">I", code))


def goaway(last, code=NO_ERROR, debug=b""):
    return frame(GOAWAY, 0, 0, struct.pack(">II", last, code) + debug)


def window(sid, inc):
    return frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", inc))


def ping(ack=False):
    return frame(PING, ACK if ack else 0, 0, b"12345678")


def ok(sid, body=b"hello world"):
    return headers(sid, STATUS_200) + data(sid, body)


# Control byte (fuzz_h2.c): bits 0-4 the piece sizes (0: one piece), bit 5 a
# 16 MiB receive window, bit 6 reopen closed streams between pieces, bit 7
# cancel stream 3 after the first piece.
SEEDS = {
    # every stream answered; the big body needs the window updates
    "all-ok": (0x00, OPEN + ok(1) + headers(3, STATUS_200, end_stream=True) + window(0, 1 << 20)
               + window(5, 1 << 20) + window(7, 1 << 20) + ok(5) + ok(7, b"x" * 100) + ping() + goaway(7)),
    "all-ok-bytewise": (0x01, OPEN + ok(1) + ok(3) + window(0, 100000) + window(7, 100000) + ok(5) + ok(7)),
    "all-ok-pieces-window": (0x2B, OPEN + ok(1) + ok(3) + ok(5) + window(0, 70000) + window(7, 70000) + ok(7)),
    "headers-literal": (0x05, OPEN + headers(1, STATUS_200 + lit("content-type", "text/plain")
                                             + lit("x-trace", "abc", first=0x40) + lit("content-length", "2"))
                        + data(1, b"hi") + headers(3, status(404) + b"\xbe", end_stream=True)),
    "interim-trailers": (0x07, OPEN + headers(1, status(100)) + headers(1, STATUS_200) + data(1, b"body", False)
                         + headers(1, lit("grpc-status", "0"), end_stream=True)),
    "continuation": (0x09, OPEN + headers(1, STATUS_200, flags=0) + frame(CONTINUATION, 0, 1, lit("a", "b"))
                     + frame(CONTINUATION, END_HEADERS, 1, lit("c", "d")) + data(1, b"")),
    "padded-priority": (0x0C, OPEN + headers(1, b"\x03" + STATUS_200 + b"\0\0\0", flags=END_HEADERS | PADDED)
                        + frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 15))
                        + frame(DATA, END_STREAM | PADDED, 1, b"\x04hello\0\0\0\0")),
    "rst-streams": (0x00, OPEN + rst(1, CANCEL) + headers(3, STATUS_200) + rst(3, NO_ERROR) + rst(5, REFUSED_STREAM)
                    + ok(7)),
    "goaway-last-1": (0x03, OPEN + ok(1) + goaway(1, NO_ERROR, b"shutting down")),
    "goaway-first": (0x00, PREFACE + goaway(0, PROTOCOL_ERROR)),
    # streams close as the pieces arrive; bit 6 reopens them, and the GOAWAY
    # comes while the reopened requests are still queued
    "reopen-goaway": (0x43, OPEN + ok(1) + ok(3) + ping() + goaway(7)),
    # the server allows no stream: the reopened requests wait in the session's
    # queue when the GOAWAY comes (VOLLEY_FUZZ_H2_LIVENESS=1 fails on it)
    "max-streams-0-goaway": (0x43, settings((MAX_CONCURRENT_STREAMS, 0)) + SETTINGS_ACK + ok(1) + ok(3) + ping()
                             + goaway(0) + ping()),
    "reopen-answered": (0x42, OPEN + ok(1) + ok(3) + ok(5) + ok(9) + ok(11) + ok(13)),
    "cancel-3": (0x82, OPEN + ok(1) + ok(3) + rst(3, CANCEL) + ok(5)),
    "settings-change": (0x06, PREFACE + settings((INITIAL_WINDOW_SIZE, 1 << 20), (HEADER_TABLE_SIZE, 0),
                                                 (MAX_CONCURRENT_STREAMS, 1)) + SETTINGS_ACK + ping(ack=True) + ok(1)),
    "window-overflow": (0x00, OPEN + window(0, 0x7FFFFFFF) + window(0, 0x7FFFFFFF)),
    "data-stream-0": (0x00, OPEN + frame(DATA, 0, 0, b"x")),
    "headers-even-stream": (0x00, OPEN + headers(2, STATUS_200, end_stream=True)),
    "data-before-headers": (0x00, OPEN + data(1, b"early") + ok(3)),
    "push-promise": (0x00, OPEN + frame(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) + b"\x82\x84")),
    "hpack-garbage": (0x00, OPEN + headers(1, b"\xff\xff\xff\xff\x0f") + ok(3)),
    "frame-too-large": (0x00, OPEN + frame(DATA, 0, 1, b"x" * 20000)),
    "no-settings-first": (0x00, ok(1)),
    "unknown-frame": (0x00, OPEN + frame(0xFA, 0xFF, 1, b"extension") + ok(1)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_h2")
    os.makedirs(out, exist_ok=True)
    for name, (control, stream) in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([control]) + stream)


if __name__ == "__main__":
    main()
