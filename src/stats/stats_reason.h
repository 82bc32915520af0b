/* A list of failure reasons and how many failures had each: the run's
 * validation failures, a failure kind's (tls, protocol), a request name's
 * and a flow's failed iterations all keep one. Below stats.h and
 * stats_flow.h, which both hold such lists. */
#ifndef VOLLEY_STATS_REASON_H
#define VOLLEY_STATS_REASON_H

#include <stddef.h>
#include <stdint.h>

/* How many failures had one reason. */
struct stats_reason {
    char *reason;
    uint64_t count;
};

/* Adds n to reason in a list of reasons (a new entry, the reason copied,
 * when there is room under max). Returns the entry, or NULL when it had
 * no room. */
struct stats_reason *stats_reason_add(struct stats_reason **list, size_t *len, size_t max, const char *reason,
                                      uint64_t n);

#endif
