/* The figures of streamed responses (stats_stream.h): made, recorded when a
 * stream completes, merged. */
#include "stats_stream.h"

#include <string.h>

/* Every histogram of a struct stats_stream, for init, free and merges. */
#define EACH_HIST(X) X(first) X(first_service) X(gap) X(count) X(duration) X(ttft) X(ttft_service) \
    X(itl) X(tpot) X(e2el) X(e2el_service)

void stats_stream_init(struct stats_stream *s)
{
    memset(s, 0, sizeof *s);
#define INIT(h) hist_init_default(&s->h);
    EACH_HIST(INIT)
#undef INIT
}

void stats_stream_free(struct stats_stream *s)
{
#define FREE(h) hist_free(&s->h);
    EACH_HIST(FREE)
#undef FREE
}

void stats_stream_merge(struct stats_stream *dst, const struct stats_stream *src)
{
    dst->streams += src->streams;
    dst->events += src->events;
    dst->closed += src->closed;
    dst->no_event += src->no_event;
    dst->too_large += src->too_large;
    dst->token_streams += src->token_streams;
    dst->usage_streams += src->usage_streams;
    dst->tokens_out += src->tokens_out;
    dst->tokens_in += src->tokens_in;
    if (src->peak > dst->peak)
        dst->peak = src->peak;
    int rc = 0;
#define MERGE(h) rc |= hist_merge(&dst->h, &src->h);
    EACH_HIST(MERGE)
#undef MERGE
    (void)rc; /* stats_stream_merge_fits was asked first where the counts are not a run's own */
}

bool stats_stream_merge_fits(const struct stats_stream *dst, const struct stats_stream *src)
{
    bool ok = true;
#define FITS(h) ok = ok && hist_merge_fits(&dst->h, &src->h);
    EACH_HIST(FITS)
#undef FITS
    return ok;
}

void stats_stream_end(struct stats_stream *s, const struct stream_end *e)
{
    s->streams++;
    s->closed += e->closed;
    hist_record(&s->count, (int64_t)e->events);
    if (e->events == 0) {
        s->no_event++;
    } else {
        hist_record(&s->first, e->first - e->start);
        if (s->intervals)
            intervals_record(s->intervals, e->end, IV_FIRST_EVENT, e->first - e->start);
        if (e->sent)
            hist_record(&s->first_service, e->first - e->sent);
        hist_record(&s->duration, e->end - e->first);
    }
    if (e->tok_first == 0)
        return;
    s->token_streams++;
    s->usage_streams += e->usage;
    s->tokens_out += e->tokens;
    s->tokens_in += e->prompt_tokens;
    hist_record(&s->ttft, e->tok_first - e->start);
    if (s->series)
        series_rec_ttft(s->series, e->end, e->tok_first - e->start);
    hist_record(&s->e2el, e->end - e->start);
    if (s->intervals) {
        intervals_record(s->intervals, e->end, IV_TTFT, e->tok_first - e->start);
        intervals_record(s->intervals, e->end, IV_E2EL, e->end - e->start);
    }
    if (e->sent) {
        hist_record(&s->ttft_service, e->tok_first - e->sent);
        hist_record(&s->e2el_service, e->end - e->sent);
        if (s->intervals && (s->intervals->tags & IV_BIT(IV_SERVICE_TTFT)))
            intervals_record(s->intervals, e->end, IV_SERVICE_TTFT, e->tok_first - e->sent);
    }
    if (e->tokens > 1)
        hist_record(&s->tpot, (e->tok_last - e->tok_first) / (int64_t)(e->tokens - 1));
}
