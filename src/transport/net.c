/* Non-blocking TCP socket helpers for connections: connect, read, write and
 * close, each one system call on the fast path. */
#include "net.h"

#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* Older C libraries lack the name; the value is Linux's (4.2 and later). */
#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

/* Binds s to src without a port: without IP_BIND_ADDRESS_NO_PORT bind()
 * would reserve a port for the address alone, and the ports of one address
 * would run out at the range's size whatever the targets; with it,
 * connect() picks the port for the whole four-tuple. It is an IPPROTO_IP
 * option for IPv6 sockets too. Returns 0, or -1 with errno. */
static int bind_source(int s, const struct sockaddr *src, socklen_t srclen)
{
    int one = 1;
    setsockopt(s, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    return bind(s, src, srclen);
}

int net_bind_check(const struct sockaddr *src, socklen_t srclen)
{
    int s = socket(src->sa_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
    if (s < 0)
        return errno;
    int e = bind_source(s, src, srclen) < 0 ? errno : 0;
    close(s);
    return e;
}

enum net_status net_connect_from(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src,
                                 socklen_t srclen, int *fd)
{
    bool unix_socket = addr->sa_family == AF_UNIX; /* --unix-socket: no TCP, no source */
    int s = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, unix_socket ? 0 : IPPROTO_TCP);
    if (s < 0)
        return NET_ERROR;
    int one = 1;
    /* Requests go out as one write each; Nagle would hold back the next one. */
    if (!unix_socket)
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (src && bind_source(s, src, srclen) < 0) {
        int saved = errno;
        close(s);
        errno = saved;
        return NET_ERROR;
    }
    if (connect(s, addr, len) == 0) {
        *fd = s;
        return NET_OK;
    }
    if (errno == EINPROGRESS) {
        *fd = s;
        return NET_AGAIN;
    }
    int saved = errno;
    close(s);
    errno = saved;
    return NET_ERROR;
}

int net_connect_result(int fd)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        return errno;
    return err;
}

int net_wait(int fd, short events, int64_t deadline)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    for (;;) {
        int64_t left = deadline - clock_now_ns();
        if (left <= 0)
            return ETIMEDOUT;
        int rc = poll(&pfd, 1, (int)((left + 999999) / 1000000));
        if (rc > 0)
            return 0;
        if (rc == 0)
            return ETIMEDOUT;
        if (errno != EINTR)
            return errno;
    }
}

int net_connect_until(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src, socklen_t srclen,
                      int64_t deadline, int *fd, char *err, size_t errlen)
{
    enum net_status st = net_connect_from(addr, len, src, srclen, fd);
    int e = st == NET_ERROR ? errno : 0;
    if (st == NET_AGAIN && ((e = net_wait(*fd, POLLOUT, deadline)) != 0 || (e = net_connect_result(*fd)) != 0))
        net_close(*fd);
    if (!e)
        return 0;
    char where[80];
    snprintf(err, errlen, "%s: %s", net_addr_string(addr, where, sizeof where),
             e == ETIMEDOUT ? "connect timed out" : strerror(e));
    return -1;
}

/* read(2) and write(2) without glibc's wrappers: those are thread
 * cancellation points and pay for the bookkeeping on every call (about a
 * tenth of volley's own instructions per request). volley never cancels a
 * thread, so the raw system call is the same operation, cheaper. */
static inline ssize_t raw_write(int fd, const void *buf, size_t len)
{
    return syscall(SYS_write, fd, buf, len);
}

static inline ssize_t raw_read(int fd, void *buf, size_t len)
{
    return syscall(SYS_read, fd, buf, len);
}

enum net_status net_write(int fd, const char *buf, size_t len, size_t *n)
{
    for (;;) {
        ssize_t w = raw_write(fd, buf, len);
        if (w >= 0) {
            *n = (size_t)w;
            return NET_OK;
        }
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? NET_AGAIN : NET_ERROR;
    }
}

enum net_status net_read(int fd, char *buf, size_t cap, size_t *n)
{
    for (;;) {
        ssize_t r = raw_read(fd, buf, cap);
        if (r >= 0) {
            *n = (size_t)r;
            return NET_OK;
        }
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? NET_AGAIN : NET_ERROR;
    }
}

void net_close(int fd)
{
    /* On Linux the descriptor is released even when close reports EINTR, so
     * retrying could close someone else's new descriptor. */
    close(fd);
}

char *net_addr_string(const struct sockaddr *addr, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (addr->sa_family == AF_UNIX) {
        snprintf(buf, len, "unix:%s", ((const struct sockaddr_un *)(const void *)addr)->sun_path);
    } else if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const void *)addr;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const void *)addr;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
    }
    return buf;
}

bool net_is_localhost(const char *host)
{
    size_t n = strlen(host);
    if (n && host[n - 1] == '.')
        n--;
    return (n == 9 && strncasecmp(host, "localhost", 9) == 0) ||
           (n > 10 && strncasecmp(host + n - 10, ".localhost", 10) == 0);
}

int net_resolve(const char *host, const char *service,
                void (*add)(void *arg, const struct sockaddr *addr, socklen_t len), void *arg)
{
    static const char *const loopback[] = {"127.0.0.1", "::1"};
    bool local = net_is_localhost(host);
    const char *const *names = local ? loopback : &host;
    for (size_t i = 0; i < (local ? 2u : 1u); i++) {
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP,
                                 .ai_flags = local ? AI_NUMERICHOST : 0};
        struct addrinfo *res = NULL;
        int rc;
        if ((rc = getaddrinfo(names[i], service, &hints, &res)) != 0) {
            if (local)
                continue; /* the other loopback may do */
            return rc;
        }
        for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
            add(arg, ai->ai_addr, ai->ai_addrlen);
        freeaddrinfo(res);
    }
    return 0;
}
