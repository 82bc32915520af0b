/* TLS over OpenSSL 3 behind net.h's interface (see tls.h). Read-ahead is
 * on, so one read(2) takes every record the kernel holds; the connection
 * must then keep reading while tls_pending(). An EOF without close_notify
 * is mapped to a plain end of stream (SSL_OP_IGNORE_UNEXPECTED_EOF): a
 * read-until-close body ends there, and an EOF inside a framed body is a
 * read error, found by the HTTP framing as for plain TCP. */
#include "tls.h"

#include "clock.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct tls_ctx {
    SSL_CTX *ctx;
    SSL_SESSION *session; /* the newest session of the worker (owned), to resume */
    bool resume;
    bool verify;
    const char *sni;
    const char *host;
};

struct tls_conn {
    SSL *ssl;
    struct tls_ctx *ctx;
    int sys_errno;        /* the last failure was the socket's: its errno; else 0 */
    char reason[200];
};

/* ALPN lists: length-prefixed protocol names. */
static const unsigned char alpn_h1[] = "\x08http/1.1", alpn_h2[] = "\x02h2", alpn_both[] = "\x02h2\x08http/1.1";

/* 12 -> TLS1_2_VERSION; 0 stays 0 (OpenSSL's default bound). */
static int version_of(int v)
{
    switch (v) {
    case 3: return SSL3_VERSION;
    case 10: return TLS1_VERSION;
    case 11: return TLS1_1_VERSION;
    case 12: return TLS1_2_VERSION;
    case 13: return TLS1_3_VERSION;
    default: return 0;
    }
}

/* TLS 1.3 tickets come after the handshake, with the first reads; TLS 1.2
 * sessions at its end. Either way the newest one is kept for the worker's
 * next connection. Returning 1 keeps the reference OpenSSL gave. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct tls_ctx *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    if (c->session)
        SSL_SESSION_free(c->session);
    c->session = sess;
    return 1;
}

/* OpenSSL's reason for the error at the queue's head, then clears it. */
static void take_ssl_reason(char *buf, size_t len)
{
    unsigned long code = ERR_get_error();
    const char *r = code ? ERR_reason_error_string(code) : NULL;
    snprintf(buf, len, "%s", r ? r : "TLS error");
    ERR_clear_error();
}

static int ctx_fail(char *err, size_t errlen, const char *opt, const char *val)
{
    char why[160];
    take_ssl_reason(why, sizeof why);
    if (val)
        snprintf(err, errlen, "%s: \"%s\": %s", opt, val, why);
    else
        snprintf(err, errlen, "%s: %s", opt, why);
    return -1;
}

