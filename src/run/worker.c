/* A worker thread: one event loop running its connections until the budget
 * is spent or the run asks it to stop. */
#include "worker.h"

#include "clock.h"
#include "framings.h"
#include "transport.h"
#include "xalloc.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One read buffer per worker, shared by its connections: a connection never
 * keeps response bytes between reads, so it holds no buffer of its own. */
#define READ_BUFFER_SIZE (64 * 1024)

/* HTTP/2: room for one request's lower-cased header names. */

/* Connections start in batches of this many per loop iteration. Each
 * start is a connect() and, on loopback, the first request's write, and
 * connect() gets slow in the kernel's port search past ~14,000
 * connections to one address: were all of them started before the loop
 * first polled, the first requests' answers would wait for the last
 * connect, and that wait would be their latency (seconds at -c 15000),
 * or even their --timeout. Batches let the loop read between them; the
 * latency of the first requests grows with the batch (-c 15000 against
 * nginx: p99 16 ms at 4, 40 ms at 16, 150 ms at 64, 1.2 s all at once)
 * while the time to open them all and the CPU time stay the same.
 * Meanwhile a connection whose request ended waits (CONN_HELD) for the
 * last batch, so the order of requests is the all-at-once order: every
 * connection's first before any second (-n 3000 -c 3000 opens 3000, and
 * a wrk script's first c delay() calls are the connections' first). */
#define OPEN_BATCH 4

static void start_rest(void *arg);
static void schedule_ended(void *arg);

/* -R: the schedule hands an arrival to the connection waiting in slot. */
static void send_arrival(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    struct worker *w = arg;
    conn_send(&w->conns[slot], intended, now);
}

