/* Interval logs of a run's shards merged into one; see hlog_merge.h. */
#include "hlog_merge.h"

#include "hdr_codec.h"
#include "hist.h"
#include "hlog.h"
#include "quote.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TAG_MAX 200   /* the longest tag kept (volley's are name:NAME, NAME at most 200 bytes escaped) */
#define LINE_MAX_BYTES (64u << 20) /* one interval's line: its blob is bounded by hdr_decode anyway */

struct hlog_entry {
    double start;       /* absolute, epoch seconds */
    double length;
    const char *tag;    /* into the text, tag_len bytes; NULL: untagged */
    size_t tag_len;
    const char *blob;   /* into the text */
    size_t blob_len;
    size_t line;        /* 1-based, for messages */
    const struct hlog_in *log;
    long slot;          /* set by hlog_merge_write */
    long tag_rank;
};

bool hlog_merge_is_log(const char *text, size_t len)
{
    /* volley's logs, as HdrHistogram's, open with a "#[" comment line;
     * anything else is taken for a result, whose reader says what it is. */
    return len >= 2 && text[0] == '#' && text[1] == '[';
}

static int fail_at(char *err, size_t errlen, const char *path, size_t line, const char *why)
{
    char q[256];
    snprintf(err, errlen, "%s: line %zu: %s", quote_printable(q, sizeof q, path), line, why);
    return -1;
}

/* A decimal number of the log (digits, one point), the whole of s[0..n). */
static bool number(const char *s, size_t n, double *out)
{
    if (n == 0 || n > 40 || strspn(s, "0123456789.") < n)
        return false;
    char buf[48];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return *end == '\0' && errno == 0 && isfinite(*out);
}

/* volley's comment line: "... run=ID shard=I/N". */
static void comment_line(struct hlog_in *in, const char *c, size_t n)
{
    if (n < 7 || memcmp(c, "volley ", 7) != 0 || n >= sizeof in->comment)
        return;
    memcpy(in->comment, c, n);
    in->comment[n] = '\0';
    const char *run = strstr(in->comment, " run="), *sh = strstr(in->comment, " shard=");
    if (run) {
        size_t k = strcspn(run + 5, " ");
        if (k <= SHARD_ID_MAX) {
            memcpy(in->run_id, run + 5, k);
            in->run_id[k] = '\0';
        }
    }
    char e[64];
    if (sh) {
        char spec[32];
        size_t k = strcspn(sh + 7, " ");
        if (k < sizeof spec) {
            memcpy(spec, sh + 7, k);
            spec[k] = '\0';
            if (shard_parse(spec, &in->shard, e, sizeof e) < 0)
                in->shard.count = 0;
        }
    }
}

