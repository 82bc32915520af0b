/* Per-worker counters and histograms (struct stats, stats_counters.h): the
 * recorders of the request path and the merge. A worker owns one struct
 * stats and nothing else writes to it, so the request path needs no locks
 * or atomics; the run merges all of them once, after the threads end. */
#ifndef VOLLEY_STATS_H
#define VOLLEY_STATS_H

#include "errsample.h"
#include "hist.h"
#include "intervals.h"
#include "metrics.h"
#include "names.h"
#include "series.h"
#include "stats_counters.h"
#include "stats_flow.h"
#include "stats_reason.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One completed request, kept when a script asks for every sample
 * (options() samples = true, --samples): what ab reports is computed from
 * all of them, not from histograms. Lua reads these through the FFI
 * (lua/volley/api.lua mirrors the layout). */
struct stats_sample {
    double start;      /* epoch seconds of the request's start */
    int64_t connect;   /* microseconds; 0 on a reused connection */
    int64_t total;     /* microseconds, start -> last byte */
    int64_t waiting;   /* microseconds, written -> first byte */
    int64_t body;      /* body bytes (decoded) */
    int32_t status;
    int32_t keepalive; /* the connection stayed open for the next request */
    int64_t head_off;  /* with --heads: where this response's first read starts in stats.heads */
    int64_t head_len;  /* and its length (up to STATS_HEAD_MAX); 0 without --heads */
};

/* The figures of the requests that carried one name (a request table's
 * `name`, volley.name): the same as the run's for those requests, by the
 * same rules, so that the names' figures add up to the run's for the named
 * requests and their histograms merge into the run's exactly. Made at the
 * name's first use in a worker (stats_name_add); the recorders below write
 * only into the worker's own. */
struct stats_name {
    char *name;          /* owned */
    uint64_t started, completed, cut_off;
    uint64_t errors[STATS_ERR_KINDS];
    uint64_t status[STATS_STATUS_MAX]; /* as stats.status: completed and failed by validation */
    uint64_t too_large;  /* of errors[VALIDATION]: outgrew --max-body (a reason when the worker ends) */
    struct hist latency; /* as stats.latency (-R: from the intended time, timeouts included) */
    struct hist service; /* -R only (stats.open when the name was added); else no counts */
    struct stats_reason *reasons; /* validation failures by reason (filled when the worker ends) */
    size_t nreasons;
    size_t reasons_more;          /* a saved result's reasons not listed one by one, */
    uint64_t reasons_more_count;  /* and their failures */
};

/* Distinct reasons kept per failure kind; failures with more reasons are
 * counted in other. */
#define STATS_KIND_REASONS 16

/* Allocates the histograms (start-up only). */
void stats_init(struct stats *s);

/* Makes room for n connection slots' counts (a worker's, at start-up). */
void stats_init_slots(struct stats *s, uint32_t n);

/* A response on connection slot (any status, validated or not), at now. */
/* A transport's handshake completed in ns (resumed: a session was). */
static inline void stats_handshake(struct stats *s, int64_t ns, bool resumed)
{
    hist_record(&s->handshake, ns);
    if (resumed)
        s->tls_resumed++;
    else
        s->tls_full++;
}

static inline void stats_slot_done(struct stats *s, uint32_t slot, int64_t now)
{
    s->slots[slot].done++;
    s->slots[slot].last = now;
}
void stats_free(struct stats *s);

/* Completes what the request path deferred (the zero connect times); call
 * once when the worker has stopped, before merging. */
void stats_finish(struct stats *s);

/* Adds src into dst. Both must come from stats_init and stats_finish. src's
 * samples may be moved into dst (src then has none): merge a worker's
 * stats once, when it has ended. */
void stats_merge(struct stats *dst, struct stats *src);

/* Adds n failures with reason (copied) to s's reasons; not errors[], which
 * the request path counts. Returns the reason's count now (a saved
 * result's reader checks it: a file may repeat a reason). */
uint64_t stats_add_reason(struct stats *s, const char *reason, uint64_t n);

/* Counts n failures of kind (tls, protocol) under reason (the failure path
 * only: a new reason allocates); the failures themselves are counted in
 * errors[kind] by the caller. Returns the reason's count now, or the
 * kind's other count when the reason found no room. */
uint64_t stats_kind_reason(struct stats *s, enum stats_error kind, const char *reason, uint64_t n);

/* The reasons sorted by count, highest first (ties by reason). */
void stats_sort_reasons(struct stats *s);

/* Makes room for n samples (start-up, when the budget is known). */
void stats_reserve_samples(struct stats *s, size_t n);

/* Appends a sample; grows geometrically when the reserve is used up. */
void stats_add_sample(struct stats *s, const struct stats_sample *sample);

/* Appends n bytes to s->heads (growing geometrically) and returns their
 * offset. */
size_t stats_add_head(struct stats *s, const char *bytes, size_t n);

/* The figures of name id (names.h) in s, made at its first use here
 * (allocates: the name copied, its histograms; with s->intervals, its
 * interval histogram). Returns them. */
