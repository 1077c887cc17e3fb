/* The server's and gateway's metric families (server_metrics.h). */
#include "server_metrics.h"

#include "gql.h"

#include <pthread.h>
#include <stdio.h>

static const char *const l_status_op[] = {"status", "operation_type"};
static const char *const l_code[] = {"code"};
static const char *const l_subgraph_status[] = {"subgraph", "status"};
static const char *const l_subgraph[] = {"subgraph"};
static const char *const l_reason[] = {"reason"};

/* The tracer's counters (gql_tracer_stats), read when scraped. */
typedef struct tracer_stat {
  const char *name, *help;
  gql_metric_kind kind;
  size_t offset;
} tracer_stat;

static const tracer_stat tracer_stats[] = {
    {"gql_trace_spans_queued_total", "Spans accepted into the queue.",
     GQL_METRIC_COUNTER, offsetof(gql_tracer_stats, queued)},
    {"gql_trace_spans_exported_total", "Spans the collector took.",
     GQL_METRIC_COUNTER, offsetof(gql_tracer_stats, exported)},
    {"gql_trace_spans_dropped_total", "Spans dropped: queue full.",
     GQL_METRIC_COUNTER, offsetof(gql_tracer_stats, dropped)},
    {"gql_trace_spans_failed_total", "Spans of batches that failed.",
     GQL_METRIC_COUNTER, offsetof(gql_tracer_stats, failed)},
    {"gql_trace_spans_pending", "Spans queued or being sent.", GQL_METRIC_GAUGE,
     offsetof(gql_tracer_stats, pending)},
};

typedef struct tracer_ud {
  gql_tracer *t;
  size_t offset;
} tracer_ud;

static bool collect_tracer(void *ud, uint32_t i, gql_str *values,
                           double *value) {
  (void)values;
  if (i)
    return false;
  const tracer_ud *u = ud;
  gql_tracer_stats st;
  gql_tracer_stats_get(u->t, &st);
  uint64_t v;
  memcpy(&v, (const char *)&st + u->offset, sizeof v);
  *value = (double)v;
  return true;
}

static int family(gql_metrics *m, const char *name, const char *help,
                  gql_metric_kind kind, const char *const *labels,
                  uint32_t nlabels) {
  gql_metric_def d = {.name = name,
                      .help = help,
                      .kind = kind,
                      .labels = labels,
                      .nlabels = nlabels};
  return gql_metrics_family(m, &d);
}

uint32_t gql_server_metrics_request_cell(gql_server_metrics *sm, int status,
                                         gql_metric_op op) {
  static const char *const ops[] = {"none", "query", "mutation",
                                    "subscription"};
  char code[16];
  snprintf(code, sizeof code, "%d", status);
  gql_str v[2] = {gql_cstr(code), gql_cstr(ops[op])};
  gql_metric_series s;
  if (!gql_metrics_series(sm->m, sm->http_requests, v, &s))
    return UINT32_MAX;
  /* (another thread may store the same cell: the series is one) */
  atomic_store_explicit(&sm->request_cells[status - 100][op], s.cell + 1,
                        memory_order_release);
  return s.cell;
}

