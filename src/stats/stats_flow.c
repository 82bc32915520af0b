/* A flow's figures: iterations, checks and groups (stats_flow.h), their
 * making at first use, and their merge by id or alignment by name. */
#include "stats_flow.h"

#include "stats_reason.h"
#include "xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void stats_flow_init(struct stats_flow *f)
{
    memset(f, 0, sizeof *f);
    hist_init_default(&f->duration);
    hist_init_default(&f->start_lag);
    hist_init_default(&f->cap_wait);
}

static void group_free(struct stats_group *g)
{
    free(g->name);
    hist_free(&g->duration);
    free(g);
}

void stats_flow_free(struct stats_flow *f)
{
    hist_free(&f->duration);
    hist_free(&f->start_lag);
    hist_free(&f->cap_wait);
    for (size_t i = 0; i < f->nreasons; i++)
        free(f->reasons[i].reason);
    free(f->reasons);
    for (uint32_t i = 0; f->checks && i < f->nchecks; i++)
        free(f->checks[i].name);
    free(f->checks);
    for (uint32_t i = 0; f->groups && i < f->ngroups; i++)
        if (f->groups[i])
            group_free(f->groups[i]);
    free(f->groups);
    memset(f, 0, sizeof *f);
}

uint64_t stats_flow_reason(struct stats_flow *f, const char *reason, uint64_t n)
{
    return stats_reason_add(&f->reasons, &f->nreasons, SIZE_MAX, reason, n)->count;
}

struct stats_check *stats_flow_check_add(struct stats_flow *f, uint32_t id, const char *name)
{
    assert(id < NAMES_MAX && "names.c hands out ids below NAMES_MAX");
    if (!f->checks)
        f->checks = xcalloc(NAMES_MAX, sizeof *f->checks);
    struct stats_check *c = &f->checks[id];
    if (!c->name)
        c->name = xstrdup(name);
    if (id >= f->nchecks)
        f->nchecks = id + 1;
    return c;
}

struct stats_group *stats_flow_group_add(struct stats_flow *f, uint32_t id, const char *name)
{
    assert(id < NAMES_MAX && "names.c hands out ids below NAMES_MAX");
    if (!f->groups)
        f->groups = xcalloc(NAMES_MAX, sizeof *f->groups);
    if (!f->groups[id]) {
        struct stats_group *g = xcalloc(1, sizeof *g);
        g->name = xstrdup(name);
        hist_init_default(&g->duration);
        f->groups[id] = g;
        if (f->intervals)
            intervals_add_group(f->intervals, id);
    }
    if (id >= f->ngroups)
        f->ngroups = id + 1;
    return f->groups[id];
}

void stats_flow_merge(struct stats_flow *dst, const struct stats_flow *src)
{
    dst->on |= src->on;
    dst->started += src->started;
    dst->completed += src->completed;
    dst->failed += src->failed;
    dst->cut_off += src->cut_off;
    hist_merge(&dst->duration, &src->duration);
    hist_merge(&dst->start_lag, &src->start_lag);
    hist_merge(&dst->cap_wait, &src->cap_wait);
    for (size_t i = 0; i < src->nreasons; i++)
        stats_flow_reason(dst, src->reasons[i].reason, src->reasons[i].count);
    dst->reasons_more += src->reasons_more;
    dst->reasons_more_count += src->reasons_more_count;
    for (uint32_t i = 0; src->checks && i < src->nchecks; i++) {
        const struct stats_check *c = &src->checks[i];
        if (!c->name)
            continue;
        struct stats_check *d = stats_flow_check_add(dst, i, c->name);
        d->pass += c->pass;
        d->fail += c->fail;
    }
    for (uint32_t i = 0; src->groups && i < src->ngroups; i++) {
        const struct stats_group *g = src->groups[i];
        if (!g)
            continue;
        struct stats_group *d = stats_flow_group_add(dst, i, g->name);
        d->count += g->count;
        d->failed += g->failed;
        hist_merge(&d->duration, &g->duration);
    }
}