/* One interval line: [Tag=T,]start,length,max,blob. */
static int interval_line(struct hlog_in *in, const char *s, size_t n, size_t line, double base, size_t *cap,
                         char *err, size_t errlen)
{
    struct hlog_entry e = {.line = line, .log = in};
    if (n > 4 && memcmp(s, "Tag=", 4) == 0) {
        const char *comma = memchr(s, ',', n);
        if (!comma || comma - s - 4 > TAG_MAX || comma == s + 4)
            return fail_at(err, errlen, in->path, line, "a Tag= without a tag and a comma after it");
        e.tag = s + 4;
        e.tag_len = (size_t)(comma - s - 4);
        n -= (size_t)(comma + 1 - s);
        s = comma + 1;
    }
    const char *f[4];
    size_t len[4], k = 0;
    const char *p = s, *end = s + n;
    while (k < 3) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if (!c)
            break;
        f[k] = p, len[k] = (size_t)(c - p), k++;
        p = c + 1;
    }
    if (k < 3)
        return fail_at(err, errlen, in->path, line, "not an interval (start,length,max,histogram)");
    f[3] = p, len[3] = (size_t)(end - p);
    double start, length, max;
    if (!number(f[0], len[0], &start) || !number(f[1], len[1], &length) || !number(f[2], len[2], &max) ||
        start > 1e9 || length > 1e9)
        return fail_at(err, errlen, in->path, line, "an interval's start, length or max is not a number of seconds");
    if (len[3] < 5 || memcmp(f[3], "HISTF", 5) != 0 || f[3][strspn(f[3], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")] > ' ')
        return fail_at(err, errlen, in->path, line, "an interval's histogram is not a V2 compressed blob (HISTF...)");
    e.start = base + start;
    e.length = length;
    e.blob = f[3];
    e.blob_len = len[3];
    if (in->n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        in->e = xrealloc(in->e, *cap * sizeof *in->e);
    }
    in->e[in->n++] = e;
    return 0;
}

int hlog_merge_read(struct hlog_in *in, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    *in = (struct hlog_in){.path = path};
    double start = NAN, basetime = NAN;
    size_t cap = 0, line = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        if (n > LINE_MAX_BYTES)
            return fail_at(err, errlen, path, line, "a line longer than 64 MB");
        size_t m = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
        if (m >= 2 && p[0] == '#' && p[1] == '[') {
            const char *c = p + 2;
            size_t cn = m >= 3 && p[m - 1] == ']' ? m - 3 : m - 2;
            double v;
            if (cn > 11 && memcmp(c, "StartTime: ", 11) == 0) {
                size_t k = strcspn(c + 11, " ,]");
                if (!number(c + 11, k, &v))
                    return fail_at(err, errlen, path, line, "StartTime is not a number of seconds since the epoch");
                start = v;
            } else if (cn > 10 && memcmp(c, "BaseTime: ", 10) == 0) {
                size_t k = strcspn(c + 10, " ,]");
                if (!number(c + 10, k, &v))
                    return fail_at(err, errlen, path, line, "BaseTime is not a number of seconds since the epoch");
                basetime = v;
            } else {
                comment_line(in, c, cn);
            }
        } else if (m > 0 && p[0] != '#' && p[0] != '"') {
            /* BaseTime (or StartTime) comes before the intervals */
            double base = !isnan(basetime) ? basetime : start;
            if (isnan(base))
                return fail_at(err, errlen, path, line, "an interval before the header's StartTime");
            if (interval_line(in, p, m, line, base, &cap, err, errlen) < 0)
                return -1;
        }
        p += n + (nl ? 1 : 0);
    }
    if (isnan(start))
        return fail_at(err, errlen, path, line, "no StartTime: not an HdrHistogram interval log");
    if (!in->run_id[0] || in->shard.count == 0) {
        char q[256];
        snprintf(err, errlen, "%s: not a volley shard's interval log (its header has no run=ID shard=I/N)",
                 quote_printable(q, sizeof q, path));
        return -1;
    }
    in->start = !isnan(basetime) ? basetime : start;
    return 0;
}

static int by_time(const void *x, const void *y)
{
    const struct hlog_entry *a = *(const struct hlog_entry *const *)x, *b = *(const struct hlog_entry *const *)y;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->tag_rank != b->tag_rank)
        return a->tag_rank < b->tag_rank ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Each distinct tag's rank: 0 for untagged, then in order of first
 * appearance (log by log). */
static void rank_tags(struct hlog_entry **all, size_t n)
{
    long next = 1;
    for (size_t i = 0; i < n; i++) {
        struct hlog_entry *e = all[i];
        e->tag_rank = -1;
        if (!e->tag) {
            e->tag_rank = 0;
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (all[j]->tag && all[j]->tag_len == e->tag_len && memcmp(all[j]->tag, e->tag, e->tag_len) == 0) {
                e->tag_rank = all[j]->tag_rank;
                break;
            }
        if (e->tag_rank < 0)
            e->tag_rank = next++;
    }
}

/* Merges the group all[i..j) (one slot, one tag) into one line. */
static int write_group(FILE *f, struct hlog_entry **all, size_t i, size_t j, double base, char *err, size_t errlen)
{
    struct hist acc = {0};
    bool have = false;
    double from = all[i]->start, to = 0;
    for (size_t k = i; k < j; k++) {
        struct hlog_entry *e = all[k];
        struct hist h;
        char why[200];
        if (hdr_decode(e->blob, e->blob_len, &h, why, sizeof why) < 0) {
            if (have)
                hist_free(&acc);
            return fail_at(err, errlen, e->log->path, e->line, why), HLOG_MERGE_FILE;
        }
        if (!have) {
            acc = h;
            have = true;
        } else {
            int rc = hist_merge(&acc, &h);
            hist_free(&h);
            if (rc < 0) {
                hist_free(&acc);
                fail_at(err, errlen, e->log->path, e->line, "a histogram of another configuration than the other shards'");
                return HLOG_MERGE_SETTINGS;
            }
        }
        if (e->start < from)
            from = e->start;
        if (e->start + e->length > to)
            to = e->start + e->length;
    }
    char tag[TAG_MAX + 1] = "";
    if (all[i]->tag) {
        memcpy(tag, all[i]->tag, all[i]->tag_len);
        tag[all[i]->tag_len] = '\0';
    }
    int rc = hlog_interval(f, tag[0] ? tag : NULL, from - base, to - from, &acc, 1e6);
    hist_free(&acc);
    if (rc < 0) {
        snprintf(err, errlen, "write error");
        return HLOG_MERGE_FILE;
    }
    return 0;
}

int hlog_merge_write(FILE *f, struct hlog_in *logs, size_t n, char *err, size_t errlen)
{
    size_t total = 0;
    double base = logs[0].start, length = 0;
    for (size_t i = 0; i < n; i++) {
        total += logs[i].n;
        if (logs[i].start < base)
            base = logs[i].start;
    }
    struct hlog_entry **all = xcalloc(total ? total : 1, sizeof *all);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < logs[i].n; j++)
            all[k++] = &logs[i].e[j];
    /* The grid: the longest interval, a whole --hlog-interval (every
     * shard's are that long but the last, cut by the run's end; when every
     * shard ran less than one interval, the longest of those). */
    for (size_t i = 0; i < total; i++)
        if (all[i]->length > length)
            length = all[i]->length;
    if (length < 0.001) /* runs shorter than the log's millisecond: one slot a millisecond */
        length = 0.001;
    int rc = 0;
    for (size_t i = 0; i < total && rc == 0; i++) {
        struct hlog_entry *e = all[i];
        /* Only the intervals of a log's last slot may be shorter (the
         * run's end). */
        double last_start = e->log->e[e->log->n - 1].start;
        bool last = e->start >= last_start - length / 2;
        if (fabs(e->length - length) > 0.0015 && !(last && e->length < length)) {
            fail_at(err, errlen, e->log->path, e->line,
                    "an interval of another length than the other shards' (the shards' --hlog-interval differ)");
            rc = HLOG_MERGE_SETTINGS;
        }
        e->slot = lround((e->start - base) / length);
    }
    rank_tags(all, total);
    qsort(all, total, sizeof *all, by_time);
    char comment[600];
    const char *c = logs[0].comment;
    const char *sh = strstr(c, " shard=");
    snprintf(comment, sizeof comment, "%.*s merged=%zu", sh ? (int)(sh - c) : (int)strlen(c), c, n);
    if (rc == 0 && hlog_header(f, base, comment) < 0) {
        snprintf(err, errlen, "write error");
        rc = HLOG_MERGE_FILE;
    }
    for (size_t i = 0; i < total && rc == 0;) {
        size_t j = i + 1;
        while (j < total && all[j]->slot == all[i]->slot && all[j]->tag_rank == all[i]->tag_rank)
            j++;
        rc = write_group(f, all, i, j, base, err, errlen);
        i = j;
    }
    free(all);
    return rc;
}

void hlog_merge_free(struct hlog_in *in)
{
    free(in->e);
    in->e = NULL;
    in->n = 0;
}
