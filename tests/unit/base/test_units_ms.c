/* Unit test for units_ms_to_ns: a script's timeout in milliseconds becomes
 * nanoseconds with no undefined conversion, whatever double it is (NaN,
 * infinities, negatives, values past int64_t), clamped to 100 days. */
#include "units.h"

#include "../check.h"

#include <math.h>

int main(void)
{
    CHECK_INT(units_ms_to_ns(2500), INT64_C(2500000000));
    CHECK_INT(units_ms_to_ns(0.5), 500000);
    CHECK_INT(units_ms_to_ns(0), 0);
    CHECK_INT(units_ms_to_ns(-1), 0);
    CHECK_INT(units_ms_to_ns(NAN), 0);
    CHECK_INT(units_ms_to_ns(-INFINITY), 0);
    CHECK_INT(units_ms_to_ns(INFINITY), UNITS_MAX_DURATION_NS);
    CHECK_INT(units_ms_to_ns(1e300), UNITS_MAX_DURATION_NS);
    CHECK_INT(units_ms_to_ns(9.3e12), UNITS_MAX_DURATION_NS); /* * 1e6 is past INT64_MAX */
    CHECK_INT(units_ms_to_ns(100.0 * 24 * 3600 * 1000), UNITS_MAX_DURATION_NS);
    return check_exit("test_units_ms");
}
