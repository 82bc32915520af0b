/* The figures of streamed responses (server-sent events, or a body read
 * line by line when a script asks): events, their timing, and the tokens a
 * script marks on them (an LLM's output), per worker and merged. The
 * recorders run on the request path (no allocation); the connection's
 * side of a stream is src/conn/conn_stream.c. */
#ifndef VOLLEY_STATS_STREAM_H
#define VOLLEY_STATS_STREAM_H

#include "hist.h"
#include "intervals.h"
#include "series.h"

#include <stdbool.h>
#include <stdint.h>

/* Each histogram is in ns unless it says otherwise. "From the start" is
 * from the request's start, or with -R from the time it was due (its
 * `service` twin then counts from the first byte written, as for
 * requests). Figures of one stream (first, count, duration, ttft, tpot,
 * e2el) are recorded when it completes, so they are the completed
 * streams'; gaps as they come, from every stream. */
struct stats_stream {
    uint64_t streams;      /* responses consumed as streams that completed */
    uint64_t events;       /* events received, every stream's (also ones that failed later) */
    uint64_t closed;       /* of streams: ended early by the client (a hook returned "close") */
    uint64_t no_event;     /* of streams: completed without one event */
    uint64_t too_large;    /* streams failed for an event larger than --max-body */
    uint64_t token_streams; /* of streams: with at least one event marked as tokens */
    uint64_t usage_streams; /* of token_streams: the output count came from the server (a hook
                            * set it) instead of the marked events' sum */
    uint64_t tokens_out;   /* output tokens of token_streams */
    uint64_t tokens_in;    /* input (prompt) tokens a hook reported for token_streams */
    uint64_t peak;         /* the most streams open at once (the run's: set after the merge) */
    struct hist first;     /* time to first event, from the start */
    struct hist first_service; /* -R: from the first byte written */
    struct hist gap;       /* between consecutive events of a stream */
    struct hist count;     /* events per completed stream (a count, not ns) */
    struct hist duration;  /* a completed stream: its first event -> its end */
    struct hist ttft;      /* time to the first event marked with tokens, from the start */
    struct hist ttft_service; /* -R: from the first byte written */
    struct hist itl;       /* between consecutive token events of a stream */
    struct hist tpot;      /* a completed stream with 2 tokens or more: (last token event - first)
                            * / (output tokens - 1) */
    struct hist e2el;      /* a completed token stream: from the start to its end */
    struct hist e2el_service; /* -R: from the first byte written */
    struct series_rec *series;   /* the worker's per-second recorder, where ttft and itl go too
                                  * (set by worker.c; not owned, not merged) */
    struct intervals *intervals; /* --hlog: the worker's interval histograms, where first,
                                  * gap, ttft (and -R's ttft_service), itl and e2el are
                                  * recorded too (set by worker.c; not owned, not merged) */
};

void stats_stream_init(struct stats_stream *s);
void stats_stream_free(struct stats_stream *s);

/* Adds src into dst (peak: the larger; the run sets the true one). */
void stats_stream_merge(struct stats_stream *dst, const struct stats_stream *src);

/* Whether every histogram of src can be added to dst's (hist_merge_fits). */
bool stats_stream_merge_fits(const struct stats_stream *dst, const struct stats_stream *src);

/* Whether any stream was seen (the report's stream section is shown). */
static inline bool stats_stream_any(const struct stats_stream *s)
{
    return s->streams || s->events || s->too_large;
}

/* One stream's figures when it completes (conn_stream.c fills it). */
struct stream_end {
    int64_t start;         /* its start (-R: due time) -> each figure's base */
    int64_t sent;          /* -R: the first byte written; 0: not -R */
    int64_t end;           /* when it completed */
    int64_t first, last;   /* its first and last event; 0: none */
    int64_t tok_first, tok_last; /* its first and last token event; 0: none */
    uint64_t events;
    uint64_t tokens;       /* output tokens (the server's count when usage, else the marks') */
    uint64_t prompt_tokens;
    bool usage;            /* tokens came from the server */
    bool closed;           /* ended by the client */
};

/* A stream completed, as e says (with --hlog, into the interval holding
 * e->end too). No allocation (but an --hlog interval's hand-over). */
void stats_stream_end(struct stats_stream *s, const struct stream_end *e);

/* The gap between two events of a stream, the later read at now
 * (monotonic ns); a token event's gap too (itl). With --hlog, into the
 * interval holding now as well. No allocation (but an --hlog interval's
 * hand-over, as stats_complete). */
static inline void stats_stream_gap(struct stats_stream *s, int64_t now, int64_t gap)
{
    hist_record(&s->gap, gap);
    if (s->intervals)
        intervals_record(s->intervals, now, IV_EVENT_GAP, gap);
}

static inline void stats_stream_itl(struct stats_stream *s, int64_t now, int64_t gap)
{
    hist_record(&s->itl, gap);
    if (s->series)
        series_rec_itl(s->series, now, gap);
    if (s->intervals)
        intervals_record(s->intervals, now, IV_ITL, gap);
}

#endif