struct stats_name *stats_name_add(struct stats *s, uint32_t id, const char *name);

/* The figures of the name called name, or NULL. */
const struct stats_name *stats_name_find(const struct stats *s, const char *name);

/* Adds n failures with reason (copied) to the reasons of name id. Returns
 * the reason's count now. */
uint64_t stats_name_reason(struct stats *s, uint32_t id, const char *reason, uint64_t n);

/* Adds src's figures of one name (or tag) into dst's. */
void stats_name_merge(struct stats_name *dst, const struct stats_name *src);

/* Frees a name's (or tag's) figures. */
void stats_name_free(struct stats_name *n);

/* Renumbers the table *src (*nsrc entries, of names or tags, at most max)
 * to the ids of dst's entries of the same name (those dst does not have
 * get ids after its own): stats_align_names' work, for either table.
 * Returns 0, or -1 (src unchanged) past max entries together. */
int stats_align_table(struct stats_name ***src, uint32_t *nsrc, struct stats_name *const *dst, uint32_t ndst,
                      uint32_t max);

/* Requests of a name that ended in failure. */
uint64_t stats_name_failed(const struct stats_name *n);

/* What s started and has not ended (requests, each name's, iterations)
 * counted as cut off: the figures of a worker the run stopped waiting for
 * (run.c), whose requests in flight will never end. */
void stats_cut_off_rest(struct stats *s);

/* Renumbers src's request names to dst's ids, by name (names dst does not
 * have get the ids after its own), so that stats_merge, which adds names
 * by id (a run's workers share one registry), adds each of src's names to
 * dst's of the same name: for results of separate processes (volley
 * merge). Returns 0, or -1 (src unchanged) when the two have more than
 * NAMES_MAX names together. */
int stats_align_names(struct stats *src, const struct stats *dst);

/* Whether every histogram of src (the names' by id, so after
 * stats_align_names, and the records' by name) can be added to dst's
 * without its count or sums overflowing (hist_merge_fits): stats_merge
 * asserts that it can, which a run's workers never come near but
 * histograms read from files (volley merge) may claim. */
bool stats_merge_fits(const struct stats *dst, const struct stats *src);

/* Name of an error kind ("connect", "read", ...). */
const char *stats_error_name(enum stats_error e);

/* Counts a response under its status code: what the server answered, also
 * when the request then failed validation. */
static inline void stats_status(struct stats *s, unsigned status)
{
    s->status[status < STATS_STATUS_MAX && status >= 100 ? status : 0]++;
}

/* A response answered at now (completed or failed by validation), of a
 * batch started at start (-R: due at intended; else pass start), whose
 * previous answer (or start) was at *mark: the sums of Little's law. */
static inline void stats_answered(struct stats *s, int64_t now, int64_t start, int64_t intended, int64_t *mark)
{
    s->flight_ns += (uint64_t)(now - start);
    s->queued_ns += (uint64_t)(start - intended);
    s->busy_ns += (uint64_t)(now - *mark);
    *mark = now;
}

/* Counts a completed response, its status and its timings (ns), ended at
 * monotonic time now. Hot path: no allocation (but once a second, when the
 * series hands a second over, and once per --hlog interval). */
static inline void stats_complete(struct stats *s, int64_t now, unsigned status, int64_t latency, int64_t connect,
                                  int64_t waiting)
{
    if (s->series) /* first: a new second begins before this response is counted */
        series_rec_latency(s->series, now, latency, 1);
    s->completed++;
    stats_status(s, status);
    hist_record(&s->latency, latency);
    if (connect)
        hist_record(&s->connect, connect);
    else
        s->reused++; /* most requests on keep-alive: one increment, not a record */
    hist_record(&s->waiting, waiting);
    if (s->intervals)
        intervals_record(s->intervals, now, IV_LATENCY, latency);
}

/* -R: the service time and send lag of a completed request, ended at now;
 * with --hlog, their intervals too. */
static inline void stats_open(struct stats *s, int64_t now, int64_t service, int64_t sendlag)
{
    hist_record(&s->service, service);
    hist_record(&s->sendlag, sendlag);
    if (s->series)
        series_rec_sendlag(s->series, now, sendlag);
    if (s->intervals) {
        intervals_record(s->intervals, now, IV_SERVICE, service);
        intervals_record(s->intervals, now, IV_SENDLAG, sendlag);
    }
}

/* -R: n requests that timed out at now, recorded at their time to failure
 * (from the intended send time): leaving them out would be another
 * omission. sendlag < 0: they were never written, so they have none. */
static inline void stats_timed_out(struct stats *s, int64_t now, int64_t latency, int64_t sendlag, unsigned n)
{
    if (s->series)
        series_rec_latency(s->series, now, latency, n);
    hist_record_n(&s->latency, latency, n);
    if (sendlag >= 0) {
        hist_record_n(&s->sendlag, sendlag, n);
        for (unsigned i = 0; s->series && i < n; i++)
            series_rec_sendlag(s->series, now, sendlag);
    }
    for (unsigned i = 0; s->intervals && i < n; i++) {
        intervals_record(s->intervals, now, IV_LATENCY, latency);
        if (sendlag >= 0)
            intervals_record(s->intervals, now, IV_SENDLAG, sendlag);
    }
}

