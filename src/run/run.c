/* The run: workers on their own threads, and on the main thread a small libev
 * loop that waits for the deadline, for the workers to finish their budgets,
 * or for SIGINT. Signals are blocked in the workers so only this loop sees
 * them. The Lua states the workers are given: run_script.c. */
#include "run.h"

#include "hosts.h"

#include "arrivals.h"
#include "clock.h"
#include "fdtable.h"
#include "http.h"
#include "progress.h"
#include "report.h"
#include "schedule.h"
#include "source.h"
#include "targets.h"
#include "tls.h"
#include "run_internal.h"
#include "run_watch.h"
#include "worker.h"
#include "xalloc.h"

#include <errno.h>
#include <ev.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A second SIGINT/SIGTERM this soon after the first is an echo of it. */
#define SIGNAL_ECHO_NS INT64_C(250000000)

/* Descriptors a worker holds beside its connections: its epoll fd and the
 * wake-up of its ev_async (an eventfd, or a pipe's two ends where libev
 * falls back to one); with -R also the schedule's timerfd. libev aborts
 * when it cannot make them, so they are counted before the start. */
#define FD_PER_WORKER 3
#define FD_PER_WORKER_RATE 1
/* The main thread's: stdio, its own loop, signals, the start-up probe, the
 * result files, the script files while they load; with room to spare. */
#define FD_RESERVE 32

struct run {
    struct ev_loop *loop; /* the main thread's */
    ev_async worker_exited;
    ev_timer deadline;
    ev_signal sigint, sigterm;
    ev_timer tick;        /* four times a second: the workers' seconds collected, --hlog's
                           * finished intervals written, progress drawn */
    struct series *series;
    struct intervals_log hlog; /* --hlog: the log written as the run goes */
    struct names names;   /* the request names the workers' scripts give (names.h) */
    struct names check_names, group_names; /* a flow's (u:check, u:group) */
    struct tags tags;                      /* a flow's request tags */
    bool hlog_on;
    struct progress progress;
    int64_t t0;
    const struct options *o;
    bool *aborted;        /* per threshold: it stopped the run (abort) */
    bool aborted_run;     /* one did */
    struct worker *workers;
    uint32_t nworkers;
    atomic_uint exited;
    atomic_int ended_run; /* a worker stopped for a reason that ends the run:
                           * the target unreachable, or a script error */
    bool stopping;
    int64_t stop_ns;      /* monotonic ns when the workers were asked to stop */
    struct run_watch watch; /* the workers' calls into Lua (run_watch.c) */
    ev_timer watchdog;
    bool interrupted;
    int signals;
    int64_t first_signal; /* monotonic ns */
};

static void stop_workers(struct run *r)
{
    if (r->stopping)
        return;
    r->stopping = true;
    r->stop_ns = clock_now_ns();
    for (uint32_t i = 0; i < r->nworkers; i++)
        worker_stop(&r->workers[i]);
}

/* Called on the worker's own thread as it ends. */
static void on_worker_exit(struct worker *w, void *arg)
{
    struct run *r = arg;
    if (w->gave_up || w->script_error[0])
        atomic_store(&r->ended_run, 1);
    atomic_fetch_add(&r->exited, 1);
    ev_async_send(r->loop, &r->worker_exited);
}

/* Every worker has ended, or was left behind (run_watch.c). */
static bool all_ended(struct run *r)
{
    return atomic_load(&r->exited) + r->watch.abandoned >= r->nworkers;
}

static void on_worker_exited(EV_P_ ev_async *w, int revents)
{
    (void)w;
    (void)revents;
    struct run *r = ev_userdata(EV_A);
    if (all_ended(r)) {
        ev_break(EV_A, EVBREAK_ALL);
        return;
    }
    /* A worker that gave up on the target or its script ends the run for all. */
    if (atomic_load(&r->ended_run))
        stop_workers(r);
}

/* The thresholds on what the workers have handed over so far: how many
 * the run passes (for the progress line); the first one with abort broken for good
 * stops the run (once; it is marked). */
