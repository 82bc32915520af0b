/* The HTML report's table of request names: one row per name of the
 * result's "names", in its order (first use), with the text report's
 * columns. Names and status codes are the result's text: escaped. */
#include "html.h"
#include "html_internal.h"

#include <stdio.h>

/* Status codes listed per name; then "+N more". */
#define NAME_CODES 3

void html_names(FILE *out, struct html_rd *rd, const struct json *r)
{
    static const char *const keys[] = {"p50", "p90", "p99", "max"};
    const struct json *names = html_rd_of(rd, r, "", "names", JSON_OBJECT, false);
    if (rd->failed || !names || !names->len)
        return;
    fprintf(out, "<h2>Requests by name</h2>\n<table id=\"names\"><tr><th>name</th><th class=\"n\">requests</th>"
                 "<th class=\"n\">failed</th>");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        fprintf(out, "<th class=\"n\">%s</th>", keys[k]);
    fprintf(out, "<th>status</th></tr>\n");
    for (size_t i = 0; i < names->len && !rd->failed; i++) {
        const struct json_member *m = &names->members[i];
        char at[300];
        snprintf(at, sizeof at, "names.%s", m->key);
        const struct json *n = html_rd_of(rd, names, "names", m->key, JSON_OBJECT, true);
        const struct json *req = html_rd_of(rd, n, at, "requests", JSON_OBJECT, true);
        const struct json *lat = html_rd_of(rd, n, at, "latency", JSON_OBJECT, true);
        const struct json *status = html_rd_of(rd, n, at, "status", JSON_OBJECT, true);
        if (rd->failed)
            return;
        fprintf(out, "<tr><td>");
        html_escape(out, m->key, m->key_len);
        fprintf(out, "</td><td class=\"n\">");
        html_num(out, html_rd_count(rd, req, at, "completed"), 0);
        fprintf(out, "</td><td class=\"n\">");
        html_num(out, html_rd_count(rd, req, at, "failed"), 0);
        fprintf(out, "</td>");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fprintf(out, "<td class=\"n\">");
            html_us(out, html_rd_num(rd, lat, at, keys[k], false));
            fprintf(out, "</td>");
        }
        fprintf(out, "<td>");
        for (size_t c = 0; c < status->len && c < NAME_CODES; c++) {
            fprintf(out, "%s", c ? ", " : "");
            html_escape(out, status->members[c].key, status->members[c].key_len);
            fprintf(out, ": ");
            html_num(out, html_rd_count(rd, status, at, status->members[c].key), 0);
        }
        if (status->len > NAME_CODES)
            fprintf(out, ", +%zu more", status->len - NAME_CODES);
        if (!status->len)
            fprintf(out, "-");
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
}
