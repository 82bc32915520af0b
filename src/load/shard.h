/* A run split over processes (issue 15): which shard this process is
 * (--shard I/N), when every shard starts (--start-at) and the run's name
 * (--run-id). The shards of a run share one schedule and merge exactly
 * (`volley merge`): shard I owns the global arrivals k with k mod N == I,
 * and of a count that is split (-n's requests, -c's connections) the
 * first (total mod N) shards take one more. Nothing here touches a socket
 * or a clock on the request path: it is all decided before the start. */
#ifndef VOLLEY_SHARD_H
#define VOLLEY_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHARD_MAX 100000     /* the most shards of one run */
#define SHARD_ID_MAX 64      /* a run id's longest length */

struct shard {
    uint32_t index; /* 0 .. count-1 */
    uint32_t count; /* >= 1; 1: the whole run in one process (0, in a zeroed struct, too) */
};

/* "I/N" (0 <= I < N <= SHARD_MAX) into *s. Returns 0, or -1 with err
 * naming --shard and the value. */
int shard_parse(const char *spec, struct shard *s, char *err, size_t errlen);

/* N: s.count, and 1 for a zeroed struct (the whole run). */
static inline uint32_t shard_count(struct shard s)
{
    return s.count ? s.count : 1;
}

/* This shard's part of a total that is split: total / N, one more for the
 * first total mod N shards. The parts of all shards add up to total. */
static inline uint64_t shard_part(uint64_t total, struct shard s)
{
    uint32_t n = shard_count(s);
    return total / n + (s.index < total % n);
}

/* Where this shard's part begins in the run's order: the sum of the parts
 * of the shards before it. */
static inline uint64_t shard_first(uint64_t total, struct shard s)
{
    uint32_t n = shard_count(s);
    return total / n * s.index + (s.index < total % n ? s.index : total % n);
}

/* This shard's part of a rate (-R, a stage's target): rate / N. */
static inline double shard_rate(double rate, struct shard s)
{
    return rate / shard_count(s);
}

/* The schedule's lane of a worker: with W workers a shard's worker w takes
 * the arrivals k with k mod (W * N) == I + w * N, so the shards' workers
 * together take every arrival of the one-process schedule once. */
static inline uint64_t shard_lane(struct shard s, uint32_t worker)
{
    return (uint64_t)s.index + (uint64_t)worker * s.count;
}

/* --run-id: 1 to SHARD_ID_MAX letters, digits, '.', '_' or '-'. Returns
 * true if id is one. */
bool shard_id_valid(const char *id);

/* The default run id: "r" and 16 hex digits of a 64-bit FNV-1a hash of
 * settings (the settings that must agree across shards, as one string)
 * and the start time (epoch seconds, to the microsecond), into buf
 * (SHARD_ID_MAX + 1 bytes). Shards started with the same settings and the
 * same --start-at get the same id. Returns buf. */
char *shard_default_id(const char *settings, double start_epoch, char *buf, size_t len);

#endif
