/* The TLS parts of the text and JSON reports (https runs): what the
 * handshake agreed on, full and resumed handshakes, their times, and TLS
 * failures by OpenSSL's reason. */
#include "report_internal.h"

#include "json_out.h"
#include "quote.h"

#include <inttypes.h>

/* How many TLS failure reasons the text report lists (the JSON has all the
 * run kept, STATS_TLS_REASONS at most). */
#define TEXT_TLS_REASONS 5

void report_tls_header(FILE *out, const struct target *t, const struct run_result *r)
{
    if (!t->tls)
        return;
    const struct tls_info *i = &r->tls;
    if (!r->tls_known) {
        fprintf(out, "  TLS (no start-up probe: what was agreed is not known before the run)\n");
        return;
    }
    fprintf(out, "  %s %s, group %s, SNI ", i->protocol, i->cipher, i->group[0] ? i->group : "none");
    quote_write(out, i->sni[0] ? i->sni : "none");
    fprintf(out, ", ALPN %s\n", i->alpn[0] ? i->alpn : "none");
}

void report_tls_text(FILE *out, const struct target *t, const struct run_result *r, int verbose)
{
    if (!t->tls)
        return;
    const struct stats *s = &r->stats;
    fprintf(out, "  TLS handshakes: %" PRIu64 " full, %" PRIu64 " resumed\n", s->tls_full, s->tls_resumed);
    for (size_t i = 0; i < s->ntls_reasons && i < TEXT_TLS_REASONS; i++) {
        fputs("    tls: ", out);
        quote_write(out, s->tls_reasons[i].reason);
        fprintf(out, " (%" PRIu64 ")\n", s->tls_reasons[i].count);
    }
    uint64_t rest = s->tls_other;
    for (size_t i = TEXT_TLS_REASONS; i < s->ntls_reasons; i++)
        rest += s->tls_reasons[i].count;
    if (rest)
        fprintf(out, "    tls: other reasons (%" PRIu64 ")\n", rest);
    if (verbose)
        report_hist_line(out, "Handshake", &s->handshake);
}

/* A string member, or null when empty. */
static void str_or_null(FILE *out, const char *key, const char *v)
{
    fprintf(out, "\"%s\": ", key);
    if (v[0])
        json_out_str(out, v);
    else
        fputs("null", out);
}

void report_tls_json(FILE *out, const struct target *t, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!t->tls) {
        fputs("  \"tls\": null,\n", out);
    } else {
        const struct tls_info *i = &r->tls;
        static const struct tls_info unknown;
        if (!r->tls_known)
            i = &unknown;
        fputs("  \"tls\": {", out);
        str_or_null(out, "protocol", i->protocol);
        fputs(", ", out);
        str_or_null(out, "cipher", i->cipher);
        fputs(", ", out);
        str_or_null(out, "group", i->group);
        fputs(", ", out);
        str_or_null(out, "sni", i->sni);
        fputs(", ", out);
        str_or_null(out, "alpn", i->alpn);
        fprintf(out, ", \"handshakes\": {\"full\": %" PRIu64 ", \"resumed\": %" PRIu64 "}, \"reasons\": [",
                s->tls_full, s->tls_resumed);
        for (size_t k = 0; k < s->ntls_reasons; k++) {
            fprintf(out, "%s{\"reason\": ", k ? ", " : "");
            json_out_str(out, s->tls_reasons[k].reason);
            fprintf(out, ", \"count\": %" PRIu64 "}", s->tls_reasons[k].count);
        }
        fprintf(out, "], \"other\": %" PRIu64 "},\n", s->tls_other);
    }
    report_json_hist(out, "handshake", &s->handshake, 0);
}