/* The id in dst of the name, or the next new one (*next, counted up);
 * -1 past NAMES_MAX. */
static int dst_id(const char *name, const char *(*name_at)(const struct stats_flow *, uint32_t), uint32_t n,
                  const struct stats_flow *dst, uint32_t *next)
{
    for (uint32_t j = 0; j < n; j++) {
        const char *d = name_at(dst, j);
        if (d && strcmp(d, name) == 0)
            return (int)j;
    }
    if (*next >= NAMES_MAX)
        return -1;
    return (int)(*next)++;
}

static const char *check_name(const struct stats_flow *f, uint32_t i)
{
    return f->checks ? f->checks[i].name : NULL;
}

static const char *group_name(const struct stats_flow *f, uint32_t i)
{
    return f->groups && f->groups[i] ? f->groups[i]->name : NULL;
}

int stats_flow_align(struct stats_flow *src, const struct stats_flow *dst)
{
    struct stats_check *checks = NULL;
    struct stats_group **groups = NULL;
    uint32_t nchecks = 0, ngroups = 0, next;
    if (src->checks) {
        checks = xcalloc(NAMES_MAX, sizeof *checks);
        next = dst->nchecks;
        for (uint32_t i = 0; i < src->nchecks; i++) {
            if (!src->checks[i].name)
                continue;
            int id = dst_id(src->checks[i].name, check_name, dst->nchecks, dst, &next);
            if (id < 0)
                goto fail;
            checks[id] = src->checks[i];
            if ((uint32_t)id + 1 > nchecks)
                nchecks = (uint32_t)id + 1;
        }
    }
    if (src->groups) {
        groups = xcalloc(NAMES_MAX, sizeof *groups);
        next = dst->ngroups;
        for (uint32_t i = 0; i < src->ngroups; i++) {
            if (!src->groups[i])
                continue;
            int id = dst_id(src->groups[i]->name, group_name, dst->ngroups, dst, &next);
            if (id < 0)
                goto fail;
            groups[id] = src->groups[i];
            if ((uint32_t)id + 1 > ngroups)
                ngroups = (uint32_t)id + 1;
        }
    }
    free(src->checks);
    free(src->groups);
    src->checks = checks;
    src->nchecks = nchecks;
    src->groups = groups;
    src->ngroups = ngroups;
    return 0;
fail:
    free(checks);
    free(groups);
    return -1;
}

bool stats_flow_merge_fits(const struct stats_flow *dst, const struct stats_flow *src)
{
    if (!hist_merge_fits(&dst->duration, &src->duration) || !hist_merge_fits(&dst->start_lag, &src->start_lag) ||
        !hist_merge_fits(&dst->cap_wait, &src->cap_wait))
        return false;
    for (uint32_t i = 0; src->groups && dst->groups && i < src->ngroups && i < dst->ngroups; i++) {
        const struct stats_group *a = dst->groups[i], *b = src->groups[i];
        if (a && b && !hist_merge_fits(&a->duration, &b->duration))
            return false;
    }
    return true;
}

void stats_flow_check_totals(const struct stats_flow *f, uint64_t *pass, uint64_t *fail)
{
    *pass = *fail = 0;
    for (uint32_t i = 0; f->checks && i < f->nchecks; i++) {
        *pass += f->checks[i].pass;
        *fail += f->checks[i].fail;
    }
}

const struct stats_check *stats_flow_check_find(const struct stats_flow *f, const char *name)
{
    for (uint32_t i = 0; f->checks && i < f->nchecks; i++)
        if (f->checks[i].name && strcmp(f->checks[i].name, name) == 0)
            return &f->checks[i];
    return NULL;
}

const struct stats_group *stats_flow_group_find(const struct stats_flow *f, const char *name)
{
    for (uint32_t i = 0; f->groups && i < f->ngroups; i++)
        if (f->groups[i] && strcmp(f->groups[i]->name, name) == 0)
            return f->groups[i];
    return NULL;
}
