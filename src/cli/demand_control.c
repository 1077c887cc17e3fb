/* Demand control for gql serve and gql gateway: Apollo Router's
 * demand_control with the static_estimated strategy (src/validation/cost.c)
 * as the server's admission hook. The weights and list sizes are read from
 * each generation's schema (the gateway's: the supergraph's API schema,
 * with the @cost / @listSize composition kept), the limits from its
 * settings (hot reload builds one per generation: gql_cli_live.dc); each
 * request's operation is estimated with its variables before it runs, and
 * the outcome told to gql_cli_cost_report_estimate (cost_report.c: /metrics,
 * and measure mode's rate-limited lines). */
#include "cli.h"
#include "execution/exec.h"
#include "validation/cost.h"

#include <stdlib.h>

struct gql_cli_demand_control {
  gql_cost_schema *cs;
  gql_schema *weights; /* built from weights_sdl (NULL: the served one) */
  double max;
  bool enforce;
};

int gql_cli_demand_control_flag(const char *cmd, gql_settings *st, int argc,
                                char **argv, int *i) {
  static const char *const with_value[] = {"--demand-control-max",
                                           "--demand-control-mode",
                                           "--demand-control-list-size"};
  const char *a = argv[*i], *v;
  int taken = gql_cli_take_value(cmd, argc, argv, i, with_value,
                                 GQL_ARRAY_LEN(with_value), &v);
  if (taken <= 0)
    return taken;
  gql_cfg_demand_control *dc = &st->demand_control;
  dc->enabled = true;
  unsigned long long n;
  if (strcmp(a, "--demand-control-mode") == 0) {
    if (strcmp(v, "enforce") && strcmp(v, "measure")) {
      fprintf(stderr, "%s: %s takes measure or enforce, not '%s'\n", cmd, a, v);
      return -1;
    }
    dc->enforce = strcmp(v, "enforce") == 0;
  } else if (strcmp(a, "--demand-control-max") == 0) {
    char *end = NULL;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0) || d > 1e300) {
      fprintf(stderr, "%s: %s needs a number of at least 0, not '%s'\n", cmd, a,
              v);
      return -1;
    }
    dc->max = d;
    dc->enforce = true; /* a maximum given on the command line enforces */
  } else {
    if (!gql_cli_parse_num(cmd, a, v, 1000000, &n) || !n)
      return -1;
    dc->list_size = (uint32_t)n;
  }
  return 1;
}

const char *gql_cli_demand_control_admit(
    gql_cli_demand_control *dc, gql_cli_cost_report *cr, gql_http_request *r,
    const gql_prepared *p, const gql_value *variables, size_t *len) {
  gql_arena *a = gql_http_request_arena(r);
  double cost = 0;
  const char *error = NULL;
  int rc =
      gql_cost_estimate(dc->cs, p->doc, p->op, variables, a, &cost, &error);
  gql_str name = {p->op->name.ptr, p->op->name.ptr ? p->op->name.len : 0};
  gql_cost_result result = rc < 0 ? GQL_COST_QUERY_PARSE_FAILURE
                           : dc->max > 0 && cost > dc->max
                               ? GQL_COST_ESTIMATED_TOO_EXPENSIVE
                               : GQL_COST_OK;
  gql_cli_cost_report_estimate(cr, r, name, dc->enforce, result, cost, dc->max);
  /* measure mode refuses nothing, an estimate that failed included: as
   * Router, which drops every demand-control error unless it enforces */
  if (result == GQL_COST_OK || !dc->enforce)
    return NULL;
  gql_buf b;
  gql_buf_init(&b, NULL);
  if (rc < 0)
    gql_cost_failure_json(error              ? error
                          : rc == GQL_ELIMIT ? "The operation is too "
                                               "complex to estimate."
                                             : gql_strerror(rc),
                          &b);
  else
    gql_cost_too_expensive_json(cost, dc->max, &b);
  char *body = b.data ? gql_arena_alloc(a, b.len) : NULL;
  if (body)
    memcpy(body, b.data, b.len);
  *len = body ? b.len : 0;
  gql_buf_free(&b);
  return body ? body : "{\"errors\":[{\"message\":\"Out of memory.\"}]}";
}

bool gql_cli_demand_control_init(const char *cmd, const gql_settings *st,
                                 const gql_schema *schema,
                                 const char *weights_sdl, size_t weights_len,
                                 gql_cli_demand_control **out) {
  *out = NULL;
  const gql_cfg_demand_control *c = &st->demand_control;
  if (!c->enabled)
    return true;
  gql_cli_demand_control *dc = calloc(1, sizeof *dc);
  if (!dc) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    return false;
  }
  gql_cost_options co = {.list_size = c->list_size};
  char err[256] = "";
  if (weights_sdl && gql_schema_from_sdl(weights_sdl, weights_len, NULL,
                                         &dc->weights, NULL) < 0) {
    fprintf(stderr,
            "%s: demand control: the supergraph does not build as a "
            "schema\n",
            cmd);
    free(dc);
    return false;
  }
  if (gql_cost_schema_new(dc->weights ? dc->weights : schema, &co, &dc->cs, err,
                          sizeof err) < 0) {
    fprintf(stderr, "%s: demand control: %s\n", cmd,
            err[0] ? err : "out of memory");
    gql_schema_free(dc->weights);
    free(dc);
    return false;
  }
  dc->max = c->max;
  dc->enforce = c->enforce;
  *out = dc;
  return true;
}

void gql_cli_demand_control_free(gql_cli_demand_control *dc) {
  if (!dc)
    return;
  gql_cost_schema_free(dc->cs);
  gql_schema_free(dc->weights);
  free(dc);
}
