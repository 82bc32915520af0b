/* The request names' part of the reports: the text report's per-name table
 * and the JSON's "names", both from the merged stats, names in order of
 * first use. Names are the script's text: the table writes them through
 * quote.h, the JSON through json_out. */
#include "fmt.h"
#include "json_out.h"
#include "names.h"
#include "stats_tags.h"
#include "quote.h"
#include "report_internal.h"

#include <inttypes.h>
#include <string.h>

/* Status codes listed per name, in increasing order; then "+N more". */
#define NAME_CODES 3
/* Names the text lists (the first used); then how many more the JSON has. */
#define TEXT_NAMES 100

int report_cell_width(const char *text, int max)
{
    size_t n = quote_columns(text);
    return n > (size_t)max ? max : (int)n;
}

void report_cell(FILE *out, int at, int width, const char *text)
{
    size_t n = quote_columns(text);
    quote_write(out, text);
    if (n > (size_t)width) {
        fprintf(out, "\n%*s", at, "");
        n = 0;
    }
    fprintf(out, "%*s", width - (int)n, "");
}

int report_name_width(const char *name)
{
    return report_cell_width(name, REPORT_NAME_WIDTH);
}

void report_name_lead(FILE *out, int indent, int width, const char *name)
{
    fprintf(out, "%*s", indent, "");
    report_cell(out, indent, width, name);
}

/* "  200: 4  404: 1" (at most NAME_CODES codes, then "+N more"), or "-". */
static void status_summary(FILE *out, const uint64_t *status)
{
    int shown = 0, more = 0;
    for (int i = 0; i < STATS_STATUS_MAX; i++) {
        if (!status[i])
            continue;
        if (shown == NAME_CODES) {
            more++;
            continue;
        }
        if (i)
            fprintf(out, "%s%d: %" PRIu64, shown ? "  " : "", i, status[i]);
        else
            fprintf(out, "%sother: %" PRIu64, shown ? "  " : "", status[i]);
        shown++;
    }
    if (more)
        fprintf(out, "  +%d more", more);
    if (!shown)
        fputc('-', out);
}

/* Whether the text lists name n, *shown names being listed before it: the
 * first TEXT_NAMES, and NAMES_OVERFLOW's row wherever it is (the note at
 * the report's end speaks of it). */
static bool listed(const struct stats_name *n, uint32_t *shown)
{
    if (*shown < TEXT_NAMES || strcmp(n->name, NAMES_OVERFLOW) == 0) {
        ++*shown;
        return true;
    }
    return false;
}

void report_names_text(FILE *out, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!s->nnames)
        return;
    int width = 4; /* "Names" less the rows' two more spaces of indent, at least */
    for (uint32_t i = 0, k = 0; i < s->nnames; i++) {
        if (!s->names[i] || !listed(s->names[i], &k))
            continue;
        int n = report_name_width(s->names[i]->name);
        if (n > width)
            width = n;
    }
    fprintf(out, "  %-*s %9s %7s %9s %9s %9s %9s  %s\n", width + 2, "Names", "requests", "failed", "p50", "p90",
            "p99", "max", "status");
    uint32_t shown = 0, more = 0;
    for (uint32_t i = 0; i < s->nnames; i++) {
        const struct stats_name *n = s->names[i];
        if (!n)
            continue;
        if (!listed(n, &shown)) {
            more++;
            continue;
        }
        report_name_lead(out, 4, width, n->name);
        fprintf(out, " %9" PRIu64 " %7" PRIu64, n->completed, stats_name_failed(n));
        static const double ps[] = {50, 90, 99};
        char b[32];
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
            fprintf(out, " %9s", n->latency.count ? fmt_time(b, sizeof b, (double)hist_percentile(&n->latency, ps[k]))
                                                  : "-");
        fprintf(out, " %9s  ", n->latency.count ? fmt_time(b, sizeof b, (double)n->latency.max) : "-");
        status_summary(out, n->status);
        fputc('\n', out);
    }
    if (more)
        fprintf(out, "    (%" PRIu32 " more names: the JSON has every name)\n", more);
}

void report_names_overflow_text(FILE *out, const struct run_result *r)
{
    const struct stats_name *n = stats_name_find(&r->stats, NAMES_OVERFLOW);
    if (!n)
        return;
    fprintf(out,
            "Note: %" PRIu64 " request%s sent without a name went past the %d distinct \"METHOD path\" names a run "
            "makes and %s counted as \"" NAMES_OVERFLOW "\"; name them (name = \"GET /items/:id\") to see them "
            "apart\n",
            n->started, n->started == 1 ? "" : "s", NAMES_DEFAULT_MAX, n->started == 1 ? "is" : "are");
}

