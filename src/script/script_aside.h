/* A flow's setup(u) and teardown(data, u), run apart from the load
 * (docs/scripting.md, Setup data): the states that run them, and the data
 * setup() returns, carried between Lua states as JSON text
 * (lua/volley/setup_data.lua) and handed read-only to every user as
 * u.setup. */
#ifndef VOLLEY_SCRIPT_ASIDE_H
#define VOLLEY_SCRIPT_ASIDE_H

#include <stdbool.h>
#include <stddef.h>

struct script;

/* What a worker's state is for, and the data its users see. */
enum script_role { SCRIPT_ROLE_RUN, SCRIPT_ROLE_SETUP, SCRIPT_ROLE_TEARDOWN };

struct script_aside {
    enum script_role role;
    const char *text;   /* setup()'s data as JSON; NULL: none (u.setup is nil) */
    size_t len;
    const char *source; /* what the text came from, for messages ("setup()", "--setup-data x.json") */
};

/* Whether a flow's scenario has setup(u) (role SETUP) or teardown(data, u)
 * (role TEARDOWN). False for a script that is no flow. */
bool script_has_aside(struct script *s, enum script_role role);

/* A scenario table's teardown key checked: a function in a flow (flow:
 * the script is one), absent in any other script. Returns 0, or -1 with
 * err naming the script. */
int script_check_teardown(struct script *s, bool flow, char *err, size_t errlen);

/* The plan the worker states made from main get (main keeps the pointer,
 * which the caller keeps valid until the run's states are made; NULL:
 * the run's role and no data). */
void script_aside_plan(struct script *main, const struct script_aside *plan);

/* Applies main's plan to a worker state just loaded, before it is bound:
 * its role, and the data rebuilt read-only. Returns 0, or -1 with err
 * (the data is not JSON setup data: one line naming its source). */
int script_aside_apply(struct script *worker, const struct script *main, char *err, size_t errlen);

/* After a setup or teardown state's run: 1 when its hook returned (*text:
 * setup()'s data as JSON, malloc'ed, or NULL for none; *len its length),
 * 0 when it did not (why: its reason), -1 with why when it cannot be
 * asked. */
int script_aside_outcome(struct script *s, char **text, size_t *len, char *why, size_t whylen);

#endif
