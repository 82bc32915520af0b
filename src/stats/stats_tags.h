/* A worker's figures of request tags (tags.h's groups, by id as names
 * are) and its labels: what a connection keeps as a tagged request's name
 * (conn.name above NAMES_MAX), so that tags travel wherever a name does at
 * no cost to untagged requests. A label is a (name, tag set) pair; a tag
 * set is up to TAGS_PER_REQUEST groups, made once per worker at its first
 * use (the Lua side caches its id). Both are bounded per worker
 * (STATS_TAGSETS_MAX, STATS_LABELS_MAX); a request past them keeps its
 * name and its tags go uncounted (stats.tags_dropped, reported). */
#ifndef VOLLEY_STATS_TAGS_H
#define VOLLEY_STATS_TAGS_H

#include "stats.h"
#include "tags.h"

#define STATS_TAGSETS_MAX 1024
#define STATS_LABELS_MAX 4096

/* The figures of tag group id (text: "KEY=VALUE"), made at its first use
 * here (allocates, as stats_name_add). */
struct stats_name *stats_tag_add(struct stats *s, uint32_t id, const char *text);

/* The figures of the tag KEY=VALUE (text), or NULL when no request of s
 * carried it. */
const struct stats_name *stats_tag_find(const struct stats *s, const char *text);

/* The id (>= 1) of the set of groups[0..n) (1 <= n <= TAGS_PER_REQUEST,
 * each with figures here: stats_tag_add), in any order; made at its first
 * use. STATS_TAGSETS_MAX + 1, a set of none, when the worker's sets ran
 * out (stats_label then drops the tags). */
uint32_t stats_tagset(struct stats *s, const uint32_t *groups, unsigned n);

/* What a connection keeps as the name of a request named name (id + 1, 0:
 * none) with tag set tagset (stats_tagset's, >= 1): its label (>
 * NAMES_MAX), made at its first use (a hash lookup after that: no
 * allocation). Past STATS_LABELS_MAX, or for a set that ran out, name
 * itself (the request counted in tags_dropped). */
uint32_t stats_label(struct stats *s, uint32_t name, uint32_t tagset);

/* A tag set: its groups. */
struct stats_tagset {
    uint32_t n;
    uint32_t group[TAGS_PER_REQUEST];
};

/* A label: a name (id + 1, 0: none) and a tag set (its index + 1). */
struct stats_label {
    uint32_t name, tagset;
};

/* A worker's tag sets and labels (stats.labels); fields are
 * stats_tags.c's, read-only to others. */
struct stats_labels {
    struct stats_tagset set[STATS_TAGSETS_MAX];
    uint32_t nsets;
    struct stats_label label[STATS_LABELS_MAX]; /* label L is label[L - NAMES_MAX - 1] */
    uint32_t nlabels;
    uint32_t slot[2 * STATS_LABELS_MAX];        /* (name, tagset) -> label index + 1; 0: empty */
};

/* The name (id + 1, 0: none) of what a connection keeps as a request's
 * name: a label's name, or name itself. */
static inline uint32_t stats_label_name(const struct stats *s, uint32_t name)
{
    return name > NAMES_MAX ? s->labels->label[name - NAMES_MAX - 1].name : name;
}

/* Adds src's tags into dst's, by id. */
void stats_tags_merge(struct stats *dst, const struct stats *src);

/* Frees s's tags' figures and labels. */
void stats_tags_free(struct stats *s);

/* Renumbers src's tags to dst's ids by text (volley merge), as
 * stats_align_names. Returns 0, or -1 past TAGS_MAX tags together. */
int stats_align_tags(struct stats *src, const struct stats *dst);

#endif
