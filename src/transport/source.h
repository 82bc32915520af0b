/* --source: the local addresses connections bind to before they connect,
 * so that one machine can hold more connections to one target than one
 * address's ephemeral ports allow (net.ipv4.ip_local_port_range, about
 * 28,000 by default). Connection c binds to address c mod n; the port is
 * left to connect() (IP_BIND_ADDRESS_NO_PORT), which picks one per
 * four-tuple, so each address brings a whole port range of its own. */
#ifndef VOLLEY_SOURCE_H
#define VOLLEY_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SOURCE_MAX 65536 /* addresses in one --source */

struct sources {
    struct sockaddr_storage *addr; /* n of them, port 0, all of one family (owned) */
    socklen_t len;                 /* each one's length */
    int family;                    /* AF_INET or AF_INET6 */
    uint32_t n;
};

/* "127.0.0.2,127.0.0.3", "127.0.0.2-127.0.0.9" (an IPv4 range, both ends
 * included), "::1", or a mix of the items of one family, into *s.
 * Returns 0, or -1 with err naming --source and the item. */
int sources_parse(const char *spec, struct sources *s, char *err, size_t errlen);

/* Connection number c's address (c mod n). */
static inline const struct sockaddr *sources_pick(const struct sources *s, uint64_t c)
{
    return (const struct sockaddr *)&s->addr[c % s->n];
}

/* Connection c's address with its length in *len, or NULL and 0 when
 * there is no --source (s NULL): the src and srclen of net_connect_from. */
static inline const struct sockaddr *sources_for(const struct sources *s, uint64_t c, socklen_t *len)
{
    *len = s ? s->len : 0;
    return s ? sources_pick(s, c) : NULL;
}

void sources_free(struct sources *s);

#endif
