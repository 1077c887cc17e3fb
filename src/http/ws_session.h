/* A WebSocket connection speaking graphql-transport-ws (subscriptions.c)
 * and its operations, shared with ws_exec.c, which runs the operations of
 * a server with an executor hook (gql_http_options.executor). */
#ifndef GQL_HTTP_WS_SESSION_H
#define GQL_HTTP_WS_SESSION_H

#include "fanout.h"
#include "graphql_ws.h"
#include "http.h"
#include "ws.h"

typedef struct ws_op ws_op;
typedef struct gql_http_ws_exec gql_http_ws_exec;

/* The worker's shared pieces: frame contexts, the protocol's scratch. */
struct gql_http_ws_worker {
  gql_ws_pool *pool;
  gql_gws_env *env;
  gql_http_fans *fans; /* shared executions (fanout.h) */
};

struct gql_http_ws_session {
  gql_http_conn *c;
  gql_ws ws;
  gql_gws g;
  /* The socket as a request, for the hooks and resolvers. */
  gql_http_request req;
  gql_http_slot slot; /* req's arena, made when a hook needs it */
  ws_op *done;        /* pending executions finished, to free */
  unsigned pending;   /* executions that pend (the socket may be gone) */
  uint64_t next_ping; /* ms */
  bool gone;          /* the socket closed: operations were cancelled */
  bool observed;      /* counted in the observer's open sockets */
};

/* One operation of the socket (gql_gws_op.user). */
struct ws_op {
  gql_http_ws_session *s;
  gql_gws_op *op; /* NULL once cancelled or ended */
  gql_http_cache_entry *entry;
  gql_http_pin *pin; /* the generation it runs on (held) */
  gql_subscription *sub;
  gql_http_slot *slot; /* a query's or mutation's memory */
  bool pends, finished;
  bool subscribing, ended; /* on_end came during gql_subscribe */
  bool counted;            /* in x->open_subscriptions */
  bool observed;           /* counted in the observer's open subscriptions */
  gql_http_ws_exec *exec;  /* run by opt->executor (ws_exec.c) */
  ws_op *next_done;
  gql_http_fan_member member; /* in a shared execution's group */
};

/* ---- ws_exec.c: operations through opt->executor */

/* Hands operation `o` (prepared: o->entry, o->slot) to the executor as a
 * gql_http_exec whose answers (gql_http_exec_payload, _done) become the
 * operation's `next` and `complete`. `rq` is valid during the call. */
void gql_http_ws_exec_start(ws_op *o, const gql_gws_request *rq,
                            const char *operation_name);
/* The client completed the operation or the socket closed: the
 * executor's cancel callback runs; the operation is freed once the
 * executor has ended it. */
void gql_http_ws_exec_cancel(ws_op *o);

#endif
