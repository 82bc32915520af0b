/* libFuzzer target for the response path (and for counting the requests in
 * a request string, on the same bytes). The first input byte chooses the
 * split point (low 7 bits, scaled to the input) and HEAD (high bit); the rest
 * is fed to http_rx_feed in two reads and then the end of stream, response
 * after response, with a fresh http_rx_init after each DONE. Besides not
 * crashing, every result must keep the contract in http.h (see require()).
 *
 * It also requires that the split feed gives exactly the results of feeding
 * the same bytes in one read (the fast path and http-parser must agree);
 * VOLLEY_FUZZ_SPLIT=0 in the environment turns that check off.
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program
 * that runs the target over the files (or directories of files) named on its
 * command line: the ctest unit.fuzz_corpus, and a way to replay a crash
 * without libFuzzer. */
#include "http.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 4096

struct event {
    enum http_rx_result res;
    size_t end; /* DONE: offset just past the response */
    uint16_t status;
    uint8_t keepalive;
    uint64_t body_len;
};

static void require(bool ok, const char *what, size_t off)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_http: contract broken at offset %zu: %s\n", off, what);
    abort();
}

/* Feeds data[0, len) as the reads [0, split) and [split, len), then the end
 * of stream. Returns the number of events written to ev. */
static size_t run(const char *data, size_t len, size_t split, bool head, struct event *ev)
{
    struct http_rx rx;
    http_rx_init(&rx, head);
    size_t nev = 0;
    const size_t bounds[3] = {0, split, len};
    for (int part = 0; part < 2; part++) {
        size_t off = bounds[part], end = bounds[part + 1];
        while (off < end) {
            size_t used = SIZE_MAX;
            enum http_rx_result res = http_rx_feed(&rx, data + off, end - off, &used);
            switch (res) {
            case HTTP_RX_MORE:
                require(used == end - off, "MORE did not consume every byte", off);
                off = end;
                break;
            case HTTP_RX_DONE:
                /* Each response takes at least one byte, or a caller that
                 * loops over the rest would never advance. */
                require(used >= 1 && used <= end - off, "DONE with used out of 1..len", off);
                require(rx.done == 1, "DONE without rx.done", off);
                require(rx.status / 100 != 1 || rx.status == 101, "DONE on an interim 1xx response", off);
                require(rx.keepalive <= 1, "keepalive not 0 or 1", off);
                off += used;
                ev[nev++] = (struct event){HTTP_RX_DONE, off, rx.status, rx.keepalive, rx.body_len};
                if (nev == MAX_EVENTS - 1)
                    return nev; /* enough: the rest is more of the same */
                http_rx_init(&rx, head);
                break;
            case HTTP_RX_ERROR: {
                const char *msg = http_rx_error(&rx);
                require(msg && msg[0], "ERROR without a description", off);
                ev[nev++] = (struct event){HTTP_RX_ERROR, 0, 0, 0, 0};
                return nev;
            }
            default:
                require(false, "unknown result", off);
            }
        }
    }
    size_t used = SIZE_MAX;
    enum http_rx_result res = http_rx_feed(&rx, NULL, 0, &used);
    require(res == HTTP_RX_DONE || res == HTTP_RX_ERROR, "end of stream gave neither DONE nor ERROR", len);
    if (res == HTTP_RX_DONE) {
        require(used == 0, "DONE at end of stream with used != 0", len);
        require(rx.status / 100 != 1 || rx.status == 101, "DONE on an interim 1xx response", len);
        ev[nev++] = (struct event){HTTP_RX_DONE, len, rx.status, rx.keepalive, rx.body_len};
    } else {
        ev[nev++] = (struct event){HTTP_RX_ERROR, 0, 0, 0, 0};
    }
    return nev;
}

static bool same_events(const struct event *a, size_t na, const struct event *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (a[i].res != b[i].res || a[i].end != b[i].end || a[i].status != b[i].status ||
            a[i].keepalive != b[i].keepalive || a[i].body_len != b[i].body_len)
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    static struct event split_ev[MAX_EVENTS], whole_ev[MAX_EVENTS];
    static int check_split = -1;
    if (check_split < 0) {
        const char *env = getenv("VOLLEY_FUZZ_SPLIT");
        check_split = !(env && env[0] == '0');
    }
    if (size == 0)
        return 0;
    const bool head = input[0] & 0x80;
    const char *data = (const char *)input + 1;
    const size_t len = size - 1;
    const size_t split = (size_t)(input[0] & 0x7f) * len / 127;

    /* The same bytes as a request string: the counter's fast path for one
     * request must give http-parser's answer. */
    unsigned nreq = http_count_requests(data, len);
    require(nreq >= 1, "request count below 1", 0);
    require(nreq == http_count_requests_parser_only(data, len), "request count: fast path and parser differ", 0);

    size_t n = run(data, len, split, head, split_ev);
    if (check_split) {
        size_t nw = run(data, len, len, head, whole_ev);
        if (!same_events(split_ev, n, whole_ev, nw)) {
            fprintf(stderr, "fuzz_http: split at %zu (of %zu) and whole reads differ:\n", split, len);
            for (size_t i = 0; i < n || i < nw; i++)
                fprintf(stderr, "  #%zu split: %d end %zu status %u ka %u | whole: %d end %zu status %u ka %u\n", i,
                        i < n ? (int)split_ev[i].res : -1, i < n ? split_ev[i].end : 0,
                        i < n ? split_ev[i].status : 0, i < n ? split_ev[i].keepalive : 0,
                        i < nw ? (int)whole_ev[i].res : -1, i < nw ? whole_ev[i].end : 0,
                        i < nw ? whole_ev[i].status : 0, i < nw ? whole_ev[i].keepalive : 0);
            abort();
        }
    }
    return 0;
}
