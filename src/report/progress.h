/* The live progress on stderr, drawn by the main thread from the run's
 * series (series.h) about four times a second: one line redrawn in place
 * (--progress auto: on a terminal; bar: wherever stderr goes), or a plain
 * line every 10 s for logs (--progress lines). Never with -q, never on a
 * pipe unless bar or lines were asked for. Workers pay nothing for it: it
 * reads what they hand the main thread once a second anyway. */
#ifndef VOLLEY_PROGRESS_H
#define VOLLEY_PROGRESS_H

#include "options.h"
#include "series.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
    FILE *out;
    enum { PROGRESS_OFF, PROGRESS_BAR, PROGRESS_LINES } mode;
    bool color;           /* ANSI colour for errors (the bar on a terminal, NO_COLOR unset) */
    bool drawn;           /* the bar is on the screen */
    int64_t next_line_ns; /* lines: when the next one is due */
    const struct options *o;
};

/* Chooses the mode from o (--progress, -q), whether out is a terminal
 * (tty) and whether NO_COLOR is set (no_color). */
void progress_init(struct progress *p, const struct options *o, FILE *out, bool tty, bool no_color);

/* Draws the state at elapsed_ns into the run (the bar every call, a line
 * when 10 s have passed since the last). With thresholds (nthresholds >
 * 0), how many of them the run passes so far (holding: a --threshold
 * that holds, a --fail-if that does not). */
void progress_update(struct progress *p, const struct series *s, int64_t elapsed_ns, size_t holding,
                     size_t nthresholds);

/* The run is over: the bar is erased (the report follows). */
void progress_end(struct progress *p);

#endif
