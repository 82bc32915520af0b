/* The layout of a worker's counters and histograms (struct stats) and the
 * kinds of failure it counts them by: the type alone, below what records
 * into it and merges it (stats.h) and below the per-second series
 * (series.h), which reads a worker's counters when a second ends. A worker
 * owns one struct stats and nothing else writes to it, so the request
 * path needs no locks or atomics. */
#ifndef VOLLEY_STATS_COUNTERS_H
#define VOLLEY_STATS_COUNTERS_H

#include "errsample.h"
#include "hist.h"
#include "metrics.h"
#include "stats_flow.h"
#include "stats_hosts.h"
#include "stats_reason.h"
#include "stats_stream.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct series_rec;   /* series.h: the recorder, which reads these counters (only its pointer here) */
struct stats_name;   /* stats.h */
struct stats_sample; /* stats.h */

/* Why a request failed. Exactly one per failed request. */
enum stats_error {
    STATS_ERR_CONNECT, /* refused, unreachable, or not connected within --timeout */
    STATS_ERR_READ,    /* reset, or closed before the response was complete */
    STATS_ERR_WRITE,   /* the request could not be written */
    STATS_ERR_TIMEOUT, /* no complete response within --timeout */
    STATS_ERR_PARSE,   /* the response was not valid HTTP */
    STATS_ERR_VALIDATION, /* complete, but the script's response() failed it (or it
                           * outgrew --max-body); counted by reason */
    STATS_ERR_TLS,     /* https: the TLS handshake or a TLS record failed; counted by
                        * OpenSSL's reason */
    STATS_ERR_PROTOCOL, /* HTTP/2: the stream was reset (RST_STREAM) or the server broke
                         * the protocol; counted by reason */
    STATS_ERR_PORTS,   /* the connect found no free local port for the four-tuple
                        * (EADDRNOTAVAIL): a limit of this machine, not of the target
                        * (more --source addresses, or a wider ip_local_port_range) */
    STATS_ERR_KINDS
};

#define STATS_STATUS_MAX 600  /* status codes 100..599 are counted one by one */
#define STATS_FIRST_HEAD 2048 /* bytes kept of the first response (--samples) */
#define STATS_HEAD_MAX 8191   /* bytes kept of each response's first read (--heads), as ab's buffer */

