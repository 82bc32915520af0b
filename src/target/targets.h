/* --targets FILE: a list of requests in vegeta's http format (METHOD URL,
 * header lines, an optional @path body file; or one URL a line), read
 * once before the run, checked line by line, and encoded into the bytes
 * each request writes, so that the request path only picks an index. The
 * format, the limits and the errors are in docs/usage.md#target-lists---targets. */
#ifndef VOLLEY_TARGETS_H
#define VOLLEY_TARGETS_H

#include "http.h"

#include <stddef.h>
#include <stdint.h>

/* Limits on untrusted input: the file (or stdin), one line, the number of
 * targets, one body file, and all the encoded requests together. */
#define TARGETS_FILE_MAX ((size_t)64 << 20)
#define TARGETS_LINE_MAX 65536
#define TARGETS_MAX 1000000
#define TARGETS_BODY_MAX ((size_t)64 << 20)
#define TARGETS_BYTES_MAX ((size_t)1 << 30)

/* The name of the targets past the first NAMES_MAX - 1 distinct names:
 * no "METHOD path" can be it (a method has no parentheses). */
#define TARGETS_OTHER "(other targets)"

/* All fields are read-only after targets_load. */
struct targets {
    struct http_req *reqs; /* n requests, in the file's order, each encoded whole (owned) */
    uint32_t n;            /* >= 1 */
    uint32_t *name;        /* n: each target's name, an index into names (owned) */
    char **names;          /* the distinct names, "METHOD path" (path and query), in the order of
                            * their first target; TARGETS_OTHER last when more than NAMES_MAX
                            * (owned) */
    uint32_t nnames;       /* 1..NAMES_MAX */
    char *origin;          /* "scheme://host[:port]" that every target has (owned): the run's URL */
};

/* Reads path ("-": stdin) whole and parses it with targets_parse.
 * Returns 0, or -1 with err (see targets_parse). */
int targets_load(struct targets *tg, const char *path, const char *url, const struct http_request_spec *dflt,
                 char *err, size_t errlen);

/* Parses text[0..len), the file called name, into *tg: each target's
 * request encoded with dflt's settings (HTTP/1.0, keep-alive), dflt's
 * headers (-H: on every target, unless the target has one of the same
 * name), dflt's body (for a target without @path) and dflt's method (for
 * a line with a URL alone), and named "METHOD path" (targets that share
 * one name share its figures). url: the URL given beside the file, or NULL;
 * every target must have its origin (else the first target's). Returns 0,
 * or -1 with one line in err, "--targets NAME:LINE: what is wrong", and
 * nothing in *tg. */
int targets_parse(struct targets *tg, const char *name, const char *text, size_t len, const char *url,
                  const struct http_request_spec *dflt, char *err, size_t errlen);

/* Through an HTTP proxy: every request of tg again in absolute-form
 * (http_request_absolute, with origin and auth), in place of its own. */
void targets_via_proxy(struct targets *tg, const char *origin, const char *auth);

/* The name messages and the text report give the file: "stdin" for "-". */
const char *targets_name(const char *path);

void targets_free(struct targets *tg);

#endif
