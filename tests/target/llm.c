/*
 * volley-target, POST /v1/chat/completions and /v1/completions: answers
 * shaped like vLLM's OpenAI server (server-sent events, one write per
 * token, on a schedule set by --llm-* flags or vt_* body fields) and the
 * truth log (--llm-log) of when each event was written. Timers go through
 * conn.c's delay heap (one timerfd); events are generated straight into the
 * connection's output queue, so a stream allocates nothing per chunk.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "vtarget.h"

#define HUGE_SLICE   10240                 /* vt_huge: this many bytes ... */
#define HUGE_EVERY   (10 * 1000000ULL)     /* ... every 10 ms: about 1 MB/s */
#define PING_EVERY   (100 * 1000000ULL)    /* vt_comments_only with no gap */
#define NPEND        4                     /* events in one write: token, f, u, d */
#define PRE_MAX      (LLM_MODEL_MAX + 160)

static unsigned long long nstreams;        /* the N of chatcmpl-N */
static char xs[16384];                     /* padding and vt_huge's endless line */

enum mode { M_TOKENS, M_HUGE, M_PING, M_SILENT, M_PLAIN };

/* One response in progress on a connection (at most one: the connection is
 * busy meanwhile). Allocated with the connection's first /v1 request and
 * reused by the next ones. */
struct llm {
    enum mode mode;
    bool chat, usage, nodone, bad_json;
    enum llm_framing framing;
    bool close_at_end;                     /* Connection: close, or framing "close" */
    unsigned long long n, next;            /* tokens to send; the next one (1-based) */
    unsigned long long error_at, cut_at, stall_at, prompt;
    uint64_t first_ns, gap_ns, stall_ns;
    size_t event_bytes;
    char id[LLM_ID_MAX + 1];               /* the truth log's request id */
    unsigned long long sid;                /* the N of chatcmpl-N / cmpl-N */
    char model[LLM_MODEL_MAX];
    size_t model_len;
    const char *conn_hdr;                  /* "Connection: close\r\n" or "" (or keep-alive) */
    char pre[PRE_MAX];                     /* data: {"id":..,"model":..,"choices": */
    size_t pre_len;
    char usage_tail[160], error_ev[160];
    size_t usage_len, error_len;
    /* Events queued for the next write, logged once it carried bytes: */
    struct { char k; unsigned long long i; size_t bytes; } pend[NPEND];
    unsigned npend;
    const char *end_how;                   /* set: the stream ends with that write */
    bool sched;                            /* ... else the next step is due gap after it */
    uint64_t huge_t;                       /* vt_huge: its first write, and bytes so far */
    unsigned long long huge_bytes;
};

static const char DONE_EV[] = "data: [DONE]\n\n";
static const char BAD_EV[] = "data: {not json\n\n";
static const char PING_EV[] = ": ping\n\n";
static const char ROLE_TAIL[] = "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                                "\"logprobs\":null,\"finish_reason\":null}]}\n\n";
static const char FIN_CHAT[] = "[{\"index\":0,\"delta\":{},\"logprobs\":null,"
                               "\"finish_reason\":\"length\"}]}\n\n";
static const char FIN_COMP[] = "[{\"index\":0,\"text\":\"\",\"logprobs\":null,"
                               "\"finish_reason\":\"length\"}]}\n\n";
static const char MID_CHAT[] = "[{\"index\":0,\"delta\":{\"content\":\"";
static const char MID_COMP[] = "[{\"index\":0,\"text\":\"";
static const char SUF_CHAT[] = "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
static const char SUF_COMP[] = "\",\"logprobs\":null,\"finish_reason\":null}]}\n\n";
#define SLEN(s) (sizeof(s) - 1)

/* ---- building events ---------------------------------------------------- */

