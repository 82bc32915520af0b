/* --h2c's start-up probe: the preface out, the server's first frame header
 * in, checked to be SETTINGS. Plain bytes on a blocking-with-deadline
 * socket (nghttp2 is h2.c's alone, and nine bytes need no session). */
#include "h2c_probe.h"

#include "clock.h"
#include "net.h"

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The client preface (RFC 9113 3.4), then an empty SETTINGS frame. */
static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                              "\x00\x00\x00\x04\x00\x00\x00\x00\x00";
/* GOAWAY, last stream 0, NO_ERROR: the probe leaves without a request. */
static const char goaway[] = "\x00\x00\x08\x07\x00\x00\x00\x00\x00"
                             "\x00\x00\x00\x00\x00\x00\x00\x00";

#define FRAME_SETTINGS 0x4
#define FLAG_ACK 0x1

/* Moves len bytes of buf through fd in direction (write or read) before
 * deadline. Returns true when all of them went; a close, an error or the
 * deadline is false. */
static bool transfer(int fd, char *buf, size_t len, bool write, int64_t deadline)
{
    size_t done = 0;
    while (done < len) {
        size_t n = 0;
        enum net_status st = write ? net_write(fd, buf + done, len - done, &n) : net_read(fd, buf + done, len - done, &n);
        if (st == NET_ERROR || (st == NET_OK && n == 0))
            return false;
        if (st == NET_OK)
            done += n;
        else if (net_wait(fd, write ? POLLOUT : POLLIN, deadline) != 0)
            return false;
    }
    return true;
}

int h2c_probe(const struct sockaddr *addr, socklen_t len, const struct sockaddr *src, socklen_t srclen,
              int64_t timeout_ns, char *err, size_t errlen)
{
    int64_t deadline = clock_now_ns() + timeout_ns;
    int fd;
    if (net_connect_until(addr, len, src, srclen, deadline, &fd, err, errlen) < 0)
        return -1;
    char out[sizeof preface - 1], head[9];
    memcpy(out, preface, sizeof out);
    /* The first frame the server sends is its SETTINGS (not an ACK of ours:
     * that can only follow it), on stream 0. An HTTP/1.1 server answers
     * the preface with "HTTP/1.1 400" or closes. */
    bool settings = transfer(fd, out, sizeof out, true, deadline) && transfer(fd, head, sizeof head, false, deadline) &&
                    head[3] == FRAME_SETTINGS && !(head[4] & FLAG_ACK) && !(head[5] | head[6] | head[7] | head[8]);
    if (settings) {
        char bye[sizeof goaway - 1];
        memcpy(bye, goaway, sizeof bye);
        size_t n;
        net_write(fd, bye, sizeof bye, &n); /* a courtesy: its failure changes nothing */
    }
    net_close(fd);
    if (!settings) {
        char where[80];
        snprintf(err, errlen, "%s: no HTTP/2 SETTINGS after the preface: does it speak h2c?",
                 net_addr_string(addr, where, sizeof where));
        return -1;
    }
    return 0;
}
