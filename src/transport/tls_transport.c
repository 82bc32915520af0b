/* The TLS transport (transport.h): tls.h's calls behind the transport
 * table. The socket itself is TCP's (net.c); tls.c keeps OpenSSL. */
#include "transport.h"

#include <errno.h>

static void *tls_t_ctx_new(const struct transport_config *cfg, char *err, size_t errlen)
{
    return tls_ctx_new(cfg->tls, err, errlen);
}

static void *tls_t_ctx_for_host(const void *cfg, const char *host, bool ip, char *err, size_t errlen)
{
    struct tls_config c = cfg ? *(const struct tls_config *)cfg : (struct tls_config){.resume = true};
    c.sni = ip ? NULL : host;
    c.host = host;
    c.offer_h2 = false;
    c.offer_h1 = true;
    return tls_ctx_new(&c, err, errlen);
}

static void tls_t_ctx_free(void *ctx)
{
    tls_ctx_free(ctx);
}

static void *tls_t_conn_new(void *ctx)
{
    return tls_conn_new(ctx);
}

static void tls_t_conn_free(void *t)
{
    tls_conn_free(t);
}

static void tls_t_start(void *t, int fd)
{
    tls_conn_start(t, fd);
}

static enum net_status tls_t_handshake(void *t)
{
    return tls_handshake(t);
}

static int tls_t_socket_errno(void *t, int fd)
{
    (void)fd;
    return tls_socket_errno(t);
}

static enum net_status tls_t_read(void *t, int fd, char *buf, size_t cap, size_t *n)
{
    (void)fd;
    return tls_read(t, buf, cap, n);
}

static enum net_status tls_t_write(void *t, int fd, const char *buf, size_t len, size_t *n)
{
    (void)fd;
    return tls_write(t, buf, len, n);
}

/* OpenSSL may have read ahead: the kernel will not report those bytes. */
static bool tls_t_more(void *t, size_t n, size_t cap)
{
    (void)n;
    (void)cap;
    return tls_pending(t);
}

static bool tls_t_idle_readable(void *t, int fd, char *buf, size_t cap)
{
    (void)fd;
    size_t n;
    return tls_read(t, buf, cap, &n) == NET_AGAIN;
}

/* A write that failed in the socket (the server closed it): the server
 * may have said why first. A TLS 1.3 server refuses a client certificate
 * with an alert after the client's handshake is over; such an alert,
 * still readable, becomes the reason. */
static const char *tls_t_failure(void *t, bool writing, char *buf, size_t cap, int *err)
{
    size_t n;
    if (writing && tls_socket_errno(t))
        tls_read(t, buf, cap, &n); /* keeps the alert's reason, if any */
    *err = tls_socket_errno(t);
    return tls_reason(t);
}

static void tls_t_close(void *t, int fd, bool clean)
{
    tls_conn_close(t, clean);
    net_close(fd);
}

static bool tls_t_resumed(void *t)
{
    return tls_resumed(t);
}

static void tls_t_info(void *t, struct tls_info *info)
{
    tls_get_info(t, info);
}

static void tls_t_protocol(void *t, char *buf, size_t cap)
{
    tls_protocol(t, buf, cap);
}

const struct transport_ops transport_tls = {
    .name = "tls",
    .ctx_new = tls_t_ctx_new,
    .ctx_free = tls_t_ctx_free,
    .ctx_for_host = tls_t_ctx_for_host,
    .conn_new = tls_t_conn_new,
    .conn_free = tls_t_conn_free,
    .connect = net_connect_from,
    .connected = net_connect_result,
    .start = tls_t_start,
    .handshake = tls_t_handshake,
    .socket_errno = tls_t_socket_errno,
    .read = tls_t_read,
    .write = tls_t_write,
    .more = tls_t_more,
    .idle_readable = tls_t_idle_readable,
    .failure = tls_t_failure,
    .close = tls_t_close,
    .resumed = tls_t_resumed,
    .info = tls_t_info,
    .protocol = tls_t_protocol,
};
