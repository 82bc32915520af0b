/* unit test for arrivals.c and a random process in schedule.c
 * (--arrivals): the parser and its words; the gaps' mean and variance at a
 * rate R against the exponential's (1/R, 1/R^2) and gamma:K's (1/R,
 * 1/(K R^2)) within 5 standard errors, under fixed seeds; the same seed
 * the same due times to the nanosecond, another seed others; the lanes of
 * W workers in N shards together the one-process sequence, each arrival
 * once at the same due time, with a constant rate and with --stages; the
 * queue counting due exactly what is due, never at or past the end. */
#include "arrivals.h"
#include "schedule.h"
#include "shard.h"
#include "stages.h"

#include "../check.h"

#include <math.h>
#include <stdlib.h>

static void no_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    (void)arg, (void)slot, (void)intended, (void)now;
}

static void no_end(void *arg)
{
    (void)arg;
}

static void test_parse(void)
{
    struct arrivals_spec a;
    char err[256], buf[64];
    CHECK_INT(arrivals_parse("fixed", &a, err, sizeof err), 0);
    CHECK_INT(a.kind, ARRIVALS_FIXED);
    CHECK_INT(arrivals_parse("poisson", &a, err, sizeof err), 0);
    CHECK_INT(a.kind, ARRIVALS_POISSON);
    CHECK_STR(arrivals_describe(a, buf, sizeof buf), "Poisson arrivals");
    CHECK_INT(arrivals_parse("gamma:0.5", &a, err, sizeof err), 0);
    CHECK_INT(a.kind, ARRIVALS_GAMMA);
    CHECK(a.shape == 0.5);
    CHECK_STR(arrivals_describe(a, buf, sizeof buf), "gamma(0.5) arrivals");
    CHECK_STR(arrivals_text(a, buf, sizeof buf), "gamma:0.5");
    /* every word reads back to the same spec */
    const char *words[] = {"fixed", "poisson", "gamma:1", "gamma:0.1", "gamma:4", "gamma:0.001", "gamma:1000000",
                           "gamma:0.30000000000000004", "gamma:1e2"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        check_ctx("%s", words[i]);
        struct arrivals_spec b;
        CHECK_INT(arrivals_parse(words[i], &a, err, sizeof err), 0);
        CHECK_INT(arrivals_parse(arrivals_text(a, buf, sizeof buf), &b, err, sizeof err), 0);
        CHECK_INT(b.kind, a.kind);
        CHECK(b.shape == a.shape);
    }
    check_ctx(NULL);
    const char *bad[] = {"gama:2", "gamma:0", "gamma:x", "gamma:", "gamma:-1", "gamma:inf", "gamma:nan", "gamma: 2",
                         "gamma:2x", "gamma:0.0001", "gamma:2000000", "Poisson", "", "uniform"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("%s", bad[i]);
        err[0] = '\0';
        CHECK_INT(arrivals_parse(bad[i], &a, err, sizeof err), -1);
        CHECK(strncmp(err, "--arrivals: \"", 13) == 0);
        CHECK(strchr(err, '\n') == NULL);
    }
    check_ctx(NULL);
}

/* A schedule of worker `first` of `stride` at rate under process p (NULL:
 * fixed), its arrival 0 due at 0. */
static void make(struct sched *s, const struct arrivals *p, uint64_t rate, uint32_t first, uint32_t stride,
                 uint64_t count)
{
    sched_init(s, NULL, rate, first, stride, count, 1, 1, no_send, no_end, NULL);
    sched_arrivals(s, p);
    s->t0 = 0;
}

/* The gaps between n + 1 due times at rate R (ns): their mean and variance
 * in seconds, checked against want_mean and want_var within 5 standard
 * errors (sd of the mean: sqrt(var / n); of the variance: sqrt((mu4 -
 * var^2) / n), mu4 the gaps' fourth central moment). */
