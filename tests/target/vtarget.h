/*
 * volley-target: a small single-threaded libev HTTP/1.1 server that volley's
 * tests and demo aim at. It is never installed. It listens on loopback only,
 * exits by itself after --max-seconds, and counts what it received and
 * answered so tests can check volley's report against the server's view.
 * Special paths (/bytes/N, /delay/D, /never, /drop, ...) make it misbehave on
 * demand; see tests/target/README.md.
 *
 * Three parts, sharing the declarations below:
 *   target.c   options, listening socket, signals, counters, request log,
 *              timing log, whole-server stalls, exit
 *   conn.c     connections: accept, read, parse, write, close; output queue;
 *              delayed responses (one timerfd, a min-heap ordered by due time)
 *   request.c  one request: what the parser reports, routing, the response
 *   llm.c      POST /v1/chat/completions and /v1/completions (streamed like
 *              vLLM) and the --llm-log truth log; llm_json.c reads their bodies
 *   tls.c      --tls-cert: the server side of TLS (OpenSSL), behind a few
 *              small helpers conn.c calls when a connection has an SSL
 *
 * Design: one struct conn per connection. Incoming bytes go into c->in and
 * are parsed with http_parser, which we pause after each complete request so
 * requests are handled one at a time and in order (pipelining). Responses are
 * appended to c->out and written with one writev; a write watcher is armed
 * only on EAGAIN. Large bodies are streamed from a shared static pattern
 * buffer so no connection ever holds a big buffer.
 */
#ifndef VTARGET_H
#define VTARGET_H

#include <ev.h>
#include <http_parser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IN_CAP      (16 * 1024)   /* per-connection read buffer */
#define OUT_KEEP    (64 * 1024)   /* out buffers larger than this are freed once drained */
#define OUT_HIGH    (256 * 1024)  /* stop parsing pipelined requests above this backlog */
#define CHUNK_FILL  (32 * 1024)   /* how much chunked body to generate per round */
#define CHUNK_SIZE  1000          /* body bytes per chunk for /chunked/N */
#define NMARKS      64            /* max responses queued but not yet written */
#define PAT_PERIOD  64            /* body byte i of /bytes and /chunked is pattern[i % 64] */
#define PAT_LEN     (64 * 1024)
#define MAX_BYTES   (100ULL * 1024 * 1024)
#define URL_MAX     256           /* longer URLs are truncated: routing needs only a prefix */
#define LINGER_S    2.0           /* how long to wait for the client's FIN after ours */
#define ECHO_MAX    (16 * 1024)   /* /echo returns at most this much of the request head */
#define ITEMS_MAX   10000         /* largest N of /json/items/N */
#define STATS_JSON_MAX 768        /* room for the stats JSON: 13 counters of up to 20 digits */
#define LLM_BODY_MAX (1024 * 1024) /* /v1 request bodies are kept up to this size */
#define REQ_ID_MAX  64            /* X-Request-Id is kept up to this many bytes */
#define TINY_MAX    (1024 * 1024) /* largest N of /tiny/N (one write per body byte) */
#define LATE_MS     200           /* /late/N: its body this long after its head */

enum kind {
    K_HELLO, K_BYTES, K_CHUNKED, K_CLOSE, K_DELAY, K_NEVER, K_DROP,
    K_HTTP10, K_STATUS, K_CONTINUE, K_STATS, K_BAD,
    K_AUTHENTICATE, K_LOGIN, K_PRIVATE, K_JSON_ITEMS, K_JSON_BAD, K_ECHO,
    K_TINY, K_CUT, K_CUTCLOSE, K_TRAILERS, K_LATE, K_LLM
};

/* One request as far as answering it is concerned. Filled while it is parsed
 * (headers, then on_message_complete, then routing) and kept unchanged until
 * it is answered, also across a delay: the connection parses nothing more
 * until then. */
struct req {
    enum kind kind;
    unsigned long long n;   /* numeric argument of /bytes/N, /status/N, ...; K_LLM: 1 chat */
    bool head;              /* HEAD: headers as for GET, no body */
    bool post;              /* POST (the /v1 paths want it) */
    bool keep_alive;        /* what the request asked for (version + Connection) */
    bool http10;            /* HTTP/1.0 request: keep-alive must be explicit */
    bool authorized;        /* its head had an X-Token or Authorization header */
    bool bearer;            /* ... and an Authorization: Bearer tok-<digits> */
};

/* A growable byte buffer (not NUL-terminated). */
struct buf {
    char *p;
    size_t len, cap;
};

/* Where the copy of the request head stands (see head_track in request.c). */
enum head_scan { HS_BEFORE, HS_HEAD, HS_AFTER };

struct ssl_st;                  /* OpenSSL's SSL; only tls.c looks inside */
struct llm;                     /* a /v1 response in progress; only llm.c looks inside */

