/* --shard, --start-at and --run-id: parsing and the run id's hash; see
 * shard.h. */
#include "shard.h"

#include "quote.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A plain decimal count (no sign, no unit) that fits max. */
static bool parse_u32(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 9)
        return false;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

int shard_parse(const char *spec, struct shard *s, char *err, size_t errlen)
{
    char q[128];
    const char *slash = strchr(spec, '/');
    uint32_t i, n;
    if (!slash || !parse_u32(spec, (size_t)(slash - spec), UINT32_MAX / 2, &i) ||
        !parse_u32(slash + 1, strlen(slash + 1), UINT32_MAX / 2, &n)) {
        snprintf(err, errlen, "--shard: \"%s\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)",
                 quote_printable(q, sizeof q, spec));
        return -1;
    }
    if (n < 1 || n > SHARD_MAX) {
        snprintf(err, errlen, "--shard: \"%s\": N is out of range (1..%d)", quote_printable(q, sizeof q, spec),
                 SHARD_MAX);
        return -1;
    }
    if (i >= n) {
        snprintf(err, errlen, "--shard: \"%s\": I must be below N (shards count from 0: 0/%u .. %u/%u)",
                 quote_printable(q, sizeof q, spec), n, n - 1, n);
        return -1;
    }
    *s = (struct shard){i, n};
    return 0;
}

bool shard_id_valid(const char *id)
{
    size_t n = strlen(id);
    return n >= 1 && n <= SHARD_ID_MAX &&
           strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* h with the bytes of s hashed in: FNV-1a, 64 bits. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

char *shard_default_id(const char *settings, double start_epoch, char *buf, size_t len)
{
    char start[40];
    snprintf(start, sizeof start, "|%.6f", start_epoch);
    snprintf(buf, len, "r%016" PRIx64, fnv1a(fnv1a(UINT64_C(14695981039346656037), settings), start));
    return buf;
}