struct stats {
    uint64_t started;   /* requests started */
    uint64_t completed; /* responses received (any status) */
    uint64_t errors[STATS_ERR_KINDS];
    uint64_t cut_off;   /* in flight when the run was stopped: neither completed nor failed */
    uint64_t closed;    /* of errors[READ]: the server closed before any byte of the response */
    uint64_t connect_timeouts; /* of errors[CONNECT]: not connected within --timeout (nothing
                                * answered the SYN), as opposed to refused or unreachable */
    uint64_t status[STATS_STATUS_MAX]; /* responses by status code, [0] holds codes outside
                                        * 100..599: every completed one, and every one failed
                                        * by validation once its status was read (so they sum
                                        * to completed + validation, less responses that
                                        * outgrew --max-body before their head was whole) */
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint64_t connects;  /* connections established */
    uint64_t reused;    /* completed on a reused connection: connect time 0,
                         * added to the connect histogram by stats_finish */
    struct hist latency; /* request start -> last response byte, ns; with -R from
                          * the intended send time, and timeouts included at
                          * their time to failure */
    struct hist connect; /* connect time, 0 on a reused connection, ns */
    struct hist waiting; /* request written -> first response byte, ns */
    struct hist handshake; /* https: each TLS handshake that completed, ns */
    uint64_t tls_full, tls_resumed; /* https: handshakes that completed, by kind */
    struct stats_kind_reasons {    /* tls and protocol failures by reason (at most
                                    * STATS_KIND_REASONS each; the rest in other) */
        struct stats_reason *r;
        size_t n;
        uint64_t other;
    } kind_reasons[STATS_ERR_KINDS];
    uint64_t h2_connections;       /* HTTP/2: connections that spoke it */
    uint64_t h1_fallbacks;         /* --http2: connections where the server chose HTTP/1.1 */
    uint64_t h2_retried;           /* HTTP/2: streams sent again because the server refused them
                                    * (REFUSED_STREAM) or a GOAWAY left them unprocessed; neither
                                    * a failure nor a connect (at most H2_RETRIES a request) */
    uint32_t h2_max_streams;       /* HTTP/2: the most streams one connection had open */
    uint32_t h2_peer_limit;        /* HTTP/2: the lowest SETTINGS_MAX_CONCURRENT_STREAMS below
                                    * --streams a server gave; 0: none */
    uint64_t h2_header_wire, h2_header_decoded; /* HTTP/2: response header bytes, HPACK'd and plain */
    struct hist service; /* -R: first request byte written -> last response byte */
    struct hist sendlag; /* -R: first request byte written - intended send time
                          * (completed and timed-out requests) */
    bool open;           /* -R: an open-model run (service and sendlag are filled) */
    uint64_t arrivals;   /* -R: arrivals sent (a pipelined batch is one arrival) */
    uint64_t unsent;     /* -R: arrivals due by the end that were never sent */
    int64_t last_send;   /* -R: monotonic ns of the last arrival sent */
    int64_t last_due;    /* -R: when the latest arrival sent was due */
    /* Little's law (report_health.c), over every answered request (completed, or
     * failed by validation: the server answered it); each sum / the run's
     * duration is a mean count over the run. */
    uint64_t flight_ns;  /* each request's time on a connection: its batch's start (the
                          * connect or first write) -> its response's end */
    uint64_t busy_ns;    /* each batch's: its start -> its last answered response (a
                          * connection is busy once however many requests it pipelines) */
    uint64_t queued_ns;  /* -R: each request's wait for a free connection: the intended
                          * send time -> its batch's start */
    uint64_t batches;    /* batches started: a request, or a pipelined string of several
                          * (started / batches: the mean batch) */
    uint64_t conn_samples; /* --stages without -R: connections open at each 100 ms
                            * sample, summed (the series' achieved connections) */
    struct intervals *intervals; /* --hlog: the worker's interval histograms (not merged) */
    struct series_rec *series;   /* the worker's per-second recorder (not merged), or NULL */
    struct stats_slot {          /* per connection slot: responses and the last one's time */
        uint64_t done;
        int64_t last;            /* monotonic ns; 0: none */
    } *slots;                    /* stats_init_slots; merged by appending */
    uint32_t nslots;
    struct hist rate;    /* completed per second, sampled every 100 ms (wrk's
                          * "requests" statistics for done()) */
    struct stats_reason *reasons; /* validation failures by reason (filled when
                                   * the worker ends, not on the request path) */
    size_t nreasons;
    size_t reasons_more;          /* a saved result read back (volley report): the reasons
                                   * it counted but did not list one by one, */
    uint64_t reasons_more_count;  /* and their failures; 0 in a run */
    struct metrics metrics; /* the script's volley.counter / volley.record */
    struct stats_flow flow; /* a flow's iterations, checks and groups (stats_flow.h) */
    struct stats_stream stream; /* streamed responses: events, their timing, tokens (stats_stream.h) */
    struct stats_hosts *hosts; /* a flow: its requests per host (stats_hosts.h); NULL before its first */
    struct stats_name **names; /* by request name id (names.h): names[id], NULL for a name
                                * not used here; NULL until the first name (NAMES_MAX
                                * pointers then) */
    uint32_t nnames;           /* 1 + the highest id in names; 0: no request was named */
    struct stats_name **tags;  /* by tag group id (tags.h), as names: each tag's figures, its
                                * name "KEY=VALUE"; NULL until the first tag (TAGS_MAX then) */
    uint32_t ntags;            /* 1 + the highest id in tags; 0: no request was tagged */
    struct stats_labels *labels; /* the worker's labels of tagged requests (stats_tags.h);
                                  * NULL until the first; not merged */
    uint64_t tags_dropped;     /* tagged requests whose tags were not counted (a worker's
                                * combinations of tags ran out: stats_tags.h) */
    struct stats_sample *samples; /* with --samples: every completed request, in order */
    size_t nsamples, samples_cap;
    char *heads;        /* with --heads: every response's first read, one after another */
    size_t heads_len, heads_cap;
    char first_head[STATS_FIRST_HEAD]; /* with --samples: the first bytes of the first response */
    size_t first_head_len;
    struct errsamples shown; /* the first non-2xx responses (one without --show-errors, for the
                              * report's first error body) and with --show-errors failures */
};

/* Requests that ended in failure. */
static inline uint64_t stats_failed(const struct stats *s)
{
    uint64_t n = 0;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        n += s->errors[i];
    return n;
}

#endif