static size_t check_thresholds(struct run *r, int64_t elapsed)
{
    const struct options *o = r->o;
    if (!o->nthresholds)
        return 0;
    struct stats snap;
    series_snapshot(r->series, &snap);
    size_t holding = 0;
    for (size_t i = 0; i < o->nthresholds; i++) {
        struct threshold_result res;
        if (o->thresholds[i].scenario)
            continue; /* the snapshot is the run's: a scenario's is judged at the end */
        threshold_eval(&o->thresholds[i], &snap, elapsed, &res);
        holding += res.pass;
        if (!r->stopping && threshold_broken_live(&o->thresholds[i], &snap, elapsed)) {
            r->aborted[i] = true;
            r->aborted_run = true;
            stop_workers(r);
        }
    }
    return holding;
}

static void on_tick(EV_P_ ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    struct run *r = ev_userdata(EV_A);
    series_collect(r->series, false);
    if (r->hlog_on)
        intervals_log_collect(&r->hlog);
    int64_t elapsed = clock_now_ns() - r->t0;
    size_t holding = check_thresholds(r, elapsed);
    progress_update(&r->progress, r->series, elapsed, holding, r->o->nthresholds);
}

/* Every few ms: the workers' calls into Lua (run_watch.c). */
static void on_watch(EV_P_ ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    struct run *r = ev_userdata(EV_A);
    if (run_watch_look(&r->watch, r->workers, r->nworkers, r->o->yield_timeout_ns,
                       r->stopping ? r->stop_ns : 0, clock_now_ns()) && all_ended(r))
        ev_break(EV_A, EVBREAK_ALL);
}

static void on_deadline(EV_P_ ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    stop_workers(ev_userdata(EV_A));
}

/* After the run (the loop's signal watchers are stopped, and libev gave
 * the signals their default action back): the first interrupt's time,
 * so that its copy from a wrapper's process group (timeout(1) signals both
 * its child and the group) arriving late does not kill the process while
 * it reports; any other interrupt ends it at once, as a second one during
 * the run does. Async-signal-safe: a clock read, a write, _exit. */
static volatile sig_atomic_t signalled;
static int64_t first_signal_ns;

static void after_run_signal(int sig)
{
    (void)sig;
    if (signalled && clock_now_ns() - first_signal_ns < SIGNAL_ECHO_NS)
        return;
    static const char msg[] = "\nvolley: interrupted again, exiting\n";
    ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)rc;
    _exit(130);
}

/* Keeps the after-run rule for SIGINT and SIGTERM. */
static void guard_signals_after_run(const struct run *r)
{
    first_signal_ns = r->first_signal;
    signalled = r->signals > 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = after_run_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void on_signal(EV_P_ ev_signal *w, int revents)
{
    (void)w;
    (void)revents;
    struct run *r = ev_userdata(EV_A);
    int64_t now = clock_now_ns();
    /* Wrappers such as timeout(1) pass a Ctrl-C on and the terminal sends it
     * too: copies within a moment of the first are the same interrupt. */
    if (r->signals > 0 && now - r->first_signal < SIGNAL_ECHO_NS)
        return;
    if (++r->signals == 1)
        r->first_signal = now;
    if (r->signals > 1) {
        /* Second interrupt: the user wants out now, report or not. */
        static const char msg[] = "\nvolley: interrupted again, exiting\n";
        ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)rc;
        _exit(130);
    }
    if (!r->stopping)
        r->interrupted = true; /* not when the run was ending anyway */
    stop_workers(r);
}

int run_check_fd_limit(const struct options *o, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t per_worker = FD_PER_WORKER + (o->rate || o->nscenarios ? FD_PER_WORKER_RATE : 0); /* an open scenario's */
    uint32_t conns = (uint32_t)shard_part(o->connections, o->shard); /* this process's */
    /* A flow's user may hold one more connection per --allow-host entry
     * (its connection to that host; an entry without a port counted
     * once). */
    rlim_t per_user = 1 + (o->flow && o->allow_hosts ? (rlim_t)o->allow_hosts->n : 0);
    rlim_t need = (rlim_t)conns * per_user + (rlim_t)o->threads * per_worker + FD_RESERVE;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur < need && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need)) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
            rl.rlim_cur = 0;
    }
    if (rl.rlim_cur >= need) {
        /* Now, with one thread: a growth in a worker would stall it (fdtable.h). */
        fdtable_reserve(need > INT_MAX ? INT_MAX : (int)need);
        return 0;
    }
    char which[64] = "";
    if (o->shard.count > 1)
        snprintf(which, sizeof which, " (--shard %u/%u's part of -c %u)", o->shard.index, o->shard.count,
                 o->connections);
    snprintf(err, errlen,
             "-c %u%s with -t %u: needs %llu open files (%llu for connections, %llu for threads, %d for the rest)"
             " but the limit is %llu (see ulimit -n; fewer -c or -t, or more processes: --shard)",
             conns, which, o->threads, (unsigned long long)need, (unsigned long long)(conns * per_user),
             (unsigned long long)(o->threads * per_worker), FD_RESERVE, (unsigned long long)rl.rlim_max);
    return -1;
}