/* The recorders of named requests. name: a request's name as a connection
 * keeps it, the id + 1, 0 for an unnamed request (then they do nothing, so
 * an unnamed request pays one branch), or above NAMES_MAX a tagged
 * request's label (stats_tags.h: its name, if any, and its tags), which
 * the stats_label_* functions record out of line. The figures exist: the
 * script made them when it handed the id or label out (stats_name_add,
 * stats_tag_add). No allocation (but an --hlog interval's hand-over, as
 * stats_complete). */
static inline struct stats_name *stats_name_of(struct stats *s, uint32_t name)
{
    return s->names[name - 1];
}

/* The per-figures bodies of the recorders, for a name's or a tag's. */
static inline void stats_fig_complete(struct stats_name *n, unsigned status, int64_t latency)
{
    n->completed++;
    n->status[status < STATS_STATUS_MAX && status >= 100 ? status : 0]++;
    hist_record(&n->latency, latency);
}

static inline void stats_fig_rejected(struct stats_name *n, bool status_known, unsigned status, bool too_large)
{
    n->errors[STATS_ERR_VALIDATION]++;
    if (status_known)
        n->status[status < STATS_STATUS_MAX && status >= 100 ? status : 0]++;
    n->too_large += too_large;
}

static inline void stats_fig_fail(struct stats_name *n, enum stats_error why, unsigned k, bool timed_out,
                                  int64_t latency)
{
    n->errors[why] += k;
    if (timed_out)
        hist_record_n(&n->latency, latency, k);
}

/* A tagged request's recorders (stats_tags.c): its name's as below, and
 * each of its tags'. */
void stats_label_started(struct stats *s, uint32_t label, unsigned n);
void stats_label_complete(struct stats *s, uint32_t label, int64_t now, unsigned status, int64_t latency);
void stats_label_open(struct stats *s, uint32_t label, int64_t service);
void stats_label_rejected(struct stats *s, uint32_t label, bool status_known, unsigned status, bool too_large);
void stats_label_fail(struct stats *s, uint32_t label, enum stats_error why, unsigned k, int64_t now, bool timed_out,
                      int64_t latency);
void stats_label_cut_off(struct stats *s, uint32_t label, unsigned k);

/* n requests of name started. */
static inline void stats_name_started(struct stats *s, uint32_t name, unsigned n)
{
    if (name > NAMES_MAX)
        stats_label_started(s, name, n);
    else if (name)
        stats_name_of(s, name)->started += n;
}

/* A request of name completed at now (as stats_complete). */
static inline void stats_name_complete(struct stats *s, uint32_t name, int64_t now, unsigned status, int64_t latency)
{
    if (!name)
        return;
    if (name > NAMES_MAX) {
        stats_label_complete(s, name, now, status, latency);
        return;
    }
    stats_fig_complete(stats_name_of(s, name), status, latency);
    if (s->intervals)
        intervals_record_name(s->intervals, now, name - 1, latency);
}

/* -R: its service time (as stats_open). */
static inline void stats_name_open(struct stats *s, uint32_t name, int64_t service)
{
    if (name > NAMES_MAX)
        stats_label_open(s, name, service);
    else if (name)
        hist_record(&stats_name_of(s, name)->service, service);
}

/* A response of name failed validation; status_known: its status was read
 * (a head larger than --max-body has none); too_large: it outgrew
 * --max-body. */
static inline void stats_name_rejected(struct stats *s, uint32_t name, bool status_known, unsigned status,
                                       bool too_large)
{
    if (name > NAMES_MAX)
        stats_label_rejected(s, name, status_known, status, too_large);
    else if (name)
        stats_fig_rejected(stats_name_of(s, name), status_known, status, too_large);
}

/* k requests of name failed for why, at now; with -R a timeout's latency
 * (as stats_timed_out), which timed_out says. */
static inline void stats_name_fail(struct stats *s, uint32_t name, enum stats_error why, unsigned k, int64_t now,
                                   bool timed_out, int64_t latency)
{
    if (!name || !k)
        return;
    if (name > NAMES_MAX) {
        stats_label_fail(s, name, why, k, now, timed_out, latency);
        return;
    }
    stats_fig_fail(stats_name_of(s, name), why, k, timed_out, latency);
    for (unsigned i = 0; timed_out && s->intervals && i < k; i++)
        intervals_record_name(s->intervals, now, name - 1, latency);
}

/* k requests of name were in flight when the run stopped. */
static inline void stats_name_cut_off(struct stats *s, uint32_t name, unsigned k)
{
    if (name > NAMES_MAX)
        stats_label_cut_off(s, name, k);
    else if (name)
        stats_name_of(s, name)->cut_off += k;
}

#endif
