/* The C functions Lua calls through the FFI (lua/volley/api.lua declares
 * the same struct): plain functions on pointers and scalars that return
 * values or codes and never raise Lua errors; the Lua side checks arguments
 * first. The order of the members is the ABI between the two files. */
#include "script_internal.h"

#include "clock.h"
#include "data.h"
#include "hist.h"
#include "html_doc.h"
#include "json_find.h"
#include "http.h"
#include "metrics.h"
#include "nearest.h"
#include "names.h"
#include "stats.h"

#include <limits.h>
#include <stdlib.h>

struct volley_api {
    int64_t (*now_ns)(void);
    int (*metric_id)(struct metrics *ms, const char *name, int kind);
    void (*metric_add)(struct metrics *ms, int id, double n);
    void (*metric_record)(struct metrics *ms, int id, double value);
    const char *(*res_head)(struct script_res *r, size_t *len);
    const char *(*res_body)(struct script_res *r, size_t *len);
    int64_t (*hist_count)(const struct hist *h);
    int64_t (*hist_min)(const struct hist *h);
    int64_t (*hist_max)(const struct hist *h);
    double (*hist_mean)(const struct hist *h);
    double (*hist_stdev)(const struct hist *h);
    int64_t (*hist_percentile)(const struct hist *h, double p);
    int32_t (*hist_values)(const struct hist *h, int64_t *values, int64_t *counts, int32_t n);
    void (*sort_doubles)(double *a, size_t n);
    double (*select_double)(double *a, size_t n, size_t k);
    int64_t (*hist_clamped)(const struct hist *h);
    char *(*nearest_in_list)(const char *word, const char *list, char *buf, size_t len);
    int (*name_id)(struct script_names *sn, const char *name, size_t len);
    int (*flow_check_id)(struct script_flow_names *fn, const char *name, size_t len);
    void (*flow_check)(struct stats_flow *f, int id, int pass);
    int (*flow_group_id)(struct script_flow_names *fn, const char *name, size_t len);
    void (*flow_group)(struct stats_flow *f, int id, int64_t ns, int failed);
    /* Data files (lua/volley/data.lua). */
    struct data *(*data_open)(const char *path, enum data_kind kind, int sep, char *err, size_t errlen);
    uint32_t (*data_rows)(const struct data *d);
    uint32_t (*data_fields)(const struct data *d);
    const char *(*data_field_name)(const struct data *d, uint32_t i, size_t *len);
    const char *(*data_cell)(const struct data *d, uint32_t row, uint32_t col, size_t *len);
    uint32_t (*data_iteration_row)(struct data *d, uint32_t shard, uint32_t shards);
    /* JSON checked and searched in place (json_find.h): a streamed chunk per token. */
    int (*json_valid)(const char *text, size_t len, size_t *at);
    int (*json_find)(const char *text, size_t len, const char *path, size_t path_len, size_t *off, size_t *vlen);
    int (*json_scan)(const char *text, size_t len, const char *paths, size_t paths_len, int *types, size_t *spans,
                     size_t *at);
    /* HTML pages (lua/volley/html.lua, html_doc.h): parsed only when a script asks. */
    struct html_doc *(*html_parse)(const char *s, size_t len);
    void (*html_free)(struct html_doc *d);
    int (*html_find)(struct html_doc *d, const char *sel, size_t len, struct html_node *const **nodes, char *err,
                     size_t errlen);
    const char *(*html_attr)(const struct html_node *n, const char *name, size_t *len);
    const char *(*html_text)(struct html_doc *d, const struct html_node *n, size_t *len);
};

static int metric_id(struct metrics *ms, const char *name, int kind)
{
    return metrics_id(ms, name, kind == METRIC_RECORD ? METRIC_RECORD : METRIC_COUNTER);
}

/* The id of a request name (the Lua side checked it: non-empty, no NUL),
 * interned in the run's names and given figures in the worker's stats at
 * its first use here; -1 when the run has NAMES_MAX names already. */
static int name_id(struct script_names *sn, const char *name, size_t len)
{
    int id = names_intern(sn->names, name, len);
    if (id >= 0)
        stats_name_add(sn->stats, (uint32_t)id, sn->names->name[id]);
    return id;
}

/* A flow's check and group names, as name_id's: interned in the run's
 * registry of each kind and made in the worker's figures at their first
 * use here; -1 past NAMES_MAX. */
static int flow_check_id(struct script_flow_names *fn, const char *name, size_t len)
{
    int id = names_intern(fn->checks, name, len);
    if (id >= 0)
        stats_flow_check_add(fn->flow, (uint32_t)id, fn->checks->name[id]);
    return id;
}

static int flow_group_id(struct script_flow_names *fn, const char *name, size_t len)
{
    int id = names_intern(fn->groups, name, len);
    if (id >= 0)
        stats_flow_group_add(fn->flow, (uint32_t)id, fn->groups->name[id]);
    return id;
}

