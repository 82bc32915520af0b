/* The TCP transport (transport.h): plain non-blocking sockets, net.c's
 * calls as they are. No context, no per-slot state, no handshake. */
#include "transport.h"

#include <errno.h>

static enum net_status tcp_read(void *t, int fd, char *buf, size_t cap, size_t *n)
{
    (void)t;
    return net_read(fd, buf, cap, n);
}

static enum net_status tcp_write(void *t, int fd, const char *buf, size_t len, size_t *n)
{
    (void)t;
    return net_write(fd, buf, len, n);
}

static bool tcp_more(void *t, size_t n, size_t cap)
{
    (void)t;
    return n == cap;
}

static int tcp_socket_errno(void *t, int fd)
{
    (void)t;
    (void)fd;
    return errno;
}

static void tcp_close(void *t, int fd, bool clean)
{
    (void)t;
    (void)clean;
    net_close(fd);
}

const struct transport_ops transport_tcp = {
    .name = "tcp",
    .connect = net_connect_from,
    .connected = net_connect_result,
    .socket_errno = tcp_socket_errno,
    .read = tcp_read,
    .write = tcp_write,
    .more = tcp_more,
    .close = tcp_close,
};
