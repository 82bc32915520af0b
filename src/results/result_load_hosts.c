/* A saved result's "hosts" member (report_hosts.c) back into a struct
 * stats_hosts, so that `volley report` shows the Hosts block again and
 * `volley merge` adds the shards' rows by origin. The file is untrusted:
 * a row that cannot be a run's is refused, naming the field. */
#include "result_load_internal.h"

void result_load_hosts(struct html_rd *rd, const struct json *root, struct stats_hosts **hp)
{
    const struct json *list = html_rd_of(rd, root, "", "hosts", JSON_ARRAY, false);
    for (size_t i = 0; list && i < list->len && !rd->failed; i++) {
        const struct json *h = &list->items[i];
        if (h->type != JSON_OBJECT) {
            html_rd_fail(rd, "hosts", "", "item %zu is not an object", i);
            return;
        }
        const char *origin = html_rd_str(rd, h, "hosts", "origin", true, NULL);
        if (!origin)
            return;
        int at = stats_hosts_add(hp, origin);
        if (at < 0) {
            html_rd_fail(rd, "hosts", "origin", "more than %d hosts", STATS_HOSTS_MAX);
            return;
        }
        struct stats_host *row = &(*hp)->h[at];
        html_rd_add_count(rd, h, "hosts", "requests", &row->requests);
        html_rd_add_count(rd, h, "hosts", "failed", &row->failed);
        if (!rd->failed && row->failed > row->requests)
            html_rd_fail(rd, "hosts", "failed", "more than its requests: not a real result");
    }
}
