/* A response received whole, its raw bytes taken apart without a parser:
 * where a head ends, where the final head ends past 1xx responses, and a
 * chunked body decoded in place (res.headers, res.body, res.trailers). */
#ifndef VOLLEY_HTTP_RAW_H
#define VOLLEY_HTTP_RAW_H

#include <stddef.h>

/* The end of the head starting at p (just past its blank line), or NULL.
 * Lines may end in CRLF or, as http-parser allows, in a bare LF. */
const char *http_head_end(const char *p, const char *end);

/* For a response received whole and accepted by http_rx_feed (len bytes
 * from its first byte): the offset just past its final head, skipping any
 * 1xx interim responses before it. The body follows. */
size_t http_final_head_end(const char *raw, size_t len);

/* Decodes the chunked body of such a response in place (the framing is
 * known to be valid) and returns its decoded length. *trailers: where the
 * trailer section begins in body (the field lines after the last chunk,
 * then the blank line, up to len), left in place by the decoding. */
size_t http_dechunk(char *body, size_t len, size_t *trailers);

#endif
