/* The page of `volley compare --html FILE`: one self-contained HTML file
 * (no script, nothing fetched) with both runs' settings, the comparison
 * table, the limits, both latency distributions and both runs over time
 * on shared axes, and both results embedded (docs/output.md). */
#ifndef VOLLEY_HTML_COMPARE_H
#define VOLLEY_HTML_COMPARE_H

#include "compare.h"

#include <stddef.h>
#include <stdio.h>

struct json;

/* One of the two results; nothing here is owned by the page. */
struct html_compare_run {
    const char *path;               /* as given on the command line */
    const struct json *root;        /* the result, parsed from text */
    const char *text;               /* the file's text, len bytes, embedded whole */
    size_t len;
    const struct compare_run *run;  /* read from root by compare_load */
};

/* What the page shows: the comparison as the text table has it. */
struct html_compare {
    struct html_compare_run run[2];         /* BASE, NEW */
    const struct compare_setting *settings; /* COMPARE_SETTINGS of them */
    const struct compare_row *rows;
    size_t nrows;
    const struct compare_limit *limits;     /* and their verdicts, nlimits each */
    const struct compare_judged *judged;
    size_t nlimits;
};

/* Writes the page to out. BASE is embedded as <script
 * type="application/json" id="volley-base">, NEW as id="volley-new", each
 * '<' written \u003c; every string from the files is HTML-escaped.
 * Returns 0, or -1 with one line in err naming the file and the field
 * that is of the wrong type or does not decode ("new.json:
 * series.points[3].t: ..."); out then holds a partial page that the
 * caller discards. */
int html_compare(FILE *out, const struct html_compare *c, char *err, size_t errlen);

#endif
