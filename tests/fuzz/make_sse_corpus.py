#!/usr/bin/env python3
"""Writes the seeds of tests/fuzz/corpus_sse/: event streams for
fuzz_sse.c, each after its 5 control bytes (see tests/fuzz/README.md).

    python3 tests/fuzz/make_sse_corpus.py [DIR]     (default: corpus_sse beside this file)

Control byte: bit 0 lines mode, bits 1-3 the index of max in
0, 1, 7, 16, 33, 64, 250, 4096, bits 4-6 stop after that many events,
bit 7 byte by byte; then four split points (b * len / 256)."""

import os
import sys

MAXES = [0, 1, 7, 16, 33, 64, 250, 4096]
VLLM = (b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m",'
        b'"choices":[{"index":0,"delta":{"content":"tok%d "},"logprobs":null,"finish_reason":null}]}\n\n')


def seed(stream, max_=4096, lines=False, stop=0, bytewise=False, cuts=(40, 100, 160, 220)):
    ctl = (1 if lines else 0) | (MAXES.index(max_) << 1) | (stop << 4) | (0x80 if bytewise else 0)
    return bytes([ctl, *cuts]) + stream


SEEDS = {
    "vllm": seed(b"".join(VLLM % i for i in range(3)) + b"data: [DONE]\n\n"),
    "vllm-bytewise": seed(VLLM % 1 + VLLM % 2, bytewise=True),
    "vllm-max-250": seed(VLLM % 7 + b"data: " + b"x" * 300 + b"\n\n", max_=250),
    "crlf": seed(b"event: add\r\ndata: a\r\ndata: b\r\nid: 1\r\n\r\ndata: c\r\n\r\n", bytewise=True),
    "crlf-split": seed(b"event: add\r\ndata: a\r\ndata: b\r\nid: 1\r\n\r\ndata: c\r\n\r\n"),
    "cr": seed(b"data: a\rdata: b\r\rretry: 10\rdata: c\r\r", bytewise=True),
    "mixed-ends": seed(b"data: a\r\r\ndata: b\n\r\rdata: c\r\n\n:x\r\n\r", bytewise=True),
    "bom": seed(b"\xef\xbb\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n", bytewise=True),
    "bom-partial": seed(b"\xef\xbbdata: x\n\ndata: y\n\n", cuts=(1, 2, 3, 4)),
    "multiline": seed(b"data: a\ndata\ndata:\ndata:  b\n\nid: 7\ndata: c\n\nid\ndata: d\n\n"),
    "fields": seed(b": comment\nevent: e\nevent\nretry: 99x\nretry: 5\nid: a\x00b\nfoo: bar\ndata:x:y\n\n"
                   b"event: t\n\ndata\n\n", bytewise=True),
    "too-large": seed(b"id: 01234\n\ndata: 0123456789\n\ndata: 0123456789abcdef\n\n", max_=33),
    "endless-line": seed(b"data: " + b"z" * 200, max_=64),
    "stop": seed(b"data: 1\n\ndata: 2\n\ndata: 3\n\n", stop=2),
    "lines-ndjson": seed(b'\xef\xbb\xbf{"a":1}\n{"a":2}\r\n\r\n{"a":3}\r{"a":4}', lines=True, bytewise=True),
    "lines-small": seed(b"1234567\n12345678\nxy", lines=True, max_=7),
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_sse")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(SEEDS), out))
