/* Wall-clock time for labelling a run. Never used to measure anything: that
 * is clock_now_ns()'s job. */
#include "clock.h"

double clock_epoch_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
