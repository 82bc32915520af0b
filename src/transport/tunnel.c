/* TLS through an HTTP proxy's CONNECT tunnel (transport.h): a stage under
 * the TLS transport, as curl's proxy filter sits under its TLS filter. The
 * socket goes to the proxy; the handshake first writes the CONNECT request
 * and reads the proxy's answer, then hands the socket to TLS (SNI, ALPN
 * and all as without a proxy); every other entry is TLS's own. A proxy
 * that refuses (407, 403, 502...) or closes fails the handshake in its
 * connect stage, with the proxy's status as the reason. */
#include "transport.h"

#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct transport_ops *const inner = &transport_tls;

/* The answer's head, at most: more is no proxy's answer to a CONNECT. */
#define TUNNEL_HEAD_MAX 2048

struct tunnel_ctx {
    void *inner_ctx;
    char *req; /* the CONNECT request, whole */
    size_t len;
};

enum tunnel_phase { T_SEND, T_RECV, T_TLS };

struct tunnel {
    struct tunnel_ctx *ctx;
    void *inner;             /* TLS's slot state */
    int fd;
    enum tunnel_phase phase;
    size_t off;              /* T_SEND: bytes of the request written */
    size_t got;              /* T_RECV: bytes of the answer read */
    int err;                 /* the socket's errno of a failure in the tunnel's stage */
    char reason[160];        /* the tunnel's own failure ("" when the socket failed) */
    char head[TUNNEL_HEAD_MAX];
};

static void *tunnel_ctx_new(const struct transport_config *cfg, char *err, size_t errlen)
{
    void *ic = inner->ctx_new(cfg, err, errlen);
    if (!ic)
        return NULL;
    struct tunnel_ctx *x = xmalloc(sizeof *x);
    x->inner_ctx = ic;
    x->req = xmalloc(cfg->tunnel_len);
    memcpy(x->req, cfg->tunnel, cfg->tunnel_len);
    x->len = cfg->tunnel_len;
    return x;
}

static void tunnel_ctx_free(void *ctx)
{
    struct tunnel_ctx *x = ctx;
    inner->ctx_free(x->inner_ctx);
    free(x->req);
    free(x);
}

static void *tunnel_conn_new(void *ctx)
{
    struct tunnel *t = xcalloc(1, sizeof *t);
    t->ctx = ctx;
    t->inner = inner->conn_new(t->ctx->inner_ctx);
    t->fd = -1;
    return t;
}

static void tunnel_conn_free(void *tp)
{
    struct tunnel *t = tp;
    inner->conn_free(t->inner);
    free(t);
}

static void tunnel_start(void *tp, int fd)
{
    struct tunnel *t = tp;
    t->fd = fd;
    t->phase = T_SEND;
    t->off = t->got = 0;
    t->err = 0;
    t->reason[0] = '\0';
}

/* The proxy's answer is whole in t->head: 2xx opens the tunnel. Returns
 * true, or false with the reason. */
static bool answer_ok(struct tunnel *t)
{
    char *eol = memchr(t->head, '\r', t->got);
    size_t n = eol ? (size_t)(eol - t->head) : t->got;
    int status = 0, at = 0;
    bool line = n >= 12 && sscanf(t->head, "HTTP/1.%*1[01] %3d%n", &status, &at) == 1 && at == 12 &&
                status >= 100 && (n == 12 || t->head[12] == ' ');
    if (!line) {
        snprintf(t->reason, sizeof t->reason, "proxy: CONNECT answered with no HTTP status line");
        return false;
    }
    if (status >= 200 && status < 300)
        return true;
    const char *words = t->head + at;
    size_t wn = n - (size_t)at;
    while (wn && *words == ' ')
        words++, wn--;
    for (size_t i = 0; i < wn; i++)
        if ((unsigned char)words[i] < ' ' || (unsigned char)words[i] > '~') {
            wn = i; /* reasons are shown: printable bytes only */
            break;
        }
    snprintf(t->reason, sizeof t->reason, "proxy: CONNECT refused: %d%s%.*s", status, wn ? " " : "",
             (int)(wn > 60 ? 60 : wn), words);
    return false;
}

