/* `volley merge SHARD.json... [SHARD.hlog...]`: the results of a run's
 * shards (--shard, each a --json file, untrusted: they come from other
 * machines) checked to be one run's and merged into the whole run's
 * result (result_merge.c), reported as a run is (text, --json, --html),
 * and the shards' --hlog logs merged into one (hlog_merge.c). One shard
 * is read at a time besides the first, so memory follows the largest
 * file, not their number. Exit statuses in cmd.h. */
#include "cmd_merge.h"

#include "cmd.h"
#include "hdr_codec.h"
#include "hlog_merge.h"
#include "json_in.h"
#include "outfile.h"
#include "report.h"
#include "result_merge.h"
#include "result_run.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char merge_usage[] =
    "Usage: volley merge SHARD.json... [SHARD.hlog...] [--json FILE] [--html FILE] [--hlog FILE] [--partial] [-q]\n"
    "  checks that the results (--json files of a run's --shard processes) are one run's:\n"
    "  the same run id and settings and every shard once; adds their counts, merges their\n"
    "  histograms exactly and prints the report of the whole run; nothing is sent\n"
    "  --json FILE     writes the merged result (\"-\": on stdout, instead of the text)\n"
    "  --html FILE     writes the self-contained HTML report of the merged result\n"
    "  --hlog FILE     merges the shards' interval logs (given among the files) into FILE\n"
    "  --partial       shards missing (a machine failed): merges the others into a result\n"
    "                  that says it is partial and which shards are missing (exit 11)\n"
    "  -q              no text report\n"
    "  exit status: 0 merged, 1 an output not written, or no response (a flow: no\n"
    "  iteration) completed, 2 a bad command line, 3 -R's rate not met, 5 a file\n"
    "  unreadable or not a valid result, 6 a shard of another run, 7 settings differ,\n"
    "  8 a shard twice, 9 a shard missing, 10 shards started further apart than the run\n"
    "  lasted, 11 merged with --partial and shards missing, 99 a threshold failed\n";

struct wants {
    const char *json, *html, *hlog;
    bool quiet;
    bool partial; /* --partial: missing shards are left out, not refused */
    const char **files;
    size_t nfiles;
};

/* A shard's result as read: its text and tree (kept for the first, whose
 * strings the merged result points into) and what it is. */
struct shard_file {
    const char *path;
    char *text;
    size_t len;
    struct json root;
    struct result_run rr;
    bool loaded;
};

static void shard_file_free(struct shard_file *f)
{
    if (f->loaded)
        result_run_free(&f->rr);
    json_in_free(&f->root);
    free(f->text);
    memset(f, 0, sizeof *f);
}

/* Reads path whole, NUL-terminated. Returns 0, or the exit status (said). */
static int read_file(const char *path, char **text, size_t *len)
{
    char err[600];
    if (cmd_read_result(path, text, len, err, sizeof err) < 0)
        return cmd_fail("merge", MERGE_BAD_FILE, "%s", err);
    *text = xrealloc(*text, *len + 1);
    (*text)[*len] = '\0';
    return 0;
}

/* Whether path opens as an interval log does (hlog_merge_is_log of its
 * first two bytes). */
static bool is_log(const char *path)
{
    char head[2];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return hlog_merge_is_log(head, n);
}

/* The configuration of the result's latency histogram against volley's
 * own (every shard records with it): another one is another run's setup,
 * not a damaged file. Returns 0, or MERGE_SETTINGS (said). */
static int check_config(const struct shard_file *f)
{
    const struct json *lat = json_in_get(&f->root, "latency");
    const struct json *hdr = json_in_get(lat, "hdr");
    if (!hdr || hdr->type != JSON_STRING)
        return 0; /* result_run_load says what is missing */
    struct hist h;
    char err[256];
    if (hdr_decode(hdr->s, hdr->len, &h, err, sizeof err) < 0)
        return 0; /* and what does not decode */
    bool same = h.lowest == HIST_LOWEST && h.highest == HIST_HIGHEST && h.digits == HIST_DIGITS;
    int64_t lo = h.lowest, hi = h.highest;
    int digits = h.digits;
    hist_free(&h);
    if (same)
        return 0;
    return cmd_fail("merge", MERGE_SETTINGS,
                    "%s: latency: a histogram of another configuration (lowest %lld, highest %lld, %d digits; "
                    "volley's: %lld, %lld, %d): not a shard of this run",
                    f->path, (long long)lo, (long long)hi, digits, (long long)HIST_LOWEST, (long long)HIST_HIGHEST,
                    HIST_DIGITS);
}

