/* The HTTP proxy a run goes through: --proxy, or the environment as curl
 * reads it (http_proxy for http:// targets, lower case only; HTTPS_PROXY
 * or https_proxy for https://; ALL_PROXY or all_proxy for either), unless
 * the target's host is on --noproxy's or NO_PROXY's list. An http://
 * target's requests then go to the proxy in absolute-form; an https://
 * one's through a CONNECT tunnel (transport.h's tunnel). */
#ifndef VOLLEY_PROXY_H
#define VOLLEY_PROXY_H

#include "target.h"

#include <stdbool.h>
#include <stddef.h>

/* Read-only after proxy_select. */
struct proxy {
    struct target t;  /* the proxy's own URL: host, port, addresses (resolved and
                       * probed as a target's) */
    char *shown;      /* "http://host:port": the report's, without credentials */
    char *auth;       /* "Basic BASE64" from the URL's user:password, or NULL */
    const char *from; /* where it came from: "--proxy" or the variable's name */
};

/* The environment's lookup: getenv, or a test's own. */
typedef const char *(*proxy_getenv)(const char *name);

/* Chooses the proxy for target t: opt (--proxy; NULL: not given, "": no
 * proxy whatever the environment says), else the environment's; none when
 * t's host matches noproxy (--noproxy; NULL: no_proxy, then NO_PROXY).
 * Sets *out (owned by the caller: proxy_free) or NULL. Returns 0, or -1
 * with one line in err naming the option or variable and what is wrong
 * with its URL. */
int proxy_select(const char *opt, const char *noproxy, const struct target *t, proxy_getenv env, struct proxy **out,
                 char *err, size_t errlen);

/* Whether host (without brackets) matches the no-proxy list as curl
 * matches it: "*" alone matches every host; else entries separated by
 * commas or blanks, each a domain (a leading dot ignored) that host is or
 * ends in after a dot, in any case, or an IP address, with /BITS for a
 * network (IPv4 and IPv6), that host is (in). */
bool proxy_no_proxy_match(const char *list, const char *host);

/* t goes through p: p's shown URL, credentials and chosen address (once
 * resolved, and probed unless --no-probe) copied into t's proxy fields. */
void proxy_apply(const struct proxy *p, struct target *t);

void proxy_free(struct proxy *p);

#endif
