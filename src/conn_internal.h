/* Shared by the two halves of the connection state machine: conn.c
 * (connecting, writing, failures, timers, the open model's hand-over) and
 * conn_read.c (reading, framing and completing responses). Nothing else
 * includes it. */
#ifndef VOLLEY_CONN_INTERNAL_H
#define VOLLEY_CONN_INTERNAL_H

#include "conn.h"

/* Closes c's socket (if open) and stops its watchers; the next request of
 * a scenario opens a new conn table. clean: the connection ended normally
 * (over TLS, close_notify is sent then). */
void conn_close_socket(struct conn *c, bool clean);

/* TLS: drives the handshake (CONNECTING or HANDSHAKE), then writes the
 * request. */
void conn_handshake(struct conn *c);

/* Writes (the rest of) the request. */
void conn_write_request(struct conn *c);

/* A TLS call of c failed: a TLS failure counted by its reason, or, when it
 * was the socket's (a reset), the failure kind otherwise. */
void conn_tls_failed(struct conn *c, enum stats_error otherwise);

/* --one-first: the first answer (or failure) lets the other connections go. */
void conn_release_rest(struct conn_shared *sh);

/* The one place requests fail: every request of the batch still in flight
 * is counted as failed for why; then close and go on. */
void conn_fail(struct conn *c, enum stats_error why);

/* A hook failed: requests in flight on c are cut off and the worker's loop
 * ends. */
void conn_script_failed(struct conn *c);

/* The next request on c (or c parks: budget spent, or nothing due with -R). */
void conn_next_request(struct conn *c, int64_t now);

/* The read watcher fired: reads, frames and completes responses. */
void conn_on_readable(struct conn *c);

#endif
