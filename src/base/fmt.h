/* Figures as the reports print them: times in the unit that suits them,
 * byte counts in binary units (wrk's style). */
#ifndef VOLLEY_FMT_H
#define VOLLEY_FMT_H

#include <stddef.h>

/* ns -> "412.0us", "2.10ms", "1.02s" into buf; returns buf. */
const char *fmt_time(char *buf, size_t len, double ns);

/* bytes -> "63.10MB" into buf; returns buf. */
const char *fmt_bytes(char *buf, size_t len, double b);

/* Seconds since the epoch -> "2026-05-01 12:00:00 UTC" into buf; returns
 * buf, or NULL for a time outside 0..1e11 s (a damaged saved result). */
const char *fmt_utc(char *buf, size_t len, double epoch);

#endif