int worker_init(struct worker *w, uint32_t id, const struct worker_config *cfg, uint32_t nconns,
                uint64_t budget, struct script_thread *thread, uint32_t conn_base, uint64_t req_base,
                void (*on_exit)(struct worker *, void *), void *arg, char *err, size_t errlen)
{
    struct script *script = thread ? thread->state : NULL;
    w->script = script;
    w->script_req = NULL;
    w->script_error[0] = '\0';
    w->id = id;
    w->lane = (uint32_t)shard_lane(cfg->shard, id - cfg->first_id);
    w->lanes = cfg->nworkers * shard_count(cfg->shard);
    w->cfg = cfg;
    w->nconns = nconns;
    w->budget = budget;
    w->t_end = 0;
    w->on_exit = on_exit;
    w->on_exit_arg = arg;
    /* NOENV: LIBEV_FLAGS must not swap the backend under the measurements. */
    w->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOENV);
    if (!w->loop)
        w->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOENV);
    if (!w->loop) {
        snprintf(err, errlen, "worker %u: cannot create an event loop", id);
        return -1;
    }
    ev_set_userdata(w->loop, w);
    struct transport_config tcfg = {.tls = cfg->tls, .tunnel = cfg->tunnel, .tunnel_len = cfg->tunnel_len};
    const struct transport_ops *transport = transport_for(&tcfg);
    void *transport_ctx = NULL;
    if (transport->ctx_new && !(transport_ctx = transport->ctx_new(&tcfg, err, errlen)))
        return -1;
    stats_init(&w->stats);
    series_rec_init(&w->series, &w->stats);
    stats_init_slots(&w->stats, nconns);
    /* One without --show-errors: the report's first error body. */
    errsamples_init(&w->stats.shown, cfg->show_errors ? cfg->show_errors : 1, cfg->show_errors > 0);
    w->stats.series = &w->series;
    w->stats.stream.series = &w->series;
    w->rbuf = xmalloc(READ_BUFFER_SIZE);
    w->conn_done = xcalloc(nconns, sizeof *w->conn_done);
    memset(&w->res, 0, sizeof w->res);
    memset(&w->event, 0, sizeof w->event);
    bool flow = script && script_has(script, SCRIPT_USER);
    w->flow_res = flow ? xcalloc(nconns ? nconns : 1, sizeof *w->flow_res) : NULL;
    w->sampled = 0;
    w->shared = (struct conn_shared){
        .loop = w->loop,
        .addr = thread ? (const struct sockaddr *)&thread->addr : cfg->addr,
        .addrlen = thread ? &thread->addrlen : &cfg->addrlen,
        .req = cfg->req,
        .req_len = cfg->req_len,
        .targets = cfg->targets,
        .ntargets = cfg->ntargets,
        .target_name = cfg->target_name,
        .target_next = cfg->ntargets ? (uint32_t)(req_base % cfg->ntargets) : 0,
        .target_random = cfg->targets_random,
        .rng = cfg->seed ^ ((uint64_t)(id + 1) * UINT64_C(0x9e3779b97f4a7c15)),
        .keepalive = cfg->keepalive,
        .timeout_ns = cfg->timeout_ns,
        .rbuf = w->rbuf,
        .rbuf_size = READ_BUFFER_SIZE,
        .stats = &w->stats,
        .budget = budget,
        .active = cfg->stages && !cfg->rate ? stages_share(cfg->stages->start, w->lane, w->lanes) : UINT32_MAX,
        .sources = cfg->sources,
        .src_base = conn_base - cfg->conn_offset,
        .in_flight = 0,
        .script = script,
        .script_request = script && script_has(script, SCRIPT_REQUEST), /* a hook call per request */
        .script_delay = script && script_has(script, SCRIPT_DELAY),
        .script_conns = script && script_is_scenario(script) && !flow, /* a flow's users have no conn tables */
        .script_response = script && script_has(script, SCRIPT_RESPONSE),
        .capture = flow || (script && script_response_reads(script)),
        .flow = flow,
        .flow_res = w->flow_res,
        .max_body = cfg->max_body,
        .res = &w->res,
        .script_event = script && script_has(script, SCRIPT_EVENT),
        .event = &w->event,
        .streams_now = cfg->streams_now,
        .streams_peak = cfg->streams_peak,
        .conn_done = w->conn_done,
        .transport = transport,
        .transport_ctx = transport_ctx,
        .scheme = cfg->tls ? "https" : "http",
        .framing = framing_for(cfg->http2),
        /* Only a handshake that agrees on a protocol (ALPN) can hand a
         * socket to the fallback, and not under --http2=strict. */
        .fallback = transport->protocol && !cfg->http2_strict ? framing_fallback(cfg->http2) : NULL,
        .negotiate = framing_negotiated,
        .alpn_strict = cfg->http2_strict,
        /* A flow's user sends one request at a time, or a batch: up to
         * CONN_FLOW_STREAMS of it at once at least. */
        .streams = !cfg->http2 ? 1 : flow && cfg->streams < CONN_FLOW_STREAMS ? CONN_FLOW_STREAMS : cfg->streams,
        .window = cfg->h2_window,
        .authority = cfg->authority,
        .hosts = cfg->hosts,
        .transport_cfg = cfg->hosts_tls,
        .framing_h1 = framing_for(false),
        .req_depth = 1,
        .samples = cfg->samples,
        .first_head_todo = cfg->samples,
        .heads = cfg->heads,
        .epoch_offset_ns = (int64_t)(clock_epoch_seconds() * 1e9) - clock_now_ns(),
        .heartbeat = cfg->heartbeat,
        .completed_all = cfg->completed_all,
        .start_rest = start_rest,
        .start_rest_arg = w,
        .script_error = w->script_error,
        .script_error_len = sizeof w->script_error,
    };
    if (w->shared.framing->shared_new)
        w->shared.framing_shared = w->shared.framing->shared_new(&w->shared);
    /* Samples of a budget that is known are allocated now, not on the way. */
    if (cfg->samples)
        stats_reserve_samples(&w->stats, budget < (UINT64_C(1) << 20) ? (size_t)budget : (size_t)1 << 20);
    if (script) {
        struct script_worker sw = {
            .thread = thread,
            .conn_base = conn_base,
            .conn_done = w->conn_done,
            .res = &w->res,
            .event = &w->event,
            .metrics = &w->stats.metrics,
            .names = cfg->names,
            .stats = &w->stats,
            .flow_res = w->flow_res,
            .nslots = nconns,
            .check_names = cfg->check_names,
            .tags = cfg->tags,
            .group_names = cfg->group_names,
        };
        w->stats.flow.on = flow;
        script_bind(script, &sw);
    }
    w->conns = xcalloc(nconns, sizeof *w->conns);
    for (uint32_t i = 0; i < nconns; i++)
        conn_init(&w->conns[i], &w->shared, i);
    if (cfg->rate) {
        assert(!w->shared.script_delay && "main.c refuses -R with a delay() hook");
        /* An HTTP/2 connection waits once for each of its free streams. */
        sched_init(&w->sched, w->loop, cfg->rate, w->lane, w->lanes, budget, nconns, w->shared.streams, send_arrival,
                   schedule_ended, w);
        sched_spin(&w->sched, cfg->spin_ns);
        if (cfg->stages)
            sched_curve(&w->sched, cfg->stages);
        sched_arrivals(&w->sched, cfg->arrivals);
        /* A flow's schedule starts iterations; its requests are timed from
         * their own start, as a closed loop's are. */
        if (flow) {
            w->shared.iter_sched = &w->sched;
        } else {
            w->shared.sched = &w->sched;
            w->stats.open = true;
        }
    }
    if (cfg->max_rps && flow) {
        /* Split as -R's schedule is: each of the run's lanes takes an
         * equal share, so the shares add up to the cap. */
        conn_cap_init(&w->cap, w->loop, (double)cfg->max_rps / w->lanes, &w->stats.flow.cap_wait);
        w->shared.cap = &w->cap;
    }
    if (cfg->hlog_interval_ns) {
        /* Any response may stream: the streams' tags are always there,
         * and written from their first value on (IV_LAZY). */
        unsigned tags = IV_BIT(IV_LATENCY) | (IV_LAZY & ~IV_BIT(IV_SERVICE_TTFT));
        if (cfg->rate && !flow) /* a flow's requests are not the schedule's: no service or send lag */
            tags |= IV_BIT(IV_SERVICE) | IV_BIT(IV_SENDLAG) | IV_BIT(IV_SERVICE_TTFT);
        if (flow)
            tags |= IV_BIT(IV_ITERATION);
        intervals_init(&w->intervals, cfg->hlog_interval_ns, tags);
        w->stats.intervals = &w->intervals;
        w->stats.flow.intervals = flow ? &w->intervals : NULL;
        w->stats.stream.intervals = &w->intervals;
    }
    /* --targets: every target's name has its figures from the start (after
     * the intervals and -R's open model, which a name's figures take on). */
    for (uint32_t i = 0; cfg->target_name && i < cfg->names->n; i++)
        stats_name_add(&w->stats, i, cfg->names->name[i]);
    return 0;
}

