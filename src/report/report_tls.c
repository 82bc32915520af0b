/* The TLS parts of the text and JSON reports (https runs): what the
 * handshake agreed on, full and resumed handshakes, their times, and TLS
 * failures by OpenSSL's reason. */
#include "report_internal.h"

#include "json_out.h"
#include "quote.h"

#include <inttypes.h>

/* How many reasons of a failure kind the text report lists (the JSON has
 * all the run kept, STATS_KIND_REASONS at most). */
#define TEXT_KIND_REASONS 5

void report_kind_reasons(FILE *out, const struct stats *s, enum stats_error kind)
{
    const struct stats_kind_reasons *kr = &s->kind_reasons[kind];
    const char *name = stats_error_name(kind);
    for (size_t i = 0; i < kr->n && i < TEXT_KIND_REASONS; i++) {
        fprintf(out, "    %s: ", name);
        quote_write(out, kr->r[i].reason);
        fprintf(out, " (%" PRIu64 ")\n", kr->r[i].count);
    }
    uint64_t rest = kr->other;
    for (size_t i = TEXT_KIND_REASONS; i < kr->n; i++)
        rest += kr->r[i].count;
    if (rest)
        fprintf(out, "    %s: other reasons (%" PRIu64 ")\n", name, rest);
}

void report_kind_reasons_json(FILE *out, const struct stats *s, enum stats_error kind)
{
    const struct stats_kind_reasons *kr = &s->kind_reasons[kind];
    fputs("\"reasons\": [", out);
    for (size_t k = 0; k < kr->n; k++) {
        fprintf(out, "%s{\"reason\": ", k ? ", " : "");
        json_out_str(out, kr->r[k].reason);
        fprintf(out, ", \"count\": %" PRIu64 "}", kr->r[k].count);
    }
    fprintf(out, "], \"other\": %" PRIu64, kr->other);
}

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
    report_kind_reasons(out, s, STATS_ERR_TLS);
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
        fprintf(out, ", \"handshakes\": {\"full\": %" PRIu64 ", \"resumed\": %" PRIu64 "}, ", s->tls_full,
                s->tls_resumed);
        report_kind_reasons_json(out, s, STATS_ERR_TLS);
        fputs("},\n", out);
    }
    report_json_hist(out, "handshake", &s->handshake, 0);
}
