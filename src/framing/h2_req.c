/* What an HTTP/2 stream sends: the request begin_request made, an HTTP/1
 * request string, taken apart into HTTP/2 headers and opened as a stream.
 * The run's own requests (its request, or each of --targets') are taken
 * apart once per worker and handed to nghttp2 as lasting strings (not
 * copied); a hook's request each time. */
#include "framings.h"

#include "clock.h"
#include "h2_internal.h"
#include "h2.h"
#include "http.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ASCII lower case (header names; not the locale's idea of it). */
static char lower(char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (char)(ch + ('a' - 'A')) : ch;
}

/* Takes the HTTP/1 request req apart into r for HTTP/2, its header names
 * lowered into names, its body into *body. Returns NULL, or why it cannot
 * go as HTTP/2. */
static const char *take_apart(const struct conn_shared *sh, const char *req, size_t len, struct h2_request *r,
                              struct h2_header *hs, char *names, size_t names_size, struct h2_body *body)
{
    struct http_parts p;
    const char *why;
    if (http_request_parts(req, len, &p, &why) < 0)
        return why;
    size_t used = 0;
    for (size_t i = 0; i < p.nheaders; i++) {
        size_t n = p.headers[i].name_len;
        if (used + n > names_size)
            return "request headers too large";
        for (size_t k = 0; k < n; k++)
            names[used + k] = lower(p.headers[i].name[k]);
        hs[i] = (struct h2_header){names + used, p.headers[i].value, n, p.headers[i].value_len};
        used += n;
    }
    *body = (struct h2_body){p.body, p.body_len, 0};
    *r = (struct h2_request){
        .method = p.method,
        .method_len = p.method_len,
        .path = p.path,
        .path_len = p.path_len,
        .authority = p.host ? p.host : sh->authority,
        .authority_len = p.host ? p.host_len : strlen(sh->authority),
        .scheme = sh->scheme,
        .scheme_len = strlen(sh->scheme),
        .headers = hs,
        .nheaders = p.nheaders,
    };
    return NULL;
}

/* One of the run's own requests (its request, or a target's), taken
 * apart once for all its streams (when the worker first sends it;
 * h2c_fixed_free frees it). */
struct h2_fixed {
    const char *why;    /* non-NULL: it cannot go as HTTP/2 */
    struct h2_request r;
    struct h2_body body;
    char *names;        /* its header names in lower case */
    struct h2_header hs[]; /* r.nheaders of them */
};

static struct h2_fixed *fixed(struct conn_shared *sh, uint32_t ix)
{
    if (!S(sh)->fixed)
        S(sh)->fixed = xcalloc(sh->ntargets ? sh->ntargets : 1, sizeof *S(sh)->fixed);
    if (!S(sh)->fixed[ix]) {
        const char *req = sh->targets ? sh->targets[ix].bytes : sh->req;
        size_t len = sh->targets ? sh->targets[ix].len : sh->req_len;
        struct h2_request r;
        struct h2_header hs[HTTP_PARTS_MAX];
        struct h2_body body;
        char *names = xmalloc(len + 1);
        const char *why = take_apart(sh, req, len, &r, hs, names, len, &body);
        size_t n = why ? 0 : r.nheaders;
        /* Only the headers it has: a worker may keep one per target. */
        struct h2_fixed *f = xmalloc(sizeof *f + n * sizeof *hs);
        memcpy(f->hs, hs, n * sizeof *hs);
        f->why = why;
        f->r = r;
        f->r.headers = f->hs;
        f->r.lasting = true; /* the request and names live as long as the run */
        f->body = body;
        f->names = names;
        S(sh)->fixed[ix] = f;
    }
    return S(sh)->fixed[ix];
}

void h2c_fixed_free(struct conn_shared *sh)
{
    for (uint32_t i = 0; S(sh)->fixed && i < (sh->ntargets ? sh->ntargets : 1); i++) {
        if (S(sh)->fixed[i])
            free(S(sh)->fixed[i]->names);
        free(S(sh)->fixed[i]);
    }
    free(S(sh)->fixed);
    S(sh)->fixed = NULL;
}

bool h2c_submit(struct conn *c, struct h2_stream *st)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    struct h2_request r;
    struct h2_header hs[HTTP_PARTS_MAX]; /* a hook's request: r points here */
    const char *why;
    if (st->req_ix != CONN_REQ_HOOK) {
        struct h2_fixed *f = fixed(sh, st->req_ix);
        why = f->why;
        r = f->r;
        st->body = f->body;
    } else {
        why = take_apart(sh, st->req, st->req_len, &r, hs, S(sh)->scratch, S(sh)->scratch_size, &st->body);
    }
    if (why) {
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, 1);
        return false;
    }
    r.body = st->body.len ? &st->body : NULL;
    st->id = h2_submit(h->session, &r, st, &st->msg);
    if (st->id < 0) {
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, h2_error(h->session), 1);
        return false;
    }
    st->t_sent = clock_now_ns();
    return true;
}
