/* A worker thread: one event loop running its connections until the budget
 * is spent or the run asks it to stop. */
#include "worker.h"

#include "clock.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One read buffer per worker, shared by its connections: a connection never
 * keeps response bytes between reads, so it holds no buffer of its own. */
#define READ_BUFFER_SIZE (64 * 1024)

int worker_init(struct worker *w, uint32_t id, const struct worker_config *cfg, uint32_t nconns,
                uint64_t budget, struct script *script, void (*on_exit)(struct worker *, void *), void *arg,
                char *err, size_t errlen)
{
    w->script = script;
    w->script_req = NULL;
    w->script_error[0] = '\0';
    w->id = id;
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
    stats_init(&w->stats);
    w->rbuf = xmalloc(READ_BUFFER_SIZE);
    w->shared = (struct conn_shared){
        .loop = w->loop,
        .addr = cfg->addr,
        .addrlen = cfg->addrlen,
        .req = cfg->req,
        .req_len = cfg->req_len,
        .keepalive = cfg->keepalive,
        .timeout_ns = cfg->timeout_ns,
        .rbuf = w->rbuf,
        .rbuf_size = READ_BUFFER_SIZE,
        .stats = &w->stats,
        .budget = budget,
        .in_flight = 0,
        .script = script,
        .script_request = script && script_has(script, SCRIPT_REQUEST), /* a hook call per request */
        .script_delay = script && script_has(script, SCRIPT_DELAY),
        .script_error = w->script_error,
        .script_error_len = sizeof w->script_error,
    };
    if (script && !w->shared.script_request) {
        /* No request(): the request is what the script left in wrk.*, the
         * same for every request of this worker, as in wrk. */
        const char *req;
        size_t len;
        if (script_request(script, 0, &req, &len, err, errlen) < 0)
            return -1;
        w->script_req = xmalloc(len);
        memcpy(w->script_req, req, len);
        w->shared.req = w->script_req;
        w->shared.req_len = len;
    }
    w->conns = xcalloc(nconns, sizeof *w->conns);
    for (uint32_t i = 0; i < nconns; i++)
        conn_init(&w->conns[i], &w->shared, i);
    return 0;
}

/* Stops every connection; what was in flight is cut off, not failed. */
static void stop_connections(struct worker *w)
{
    for (uint32_t i = 0; i < w->nconns; i++) {
        if (conn_stop(&w->conns[i])) {
            w->stats.cut_off++;
            w->shared.in_flight--;
        }
    }
}

static void on_stop(EV_P_ ev_async *a, int revents)
{
    (void)revents;
    stop_connections(ev_userdata(EV_A));
    ev_async_stop(EV_A, a);
    ev_break(EV_A, EVBREAK_ALL);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    ev_async_init(&w->stop, on_stop);
    ev_async_start(w->loop, &w->stop);
    w->shared.last_connect_ok = clock_now_ns();
    for (uint32_t i = 0; i < w->nconns; i++)
        conn_start(&w->conns[i]);
    /* Connects that failed at once left their connections in backoff: the
     * loop must run for them too. Only a worker with nothing left at all
     * skips it (ev_break before ev_run would be lost). */
    if (!w->script_error[0] && (w->shared.in_flight > 0 || w->shared.budget > 0))
        ev_run(w->loop, 0);
    /* After an ev_break from the budget (nothing in flight) or from giving
     * up on the target (connections may be connecting), stop the rest. */
    stop_connections(w);
    w->gave_up = w->shared.gave_up;
    stats_finish(&w->stats);
    w->t_end = clock_now_ns();
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
    ev_async_send(w->loop, &w->stop);
}

void worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
}

void worker_free(struct worker *w)
{
    script_free(w->script);
    free(w->script_req);
    w->script = NULL;
    w->script_req = NULL;
    free(w->conns);
    free(w->rbuf);
    if (w->loop)
        ev_loop_destroy(w->loop);
    w->conns = NULL;
    w->rbuf = NULL;
    w->loop = NULL;
}