int gql_server_metrics_init(gql_server_metrics *sm, gql_metrics *m,
                            bool gateway, gql_tracer *tracer) {
  memset(sm, 0, sizeof *sm);
  sm->m = m;
  sm->subgraph_requests = sm->subgraph_duration = -1;
  sm->plan_cache_hits = sm->plan_cache_misses = -1;
  sm->redis_messages = sm->redis_rejected = -1;
  sm->cost_requests = sm->cost_estimated = -1;
  sm->http_requests =
      family(m, "gql_http_requests_total",
             "HTTP requests answered, by status code and GraphQL operation "
             "type (\"none\" when no operation ran).",
             GQL_METRIC_COUNTER, l_status_op, 2);
  sm->http_duration = family(m, "gql_http_request_duration_seconds",
                             "Time from a request's first byte to its "
                             "response written.",
                             GQL_METRIC_HISTOGRAM, NULL, 0);
  sm->graphql_errors =
      family(m, "gql_graphql_errors_total",
             "GraphQL errors in responses, by extensions.code (\"none\" "
             "without one).",
             GQL_METRIC_COUNTER, l_code, 1);
  sm->doc_cache_hits =
      family(m, "gql_document_cache_hits_total",
             "Requests whose document was parsed, validated and planned "
             "before.",
             GQL_METRIC_COUNTER, NULL, 0);
  sm->doc_cache_misses = family(m, "gql_document_cache_misses_total",
                                "Requests whose document was prepared anew.",
                                GQL_METRIC_COUNTER, NULL, 0);
  sm->http_connections =
      family(m, "gql_http_connections", "Open client connections.",
             GQL_METRIC_GAUGE, NULL, 0);
  static const struct {
    const char *name, *help;
    gql_metric_kind kind;
  } ws[5] = {
      {"gql_websocket_connections",
       "Open WebSocket connections (GraphQL over WebSocket).",
       GQL_METRIC_GAUGE},
      {"gql_subscriptions_open",
       "Subscriptions open over WebSocket or server-sent events.",
       GQL_METRIC_GAUGE},
      {"gql_subscription_events_total",
       "Subscription events written to subscribers (one per subscriber).",
       GQL_METRIC_COUNTER},
      {"gql_subscription_events_dropped_total",
       "Subscription events a subscriber did not get: its queue overflowed "
       "or it stopped reading.",
       GQL_METRIC_COUNTER},
      {"gql_subscription_executions_total",
       "Subscription event executions (one for all the subscribers that "
       "share it).",
       GQL_METRIC_COUNTER},
  };
  bool ws_ok = true;
  for (int i = 0; i < 5; i++) {
    sm->ws_families[i] = family(m, ws[i].name, ws[i].help, ws[i].kind, NULL, 0);
    ws_ok = ws_ok && sm->ws_families[i] >= 0 &&
            gql_metrics_series(m, sm->ws_families[i], NULL, &sm->ws[i]);
  }
  bool ok =
      ws_ok && sm->http_requests >= 0 && sm->http_duration >= 0 &&
      sm->graphql_errors >= 0 && sm->doc_cache_hits >= 0 &&
      sm->doc_cache_misses >= 0 && sm->http_connections >= 0 &&
      gql_metrics_series(m, sm->http_duration, NULL, &sm->duration) &&
      gql_metrics_series(m, sm->doc_cache_hits, NULL, &sm->doc_hits) &&
      gql_metrics_series(m, sm->doc_cache_misses, NULL, &sm->doc_misses) &&
      gql_metrics_series(m, sm->http_connections, NULL, &sm->connections);
  if (ok && gateway) {
    sm->subgraph_requests =
        family(m, "gql_subgraph_requests_total",
               "Requests the gateway sent to subgraphs, by subgraph and "
               "HTTP status (\"error\" without a response).",
               GQL_METRIC_COUNTER, l_subgraph_status, 2);
    sm->subgraph_duration = family(m, "gql_subgraph_request_duration_seconds",
                                   "Time of a subgraph request, retries "
                                   "included.",
                                   GQL_METRIC_HISTOGRAM, l_subgraph, 1);
    sm->plan_cache_hits = family(m, "gql_plan_cache_hits_total",
                                 "Operations whose query plan was cached.",
                                 GQL_METRIC_COUNTER, NULL, 0);
    sm->plan_cache_misses =
        family(m, "gql_plan_cache_misses_total", "Operations planned anew.",
               GQL_METRIC_COUNTER, NULL, 0);
    ok = sm->subgraph_requests >= 0 && sm->subgraph_duration >= 0 &&
         sm->plan_cache_hits >= 0 && sm->plan_cache_misses >= 0 &&
         gql_metrics_series(m, sm->plan_cache_hits, NULL, &sm->plan_hits) &&
         gql_metrics_series(m, sm->plan_cache_misses, NULL, &sm->plan_misses);
  }
  if (ok && tracer) {
    size_t n = sizeof tracer_stats / sizeof tracer_stats[0];
    tracer_ud *uds = gql_arena_alloc(gql_metrics_arena(m), sizeof *uds * n);
    ok = uds != NULL;
    for (size_t i = 0; ok && i < n; i++) {
      uds[i] = (tracer_ud){tracer, tracer_stats[i].offset};
      gql_metric_def d = {.name = tracer_stats[i].name,
                          .help = tracer_stats[i].help,
                          .kind = tracer_stats[i].kind};
      ok = gql_metrics_collected(m, &d, collect_tracer, &uds[i]) >= 0;
    }
  }
  return ok ? 0 : GQL_ENOMEM;
}

