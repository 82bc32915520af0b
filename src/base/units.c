/* Durations and counts as users write them (units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int units_parse_duration(const char *s, int64_t *ns)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"m", 60e9}, {"h", 3600e9},
    };
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* Plain decimal only: strtod would also take hex, exponents and "inf". */
    if (end == s || end != s + strspn(s, "0123456789.") || errno || !isfinite(v) || v <= 0)
        return -1;
    /* "10 s" as "10s": blanks between the number and a unit */
    const char *unit = end + strspn(end, " \t");
    if (unit != end && !*unit)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].unit) == 0) {
            double t = v * units[i].scale;
            if (t < 1 || t > (double)UNITS_MAX_DURATION_NS)
                return -1;
            *ns = (int64_t)t;
            return 0;
        }
    }
    return -1;
}

int64_t units_ms_to_ns(double ms)
{
    if (!(ms > 0)) /* NaN too */
        return 0;
    if (ms >= (double)UNITS_MAX_DURATION_NS / 1e6)
        return UNITS_MAX_DURATION_NS;
    return (int64_t)(ms * 1e6);
}

int units_parse_count(const char *s, uint64_t *n)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno)
        return -1;
    uint64_t scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1000, end++;
    else if (*end == 'M')
        scale = 1000000, end++;
    else if (*end == 'G')
        scale = 1000000000, end++;
    if (*end || v > UINT64_MAX / scale)
        return -1;
    *n = v * scale;
    return 0;
}
