/*
 * volley-target, the /v1 endpoints' set-up: the --llm-* options (the
 * defaults of the vt_* request fields), the whole-server stall window of
 * --llm-stall-all-at-ms, and the truth log (--llm-log), written through one
 * big stdio buffer and complete once the server has exited.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "vtarget.h"

struct llm_conf llm_conf = { .tokens = 16, .usage = -1, .framing = FR_CHUNKED, .stall_all_at_ms = -1 };
FILE *llm_truth;
bool llm_exiting;
static uint64_t start_ns;                  /* --llm-stall-all-at-ms counts from here */
static uint64_t stall_from(void);

/* ---- options ------------------------------------------------------------ */

static double num(const char *name, const char *s, double min, double max)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= min && v <= max))
        die("bad value for --%s: '%s' (want a number from %g to %g)", name, s, min, max);
    return v;
}

static unsigned long long whole(const char *name, const char *s, double min, double max)
{
    double v = num(name, s, min, max);
    if (v != (double)(unsigned long long)v)
        die("bad value for --%s: '%s' (want a whole number)", name, s);
    return (unsigned long long)v;
}

void llm_option(int code, const char *arg)
{
    switch (code) {
    case LLM_OPT_TOKENS: llm_conf.tokens = whole("llm-tokens", arg, 0, (double)TOKENS_MAX); break;
    case LLM_OPT_FIRST_MS: llm_conf.first_ms = num("llm-first-ms", arg, 0, MS_MAX); break;
    case LLM_OPT_GAP_MS: llm_conf.gap_ms = num("llm-gap-ms", arg, 0, MS_MAX); break;
    case LLM_OPT_STALL_AT: llm_conf.stall_at = whole("llm-stall-at", arg, 1, (double)TOKENS_MAX); break;
    case LLM_OPT_STALL_MS: llm_conf.stall_ms = num("llm-stall-ms", arg, 0, MS_MAX); break;
    case LLM_OPT_STALL_ALL_AT: llm_conf.stall_all_at_ms = num("llm-stall-all-at-ms", arg, 0, MS_MAX); break;
    case LLM_OPT_STALL_ALL_MS: llm_conf.stall_all_ms = num("llm-stall-all-ms", arg, 0, MS_MAX); break;
    case LLM_OPT_EVENT_BYTES: llm_conf.event_bytes = whole("llm-event-bytes", arg, 0, (double)EVENT_MAX); break;
    case LLM_OPT_HUGE: llm_conf.huge = true; break;
    case LLM_OPT_LOG: llm_conf.log_file = arg; break;
    case LLM_OPT_USAGE:
        if (!strcmp(arg, "on") || !strcmp(arg, "off") || !strcmp(arg, "request"))
            llm_conf.usage = arg[0] == 'r' ? -1 : arg[1] == 'n';
        else
            die("bad value for --llm-usage: '%s' (want on, off or request)", arg);
        break;
    case LLM_OPT_FRAMING:
        if (!strcmp(arg, "chunked"))
            llm_conf.framing = FR_CHUNKED;
        else if (!strcmp(arg, "length"))
            llm_conf.framing = FR_LENGTH;
        else if (!strcmp(arg, "close"))
            llm_conf.framing = FR_CLOSE;
        else
            die("bad value for --llm-framing: '%s' (want chunked, length or close)", arg);
        break;
    default:
        die("unknown --llm option");
    }
}

void llm_init(void)
{
    if ((llm_conf.stall_all_at_ms >= 0) != (llm_conf.stall_all_ms > 0))
        die("--llm-stall-all-at-ms and --llm-stall-all-ms need each other");
    if (llm_conf.stall_at && !llm_conf.stall_ms)
        die("--llm-stall-at needs --llm-stall-ms");
    start_ns = mono_ns();
    static char buf[1024 * 1024];   /* a line per event: written in big blocks */
    if (llm_conf.log_file) {
        if (!(llm_truth = fopen(llm_conf.log_file, "w")))
            die("cannot open --llm-log %s: %s", llm_conf.log_file, strerror(errno));
        setvbuf(llm_truth, buf, _IOFBF, sizeof buf);
        if (llm_conf.stall_all_at_ms >= 0) {   /* the window, for a test to check against */
            uint64_t from = stall_from();
            fprintf(llm_truth, "s %" PRIu64 " %" PRIu64 "\n", from,
                    from + (uint64_t)(llm_conf.stall_all_ms * 1e6));
        }
    }
}

void llm_shutdown(void)
{
    llm_exiting = true;
}

void llm_log_close(void)
{
    if (llm_truth && fclose(llm_truth) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", llm_conf.log_file, strerror(errno));
    llm_truth = NULL;
}

/* ---- the truth log ------------------------------------------------------ */

static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

void llm_log_line(char tag, const char *id, const char *k, unsigned long long ki,
                     uint64_t t, const char *tail, uint64_t bytes, bool has_bytes)
{
    if (!llm_truth)
        return;
    char line[LLM_ID_MAX + 128], *p = line;
    *p++ = tag;
    *p++ = ' ';
    p = put_str(p, id);
    *p++ = ' ';
    if (k) {
        p = put_str(p, k);
        *p++ = ' ';
    } else if (tag == 'e') {
        p = put_u64(p, ki);
        *p++ = ' ';
    }
    p = put_u64(p, t);
    if (tail) {
        *p++ = ' ';
        p = put_str(p, tail);
    }
    if (has_bytes) {
        *p++ = ' ';
        p = put_u64(p, bytes);
    }
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), llm_truth);
}

static uint64_t stall_from(void)
{
    return start_ns + (uint64_t)(llm_conf.stall_all_at_ms * 1e6);
}

uint64_t llm_stall_all(uint64_t due)
{
    if (llm_conf.stall_all_at_ms < 0)
        return due;
    uint64_t from = stall_from();
    uint64_t to = from + (uint64_t)(llm_conf.stall_all_ms * 1e6);
    return due >= from && due < to ? to : due;
}