struct tls_ctx *tls_ctx_new(const struct tls_config *cfg, char *err, size_t errlen)
{
    struct tls_ctx *c = xcalloc(1, sizeof *c);
    c->resume = cfg->resume;
    c->verify = cfg->verify;
    c->sni = cfg->sni;
    c->host = cfg->host;
    SSL_CTX *ctx = c->ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        ctx_fail(err, errlen, "TLS", NULL);
        free(c);
        return NULL;
    }
    SSL_CTX_set_app_data(ctx, c);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | (cfg->resume ? 0 : SSL_OP_NO_TICKET));
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx, 1);
    int rc = 0;
    if (cfg->min_version && !SSL_CTX_set_min_proto_version(ctx, version_of(cfg->min_version)))
        rc = ctx_fail(err, errlen, "--tls-min", NULL);
    else if (cfg->max_version && !SSL_CTX_set_max_proto_version(ctx, version_of(cfg->max_version)))
        rc = ctx_fail(err, errlen, "--tls-max", NULL);
    else if (cfg->ciphers && !SSL_CTX_set_cipher_list(ctx, cfg->ciphers))
        rc = ctx_fail(err, errlen, "--ciphers", cfg->ciphers);
    else if (cfg->ciphersuites && !SSL_CTX_set_ciphersuites(ctx, cfg->ciphersuites))
        rc = ctx_fail(err, errlen, "--ciphersuites", cfg->ciphersuites);
    else if (cfg->groups && !SSL_CTX_set1_groups_list(ctx, cfg->groups))
        rc = ctx_fail(err, errlen, "--groups", cfg->groups);
    else if (SSL_CTX_set_alpn_protos(ctx, cfg->offer_h2 && cfg->offer_h1 ? alpn_both : cfg->offer_h2 ? alpn_h2 : alpn_h1,
                                     cfg->offer_h2 && cfg->offer_h1 ? sizeof alpn_both - 1
                                     : cfg->offer_h2                ? sizeof alpn_h2 - 1
                                                                    : sizeof alpn_h1 - 1) != 0)
        rc = ctx_fail(err, errlen, "ALPN", NULL);
    else if (cfg->cert && SSL_CTX_use_certificate_chain_file(ctx, cfg->cert) != 1)
        rc = ctx_fail(err, errlen, "--cert", cfg->cert);
    else if (cfg->cert && SSL_CTX_use_PrivateKey_file(ctx, cfg->key ? cfg->key : cfg->cert, SSL_FILETYPE_PEM) != 1)
        rc = ctx_fail(err, errlen, "--key", cfg->key ? cfg->key : cfg->cert);
    else if (cfg->cert && SSL_CTX_check_private_key(ctx) != 1)
        rc = ctx_fail(err, errlen, "--key", cfg->key ? cfg->key : cfg->cert);
    if (rc == 0 && cfg->verify) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        int ok = cfg->cacert ? SSL_CTX_load_verify_locations(ctx, cfg->cacert, NULL)
                             : SSL_CTX_set_default_verify_paths(ctx);
        if (ok != 1)
            rc = ctx_fail(err, errlen, cfg->cacert ? "--cacert" : "--verify", cfg->cacert);
    }
    if (rc == 0 && cfg->resume) {
        /* Sessions are kept by on_new_session, not in OpenSSL's cache. */
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    }
    if (rc < 0) {
        tls_ctx_free(c);
        return NULL;
    }
    return c;
}

void tls_ctx_free(struct tls_ctx *c)
{
    if (!c)
        return;
    if (c->session)
        SSL_SESSION_free(c->session);
    SSL_CTX_free(c->ctx);
    free(c);
}

struct tls_conn *tls_conn_new(struct tls_ctx *ctx)
{
    struct tls_conn *tc = xcalloc(1, sizeof *tc);
    tc->ctx = ctx;
    tc->ssl = SSL_new(ctx->ctx);
    if (!tc->ssl) {
        fprintf(stderr, "volley: out of memory (SSL_new)\n");
        abort();
    }
    return tc;
}

void tls_conn_free(struct tls_conn *tc)
{
    if (!tc)
        return;
    SSL_free(tc->ssl);
    free(tc);
}

void tls_conn_start(struct tls_conn *tc, int fd)
{
    SSL *ssl = tc->ssl;
    struct tls_ctx *c = tc->ctx;
    SSL_clear(ssl);
    SSL_set_fd(ssl, fd);
    if (c->sni)
        SSL_set_tlsext_host_name(ssl, c->sni);
    if (c->verify && c->host)
        SSL_set1_host(ssl, c->host);
    /* SSL_clear keeps the last connection's session when it was shut down
     * cleanly: replace it with the worker's newest, or drop it. */
    SSL_set_session(ssl, c->resume ? c->session : NULL);
    SSL_set_connect_state(ssl);
}

/* The status for a call that returned rc <= 0; on NET_ERROR the reason is
 * kept in tc and the thread's error queue is left empty (SSL_get_error is
 * only right when the queue was empty before the call). */
static enum net_status status_of(struct tls_conn *tc, int rc)
{
    int e = SSL_get_error(tc->ssl, rc);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        return NET_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        return NET_WANT_WRITE;
    case SSL_ERROR_SYSCALL:
        tc->sys_errno = errno;
        if (tc->sys_errno)
            snprintf(tc->reason, sizeof tc->reason, "%s", strerror(tc->sys_errno));
        else
            snprintf(tc->reason, sizeof tc->reason, "the server closed the connection during the handshake");
        ERR_clear_error();
        return NET_ERROR;
    default: {
        tc->sys_errno = 0;
        take_ssl_reason(tc->reason, sizeof tc->reason);
        long v = SSL_get_verify_result(tc->ssl); /* also computed without --verify: not a reason then */
        if (tc->ctx->verify && v != X509_V_OK) {
            size_t n = strlen(tc->reason);
            snprintf(tc->reason + n, sizeof tc->reason - n, ": %s", X509_verify_cert_error_string(v));
        }
        return NET_ERROR;
    }
    }
}