/* The tunnel's stage: NET_OK once open (TLS's handshake follows at once). */
static enum net_status tunnel_stage(struct tunnel *t)
{
    size_t n;
    enum net_status st;
    while (t->phase == T_SEND) {
        st = net_write(t->fd, t->ctx->req + t->off, t->ctx->len - t->off, &n);
        if (st == NET_AGAIN)
            return NET_WANT_WRITE; /* also: still connecting */
        if (st == NET_ERROR) {
            t->err = errno;
            return NET_ERROR;
        }
        t->off += n;
        if (t->off == t->ctx->len)
            t->phase = T_RECV;
    }
    for (;;) {
        /* Nothing follows the answer until the ClientHello is sent: the
         * whole of what is there is the answer's. */
        st = net_read(t->fd, t->head + t->got, sizeof t->head - 1 - t->got, &n);
        if (st == NET_AGAIN)
            return NET_AGAIN;
        if (st == NET_ERROR) {
            t->err = errno;
            snprintf(t->reason, sizeof t->reason, "proxy: CONNECT failed: %s",
                     t->err == ECONNRESET ? "reset by peer" : strerror(t->err));
            t->err = 0; /* the proxy accepted the connection: its failure, told by reason */
            return NET_ERROR;
        }
        if (n == 0) {
            snprintf(t->reason, sizeof t->reason, "proxy: closed the connection before answering CONNECT");
            return NET_ERROR;
        }
        t->got += n;
        t->head[t->got] = '\0';
        if (strstr(t->head, "\r\n\r\n") || strstr(t->head, "\n\n"))
            break;
        if (t->got == sizeof t->head - 1) {
            snprintf(t->reason, sizeof t->reason, "proxy: CONNECT answer's head longer than %d bytes",
                     TUNNEL_HEAD_MAX - 1);
            return NET_ERROR;
        }
    }
    if (!answer_ok(t))
        return NET_ERROR;
    t->phase = T_TLS;
    inner->start(t->inner, t->fd);
    return NET_OK;
}

static enum net_status tunnel_handshake(void *tp)
{
    struct tunnel *t = tp;
    if (t->phase != T_TLS) {
        enum net_status st = tunnel_stage(t);
        if (st != NET_OK)
            return st;
    }
    return inner->handshake(t->inner);
}

static bool tunnel_failed_in_stage(void *tp)
{
    return ((struct tunnel *)tp)->phase != T_TLS;
}

static int tunnel_socket_errno(void *tp, int fd)
{
    struct tunnel *t = tp;
    return t->phase == T_TLS ? inner->socket_errno(t->inner, fd) : t->err;
}

static enum net_status tunnel_read(void *tp, int fd, char *buf, size_t cap, size_t *n)
{
    return inner->read(((struct tunnel *)tp)->inner, fd, buf, cap, n);
}

static enum net_status tunnel_write(void *tp, int fd, const char *buf, size_t len, size_t *n)
{
    return inner->write(((struct tunnel *)tp)->inner, fd, buf, len, n);
}

static bool tunnel_more(void *tp, size_t n, size_t cap)
{
    return inner->more(((struct tunnel *)tp)->inner, n, cap);
}

static bool tunnel_idle_readable(void *tp, int fd, char *buf, size_t cap)
{
    return inner->idle_readable(((struct tunnel *)tp)->inner, fd, buf, cap);
}

static const char *tunnel_failure(void *tp, bool writing, char *buf, size_t cap, int *err)
{
    struct tunnel *t = tp;
    if (t->phase == T_TLS)
        return inner->failure(t->inner, writing, buf, cap, err);
    *err = t->err;
    return t->reason[0] ? t->reason : NULL;
}

static void tunnel_close(void *tp, int fd, bool clean)
{
    struct tunnel *t = tp;
    if (t->phase == T_TLS)
        inner->close(t->inner, fd, clean);
    else
        net_close(fd);
    t->phase = T_SEND;
    t->fd = -1;
}

static bool tunnel_resumed(void *tp)
{
    return inner->resumed(((struct tunnel *)tp)->inner);
}

static void tunnel_info(void *tp, struct tls_info *info)
{
    inner->info(((struct tunnel *)tp)->inner, info);
}

static void tunnel_protocol(void *tp, char *buf, size_t cap)
{
    inner->protocol(((struct tunnel *)tp)->inner, buf, cap);
}

const struct transport_ops transport_tunnel_tls = {
    .name = "tunnel+tls",
    .ctx_new = tunnel_ctx_new,
    .ctx_free = tunnel_ctx_free,
    .conn_new = tunnel_conn_new,
    .conn_free = tunnel_conn_free,
    .connect = net_connect_from,
    .connected = net_connect_result,
    .start = tunnel_start,
    .handshake = tunnel_handshake,
    .tunnel_failed = tunnel_failed_in_stage,
    .socket_errno = tunnel_socket_errno,
    .read = tunnel_read,
    .write = tunnel_write,
    .more = tunnel_more,
    .idle_readable = tunnel_idle_readable,
    .failure = tunnel_failure,
    .close = tunnel_close,
    .resumed = tunnel_resumed,
    .info = tunnel_info,
    .protocol = tunnel_protocol,
};