static unsigned digits(unsigned long long v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static size_t tok_len(const struct llm *L, unsigned long long k, size_t *pad)
{
    if (L->bad_json) {
        *pad = 0;
        return SLEN(BAD_EV);
    }
    size_t base = L->pre_len + (L->chat ? SLEN(MID_CHAT) + SLEN(SUF_CHAT)
                                        : SLEN(MID_COMP) + SLEN(SUF_COMP)) + 4 + digits(k);
    *pad = L->event_bytes > base ? L->event_bytes - base : 0;
    return base + *pad;
}

static size_t fin_len(const struct llm *L)
{
    return L->pre_len + (L->chat ? SLEN(FIN_CHAT) : SLEN(FIN_COMP));
}

static void pend(struct llm *L, char k, unsigned long long i, size_t bytes)
{
    L->pend[L->npend].k = k;
    L->pend[L->npend].i = i;
    L->pend[L->npend].bytes = bytes;
    L->npend++;
}

static void put_pad(struct conn *c, size_t n)
{
    while (n) {
        size_t k = n < sizeof xs ? n : sizeof xs;
        out_append(c, xs, k);
        n -= k;
    }
}

static void add_token(struct conn *c, struct llm *L, unsigned long long k)
{
    size_t pad, len = tok_len(L, k, &pad);
    if (L->bad_json) {
        out_append(c, BAD_EV, SLEN(BAD_EV));
    } else {
        out_append(c, L->pre, L->pre_len);
        if (L->chat)
            out_append(c, MID_CHAT, SLEN(MID_CHAT));
        else
            out_append(c, MID_COMP, SLEN(MID_COMP));
        out_printf(c, "tok%llu", k);
        put_pad(c, pad);
        out_append(c, " ", 1);
        if (L->chat)
            out_append(c, SUF_CHAT, SLEN(SUF_CHAT));
        else
            out_append(c, SUF_COMP, SLEN(SUF_COMP));
    }
    pend(L, 't', k, len);
}

static void add_pre_tail(struct conn *c, struct llm *L, char k, const char *tail, size_t n)
{
    out_append(c, L->pre, L->pre_len);
    out_append(c, tail, n);
    pend(L, k, 0, L->pre_len + n);
}

/* ---- the schedule ------------------------------------------------------- */

/* The next token's due time, counted from t (the previous write, or the
 * request for the first token). */
static uint64_t token_due(const struct llm *L, uint64_t t, uint64_t wait)
{
    if (L->next == L->stall_at)
        wait += L->stall_ns;
    return llm_stall_all(t + wait);
}

/* The response ends with what was just queued: it counts as answered once
 * written; the stream's end is logged by llm_written. */
static void end_queued(struct conn *c, struct llm *L, const char *how)
{
    if (L->framing == FR_CHUNKED)
        out_append(c, "0\r\n\r\n", 5);
    push_mark(c, true);
    c->closing = L->close_at_end;
    L->end_how = how;
    c->stamp_wanted = true;
}

static void chunk_open(struct conn *c, const struct llm *L, size_t total)
{
    if (L->framing == FR_CHUNKED)
        out_printf(c, "%zx\r\n", total);
}

static void chunk_close(struct conn *c, const struct llm *L)
{
    if (L->framing == FR_CHUNKED)
        out_append(c, "\r\n", 2);
}

/* vt_cut_at: before token K the connection just closes: no more body, no
 * 0 chunk, over TLS no close_notify. Not answered. */
static void cut(struct conn *c, struct llm *L)
{
    c->closing = c->no_notify = true;
    c->streaming = false;
    llm_log_line('z', L->id, NULL, 0, mono_ns(), "cut", 0, false);
}

/* One token's write, with the end of the stream if it is the last; or the
 * error event, or the cut, that replaces token K. */
static void step_tokens(struct conn *c, struct llm *L)
{
    unsigned long long k = L->next;
    if (k <= L->n && k == L->error_at) {
        chunk_open(c, L, L->error_len);
        out_append(c, L->error_ev, L->error_len);
        pend(L, 'x', 0, L->error_len);
        chunk_close(c, L);
        end_queued(c, L, "error");
        return;
    }
    if (k <= L->n && k == L->cut_at) {
        cut(c, L);
        return;
    }
    bool last = k >= L->n;
    size_t pad, total = k <= L->n ? tok_len(L, k, &pad) : 0;
    if (last)
        total += fin_len(L) + (L->usage ? L->pre_len + L->usage_len : 0) +
                 (L->nodone ? 0 : SLEN(DONE_EV));
    chunk_open(c, L, total);
    if (k <= L->n)
        add_token(c, L, k);
    if (last) {
        add_pre_tail(c, L, 'f', L->chat ? FIN_CHAT : FIN_COMP, L->chat ? SLEN(FIN_CHAT) : SLEN(FIN_COMP));
        if (L->usage)
            add_pre_tail(c, L, 'u', L->usage_tail, L->usage_len);
        if (!L->nodone) {
            out_append(c, DONE_EV, SLEN(DONE_EV));
            pend(L, 'd', 0, SLEN(DONE_EV));
        }
    }
    chunk_close(c, L);
    if (last) {
        end_queued(c, L, L->nodone ? "nodone" : "done");
        return;
    }
    L->next++;
    L->sched = true;
    c->stamp_wanted = true;
}

/* The non-streamed answer: one JSON completion with usage, its text the
 * tokens' texts without padding. */
static void step_plain(struct conn *c, struct llm *L)
{
    unsigned long long text = 0;
    for (unsigned long long k = 1; k <= L->n; k++)
        text += 4 + digits(k);
    char a[LLM_MODEL_MAX + 192], b[224];
    int an = snprintf(a, sizeof a, "{\"id\":\"%s-%llu\",\"object\":\"%s\",\"created\":0,"
                      "\"model\":\"%.*s\",\"choices\":[{\"index\":0,%s\"",
                      L->chat ? "chatcmpl" : "cmpl", L->sid,
                      L->chat ? "chat.completion" : "text_completion", (int)L->model_len, L->model,
                      L->chat ? "\"message\":{\"role\":\"assistant\",\"content\":" : "\"text\":");
    int bn = snprintf(b, sizeof b, "\"%s,\"logprobs\":null,\"finish_reason\":\"length\"}],"
                      "\"usage\":{\"prompt_tokens\":%llu,\"total_tokens\":%llu,"
                      "\"completion_tokens\":%llu}}",
                      L->chat ? "}" : "", L->prompt, L->prompt + L->n, L->n);
    out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %llu\r\n%s\r\n",
               (unsigned long long)an + text + (unsigned long long)bn, L->conn_hdr);
    out_append(c, a, (size_t)an);
    for (unsigned long long k = 1; k <= L->n; k++)
        out_printf(c, "tok%llu ", k);
    out_append(c, b, (size_t)bn);
    push_mark(c, true);
    c->closing = L->close_at_end;
    L->end_how = "done";
    c->stamp_wanted = true;
}

