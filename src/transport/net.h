/* Non-blocking TCP sockets. I/O helpers return NET_OK / NET_AGAIN /
 * NET_ERROR and callers switch on all three (errno holds the reason after
 * NET_ERROR). A TLS transport would slot in behind these same calls. */
#ifndef VOLLEY_NET_H
#define VOLLEY_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* NET_AGAIN: wait until readable (or, for a plain write, writable);
 * NET_WANT_WRITE: a TLS call waits until writable (only tls.h returns it). */
enum net_status { NET_OK, NET_AGAIN, NET_WANT_WRITE, NET_ERROR };

/* Opens a non-blocking TCP_NODELAY socket (a Unix domain socket for an
 * AF_UNIX addr, --unix-socket: src must then be NULL) and starts connecting it to addr
 * from the local address src (port 0, of addr's family; NULL: the kernel's
 * choice). NET_OK: connected at once; NET_AGAIN: in progress (wait for
 * writable, then net_connect_result); NET_ERROR: failed, errno set, no
 * socket left open. *fd is the socket for NET_OK and NET_AGAIN.
 * A src socket is bound with IP_BIND_ADDRESS_NO_PORT,
 * so the port is chosen by connect() for the whole four-tuple: each source
 * address has the whole ephemeral port range to itself. When the ports run
 * out, NET_ERROR with errno EADDRNOTAVAIL (from bind or connect). */
enum net_status net_connect_from(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src,
                                 socklen_t srclen, int *fd);

/* Whether a socket binds to src as net_connect_from binds it (an address
 * of this machine, of a family it has): 0, or the errno of the bind. */
int net_bind_check(const struct sockaddr *src, socklen_t srclen);

/* After a connecting socket turned writable: 0 if connected, else the errno
 * of the failed connect. */
int net_connect_result(int fd);

/* For the blocking start-up probes: waits until fd has one of events
 * (POLLIN, POLLOUT) or the monotonic deadline (clock_now_ns) passes.
 * Returns 0, ETIMEDOUT, or poll's errno. */
int net_wait(int fd, short events, int64_t deadline);

/* For the probes: net_connect_from, then waits until the deadline for the
 * connect to finish. Returns 0 with *fd connected (the caller closes it),
 * or -1 with no socket left open and one line in err naming the address
 * ("127.0.0.1:8080: connect timed out", or the errno's words). */
int net_connect_until(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src, socklen_t srclen,
                      int64_t deadline, int *fd, char *err, size_t errlen);

/* Writes up to len bytes. NET_OK: *n bytes were written (> 0, maybe fewer
 * than len); NET_AGAIN: nothing could be written; NET_ERROR: errno set. */
enum net_status net_write(int fd, const char *buf, size_t len, size_t *n);

/* Reads up to cap bytes. NET_OK: *n bytes read, 0 meaning the peer closed;
 * NET_AGAIN: nothing to read; NET_ERROR: errno set. */
enum net_status net_read(int fd, char *buf, size_t cap, size_t *n);

/* Closes fd (EINTR-safe; errors ignored: nothing useful can be done). */
void net_close(int fd);

/* Formats addr as "1.2.3.4:80", "[::1]:80" or (--unix-socket) "unix:PATH"
 * into buf. Returns buf. */
char *net_addr_string(const struct sockaddr *addr, char *buf, size_t len);

/* Whether host is "localhost" or a name under ".localhost" (RFC 6761),
 * with or without a trailing dot, in any case. */
bool net_is_localhost(const char *host);

/* Resolves host and service (a port number or name) to every TCP address,
 * calling add(arg, address, length) for each in the resolver's order. A
 * localhost name (net_is_localhost) is 127.0.0.1 then ::1 without asking
 * the resolver, as curl does (RFC 6761 says such names are loopback), so
 * it reaches a server on either loopback whatever /etc/hosts lists. IPv4
 * first: most servers listen there, and --no-probe takes the first.
 * Returns 0, or getaddrinfo's error code (for gai_strerror). */
int net_resolve(const char *host, const char *service,
                void (*add)(void *arg, const struct sockaddr *addr, socklen_t len), void *arg);

#endif
