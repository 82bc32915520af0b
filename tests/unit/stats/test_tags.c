/* unit test for tags.c (the run's request tags) and stats_tags.c (a
 * worker's tag figures, sets and labels): a pair gets one group however
 * often it is interned, keys that are no label names or are thresholds'
 * own are refused, the bounds put the rest under one overflow value a key
 * and one overflow key; a set is one id in any order; a label records its
 * name's figures and each tag's, and stays a name where a set ran out;
 * tags merge by id and align by text. */
#include "names.h"
#include "stats.h"
#include "stats_tags.h"
#include "tags.h"

#include "../check.h"

#include <stdio.h>
#include <string.h>

static uint32_t tag(struct tags *t, const char *k, const char *v)
{
    return tags_intern(t, k, strlen(k), v, strlen(v));
}

static void test_intern(void)
{
    struct tags t;
    tags_init(&t);
    CHECK_UINT(tag(&t, "kind", "api"), 0);
    CHECK_UINT(tag(&t, "kind", "web"), 1);
    CHECK_UINT(tag(&t, "kind", "api"), 0);
    CHECK_UINT(tag(&t, "page", "api"), 2);
    CHECK_STR(t.text[2], "page=api");
    CHECK(!tags_full(&t));
    char v[16];
    for (int i = 2; i < TAGS_VALUES_MAX; i++) {
        snprintf(v, sizeof v, "v%d", i);
        tag(&t, "kind", v);
    }
    uint32_t over = tag(&t, "kind", "one more");
    CHECK_STR(t.text[over], "kind=" TAGS_OTHER_VALUES);
    CHECK_UINT(tag(&t, "kind", "and another"), over);
    CHECK_UINT(tag(&t, "kind", "web"), 1); /* old values still resolve */
    CHECK(tags_full(&t));
    for (int i = 2; i < TAGS_KEYS_MAX; i++) {
        snprintf(v, sizeof v, "k%d", i);
        tag(&t, v, "x");
    }
    uint32_t keys = tag(&t, "late", "x");
    CHECK_STR(t.text[keys], TAGS_OTHER_KEYS "=" TAGS_OTHER_VALUES);
    CHECK_UINT(tag(&t, "later", "y"), keys);
    CHECK_UINT(tag(&t, "page", "api"), 2);
    const char *why;
    CHECK(tags_key_valid("Kind_2", 6, &why));
    CHECK(!tags_key_valid("2kind", 5, &why));
    CHECK(!tags_key_valid("a-b", 3, &why));
    CHECK(!tags_key_valid("", 0, &why));
    CHECK(!tags_key_valid("name", 4, &why));
    CHECK_CONTAINS(why, "thresholds' own labels");
    CHECK(!tags_key_valid("scenario", 8, &why));
    tags_free(&t);
}

static void test_labels(void)
{
    struct stats s;
    stats_init(&s);
    stats_name_add(&s, 0, "item");
    stats_tag_add(&s, 0, "kind=api");
    stats_tag_add(&s, 1, "page=b");
    uint32_t g01[] = {0, 1}, g10[] = {1, 0}, g1[] = {1};
    uint32_t a = stats_tagset(&s, g01, 2);
    CHECK_UINT(stats_tagset(&s, g10, 2), a);
    uint32_t b = stats_tagset(&s, g1, 1);
    CHECK(a != b);
    uint32_t la = stats_label(&s, 1, a); /* named "item", tagged kind=api, page=b */
    CHECK(la > NAMES_MAX);
    CHECK_UINT(stats_label(&s, 1, a), la);
    uint32_t lb = stats_label(&s, 0, b); /* unnamed, page=b */
    CHECK(lb != la);
    CHECK_UINT(stats_label_name(&s, la), 1);
    CHECK_UINT(stats_label_name(&s, lb), 0);
    CHECK_UINT(stats_label_name(&s, 1), 1);
    stats_name_started(&s, la, 2);
    stats_name_complete(&s, la, 0, 200, 1000);
    stats_name_fail(&s, la, STATS_ERR_TIMEOUT, 1, 0, false, 0);
    stats_name_started(&s, lb, 1);
    stats_name_complete(&s, lb, 0, 404, 5000);
    CHECK_UINT(s.names[0]->started, 2);
    CHECK_UINT(s.names[0]->completed, 1);
    CHECK_UINT(s.tags[0]->started, 2);
    CHECK_UINT(s.tags[0]->errors[STATS_ERR_TIMEOUT], 1);
    CHECK_UINT(s.tags[1]->started, 3);
    CHECK_UINT(s.tags[1]->completed, 2);
    CHECK_UINT(s.tags[1]->status[404], 1);
    CHECK_UINT((uint64_t)s.tags[1]->latency.count, 2);
    CHECK(stats_tag_find(&s, "page=b") == s.tags[1]);
    CHECK(stats_tag_find(&s, "page=c") == NULL);
    /* a set that ran out: the name alone, counted as dropped */
    CHECK_UINT(stats_label(&s, 1, STATS_TAGSETS_MAX + 1), 1);
    CHECK_UINT(s.tags_dropped, 1);

    /* merge by id; align by text */
    struct stats d, e;
    stats_init(&d);
    stats_init(&e);
    stats_tag_add(&e, 0, "page=b");
    stats_tag_add(&e, 1, "kind=web");
    e.tags[0]->started = 5;
    CHECK_INT(stats_align_tags(&e, &s), 0);
    CHECK_STR(e.tags[1]->name, "page=b");
    CHECK_STR(e.tags[2]->name, "kind=web");
    stats_merge(&d, &s);
    stats_merge(&d, &e);
    CHECK_UINT(d.tags[1]->started, 8);
    CHECK_UINT(d.tags[0]->started, 2);
    CHECK_STR(d.tags[2]->name, "kind=web");
    CHECK_UINT(d.tags_dropped, 1);
    stats_free(&d);
    stats_free(&e);
    stats_free(&s);
}

int main(void)
{
    test_intern();
    test_labels();
    return check_exit("test_tags");
}