enum net_status tls_handshake(struct tls_conn *tc)
{
    int rc = SSL_do_handshake(tc->ssl);
    return rc == 1 ? NET_OK : status_of(tc, rc);
}

enum net_status tls_read(struct tls_conn *tc, char *buf, size_t cap, size_t *n)
{
    int r = SSL_read(tc->ssl, buf, cap > INT_MAX ? INT_MAX : (int)cap);
    if (r > 0) {
        *n = (size_t)r;
        return NET_OK;
    }
    if (SSL_get_error(tc->ssl, r) == SSL_ERROR_ZERO_RETURN) {
        *n = 0; /* close_notify, or (IGNORE_UNEXPECTED_EOF) a bare TCP close */
        return NET_OK;
    }
    return status_of(tc, r);
}

enum net_status tls_write(struct tls_conn *tc, const char *buf, size_t len, size_t *n)
{
    int w = SSL_write(tc->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (w > 0) {
        *n = (size_t)w;
        return NET_OK;
    }
    return status_of(tc, w);
}

bool tls_pending(const struct tls_conn *tc)
{
    return SSL_has_pending(tc->ssl);
}

void tls_conn_close(struct tls_conn *tc, bool clean)
{
    /* After a clean end close_notify goes out (one write), which also keeps
     * a TLS 1.2 session resumable: SSL_clear drops sessions of connections
     * that were not shut down. */
    if (clean && SSL_is_init_finished(tc->ssl))
        SSL_shutdown(tc->ssl);
    ERR_clear_error();
}

void tls_protocol(const struct tls_conn *tc, char *buf, size_t cap)
{
    const unsigned char *p;
    unsigned n;
    SSL_get0_alpn_selected(tc->ssl, &p, &n);
    if (!p || cap == 0)
        n = 0; /* none chosen */
    if (n >= cap)
        n = cap ? (unsigned)cap - 1 : 0;
    if (n)
        memcpy(buf, p, n);
    if (cap)
        buf[n] = '\0';
}

bool tls_resumed(const struct tls_conn *tc)
{
    return SSL_session_reused(tc->ssl);
}

const char *tls_reason(struct tls_conn *tc)
{
    return tc->reason;
}

int tls_socket_errno(const struct tls_conn *tc)
{
    return tc->sys_errno;
}

/* ab's "Server Temp Key" text for the server's ephemeral key. */
static void temp_key_text(SSL *ssl, char *buf, size_t len, int *bits)
{
    EVP_PKEY *key = NULL;
    buf[0] = '\0';
    *bits = 0;
    if (!SSL_get_peer_tmp_key(ssl, &key))
        return;
    *bits = EVP_PKEY_get_bits(key);
    switch (EVP_PKEY_get_id(key)) {
    case EVP_PKEY_RSA:
        snprintf(buf, len, "RSA %d bits", *bits);
        break;
    case EVP_PKEY_DH:
        snprintf(buf, len, "DH %d bits", *bits);
        break;
    case EVP_PKEY_EC: {
        char curve[64] = "";
        size_t n = 0;
        EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof curve, &n);
        snprintf(buf, len, "ECDH %s %d bits", curve, *bits);
        break;
    }
    default:
        snprintf(buf, len, "%s %d bits", OBJ_nid2sn(EVP_PKEY_get_id(key)), *bits);
        break;
    }
    EVP_PKEY_free(key);
}