/* Reads, parses and loads one shard's result. Returns 0 or the exit
 * status (said). */
static int load_shard(struct shard_file *f)
{
    char err[600];
    if (json_in_parse(f->text, f->len, &f->root, err, sizeof err) < 0)
        return cmd_fail("merge", MERGE_BAD_FILE, "%s: %s", f->path, err);
    int st = check_config(f);
    if (st)
        return st;
    f->loaded = true;
    if (result_run_load(&f->root, NULL, 0, &f->rr, err, sizeof err) != 0)
        return cmd_fail("merge", MERGE_BAD_FILE, "%s: %s", f->path, err);
    if (!f->rr.r.run_id[0])
        return cmd_fail("merge", MERGE_BAD_FILE, "%s: no run id (\"run\"): a result of a volley before shards",
                        f->path);
    if (f->rr.r.merged)
        return cmd_fail("merge", MERGE_BAD_FILE,
                        "%s: a merged result already (of %u shards): give the shards' own results", f->path,
                        f->rr.r.merged);
    return 0;
}

/* The shards seen so far, by index: the file each came from. */
struct seen {
    const char **by_index;
    uint32_t count;
    const char *first; /* the file that set count and the run id */
};

/* Whether a shard (index of count, of run id) fits the run: the first
 * decides it. Returns 0, or the exit status (said). */
static int check_shard(struct seen *s, const char *path, const char *id, const char *run_id, struct shard sh,
                       const char *what)
{
    if (strcmp(id, run_id) != 0)
        return cmd_fail("merge", MERGE_FOREIGN, "%s: %s of run %s, not of run %s (%s): a shard of another run",
                        path, what, id, run_id, s->first);
    if (sh.count != s->count)
        return cmd_fail("merge", MERGE_SETTINGS, "%s: %s of %u shards, but %s is of %u: the settings differ", path,
                        what, sh.count, s->first, s->count);
    if (s->by_index[sh.index])
        return cmd_fail("merge", MERGE_DUPLICATE, "%s: shard %u of %u again (%s is shard %u too)", path, sh.index,
                        sh.count, s->by_index[sh.index], sh.index);
    s->by_index[sh.index] = path;
    return 0;
}

/* Whether shard i is among gone[0..ngone) (ascending). */
static bool is_gone(uint32_t i, const uint32_t *gone, uint32_t ngone)
{
    while (ngone && *gone < i)
        gone++, ngone--;
    return ngone && *gone == i;
}

/* Every shard once, but those of gone[0..ngone) (the results' missing
 * ones, for the logs of a partial merge), which must then be missing too?
 * Returns 0, or MERGE_MISSING (said, with the first few missing). With
 * hint, the refusal names --partial. */
static int check_complete(const struct seen *s, const char *what, const uint32_t *gone, uint32_t ngone, bool hint)
{
    char list[200] = "";
    size_t len = 0, missing = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        bool away = is_gone(i, gone, ngone);
        if (s->by_index[i] && away)
            return cmd_fail("merge", MERGE_MISSING, "%s: shard %u's, but its result is missing: give the logs of the "
                            "shards merged", s->by_index[i], i);
        if (s->by_index[i] || away)
            continue;
        if (missing++ < 8 && len < sizeof list - 16)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%u", len ? ", " : "", i);
    }
    if (!missing)
        return 0;
    return cmd_fail("merge", MERGE_MISSING, "%s: %zu of %u shards missing (shard %s%s; shards count from 0)%s", what,
                    missing, s->count, list, missing > 8 ? ", ..." : "",
                    hint ? ": --partial merges the others" : "");
}

/* The shards no file was given of (--partial), ascending: *n of them in a
 * new array (NULL when none). */
