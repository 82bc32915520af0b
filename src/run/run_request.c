/* The run's request from the command line and the target, below run.c
 * (which encodes it once for the run) and run_script.c (a script's wrk
 * table starts from it). */
#include "run_internal.h"

#include "options.h"
#include "target.h"

struct http_request_spec run_request_spec(const struct options *o, const struct target *t)
{
    struct http_request_spec spec = options_request(o);
    spec.path = t->path;
    spec.host_header = t->host_header;
    if (t->proxy && !t->tls) { /* https goes through a tunnel, in origin-form */
        spec.origin = t->origin;
        spec.proxy_auth = t->proxy_auth;
    }
    return spec;
}