/* A step (token, slice, ping) is due and the output queue is empty. */
static void step(struct conn *c)
{
    struct llm *L = c->llm;
    switch (L->mode) {
    case M_TOKENS:
        step_tokens(c, L);
        break;
    case M_PLAIN:
        step_plain(c, L);
        break;
    case M_HUGE: {
        size_t lead = L->huge_bytes ? 0 : 6;
        chunk_open(c, L, HUGE_SLICE + lead);
        out_append(c, "data: ", lead);
        out_append(c, xs, HUGE_SLICE);
        chunk_close(c, L);
        L->huge_bytes += HUGE_SLICE + lead;
        L->sched = true;
        c->stamp_wanted = true;
        break;
    }
    case M_PING:
        chunk_open(c, L, SLEN(PING_EV));
        out_append(c, PING_EV, SLEN(PING_EV));
        chunk_close(c, L);
        L->sched = true;
        c->stamp_wanted = true;
        break;
    case M_SILENT:
        break;
    }
}

/* ---- requests ----------------------------------------------------------- */

/* A JSON error answer (not streamed): a refused body, a wrong method, or
 * vt_status. The message must hold no '"' or '\'. */
static void error_reply(struct conn *c, struct llm *L, unsigned status, const char *msg, bool close)
{
    char body[LLM_ERR_MAX + 128];
    int n = snprintf(body, sizeof body, "{\"error\":{\"message\":\"%s\",\"type\":\"%s\",\"code\":%u}}",
                     msg, status >= 500 ? "server_error" : "invalid_request_error", status);
    out_printf(c, "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n",
               status, status_reason(status), n,
               close ? "Connection: close\r\n" : c->req.http10 ? "Connection: keep-alive\r\n" : "");
    if (!c->req.head)
        out_append(c, body, (size_t)n);
    push_mark(c, true);
    c->closing = close;
    llm_log_line('z', L->id, NULL, 0, mono_ns(), "error", 0, false);
}

