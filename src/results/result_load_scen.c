/* A saved result's "scenarios" (a run of several, report_scenarios.c)
 * read back into run_result.scenarios: each one's name and load, and its
 * figures (result_load_scenario). Untrusted: every field checked. */
#include "result_load_scen.h"

#include "html_internal.h"
#include "result_load.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A name as the script may give one (scenarios.lua): 1 to 64 bytes. */
static bool name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n >= 1 && n <= 64;
}

int result_load_scenarios(const struct json *root, struct run_result *r, char *err, size_t errlen)
{
    struct html_rd rd = {err, errlen, false};
    r->scenarios = NULL;
    r->nscenarios = 0;
    const struct json *list = html_rd_of(&rd, root, "", "scenarios", JSON_ARRAY, false);
    if (!list)
        return rd.failed ? -1 : 0;
    if (list->len > 64)
        return snprintf(err, errlen, "scenarios: %zu of them, more than 64", list->len), -1;
    r->scenarios = xcalloc(list->len ? list->len : 1, sizeof *r->scenarios);
    for (size_t i = 0; i < list->len; i++) {
        const struct json *it = &list->items[i];
        struct run_scenario *sc = &r->scenarios[i];
        stats_init(&sc->stats);
        r->nscenarios = (uint32_t)i + 1;
        if (it->type != JSON_OBJECT)
            return snprintf(err, errlen, "scenarios[%zu]: expected an object", i), -1;
        const char *name = html_rd_str(&rd, it, "scenarios[]", "name", true, NULL);
        if (rd.failed)
            return -1;
        if (!name_ok(name))
            return snprintf(err, errlen, "scenarios[%zu].name: 1 to 64 bytes", i), -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(r->scenarios[j].name, name) == 0)
                return snprintf(err, errlen, "scenarios[%zu].name: \"%s\" twice", i, name), -1;
        snprintf(sc->name, sizeof sc->name, "%s", name);
        const char *model = html_rd_str(&rd, it, "scenarios[]", "model", true, NULL);
        sc->open = model && strcmp(model, "open") == 0;
        double users = html_rd_count(&rd, it, "scenarios[]", "users");
        double start = html_rd_count(&rd, it, "scenarios[]", "start_ns");
        double dur = html_rd_count(&rd, it, "scenarios[]", "duration_ns");
        double rate = sc->open ? html_rd_count(&rd, it, "scenarios[]", "rate") : 0;
        if (rd.failed)
            return -1;
        if (users > 10000000 || start > 1e16 || dur > 1e16 || rate > 1e8)
            return snprintf(err, errlen, "scenarios[%zu]: users, rate, start_ns or duration_ns out of range", i), -1;
        sc->users = (uint32_t)users;
        sc->start_ns = (int64_t)start;
        sc->duration_ns = (int64_t)dur;
        sc->rate = (uint64_t)rate;
        if (result_load_scenario(it, &sc->stats, err, errlen) < 0)
            return -1;
    }
    return 0;
}
