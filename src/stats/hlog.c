/* HdrHistogram interval log writer, byte for byte the text Java's
 * HistogramLogWriter (HdrHistogram 2.1.11, log format 1.3) writes, down to
 * its number rounding, with volley's own histogram encoder. */
#include "hlog.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hdr_codec.h"

/* Room for "%.3f" of any finite double (at most 309 integer digits). */
#define FIXED3_MAX 320

/* Java's Formatter ("%.3f", Locale.US) rounds the shortest decimal that reads
 * back as v, half up; printf rounds v's exact binary value, half even. They
 * disagree on values such as 0.0625 (Java 0.063, printf 0.062) and 1.0005
 * (1.001, 1.000), so the digits are rounded here as Java does. */
static void fixed3(char out[FIXED3_MAX], double v)
{
    if (!isfinite(v)) {
        snprintf(out, FIXED3_MAX, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    char sci[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    /* sci is [-]d.ddde±x: digits[j] stands for 10^(x - j). */
    const char *s = sci;
    int neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[nd++] = *s;
    int x = atoi(s + 1);

    /* fix holds the integer digits (at least one) and three decimals. */
    char fix[FIXED3_MAX];
    int ip = x + 1 > 1 ? x + 1 : 1;
    int len = ip + 3;
    for (int k = 0; k < len; k++) {
        int j = x - (ip - 1 - k);
        fix[k] = j >= 0 && j < nd ? digits[j] : '0';
    }
    int first_dropped = x + 4;
    if (first_dropped >= 0 && first_dropped < nd && digits[first_dropped] >= '5') {
        int k = len - 1;
        while (k >= 0 && fix[k] == '9')
            fix[k--] = '0';
        if (k >= 0) {
            fix[k]++;
        } else {
            memmove(fix + 1, fix, (size_t)len);
            fix[0] = '1';
            ip++;
        }
    }
    snprintf(out, FIXED3_MAX, "%s%.*s.%.3s", neg ? "-" : "", ip, fix, fix + ip);
}

/* Java's Date.toString(): "EEE MMM dd HH:mm:ss zzz yyyy", English names
 * whatever the locale. */
static void java_date(char *out, size_t size, double epoch_s)
{
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)floor(epoch_s);
    struct tm tm;
    if (!localtime_r(&t, &tm)) {
        snprintf(out, size, "?");
        return;
    }
    snprintf(out, size, "%s %s %02d %02d:%02d:%02d %s %d", days[tm.tm_wday % 7],
             months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             tm.tm_zone ? tm.tm_zone : "", tm.tm_year + 1900);
}

int hlog_header(FILE *f, double start_epoch_s, const char *comment)
{
    while (comment && *comment) {
        size_t n = strcspn(comment, "\n");
        fprintf(f, "#[%.*s]\n", (int)n, comment);
        comment += n;
        if (*comment == '\n')
            comment++;
    }
    char start[FIXED3_MAX], date[128];
    fixed3(start, start_epoch_s);
    java_date(date, sizeof date, start_epoch_s);
    fprintf(f, "#[Histogram log format version 1.3]\n");
    fprintf(f, "#[StartTime: %s (seconds since epoch), %s]\n", start, date);
    fprintf(f, "#[BaseTime: %s (seconds since epoch)]\n", start);
    fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
               "\"Interval_Compressed_Histogram\"\n");
    return ferror(f) ? -1 : 0;
}

int hlog_interval(FILE *f, const char *tag, double start_s, double length_s,
                  const struct hist *h, double max_ratio)
{
    if (tag && !*tag)
        tag = NULL;
    if (tag && tag[strcspn(tag, ", \r\n")] != '\0') {
        errno = EINVAL;
        return -1;
    }
    /* Java logs getMaxValue(): the top of max's bucket, 0 for max 0. */
    int64_t max = h->max > 0 ? hist_highest_equivalent(h, h->max) : 0;
    char start[FIXED3_MAX], length[FIXED3_MAX], maxs[FIXED3_MAX];
    fixed3(start, start_s);
    fixed3(length, length_s);
    fixed3(maxs, (double)max / max_ratio);
    char *blob = hdr_encode(h, NULL);
    int rc = fprintf(f, "%s%s%s%s,%s,%s,%s\n", tag ? "Tag=" : "", tag ? tag : "", tag ? "," : "",
                     start, length, maxs, blob);
    free(blob);
    return rc < 0 || ferror(f) ? -1 : 0;
}