/* A request field v (NAN: not given, then def) within [min, max], whole if
 * asked; else an error message naming it in err. */
static double field(double v, double def, double min, double max, bool whole_only,
                    const char *name, char *err, size_t errsize)
{
    if (isnan(v))
        return def;
    if (!(v >= min && v <= max) || (whole_only && v != (double)(long long)v))
        snprintf(err, errsize, "%s must be a%s number from %g to %g", name,
                 whole_only ? " whole" : "", min, max);
    return v;
}

/* The body's length for --llm-framing length: what will be sent, up to the
 * cut if vt_cut_at cuts it (the client then sees a short body). */
static unsigned long long body_length(const struct llm *L)
{
    unsigned long long len = L->chat ? L->pre_len + SLEN(ROLE_TAIL) : 0, k;
    for (k = 1; k <= L->n; k++) {
        if (k == L->error_at)
            return len + L->error_len;
        size_t pad;
        len += tok_len(L, k, &pad);
    }
    return len + fin_len(L) + (L->usage ? L->pre_len + L->usage_len : 0) +
           (L->nodone ? 0 : SLEN(DONE_EV));
}

/* Settle every field of the request (body first, then --llm-* flags) into
 * L. Returns an error message, or NULL; *status is vt_status (0: none). */
static const char *settle(struct llm *L, const struct llm_req *q, char *err, size_t es,
                          unsigned *status, bool *stream)
{
    err[0] = 0;
    L->n = (unsigned long long)field(q->max_tokens, (double)llm_conf.tokens, 0, (double)TOKENS_MAX, true,
                                     "max_tokens", err, es);
    double first = field(q->first_ms, llm_conf.first_ms, 0, MS_MAX, false, "vt_first_ms", err, es);
    double gap = field(q->gap_ms, llm_conf.gap_ms, 0, MS_MAX, false, "vt_gap_ms", err, es);
    double stall = field(q->stall_ms, llm_conf.stall_ms, 0, MS_MAX, false, "vt_stall_ms", err, es);
    L->stall_at = (unsigned long long)field(q->stall_at, (double)llm_conf.stall_at, 0, (double)TOKENS_MAX,
                                            true, "vt_stall_at", err, es);
    L->error_at = (unsigned long long)field(q->error_at, 0, 0, (double)TOKENS_MAX, true,
                                            "vt_error_at", err, es);
    L->cut_at = (unsigned long long)field(q->cut_at, 0, 0, (double)TOKENS_MAX, true, "vt_cut_at", err, es);
    *status = (unsigned)field(q->status, 0, 200, 599, true, "vt_status", err, es);
    L->event_bytes = (size_t)field(q->event_bytes, (double)llm_conf.event_bytes, 0, (double)EVENT_MAX, true,
                                   "vt_event_bytes", err, es);
    L->prompt = (unsigned long long)field(q->prompt_tokens, (double)q->words, 0, 1e15, true,
                                          "vt_prompt_tokens", err, es);
    if (err[0])
        return err;
    L->first_ns = (uint64_t)(first * 1e6);
    L->gap_ns = (uint64_t)(gap * 1e6);
    L->stall_ns = (uint64_t)(stall * 1e6);
    L->usage = llm_conf.usage >= 0 ? llm_conf.usage == 1 : q->include_usage == 1;
    L->nodone = q->nodone == 1;
    L->bad_json = q->bad_json == 1;
    *stream = q->stream == 1;
    L->mode = !*stream ? M_PLAIN
            : q->silent == 1 ? M_SILENT
            : (q->huge >= 0 ? q->huge == 1 : llm_conf.huge) ? M_HUGE
            : q->comments_only == 1 ? M_PING : M_TOKENS;
    L->framing = q->framing != FR_UNSET ? q->framing : llm_conf.framing;
    if (L->framing == FR_LENGTH && L->mode != M_TOKENS)
        L->framing = FR_CHUNKED;           /* an endless body has no length */
    return NULL;
}