static void check_moments(const struct arrivals *p, uint64_t rate, double want_var, double want_mu4)
{
    const uint64_t n = 10000;
    struct sched s;
    make(&s, p, rate, 0, 1, n + 1);
    double sum = 0, sum2 = 0;
    int64_t prev = sched_time(&s, 0);
    CHECK_INT(prev, 0);
    double *g = malloc(n * sizeof *g);
    for (uint64_t i = 0; i < n; i++) {
        int64_t t = sched_time(&s, i + 1);
        CHECK(t >= prev);
        g[i] = (double)(t - prev) / 1e9;
        sum += g[i];
        prev = t;
    }
    double mean = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        sum2 += (g[i] - mean) * (g[i] - mean);
    free(g);
    double var = sum2 / (double)(n - 1), want_mean = 1.0 / (double)rate;
    double se_mean = sqrt(want_var / (double)n), se_var = sqrt((want_mu4 - want_var * want_var) / (double)n);
    if (fabs(mean - want_mean) > 5 * se_mean)
        fprintf(stderr, "    mean %.9g, want %.9g +- %.3g\n", mean, want_mean, 5 * se_mean);
    CHECK(fabs(mean - want_mean) <= 5 * se_mean);
    if (fabs(var - want_var) > 5 * se_var)
        fprintf(stderr, "    variance %.9g, want %.9g +- %.3g\n", var, want_var, 5 * se_var);
    CHECK(fabs(var - want_var) <= 5 * se_var);
    sched_free(&s);
}

static void test_moments(void)
{
    char err[256];
    uint64_t seeds[] = {1, 42, 8675309};
    uint64_t rates[] = {1000, 250000};
    for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        for (size_t ri = 0; ri < sizeof rates / sizeof rates[0]; ri++) {
            double r = (double)rates[ri];
            struct arrivals_spec spec;
            struct arrivals p;
            /* Exp(rate): variance 1/R^2, fourth central moment 9/R^4 */
            check_ctx("poisson seed %llu rate %.0f", (unsigned long long)seeds[si], r);
            arrivals_parse("poisson", &spec, err, sizeof err);
            arrivals_init(&p, spec, seeds[si]);
            check_moments(&p, rates[ri], 1 / (r * r), 9 / (r * r * r * r));
            /* Gamma(K, 1/(K R)): variance 1/(K R^2), fourth central moment 3 (K + 2) / (K^3 R^4) */
            const char *gammas[] = {"gamma:0.25", "gamma:0.5", "gamma:1", "gamma:2", "gamma:4", "gamma:16"};
            for (size_t gi = 0; gi < sizeof gammas / sizeof gammas[0]; gi++) {
                check_ctx("%s seed %llu rate %.0f", gammas[gi], (unsigned long long)seeds[si], r);
                CHECK_INT(arrivals_parse(gammas[gi], &spec, err, sizeof err), 0);
                arrivals_init(&p, spec, seeds[si]);
                double k = spec.shape, r4 = r * r * r * r;
                check_moments(&p, rates[ri], 1 / (k * r * r), 3 * (k + 2) / (k * k * k * r4));
            }
        }
    }
    check_ctx(NULL);
}

/* The same seed gives the same due times to the nanosecond, from a
 * process made anew; another seed gives others. */
static void test_seeded(void)
{
    char err[256];
    const char *specs[] = {"poisson", "gamma:0.3", "gamma:3"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        check_ctx("%s", specs[i]);
        struct arrivals_spec spec;
        arrivals_parse(specs[i], &spec, err, sizeof err);
        struct arrivals a, b, c;
        arrivals_init(&a, spec, 12345);
        arrivals_init(&b, spec, 12345);
        arrivals_init(&c, spec, 12346);
        struct sched sa, sb, sc;
        make(&sa, &a, 3000, 0, 1, 10000);
        make(&sb, &b, 3000, 0, 1, 10000);
        make(&sc, &c, 3000, 0, 1, 10000);
        uint64_t same = 0, differ = 0;
        for (uint64_t j = 0; j < 10000; j++) {
            int64_t ta = sched_time(&sa, j);
            same += ta == sched_time(&sb, j);
            differ += ta != sched_time(&sc, j);
        }
        CHECK_UINT(same, 10000);
        CHECK_UINT(differ, 9999); /* all but arrival 0, due at t0 */
        sched_free(&sa);
        sched_free(&sb);
        sched_free(&sc);
    }
    check_ctx(NULL);
}

/* Worker w of W in shard I of N takes the arrivals k with k mod (W N) =
 * I + w N (shard_lane): all the lanes together hold every arrival of the
 * one-process run once, each at the one-process due time. */
