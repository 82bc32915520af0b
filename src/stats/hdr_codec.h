/* HdrHistogram's V2 compressed encoding of a histogram, as base64 text: the
 * form HdrHistogram interval logs carry, readable by the Java, C and other
 * HdrHistogram implementations (format in
 * shared/reference/latency-and-hdrhistogram.md, "HdrHistogram encoding and
 * interval logs"). */
#ifndef VOLLEY_HDR_CODEC_H
#define VOLLEY_HDR_CODEC_H

#include <stddef.h>

#include "hist.h"

/* Encodes h's configuration and bucket counts (counts[0 .. index of h->max])
 * as a zlib-compressed V2 blob in standard padded base64. An empty histogram
 * encodes too (one zero count). Returns a malloc'd NUL-terminated string that
 * the caller frees, starting "HISTF"; stores its length in *len when len is
 * not NULL. Aborts on OOM (xalloc) or if zlib fails, which for a bounded
 * in-memory buffer is a bug. */
char *hdr_encode(const struct hist *h, size_t *len);

/* The most counts a blob's header may declare (hdr_decode). */
#define HDR_DECODE_MAX_COUNTS (1 << 22) /* 32 MB of counts: 5 digits up to 1 h in ns fit */

/* Decodes len bytes of base64 text (the compressed V2 blob; the uncompressed
 * V2 blob, cookie 0x1c849313, is accepted as well) into *out, which is
 * initialised here with the blob's lowest, highest and significant digits.
 *
 * Counts are exact; count is their sum; min is the lowest value of the first
 * non-empty bucket and max the highest value of the last (INT64_MAX and 0
 * when empty). The values themselves are not in the blob, so sum and sum_sq
 * are approximations: each bucket counts as its median equivalent value, as
 * HdrHistogram's getMean() does. clamped is 0.
 *
 * Returns 0, or -1 with one line naming the problem in err (errlen bytes,
 * NUL-terminated when errlen > 0) and *out left freed and zeroed; on success
 * the caller owns *out (hist_free). Hostile input is safe: at most the
 * counts array its header declares is allocated, plus at most 9 bytes per
 * entry of that array for the payload, and a header that declares more
 * than HDR_DECODE_MAX_COUNTS counts is refused before anything is. */
int hdr_decode(const char *b64, size_t len, struct hist *out, char *err, size_t errlen);

#endif
