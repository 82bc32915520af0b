/*
 * volley-target, start-up and exit: options, the loopback-only listening
 * socket, signals and --max-seconds, the counters, whole-server stalls and
 * the files written for the caller (--port-file, --stats-file, --log,
 * --timing-log). See vtarget.h for the parts and tests/target/README.md for
 * what the server does.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vtarget.h"

struct options opt = { .bind = "127.0.0.1", .max_seconds = 60.0 };
struct stats stats;
struct ev_loop *loop;
FILE *req_log;
FILE *timing_log;
FILE *tls_log;
bool stall_pending;

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("volley-target: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Write a whole file under a temporary name, then rename, so a reader
 * polling for the file never sees it half written. */
static int write_file_atomic(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* New counters go at the end, so readers that match the text keep working.
 * The TLS counters exist only in TLS mode, the llm_* ones once a /v1
 * request came: a plain server's JSON is otherwise as it always was. */
int stats_json(char *buf, size_t size)
{
    int n = snprintf(buf, size,
        "{\"received\":%" PRIu64 ",\"answered\":%" PRIu64
        ",\"connections\":%" PRIu64 ",\"dropped\":%" PRIu64
        ",\"authorized\":%" PRIu64 ",\"ignored\":%" PRIu64 "%s",
        stats.received, stats.answered, stats.connections, stats.dropped,
        stats.authorized, stats.ignored, opt.tls_cert || stats.llm_requests ? "" : "}");
    if (opt.tls_cert && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n,
            ",\"tls_handshakes\":%" PRIu64 ",\"tls_resumed\":%" PRIu64
            ",\"tls_failed\":%" PRIu64 "%s",
            stats.tls_handshakes, stats.tls_resumed, stats.tls_failed, stats.llm_requests ? "" : "}");
    if (stats.llm_requests && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n,
            ",\"llm_streams\":%" PRIu64 ",\"llm_done\":%" PRIu64
            ",\"llm_events\":%" PRIu64 ",\"llm_cut\":%" PRIu64 "}",
            stats.llm_streams, stats.llm_done, stats.llm_events, stats.llm_cut);
    return n;
}

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --stall-every/--stall-ms: the whole process stops, inside the event loop,
 * like a GC pause or a SIGSTOP: nothing is accepted, read, written or timed
 * out meanwhile. Signals that arrive are handled after it. */
void stall(void)
{
    stall_pending = false;
    uint64_t start = mono_ns();
    uint64_t end = start + (uint64_t)opt.stall_ms * 1000000u;
    struct timespec until = { .tv_sec = (time_t)(end / 1000000000u),
                              .tv_nsec = (long)(end % 1000000000u) };
    int e;
    while ((e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) == EINTR)
        ;
    if (e != 0)
        die("clock_nanosleep: %s", strerror(e));
    if (timing_log)
        fprintf(timing_log, "s %" PRIu64 " %" PRIu64 "\n", start, mono_ns());
}

static void on_signal(struct ev_loop *l, ev_signal *w, int revents)
{
    (void)w, (void)revents;
    ev_break(l, EVBREAK_ALL);      /* SIGTERM/SIGINT: exit cleanly */
}

static void on_max_seconds(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    ev_break(l, EVBREAK_ALL);      /* safety bound so tests never leave us running */
}

static void usage(FILE *f)
{
    fputs("usage: volley-target [--bind ADDR] [--port N] [--port-file FILE]\n"
          "         [--stats-file FILE] [--log FILE [--log-bodies]]\n"
          "         [--timing-log FILE [--timing-peers]]\n"
          "         [--max-seconds S] [--close-every K] [--delay-ms D]\n"
          "         [--stall-every N --stall-ms S] [--drop-every K] [--serve-only K] [--quiet]\n"
          "         [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]\n"
          "          [--tls-min V] [--tls-max V] [--tls-no-tickets] [--tls-no-resume]\n"
          "          [--tls-log FILE]]\n"
          "         [--llm-tokens N] [--llm-usage on|off|request] [--llm-first-ms D]\n"
          "         [--llm-gap-ms D] [--llm-stall-at K --llm-stall-ms S]\n"
          "         [--llm-stall-all-at-ms T --llm-stall-all-ms S]\n"
          "         [--llm-framing chunked|length|close] [--llm-event-bytes B]\n"
          "         [--llm-huge-event] [--llm-log FILE]\n"
          "Test HTTP server for volley. Listens on loopback only (127.0.0.0/8 or ::1).\n"
          "  --delay-ms D        answer every response D ms after its request was read\n"
          "  --stall-every N     after every N-th request, block the whole server for\n"
          "  --stall-ms S          S ms (both required together; N, S >= 1)\n"
          "  --drop-every K      never answer every K-th request (nor anything after it\n"
          "                      on its connection); counted in \"ignored\"\n"
          "  --serve-only K      answer only the first K connections accepted; the\n"
          "                      others are read and never answered (\"ignored\")\n"
          "  --timing-log FILE   'r <ns>' per request read, 'a <ns>' per connection\n"
          "                      accepted, 'c <ns>' per connection closed, 's <start_ns> <end_ns>' per\n"
          "                      stall (CLOCK_MONOTONIC nanoseconds); complete at exit\n"
          "  --timing-peers      with --timing-log: each a, r and c line ends with the\n"
          "                      client's address ('r <ns> 127.0.0.2')\n"
          "  --tls-cert FILE     speak TLS (PEM certificate chain; --tls-key: its key)\n"
          "  --tls-client-ca F   require a client certificate signed by this CA\n"
          "  --tls-min/--tls-max V   protocol range, V = 1.2 or 1.3 (default 1.2-1.3)\n"
          "  --tls-no-tickets    no session tickets (TLS 1.3: stateful ones; the\n"
          "                      session cache still resumes)\n"
          "  --tls-no-resume     no resumption at all (no tickets, no session cache)\n"
          "  --tls-log FILE      '<seq> <protocol> <resumed 0|1> <sni|-> <alpn|->' per\n"
          "                      completed handshake; complete at exit\n"
          "  --llm-*             POST /v1/chat/completions and /v1/completions: streamed\n"
          "                      like vLLM; --llm-log FILE: when each event was written\n"
          "See tests/target/README.md.\n", f);
}

static unsigned long long num_arg(const char *name, const char *s,
                                  unsigned long long min, unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
        die("bad value for --%s: '%s' (want an integer from %llu to %llu)", name, s, min, max);
    return v;
}

static int listen_loopback(const char *addr)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    /* Loopback only: this server must never be reachable from elsewhere. */
    if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
        if ((ntohl(s4->sin_addr.s_addr) >> 24) != 127)
            die("refusing to bind %s: only loopback (127.0.0.0/8, ::1) is allowed", addr);
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)opt.port);
        sl = sizeof *s4;
    } else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        if (!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
            die("refusing to bind %s: only loopback (127.0.0.0/8, ::1) is allowed", addr);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)opt.port);
        sl = sizeof *s6;
    } else {
        die("--bind wants a numeric loopback address (127.0.0.1 or ::1), got '%s'", addr);
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0)
        die("IPV6_V6ONLY: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0)
        die("bind %s port %d: %s", addr, opt.port, strerror(errno));
    if (listen(fd, 4096) != 0)
        die("listen: %s", strerror(errno));
    return fd;
}

