/* A worker's figures of request tags, its tag sets and labels, and the
 * recorders of tagged requests; see stats_tags.h. */
#include "stats_tags.h"

#include "xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(NAMES_MAX < UINT32_MAX - STATS_LABELS_MAX, "labels follow the names' ids");

struct stats_name *stats_tag_add(struct stats *s, uint32_t id, const char *text)
{
    assert(id < TAGS_MAX && "tags.c hands out ids below TAGS_MAX");
    if (!s->tags)
        s->tags = xcalloc(TAGS_MAX, sizeof *s->tags);
    if (s->tags[id])
        return s->tags[id];
    struct stats_name *n = xcalloc(1, sizeof *n);
    n->name = xstrdup(text);
    hist_init_default(&n->latency);
    if (s->open)
        hist_init_default(&n->service);
    s->tags[id] = n;
    if (id >= s->ntags)
        s->ntags = id + 1;
    return n;
}

const struct stats_name *stats_tag_find(const struct stats *s, const char *text)
{
    for (uint32_t i = 0; i < s->ntags; i++)
        if (s->tags[i] && strcmp(s->tags[i]->name, text) == 0)
            return s->tags[i];
    return NULL;
}

static struct stats_labels *labels_of(struct stats *s)
{
    if (!s->labels)
        s->labels = xcalloc(1, sizeof *s->labels);
    return s->labels;
}

/* Whether set holds the groups g[0..n) (in any order; a set holds each
 * group once). */
static bool same_set(const struct stats_tagset *set, const uint32_t *g, unsigned n)
{
    if (set->n != n)
        return false;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = 0;
        while (j < n && set->group[j] != g[i])
            j++;
        if (j == n)
            return false;
    }
    return true;
}

uint32_t stats_tagset(struct stats *s, const uint32_t *groups, unsigned n)
{
    assert(n >= 1 && n <= TAGS_PER_REQUEST);
    struct stats_labels *l = labels_of(s);
    /* Once per set and path of the Lua side's cache: a linear search. */
    for (uint32_t i = 0; i < l->nsets; i++)
        if (same_set(&l->set[i], groups, n))
            return i + 1;
    if (l->nsets == STATS_TAGSETS_MAX)
        return STATS_TAGSETS_MAX + 1; /* no such set: stats_label counts its requests as dropped */
    struct stats_tagset *set = &l->set[l->nsets];
    set->n = 0;
    for (unsigned i = 0; i < n; i++) { /* two keys may share a group: an overflow's */
        unsigned j = 0;
        while (j < set->n && set->group[j] != groups[i])
            j++;
        if (j == set->n)
            set->group[set->n++] = groups[i];
    }
    return ++l->nsets;
}

uint32_t stats_label(struct stats *s, uint32_t name, uint32_t tagset)
{
    struct stats_labels *l = s->labels;
    if (!l || !tagset || tagset > l->nsets) {
        s->tags_dropped++;
        return name;
    }
    size_t mask = sizeof l->slot / sizeof l->slot[0] - 1;
    uint64_t h = ((uint64_t)name << 32 | tagset) * UINT64_C(0x9E3779B97F4A7C15);
    for (size_t i = (size_t)(h >> 40) & mask;; i = (i + 1) & mask) {
        uint32_t at = l->slot[i];
        if (at && l->label[at - 1].name == name && l->label[at - 1].tagset == tagset)
            return NAMES_MAX + at;
        if (at)
            continue;
        if (l->nlabels == STATS_LABELS_MAX) { /* half the slots at most: the probe always ends */
            s->tags_dropped++;
            return name;
        }
        l->label[l->nlabels] = (struct stats_label){name, tagset};
        l->slot[i] = ++l->nlabels;
        return NAMES_MAX + l->nlabels;
    }
}

/* The label's tag set. */
static const struct stats_tagset *set_of(const struct stats *s, uint32_t label, uint32_t *name)
{
    const struct stats_label *l = &s->labels->label[label - NAMES_MAX - 1];
    *name = l->name;
    return &s->labels->set[l->tagset - 1];
}

void stats_label_started(struct stats *s, uint32_t label, unsigned n)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_started(s, name, n);
    for (uint32_t i = 0; i < t->n; i++)
        s->tags[t->group[i]]->started += n;
}

void stats_label_complete(struct stats *s, uint32_t label, int64_t now, unsigned status, int64_t latency)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_complete(s, name, now, status, latency);
    for (uint32_t i = 0; i < t->n; i++)
        stats_fig_complete(s->tags[t->group[i]], status, latency);
}

void stats_label_open(struct stats *s, uint32_t label, int64_t service)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_open(s, name, service);
    for (uint32_t i = 0; i < t->n; i++)
        if (s->tags[t->group[i]]->service.counts)
            hist_record(&s->tags[t->group[i]]->service, service);
}

void stats_label_rejected(struct stats *s, uint32_t label, bool status_known, unsigned status, bool too_large)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_rejected(s, name, status_known, status, too_large);
    for (uint32_t i = 0; i < t->n; i++)
        stats_fig_rejected(s->tags[t->group[i]], status_known, status, too_large);
}

void stats_label_fail(struct stats *s, uint32_t label, enum stats_error why, unsigned k, int64_t now, bool timed_out,
                      int64_t latency)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_fail(s, name, why, k, now, timed_out, latency);
    for (uint32_t i = 0; i < t->n; i++)
        stats_fig_fail(s->tags[t->group[i]], why, k, timed_out, latency);
}

void stats_label_cut_off(struct stats *s, uint32_t label, unsigned k)
{
    uint32_t name;
    const struct stats_tagset *t = set_of(s, label, &name);
    stats_name_cut_off(s, name, k);
    for (uint32_t i = 0; i < t->n; i++)
        s->tags[t->group[i]]->cut_off += k;
}

void stats_tags_merge(struct stats *dst, const struct stats *src)
{
    for (uint32_t i = 0; i < src->ntags; i++)
        if (src->tags[i])
            stats_name_merge(stats_tag_add(dst, i, src->tags[i]->name), src->tags[i]);
    dst->tags_dropped += src->tags_dropped;
}

void stats_tags_free(struct stats *s)
{
    for (uint32_t i = 0; i < s->ntags; i++)
        if (s->tags[i])
            stats_name_free(s->tags[i]);
    free(s->tags);
    s->tags = NULL;
    s->ntags = 0;
    free(s->labels);
    s->labels = NULL;
}

int stats_align_tags(struct stats *src, const struct stats *dst)
{
    return stats_align_table(&src->tags, &src->ntags, dst->tags, dst->ntags, TAGS_MAX);
}
