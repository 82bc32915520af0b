/* The target: URL parsing and address resolution. A name resolves to every
 * address it has, in resolver order; the probe connects to them in turn and
 * the run uses the first that accepts, so `localhost` works whether the server
 * listens on ::1 only or on 127.0.0.1 only. */
#ifndef VOLLEY_TARGET_H
#define VOLLEY_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct target_addr {
    struct sockaddr_storage sa;
    socklen_t len;
};

/* All fields are read-only after target_parse/target_resolve. */
struct target {
    char *url;         /* as given */
    char *scheme;      /* "http" or "https" */
    bool tls;          /* https */
    bool host_is_ip;   /* host is an IP literal (no SNI for it) */
    char *host;        /* without IPv6 brackets */
    uint16_t port;
    int port_given;    /* the URL named the port */
    char *path;        /* path and query, at least "/" */
    char *host_header; /* value for the Host header: host[:port], IPv6 bracketed */
    char *origin;      /* scheme://host_header: an http:// request's absolute-form
                        * prefix through a proxy */
    struct target_addr *addrs;
    size_t naddrs;
    size_t chosen;     /* index into addrs of the address the run uses */
    char *unix_path;   /* --unix-socket: addrs is this socket's one address; NULL: none */
    char *proxy;       /* the HTTP proxy connections go through, as reports show it
                        * ("http://host:port", no credentials; proxy_apply), or NULL */
    char *proxy_auth;  /* its Proxy-Authorization value, or NULL */
    struct target_addr proxy_addr; /* its chosen address: where connections go */
};

/* Parses http[s]://host[:port][/path][?query] into t. Returns 0, or -1 with one
 * line in err naming the URL and what is wrong with it. */
int target_parse(struct target *t, const char *url, char *err, size_t errlen);

/* Resolves t->host to every address (IPv6 and IPv4) in resolver order;
 * localhost is 127.0.0.1 then ::1 whatever the resolver says (net_resolve).
 * Returns 0, or -1 with err ("nosuch.example: no such host"). */
int target_resolve(struct target *t, char *err, size_t errlen);

/* Keeps only t's addresses of family (AF_INET or AF_INET6), in their
 * order, and chooses the first: --source's addresses are all of one
 * family, and a connection can only go from an address to one of its
 * family (`localhost` with --source ::1 is ::1). Returns how many are
 * left; with none of that family t is left as it was and 0 returned. */
size_t target_keep_family(struct target *t, int family);

/* Connects to the addresses in order, each within timeout_ns, from src
 * when it is not NULL (bound as net_connect_from binds it), and chooses
 * the first that accepts (the connection is closed again at once).
 * Returns 0, or -1 with err naming the address and the reason (connection
 * refused, timed out, ...) when none accepts. */
int target_probe(struct target *t, const struct sockaddr *src, socklen_t srclen, int64_t timeout_ns, char *err,
                 size_t errlen);

/* --unix-socket: t's one address becomes the Unix domain socket at path
 * (the URL still gives Host and SNI). Returns 0, or -1 with one line in
 * err when path is no socket ("--unix-socket: /x: no such file"). */
int target_use_unix(struct target *t, const char *path, char *err, size_t errlen);

/* The chosen address: where connections go (the proxy's, through one). */
const struct sockaddr *target_sockaddr(const struct target *t, socklen_t *len);

void target_free(struct target *t);

#endif
