/* Figures as the reports print them; see fmt.h. */
#include "fmt.h"

#include <stdio.h>
#include <time.h>

const char *fmt_time(char *buf, size_t len, double ns)
{
    if (ns < 1e6)
        snprintf(buf, len, "%.1fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.2fms", ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", ns / 1e9);
    return buf;
}

const char *fmt_bytes(char *buf, size_t len, double b)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.2f%s", b, units[u]);
    return buf;
}

const char *fmt_utc(char *buf, size_t len, double epoch)
{
    if (!(epoch >= 0 && epoch < 1e11))
        return NULL;
    time_t s = (time_t)epoch;
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        return NULL;
    return buf;
}