int gql_server_metrics_events(gql_server_metrics *sm) {
  static const char *const reasons[2] = {"malformed", "too_big"};
  sm->redis_messages =
      family(sm->m, "gql_subscription_redis_messages_total",
             "Messages received on the Redis channels of subscription "
             "fields, counted by each worker thread listening to the "
             "channel.",
             GQL_METRIC_COUNTER, NULL, 0);
  sm->redis_rejected =
      family(sm->m, "gql_subscription_redis_messages_rejected_total",
             "Messages on subscription channels dropped undelivered, by "
             "reason: malformed (not JSON) or too_big (over the event size "
             "limit).",
             GQL_METRIC_COUNTER, l_reason, 1);
  bool ok =
      sm->redis_messages >= 0 && sm->redis_rejected >= 0 &&
      gql_metrics_series(sm->m, sm->redis_messages, NULL, &sm->redis_received);
  for (int i = 0; ok && i < 2; i++) {
    gql_str v = gql_cstr(reasons[i]);
    ok = gql_metrics_series(sm->m, sm->redis_rejected, &v,
                            &sm->redis_rejects[i]);
  }
  return ok ? 0 : GQL_ENOMEM;
}

int gql_server_metrics_cost(gql_server_metrics *sm) {
  static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
  static const char *const l_result_mode[] = {"result", "mode"};
  static const char *const l_result[] = {"result"};
  static const char *const results[3] = {
      "COST_OK", "COST_ESTIMATED_TOO_EXPENSIVE", "COST_QUERY_PARSE_FAILURE"};
  static const char *const modes[2] = {"enforce", "measure"};
  /* powers of 10, as Router's documentation's view of cost.* */
  static const double buckets[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  if (atomic_load_explicit(&sm->cost_ready, memory_order_acquire))
    return 0;
  pthread_mutex_lock(&once);
  bool ok = true;
  if (!atomic_load_explicit(&sm->cost_ready, memory_order_relaxed)) {
    if (sm->cost_requests < 0)
      sm->cost_requests =
          family(sm->m, "gql_cost_requests_total",
                 "Operations demand control estimated, by result (Apollo "
                 "Router's cost.result: COST_OK, "
                 "COST_ESTIMATED_TOO_EXPENSIVE, COST_QUERY_PARSE_FAILURE) "
                 "and mode (enforce, measure: an operation over the maximum "
                 "runs, and counts as COST_ESTIMATED_TOO_EXPENSIVE).",
                 GQL_METRIC_COUNTER, l_result_mode, 2);
    if (sm->cost_estimated < 0) {
      gql_metric_def d = {.name = "gql_cost_estimated",
                          .help =
                              "Estimated costs of operations (Apollo Router's "
                              "cost.estimated), by result: COST_OK or "
                              "COST_ESTIMATED_TOO_EXPENSIVE.",
                          .kind = GQL_METRIC_VALUES,
                          .labels = l_result,
                          .nlabels = 1,
                          .buckets = buckets,
                          .nbuckets = sizeof buckets / sizeof buckets[0]};
      sm->cost_estimated = gql_metrics_family(sm->m, &d);
    }
    ok = sm->cost_requests >= 0 && sm->cost_estimated >= 0;
    for (int mode = 0; ok && mode < 2; mode++)
      for (int r = 0; ok && r < 3; r++) {
        gql_str v[2] = {gql_cstr(results[r]), gql_cstr(modes[mode])};
        ok = gql_metrics_series(sm->m, sm->cost_requests, v,
                                &sm->cost_counts[mode][r]);
      }
    for (int r = 0; ok && r < 2; r++) {
      gql_str v = gql_cstr(results[r]);
      ok = gql_metrics_series(sm->m, sm->cost_estimated, &v,
                              &sm->cost_estimates[r]);
    }
    if (ok)
      atomic_store_explicit(&sm->cost_ready, true, memory_order_release);
  }
  pthread_mutex_unlock(&once);
  return ok ? 0 : GQL_ENOMEM;
}
