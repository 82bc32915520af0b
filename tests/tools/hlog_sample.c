/* Writes an HdrHistogram interval log of seeded, known latency distributions
 * (nanoseconds) with volley's hlog writer, and prints volley's own
 * percentiles of each tag's merged histogram, for test_hdr_java.sh to compare
 * with what Java's HistogramLogProcessor reads from the same log.
 *
 * Usage: hlog_sample OUT.hlog
 * Output, one line per tag and figure, values in ms:
 *     <tag> count <n>
 *     <tag> p<percentile> <value>      percentiles 50 90 99 99.9 99.99 100
 * where <tag> is "untagged" or "service". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "hlog.h"

#define INTERVALS 6
#define PER_INTERVAL 20000 /* a multiple of 1000: p * n / 100 is a whole rank */
#define START_EPOCH 1700000000.0
#define EMPTY_SERVICE_INTERVAL 3

/* splitmix64 with a fixed seed: every run writes the same log. */
#include "../unit/rng.h"

static int64_t log_uniform(double lo, double hi)
{
    return (int64_t)(lo * pow(hi / lo, rng_unit()));
}

/* Latency from the intended start: log-uniform 200 us .. 5 ms, with a 1 %
 * tail at 50 .. 500 ms that grows from one interval to the next. */
static int64_t intended_ns(int interval)
{
    if (rng_unit() < 0.01)
        return log_uniform(50e6, 500e6 * (1 + interval) / INTERVALS);
    return log_uniform(200e3, 5e6);
}

/* Service time: uniform 100 us .. 2 ms, 0.1 % at 20 ms +- 1 ms. */
static int64_t service_ns(void)
{
    if (rng_unit() < 0.001)
        return 19000000 + (int64_t)(rng_next() % 2000001);
    return 100000 + (int64_t)(rng_next() % 1900001);
}

static void print_figures(const char *name, const struct hist *h)
{
    static const double percentiles[] = {50, 90, 99, 99.9, 99.99, 100};
    printf("%s count %lld\n", name, (long long)h->count);
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++)
        printf("%s p%g %.6f\n", name, percentiles[i],
               (double)hist_percentile(h, percentiles[i]) / 1e6);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hlog_sample OUT.hlog\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    struct hist total_intended, total_service, intended, service;
    hist_init_default(&total_intended);
    hist_init_default(&total_service);
    hist_init_default(&intended);
    hist_init_default(&service);

    int rc = hlog_header(f, START_EPOCH, "volley hlog_sample unit=ns lowest=1 highest=3600000000000 digits=3");
    for (int i = 0; i < INTERVALS && rc == 0; i++) {
        hist_reset(&intended);
        hist_reset(&service);
        for (int k = 0; k < PER_INTERVAL; k++) {
            hist_record(&intended, intended_ns(i));
            if (i != EMPTY_SERVICE_INTERVAL)
                hist_record(&service, service_ns());
        }
        /* Irregular starts and lengths, as a real run's timer gives. */
        double start = i * 1.0 + 0.0005 * i;
        rc = hlog_interval(f, NULL, start, 1.0 + 0.0625 * (i % 2), &intended, 1e6);
        if (rc == 0)
            rc = hlog_interval(f, "service", start, 1.0 + 0.0625 * (i % 2), &service, 1e6);
        hist_merge(&total_intended, &intended);
        hist_merge(&total_service, &service);
    }
    if (fclose(f) != 0 || rc != 0) {
        perror(argv[1]);
        return 1;
    }
    print_figures("untagged", &total_intended);
    print_figures("service", &total_service);
    hist_free(&total_intended);
    hist_free(&total_service);
    hist_free(&intended);
    hist_free(&service);
    return 0;
}
