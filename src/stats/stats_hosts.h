/* The hosts a flow's requests went to (--allow-host): per origin
 * (scheme://host[:port]), the requests that ended on it and how many of
 * them failed, for the report's Hosts block. Made at a flow's first
 * request; a worker's own, merged by origin after join. */
#ifndef VOLLEY_STATS_HOSTS_H
#define VOLLEY_STATS_HOSTS_H

#include <stdint.h>

/* The target and up to 16 other origins (a worker reaches at most
 * SCRIPT_FLOW_ORIGINS; the run's workers reach the same ones). */
#define STATS_HOSTS_MAX 17

struct stats_host {
    char origin[280];   /* "http://127.0.0.2:8081" (no default port) */
    uint64_t requests;  /* ended: answered or failed (each redirect hop is one) */
    uint64_t failed;    /* of requests: failed (no response, or a check or validation failed it) */
};

struct stats_hosts {
    struct stats_host h[STATS_HOSTS_MAX];
    uint32_t n;         /* h[0] is the target's */
};

/* The index of origin in *hp (made, *hp too, at first), or -1 when full. */
int stats_hosts_add(struct stats_hosts **hp, const char *origin);

/* Adds src's counts into *dst (made if needed), by origin. */
void stats_hosts_merge(struct stats_hosts **dst, const struct stats_hosts *src);

#endif
