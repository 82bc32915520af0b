/* --allow-host: the hosts a flow may reach besides the target (a CDN, an
 * auth host), parsed with the options, resolved once at start-up (the
 * worker's loop never calls getaddrinfo), and looked up read-only by the
 * workers when a user first reaches one of them. */
#ifndef VOLLEY_HOSTS_H
#define VOLLEY_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The most hosts --allow-host may list (all its words together). */
#define HOSTS_MAX 16

struct hosts_entry {
    char *name;                  /* lower case, without IPv6 brackets */
    uint16_t port;               /* 0: any port of name */
    bool is_ip;                  /* an IP literal: no lookup, no SNI */
    struct sockaddr_storage sa;  /* after hosts_resolve: its first address (port 0) */
    socklen_t salen;
};

/* Read-only once resolved. */
struct hosts {
    struct hosts_entry e[HOSTS_MAX];
    size_t n;
};

/* Adds the hosts of one --allow-host word, HOST[:PORT][,HOST[:PORT]...]
 * (an IPv6 literal in brackets, [::1]:8080). Returns 0, or -1 with one
 * line in err naming the value ("--allow-host: \"a b\" is not a host"). */
int hosts_parse(struct hosts *h, const char *list, char *err, size_t errlen);

/* Resolves every name of h once (an IP literal without a lookup). Returns
 * 0, or -1 with err ("--allow-host: cdn.nosuch: no such host"). */
int hosts_resolve(struct hosts *h, char *err, size_t errlen);

/* The entry that allows host (lower case, no brackets) on port, or NULL. */
const struct hosts_entry *hosts_find(const struct hosts *h, const char *host, uint16_t port);

/* The address of an entry on port, into *out (its length in *len). */
void hosts_addr(const struct hosts_entry *e, uint16_t port, struct sockaddr_storage *out, socklen_t *len);

void hosts_free(struct hosts *h);

#endif