/* Starts the next batch of connections (see OPEN_BATCH); while some are
 * left, the opener runs again after the next poll, which the idle watcher
 * keeps from blocking, and a connection whose request ended is held
 * (conn_shared.holding). The last batch lets the held ones go on. */
static void open_batch(struct worker *w)
{
    uint32_t end = w->open_end - w->opened > w->open_step ? w->opened + w->open_step : w->open_end;
    /* Counted before the start: a start can come back here (a connect
     * that fails at once releases --one-first's rest, start_rest). */
    while (w->opened < end)
        conn_start(&w->conns[w->opened++]);
    if (w->opened < w->open_end) {
        w->shared.holding = true;
        ev_check_start(w->loop, &w->opener);
        ev_idle_start(w->loop, &w->open_idle);
        return;
    }
    ev_check_stop(w->loop, &w->opener);
    ev_idle_stop(w->loop, &w->open_idle);
    if (w->shared.holding) {
        w->shared.holding = false;
        for (uint32_t i = 0; i < w->opened; i++)
            conn_resume(&w->conns[i]);
    }
}

/* Connections w->opened .. n-1 are to open. */
static void open_until(struct worker *w, uint32_t n)
{
    w->open_end = n;
    open_batch(w);
}

static void on_open(EV_P_ ev_check *c, int revents)
{
    (void)c;
    (void)revents;
    open_batch(ev_userdata(EV_A));
}

