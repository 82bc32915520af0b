/* Shared by the files of the connection state machine only: conn.c
 * (connecting, handshakes, timers, events), conn_fail.c (the failure
 * path), conn_request.c (starting requests), conn_complete.c (the one
 * path of a completed response) and conn_flow.c (a flow's users). What framings may
 * call is framing.h; nothing outside src/conn includes this. */
#ifndef VOLLEY_CONN_INTERNAL_H
#define VOLLEY_CONN_INTERNAL_H

#include "conn.h"
#include "framing.h"

/* conn_common.c, below the other files: */

/* The libev handlers of a connection's events (conn.c's). */
typedef void (*conn_io_cb)(struct ev_loop *loop, ev_io *w, int revents);
typedef void (*conn_timer_cb)(struct ev_loop *loop, ev_timer *w, int revents);

/* Prepares c, slot id of sh (no socket yet) to origin (0: the target;
 * else sh->origins[origin], made), its events going to the handlers
 * given: conn.c's (conn_init), or, a flow's lane or a connection to
 * another origin, those of its user's connection. Makes the slot's
 * transport and framing state. */
void conn_slot_init(struct conn *c, struct conn_shared *sh, uint32_t id, uint8_t origin, conn_io_cb on_read,
                    conn_io_cb on_write, conn_timer_cb on_timer);

/* Closes c's socket, stops its timer: CONN_IDLE. */
void conn_go_idle(struct conn *c);

/* The kind a transport's own failures count as (its handshake, a record
 * that failed: the transport's reason with no socket errno): TLS's, whose
 * handshake QUIC's is too. */
#define TRANSPORT_FAILED STATS_ERR_TLS

/* The handshake failed once connected: the transport's failure, with its
 * reason even when the socket failed (a reset in the handshake is the
 * server refusing it); conn_fail.c. */
void conn_handshake_failed(struct conn *c);

/* Starts the request (a batch of depth) that c->req holds: the
 * framing's start (conn_common.c; conn_request.c counts it). */
void conn_start_request(struct conn *c, int64_t now, unsigned depth);

/* Flows (conn_flow.c): the user of c takes its next step, or begins an
 * iteration (conn_flow_send: -R handed it one, due at intended); the run
 * stops c (conn_flow_stop: its pause); c is freed (conn_flow_free: the
 * user's state, its batch, its lanes' array). conn_stop and conn_free stop
 * and free the lanes first (conn_flow_lanes: the CONN_FLOW_LANES
 * connections of the user whose own connection c is, or NULL: none made,
 * no flow, or c a lane), so that nothing here calls back into conn.c. */
void conn_flow_next(struct conn *c, int64_t now);
void conn_flow_send(struct conn *c, int64_t intended, int64_t now);
struct conn *conn_flow_lanes(const struct conn *c);
/* The user's connection to other origin id (1..SCRIPT_FLOW_ORIGINS) when
 * c is the user's own and has made one, else NULL; conn_stop and
 * conn_free stop and free it as they do the lanes. */
struct conn *conn_flow_away(const struct conn *c, unsigned id);
void conn_flow_stop(struct conn *c);
void conn_flow_free(struct conn *c);

/* A flow: the slot of the user c works for (its own connection's, for a
 * lane), which the script knows it by. */
unsigned conn_flow_slot(const struct conn *c);

/* A flow: where the user reads the response of the request carried by c
 * (item: a batch's item, or -1 for the slot's own request). */
struct script_res *conn_flow_res(struct conn *c, int32_t item);

/* A flow: the response of the request carried by c is described in
 * conn_flow_res(c, item) (raw/len: its bytes); a batch item's bytes are
 * copied there (so that c can carry the next), then its check runs.
 * *failed when the check failed it. Returns false when the bridge failed
 * (conn_flow.c). */
bool conn_flow_answered(struct conn *c, int32_t item, const char *raw, size_t len, bool *failed);

/* Other origins (conn_origin.c): origin id (1..SCRIPT_FLOW_ORIGINS) of
 * the worker's flow, made at its first use (its address from --allow-host's
 * resolved hosts, its TLS context); NULL when it cannot be (its requests
 * fail). conn_origin_count counts a request of c that ended (failed: it
 * did) under its origin's host (stats->hosts). conn_origins_free frees
 * the table (conn_shared_free). */
const struct conn_origin *conn_origin_get(struct conn_shared *sh, unsigned id);
void conn_origin_count(struct conn *c, bool failed);
void conn_origins_free(struct conn_shared *sh);

#endif
