/* What the HTML report's files share (html_common.h): escaping, numbers
 * and times, and the reasons table. */
#include "html_common.h"

#include "fmt.h"
#include "utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

void html_escape(FILE *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", out); i++; continue;
        case '<': fputs("&lt;", out); i++; continue;
        case '>': fputs("&gt;", out); i++; continue;
        case '"': fputs("&quot;", out); i++; continue;
        case '\'': fputs("&#39;", out); i++; continue;
        }
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp);
        if (k == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7f) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD */
            i += k ? k : 1;
            continue;
        }
        fwrite(s + i, 1, k, out);
        i += k;
    }
}

void html_num(FILE *out, double v, int dec)
{
    if (isnan(v))
        fputs("-", out);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.*f", dec, v);
}

void html_us(FILE *out, double v)
{
    char buf[32];
    fputs(isnan(v) ? "-" : fmt_time(buf, sizeof buf, v * 1e3), out);
}

void html_reasons(FILE *out, struct html_rd *rd, const struct json *f, const char *path, const char *id,
                  const char *head)
{
    char rpath[64];
    snprintf(rpath, sizeof rpath, "%s.reasons", path);
    const struct json *reasons = html_rd_of(rd, f, path, "reasons", JSON_ARRAY, false);
    fprintf(out, "<table id=\"%s\"><tr><th>%s</th><th class=\"n\">count</th></tr>\n", id, head);
    size_t n = reasons ? reasons->len : 0;
    for (size_t i = 0; i < n && !rd->failed; i++) {
        char at[96];
        snprintf(at, sizeof at, "%s[%zu]", rpath, i);
        size_t len;
        const char *why = html_rd_str(rd, &reasons->items[i], at, "reason", true, &len);
        double c = html_rd_num(rd, &reasons->items[i], at, "count", true);
        if (rd->failed)
            return;
        fprintf(out, "<tr><td>");
        html_escape(out, why, len);
        fprintf(out, "</td><td class=\"n\">");
        html_num(out, c, 0);
        fprintf(out, "</td></tr>\n");
    }
    double other = html_rd_num(rd, f, path, "other", false);
    if (other > 0) {
        fprintf(out, "<tr><td>");
        html_num(out, html_rd_num(rd, f, path, "other_reasons", false), 0);
        fprintf(out, " other reasons</td><td class=\"n\">");
        html_num(out, other, 0);
        fprintf(out, "</td></tr>\n");
    }
    if (n == 0 && !(other > 0))
        fprintf(out, "<tr><td colspan=\"2\" class=\"none\">none</td></tr>\n");
    fprintf(out, "</table>\n");
}