struct conn {
    int fd;
    unsigned long long seq;     /* 1 for the first accepted connection, then 2, ... */
    char peer[46];              /* --timing-peers: the client's address (INET6_ADDRSTRLEN) */
    /* TLS (all unused, false or NULL on a plain connection): */
    struct ssl_st *ssl;
    bool tls_ready;             /* the handshake has completed */
    bool rd_wants_write;        /* the last SSL_read asked for writability */
    bool wr_wants_read;         /* the last SSL_write asked for readability */
    bool no_notify;             /* close without close_notify (/cut, /cutclose) */
    ev_io rio, wio;
    ev_timer timer;             /* lingering close */
    http_parser parser;
    struct conn *prev, *next;   /* list of all connections, for cleanup at exit */

    char *in;                   /* received, not yet parsed bytes */
    size_t in_len;
    char url[URL_MAX];
    size_t url_len;
    bool req_done;              /* set by on_message_complete */
    struct req req;             /* request being handled (kept across a delay) */
    bool delayed;               /* its response waits in the delay heap (conn.c) */
    uint64_t due_ns;            /* ... until this CLOCK_MONOTONIC time */
    size_t heap_pos;            /* ... at this index of the heap */

    /* Request state kept by request.c while a request is parsed. Valid until
     * the next request on this connection begins to be parsed. */
    struct buf raw;             /* the request head as received, up to ECHO_MAX */
    enum head_scan hs;
    size_t line_len;            /* head_track: bytes of the current line so far */
    char line_c0;               /* ... and its first byte */
    struct buf hname, hval;     /* header being parsed (value kept only if needed) */
    bool in_value, keep_value, headers_done;
    struct buf logline;         /* this request's --log line, without newline */
    uint64_t body_len;          /* --log-bodies: this request's body so far (decoded) */
    uint32_t body_hash;         /* ... and its FNV-1a hash */
    bool keep_body;             /* a /v1 path: its body is kept in body ... */
    bool body_over;             /* ... unless it is over LLM_BODY_MAX */
    struct buf body;
    char req_id[REQ_ID_MAX + 1];   /* X-Request-Id, log-safe ("" if none) */

    /* A /v1 response in progress (llm.c); all false / NULL otherwise. */
    struct llm *llm;            /* allocated on the connection's first /v1 request */
    bool streaming;             /* busy: llm.c answers (llm_due) when a due time passes */
    bool stamp_wanted;          /* the next write carries events: call llm_written */
    bool drain_wanted;          /* a step fell due with output pending: llm_drained */

    char *out;                  /* queued response bytes */
    size_t out_off, out_len, out_cap;
    unsigned long long raw_left, raw_total;   /* /bytes body still to stream */
    bool tiny;                  /* ... one byte per write (/tiny/N, /cut/N's body is not) */
    bool late;                  /* /late/N: the head is out, the body is due (delayed) */
    bool late_close;            /* ... and the connection closes after it */
    unsigned long long chunk_left, chunk_pos; /* /chunked body still to generate */
    bool chunk_active;

    /* Byte positions (in this connection's output stream) where queued
     * responses end, so "answered" counts only fully written responses. */
    uint64_t queued, sent;
    uint64_t mark_end[NMARKS];
    bool mark_counted[NMARKS];
    unsigned mark_head, nmarks;

    unsigned long nresp;        /* responses on this connection, for close-every */
    unsigned long close_every;  /* set by /close/K */
    bool closing;               /* close once everything queued is written */
    bool lingering;             /* we sent FIN; waiting for the client's */
    bool never;                 /* /never: swallow everything, answer nothing */
    bool drop_now;              /* /drop: close without answering */
    bool eof;                   /* client closed its sending side */
};

/* ---- target.c --------------------------------------------------------- */

struct options {
    const char *bind;
    int port;
    const char *port_file, *stats_file, *log_file, *timing_log_file;
    bool timing_peers;          /* --timing-peers: a, r and c lines end with the client's address */
    bool log_bodies;            /* --log-bodies: the request log gives each body's length and hash */
    double max_seconds;
    unsigned long close_every;
    unsigned long delay_ms;
    unsigned long stall_every, stall_ms;   /* --stall-every N --stall-ms S (0: off) */
    unsigned long drop_every;              /* --drop-every K (0: off) */
    unsigned long serve_only;              /* --serve-only K: only the first K connections get answers (0: off) */
    bool quiet;
    /* TLS: on when tls_cert is set (tls.c checks the combinations) */
    const char *tls_cert, *tls_key, *tls_client_ca, *tls_min, *tls_max, *tls_log_file;
    bool tls_no_tickets, tls_no_resume;
};
extern struct options opt;

/* The counters of /__stats and --stats-file; see the README for their meaning. */
struct stats {
    uint64_t received, answered, connections, dropped, authorized, ignored;
    uint64_t tls_handshakes, tls_resumed, tls_failed;
    uint64_t llm_streams, llm_done, llm_events, llm_cut;
    uint64_t llm_requests;      /* not shown: the llm_* counters appear once it is > 0 */
};
extern struct stats stats;

extern struct ev_loop *loop;
extern FILE *req_log;           /* --log, or NULL */
extern FILE *timing_log;        /* --timing-log, or NULL */
extern FILE *tls_log;           /* --tls-log, or NULL */
/* Set by dispatch on every --stall-every-th request; conn.c's progress()
 * calls stall() once that request's connection has done what it can. */
extern bool stall_pending;

__attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...);
/* The stats JSON, without newline; size should be STATS_JSON_MAX. */
int stats_json(char *buf, size_t size);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mono_ns(void);
/* Block the whole process for --stall-ms (logged in the timing log) and
 * clear stall_pending. */
void stall(void);

/* ---- conn.c ----------------------------------------------------------- */

/* Fill the body pattern, set up the parser, start accepting on lfd; with
 * tls, every connection speaks TLS (tls_init has run). */
void conn_init(int lfd, bool tls);
void conn_close_all(void);

/* The output queue: bytes appended here are written in order. */
void out_append(struct conn *c, const void *data, size_t len);
__attribute__((format(printf, 2, 3)))
void out_printf(struct conn *c, const char *fmt, ...);
/* The response queued so far ends here; counted: it counts as answered once
 * written. */
void push_mark(struct conn *c, bool counted);
/* Queue the next slice of an active /chunked body. */
void gen_chunks(struct conn *c);
/* Answer c->req (with respond) at the CLOCK_MONOTONIC time due_ns; the
 * connection stays busy until then. Cancelled if the connection closes. */
void delay_response(struct conn *c, uint64_t due_ns);

/* ---- request.c -------------------------------------------------------- */

void request_parser_settings(http_parser_settings *s);
/* Feed head_track the bytes http_parser consumed, before acting on them. */
void head_track(struct conn *c, const char *data, size_t len);
/* A request was fully read: count and log it, answer now, later, or never. */
void dispatch(struct conn *c);
/* Queue the response to r (also called when a delayed response is due). */
void respond(struct conn *c, const struct req *r);
void request_free(struct conn *c);

/* The reason phrase of a status code ("OK", "Bad Request", or the class's). */
const char *status_reason(unsigned code);

/* ---- llm.c ------------------------------------------------------------ */

/* The --llm-* options' codes for getopt_long; llm_option parses their
 * values (a bad value exits 2, naming the option). */
enum {
    LLM_OPT_TOKENS = 1100, LLM_OPT_USAGE, LLM_OPT_FIRST_MS, LLM_OPT_GAP_MS, LLM_OPT_STALL_AT,
    LLM_OPT_STALL_MS, LLM_OPT_STALL_ALL_AT, LLM_OPT_STALL_ALL_MS, LLM_OPT_FRAMING,
    LLM_OPT_EVENT_BYTES, LLM_OPT_HUGE, LLM_OPT_LOG, LLM_OPT_END
};
void llm_option(int code, const char *arg);
/* After the options: checks their combinations, opens --llm-log, and notes
 * the start time --llm-stall-all-at-ms counts from. */
void llm_init(void);
/* Exit: streams still going are logged as ended by "shutdown" from now on;
 * then, once every connection is closed, llm_log_close completes the log. */
void llm_shutdown(void);
void llm_log_close(void);
/* A /v1 request was fully read at now (c->req, c->body): answer it, or
 * start its stream; close: the connection closes after the response. */
void llm_start(struct conn *c, uint64_t now, bool close);
/* c->streaming and a due time passed (from respond). */
void llm_due(struct conn *c);
/* c->drain_wanted and the output queue is empty now. */
void llm_drained(struct conn *c);
/* c->stamp_wanted and a write that began at t carried bytes. */
void llm_written(struct conn *c, uint64_t t);
/* The connection closes: a stream still going ended (client-gone). */
void llm_conn_free(struct conn *c);

/* ---- tls.c ------------------------------------------------------------ */

/* What a TLS read, write or handshake step came to. conn.c switches on all. */
enum tls_io {
    TLS_OK,          /* done (read/write: *n bytes, at least 1) */
    TLS_WANT_READ,   /* call again once the socket is readable */
    TLS_WANT_WRITE,  /* call again once the socket is writable */
    TLS_CLOSED,      /* the peer closed (close_notify or a bare EOF) */
    TLS_ERROR        /* protocol error or reset: close the connection */
};

/* With --tls-cert: build the one SSL_CTX from the --tls-* options; a bad
 * option or file is fatal (exit 2, naming it). Without it: check that no
 * other --tls-* option was given. Returns whether TLS is on. */
bool tls_init(void);
/* Give a freshly accepted connection its SSL (server side). -1: failed. */
int tls_conn_start(struct conn *c);
/* One handshake step. On TLS_OK the handshake is complete and counted
 * (tls_handshakes, tls_resumed) and logged (--tls-log). */
enum tls_io tls_handshake(struct conn *c);
/* SSL_read / SSL_write of at most len bytes; *n is set on TLS_OK. A write
 * that returned TLS_WANT_* must be retried with the same bytes (more may
 * follow them; the buffer may move). */
enum tls_io tls_read(struct conn *c, void *buf, size_t len, size_t *n);
enum tls_io tls_write(struct conn *c, const void *buf, size_t len, size_t *n);
/* Bytes OpenSSL holds that the kernel will not report again. */
bool tls_pending(const struct conn *c);
/* Send close_notify once, without waiting or blocking (best effort). */
void tls_notify(struct conn *c);
void tls_conn_free(struct conn *c);
void tls_exit(void);

#endif