static uint32_t *missing_of(const struct seen *s, uint32_t *n)
{
    uint32_t *out = NULL;
    *n = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        if (s->by_index[i])
            continue;
        out = xrealloc(out, (*n + 1) * sizeof *out);
        out[(*n)++] = i;
    }
    return out;
}

static void seen_init(struct seen *s, uint32_t count, const char *first)
{
    s->count = count;
    s->first = first;
    s->by_index = xcalloc(count, sizeof *s->by_index);
}

/* When the shards started: the earliest and the latest start and their
 * files, and the run's length (the longest shard's, result_merge_length). */
struct starts {
    double first, last, length;
    const char *first_path, *last_path;
};

static void starts_add(struct starts *s, const char *path, double start, double length)
{
    if (!s->first_path || start < s->first) /* NaN: never in range, said below */
        s->first = start, s->first_path = path;
    if (!s->last_path || start > s->last || isnan(start))
        s->last = start, s->last_path = path;
    if (length > s->length)
        s->length = length;
}

/* Shards of one run start together (--start-at: at the same instant; else
 * as they were launched): starts further apart than the run lasted are
 * not one run's, and a merge would fill every second between them.
 * Returns 0, or MERGE_APART (said, naming both files). */
static int check_apart(const struct starts *s)
{
    if (s->last - s->first <= s->length)
        return 0;
    return cmd_fail("merge", MERGE_APART,
                    "%s and %s: started %.3f s apart (%.6f and %.6f), more than the %.0f s the run lasted (its "
                    "longest shard): not shards of one run (shards start together: give them one --start-at)",
                    s->first_path, s->last_path, s->last - s->first, s->first, s->last, s->length);
}

/* Reads, loads and checks the shard f (not the first) against the run:
 * its id, shard and settings. Returns 0 or the exit status (said). */
static int take_shard(struct shard_file *f, struct seen *seen, const struct shard_file *base)
{
    int st;
    char what[300];
    if (!(st = read_file(f->path, &f->text, &f->len)) && !(st = load_shard(f)) &&
        !(st = check_shard(seen, f->path, f->rr.r.run_id, base->rr.r.run_id, f->rr.o.shard, "a shard")) &&
        result_merge_same_settings(&base->root, &f->root, what, sizeof what) < 0)
        st = cmd_fail("merge", MERGE_SETTINGS, "%s and %s: the settings differ: %s", base->path, f->path, what);
    return st;
}

/* The result files: every one read and checked first, one at a time
 * besides the first (the base), with the set's checks (every shard unless
 * partial, the starts) after them: the refusals come before any merging.
 * Then each is read again and added into the base. On success *base holds
 * the merged result (partial: with the shards missing) and *starts when
 * the shards started. */
static int merge_results(const char **json_files, size_t n, bool partial, struct shard_file *base,
                         struct starts *starts)
{
    int st;
    base->path = json_files[0];
    if ((st = read_file(base->path, &base->text, &base->len)) || (st = load_shard(base)))
        return st;
    struct seen seen;
    seen_init(&seen, base->rr.o.shard.count, base->path);
    starts_add(starts, base->path, base->rr.r.start_epoch, result_merge_length(&base->rr));
    st = check_shard(&seen, base->path, base->rr.r.run_id, base->rr.r.run_id, base->rr.o.shard, "shard");
    for (size_t i = 1; i < n && !st; i++) {
        struct shard_file f = {.path = json_files[i]};
        if (!(st = take_shard(&f, &seen, base)))
            starts_add(starts, f.path, f.rr.r.start_epoch, result_merge_length(&f.rr));
        shard_file_free(&f);
    }
    uint32_t *missing = NULL, nmissing = 0;
    if (!st && partial)
        missing = missing_of(&seen, &nmissing);
    else if (!st)
        st = check_complete(&seen, "results", NULL, 0, true);
    if (!st)
        st = check_apart(starts);
    struct result_merge m;
    result_merge_start(&m, &base->rr, starts->length);
    /* The second reading checks again (a file may have changed since). */
    memset(seen.by_index, 0, seen.count * sizeof *seen.by_index);
    seen.by_index[base->rr.o.shard.index] = base->path;
    for (size_t i = 1; i < n && !st; i++) {
        struct shard_file f = {.path = json_files[i]};
        char err[600];
        if (!(st = take_shard(&f, &seen, base)) && result_merge_add(&m, &f.rr, err, sizeof err) < 0)
            st = cmd_fail("merge", MERGE_BAD_FILE, "%s: %s", f.path, err);
        shard_file_free(&f);
    }
    free(seen.by_index);
    result_merge_finish(&m);
    if (nmissing && !st)
        result_merge_partial(&m, missing, nmissing);
    else
        free(missing);
    return st;
}

