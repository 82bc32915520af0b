/* The registry of framings (framing.h): the tables of HTTP/1.1 (h1.c) and
 * HTTP/2 (h2_conn.c), and the one place a worker picks them, so the one
 * place a new framing is added. */
#ifndef VOLLEY_FRAMINGS_H
#define VOLLEY_FRAMINGS_H

#include "framing.h"

extern const struct framing_ops framing_h1, framing_h2;

/* The framing a run's requests go as (http2: --h2c, --http2). */
const struct framing_ops *framing_for(bool http2);

/* What a connection speaks whose handshake chose another protocol by ALPN
 * than framing_for(http2)'s (NULL: no such choice). */
const struct framing_ops *framing_fallback(bool http2);

/* conn_shared.negotiate (framing.h): after a handshake that agreed on
 * protocol (ALPN; "": none), the framing of sh's that speaks it: sh's
 * framing when that is its protocol (or it needs none), else its fallback
 * (counted as a connection in HTTP/1.1 instead); NULL, with why (n bytes)
 * saying so, when there is none or --http2=strict refuses it. */
const struct framing_ops *framing_negotiated(struct conn_shared *sh, const char *protocol, char *why, size_t n);

#endif