static void on_open_idle(EV_P_ ev_idle *i, int revents)
{
    (void)EV_A;
    (void)i;
    (void)revents; /* the opener does the work; this only keeps the poll short */
}

/* Nothing more opens: the run is stopping. */
static void stop_opening(struct worker *w)
{
    w->open_end = w->opened;
    w->shared.holding = false; /* the held connections are stopped with the others */
    ev_check_stop(w->loop, &w->opener);
    ev_idle_stop(w->loop, &w->open_idle);
}

/* Stops every connection; what was in flight is cut off, not failed. */
static void stop_connections(struct worker *w)
{
    if (w->shared.cap) /* no user's turn comes after this */
        conn_cap_stop(w->shared.cap);
    for (uint32_t i = 0; i < w->nconns; i++) {
        unsigned n = conn_stop(&w->conns[i]);
        w->stats.cut_off += n;
        w->shared.in_flight -= n;
    }
}

/* wrk's "requests" statistics: completions per second, per 100 ms. Also
 * closes a series second or --hlog interval that has ended, so a worker
 * that records nothing does not hold the others' back. */
static void on_sample(EV_P_ ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    struct worker *w = ev_userdata(EV_A);
    hist_record(&w->stats.rate, (int64_t)((w->stats.completed - w->sampled) * 10));
    if (w->cfg->stages && !w->cfg->rate) /* the connections the stages achieved */
        for (uint32_t i = 0; i < w->nconns; i++)
            w->stats.conn_samples += w->conns[i].fd >= 0;
    w->sampled = w->stats.completed;
    int64_t now = clock_now_ns();
    series_rec_tick(&w->series, now);
    if (w->stats.intervals)
        intervals_tick(&w->intervals, now);
}

/* --stages without -R: the worker's share of the connections the curve
 * asks for now. More: idle slots below it start; fewer: the slots above it
 * close as their requests end (conn_next_request), none is cut off. */
static void on_stage(EV_P_ ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    struct worker *w = ev_userdata(EV_A);
    int64_t at = clock_now_ns() - w->cfg->t0 - w->cfg->start_ns;
    uint32_t want = stages_share(stages_value(w->cfg->stages, at), w->lane, w->lanes);
    if (want > w->nconns)
        want = w->nconns;
    uint32_t was = w->shared.active;
    w->shared.active = want;
    for (uint32_t i = was; i < want; i++)
        if (w->conns[i].state == CONN_IDLE && w->shared.budget > 0)
            conn_start(&w->conns[i]);
}

/* -R: the schedule ends; what was due and never sent is counted. */
static void stop_schedule(struct worker *w)
{
    if (!w->cfg->rate || w->sched.stopped)
        return;
    w->stats.unsent = sched_backlog(&w->sched, clock_now_ns());
    w->stats.last_send = w->sched.last_send;
    w->stats.last_due = w->sched.last_due;
    sched_stop(&w->sched);
}

/* -R with -d: the schedule's time is up. Requests in flight may still end
 * (the run cuts them off at -d plus --timeout); nothing more is sent. */
static void schedule_ended(void *arg)
{
    struct worker *w = arg;
    stop_schedule(w);
    w->shared.budget = 0;
    if (w->shared.in_flight == 0 && w->shared.live_iters == 0)
        ev_break(w->loop, EVBREAK_ALL);
}

