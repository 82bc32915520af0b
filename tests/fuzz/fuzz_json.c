/* libFuzzer target for the JSON report: whatever strings and numbers go in,
 * the output must be valid JSON (tests/fuzz/json_check.h), and the text
 * report must hold no control byte but its line ends. The first input byte
 * chooses the mode:
 *
 * - even: the primitives. The next 8 bytes are a double (any bit pattern:
 *   NaN, infinities, subnormals), the next one json_out_num's decimals
 *   (byte % 20 - 1, JSON_OUT_G included), the rest a string for
 *   json_out_strn. Both must be valid JSON; a string that is well-formed
 *   UTF-8 must decode to exactly itself, any other to a string without
 *   control characters.
 * - odd: a whole report. The rest, split at 0 bytes, gives the URL, host,
 *   path, method, then -H values, validation reasons and metric names in
 *   turn; 8 bytes of each field (when it has them) a counter's amount or a
 *   record's value, a latency, the duration. report_json must be valid
 *   JSON, report_header and report_text free of control bytes.
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program over
 * files: the ctest unit.fuzz_json_corpus. */
#include "json_out.h"
#include "metrics.h"
#include "report.h"
#include "stats.h"

#include "json_check.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(bool ok, const char *what, const char *out, size_t len)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_json: %s\n%.*s\n", what, (int)(len > 4096 ? 4096 : len), out);
    abort();
}

/* Whether s[0..n) is all well-formed UTF-8 (json_check.h's reading of it). */
static bool well_formed(const char *s, size_t n)
{
    char *q = malloc(n + 2);
    q[0] = '"';
    for (size_t i = 0; i < n; i++) /* what the raw check may see: no '"', '\\' or controls */
        q[i + 1] = (unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\' ? 'x' : s[i];
    q[n + 1] = '"';
    size_t out_len;
    bool ok = json_check_string(q, n + 2, NULL, 0, &out_len);
    free(q);
    return ok;
}

static void fuzz_primitives(const uint8_t *data, size_t size)
{
    double v = 0;
    if (size >= 8)
        memcpy(&v, data, 8);
    int decimals = size >= 9 ? data[8] % 20 - 1 : JSON_OUT_G;
    const char *s = size > 9 ? (const char *)data + 9 : "";
    size_t n = size > 9 ? size - 9 : 0;

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_out_num(f, v, decimals);
    fclose(f);
    require(json_check(out, len), "json_out_num: not a JSON value", out, len);
    require(isfinite(v) == (strcmp(out, "null") != 0), "json_out_num: null iff not finite", out, len);
    free(out);

    f = open_memstream(&out, &len);
    json_out_strn(f, s, n);
    fclose(f);
    unsigned char *dec = malloc(len + 1);
    size_t dlen;
    require(json_check_string(out, len, dec, len + 1, &dlen), "json_out_strn: not a JSON string", out, len);
    if (well_formed(s, n))
        require(dlen == n && memcmp(dec, s, n) == 0, "json_out_strn: well-formed UTF-8 changed", out, len);
    free(dec);
    free(out);
}

/* No byte below 0x20 but '\n', no DEL, in out. */
static void require_printable(const char *what, const char *out, size_t len)
{
    for (size_t i = 0; i < len; i++)
        require(!(((unsigned char)out[i] < 0x20 && out[i] != '\n') || out[i] == 0x7f), what, out, len);
}

#define MAX_FIELDS 24

static double field_double(const char *s, size_t n)
{
    double v = (double)n;
    if (n >= 8)
        memcpy(&v, s, 8);
    return v;
}

static void fuzz_report(const uint8_t *data, size_t size)
{
    /* The fields, NUL-terminated copies. */
    char *copy = malloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *field[MAX_FIELDS];
    size_t flen[MAX_FIELDS], nf = 0;
    for (size_t i = 0, start = 0; i <= size && nf < MAX_FIELDS; i++) {
        if (i == size || copy[i] == '\0') {
            field[nf] = copy + start;
            flen[nf++] = i - start;
            start = i + 1;
        }
    }
    static char empty[] = "";
    while (nf < 4)
        field[nf] = empty, flen[nf++] = 0;

    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(8080)};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct target_addr addr = {.len = sizeof sin};
    memcpy(&addr.sa, &sin, sizeof sin);
    struct target t = {.url = field[0], .scheme = "http", .host = field[1], .port = 8080, .path = field[2],
                       .addrs = &addr, .naddrs = 1};

    const char *headers[MAX_FIELDS];
    struct options o = {.connections = 1, .threads = 1, .method = field[3], .headers = headers,
                        .timeout_ns = 1000000000, .keepalive = true, .requests = 1};
    struct run_result r = {.duration_ns = (int64_t)1e9};
    stats_init(&r.stats);
    for (size_t i = 4; i < nf; i++) {
        double v = field_double(field[i], flen[i]);
        switch (i % 4) {
        case 0:
            headers[o.nheaders++] = field[i];
            break;
        case 1:
            stats_add_reason(&r.stats, field[i], 1 + i);
            r.stats.errors[STATS_ERR_VALIDATION] += 1 + i;
            break;
        case 2: {
            int id = metrics_id(&r.stats.metrics, field[i], METRIC_COUNTER);
            if (id >= 0)
                metrics_add(&r.stats.metrics, id, v);
            break;
        }
        case 3: {
            int id = metrics_id(&r.stats.metrics, field[i], METRIC_RECORD);
            if (id >= 0)
                metrics_record(&r.stats.metrics, id, fabs(v));
            int64_t ns;
            memcpy(&ns, &v, sizeof ns);
            hist_record(&r.stats.latency, ns);
            r.start_epoch = v;
            break;
        }
        }
    }
    if (nf > 5)
        o.rate = (uint64_t)flen[5];

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_json(f, &o, &t, &r);
    fclose(f);
    require(json_check(out, len), "report_json: not valid JSON", out, len);
    free(out);

    f = open_memstream(&out, &len);
    report_header(f, &o, &t, &r);
    report_text(f, &o, &t, &r);
    fclose(f);
    require_printable("report_text: a control byte", out, len);
    free(out);

    stats_free(&r.stats);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] & 1)
        fuzz_report(data + 1, size - 1);
    else
        fuzz_primitives(data + 1, size - 1);
    return 0;
}
