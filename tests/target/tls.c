/*
 * volley-target, TLS (--tls-cert): the server side of OpenSSL 3 on the
 * existing non-blocking sockets and libev loop. One SSL_CTX for the process,
 * one SSL per connection. conn.c calls the small helpers below and switches
 * on what they return (enum tls_io); the counters tls_handshakes,
 * tls_resumed and the --tls-log line are kept here, tls_failed in conn.c.
 */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string.h>

#include "vtarget.h"

static SSL_CTX *ctx;

/* Fatal set-up error, with OpenSSL's reason when it has one. */
__attribute__((noreturn))
static void tls_die(const char *what, const char *arg)
{
    unsigned long e = ERR_get_error();
    char why[256] = "";
    if (e)
        ERR_error_string_n(e, why, sizeof why);
    die("%s %s: %s", what, arg, e ? why : "failed");
}

static int version_arg(const char *name, const char *v)
{
    if (!strcmp(v, "1.2"))
        return TLS1_2_VERSION;
    if (!strcmp(v, "1.3"))
        return TLS1_3_VERSION;
    die("bad value for --%s: '%s' (want 1.2 or 1.3)", name, v);
}

/* ALPN: take http/1.1 if the client offers it; anything else goes on
 * without ALPN (the client decides whether that is acceptable). */
static int alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
    (void)s, (void)arg;
    unsigned i = 0;
    while (i < inlen) {
        unsigned len = in[i];
        if (i + 1 + len > inlen)
            break;
        if (len == 8 && memcmp(in + i + 1, "http/1.1", 8) == 0) {
            *out = in + i + 1;
            *outlen = 8;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + len;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

bool tls_init(void)
{
    if (!opt.tls_cert) {
        if (opt.tls_key || opt.tls_client_ca || opt.tls_min || opt.tls_max ||
            opt.tls_log_file || opt.tls_no_tickets || opt.tls_no_resume)
            die("the --tls-* options need --tls-cert and --tls-key");
        return false;
    }
    if (!opt.tls_key)
        die("--tls-cert needs --tls-key");
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        tls_die("SSL_CTX_new", "");
    if (SSL_CTX_use_certificate_chain_file(ctx, opt.tls_cert) != 1)
        tls_die("--tls-cert", opt.tls_cert);
    if (SSL_CTX_use_PrivateKey_file(ctx, opt.tls_key, SSL_FILETYPE_PEM) != 1)
        tls_die("--tls-key", opt.tls_key);
    if (SSL_CTX_check_private_key(ctx) != 1)
        tls_die("--tls-key does not match --tls-cert:", opt.tls_key);
    int min = opt.tls_min ? version_arg("tls-min", opt.tls_min) : TLS1_2_VERSION;
    int max = opt.tls_max ? version_arg("tls-max", opt.tls_max) : TLS1_3_VERSION;
    if (min > max)
        die("--tls-min %s is above --tls-max %s", opt.tls_min, opt.tls_max);
    SSL_CTX_set_min_proto_version(ctx, min);
    SSL_CTX_set_max_proto_version(ctx, max);

    /* A bare EOF reads as a close (SSL_ERROR_ZERO_RETURN), as on a plain
     * socket: clients that skip close_notify are common and not an error
     * here. No renegotiation: SSL_write then never wants to read in TLS 1.2.
     * Partial writes: SSL_write returns once a record is out, so "answered"
     * counts bytes that reached the socket; the queue may be realloc'd
     * between a WANT_WRITE and its retry (moving buffer). */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Read-ahead stays off: OpenSSL then reads one record at a time, and
     * conn.c still re-reads while SSL_has_pending() says bytes are held. */

    /* Needed for resumption with client certificates; harmless otherwise. */
    static const unsigned char sid_ctx[] = "volley-target";
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof sid_ctx - 1);
    if (opt.tls_no_resume) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        SSL_CTX_set_num_tickets(ctx, 0);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        if (opt.tls_no_tickets)   /* TLS 1.2: session IDs; 1.3: stateful tickets */
            SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    }
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);

    if (opt.tls_client_ca) {
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(opt.tls_client_ca);
        if (!names || SSL_CTX_load_verify_locations(ctx, opt.tls_client_ca, NULL) != 1)
            tls_die("--tls-client-ca", opt.tls_client_ca);
        SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return true;
}

void tls_exit(void)
{
    SSL_CTX_free(ctx);
    ctx = NULL;
}

int tls_conn_start(struct conn *c)
{
    SSL *s = SSL_new(ctx);
    if (!s)
        return -1;
    if (SSL_set_fd(s, c->fd) != 1) {
        SSL_free(s);
        return -1;
    }
    SSL_set_accept_state(s);
    c->ssl = s;
    return 0;
}

void tls_conn_free(struct conn *c)
{
    SSL_free(c->ssl);
    c->ssl = NULL;
}

static enum tls_io io_result(SSL *s, int r)
{
    switch (SSL_get_error(s, r)) {
    case SSL_ERROR_WANT_READ:   return TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:  return TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return TLS_CLOSED;
    default:                    return TLS_ERROR;   /* SSL_ERROR_SSL, _SYSCALL (reset) */
    }
}

/* The --tls-log line: SNI comes from the client, so anything but a
 * printable non-space byte is written as '?' to keep one line, 5 fields. */
static void log_handshake(const struct conn *c)
{
    SSL *s = c->ssl;
    const char *sni = SSL_get_servername(s, TLSEXT_NAMETYPE_host_name);
    const unsigned char *alpn;
    unsigned alen;
    SSL_get0_alpn_selected(s, &alpn, &alen);
    fprintf(tls_log, "%llu %s %d ", c->seq, SSL_get_version(s), SSL_session_reused(s) ? 1 : 0);
    if (sni && *sni)
        for (const char *p = sni; *p; p++)
            fputc(*p > ' ' && *p < 127 ? *p : '?', tls_log);
    else
        fputc('-', tls_log);
    if (alen)
        fprintf(tls_log, " %.*s\n", (int)alen, (const char *)alpn);
    else
        fputs(" -\n", tls_log);
}

enum tls_io tls_handshake(struct conn *c)
{
    ERR_clear_error();   /* SSL_get_error looks at the thread's error queue */
    int r = SSL_do_handshake(c->ssl);
    if (r != 1)
        return io_result(c->ssl, r);
    stats.tls_handshakes++;
    if (SSL_session_reused(c->ssl))
        stats.tls_resumed++;
    if (tls_log)
        log_handshake(c);
    return TLS_OK;
}

enum tls_io tls_read(struct conn *c, void *buf, size_t len, size_t *n)
{
    ERR_clear_error();
    int r = SSL_read_ex(c->ssl, buf, len, n);
    return r == 1 ? TLS_OK : io_result(c->ssl, r);
}

enum tls_io tls_write(struct conn *c, const void *buf, size_t len, size_t *n)
{
    ERR_clear_error();
    int r = SSL_write_ex(c->ssl, buf, len, n);
    if (r == 1)
        return TLS_OK;
    enum tls_io e = io_result(c->ssl, r);
    return e == TLS_CLOSED ? TLS_ERROR : e;
}

bool tls_pending(const struct conn *c)
{
    return SSL_has_pending(c->ssl) == 1;
}

void tls_notify(struct conn *c)
{
    if (!c->ssl || !c->tls_ready || c->no_notify)
        return;
    ERR_clear_error();
    SSL_shutdown(c->ssl);   /* once: what does not fit in the socket now is dropped */
}
