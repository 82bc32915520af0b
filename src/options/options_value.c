/* One option's value, parsed and checked as getopt reads it: counts in a
 * range, TLS versions, --start-at's time, and the one line that names the
 * option and the value when one is wrong. Below options.c (getopt) and
 * options_check.c (the checks across options), which both use it. */
#include "options_value.h"

#include "clock.h"
#include "quote.h"
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int options_fail(char *err, size_t errlen, const char *fmt, const char *opt, const char *val)
{
    char q[256];
    snprintf(err, errlen, fmt, opt, quote_printable(q, sizeof q, val));
    return -1;
}

/* A bound as a person reads it: the number, and for the large ones near
 * a power of two that power too ("9007199254740991 (2^53 - 1)"). */
static const char *bound_words(char *buf, size_t len, uint64_t v)
{
    int p = 0;
    while (p < 63 && (UINT64_C(1) << (p + 1)) <= v)
        p++;
    if (p >= 32 && v == UINT64_C(1) << p)
        snprintf(buf, len, "%" PRIu64 " (2^%d)", v, p);
    else if (p >= 31 && v == (UINT64_C(1) << (p + 1)) - 1)
        snprintf(buf, len, "%" PRIu64 " (2^%d - 1)", v, p + 1);
    else
        snprintf(buf, len, "%" PRIu64, v);
    return buf;
}

/* A count option in [min, max]. Out of range says which end ("-n: must be
 * at least 1"); a minus sign is below any minimum, a fraction not a whole
 * number. */
int options_parse_bounded(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                          char *err, size_t errlen)
{
    uint64_t n;
    char b[64];
    size_t digits = strspn(val, "0123456789");
    bool parsed = units_parse_count(val, &n) == 0;
    if ((val[0] == '-' && val[1] >= '0' && val[1] <= '9') || (parsed && n < min)) {
        snprintf(err, errlen, "%s: must be at least %s", opt, bound_words(b, sizeof b, min));
        return -1;
    }
    if (digits && val[digits] == '.' && val[strspn(val, "0123456789.")] == '\0')
        return options_fail(err, errlen, "%s: \"%s\" is not a whole number", opt, val);
    if (!parsed && !(digits && !val[digits]))
        return options_fail(err, errlen, "%s: \"%s\" is not a number", opt, val);
    if (!parsed || n > max) { /* !parsed: all digits, past 2^64 */
        snprintf(err, errlen, "%s: must be at most %s", opt, bound_words(b, sizeof b, max));
        return -1;
    }
    *out = n;
    return 0;
}

/* "1.2" -> 12 (also 1.0, 1.1, 1.3: what OpenSSL may allow). */
int options_parse_tls_version(const char *opt, const char *v, int *out, char *err, size_t errlen)
{
    static const char *const names[] = {"1.0", "1.1", "1.2", "1.3"};
    for (int i = 0; i < 4; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = 10 + i;
            return 0;
        }
    return options_fail(err, errlen, "%s: \"%s\" is not a TLS version (1.2 or 1.3)", opt, v);
}

/* Start times further off than this are a mistake (milliseconds for
 * seconds, a stale shell variable), not a plan. */
#define START_MAX_AHEAD_S 86400.0

/* --start-at: "+5s" from now or epoch seconds, into o's epoch and
 * monotonic times. The two clocks are read once per process, so a command
 * line parsed again (a script's options()) means the same instant. A time
 * already past is not refused here: the run refuses it at the start, with
 * its own exit status (a shard ready too late). */
int options_parse_start_at(struct options *o, const char *spec, char *err, size_t errlen)
{
    static double base_epoch;
    static int64_t base_mono;
    if (base_mono == 0) {
        base_mono = clock_now_ns();
        base_epoch = clock_epoch_seconds();
    }
    double at;
    if (spec[0] == '+') {
        int64_t ns;
        if (units_parse_duration(spec + 1, &ns) < 0)
            return options_fail(err, errlen, "%s: \"%s\" is not +DURATION from now (e.g. +5s, +500ms)", "--start-at", spec);
        at = base_epoch + (double)ns / 1e9;
    } else {
        char *end;
        errno = 0;
        at = strtod(spec, &end);
        if (end == spec || *end || end != spec + strspn(spec, "0123456789.") || errno || !isfinite(at))
            return options_fail(err, errlen,
                                "%s: \"%s\" is not a time (epoch seconds such as 1767225600.5, or +5s from now)",
                                "--start-at", spec);
    }
    if (at - base_epoch > START_MAX_AHEAD_S)
        return options_fail(err, errlen, "%s: \"%s\" is more than a day from now (epoch seconds, not milliseconds?)",
                            "--start-at", spec);
    if (base_epoch - at > START_MAX_AHEAD_S)
        return options_fail(err, errlen, "%s: \"%s\" is more than a day ago (epoch seconds, or +5s from now)",
                            "--start-at", spec);
    o->start_at = at;
    o->start_at_mono = base_mono + (int64_t)llround((at - base_epoch) * 1e9);
    o->start_at_given = true;
    return 0;
}
