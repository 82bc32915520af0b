/* The transport seam: how a connection moves bytes, whatever carries them.
 * One const table of operations per transport (TCP in tcp.c, TLS in tls.c),
 * chosen once per worker by transports.c; the connection state machine
 * (src/conn) holds a table and its per-slot state and calls only these, so
 * it never names a transport. A new transport (QUIC) is one more table and
 * one line in transport_for.
 *
 * I/O returns net.h's statuses: NET_OK, NET_AGAIN (wait until readable; for
 * a plain write, writable), NET_WANT_WRITE (wait until writable) and
 * NET_ERROR (failure() says why); nothing blocks. A read of 0 bytes with
 * NET_OK is the end of the stream. */
#ifndef VOLLEY_TRANSPORT_H
#define VOLLEY_TRANSPORT_H

#include "net.h"
#include "tls.h" /* struct tls_info: what a handshake agreed on */

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* What a worker's transport is made from (transport_for, ctx_new). */
struct transport_config {
    const struct tls_config *tls; /* https: TLS's settings; NULL for http */
    const char *tunnel;           /* through an HTTP proxy: the CONNECT request, whole, that
                                   * opens the tunnel the TLS goes through; NULL: none */
    size_t tunnel_len;
};

struct transport_ops {
    const char *name; /* "tcp", "tls", "tunnel+tls" */
    /* The worker's context, made once from the run's settings; NULL with
     * err naming the option at fault. NULL entries: the transport needs
     * none. */
    void *(*ctx_new)(const struct transport_config *cfg, char *err, size_t errlen);
    void (*ctx_free)(void *ctx);
    /* A context for connections to another host (a flow's other origin,
     * --allow-host): cfg's settings, with host as the name sent (unless
     * ip: an IP literal is never sent) and checked against the server's
     * certificate, HTTP/1.1 alone offered. host must outlive the context.
     * NULL entry: the transport needs no context. */
    void *(*ctx_for_host)(const void *cfg, const char *host, bool ip, char *err, size_t errlen);
    /* A connection slot's state, made once and reused for every socket
     * it opens (allocates; never per request); NULL entries: none. */
    void *(*conn_new)(void *ctx);
    void (*conn_free)(void *t);
    /* Starts connecting to addr from src (NULL: the kernel's choice) as
     * net_connect_from does: NET_OK connected, NET_AGAIN in progress (wait
     * for writable, then connected()), NET_ERROR with errno. */
    enum net_status (*connect)(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src,
                               socklen_t srclen, int *fd);
    /* After writable while connecting: 0, or the connect's errno. */
    int (*connected)(int fd);
    /* A new socket fd for t (may be NULL: nothing to bind). */
    void (*start)(void *t, int fd);
    /* Drives the handshake after connect: NET_OK when done, else what to
     * wait for. NULL: the transport has none (bytes flow at once). */
    enum net_status (*handshake)(void *t);
    /* After the handshake failed: whether it failed in its connect stage
     * (a proxy's CONNECT exchange, before any TLS), which counts as a
     * connect failure with failure()'s reason. NULL: it never does. */
    bool (*tunnel_failed)(void *t);
    /* After a NET_ERROR: the errno when the socket failed (refused, reset),
     * 0 when the transport itself failed (a TLS alert). */
    int (*socket_errno)(void *t, int fd);
    enum net_status (*read)(void *t, int fd, char *buf, size_t cap, size_t *n);
    enum net_status (*write)(void *t, int fd, const char *buf, size_t len, size_t *n);
    /* After a read of n bytes into a buffer of cap: whether more may be
     * there without a readiness event (the buffer was filled, or bytes
     * were read ahead that the kernel will not report again). */
    bool (*more)(void *t, size_t n, size_t cap);
    /* Readable while no request is in flight: whether the connection
     * stays (a TLS record without data, such as a session ticket, taken
     * in). NULL: it never does. buf/cap: scratch for the read. */
    bool (*idle_readable)(void *t, int fd, char *buf, size_t cap);
    /* Why a read or write failed (writing: it was a write; the server may
     * have said why before closing, and buf/cap is scratch to read that):
     * the transport's own reason, or NULL when it has none; *err gets the
     * socket's errno, 0 when the failure was the transport's. NULL entry:
     * the socket's errno (*err as given) is all there is. */
    const char *(*failure)(void *t, bool writing, char *buf, size_t cap, int *err);
    /* Closes the socket (clean: the connection ended normally, so a TLS
     * close_notify is sent first) and forgets it. */
    void (*close)(void *t, int fd, bool clean);
    /* After the handshake: whether it resumed a session, what it agreed
     * on, and the application protocol it agreed on (ALPN: "h2",
     * "http/1.1") in buf (cap bytes, NUL-terminated), "" for none; the
     * framings pick the connection's framing by it (framing.h's
     * conn_shared.negotiate). NULL entries: a transport without a
     * handshake. */
    bool (*resumed)(void *t);
    void (*info)(void *t, struct tls_info *info);
    void (*protocol)(void *t, char *buf, size_t cap);
};

/* The registry: the transport of a URL's scheme and route (https: TLS,
 * through a CONNECT tunnel when cfg->tunnel is set; else TCP). The one
 * place a transport is added. */
const struct transport_ops *transport_for(const struct transport_config *cfg);

/* The table of a connection straight to a host, never through a proxy's
 * tunnel: a flow's other origin (--allow-host, which main refuses with a
 * proxy), TLS when tls. */
const struct transport_ops *transport_direct(bool tls);

extern const struct transport_ops transport_tcp, transport_tls, transport_tunnel_tls;

#endif
