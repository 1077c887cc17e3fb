/*
 * `gql gateway` serving: the supergraph's API schema over the http part
 * (the same GraphQL-over-HTTP handling as gql serve), each validated
 * request executed along its cached plan: waves of parallel subgraph
 * fetches over the pooled client, merging, then the response.
 */
#ifndef GQL_GATEWAY_SERVE_H
#define GQL_GATEWAY_SERVE_H

#include "config/headers.h"
#include "gateway/client.h"
#include "gateway/gateway.h"
#include "gql_http.h"
#include "observe/server_metrics.h"

#include <stdatomic.h>

typedef struct gql_gw_serve_options {
  gql_gw_client_options client;
  size_t plan_cache_bytes; /* per worker; 0: the plan cache's default */
  /* The gateway's families (subgraph requests and durations, plan cache)
   * counted here; NULL: none. Must outlive the server. */
  gql_server_metrics *metrics;
  /* The headers section: what each subgraph request carries of the
   * client's request (NULL or no rules: nothing). */
  const gql_cfg_headers *headers;
  /* Hot reload: the headers section of a server generation (its ud);
   * NULL, or NULL returned: `headers`. */
  const gql_cfg_headers *(*headers_of)(void *generation);
  /* Hot reload: sets the subgraph client options of a server generation
   * (its ud) over `client` (NULL: `client` for every one). A generation's
   * new client uses them; requests in flight keep their client's. */
  void (*client_of)(void *generation, gql_gw_client_options *o);
  /* The verified JWT claims of a request, for the rules' from_claim (NULL:
   * none); given the request's context. */
  const gql_json_value *(*claims)(const gql_http_request *r);
  /* Hot reload: the supergraph of a server generation (its ud, from
   * gql_http_exec.generation); NULL, or NULL returned: the first one. */
  const gql_supergraph *(*supergraph_of)(void *generation);
  /* Operations a worker plans on a new supergraph before it serves from
   * it: its plan cache's most recently used (0: 64). */
  unsigned warm_plans;
  /* Subscriptions (subscribe.c): the server's limits, whose queue
   * capacity and ping interval apply to the subgraph side too. */
  gql_http_subscription_limits subscription;
  /* subscription.mode: each subgraph's subscription protocol (graphql-ws
   * or graphql-sse) and path (NULL: graphql-ws at its URL); hot reload:
   * that of the request's generation (NULL, or NULL returned: this). */
  const gql_cfg_subscription *subscription_mode;
  const gql_cfg_subscription *(*subscription_mode_of)(void *generation);
} gql_gw_serve_options;

/* Fills `ex` so that a gql_http_server built on sg->api with
 * options.executor = ex runs requests through the gateway. `sg` and `o`
 * (copied) must outlive the server; the executor keeps no other state. */
typedef struct gql_gw_executor {
  gql_http_executor ex;
  const gql_supergraph *sg;
  gql_gw_serve_options opt;
  /* readiness: the first worker probes every subgraph of the current
   * supergraph ({__typename}, again every 500 ms until it answers) */
  atomic_bool probing;
  atomic_bool ready; /* every one answered */
} gql_gw_executor;

/* 0 or GQL_ENOMEM; gql_gw_executor_free after the server. */
int gql_gw_executor_init(gql_gw_executor *e, const gql_supergraph *sg,
                         const gql_gw_serve_options *o);
void gql_gw_executor_free(gql_gw_executor *e);
/* True once every subgraph of the current supergraph has answered a probe
 * (ud: the executor). */
bool gql_gw_executor_ready(void *ud);

#endif
