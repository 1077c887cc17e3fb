/* graphql-sse's single connection mode served across worker threads
 * (sse_single.c): the reservation's PUT, its event stream (a GET), the
 * operations POSTed for it and their DELETEs may each reach a different
 * worker (SO_REUSEPORT spreads connections).
 *
 * An operation runs on the worker that received its POST: that request's
 * hooks judged it (a bad token is refused there, as any request), and its
 * context, claims, headers, generation and the executor's per-worker
 * state stay on their thread. Only its events cross: framed as SSE
 * chunks, they go to the reservation's hub, a queue that the worker
 * holding the stream (its owner) drains on its loop (uv_async). Stops
 * (a DELETE, the stream closing, a reservation expiring) go the other
 * way, to the worker running the operation, as commands on its queue.
 *
 * Nothing crosses threads but the hub (reference counted; its queue under
 * its own lock) and the commands: a stream, a request, an operation is
 * only ever touched by its own worker. */
#ifndef GQL_HTTP_SSE_SINGLE_H
#define GQL_HTTP_SSE_SINGLE_H

#include "http.h"
#include "sse.h"

/* The server's part (one per server, shared by the workers). */
typedef struct gql_http_sse gql_http_sse;
typedef struct gql_http_sse_worker gql_http_sse_worker;

/* limits NULL: the options' (max_connections reservations,
 * subscription.max_per_connection operations each, 30 s to open). NULL
 * when out of memory. */
gql_http_sse *gql_http_sse_new(const gql_http_options *opt, unsigned nworkers,
                               const gql_sse_limits *limits);
/* After the workers' loops ended and gql_http_sse_worker_free. */
void gql_http_sse_free(gql_http_sse *s);
/* Worker `index`'s part on its loop (before it runs): x->sse. 0 or
 * GQL_ENOMEM. */
int gql_http_sse_worker_start(gql_http_sse *s, unsigned index, gql_http_ctx *x,
                              uv_loop_t *loop);
/* The server stops: the operations this worker runs are cancelled. */
void gql_http_sse_worker_stop(gql_http_ctx *x);
/* Closes the worker's handles (then one loop turn). */
void gql_http_sse_worker_close(gql_http_ctx *x);
/* After its loop ended: frees what is left (before gql_http_ctx_free). */
void gql_http_sse_worker_free(gql_http_ctx *x);
/* Reservations held (tests). */
unsigned gql_http_sse_reservations(gql_http_sse *s);

/* ---- handler.c */

/* A request on the GraphQL path (x->sse set): true when graphql-sse's
 * single connection mode answered it (PUT, DELETE, a refusal) or took it
 * (the reservation's stream: c->inflight). False: handle it as GraphQL
 * over HTTP; r->sse_route is then set when it is an operation for a
 * reservation (gql_http_sse_execute runs it). */
bool gql_http_sse_route(gql_http_request *r);
/* An operation for a reservation, prepared and admitted (r->entry): the
 * POST is answered 202 and the operation runs on, its events going to the
 * reservation's stream; or the POST gets graphql-sse's refusal. */
void gql_http_sse_execute(gql_http_request *r, gql_str query,
                          const char *operation_name,
                          const gql_value *variables,
                          const gql_value *extensions);

/* ---- stream.c: the answers of opt->executor to such an operation
 * (r->sse_op), and the stream's transport */

void gql_http_sse_exec_payload(gql_http_request *r, const char *json,
                               size_t len, bool has_next);
void gql_http_sse_exec_on_cancel(gql_http_request *r, void (*cancel)(void *),
                                 void *ud);
/* The stream's client went away (r->sse_hub). */
void gql_http_sse_stream_gone(gql_http_request *r);
/* The server stops: the stream ends. */
void gql_http_sse_stream_going_away(gql_http_request *r);

#endif
