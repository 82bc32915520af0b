/* `volley compare`'s noise rule, how large a change between two runs is
 * still chance, and the verdict that follows: a percentile's noise from the
 * runs' histograms (a distribution-free interval, the values at the ranks
 * around it), the other figures' from the spread of their seconds. */
#include "compare.h"

#include "fmt.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Two-sided 95 %: a run's interval holds its true percentile 19 times in
 * 20 when its requests' times are independent draws. */
#define Z 1.96

/* The value of rank (1..count) in h, as hist_percentile reads one. */
static double value_at_rank(const struct hist *h, double rank)
{
    struct hist_iter it;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it))
        if ((double)it.cumulative >= rank)
            return (double)(it.highest < h->max ? it.highest : h->max);
    return (double)h->max;
}

/* h's percentile pct and its interval's margins below (*lo) and above
 * (*hi), >= 0. */
static double pct_interval(const struct hist *h, double pct, double *lo, double *hi)
{
    double n = (double)h->count, q = fmin(fmax(pct / 100, 0), 1);
    double v = (double)hist_percentile(h, pct);
    double half = Z * sqrt(n * q * (1 - q));
    *lo = v - value_at_rank(h, fmax(1, floor(q * n - half)));
    *hi = value_at_rank(h, fmin(n, ceil(q * n + half))) - v;
    *lo = fmax(*lo, 0);
    *hi = fmax(*hi, 0);
    return v;
}

double compare_pct_noise(const struct hist *hb, const struct hist *hn, double pct)
{
    if (hb->count == 0 || hn->count == 0)
        return NAN;
    double lo_b, hi_b, lo_n, hi_n;
    double vb = pct_interval(hb, pct, &lo_b, &hi_b);
    double vn = pct_interval(hn, pct, &lo_n, &hi_n);
    /* Only the sides between the two values can make the change: base's
     * upper and new's lower margin when new is the larger. */
    double a = vn >= vb ? hi_b : lo_b, b = vn >= vb ? lo_n : hi_n;
    return sqrt(a * a + b * b);
}

/* A run's per-second spread: the standard deviation of its samples
 * relative to their mean; 0 when every sample is 0. */
static double rel_sd(const double *s, size_t n)
{
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (s[i] - mean) * (s[i] - mean);
    double sd = sqrt(sq / (double)(n - 1));
    if (mean <= 0)
        return 0;
    return sd / mean;
}

double compare_noise(const double *sb, size_t nb, double vb, const double *sn, size_t nn, double vn)
{
    if (nb < 3 || nn < 3 || isnan(vb) || isnan(vn))
        return NAN;
    return 2 * fmax(rel_sd(sb, nb) * fabs(vb), rel_sd(sn, nn) * fabs(vn));
}

double compare_figure_noise(const struct compare_run *b, const struct compare_run *n, const struct compare_figure *f)
{
    double vb = compare_value(b, f), vn = compare_value(n, f);
    if (isnan(vb) || isnan(vn))
        return NAN;
    const struct compare_dist *db = compare_figure_dist(b, f), *dn = compare_figure_dist(n, f);
    if (db && dn && f->stat == COMPARE_PCT)
        return compare_pct_noise(&db->h, &dn->h, f->pct);
    size_t cap = (b->npoints > n->npoints ? b->npoints : n->npoints) + 1;
    double *sb = xmalloc(cap * sizeof *sb), *sn = xmalloc(cap * sizeof *sn);
    size_t nb = compare_samples(b, f, sb, cap), nn = compare_samples(n, f, sn, cap);
    double noise = compare_noise(sb, nb, vb, sn, nn, vn);
    free(sb);
    free(sn);
    return noise;
}

enum compare_verdict compare_judge(enum compare_kind kind, double base, double new_, double noise)
{
    if (isnan(base) || isnan(new_))
        return COMPARE_NODATA;
    double d = new_ - base;
    bool share = kind == COMPARE_SHARE || kind == COMPARE_PASS;
    double floor_ = share ? 0 : 0.01 * fabs(base);
    double band = isnan(noise) ? floor_ : fmax(noise, floor_);
    if (fabs(d) <= band)
        return COMPARE_SAME;
    bool up_is_better = kind == COMPARE_RATE || kind == COMPARE_PASS;
    return (d > 0) == up_is_better ? COMPARE_BETTER : COMPARE_WORSE;
}

char *compare_band_text(enum compare_kind kind, double base, double noise, char *buf, size_t len)
{
    if (isnan(noise))
        snprintf(buf, len, "unknown");
    else if (kind == COMPARE_SHARE || kind == COMPARE_PASS)
        snprintf(buf, len, "\u00b1%.2gpp", noise);
    else if (base != 0)
        snprintf(buf, len, "\u00b1%.1f%%", 100.0 * fmax(noise, 0.01 * fabs(base)) / fabs(base));
    else if (kind == COMPARE_TIME) {
        char t[32];
        snprintf(buf, len, "\u00b1%s", fmt_time(t, sizeof t, noise));
    } else
        snprintf(buf, len, "\u00b1%.1f", noise);
    return buf;
}
