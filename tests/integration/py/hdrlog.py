"""Reads HdrHistogram V2 compressed histograms (base64) and interval logs,
independently of volley's C codec, for the integration tests.

decode(b64) -> (config, counts): config = (lowest, highest, digits), counts
a dict {bucket index: count}. read_log(path) -> list of (tag, start, length,
max, counts). Percentiles follow HdrHistogram: the highest value equivalent
to the bucket holding rank max(1, int(p/100*total + 0.5)).
"""
import base64
import math
import struct
import zlib


def _varints(data):
    """ZigZag LEB128 (HdrHistogram's 9-byte variant) values of data."""
    i, n = 0, len(data)
    while i < n:
        v, shift = 0, 0
        for b in range(9):
            byte = data[i]
            i += 1
            if b == 8:
                v |= byte << 56
                break
            v |= (byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0:
                break
        yield (v >> 1) ^ -(v & 1)


def decode(b64):
    blob = base64.b64decode(b64)
    cookie, length = struct.unpack(">ii", blob[:8])
    assert cookie == 0x1C849314, hex(cookie)
    raw = zlib.decompress(blob[8:8 + length])
    cookie, plen, offset, digits, lowest, highest, _ratio = struct.unpack(">iiiiqqd", raw[:40])
    assert cookie == 0x1C849313, hex(cookie)
    counts, idx = {}, 0
    for v in _varints(raw[40:40 + plen]):
        if v < 0:
            idx += -v
        else:
            if v:
                counts[idx] = counts.get(idx, 0) + v
            idx += 1
    return (lowest, highest, digits), counts


class Layout:
    """HdrHistogram's bucket arithmetic for one configuration."""

    def __init__(self, lowest, highest, digits):
        largest_single = 2 * 10 ** digits
        self.sub_count = 1 << math.ceil(math.log2(largest_single))
        self.half = self.sub_count // 2
        self.half_mag = int(math.log2(self.half))
        self.unit = int(math.floor(math.log2(lowest)))

    def value_at(self, index):
        bucket = (index >> self.half_mag) - 1
        sub = (index & (self.half - 1)) + self.half
        if bucket < 0:
            sub -= self.half
            bucket = 0
        return sub << (bucket + self.unit)

    def highest_equivalent(self, index):
        """Top of the bucket holding index's lowest value."""
        value = self.value_at(index)
        bucket = max((index >> self.half_mag) - 1, 0)
        return value + (1 << (bucket + self.unit)) - 1


def percentile(config, counts, p):
    total = sum(counts.values())
    if total == 0:
        return 0
    rank = max(1, int(p / 100.0 * total + 0.5))
    layout = Layout(*config)
    seen = 0
    for idx in sorted(counts):
        seen += counts[idx]
        if seen >= rank:
            return layout.highest_equivalent(idx)
    return layout.highest_equivalent(max(counts))


def read_log(path):
    out = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith('"'):
            continue
        tag = None
        if line.startswith("Tag="):
            tag, line = line[4:].split(",", 1)
        start, length, mx, b64 = line.split(",")
        config, counts = decode(b64)
        out.append((tag, float(start), float(length), float(mx), config, counts))
    return out


def merge(entries, tag):
    """Sum of the counts of every interval of tag; with their config."""
    total, config = {}, None
    for t, _s, _l, _m, cfg, counts in entries:
        if t != tag:
            continue
        config = cfg
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    return config, total


def check_series(entries, tag, whole, step):
    """Asserts that the intervals of tag start at 0 and follow each other
    every step seconds, each step long but the last, and that together
    they are exactly whole, a --json histogram object (its "hdr" and
    "count"). Returns the intervals of tag."""
    mine = [e for e in entries if e[0] == tag]
    starts = [e[1] for e in mine]
    assert starts == [round(step * i, 3) for i in range(len(mine))], (tag, starts)
    assert all(abs(e[2] - step) < 1e-9 for e in mine[:-1]), (tag, [e[2] for e in mine])
    config, total = merge(entries, tag)
    _, counts = decode(whole["hdr"])
    assert counts == total, (tag, sum(counts.values()), sum(total.values()))
    assert sum(total.values()) == whole["count"], (tag, whole["count"])
    return mine