static void check_lanes(const struct arrivals *p, uint64_t rate, const struct stages *curve, uint64_t total)
{
    static const uint32_t shapes[][2] = {{1, 1}, {2, 1}, {1, 3}, {3, 2}, {4, 5}, {7, 3}};
    struct sched one;
    make(&one, p, rate, 0, 1, total);
    if (curve)
        sched_curve(&one, curve);
    int64_t *want = malloc(total * sizeof *want);
    for (uint64_t k = 0; k < total; k++)
        want[k] = sched_time(&one, k);
    sched_free(&one);
    unsigned char *seen = malloc(total);
    for (size_t f = 0; f < sizeof shapes / sizeof shapes[0]; f++) {
        uint32_t nw = shapes[f][0], ns = shapes[f][1], m = nw * ns;
        check_ctx("%u threads x %u shards%s", nw, ns, curve ? ", stages" : "");
        memset(seen, 0, total);
        uint64_t held = 0, wrong = 0;
        for (uint32_t i = 0; i < ns; i++) {
            for (uint32_t w = 0; w < nw; w++) {
                uint32_t lane = (uint32_t)shard_lane((struct shard){i, ns}, w);
                struct sched s;
                make(&s, p, rate, lane, m, sched_share(total, lane, m));
                if (curve)
                    sched_curve(&s, curve);
                held += s.count;
                for (uint64_t j = 0; j < s.count; j++) {
                    uint64_t k = lane + j * m;
                    seen[k]++;
                    wrong += sched_time(&s, j) != want[k];
                }
                sched_free(&s);
            }
        }
        CHECK_UINT(held, total);
        CHECK_UINT(wrong, 0);
        uint64_t once = 0;
        for (uint64_t k = 0; k < total; k++)
            once += seen[k] == 1;
        CHECK_UINT(once, total);
    }
    check_ctx(NULL);
    free(seen);
    free(want);
}

static void test_lanes(void)
{
    char err[256];
    struct arrivals_spec spec;
    struct arrivals p;
    arrivals_parse("poisson", &spec, err, sizeof err);
    arrivals_init(&p, spec, 99);
    check_lanes(&p, 7919, NULL, 5003);
    arrivals_parse("gamma:0.2", &spec, err, sizeof err);
    arrivals_init(&p, spec, 99);
    check_lanes(&p, 7919, NULL, 5003);
    /* a rate curve's inverse, at operational times that are not whole */
    struct stages st;
    CHECK_INT(stages_parse(&st, "1s:2000,2s:2000,1s:0", 0, err, sizeof err), 0);
    check_lanes(&p, 2000, &st, 4000);
}

/* sched_time for any j in any order: the ring, the walk on past it, the
 * back walk behind it (and from the start again) all agree with a walk in
 * order. */
static void test_any_order(void)
{
    char err[256];
    struct arrivals_spec spec;
    struct arrivals p;
    arrivals_parse("gamma:0.7", &spec, err, sizeof err);
    arrivals_init(&p, spec, 5);
    struct sched in_order, s;
    make(&in_order, &p, 10000, 2, 3, 3000);
    int64_t want[3000];
    for (uint64_t j = 0; j < 3000; j++)
        want[j] = sched_time(&in_order, j);
    sched_free(&in_order);
    make(&s, &p, 10000, 2, 3, 3000);
    uint64_t order[] = {500, 3, 499, 437, 436, 100, 50, 2999, 0, 2936, 2935, 2000, 2001, 1, 2999};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        check_ctx("j %llu", (unsigned long long)order[i]);
        CHECK_INT(sched_time(&s, order[i]), want[order[i]]);
    }
    check_ctx(NULL);
    /* what is kept holds no start: a later t0 moves every due time with it */
    s.t0 = 1000;
    CHECK_INT(sched_time(&s, 2999), want[2999] + 1000);
    CHECK_INT(sched_time(&s, 1), want[1] + 1000);
    sched_free(&s);
}

/* advance(now) counts due exactly the arrivals due by now and before the
 * end; those at or past it never are. */
static void test_advance(void)
{
    char err[256];
    struct arrivals_spec spec;
    struct arrivals p;
    arrivals_parse("gamma:0.5", &spec, err, sizeof err);
    arrivals_init(&p, spec, 77);
    srand(3);
    for (uint32_t stride = 1; stride <= 3; stride++) {
        struct sched s, ref;
        make(&s, &p, 1000, stride - 1, stride, UINT64_MAX);
        make(&ref, &p, 1000, stride - 1, stride, UINT64_MAX);
        s.end = ref.end = INT64_C(2000000000); /* -d 2s */
        int64_t now = 0;
        for (int step = 0; step < 300; step++) {
            now += rand() % 20000000;
            sched_advance(&s, now);
            uint64_t want = 0;
            while (sched_time(&ref, want) <= now && sched_time(&ref, want) < s.end)
                want++;
            check_ctx("stride %u now %lld", stride, (long long)now);
            CHECK_UINT(s.due, want);
        }
        CHECK(now > s.end);
        sched_free(&s);
        sched_free(&ref);
    }
    check_ctx(NULL);
}

int main(void)
{
    test_parse();
    test_moments();
    test_seeded();
    test_lanes();
    test_any_order();
    test_advance();
    return check_exit("test_arrivals");
}
