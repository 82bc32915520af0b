/* Request fields as volley accepts them from a user, on the command line
 * (-m, -H) or in a --targets file: method and header names that are HTTP
 * tokens, header values without control bytes, and the headers that frame
 * a body checked against the body that is sent. The callers word the
 * messages (each names its own option or line). */
#ifndef VOLLEY_FIELD_H
#define VOLLEY_FIELD_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s[0..n) is an RFC 9110 token (a method or a header name). */
bool field_is_token(const char *s, size_t n);

/* Why h ("Name: value", NUL-terminated) cannot be sent as a header, or
 * NULL: FIELD_NOT_HEADER (no colon, or a name that is not a token) or
 * FIELD_CONTROL (a control byte other than TAB in the value: CR or LF
 * would split the header; the others are not field content and some
 * servers cut the line there). */
#define FIELD_NOT_HEADER "is not a 'Name: value' header"
#define FIELD_CONTROL "contains a control character (only TAB is allowed)"
const char *field_check_header(const char *h);

/* The value of header h ("Name: value") without leading blanks if its
 * name is name in any case, else NULL. */
const char *field_value(const char *h, const char *name);

/* Whether h has the name of header g (both "Name: value"; any case). */
bool field_same_name(const char *h, const char *g);

/* What header h says about the body, checked against it. */
enum field_framing {
    FIELD_FRAMING_OK,          /* not a framing header, or a Content-Length that agrees */
    FIELD_FRAMING_CHUNKED,     /* Transfer-Encoding: volley sends bodies with Content-Length only */
    FIELD_FRAMING_NOT_LENGTH,  /* a Content-Length that is not a number */
    FIELD_FRAMING_DISAGREES,   /* a Content-Length other than the body's length */
    FIELD_FRAMING_NO_BODY,     /* a Content-Length other than 0 and no body */
};

/* Checks h against the body that is sent (has_body, len bytes). A
 * Content-Length that agrees is sent instead of volley's own; without a
 * body only 0 agrees, unless any_length (a script's wrk.format replaces
 * or drops it). *value: h's value (for the message), set whenever the
 * result is not OK. */
enum field_framing field_framing(const char *h, bool has_body, size_t len, bool any_length, const char **value);

#endif