/* Fill in the texts every event of the stream shares. */
static void prepare(struct llm *L, const struct llm_req *q)
{
    L->sid = ++nstreams;
    if (q->has_model) {
        memcpy(L->model, q->model, q->model_len);
        L->model_len = q->model_len;
    } else {
        L->model_len = (size_t)snprintf(L->model, sizeof L->model, "volley-target");
    }
    L->pre_len = (size_t)snprintf(L->pre, sizeof L->pre,
        "data: {\"id\":\"%s-%llu\",\"object\":\"%s\",\"created\":0,\"model\":\"%.*s\",\"choices\":",
        L->chat ? "chatcmpl" : "cmpl", L->sid, L->chat ? "chat.completion.chunk" : "text_completion",
        (int)L->model_len, L->model);
    L->usage_len = (size_t)snprintf(L->usage_tail, sizeof L->usage_tail,
        "[],\"usage\":{\"prompt_tokens\":%llu,\"total_tokens\":%llu,\"completion_tokens\":%llu}}\n\n",
        L->prompt, L->prompt + L->n, L->n);
    L->error_len = (size_t)snprintf(L->error_ev, sizeof L->error_ev,
        "data: {\"error\":{\"message\":\"injected error before token %llu (vt_error_at)\","
        "\"type\":\"server_error\",\"code\":500}}\n\n", L->error_at);
    L->next = 1;
    L->npend = 0;
    L->end_how = NULL;
    L->sched = false;
    L->huge_t = 0;
    L->huge_bytes = 0;
}