static void on_stop(EV_P_ ev_async *a, int revents)
{
    (void)revents;
    stop_opening(ev_userdata(EV_A));
    stop_schedule(ev_userdata(EV_A));
    stop_connections(ev_userdata(EV_A));
    ev_async_stop(EV_A, a);
    ev_break(EV_A, EVBREAK_ALL);
}

/* A scenario's end (cfg->stop_ns): as the run's stop, for this worker. */
static void on_end(EV_P_ ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    struct worker *w = ev_userdata(EV_A);
    stop_opening(w);
    stop_schedule(w);
    stop_connections(w);
    w->shared.budget = 0;
    ev_break(EV_A, EVBREAK_ALL);
}

/* The load begins: the schedule (-R), the stages' timer, the connections
 * (in batches: see OPEN_BATCH). */
static void begin_load(struct worker *w)
{
    int64_t t0 = w->cfg->t0 + w->cfg->start_ns;
    if (w->cfg->stages && !w->cfg->rate)
        ev_timer_start(w->loop, &w->stager);
    if (w->cfg->rate)
        sched_start(&w->sched, t0, w->cfg->sched_end);
    if (w->cfg->stop_ns) {
        ev_now_update(w->loop);
        ev_timer_init(&w->ender, on_end, (double)(w->cfg->t0 + w->cfg->stop_ns - clock_now_ns()) / 1e9, 0.);
        ev_timer_start(w->loop, &w->ender);
    }
    open_until(w, w->shared.hold_rest ? 1 : w->nconns);
}

static void on_begin(EV_P_ ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    begin_load(ev_userdata(EV_A));
}

/* --one-first: the first connection got its answer; the others start. */
static void start_rest(void *arg)
{
    struct worker *w = arg;
    open_until(w, w->nconns);
}

static int static_request(struct worker *w)
{
    const char *req;
    size_t len;
    if (script_request(w->script, 0, &req, &len, &w->shared.req_name, w->script_error, sizeof w->script_error) < 0)
        return -1;
    w->script_req = xmalloc(len);
    memcpy(w->script_req, req, len);
    w->shared.req = w->script_req;
    w->shared.req_len = len;
    w->shared.req_depth = http_count_requests(req, len);
    return 0;
}

