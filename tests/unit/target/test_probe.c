/* target_probe tries the addresses of a name in order and the run uses the
 * first that accepts: the `localhost` fallback between ::1 and 127.0.0.1,
 * tested with explicit address lists so it does not depend on /etc/hosts.
 * With --source: target_keep_family narrows the list to the sources'
 * family, and the probe connects from the source it is given. */
#include "../check.h"
#include "target.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A loopback socket bound to a free port; listening or not. */
static int bound(int family, int do_listen, struct target_addr *a)
{
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    memset(a, 0, sizeof *a);
    if (family == AF_INET6) {
        struct sockaddr_in6 *s = (void *)&a->sa;
        s->sin6_family = AF_INET6;
        s->sin6_addr = in6addr_loopback;
        a->len = sizeof *s;
    } else {
        struct sockaddr_in *s = (void *)&a->sa;
        s->sin_family = AF_INET;
        s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a->len = sizeof *s;
    }
    if (bind(fd, (void *)&a->sa, a->len) < 0 || getsockname(fd, (void *)&a->sa, &a->len) < 0 ||
        (do_listen && listen(fd, 8) < 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void probe_list(struct target_addr *addrs, size_t n, int expect_rc, size_t expect_chosen,
                       const char *what)
{
    struct target t = {.host = "testhost", .port = 1};
    t.addrs = addrs;
    t.naddrs = n;
    char err[256] = "";
    int rc = target_probe(&t, NULL, 0, 2000000000, err, sizeof err);
    check_ctx("%s (err: %s)", what, err);
    CHECK_INT(rc, expect_rc);
    if (rc == 0)
        CHECK_UINT(t.chosen, expect_chosen);
    else
        CHECK_CONTAINS(err, "connection refused");
    check_ctx(NULL);
}

int main(void)
{
    struct target_addr a[3];
    /* Refused first, listening second: the second is chosen. */
    int dead = bound(AF_INET, 0, &a[0]);
    int live = bound(AF_INET, 1, &a[1]);
    CHECK(dead >= 0 && live >= 0);
    probe_list(a, 2, 0, 1, "v4 refused then v4 listening");
    probe_list(a + 1, 1, 0, 0, "v4 listening alone");
    probe_list(a, 1, -1, 0, "v4 refused alone");

    /* ::1 first (nothing listening), 127.0.0.1 second: localhost vs an IPv4-only server. */
    int dead6 = bound(AF_INET6, 0, &a[2]);
    if (dead6 >= 0) {
        struct target_addr order[2] = {a[2], a[1]};
        probe_list(order, 2, 0, 1, "::1 refused then 127.0.0.1 listening");
        close(dead6);
        /* And an IPv6-only server behind a refused IPv4 address. */
        int live6 = bound(AF_INET6, 1, &a[2]);
        struct target_addr order2[2] = {a[0], a[2]};
        probe_list(order2, 2, 0, 1, "127.0.0.1 refused then ::1 listening");
        close(live6);
    } else {
        puts("skip: no IPv6 loopback");
    }
    /* --source's family: the IPv4 addresses of a mixed list, in order. */
    check_ctx("keep the IPv4 addresses of v4, v6, v4");
    {
        struct target_addr mixed[3] = {a[0], a[2], a[1]};
        struct target t = {.host = "testhost", .port = 1, .addrs = mixed, .naddrs = 3, .chosen = 2};
        if (dead6 >= 0 && CHECK_UINT(target_keep_family(&t, AF_INET), 2)) {
            CHECK_UINT(t.naddrs, 2);
            CHECK_UINT(t.chosen, 0);
            CHECK(memcmp(&t.addrs[0], &a[0], sizeof a[0]) == 0);
            CHECK(memcmp(&t.addrs[1], &a[1], sizeof a[1]) == 0);
        }
        check_ctx("no IPv6 address: the list is left as it was");
        struct target_addr v4[2] = {a[0], a[1]};
        struct target u = {.host = "testhost", .port = 1, .addrs = v4, .naddrs = 2, .chosen = 1};
        CHECK_UINT(target_keep_family(&u, AF_INET6), 0);
        CHECK_UINT(u.naddrs, 2);
        CHECK_UINT(u.chosen, 1);
    }

    /* The probe connects from the source: a fresh listener (the one above
     * holds the earlier probes' connections) sees 127.0.0.2. */
    check_ctx("probe from 127.0.0.2");
    struct target_addr fresh;
    int lfd = bound(AF_INET, 1, &fresh);
    if (CHECK(lfd >= 0)) {
        struct sockaddr_in src = {.sin_family = AF_INET};
        inet_pton(AF_INET, "127.0.0.2", &src.sin_addr);
        struct target t = {.host = "testhost", .port = 1, .addrs = &fresh, .naddrs = 1};
        char err[256] = "";
        if (CHECK_INT(target_probe(&t, (const struct sockaddr *)&src, sizeof src, 2000000000, err, sizeof err), 0)) {
            struct sockaddr_in peer;
            socklen_t plen = sizeof peer;
            int fd = accept(lfd, (struct sockaddr *)&peer, &plen);
            char got[INET_ADDRSTRLEN] = "";
            if (CHECK(fd >= 0)) {
                inet_ntop(AF_INET, &peer.sin_addr, got, sizeof got);
                CHECK_STR(got, "127.0.0.2");
                close(fd);
            }
        } else {
            fprintf(stderr, "    err: %s\n", err);
        }
        close(lfd);
    }
    check_ctx(NULL);

    close(dead);
    close(live);
    return check_exit("test_probe");
}
