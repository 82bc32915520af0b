/* The floor for reading server-sent events: the least a client can do per
 * event. C connections, each sends one request and reads its streamed
 * response until the server closes, counting events (a blank line, "\n\n",
 * is an event's end: the chunk framing of HTTP/1.1 never holds one), with
 * an epoll loop and non-blocking reads into one buffer. Prints the events,
 * the client's CPU (user + sys, getrusage) and the CPU per event.
 *
 *   sse_floor PORT CONNS REQUEST_FILE
 *
 * REQUEST_FILE holds the whole request (head and body), sent as it is.
 * Loopback only. Written for tests/bench/streams.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct stream {
    int fd;
    int last_lf; /* the previous read ended with '\n' */
};

static double cpu_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sse_floor PORT CONNS REQUEST_FILE\n");
        return 2;
    }
    int port = atoi(argv[1]), n = atoi(argv[2]);
    FILE *f = fopen(argv[3], "rb");
    if (!f || n <= 0) {
        fprintf(stderr, "sse_floor: bad arguments\n");
        return 2;
    }
    static char req[65536];
    size_t req_len = fread(req, 1, sizeof req, f);
    fclose(f);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    struct stream *ss = calloc((size_t)n, sizeof *ss);
    int ep = epoll_create1(0);
    double c0 = cpu_s();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
            perror("sse_floor: connect");
            return 1;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (write(fd, req, req_len) != (ssize_t)req_len) {
            perror("sse_floor: write");
            return 1;
        }
        fcntl(fd, F_SETFL, O_NONBLOCK);
        ss[i].fd = fd;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &ss[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    static char buf[65536];
    unsigned long long events = 0, bytes = 0;
    int open = n;
    struct epoll_event evs[256];
    while (open > 0) {
        int k = epoll_wait(ep, evs, 256, -1);
        for (int e = 0; e < k; e++) {
            struct stream *s = evs[e].data.ptr;
            for (;;) {
                ssize_t r = read(s->fd, buf, sizeof buf);
                if (r < 0 && errno == EAGAIN)
                    break;
                if (r <= 0) {
                    close(s->fd);
                    open--;
                    break;
                }
                bytes += (unsigned long long)r;
                if (s->last_lf && buf[0] == '\n')
                    events++;
                for (const char *p = buf, *end = buf + r; (p = memchr(p, '\n', (size_t)(end - p - 1))) && p < end - 1;
                     p++)
                    if (p[1] == '\n')
                        events++;
                s->last_lf = buf[r - 1] == '\n';
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double cpu = cpu_s() - c0;
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("{\"events\": %llu, \"bytes\": %llu, \"cpu_s\": %.6f, \"wall_s\": %.3f, \"cpu_us_per_event\": %.4f}\n",
           events, bytes, cpu, wall, events ? cpu / (double)events * 1e6 : 0.0);
    return 0;
}
