/* The HTTP/2 parts of the text and JSON reports: the protocol asked for
 * and used, streams per connection, retries of refused and unprocessed
 * streams, header compression,
 * and protocol failures by reason. */
#include "report_internal.h"

#include <inttypes.h>

static const char *mode_name(const struct options *o)
{
    return o->http2 == OPTIONS_H2C ? "h2c" : o->http2 == OPTIONS_H2_STRICT ? "strict" : "alpn";
}

void report_h2_header(FILE *out, const struct options *o)
{
    if (o->http2 == OPTIONS_H1)
        return;
    fprintf(out, "  HTTP/2 (%s), %u stream%s per connection\n",
            o->http2 == OPTIONS_H2C        ? "cleartext, prior knowledge"
            : o->http2 == OPTIONS_H2_STRICT ? "h2 only by ALPN"
                                            : "h2 or http/1.1 by ALPN",
            o->streams, o->streams == 1 ? "" : "s");
}

/* The share of header bytes HPACK saved, in percent. */
static double savings(const struct stats *s)
{
    return s->h2_header_decoded ? 100.0 * (1.0 - (double)s->h2_header_wire / (double)s->h2_header_decoded) : 0;
}

void report_h2_text(FILE *out, const struct options *o, const struct run_result *r)
{
    if (o->http2 == OPTIONS_H1)
        return;
    const struct stats *s = &r->stats;
    /* The stream figures are those of the connections that spoke HTTP/2. */
    if (s->h2_connections == 0) {
        fprintf(out, "  HTTP/2: no connection spoke it\n");
    } else {
        fprintf(out, "  HTTP/2: %" PRIu64 " connection%s, at most %u stream%s open on one", s->h2_connections,
                s->h2_connections == 1 ? "" : "s", s->h2_max_streams, s->h2_max_streams == 1 ? "" : "s");
        if (s->h2_peer_limit)
            fprintf(out, " (the server allows %u)", s->h2_peer_limit);
        fprintf(out, ", %" PRIu64 " retried (refused or unprocessed), response headers %.1f%% smaller by HPACK\n", s->h2_retried,
                savings(s));
    }
    if (s->h1_fallbacks)
        fprintf(out, "  HTTP/1.1 instead: the server chose it by ALPN (%" PRIu64 " connection%s)\n", s->h1_fallbacks,
                s->h1_fallbacks == 1 ? "" : "s");
    report_kind_reasons(out, s, STATS_ERR_PROTOCOL);
}

void report_h2_json(FILE *out, const struct options *o, const struct run_result *r)
{
    if (o->http2 == OPTIONS_H1) {
        fputs("  \"http2\": null,\n", out);
        return;
    }
    const struct stats *s = &r->stats;
    fprintf(out,
            "  \"http2\": {\"mode\": \"%s\", \"streams\": %u, \"connections\": %" PRIu64
            ", \"http1_fallbacks\": %" PRIu64 ", \"max_streams_open\": %u, \"server_limit\": %u, \"retried\": %" PRIu64
            ", \"header_bytes\": {\"wire\": %" PRIu64 ", \"decoded\": %" PRIu64 "}, ",
            mode_name(o), o->streams, s->h2_connections, s->h1_fallbacks, s->h2_max_streams, s->h2_peer_limit,
            s->h2_retried,
            s->h2_header_wire, s->h2_header_decoded);
    report_kind_reasons_json(out, s, STATS_ERR_PROTOCOL);
    fputs("},\n", out);
}