void run_tls_config(const struct options *o, const struct target *t, struct tls_config *cfg)
{
    *cfg = (struct tls_config){
        .min_version = o->tls_min,
        .max_version = o->tls_max,
        .ciphers = o->ciphers,
        .ciphersuites = o->ciphersuites,
        .groups = o->groups,
        /* The URL's host name unless told otherwise; an IP literal never. */
        .sni = o->no_sni ? NULL : o->sni ? o->sni : t->host_is_ip ? NULL : t->host,
        /* --verify checks the name the server was asked for: --sni's when
         * given (a certificate for that name behind an IP address), else
         * the URL's host, IP literals included. */
        .host = o->sni && !o->no_sni ? o->sni : t->host,
        .verify = o->verify,
        .cacert = o->cacert,
        .cert = o->cert,
        .key = o->key,
        .resume = o->tls_resume,
        .offer_h2 = o->http2 == OPTIONS_H2_ALPN || o->http2 == OPTIONS_H2_STRICT,
        .offer_h1 = o->http2 != OPTIONS_H2_STRICT,
    };
}

/* The run's seed, the one place it is chosen: each worker's generator
 * (--targets-order random) starts from it and the worker's index. A new
 * one for each run. */
static uint64_t run_seed(void)
{
    return (uint64_t)clock_now_ns() ^ ((uint64_t)getpid() << 32);
}

/* The --hlog log's comment line: what ran, and the histograms' units. */
static void hlog_comment(const struct options *o, const struct target *t, const char *run_id, char *buf, size_t len)
{
    char mode[64];
    if (o->rate)
        snprintf(mode, sizeof mode, "open model rate=%" PRIu64 "/s", o->rate);
    else
        snprintf(mode, sizeof mode, "closed loop");
    snprintf(buf, len, "volley %s %s %s connections=%u unit=ns lowest=%lld highest=%lld digits=%d run=%s shard=%u/%u",
             VOLLEY_VERSION, t->url, mode, o->connections, (long long)HIST_LOWEST, (long long)HIST_HIGHEST,
             HIST_DIGITS, run_id, o->shard.index, o->shard.count);
}

/* --hlog: the log starts on f with its header; the workers' intervals are
 * collected from now on. named: requests have names (a script's, the
 * targets'). */
static void start_hlog(struct run *r, FILE *f, const struct options *o, const struct target *t, uint32_t made,
                       int64_t t0, double start_epoch, const char *run_id, bool named)
{
    char comment[512];
    hlog_comment(o, t, run_id, comment, sizeof comment);
    struct intervals **ivs = xcalloc(made, sizeof *ivs);
    for (uint32_t i = 0; i < made; i++)
        ivs[i] = &r->workers[i].intervals;
    intervals_log_start(&r->hlog, f, ivs, made, t0, start_epoch, comment, named ? r->names.name : NULL,
                        o->flow ? r->group_names.name : NULL);
    r->hlog_on = true;
}

/* --start-at: sleeps until it, signals blocked (the workers are made, not
 * started). SIGINT or SIGTERM while waiting ends the wait: -1. Started
 * late by any amount: RUN_LATE (a shard that started skewed would shift
 * its part of the schedule against the others'). The last 2 ms are slept
 * with an absolute clock_nanosleep, which wakes closer to the time than a
 * relative timeout does. */
#define START_FINE_NS INT64_C(2000000)