static void parse_options(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "bind", required_argument, NULL, 'b' },
        { "port", required_argument, NULL, 'p' },
        { "port-file", required_argument, NULL, 'P' },
        { "stats-file", required_argument, NULL, 'S' },
        { "log", required_argument, NULL, 'l' },
        { "log-bodies", no_argument, NULL, 1008 },
        { "max-seconds", required_argument, NULL, 'm' },
        { "close-every", required_argument, NULL, 'k' },
        { "delay-ms", required_argument, NULL, 'd' },
        { "stall-every", required_argument, NULL, 'n' },
        { "stall-ms", required_argument, NULL, 's' },
        { "drop-every", required_argument, NULL, 'D' },
        { "serve-only", required_argument, NULL, 'O' },
        { "timing-log", required_argument, NULL, 'T' },
        { "timing-peers", no_argument, NULL, 1009 },
        { "quiet", no_argument, NULL, 'q' },
        { "tls-cert", required_argument, NULL, 1000 },
        { "tls-key", required_argument, NULL, 1001 },
        { "tls-client-ca", required_argument, NULL, 1002 },
        { "tls-min", required_argument, NULL, 1003 },
        { "tls-max", required_argument, NULL, 1004 },
        { "tls-no-tickets", no_argument, NULL, 1005 },
        { "tls-no-resume", no_argument, NULL, 1006 },
        { "tls-log", required_argument, NULL, 1007 },
        { "llm-tokens", required_argument, NULL, LLM_OPT_TOKENS },
        { "llm-usage", required_argument, NULL, LLM_OPT_USAGE },
        { "llm-first-ms", required_argument, NULL, LLM_OPT_FIRST_MS },
        { "llm-gap-ms", required_argument, NULL, LLM_OPT_GAP_MS },
        { "llm-stall-at", required_argument, NULL, LLM_OPT_STALL_AT },
        { "llm-stall-ms", required_argument, NULL, LLM_OPT_STALL_MS },
        { "llm-stall-all-at-ms", required_argument, NULL, LLM_OPT_STALL_ALL_AT },
        { "llm-stall-all-ms", required_argument, NULL, LLM_OPT_STALL_ALL_MS },
        { "llm-framing", required_argument, NULL, LLM_OPT_FRAMING },
        { "llm-event-bytes", required_argument, NULL, LLM_OPT_EVENT_BYTES },
        { "llm-huge-event", no_argument, NULL, LLM_OPT_HUGE },
        { "llm-log", required_argument, NULL, LLM_OPT_LOG },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'b': opt.bind = optarg; break;
        case 'p': opt.port = (int)num_arg("port", optarg, 0, 65535); break;
        case 'P': opt.port_file = optarg; break;
        case 'S': opt.stats_file = optarg; break;
        case 'l': opt.log_file = optarg; break;
        case 'm':
            opt.max_seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(opt.max_seconds > 0 && opt.max_seconds < 1e7))
                die("bad value for --max-seconds: '%s'", optarg);
            break;
        case 'k': opt.close_every = (unsigned long)num_arg("close-every", optarg, 0, 1000000000); break;
        case 'd': opt.delay_ms = (unsigned long)num_arg("delay-ms", optarg, 0, 3600000); break;
        case 'n': opt.stall_every = (unsigned long)num_arg("stall-every", optarg, 1, 1000000000); break;
        case 's': opt.stall_ms = (unsigned long)num_arg("stall-ms", optarg, 1, 3600000); break;
        case 'D': opt.drop_every = (unsigned long)num_arg("drop-every", optarg, 0, 1000000000); break;
        case 'O': opt.serve_only = (unsigned long)num_arg("serve-only", optarg, 0, 1000000000); break;
        case 'T': opt.timing_log_file = optarg; break;
        case 'q': opt.quiet = true; break;
        case 1000: opt.tls_cert = optarg; break;
        case 1001: opt.tls_key = optarg; break;
        case 1002: opt.tls_client_ca = optarg; break;
        case 1003: opt.tls_min = optarg; break;
        case 1004: opt.tls_max = optarg; break;
        case 1005: opt.tls_no_tickets = true; break;
        case 1006: opt.tls_no_resume = true; break;
        case 1007: opt.tls_log_file = optarg; break;
        case 1008: opt.log_bodies = true; break;
        case 1009: opt.timing_peers = true; break;
        case 'h': usage(stdout); exit(0);
        default:
            if (ch >= LLM_OPT_TOKENS && ch < LLM_OPT_END) {
                llm_option(ch, optarg);
                break;
            }
            usage(stderr);
            exit(2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    if (opt.timing_peers && !opt.timing_log_file)
        die("--timing-peers needs --timing-log");
    if (opt.stall_every && !opt.stall_ms)
        die("--stall-every needs --stall-ms");
    if (opt.stall_ms && !opt.stall_every)
        die("--stall-ms needs --stall-every");
}