static void flow_check(struct stats_flow *f, int id, int pass)
{
    stats_flow_check(f, (uint32_t)id, pass != 0);
}

static void flow_group(struct stats_flow *f, int id, int64_t ns, int failed)
{
    stats_flow_group(f, (uint32_t)id, ns, failed != 0);
}

/* The final head of the response (after any 1xx), found once. */
const char *script_res_head(struct script_res *r, size_t *len)
{
    if (r->head_len == 0)
        r->head_len = http_final_head_end(r->raw, r->raw_len);
    *len = r->head_len;
    return r->raw;
}

/* The body, decoded in place once if it came chunked (which also finds
 * its trailers); the trailers are not part of it. */
const char *script_res_body(struct script_res *r, size_t *len)
{
    size_t head;
    script_res_head(r, &head);
    if (!r->body_ready) {
        if (r->chunked) {
            size_t tr;
            r->body_len = http_dechunk(r->raw + head, r->raw_len - head, &tr);
            r->trailers_at = head + tr;
        } else {
            r->body_len = (r->trailers_at ? r->trailers_at : r->raw_len) - head;
        }
        r->body_ready = 1;
    }
    *len = r->body_len;
    return r->raw + head;
}

const char *script_res_trailers(struct script_res *r, size_t *len)
{
    size_t body;
    script_res_body(r, &body); /* a chunked body's trailers are found as it is decoded */
    *len = r->trailers_at ? r->raw_len - r->trailers_at : 0;
    return r->raw + (r->trailers_at ? r->trailers_at : r->raw_len);
}

static int64_t hist_count(const struct hist *h)
{
    return h->count;
}

static int64_t hist_min(const struct hist *h)
{
    return h->count ? h->min : 0;
}

static int64_t hist_max(const struct hist *h)
{
    return h->count ? h->max : 0;
}

static int64_t hist_clamped(const struct hist *h)
{
    return h->clamped;
}

/* The distinct values (the lowest of each non-empty bucket) and their
 * counts, at most n of them; returns how many there are in all. */
static int32_t hist_values(const struct hist *h, int64_t *values, int64_t *counts, int32_t n)
{
    struct hist_iter it;
    int32_t i = 0;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it)) {
        if (i < n) {
            values[i] = it.value;
            counts[i] = it.count;
        }
        i++;
    }
    return i;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts a in place, ascending: table.sort compares through Lua for every
 * pair, which is slow for the 10^5..10^6 samples of a long ab run. */
static void sort_doubles(double *a, size_t n)
{
    qsort(a, n, sizeof *a, cmp_double);
}

/* The k-th smallest of a[0..n-1] (0-based), in O(n) on average
 * (quickselect); a is reordered so that a[k] holds it, with nothing smaller
 * after it and nothing larger before it. For a median, sorting everything
 * is wasted work. */
static double select_double(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return a[k];
}

/* The elements of d that match the selector sel (len bytes): their count,
 * as html_doc_find's; -1 with one line in err when sel does not parse.
 * The count is at most INT_MAX: a page is at most a few GB. */
static int html_find(struct html_doc *d, const char *sel, size_t len, struct html_node *const **nodes, char *err,
                     size_t errlen)
{
    static _Thread_local struct selector s;
    if (selector_parse(&s, sel, len, err, errlen) < 0)
        return -1;
    size_t n = html_doc_find(d, &s, nodes);
    return n > INT_MAX ? INT_MAX : (int)n;
}

static const struct volley_api api = {
    .now_ns = clock_now_ns,
    .metric_id = metric_id,
    .metric_add = metrics_add,
    .metric_record = metrics_record,
    .res_head = script_res_head,
    .res_body = script_res_body,
    .hist_count = hist_count,
    .hist_min = hist_min,
    .hist_max = hist_max,
    .hist_mean = hist_mean,
    .hist_stdev = hist_stdev,
    .hist_percentile = hist_percentile,
    .hist_values = hist_values,
    .sort_doubles = sort_doubles,
    .select_double = select_double,
    .hist_clamped = hist_clamped,
    .nearest_in_list = nearest_in_list,
    .name_id = name_id,
    .flow_check_id = flow_check_id,
    .flow_check = flow_check,
    .flow_group_id = flow_group_id,
    .flow_group = flow_group,
    .data_open = data_open,
    .data_rows = data_rows,
    .data_fields = data_fields,
    .data_field_name = data_field_name,
    .data_cell = data_cell,
    .data_iteration_row = data_iteration_row,
    .json_valid = json_valid,
    .json_find = json_find,
    .json_scan = json_scan,
    .html_parse = html_doc_parse,
    .html_free = html_doc_free,
    .html_find = html_find,
    .html_attr = html_node_attr,
    .html_text = html_node_text,
};

const void *script_api(void)
{
    return &api;
}