static int wait_start(const struct options *o, const sigset_t *signals, char *err, size_t errlen)
{
    int64_t late = clock_now_ns() - o->start_at_mono;
    if (late > 0) {
        snprintf(err, errlen,
                 "--start-at %.6f: ready %.3f ms after it; not starting (a shard started late would be skewed "
                 "against the others: give a start time further ahead)",
                 o->start_at, (double)late / 1e6);
        return RUN_LATE;
    }
    for (;;) {
        int64_t left = o->start_at_mono - clock_now_ns() - START_FINE_NS;
        if (left <= 0)
            break;
        struct timespec ts = {.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
        int sig = sigtimedwait(signals, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            snprintf(err, errlen, "interrupted while waiting for --start-at %.6f; nothing was sent", o->start_at);
            return -1;
        }
    }
    struct timespec at = {.tv_sec = o->start_at_mono / 1000000000, .tv_nsec = o->start_at_mono % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
        ;
    return 0;
}

/* The settings every shard of a run has in common, as one string: what
 * the default run id is made from (with the start time). Not -t, --seed,
 * --source or the output files, which may differ from machine to machine. */
static void run_settings(const struct options *o, const struct target *t, char *buf, size_t len)
{
    char ar[48];
    int n = snprintf(buf, len, "%s|%s|c=%u|n=%" PRIu64 "|d=%" PRId64 "|R=%" PRIu64 "|st=%s|to=%" PRId64
                     "|ka=%d|h10=%d|h2=%d|m=%u|s=%s|tg=%s|N=%u|b=%zu|ar=%s",
                     t->url, o->method, o->connections, o->requests, o->duration_ns, o->rate,
                     o->stages_spec ? o->stages_spec : "", o->timeout_ns, o->keepalive, o->http10, (int)o->http2,
                     o->streams, o->script ? o->script : "", o->targets_path ? o->targets_path : "",
                     o->shard.count, o->body_len, arrivals_text(o->arrivals, ar, sizeof ar));
    for (size_t i = 0; i < o->nheaders && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "|H=%s", o->headers[i]);
}

int run_execute(const struct options *o, const struct target *t, struct script *main_script, FILE *hlog,
                run_ready_fn ready, void *ready_arg, struct run_result *res, char *err, size_t errlen)
{
    struct worker_config cfg = {
        .keepalive = o->keepalive,
        .timeout_ns = o->timeout_ns,
        .max_body = o->max_body,
        .samples = o->samples,
        .heartbeat = o->heartbeat,
        .one_first = o->one_first,
        .heads = o->heads,
        .show_errors = (unsigned)o->show_errors,
        .rate = o->rate,
        .max_rps = o->max_rps,
        .stages = o->stages,
        .spin_ns = o->spin_ns,
        .nworkers = o->threads,
        .hlog_interval_ns = hlog ? o->hlog_interval_ns : 0,
        .http2 = o->http2 != OPTIONS_H1,
        .http2_strict = o->http2 == OPTIONS_H2_STRICT,
        .streams = o->streams,
        .h2_window = o->h2_window,
        .authority = t->host_header,
    };
    /* --arrivals poisson or gamma:K: one process for every worker, drawn
     * from the run seed, so that every shard given the same seed walks the
     * same sequence. */
    struct arrivals process;
    if (o->rate && arrivals_random(o->arrivals)) {
        arrivals_init(&process, o->arrivals, o->seed);
        cfg.arrivals = &process;
    }
    struct tls_config tls;
    char *tunnel = NULL;
    run_tls_config(o, t, &tls); /* also what another https origin's start from */
    if (t->tls)
        cfg.tls = &tls;
    cfg.hosts = o->allow_hosts;
    cfg.hosts_tls = &tls;
    if (t->tls && t->proxy) { /* CONNECT host:port, the port always said */
        char authority[300];
        snprintf(authority, sizeof authority, strchr(t->host, ':') ? "[%s]:%u" : "%s:%u", t->host, t->port);
        tunnel = http_request_tunnel(authority, t->proxy_auth, &cfg.tunnel_len);
        cfg.tunnel = tunnel;
    }
    _Atomic uint64_t completed_all = 0;
    cfg.completed_all = &completed_all;
    _Atomic int64_t streams_now = 0, streams_peak = 0;
    cfg.streams_now = &streams_now;
    cfg.streams_peak = &streams_peak;
    cfg.addr = target_sockaddr(t, &cfg.addrlen);
    struct http_request_spec spec = run_request_spec(o, t);
    char *req = http_request_encode(&spec, &cfg.req_len);
    cfg.req = req;
    if (o->targets) {
        cfg.targets = o->targets->reqs;
        cfg.ntargets = o->targets->n;
        cfg.targets_random = o->targets_order == OPTIONS_RANDOM;
        cfg.seed = run_seed();
    }

    struct run_plan plan;
    run_plan_make(o, &cfg, &plan);
    struct run r = {.nworkers = plan.nworkers};
    names_init(&r.names);
    names_init(&r.check_names);
    tags_init(&r.tags);
    names_init(&r.group_names);
    for (uint32_t k = 0; k < plan.n; k++) { /* the plan's configs are copies of cfg */
        plan.g[k].cfg.names = &r.names;
        plan.g[k].cfg.tags = &r.tags;
        plan.g[k].cfg.check_names = &r.check_names;
        plan.g[k].cfg.group_names = &r.group_names;
        plan.g[k].cfg.target_name = o->targets ? o->targets->name : NULL;
    }
    /* --targets: the targets' names are the run's, in the file's order (ids
     * 0..nnames-1: nothing else names requests then). */
    for (uint32_t i = 0; o->targets && i < o->targets->nnames; i++)
        names_intern(&r.names, o->targets->names[i], strlen(o->targets->names[i]));
    r.loop = ev_default_loop(EVFLAG_AUTO | EVFLAG_NOENV);
    ev_set_userdata(r.loop, &r);
    atomic_init(&r.exited, 0);
    atomic_init(&r.ended_run, 0);
    r.workers = xcalloc(r.nworkers, sizeof *r.workers);
    res->threads = main_script ? xcalloc(r.nworkers, sizeof *res->threads) : NULL;
    res->nthreads = 0;

    /* Every connection and every request gets a worker: the remainders go to
     * the first workers (wrk drops them). A shard (--shard I/N) holds and
     * makes its part of the run's (shard_part), split the same way; a
     * scenario's workers (run_plan.c) its part of the scenario's. */
    struct shard sh = o->shard;
    uint64_t units = plan.g[0].units, arrivals = plan.g[0].arrivals; /* one scenario's (run_rate_finish) */
    int rc = 0;
    uint32_t made = 0;
    for (uint32_t k = 0; k < plan.n && rc == 0; k++) {
        struct run_group *g = &plan.g[k];
        g->cfg.shard = sh;
        g->cfg.sources = o->sources;
        uint32_t conn_base = g->cfg.conn_offset;
        uint64_t req_base = g->req_base;
        for (uint32_t j = 0; j < g->threads && rc == 0; j++, made++) {
            uint32_t i = g->first + j, conns;
            uint64_t budget;
            run_plan_share(&plan, k, j, sh, &conns, &budget);
            struct script_thread *th = NULL;
            if (main_script) {
                th = &res->threads[i];
                res->nthreads = i + 1;
                if (run_prepare_script(o, t, main_script, th, i, o->nscenarios ? k + 1 : 0, &r.workers[i], err,
                                       errlen) < 0) {
                    rc = -1;
                    break;
                }
            }
            rc = worker_init(&r.workers[i], i, &g->cfg, conns, budget, th, conn_base, req_base, on_worker_exit, &r,
                             err, errlen);
            if (rc == 0 && th)
                rc = run_init_script(o, t, th, err, errlen);
            conn_base += conns;
            /* The run's order is dealt in contiguous shares: with -n each
             * request of it is made by exactly one worker. Without a bound
             * each worker starts at its own place. */
            req_base = budget == UINT64_MAX ? shard_lane(sh, j + 1) : req_base + budget;
        }
    }

    struct series_rec **recs = xcalloc(made ? made : 1, sizeof *recs);
    for (uint32_t i = 0; i < made; i++)
        recs[i] = &r.workers[i].series;
    series_init(&res->series, recs, made);
    r.series = &res->series;
    ev_async_init(&r.worker_exited, on_worker_exited);
    ev_async_start(r.loop, &r.worker_exited);
    ev_signal_init(&r.sigint, on_signal, SIGINT);
    ev_signal_start(r.loop, &r.sigint);
    ev_signal_init(&r.sigterm, on_signal, SIGTERM);
    ev_signal_start(r.loop, &r.sigterm);

    /* The watchdog's interrupt (on_watch), handled on the worker it is sent to. */
    if (main_script)
        script_guard_install();
    /* Workers inherit a mask without SIGINT/SIGTERM, so the main loop gets them. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);

    if (rc == 0 && ready)
        ready(ready_arg);
    if (rc == 0 && o->start_at_given)
        rc = wait_start(o, &block, err, errlen);
    /* With --start-at every shard has the same start: arrival 0 is due at
     * it, wherever this process's clock read it. */
    res->start_epoch = o->start_at_given ? o->start_at : clock_epoch_seconds();
    int64_t t0 = o->start_at_given && rc == 0 ? o->start_at_mono : clock_now_ns();
    if (o->run_id) {
        snprintf(res->run_id, sizeof res->run_id, "%s", o->run_id);
    } else {
        char settings[4096];
        run_settings(o, t, settings, sizeof settings);
        shard_default_id(settings, res->start_epoch, res->run_id, sizeof res->run_id);
    }
    run_plan_start(&plan, o, t0);
    uint32_t started = 0;
    for (uint32_t i = 0; i < res->nthreads && rc == 0; i++)
        res->threads[i].started = true;
    for (; started < made && rc == 0; started++) {
        int e = worker_start(&r.workers[started]);
        if (e) {
            snprintf(err, errlen, "cannot start worker thread %u: %s", started, strerror(e));
            rc = -1;
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (uint32_t i = started; i < res->nthreads; i++)
        res->threads[i].started = false; /* never ran: its state is freed as any other */
    /* After the start: the workers need not wait for the header's write. */
    if (rc == 0 && hlog)
        start_hlog(&r, hlog, o, t, made, t0, res->start_epoch, res->run_id, main_script || o->targets);
    if (rc != 0) {
        r.nworkers = started; /* wait only for those that run */
        stop_workers(&r);
    } else if (o->duration_ns > 0) {
        /* -R: the schedule ends at -d by itself (sched_end) and what was sent
         * may still take --timeout; the deadline only cuts off what is left. */
        int64_t after = o->duration_ns + (o->rate ? o->timeout_ns : 0);
        ev_now_update(r.loop); /* the loop's clock is stale after the set-up */
        ev_timer_init(&r.deadline, on_deadline, (double)(after - (clock_now_ns() - t0)) / 1e9, 0.);
        ev_timer_start(r.loop, &r.deadline);
    }
    r.t0 = t0;
    r.o = o;
    r.aborted = o->nthresholds ? xcalloc(o->nthresholds, sizeof *r.aborted) : NULL;
    progress_init(&r.progress, o, stderr, isatty(STDERR_FILENO), getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
    ev_timer_init(&r.tick, on_tick, 0.25, 0.25);
    ev_timer_start(r.loop, &r.tick);
    run_watch_init(&r.watch, r.nworkers);
    if (main_script) {
        double every = run_watch_every(o->yield_timeout_ns);
        ev_timer_init(&r.watchdog, on_watch, every, every);
        ev_timer_start(r.loop, &r.watchdog);
    }
    if (atomic_load(&r.exited) < r.nworkers)
        ev_run(r.loop, 0);
    ev_timer_stop(r.loop, &r.tick);
    ev_timer_stop(r.loop, &r.watchdog);
    progress_end(&r.progress);
    ev_timer_stop(r.loop, &r.deadline);
    ev_signal_stop(r.loop, &r.sigint);
    ev_signal_stop(r.loop, &r.sigterm);
    guard_signals_after_run(&r);
    ev_async_stop(r.loop, &r.worker_exited);

    stats_init(&res->stats);
    int64_t t_end = t0;
    for (uint32_t i = 0; i < started; i++) {
        if (run_watch_abandoned(&r.watch, i)) {
            /* Its figures as they were when its last call began (script_busy's
             * acquire); the thread runs on, so its state stays "started" (thread:get
             * refuses it, and it is not freed). */
            stats_finish(&r.workers[i].stats);
            stats_cut_off_rest(&r.workers[i].stats);
            stats_merge(&res->stats, &r.workers[i].stats);
            if (r.stop_ns > t_end)
                t_end = r.stop_ns; /* it ran at least until the stop */
            continue;
        }
        worker_join(&r.workers[i]);
        if (i < res->nthreads)
            res->threads[i].started = false;
        stats_merge(&res->stats, &r.workers[i].stats);
        if (r.workers[i].t_end > t_end)
            t_end = r.workers[i].t_end;
    }
    run_plan_collect(&plan, o, r.workers, started, t0, res);
    res->stats.stream.peak = (uint64_t)atomic_load(&streams_peak);
    series_finish(&res->series);
    res->hlog_error[0] = '\0';
    if (r.hlog_on)
        intervals_log_finish(&r.hlog, t_end, res->hlog_error, sizeof res->hlog_error);
    intervals_log_free(&r.hlog);
    names_free(&r.names); /* the merged stats keep their own copies */
    names_free(&r.check_names);
    tags_free(&r.tags);
    names_free(&r.group_names);
    res->workers = xcalloc(started ? started : 1, sizeof *res->workers);
    res->nworkers = started;
    for (uint32_t i = 0; i < started; i++)
        res->workers[i] = (struct run_worker){r.workers[i].cpu_ns, r.workers[i].t_end - r.workers[i].t_begin};
    for (uint32_t i = 0; i < made; i++) {
        if (i < started && run_watch_abandoned(&r.watch, i))
            continue; /* its thread may still read them */
        stats_free(&r.workers[i].stats);
        worker_free(&r.workers[i]);
    }
    /* The workers are gone: thread:stop() in done() has nothing to stop. */
    for (uint32_t i = 0; i < res->nthreads; i++)
        res->threads[i].stop = NULL;
    stats_sort_reasons(&res->stats);
    res->duration_ns = t_end - t0;
    res->t0 = t0;
    res->t_end = t_end;
    res->unreachable = 0;
    res->script_error[0] = '\0';
    for (uint32_t i = 0; i < started; i++) {
        if (run_watch_abandoned(&r.watch, i)) {
            if (!res->script_error[0])
                snprintf(res->script_error, sizeof res->script_error,
                         "%s: thread %u: a call into the script did not return within %.0fs of the run's end "
                         "(a loop that never ends?)", main_script ? script_name(main_script) : "script", i + 1,
                         (double)RUN_WATCH_ABANDON_NS / 1e9);
            continue;
        }
        if (r.workers[i].gave_up)
            res->unreachable = r.workers[i].gave_up;
        if (r.workers[i].script_error[0])
            snprintf(res->script_error, sizeof res->script_error, "%s", r.workers[i].script_error);
    }
    res->interrupted = r.interrupted;
    /* -R: the run's length and the spans its rates are judged over. Not
     * when it was stopped early. */
    bool early = res->interrupted || res->unreachable || res->script_error[0] || r.aborted_run;
    run_rate_finish(o, arrivals, units, early, res);
    series_pad(&res->series, res->duration_ns);
    /* Thresholds are judged on the run's final numbers; one that stopped
     * the run (check_abort) is marked. */
    res->thresholds = o->nthresholds ? xcalloc(o->nthresholds, sizeof *res->thresholds) : NULL;
    for (size_t i = 0; i < o->nthresholds; i++)
        res->thresholds[i].aborted = r.aborted && r.aborted[i];
    report_judge_thresholds(o, res); /* a {scenario=} one on the scenario's figures */
    free(r.aborted);
    if (!r.watch.abandoned)
        free(r.workers); /* else a stuck thread still has its own */
    run_watch_free(&r.watch);
    if (!r.watch.abandoned)
        run_plan_free(&plan); /* else a stuck thread still reads its config */
    free(req);
    free(tunnel);
    return rc;
}

void run_result_free(struct run_result *res)
{
    free(res->workers);
    res->workers = NULL;
    series_free(&res->series);
    for (uint32_t i = 0; i < res->nthreads; i++)
        if (!res->threads[i].started) /* a worker the run left behind still runs in it */
            script_free(res->threads[i].state);
    free(res->threads);
    res->threads = NULL;
    res->nthreads = 0;
    free(res->thresholds);
    res->thresholds = NULL;
    free(res->missing);
    res->missing = NULL;
    res->nmissing = 0;
    for (uint32_t i = 0; i < res->nscenarios; i++)
        stats_free(&res->scenarios[i].stats);
    free(res->scenarios);
    res->scenarios = NULL;
    res->nscenarios = 0;
    stats_free(&res->stats);
}

char *run_library_version(char *buf, size_t len)
{
    snprintf(buf, len, "libev %d.%d", ev_version_major(), ev_version_minor());
    return buf;
}
