/* The families a gql server and gateway expose on /metrics (issue 17,
 * item 1), defined once (server_metrics.c): the server resolves the
 * series it counts and keeps them; a worker counts into its shard. */
#ifndef GQL_OBSERVE_SERVER_METRICS_H
#define GQL_OBSERVE_SERVER_METRICS_H

#include "metrics.h"

typedef struct gql_tracer gql_tracer;

typedef struct gql_server_metrics {
  gql_metrics *m;
  /* families (indexes into m) */
  int http_requests;     /* gql_http_requests_total{status,operation_type} */
  int http_duration;     /* gql_http_request_duration_seconds */
  int graphql_errors;    /* gql_graphql_errors_total{code} */
  int doc_cache_hits;    /* gql_document_cache_hits_total */
  int doc_cache_misses;  /* gql_document_cache_misses_total */
  int http_connections;  /* gql_http_connections */
  int subgraph_requests; /* gql_subgraph_requests_total{subgraph,status} */
  int subgraph_duration; /* gql_subgraph_request_duration_seconds{subgraph} */
  int plan_cache_hits;   /* gql_plan_cache_hits_total */
  int plan_cache_misses; /* gql_plan_cache_misses_total */
  /* GraphQL over WebSocket, in gql_http_ws_count's order:
   * gql_websocket_connections, gql_subscriptions_open,
   * gql_subscription_events_total, gql_subscription_events_dropped_total,
   * gql_subscription_executions_total */
  int ws_families[5];
  gql_metric_series ws[5];
  /* gql serve --redis's subscription channels (gql_server_metrics_events;
   * -1 without): gql_subscription_redis_messages_total and
   * gql_subscription_redis_messages_rejected_total{reason}, its series by
   * reason: malformed, too_big */
  int redis_messages, redis_rejected;
  gql_metric_series redis_received, redis_rejects[2];
  /* demand control (gql_server_metrics_cost; cost_ready false before):
   * gql_cost_requests_total{result,mode}, its series by mode (enforce,
   * measure) and result (gql_cost_result), and gql_cost_estimated{result},
   * the estimates, by result (COST_OK, COST_ESTIMATED_TOO_EXPENSIVE) */
  _Atomic bool cost_ready;
  int cost_requests, cost_estimated;
  gql_metric_series cost_counts[2][3], cost_estimates[2];
  /* the series without labels */
  gql_metric_series duration, doc_hits, doc_misses, connections, plan_hits,
      plan_misses;
  /* gql_http_requests_total's series by status (100-599) and operation
   * type, found the first time (cell + 1; 0: not yet) */
  _Atomic uint32_t request_cells[500][4];
} gql_server_metrics;

/* The operation type label of a request. */
typedef enum gql_metric_op {
  GQL_METRIC_OP_NONE, /* no operation ran (a bad request, GET /health) */
  GQL_METRIC_OP_QUERY,
  GQL_METRIC_OP_MUTATION,
  GQL_METRIC_OP_SUBSCRIPTION
} gql_metric_op;

/* Defines the families (the gateway's too when `gateway`; the tracer's
 * counters, read at scrape time, when `tracer`). 0 or GQL_ENOMEM. */
int gql_server_metrics_init(gql_server_metrics *sm, gql_metrics *m,
                            bool gateway, gql_tracer *tracer);

/* Defines the families of gql serve's subscription events from Redis
 * (the messages received on the subscription fields' channels, the ones
 * rejected by reason), each series at 0. 0 or GQL_ENOMEM. */
int gql_server_metrics_events(gql_server_metrics *sm);

/* Demand control's outcome of an estimate, as Apollo Router's cost.result
 * names it. */
typedef enum gql_cost_result {
  GQL_COST_OK,
  GQL_COST_ESTIMATED_TOO_EXPENSIVE,
  GQL_COST_QUERY_PARSE_FAILURE
} gql_cost_result;

/* Defines the families of demand control (the estimates by result and
 * mode, each series at 0; their histogram), then sets cost_ready. Once:
 * later calls, from any thread, return at once. 0 or GQL_ENOMEM. */
int gql_server_metrics_cost(gql_server_metrics *sm);

/* The request series' cell, found once (slow path of
 * gql_server_metrics_request); UINT32_MAX when out of memory. */
uint32_t gql_server_metrics_request_cell(gql_server_metrics *sm, int status,
                                         gql_metric_op op);

/* Counts one answered request: its status and operation type, its
 * duration, and whether its document came from the cache (cache: 1 hit,
 * 0 miss, -1 no document). */
static inline void gql_server_metrics_request(gql_server_metrics *sm,
                                              gql_metrics_shard *sh, int status,
                                              gql_metric_op op,
                                              uint64_t duration_ns, int cache) {
  uint32_t cell = UINT32_MAX;
  if (GQL_LIKELY(status >= 100 && status < 600 && (unsigned)op < 4)) {
    cell = atomic_load_explicit(&sm->request_cells[status - 100][op],
                                memory_order_acquire) -
           1;
    if (GQL_UNLIKELY(cell == UINT32_MAX))
      cell = gql_server_metrics_request_cell(sm, status, op);
  }
  if (GQL_LIKELY(cell != UINT32_MAX))
    gql_metric_cell_add(gql_metric_at(sh, cell), 1);
  gql_metrics_observe_ns(sh, &sm->duration, duration_ns);
  if (cache >= 0)
    gql_metrics_add(sh, cache ? &sm->doc_hits : &sm->doc_misses, 1);
}

#endif
