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

typedef struct gql_gw_serve_options {
  gql_gw_client_options client;
  size_t plan_cache_bytes; /* per worker; 0: the plan cache's default */
  /* The headers section: what each subgraph request carries of the
   * client's request (NULL or no rules: nothing). */
  const gql_cfg_headers *headers;
  /* The verified JWT claims of a request, for the rules' from_claim (NULL:
   * none); given the request's context. */
  const gql_json_value *(*claims)(const gql_http_request *r);
} gql_gw_serve_options;

/* Fills `ex` so that a gql_http_server built on sg->api with
 * options.executor = ex runs requests through the gateway. `sg` and `o`
 * (copied) must outlive the server; the executor keeps no other state. */
typedef struct gql_gw_executor {
  gql_http_executor ex;
  const gql_supergraph *sg;
  gql_gw_serve_options opt;
} gql_gw_executor;

void gql_gw_executor_init(gql_gw_executor *e, const gql_supergraph *sg,
                          const gql_gw_serve_options *o);

#endif
