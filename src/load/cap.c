/* --max-rps's token bucket; see cap.h. */
#include "cap.h"

#include <math.h>

void cap_init(struct cap *c, double rate)
{
    double ns = ceil(1e9 / rate);
    c->interval_ns = ns < 1 ? 1 : (int64_t)ns;
    c->next = 0;
}

bool cap_take(struct cap *c, int64_t now)
{
    if (now < c->next)
        return false;
    c->next = now + c->interval_ns;
    return true;
}