/* The interval logs: checked against the run (of a partial merge: the
 * logs of the shards merged), merged into w->hlog. */
static int merge_logs(const struct wants *w, const char **files, size_t n, const struct run_result *r,
                      uint32_t shards, struct starts starts)
{
    const char *run_id = r->run_id;
    struct hlog_in *logs = xcalloc(n, sizeof *logs);
    char **texts = xcalloc(n, sizeof *texts);
    struct seen seen;
    seen_init(&seen, shards, "the results");
    int st = 0;
    for (size_t i = 0; i < n && !st; i++) {
        size_t len;
        char err[600];
        if ((st = read_file(files[i], &texts[i], &len)))
            break;
        if (hlog_merge_read(&logs[i], files[i], texts[i], len, err, sizeof err) < 0)
            st = cmd_fail("merge", MERGE_BAD_FILE, "%s", err);
        else
            st = check_shard(&seen, files[i], logs[i].run_id, run_id, logs[i].shard, "an interval log");
        if (!st) /* a log starts with its shard: the same rule, over results and logs */
            starts_add(&starts, files[i], logs[i].start, 0);
    }
    if (!st)
        st = check_complete(&seen, "interval logs", r->missing, r->nmissing, false);
    if (!st)
        st = check_apart(&starts);
    if (!st) {
        char err[600];
        struct outfile of;
        FILE *f = outfile_open(&of, "--hlog", w->hlog, err, sizeof err);
        if (!f) {
            st = cmd_fail("merge", 1, "%s", err);
        } else {
            int rc = hlog_merge_write(f, logs, n, err, sizeof err);
            if (rc < 0) {
                outfile_abandon(&of);
                st = cmd_fail("merge", rc == HLOG_MERGE_SETTINGS ? MERGE_SETTINGS : MERGE_BAD_FILE, "%s", err);
            } else if (outfile_commit(&of, err, sizeof err) < 0) {
                st = cmd_fail("merge", 1, "%s", err);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        hlog_merge_free(&logs[i]);
        free(texts[i]);
    }
    free(logs);
    free(texts);
    free(seen.by_index);
    return st;
}

/* Writes the merged result with report_json to path (whole or not at
 * all); as HTML when html. Returns 0 or 1 (said). */
static int write_out(const struct result_run *rr, const char *opt, const char *path, bool html)
{
    char err[600];
    struct outfile of;
    FILE *f = outfile_open(&of, opt, path, err, sizeof err);
    int st = 0;
    char why[400];
    if (!f) {
        st = cmd_fail("merge", 1, "%s", err);
    } else if (html && report_html(f, &rr->o, &rr->t, &rr->r, why, sizeof why) < 0) {
        outfile_abandon(&of);
        st = cmd_fail("merge", 1, "%s: %s", opt, why);
    } else {
        if (!html)
            report_json(f, &rr->o, &rr->t, &rr->r);
        if (outfile_commit(&of, err, sizeof err) < 0)
            st = cmd_fail("merge", 1, "%s", err);
    }
    return st;
}

static int merge(const struct wants *w)
{
    char err[600];
    if ((w->html && outfile_check("--html", w->html, false, err, sizeof err) < 0) ||
        (w->json && outfile_check("--json", w->json, true, err, sizeof err) < 0) ||
        (w->hlog && outfile_check("--hlog", w->hlog, false, err, sizeof err) < 0))
        return cmd_fail("merge", 2, "%s", err);
    /* Results and logs apart, by their first bytes; a file that cannot be
     * read goes with the results, whose reading says why. */
    const char **results = xcalloc(w->nfiles, sizeof *results), **logs = xcalloc(w->nfiles, sizeof *logs);
    size_t nres = 0, nlogs = 0;
    int st = 0;
    for (size_t i = 0; i < w->nfiles; i++) {
        if (is_log(w->files[i]))
            logs[nlogs++] = w->files[i];
        else
            results[nres++] = w->files[i];
    }
    if (!st && nres == 0)
        st = cmd_fail("merge", 2, "no result (.json) among the files: the report is made from the shards' --json results");
    if (!st && nlogs && !w->hlog)
        st = cmd_fail("merge", 2, "%s is an interval log: give --hlog FILE to write the logs' merge to", logs[0]);
    if (!st && w->hlog && !nlogs)
        st = cmd_fail("merge", 2, "--hlog %s: no interval log among the files (the shards' --hlog files)", w->hlog);
    struct shard_file base = {0};
    struct starts starts = {0};
    if (!st)
        st = merge_results(results, nres, w->partial, &base, &starts);
    if (!st && nlogs)
        st = merge_logs(w, logs, nlogs, &base.rr.r, base.rr.o.shard.count, starts);
    if (!st) {
        /* As a run reports: the text, the files, the rate, the thresholds,
         * and last why it stopped or that nothing completed. */
        const struct result_run *rr = &base.rr;
        if (!w->quiet && !(w->json && strcmp(w->json, "-") == 0)) {
            report_header(stdout, &rr->o, &rr->t, &rr->r);
            report_text(stdout, &rr->o, &rr->t, &rr->r);
        }
        fflush(stdout);
        if (w->json && write_out(rr, "--json", w->json, false))
            st = 1;
        if (w->html && write_out(rr, "--html", w->html, true))
            st = 1;
        if (report_rate_missed(stderr, &rr->o, &rr->r) && st == 0)
            st = 3;
        if (report_thresholds_failed(stderr, &rr->o, &rr->r) && st == 0)
            st = 99;
        /* a part of the run: the rate and thresholds were judged on it */
        if (report_partial(stderr, &rr->r) && st != 1)
            st = MERGE_PARTIAL;
        if (report_stop_reason(stderr, &rr->t, &rr->r) || report_none_completed(stderr, &rr->r))
            st = 1;
    }
    shard_file_free(&base);
    free(results);
    free(logs);
    return st;
}

int cmd_merge(int argc, char **argv)
{
    struct wants w = {.files = xcalloc((size_t)argc, sizeof *w.files)};
    int status = 0;
    for (int i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i];
        const char **value = cmd_is_option(a, "--html")   ? &w.html
                             : cmd_is_option(a, "--json") ? &w.json
                             : cmd_is_option(a, "--hlog") ? &w.hlog
                                                          : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(merge_usage, stdout);
            free(w.files);
            return 0;
        }
        if (value) {
            status = cmd_option_value("merge", argc, argv, &i, value);
            if (status == 0 && !**value)
                status = cmd_fail("merge", 2, "%.6s: \"\" is not a file name", a);
        } else if (strcmp(a, "-q") == 0) {
            w.quiet = true;
        } else if (strcmp(a, "--partial") == 0) {
            w.partial = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cmd_fail("merge", 2,
                              "%s: unknown option (volley merge takes --json FILE, --html FILE, --hlog FILE, --partial and -q)", a);
        } else {
            w.files[w.nfiles++] = a;
        }
    }
    if (status == 0 && w.nfiles == 0)
        status = cmd_fail("merge", 2, "no files (usage: volley merge SHARD.json... [SHARD.hlog...] [--json FILE] "
                                      "[--html FILE] [--hlog FILE] [--partial] [-q])");
    if (status == 0 && w.html && strcmp(w.html, "-") == 0)
        status = cmd_fail("merge", 2, "--html: \"-\" is not a file name");
    if (status == 0 && w.hlog && strcmp(w.hlog, "-") == 0)
        status = cmd_fail("merge", 2, "--hlog: \"-\" is not a file name (the merged log is written whole)");
    if (status == 0)
        status = merge(&w);
    free(w.files);
    return status;
}