/* CPU time of the calling thread, ns. */
static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->t_begin = clock_now_ns();
    if (w->script)
        script_guard_bind(w->script); /* for the run's watchdog (run.c's on_watch) */
    int64_t cpu0 = thread_cpu_ns();
    ev_async_init(&w->stop, on_stop);
    ev_async_start(w->loop, &w->stop);
    atomic_store(&w->running, true);
    if (atomic_load(&w->stop_asked))
        ev_async_send(w->loop, &w->stop); /* asked before the watcher was there */
    ev_timer_init(&w->sampler, on_sample, 0.1, 0.1);
    ev_timer_start(w->loop, &w->sampler);
    ev_timer_init(&w->stager, on_stage, 0.01, 0.01);
    ev_timer_init(&w->ender, on_end, 0., 0.);
    /* A script without request(): the request is what init() left in
     * wrk.*, the same for every request of this worker, as in wrk. */
    if (w->script && !w->shared.script_request && !w->shared.flow && static_request(w) < 0)
        w->shared.budget = 0;
    w->shared.last_connect_ok = clock_now_ns();
    if (w->stats.intervals)
        intervals_start(&w->intervals, w->cfg->t0);
    series_rec_start(&w->series, w->cfg->t0);
    w->shared.hold_rest = w->cfg->one_first && w->nconns > 1;
    ev_check_init(&w->opener, on_open);
    ev_idle_init(&w->open_idle, on_open_idle);
    w->opened = 0;
    /* In batches: HTTP/1's closed model. With -R a start only parks the
     * connection until an arrival is due, --stages (closed) starts them
     * as its curve says, and an HTTP/2 connection opens more streams on
     * its own (framing/h2_conn.c's fill), past the hold: those open all at once. */
    w->open_step = w->cfg->rate || w->cfg->stages || w->shared.framing->multiplexed ? UINT32_MAX : OPEN_BATCH;
    /* A scenario that starts later waits for its start in the loop, where
     * the run's stop still reaches it. */
    int64_t wait = w->cfg->t0 + w->cfg->start_ns - clock_now_ns();
    ev_timer_init(&w->starter, on_begin, wait > 0 ? (double)wait / 1e9 : 0., 0.);
    if (w->cfg->start_ns && wait > 0)
        ev_timer_start(w->loop, &w->starter);
    else
        begin_load(w);
    /* Connects that failed at once left their connections in backoff: the
     * loop must run for them too. Only a worker with nothing left at all
     * skips it (ev_break before ev_run would be lost). */
    if (!w->script_error[0] && (w->shared.in_flight > 0 || w->shared.budget > 0))
        ev_run(w->loop, 0);
    /* After an ev_break from the budget (nothing in flight) or from giving
     * up on the target (connections may be connecting), stop the rest. */
    stop_opening(w);
    stop_schedule(w);
    stop_connections(w);
    ev_timer_stop(w->loop, &w->sampler);
    ev_timer_stop(w->loop, &w->stager);
    ev_timer_stop(w->loop, &w->starter);
    ev_timer_stop(w->loop, &w->ender);
    w->gave_up = w->shared.gave_up;
    if (w->script)
        script_take_reasons(w->script, &w->stats);
    if (w->shared.too_large)
        stats_add_reason(&w->stats, "response larger than --max-body", w->shared.too_large);
    if (w->stats.stream.too_large)
        stats_add_reason(&w->stats, "an event larger than --max-body", w->stats.stream.too_large);
    for (uint32_t i = 0; i < w->stats.nnames; i++)
        if (w->stats.names[i] && w->stats.names[i]->too_large)
            stats_name_reason(&w->stats, i, "response larger than --max-body", w->stats.names[i]->too_large);
    stats_finish(&w->stats);
    if (w->stats.intervals)
        intervals_finish(&w->intervals);
    series_rec_finish(&w->series);
    w->t_end = clock_now_ns();
    w->cpu_ns = thread_cpu_ns() - cpu0;
    if (w->on_exit)
        w->on_exit(w, w->on_exit_arg);
    return NULL;
}

int worker_start(struct worker *w)
{
    return pthread_create(&w->thread, NULL, worker_main, w);
}

void worker_stop(struct worker *w)
{
    atomic_store(&w->stop_asked, true);
    if (atomic_load(&w->running))
        ev_async_send(w->loop, &w->stop);
}

void worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
}

void worker_free(struct worker *w)
{
    series_rec_free(&w->series);
    if (w->cfg->rate)
        sched_free(&w->sched);
    w->shared.sched = w->shared.iter_sched = NULL;
    if (w->shared.cap)
        conn_cap_stop(w->shared.cap);
    w->shared.cap = NULL;
    free(w->flow_res);
    w->flow_res = NULL;
    if (w->stats.intervals)
        intervals_free(&w->intervals);
    w->stats.intervals = NULL;
    w->stats.flow.intervals = NULL;
    for (uint32_t i = 0; w->conns && i < w->nconns; i++)
        conn_free(&w->conns[i]);
    conn_shared_free(&w->shared);
    free(w->conn_done);
    w->conn_done = NULL;
    free(w->script_req);
    w->script = NULL;
    w->script_req = NULL;
    free(w->conns);
    const struct transport_ops *tp = w->shared.transport;
    if (tp && tp->ctx_free && w->shared.transport_ctx)
        tp->ctx_free(w->shared.transport_ctx); /* after the connections' own transport state */
    w->shared.transport_ctx = NULL;
    free(w->rbuf);
    if (w->loop)
        ev_loop_destroy(w->loop);
    w->conns = NULL;
    w->rbuf = NULL;
    w->loop = NULL;
}
