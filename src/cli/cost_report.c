/* What demand control tells operators (cli.h: gql_cli_cost_report):
 * every estimate counted on /metrics, in the shard of the worker thread
 * that made it (the observer's: gql_http_request_observer), as
 * gql_cost_requests_total{result,mode} and, when there is an estimate,
 * gql_cost_estimated{result} (Apollo Router's cost.estimated with its
 * cost.result); and in measure mode, where an operation over the maximum
 * runs all the same, a warning line through the server's log
 * (gql_cli_log), at most one every 10 s (MEASURE_LOG_INTERVAL_NS) across
 * the workers, with the count of those held back since: the counter keeps
 * the exact totals, the line names an example. */
#include "cli.h"

#define MEASURE_LOG_INTERVAL_NS (10 * (uint64_t)1000000000)

void gql_cli_cost_report_init(gql_cli_cost_report *cr,
                              const gql_http_options *o) {
  *cr = (gql_cli_cost_report){.http = o, .limiting = true};
  gql_log_limit_init(&cr->lines, MEASURE_LOG_INTERVAL_NS);
}

void gql_cli_cost_report_free(gql_cli_cost_report *cr) {
  if (cr->limiting)
    gql_log_limit_free(&cr->lines);
  cr->limiting = false;
}

/* Measure mode let an operation over the maximum run: a line, unless one
 * was written less than the interval ago (then it is counted, and told in
 * the next one). */
static void measure_line(gql_cli_cost_report *cr, gql_str operation,
                         double cost, double max) {
  uint64_t held;
  if (!cr->limiting ||
      !gql_log_limit_take(&cr->lines, 0, gql_log_limit_now(), &held))
    return;
  char more[96] = "";
  if (held)
    snprintf(more, sizeof more,
             " (and %llu more over the maximum since the last such line)",
             (unsigned long long)held);
  int n = operation.len > 100 ? 100 : (int)operation.len;
  gql_cli_log(cr->http, GQL_HTTP_LOG_WARN,
              "demand control (measure): operation %.*s estimated cost %.15g "
              "exceeds the maximum %.15g; it ran, enforce would refuse "
              "it%s",
              n ? n : 1, n ? operation.ptr : "-", cost, max, more);
}

void gql_cli_cost_report_estimate(gql_cli_cost_report *cr, gql_http_request *r,
                                  gql_str operation, bool enforce,
                                  gql_cost_result result, double cost,
                                  double max) {
  gql_server_metrics *sm = NULL;
  gql_metrics_shard *sh =
      gql_cli_observer_shard(gql_http_request_observer(r), &sm);
  /* (defined at start when demand control was on; a reload that turned
   * it on defines them here, once) */
  if (sh && gql_server_metrics_cost(sm) == 0) {
    gql_metrics_add(sh, &sm->cost_counts[enforce ? 0 : 1][result], 1);
    if (result != GQL_COST_QUERY_PARSE_FAILURE)
      gql_metrics_observe(sh, &sm->cost_estimates[result], cost);
  }
  if (!enforce && result == GQL_COST_ESTIMATED_TOO_EXPENSIVE)
    measure_line(cr, operation, cost, max);
}
