/* The units a user writes figures in, shared by every parser of them (the
 * command line, --stages, a script's options()): durations such as 500ms,
 * 10s, 2m, 1h and counts such as 10k. Parsing only; fmt.h prints figures
 * the way the reports do. */
#ifndef VOLLEY_UNITS_H
#define VOLLEY_UNITS_H

#include <stdint.h>

/* The longest duration accepted anywhere (100 days): far beyond any run,
 * small enough that nanoseconds never overflow when added to a monotonic
 * timestamp. */
#define UNITS_MAX_DURATION_NS (INT64_C(100) * 24 * 3600 * 1000000000)

/* "1.5s", "500ms", "2m", "1h", "3" (seconds) -> nanoseconds > 0; blanks may
 * part the number from its unit ("10 s").
 * Returns 0, or -1 if s is not a positive duration. */
int units_parse_duration(const char *s, int64_t *ns);

/* A script's time in milliseconds (any double: NaN, infinite, negative,
 * huge) as nanoseconds, with no undefined float-to-integer conversion:
 * 0 for NaN and for ms <= 0 (the caller's default then applies), at most
 * UNITS_MAX_DURATION_NS. */
int64_t units_ms_to_ns(double ms);

/* "100", "10k", "2M", "1G" (powers of 1000) -> *n. Returns 0 or -1. */
int units_parse_count(const char *s, uint64_t *n);

#endif
