/* One worker thread: its own libev loop (ev_loop_new), its share of the
 * connections and of the request budget, and its own stats. Workers share
 * nothing writable with each other; the run merges their stats after join. */
#ifndef VOLLEY_WORKER_H
#define VOLLEY_WORKER_H

#include "conn.h"
#include "conn_cap.h"
#include "shard.h"
#include "source.h"
#include "stats.h"

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* What every worker reads and nobody writes during the run. */
struct tls_config;
struct tls_ctx;

struct worker_config {
    const struct sockaddr *addr;
    socklen_t addrlen;
    const char *req;
    size_t req_len;
    const struct http_req *targets; /* --targets: one request per target; NULL: req for all */
    uint32_t ntargets;
    const uint32_t *target_name; /* --targets: each target's name, an id in names */
    bool targets_random;     /* --targets-order random */
    uint64_t seed;           /* the run's seed: each worker's generator starts from it and its id */
    bool keepalive;
    int64_t timeout_ns;
    uint64_t max_body;       /* --max-body */
    bool samples;            /* --samples */
    uint64_t heartbeat;      /* --heartbeat */
    _Atomic uint64_t *completed_all; /* shared by the workers for the heartbeat */
    _Atomic int64_t *streams_now, *streams_peak; /* streams open at once, and the most (shared) */
    bool one_first;          /* --one-first */
    bool heads;              /* --heads */
    unsigned show_errors;    /* --show-errors N; 0: off (the first non-2xx response is kept all the same) */
    uint64_t rate;           /* -R: arrivals per second over all workers; 0: closed loop */
    uint64_t max_rps;        /* --max-rps: a flow's requests per second over all workers and
                              * shards at most (each worker's share: max_rps / lanes); 0: none */
    const struct stages *stages; /* --stages: with rate, the rate's curve; without, the
                                  * connections' (NULL: none) */
    const struct arrivals *arrivals; /* -R: the arrival process (--arrivals), drawn from the run
                                      * seed; NULL: fixed */
    uint32_t nworkers;       /* -R: how many workers share the schedule */
    struct shard shard;      /* --shard: this process's part of the run ({0, 1}: all of it);
                              * worker w's lane of the schedule is shard_lane(shard, w) of
                              * nworkers * shard.count */
    uint32_t conn_offset;    /* --shard: the run's connection number of this process's first */
    const struct sources *sources; /* --source: local addresses, by connection number; NULL: none */
    int64_t t0;              /* -R, --hlog: monotonic ns of the schedule's arrival 0 and
                              * of interval 0; set before the workers start */
    int64_t sched_end;       /* -R with -d: t0 + duration; 0 otherwise */
    int64_t spin_ns;         /* -R --spin: busy-wait this long before each arrival; 0: off */
    int64_t hlog_interval_ns; /* --hlog: interval length; 0 without --hlog */
    const struct tls_config *tls; /* https: each worker makes its own context from it; NULL for http */
    const struct hosts *hosts;    /* --allow-host: the other hosts a flow may reach, resolved; NULL: none */
    const struct tls_config *hosts_tls; /* what an https other origin's context starts from */
    const char *tunnel;      /* https through a proxy: the CONNECT request (transport.h's
                              * tunnel); NULL: none */
    size_t tunnel_len;
    bool http2;              /* requests as HTTP/2 streams (--h2c, --http2) */
    bool http2_strict;       /* --http2=strict */
    uint32_t streams;        /* --streams */
    uint32_t h2_window;      /* --h2-window */
    const char *authority;   /* HTTP/2 :authority (the URL's host[:port]) */
    struct names *names;     /* the run's request names, shared (names.h; with -s, or the
                              * targets' with --targets) */
    struct names *check_names, *group_names; /* a flow's checks and groups, likewise */
    struct tags *tags;       /* a flow's request tags, likewise (tags.h) */
    /* Several scenarios: each scenario's workers have a config of their own. */
    uint32_t first_id;       /* the id of its first worker (lanes count from it) */
    int64_t start_ns;        /* the load starts this long after t0 (a scenario's start) */
    int64_t stop_ns;         /* closed: the worker stops this long after t0, what is in
                              * flight cut off (a scenario's end); 0: the run's end */
};

