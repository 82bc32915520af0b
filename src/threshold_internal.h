/* Shared by threshold.c (the grammar) and threshold_figure.c (figures as
 * text) only. */
#ifndef VOLLEY_THRESHOLD_INTERNAL_H
#define VOLLEY_THRESHOLD_INTERNAL_H

#include "threshold.h"

#include <stdbool.h>
#include <stddef.h>

/* The histogram families' words, by source (THRESHOLD_LATENCY ..
 * THRESHOLD_WAITING, in that order). */
#define THRESHOLD_HISTS 4
extern const char *const threshold_hist_names[THRESHOLD_HISTS];

/* A character of a metric name that needs no quotes: a letter, a digit,
 * '_' or '-'. */
bool threshold_name_char(char c);

/* A figure close to fig (a typo), into buf; "" when none is close. */
void threshold_suggest(const char *fig, char *buf, size_t len);

#endif
