/* A flow's other origins (--allow-host), per worker: what a user's
 * connection to one needs (its address, resolved at start-up by main and
 * read here from the shared hosts; its transport, with a context of its
 * own (TLS: the origin's host as SNI and checked against its
 * certificate); its
 * framing, HTTP/1.1), made by the first user to reach it; and the
 * requests counted per host for the report's Hosts block. Nothing here
 * blocks: no name is looked up on the loop. */
#include "conn.h"

#include "conn_internal.h"
#include "hosts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

/* The worker's table, made at its flow's first request: [0] is the
 * target's row of the Hosts block. */
static struct conn_origin *table(struct conn_shared *sh)
{
    if (!sh->origins) {
        sh->origins = xcalloc(SCRIPT_FLOW_ORIGINS + 1, sizeof *sh->origins);
        char key[300];
        snprintf(key, sizeof key, "%s://%s", sh->scheme, sh->authority ? sh->authority : "");
        sh->origins[0].stat = stats_hosts_add(&sh->stats->hosts, key);
        sh->origins[0].made = true;
    }
    return sh->origins;
}

const struct conn_origin *conn_origin_get(struct conn_shared *sh, unsigned id)
{
    if (id > SCRIPT_FLOW_ORIGINS)
        return NULL;
    struct conn_origin *o = &table(sh)[id];
    if (o->made)
        return o->broken ? NULL : o;
    o->made = o->broken = true;
    o->stat = -1;
    const struct script_origin *so = script_flow_origin(sh->script, id);
    const struct hosts_entry *e = so ? hosts_find(sh->hosts, so->host, so->port) : NULL;
    if (!e) /* flow.lua lets only --allow-host's hosts through: a bug otherwise */
        return NULL;
    hosts_addr(e, so->port, &o->addr, &o->addrlen);
    snprintf(o->host, sizeof o->host, "%s", so->host);
    o->transport = transport_direct(so->https);
    o->framing = sh->framing_h1;
    /* The run's transport settings (--verify, --cacert, versions, a
     * client certificate) for this host: its name sent and checked. main
     * made such a context before the run, so the settings are known to
     * load. */
    char err[256];
    if (o->transport->ctx_for_host &&
        !(o->transport_ctx = o->transport->ctx_for_host(sh->transport_cfg, o->host, e->is_ip, err, sizeof err)))
        return NULL;
    char key[300];
    snprintf(key, sizeof key, "%s://%s", so->https ? "https" : "http", so->authority);
    o->stat = stats_hosts_add(&sh->stats->hosts, key);
    o->broken = false;
    return o;
}

void conn_origin_count(struct conn *c, bool failed)
{
    struct conn_shared *sh = c->sh;
    int at = table(sh)[c->origin].stat;
    if (at < 0)
        return;
    sh->stats->hosts->h[at].requests++;
    sh->stats->hosts->h[at].failed += failed;
}

void conn_origins_free(struct conn_shared *sh)
{
    if (!sh->origins)
        return;
    for (unsigned id = 1; id <= SCRIPT_FLOW_ORIGINS; id++) {
        struct conn_origin *o = &sh->origins[id];
        if (o->transport_ctx && o->transport->ctx_free)
            o->transport->ctx_free(o->transport_ctx);
    }
    free(sh->origins);
    sh->origins = NULL;
}