void llm_start(struct conn *c, uint64_t now, bool close)
{
    if (!c->llm && !(c->llm = calloc(1, sizeof *c->llm)))
        die("out of memory");
    if (!xs[0])
        memset(xs, 'x', sizeof xs);
    struct llm *L = c->llm;
    struct llm_req q = { 0 };
    char err[LLM_ERR_MAX];
    const char *why = NULL;
    unsigned status = 400, injected = 0;
    bool stream = false;
    L->chat = c->req.n == 1;
    stats.llm_requests++;
    if (!c->req.post) {
        status = 405;
        why = "use POST";
    } else if (c->body_over) {
        status = 413;
        why = "the request body is larger than 1 MiB";
    } else if (llm_json_parse(c->body.p ? c->body.p : "", c->body.len, &q) != 0) {
        why = q.err;
    }
    snprintf(L->id, sizeof L->id, "%s", q.user[0] ? q.user : c->req_id[0] ? c->req_id : "-");
    if (llm_truth) {
        char cs[24];
        snprintf(cs, sizeof cs, "%llu", c->seq);
        llm_log_line('q', L->id, cs, 0, now, NULL, 0, false);
    }
    if (!why && (why = settle(L, &q, err, sizeof err, &injected, &stream)) == NULL && injected) {
        status = injected;
        why = "injected status (vt_status)";
    }
    if (why) {
        error_reply(c, L, status, why, close);
        return;
    }
    if (c->req.http10 && L->framing == FR_CHUNKED)
        L->framing = FR_CLOSE;             /* no chunked encoding in HTTP/1.0 */
    L->close_at_end = close || (stream && L->framing == FR_CLOSE);
    L->conn_hdr = L->close_at_end ? "Connection: close\r\n"
                : c->req.http10 ? "Connection: keep-alive\r\n" : "";
    prepare(L, &q);
    c->streaming = true;
    c->closing = false;
    if (L->mode == M_PLAIN) {
        uint64_t busy = L->first_ns + (L->n > 1 ? (L->n - 1) * L->gap_ns : 0) +
                        (L->stall_at && L->stall_at <= L->n ? L->stall_ns : 0);
        delay_response(c, llm_stall_all(now + busy));
        return;
    }
    stats.llm_streams++;
    char len[40] = "Transfer-Encoding: chunked\r\n";
    if (L->framing == FR_LENGTH)
        snprintf(len, sizeof len, "Content-Length: %llu\r\n", body_length(L));
    else if (L->framing == FR_CLOSE)
        len[0] = 0;
    out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                  "%s%s\r\n", len, L->conn_hdr);
    if (L->mode == M_TOKENS && L->chat) {  /* vLLM sends the role at once: not a token */
        chunk_open(c, L, L->pre_len + SLEN(ROLE_TAIL));
        add_pre_tail(c, L, '0', ROLE_TAIL, SLEN(ROLE_TAIL));
        chunk_close(c, L);
        c->stamp_wanted = true;
    }
    if (L->mode == M_TOKENS)
        delay_response(c, token_due(L, now, L->first_ns));
    else if (L->mode != M_SILENT)
        delay_response(c, now + L->first_ns);
}

void llm_due(struct conn *c)
{
    if (c->out_off < c->out_len) {         /* the client is behind: write when it caught up */
        c->drain_wanted = true;
        return;
    }
    step(c);
}

void llm_drained(struct conn *c)
{
    c->drain_wanted = false;
    if (c->streaming)
        step(c);
}

void llm_written(struct conn *c, uint64_t t)
{
    struct llm *L = c->llm;
    c->stamp_wanted = false;
    for (unsigned i = 0; i < L->npend; i++) {
        char k[2] = { L->pend[i].k, 0 };
        if (k[0] == 't')
            stats.llm_events++;
        if (k[0] == 'd')
            stats.llm_done++;
        llm_log_line('e', L->id, k[0] == 't' ? NULL : k, L->pend[i].i, t, NULL, L->pend[i].bytes, true);
    }
    L->npend = 0;
    if (L->mode == M_HUGE && !L->huge_t)
        L->huge_t = t;
    if (L->end_how) {
        llm_log_line('z', L->id, NULL, 0, t, L->end_how, 0, false);
        L->end_how = NULL;
        c->streaming = false;
        return;
    }
    if (!L->sched)
        return;
    L->sched = false;
    uint64_t due = L->mode == M_TOKENS ? token_due(L, t, L->gap_ns)
                 : t + (L->mode == M_HUGE ? HUGE_EVERY : L->gap_ns ? L->gap_ns : PING_EVERY);
    delay_response(c, due);
}

void llm_conn_free(struct conn *c)
{
    struct llm *L = c->llm;
    if (!L)
        return;
    if (c->streaming) {
        if (L->mode == M_HUGE && L->huge_bytes)
            llm_log_line('e', L->id, NULL, 1, L->huge_t, NULL, L->huge_bytes, true);
        llm_log_line('z', L->id, NULL, 0, mono_ns(), llm_exiting ? "shutdown" : "client-gone", 0, false);
        if (!llm_exiting && L->mode != M_PLAIN)
            stats.llm_cut++;
    }
    free(L);
    c->llm = NULL;
}