/* One name's (or tag's) figures as a JSON object. */
static void figures_json(FILE *out, const struct options *o, const struct stats_name *n)
{
    fprintf(out,
            "{\"requests\": {\"started\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
            ", \"cut_off\": %" PRIu64 "}, \"status\": ",
            n->started, n->completed, stats_name_failed(n), n->cut_off);
    report_json_status(out, n->status);
    fputs(", \"errors\": ", out);
    report_json_errors(out, n->errors);
    fputs(", \"failures\": ", out);
    report_json_reasons(out, n->reasons, n->nreasons, n->reasons_more, n->reasons_more_count);
    fputs(", \"latency\": ", out);
    report_json_hist_obj(out, &n->latency);
    if (o->rate && n->service.counts) {
        fputs(", \"service\": ", out);
        report_json_hist_obj(out, &n->service);
    }
    fputc('}', out);
}

void report_names_json(FILE *out, const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!s->nnames) {
        fputs("  \"names\": null,\n", out);
        return;
    }
    fputs("  \"names\": {", out);
    const char *sep = "\n";
    for (uint32_t i = 0; i < s->nnames; i++) {
        const struct stats_name *n = s->names[i];
        if (!n)
            continue;
        fprintf(out, "%s    ", sep);
        sep = ",\n";
        json_out_str(out, n->name);
        fputs(": ", out);
        figures_json(out, o, n);
    }
    fputs("\n  },\n", out);
}

/* Whether tag a's key ("KEY=VALUE": up to its '=') is b's. */
static bool same_key(const char *a, const char *b)
{
    size_t k = strcspn(a, "=");
    return strncmp(a, b, k) == 0 && b[k] == '=';
}

void report_tags_json(FILE *out, const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!s->ntags) {
        fputs("  \"tags\": null,\n", out);
        return;
    }
    fputs("  \"tags\": {", out);
    const char *sep = "\n";
    /* Keys in order of first use, each with its values in theirs. */
    for (uint32_t i = 0; i < s->ntags; i++) {
        const struct stats_name *k = s->tags[i];
        bool seen = !k;
        for (uint32_t j = 0; !seen && j < i; j++)
            seen = s->tags[j] && same_key(s->tags[j]->name, k->name);
        if (seen)
            continue;
        size_t klen = strcspn(k->name, "=");
        char key[400];
        snprintf(key, sizeof key, "%.*s", (int)klen, k->name);
        fprintf(out, "%s    ", sep);
        sep = ",\n";
        json_out_str(out, key);
        fputs(": {", out);
        const char *vsep = "\n";
        for (uint32_t j = i; j < s->ntags; j++) {
            const struct stats_name *v = s->tags[j];
            if (!v || !same_key(k->name, v->name))
                continue;
            fprintf(out, "%s      ", vsep);
            vsep = ",\n";
            json_out_str(out, v->name + klen + 1);
            fputs(": ", out);
            figures_json(out, o, v);
        }
        fputs("\n    }", out);
    }
    fputs("\n  },\n", out);
}

void report_tags_note_text(FILE *out, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    for (uint32_t i = 0; i < s->ntags; i++) {
        const struct stats_name *t = s->tags[i];
        const char *v = t ? strchr(t->name, '=') : NULL;
        if (!v || strcmp(v + 1, TAGS_OTHER_VALUES) != 0)
            continue;
        if (strncmp(t->name, TAGS_OTHER_KEYS "=", strlen(TAGS_OTHER_KEYS) + 1) == 0)
            fprintf(out, "Note: %" PRIu64 " request%s carried tag keys past the %d a run keeps, counted under "
                    "the tag \"" TAGS_OTHER_KEYS "\" in the JSON\n", t->started, t->started == 1 ? "" : "s",
                    TAGS_KEYS_MAX);
        else
            fprintf(out, "Note: %" PRIu64 " request%s carried values of the tag \"%.*s\" past the %d a key keeps, "
                    "counted under \"" TAGS_OTHER_VALUES "\"\n", t->started, t->started == 1 ? "" : "s",
                    (int)(v - t->name), t->name, TAGS_VALUES_MAX);
    }
    if (s->tags_dropped)
        fprintf(out, "Note: %" PRIu64 " request%s went without their tags counted: a thread's %d combinations "
                "of a name and tags ran out\n", s->tags_dropped, s->tags_dropped == 1 ? "" : "s", STATS_LABELS_MAX);
}