int main(int argc, char **argv)
{
    parse_options(argc, argv);
    signal(SIGPIPE, SIG_IGN);      /* a vanished client must not kill us */

    /* Opened before listening, so a bad path is an option error (exit 2)
     * rather than a log that silently stays empty. A line per request goes
     * through stdio's buffer: no write per request, flushed at exit. */
    static char log_buf[64 * 1024];
    if (opt.log_file) {
        if (!(req_log = fopen(opt.log_file, "w")))
            die("cannot open --log %s: %s", opt.log_file, strerror(errno));
        setvbuf(req_log, log_buf, _IOFBF, sizeof log_buf);
    }
    static char timing_buf[64 * 1024];
    if (opt.timing_log_file) {
        if (!(timing_log = fopen(opt.timing_log_file, "w")))
            die("cannot open --timing-log %s: %s", opt.timing_log_file, strerror(errno));
        setvbuf(timing_log, timing_buf, _IOFBF, sizeof timing_buf);
    }

    llm_init();                    /* opens --llm-log: a bad path exits 2 here */
    bool tls = tls_init();         /* certificates are loaded once, here */
    static char tls_buf[16 * 1024];
    if (opt.tls_log_file) {
        if (!(tls_log = fopen(opt.tls_log_file, "w")))
            die("cannot open --tls-log %s: %s", opt.tls_log_file, strerror(errno));
        setvbuf(tls_log, tls_buf, _IOFBF, sizeof tls_buf);
    }

    int lfd = listen_loopback(opt.bind);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(lfd, (struct sockaddr *)&ss, &sl) != 0)
        die("getsockname: %s", strerror(errno));
    int port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                             : ((struct sockaddr_in6 *)&ss)->sin6_port);

    loop = ev_default_loop(EVFLAG_AUTO);
    if (!loop)
        die("cannot initialise libev");
    conn_init(lfd, tls);
    ev_timer max_w;
    ev_timer_init(&max_w, on_max_seconds, opt.max_seconds, 0.0);
    ev_timer_start(loop, &max_w);
    ev_signal term_w, int_w;
    ev_signal_init(&term_w, on_signal, SIGTERM);
    ev_signal_init(&int_w, on_signal, SIGINT);
    ev_signal_start(loop, &term_w);
    ev_signal_start(loop, &int_w);

    /* Announce the port only once we are listening: clients may connect now. */
    char text[64];
    snprintf(text, sizeof text, "%d\n", port);
    if (opt.port_file && write_file_atomic(opt.port_file, text) != 0)
        die("cannot write %s: %s", opt.port_file, strerror(errno));
    printf("port %d\n", port);
    fflush(stdout);
    if (!opt.quiet)
        fprintf(stderr, "volley-target: listening on %s port %d%s (max %gs)\n",
                opt.bind, port, tls ? " (TLS)" : "", opt.max_seconds);

    ev_run(loop, 0);

    llm_shutdown();                /* streams cut by the exit end as "shutdown" */
    conn_close_all();
    close(lfd);
    llm_log_close();
    /* The logs are complete before the stats file appears, so a caller that
     * waits for the stats file can read them all. */
    if (req_log && fclose(req_log) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", opt.log_file, strerror(errno));
    req_log = NULL;
    if (timing_log && fclose(timing_log) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", opt.timing_log_file,
                strerror(errno));
    timing_log = NULL;
    if (tls_log && fclose(tls_log) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", opt.tls_log_file, strerror(errno));
    tls_log = NULL;
    if (tls)
        tls_exit();
    char json[STATS_JSON_MAX + 1];
    stats_json(json, sizeof json - 1);
    if (!opt.quiet)
        fprintf(stderr, "volley-target: exiting: %s\n", json);
    strcat(json, "\n");
    if (opt.stats_file && write_file_atomic(opt.stats_file, json) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", opt.stats_file, strerror(errno));
    ev_loop_destroy(loop);
    return 0;
}
