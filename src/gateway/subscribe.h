/*
 * The gateway's subscriptions: a client's subscription operation (over
 * graphql-ws, through the http server's executor hook) relayed from the
 * subgraph that owns its root field.
 *
 * The planner plans a subscription as a query of the Subscription type:
 * one root fetch to the owning subgraph, then entity fetches in waves. The
 * root fetch is opened as a subscription to that subgraph over
 * graphql-transport-ws (ws_client.c; the subgraph's URL with http→ws);
 * each event it sends is the root fetch's answer for one execution of the
 * rest of the plan (serve.c's waves, in an arena per event), and the
 * client gets the merged response as a `next`. Events wait in a bounded
 * queue while the previous one's fetches run (the oldest dropped past
 * it). The client's `complete` or leaving closes the subgraph's
 * subscription (`complete`, close frame; over SSE the connection closes);
 * the subgraph's `complete` (or its event stream's end) ends the client's; an
 * error, a refusal or a lost connection ends it with a GraphQL error naming the
 * subgraph.
 */
#ifndef GQL_GATEWAY_SUBSCRIBE_H
#define GQL_GATEWAY_SUBSCRIBE_H

#include "gateway/gateway.h"
#include "gql_http.h"
#include "http/ws.h"

/* A response for one event (NULL: it could not be made). */
typedef void (*gql_gw_event_done)(void *ud, const char *json, size_t len);

/* What the executor (serve.c) lends a subscription. */
typedef struct gql_gw_sub_host {
  void *ud; /* held for the subscription's life: release frees it */
  /* Runs the plan's waves after its root fetch for one event, `ev` (its
   * arena lives until done), whose root answer is `json`; `done` follows
   * once, maybe before it returns. 0, or a negative gql_err (no done). */
  int (*run_event)(void *ud, gql_http_exec *ev, const gql_gw_plan *plan,
                   const gql_value *variables, const char *json, size_t len,
                   gql_gw_event_done done, void *done_ud);
  void (*release)(void *ud);
} gql_gw_sub_host;

typedef struct gql_gw_sub_params {
  gql_http_exec *req; /* the client's operation (gql_http_exec_streams) */
  const gql_gw_plan *plan;
  gql_gw_plan_ref *plan_ref;  /* taken: released at the end */
  const gql_value *variables; /* coerced, in req->arena */
  const gql_supergraph *sg;
  gql_ws_pool *pool; /* the worker's */
  /* header lines for the subgraph's upgrade request (the headers rules'
   * for that subgraph), each ending in CRLF; NULL: none */
  const char *headers;
  uint32_t queue_capacity;     /* events waiting (0: 64) */
  uint32_t ping_interval_ms;   /* keep-alive (0: 12,000; SSE: TCP's) */
  uint32_t connect_timeout_ms; /* 0: 2,000 */
  uint32_t ack_timeout_ms;     /* upgrade to connection_ack (0: 10,000) */
  /* subscription.mode.passthrough: graphql-sse instead of graphql-ws, and
   * the path that replaces the URL's (NULL: the URL's) */
  bool sse;
  const char *path;
  size_t max_event; /* over SSE: bytes of one event (0: 1 MiB) */
  gql_gw_sub_host host;
} gql_gw_sub_params;

/* Starts the relay. 0: the request is the relay's (it ends it), and so is
 * the plan reference and the host; else a negative gql_err with *why (a
 * plan that is not one root fetch then entity fetches, an unusable URL):
 * nothing was taken. */
int gql_gw_subscribe(const gql_gw_sub_params *p, const char **why);

#endif
