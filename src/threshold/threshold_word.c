/* The two words a threshold expression comes with (--threshold: it must
 * hold; --fail-if: the run fails when it holds), their spellings, and the
 * note for a --fail-if written as a must-hold limit would be. */
#include "threshold.h"

#include "quote.h"

#include <stdio.h>
#include <string.h>

const char *threshold_word_option(enum threshold_word word)
{
    return word == THRESHOLD_FAIL_IF ? "--fail-if" : "--threshold";
}

const char *threshold_word_name(enum threshold_word word)
{
    return word == THRESHOLD_FAIL_IF ? "fail-if" : "threshold";
}

int threshold_word_parse(const char *name, enum threshold_word *word)
{
    if (strcmp(name, "threshold") == 0)
        *word = THRESHOLD_MUST_HOLD;
    else if (strcmp(name, "fail-if") == 0)
        *word = THRESHOLD_FAIL_IF;
    else
        return -1;
    return 0;
}

/* Figures where less is better: a time, or failures (counted or as a
 * share); a --fail-if bounding them from above is the usual mistake. */
static bool lower_is_better(const struct threshold *th)
{
    if (th->kind == THRESHOLD_TIME)
        return true;
    switch (th->source) {
    case THRESHOLD_ERRORS:
    case THRESHOLD_FAILED_SHARE:
    case THRESHOLD_REASON:
        return true;
    case THRESHOLD_ITERATIONS:
    case THRESHOLD_GROUP:
        return th->stat == THRESHOLD_FAILED;
    default:
        return false;
    }
}

bool threshold_note(const struct threshold *th, const char *what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (th->word != THRESHOLD_FAIL_IF || (th->op != THRESHOLD_LT && th->op != THRESHOLD_LE) ||
        !lower_is_better(th))
        return false;
    char raw[1200];
    snprintf(raw, sizeof raw, "--fail-if '%s' fails %s when %.*s is %s %.*s; a limit that must hold is --threshold",
             th->expr, what, (int)th->fig_len, th->expr + th->fig_at, th->op == THRESHOLD_LT ? "under" : "at or under",
             (int)th->value_len, th->expr + th->value_at);
    quote_printable(buf, len, raw);
    return true;
}
