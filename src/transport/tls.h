/* TLS for connections (OpenSSL 3): a context per worker, a session per
 * connection, and the same I/O interface as net.h. This is the only file
 * that sees OpenSSL's headers: nothing above it handles an SSL*.
 *
 * The I/O calls return NET_OK, NET_AGAIN (wait until readable),
 * NET_WANT_WRITE (wait until writable) or NET_ERROR (tls_reason() says
 * why), and never block. A context holds the session of the last handshake
 * of its worker, so a reopened connection resumes it (unless resumption is
 * off). Contexts are never shared between threads: OpenSSL 3 serialises
 * threads on shared contexts. */
#ifndef VOLLEY_TLS_H
#define VOLLEY_TLS_H

#include "net.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the command line asks of TLS; strings are borrowed. */
struct tls_config {
    int min_version;          /* 12 or 13 (TLS 1.2 / 1.3); 0: OpenSSL's default */
    int max_version;          /* likewise */
    const char *ciphers;      /* TLS 1.2 cipher list, or NULL */
    const char *ciphersuites; /* TLS 1.3 suites, or NULL */
    const char *groups;       /* key-exchange groups, or NULL */
    const char *sni;          /* server name to send, or NULL for none */
    const char *host;         /* the name (or IP) to verify the certificate against (--verify) */
    bool verify;              /* check the server's certificate */
    const char *cacert;       /* CA file for --verify (NULL: the system store) */
    const char *cert, *key;   /* client certificate and key (mutual TLS), or NULL */
    bool resume;              /* resume the last session on a new connection */
    bool offer_h2;            /* ALPN offers h2 (--http2) ... */
    bool offer_h1;            /* ... and http/1.1 (all but --http2=strict) */
};

/* What a handshake agreed on, for the report and scripts. */
struct tls_info {
    char protocol[16];  /* "TLSv1.3" */
    char cipher[64];    /* "TLS_AES_256_GCM_SHA384" */
    char group[32];     /* key exchange: "X25519" */
    int cipher_bits;    /* secret bits of the cipher */
    int temp_key_bits;  /* bits of the server's ephemeral key (ab's Server Temp Key) */
    int peer_key_bits;  /* bits of the server certificate's key */
    char temp_key[64];  /* the server's ephemeral key as ab prints it: "X25519 253 bits" */
    char alpn[32];      /* "http/1.1", or "" */
    char sni[256];      /* the name sent, or "" */
    bool resumed;
};

struct tls_ctx;
struct tls_conn;

/* A worker's context: versions, ciphers, certificates and CA store loaded
 * once. Returns NULL with err naming the option at fault. */
struct tls_ctx *tls_ctx_new(const struct tls_config *cfg, char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *ctx);

/* A connection's TLS state, made once per connection slot and reused for
 * every socket it opens (allocates; not per request). */
struct tls_conn *tls_conn_new(struct tls_ctx *ctx);
void tls_conn_free(struct tls_conn *tc);

/* Binds tc to a new socket fd and prepares the client handshake (SNI,
 * ALPN, the session to resume). */
void tls_conn_start(struct tls_conn *tc, int fd);

/* Drives the handshake: NET_OK when done, else what to wait for. */
enum net_status tls_handshake(struct tls_conn *tc);

/* As net_read / net_write; NET_OK with *n == 0 from tls_read is the end of
 * the stream (close_notify, or a TCP close without it: see tls.c). Writes
 * may be partial. */
enum net_status tls_read(struct tls_conn *tc, char *buf, size_t cap, size_t *n);
enum net_status tls_write(struct tls_conn *tc, const char *buf, size_t len, size_t *n);

/* Whether OpenSSL holds bytes it read from the socket and has not handed
 * out yet: the kernel will not report them readable again. */
bool tls_pending(const struct tls_conn *tc);

/* The socket is about to close: sends close_notify (best effort, one
 * write) when the connection ended cleanly, and forgets the socket. */
void tls_conn_close(struct tls_conn *tc, bool clean);

/* After a handshake: the protocol ALPN chose ("h2", "http/1.1") in buf
 * (cap bytes, NUL-terminated, cut to fit), "" when none was chosen. */
void tls_protocol(const struct tls_conn *tc, char *buf, size_t cap);

/* After a handshake: whether it resumed a session. */
bool tls_resumed(const struct tls_conn *tc);

/* Why the last call of tc failed, as OpenSSL says it ("certificate verify
 * failed: self-signed certificate", "wrong version number", "tlsv1 alert
 * handshake failure"), or the system error. Valid until the next call. */
const char *tls_reason(struct tls_conn *tc);

/* The errno of the last failure of tc when it was the socket's (a refused
 * or reset connection), or 0 when it was TLS's. */
int tls_socket_errno(const struct tls_conn *tc);

/* What the handshake of tc agreed on. */
void tls_get_info(const struct tls_conn *tc, struct tls_info *info);

/* The start-up probe over TLS: connects to addr (from src unless NULL, as
 * net_connect_from) and shakes hands within timeout_ns, blocking, with ctx
 * (main's own). Returns 0 and fills *info, or -1 with err
 * ("127.0.0.1:8443: TLS handshake: wrong version number", "... handshake
 * timed out"). */
int tls_probe(struct tls_ctx *ctx, const struct sockaddr *addr, socklen_t len, const struct sockaddr *src,
              socklen_t srclen, int64_t timeout_ns, struct tls_info *info, char *err, size_t errlen);

/* The TLS library volley runs with, "OpenSSL 3.0.15 3 Sep 2024" (its own
 * words; --version). */
const char *tls_library_version(void);

#endif