struct worker {
    uint32_t id;
    uint32_t lane, lanes;    /* its share of a split (the schedule, --stages' connections): lane
                              * of lanes, shard_lane(cfg->shard, id) of nworkers * N */
    const struct worker_config *cfg;
    uint32_t nconns;
    uint64_t budget;         /* requests to start; UINT64_MAX when bounded by time */
    struct stats stats;      /* the worker's own; read by others only after join */
    int64_t t_begin, t_end;  /* monotonic ns when the thread began and when the loop ended */
    int64_t cpu_ns;          /* the thread's CPU time (user + system) over that span */
    int gave_up;             /* errno: stopped because the target stayed unreachable */
    char script_error[512];  /* non-empty: stopped because a script hook failed */
    /* Private. */
    struct script *script;   /* NULL without -s; owned by the run (done() still reads it) */
    char *script_req;        /* the request a script without request() left in wrk.* */
    struct script_res res;   /* the response a response() hook looks at */
    struct script_event event; /* the event an event() hook looks at */
    struct script_res *flow_res; /* a flow: per connection slot, its user's latest response */
    uint32_t *conn_done;     /* per connection slot, for conn.requests */
    struct sched sched;      /* -R only */
    struct conn_cap cap;     /* --max-rps only (shared.cap points to it) */
    struct intervals intervals; /* --hlog only */
    struct series_rec series; /* per-second figures for the main thread */
    ev_check opener;         /* while connections are still to open: a batch after each poll */
    ev_idle open_idle;       /* active with opener, so that the poll does not block meanwhile */
    uint32_t opened;         /* connections 0 .. opened-1 were started */
    uint32_t open_end;       /* how many to start in all: 1 with --one-first until the answer */
    uint32_t open_step;      /* how many a batch starts (OPEN_BATCH, or all at once) */
    ev_timer stager;         /* --stages without -R: every 10 ms, the connections' target */
    ev_timer starter;        /* cfg->start_ns: the load begins */
    ev_timer ender;          /* cfg->stop_ns: the worker's load ends */
    ev_timer sampler;        /* every 100 ms: completed per second into stats.rate; a
                              * series second or --hlog interval that ended, closed */
    uint64_t sampled;        /* completed at the last sample */
    struct ev_loop *loop;
    struct conn_shared shared;
    struct conn *conns;
    char *rbuf;
    ev_async stop;
    atomic_bool stop_asked;  /* worker_stop was called (maybe before the loop ran) */
    atomic_bool running;     /* the stop watcher is active */
    void (*on_exit)(struct worker *, void *);
    void *on_exit_arg;
    pthread_t thread;
};

/* Sets up w (allocates its connections, loop, buffer and stats) with
 * script (NULL for none; loaded, set up and initialised; its thread gives
 * the address to use) bound to it; conn_base: how many connections the
 * workers before it have (for conn.id); req_base: where its requests begin
 * in the run's order (the budgets of the workers before it; with --targets
 * round robin, its first request goes to target req_base mod their
 * number). on_exit is
 * called from the worker's thread when its loop has ended (t_end, gave_up,
 * script_error and stats are final by then). Returns 0, or -1 with err if
 * the event loop cannot be created or the script's request fails. */
int worker_init(struct worker *w, uint32_t id, const struct worker_config *cfg, uint32_t nconns,
                uint64_t budget, struct script_thread *script, uint32_t conn_base, uint64_t req_base,
                void (*on_exit)(struct worker *, void *), void *arg, char *err, size_t errlen);

/* Starts the thread. Returns 0 or an errno. */
int worker_start(struct worker *w);

/* Asks the worker to stop (thread-safe; requests in flight are cut off).
 * Also before worker_init or worker_start: the worker then stops at once. */
void worker_stop(struct worker *w);

/* Waits for the thread to end. */
void worker_join(struct worker *w);

/* Frees what worker_init allocated except the stats, which stay readable
 * until stats_free(&w->stats), and the script, which the run frees. */
void worker_free(struct worker *w);

#endif
