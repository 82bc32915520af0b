/* What an HTTP/2 stream sends: the request begin_request made, an HTTP/1
 * request string, taken apart into HTTP/2 headers and opened as a stream.
 * The run's own request is taken apart once per worker and handed to
 * nghttp2 as lasting strings (not copied); a hook's request each time. */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"
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
        .scheme = sh->tls ? "https" : "http",
        .scheme_len = sh->tls ? 5 : 4,
        .headers = hs,
        .nheaders = p.nheaders,
    };
    return NULL;
}

/* The run's own request, taken apart once for all its streams (a worker's
 * first request makes it; conn_shared_free frees it). */
struct conn_h2_fixed {
    const char *why; /* non-NULL: it cannot go as HTTP/2 */
    struct h2_request r;
    struct h2_body body;
    struct h2_header hs[HTTP_PARTS_MAX];
    char names[];    /* its header names in lower case */
};

static struct conn_h2_fixed *fixed(struct conn_shared *sh)
{
    if (!sh->h2_fixed) {
        struct conn_h2_fixed *f = xmalloc(sizeof *f + sh->req_len);
        f->why = take_apart(sh, sh->req, sh->req_len, &f->r, f->hs, f->names, sh->req_len, &f->body);
        f->r.lasting = true; /* sh->req and names live as long as the run */
        sh->h2_fixed = f;
    }
    return sh->h2_fixed;
}

void conn_shared_free(struct conn_shared *sh)
{
    free(sh->h2_fixed);
    sh->h2_fixed = NULL;
}

bool conn_h2_submit(struct conn *c, struct conn_stream *st)
{
    struct conn_shared *sh = c->sh;
    struct h2_request r;
    struct h2_header hs[HTTP_PARTS_MAX]; /* a hook's request: r points here */
    const char *why;
    if (st->req == sh->req) {
        struct conn_h2_fixed *f = fixed(sh);
        why = f->why;
        r = f->r;
        st->body = f->body;
    } else {
        why = take_apart(sh, st->req, st->req_len, &r, hs, sh->scratch, sh->scratch_size, &st->body);
    }
    if (why) {
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, 1);
        return false;
    }
    r.body = st->body.len ? &st->body : NULL;
    st->id = h2_submit(c->h2, &r, st, &st->msg);
    if (st->id < 0) {
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, h2_error(c->h2), 1);
        return false;
    }
    st->t_sent = clock_now_ns();
    return true;
}
