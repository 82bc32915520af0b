/* Unit test for metrics.c's records at and past their top (2^50
 * thousandths, about 1.1259e12): a value past it, even one past int64 once
 * scaled, is kept as the top and counted in values.clamped, and the merge
 * adds the counts up. */
#include "metrics.h"

#include "../check.h"

int main(void)
{
    struct metrics a, b;
    metrics_init(&a);
    metrics_init(&b);
    int id = metrics_id(&a, "big", METRIC_RECORD);
    const struct hist *h = &a.m[id].values;
    CHECK_INT(h->highest, INT64_C(1) << 50);

    metrics_record(&a, id, 1e16); /* 1e19 thousandths: llround alone overflows */
    metrics_record(&a, id, 5e12);
    metrics_record(&a, id, 1);
    CHECK_INT(h->count, 3);
    CHECK_INT(h->clamped, 2);
    CHECK_INT(h->min, 1000);
    CHECK_INT(h->max, h->highest);

    metrics_record(&a, id, (double)h->highest / METRIC_SCALE); /* the top itself is not clamped */
    CHECK_INT(h->clamped, 2);
    metrics_record(&a, id, 1e300);
    CHECK_INT(h->clamped, 3);
    CHECK_INT(h->count, 5);

    int idb = metrics_id(&b, "big", METRIC_RECORD);
    metrics_record(&b, idb, 2e12);
    CHECK_INT(metrics_merge(&a, &b), 0);
    CHECK_INT(h->clamped, 4);
    CHECK_INT(h->count, 6);

    metrics_free(&a);
    metrics_free(&b);
    return check_exit("test_metrics");
}