void tls_get_info(const struct tls_conn *tc, struct tls_info *info)
{
    SSL *ssl = tc->ssl;
    memset(info, 0, sizeof *info);
    snprintf(info->protocol, sizeof info->protocol, "%s", SSL_get_version(ssl));
    const SSL_CIPHER *cipher = SSL_get_current_cipher(ssl);
    if (cipher) {
        snprintf(info->cipher, sizeof info->cipher, "%s", SSL_CIPHER_get_name(cipher));
        info->cipher_bits = SSL_CIPHER_get_bits(cipher, NULL);
    }
    int group = SSL_get_negotiated_group(ssl);
    const char *gname = group ? SSL_group_to_name(ssl, group) : NULL;
    snprintf(info->group, sizeof info->group, "%s", gname ? gname : "");
    temp_key_text(ssl, info->temp_key, sizeof info->temp_key, &info->temp_key_bits);
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (cert) {
        EVP_PKEY *pk = X509_get0_pubkey(cert);
        info->peer_key_bits = pk ? EVP_PKEY_get_bits(pk) : 0;
        X509_free(cert);
    }
    const unsigned char *alpn;
    unsigned alpn_len;
    SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
    if (alpn_len >= sizeof info->alpn)
        alpn_len = sizeof info->alpn - 1;
    if (alpn) /* NULL when the server chose none */
        memcpy(info->alpn, alpn, alpn_len);
    info->alpn[alpn_len] = '\0';
    snprintf(info->sni, sizeof info->sni, "%s", tc->ctx->sni ? tc->ctx->sni : "");
    info->resumed = SSL_session_reused(ssl);
}

/* Waits up to the deadline for fd to be ready for events. 0, or ETIMEDOUT
 * or the poll error. */
/* The probe notes whether the server asked for a client certificate. */
static void on_probe_message(int write_p, int version, int content_type, const void *buf, size_t len, SSL *ssl,
                             void *arg)
{
    (void)version;
    (void)ssl;
    if (!write_p && content_type == SSL3_RT_HANDSHAKE && len > 0 &&
        ((const unsigned char *)buf)[0] == SSL3_MT_CERTIFICATE_REQUEST)
        *(bool *)arg = true;
}

/* TLS 1.3 ends the client's handshake before the server has checked its
 * certificate: a refusal comes as an alert after it. When the server asked
 * for one, wait a moment (up to CERT_VERDICT_NS) for its verdict, a
 * session ticket as a rule, or the alert. Returns 0, or -1 (refused). */
#define CERT_VERDICT_NS INT64_C(300000000)
static int await_cert_verdict(struct tls_conn *tc, int fd, int64_t deadline)
{
    int64_t until = clock_now_ns() + CERT_VERDICT_NS;
    if (until > deadline)
        until = deadline;
    char buf[256];
    for (;;) {
        size_t n;
        enum net_status st = tls_read(tc, buf, sizeof buf, &n);
        if (st == NET_ERROR)
            return -1;
        if (st == NET_OK)
            return 0;
        if (net_wait(fd, st == NET_AGAIN ? POLLIN : POLLOUT, until) != 0)
            return 0; /* nothing more came: taken as accepted */
    }
}

int tls_probe(struct tls_ctx *ctx, const struct sockaddr *addr, socklen_t len, const struct sockaddr *src,
              socklen_t srclen, int64_t timeout_ns, struct tls_info *info, char *err, size_t errlen)
{
    char where[80];
    net_addr_string(addr, where, sizeof where);
    int64_t deadline = clock_now_ns() + timeout_ns;
    int fd, e;
    if (net_connect_until(addr, len, src, srclen, deadline, &fd, err, errlen) < 0)
        return -1;
    struct tls_conn *tc = tls_conn_new(ctx);
    tls_conn_start(tc, fd);
    bool cert_requested = false;
    SSL_set_msg_callback(tc->ssl, on_probe_message);
    SSL_set_msg_callback_arg(tc->ssl, &cert_requested);
    int rc = -1;
    for (;;) {
        enum net_status st = tls_handshake(tc);
        if (st == NET_OK && cert_requested && SSL_version(tc->ssl) >= TLS1_3_VERSION &&
            await_cert_verdict(tc, fd, deadline) < 0) {
            snprintf(err, errlen, "%s: TLS handshake: %s", where, tls_reason(tc));
            break;
        }
        if (st == NET_OK) {
            tls_get_info(tc, info);
            tls_conn_close(tc, true);
            rc = 0;
            break;
        }
        if (st == NET_ERROR) {
            snprintf(err, errlen, "%s: TLS handshake: %s", where, tls_reason(tc));
            break;
        }
        if ((e = net_wait(fd, st == NET_AGAIN ? POLLIN : POLLOUT, deadline)) != 0) {
            snprintf(err, errlen, "%s: TLS handshake %s", where,
                     e == ETIMEDOUT ? "timed out (--timeout)" : strerror(e));
            break;
        }
    }
    tls_conn_free(tc);
    net_close(fd);
    return rc;
}

const char *tls_library_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}
