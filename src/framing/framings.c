/* The registry of framings (framings.h): which framing a run's requests
 * go as, and which one a connection speaks once its handshake agreed on a
 * protocol. */
#include "framings.h"

#include <stdio.h>
#include <string.h>

const struct framing_ops *framing_for(bool http2)
{
    return http2 ? &framing_h2 : &framing_h1;
}

const struct framing_ops *framing_fallback(bool http2)
{
    return http2 ? &framing_h1 : NULL;
}

const struct framing_ops *framing_negotiated(struct conn_shared *sh, const char *protocol, char *why, size_t n)
{
    const struct framing_ops *fr = sh->framing;
    if (!fr->alpn || strcmp(protocol, fr->alpn) == 0)
        return fr;
    if (sh->fallback && !sh->alpn_strict) {
        /* The server chose the fallback's protocol (HTTP/1.1): counted,
         * each connection by what its own handshake agreed on. */
        sh->stats->h1_fallbacks++;
        return sh->fallback;
    }
    snprintf(why, n, "the server did not choose %s%s", fr->alpn, sh->alpn_strict ? " (--http2=strict)" : "");
    return NULL;
}
