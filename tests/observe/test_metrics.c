/* Prometheus metrics: per-thread shards summed at scrape, the text format
 * 0.0.4 (checked by promtool, Debian's prometheus package), bounded
 * cardinality, the server's families. */
#include "observe/server_metrics.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *scrape(gql_metrics *m) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_metrics_write(m, &b);
  char *s = strndup(b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  return s;
}

/* promtool check metrics on `text`: its exit status, its output in out. */
static int promtool(const char *text, char *out, size_t cap) {
  char in[] = "/tmp/gql_metrics_XXXXXX";
  int fd = mkstemp(in);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  cr_assert_eq(system("command -v promtool >/dev/null"), 0,
               "promtool is missing: scripts/deps.sh installs it (Debian's "
               "prometheus package)");
  char cmd[256];
  snprintf(cmd, sizeof cmd, "promtool check metrics < %s 2>&1", in);
  FILE *p = popen(cmd, "r");
  cr_assert(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int rc = pclose(p);
  unlink(in);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static gql_str S(const char *s) {
  return gql_cstr(s);
}

/* A registry with every kind, labels, odd label values, many threads. */
typedef struct worker {
  gql_metrics *m;
  gql_server_metrics *sm;
  gql_metric_series ok_query, err;
  int n;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  gql_metrics_shard *sh = gql_metrics_shard_new(w->m);
  cr_assert(sh);
  gql_metrics_add(sh, &w->sm->connections, 1);
  for (int i = 0; i < w->n; i++) {
    gql_metrics_add(sh, &w->ok_query, 1);
    gql_metrics_observe_ns(sh, &w->sm->duration,
                           (uint64_t)(i % 4) * 300000); /* 0 .. 0.9 ms */
    gql_metrics_add(sh, i % 2 ? &w->sm->doc_hits : &w->sm->doc_misses, 1);
  }
  gql_metrics_add(sh, &w->err, 3);
  return NULL;
}

Test(metrics, shards_of_many_threads_sum_when_scraped) {
  gql_metrics *m = gql_metrics_new();
  gql_server_metrics sm;
  cr_assert_eq(gql_server_metrics_init(&sm, m, true, NULL), 0);
  worker w = {.m = m, .sm = &sm, .n = 10000};
  gql_str v[2] = {S("200"), S("query")};
  cr_assert(gql_metrics_series(m, sm.http_requests, v, &w.ok_query));
  gql_str code = S("BAD_USER_INPUT");
  cr_assert(gql_metrics_series(m, sm.graphql_errors, &code, &w.err));
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, work, &w);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  char *s = scrape(m);
  cr_assert(strstr(s, "gql_http_requests_total{status=\"200\","
                      "operation_type=\"query\"} 40000\n"),
            "%s", s);
  cr_assert(
      strstr(s, "gql_graphql_errors_total{code=\"BAD_USER_INPUT\"} 12\n"));
  cr_assert(strstr(s, "gql_document_cache_hits_total 20000\n"));
  cr_assert(strstr(s, "gql_document_cache_misses_total 20000\n"));
  cr_assert(strstr(s, "gql_http_connections 4\n"));
  /* the buckets are cumulative: 0 and 0.3 ms <= 0.0005 s, 0.6 and 0.9 ms
   * <= 0.001 s; the sum is exact: 4 * 2500 * (0 + .3 + .6 + .9) ms */
  cr_assert(strstr(s,
                   "gql_http_request_duration_seconds_bucket{le=\"0.00025\"} "
                   "10000\n"),
            "%s", s);
  cr_assert(strstr(s, "gql_http_request_duration_seconds_bucket{le=\"0.0005\"} "
                      "20000\n"));
  cr_assert(strstr(s, "gql_http_request_duration_seconds_bucket{le=\"0.001\"} "
                      "40000\n"));
  cr_assert(strstr(s, "gql_http_request_duration_seconds_bucket{le=\"+Inf\"} "
                      "40000\n"));
  cr_assert(strstr(s, "gql_http_request_duration_seconds_sum 18\n"));
  cr_assert(strstr(s, "gql_http_request_duration_seconds_count 40000\n"));
  free(s);
  gql_metrics_free(m);
}

Test(metrics, a_populated_registry_passes_promtool) {
  gql_metrics *m = gql_metrics_new();
  gql_server_metrics sm;
  gql_tracer *t;
  gql_tracer_config tc = {.no_thread = true};
  cr_assert_eq(gql_tracer_new(&tc, &t), 0);
  cr_assert_eq(gql_server_metrics_init(&sm, m, true, t), 0);
  gql_metrics_shard *a = gql_metrics_shard_new(m),
                    *b = gql_metrics_shard_new(m);
  static const char *const statuses[] = {"200", "400", "500"};
  static const char *const ops[] = {"query", "mutation", "none"};
  for (int i = 0; i < 9; i++) {
    gql_str v[2] = {S(statuses[i % 3]), S(ops[i / 3])};
    gql_metric_series s;
    cr_assert(gql_metrics_series(m, sm.http_requests, v, &s));
    gql_metrics_add(i % 2 ? a : b, &s, (uint64_t)i + 1);
  }
  /* label values a client or subgraph chose: quotes, backslashes,
   * newlines, invalid UTF-8 */
  static const char *const codes[] = {"GRAPHQL_VALIDATION_FAILED",
                                      "say \"hi\"\\n",
                                      "two\nlines",
                                      "bad \xff utf8",
                                      "none",
                                      ""};
  for (int i = 0; i < 6; i++) {
    gql_str c = S(codes[i]);
    gql_metric_series s;
    cr_assert(gql_metrics_series(m, sm.graphql_errors, &c, &s));
    gql_metrics_add(a, &s, 2);
  }
  static const char *const sgs[] = {"products", "reviews", "inventory"};
  for (int i = 0; i < 3; i++) {
    gql_str v[2] = {S(sgs[i]), S(i == 2 ? "error" : "200")};
    gql_metric_series s, d;
    cr_assert(gql_metrics_series(m, sm.subgraph_requests, v, &s));
    cr_assert(gql_metrics_series(m, sm.subgraph_duration, v, &d));
    gql_metrics_add(b, &s, 5);
    for (int k = 0; k < 50; k++)
      gql_metrics_observe_ns(a, &d, (uint64_t)k * 97531);
  }
  gql_metrics_observe_ns(a, &sm.duration, 123456789);
  gql_metrics_observe_ns(b, &sm.duration, 20000000000u); /* over 10 s */
  gql_metrics_add(a, &sm.connections, 3);
  gql_metrics_add(b, &sm.connections, (uint64_t)-1);
  gql_metrics_add(a, &sm.plan_hits, 7);
  gql_metrics_add(b, &sm.plan_misses, 1);
  gql_metrics_add(a, &sm.doc_hits, 9);
  /* gql serve --redis's families, counted by two workers */
  cr_assert_eq(gql_server_metrics_events(&sm), 0);
  gql_metrics_add(a, &sm.redis_received, 3);
  gql_metrics_add(b, &sm.redis_received, 4);
  gql_metrics_add(b, &sm.redis_rejects[1], 2);
  char *s = scrape(m);
  char out[8192];
  int rc = promtool(s, out, sizeof out);
  cr_assert_eq(rc, 0, "promtool: %s\n---\n%s", out, s);
  /* what it checked */
  cr_assert(
      strstr(s, "gql_graphql_errors_total{code=\"say \\\"hi\\\"\\\\n\"} 2\n"),
      "%s", s);
  cr_assert(strstr(s, "gql_graphql_errors_total{code=\"two\\nlines\"} 2\n"));
  cr_assert(strstr(s,
                   "gql_graphql_errors_total{code=\"bad \xef\xbf\xbd utf8\"} "
                   "2\n"));
  cr_assert(strstr(s, "gql_http_connections 2\n"));
  cr_assert(strstr(s, "gql_subscription_redis_messages_total 7\n"));
  cr_assert(strstr(s, "gql_subscription_redis_messages_rejected_total{reason="
                      "\"malformed\"} 0\n"));
  cr_assert(strstr(s, "gql_subscription_redis_messages_rejected_total{reason="
                      "\"too_big\"} 2\n"));
  cr_assert(strstr(s, "gql_trace_spans_queued_total 0\n"));
  cr_assert(strstr(s, "# TYPE gql_trace_spans_pending gauge\n"));
  cr_assert(strstr(s, "gql_subgraph_request_duration_seconds_bucket{subgraph=\""
                      "inventory\",le=\"+Inf\"} 50\n"));
  cr_assert(strstr(s, "gql_http_request_duration_seconds_sum 20.123456789\n"));
  /* ...and that it can fail: a raw newline in a label value, a bucket
   * count that goes down */
  char *bad = strdup(s);
  char *p = strstr(bad, "two\\nlines");
  p[3] = '\n';
  memmove(p + 4, p + 5, strlen(p + 5) + 1);
  cr_assert_neq(promtool(bad, out, sizeof out), 0, "promtool took: %s", bad);
  free(bad);
  cr_assert_neq(promtool("# TYPE x_seconds histogram\n"
                         "x_seconds_bucket{le=\"1\"} 5\n"
                         "x_seconds_bucket{le=\"+Inf\"} 3\n"
                         "x_seconds_sum 1\nx_seconds_count 3\n",
                         out, sizeof out),
                0);
  free(s);
  gql_metrics_free(m);
  gql_tracer_free(t);
}

Test(metrics, cardinality_is_bounded_by_an_other_series) {
  gql_metrics *m = gql_metrics_new();
  static const char *const l[] = {"code"};
  gql_metric_def d = {.name = "x_total",
                      .help = "x",
                      .kind = GQL_METRIC_COUNTER,
                      .labels = l,
                      .nlabels = 1,
                      .max_series = 3};
  int f = gql_metrics_family(m, &d);
  cr_assert_geq(f, 0);
  gql_metrics_shard *sh = gql_metrics_shard_new(m);
  gql_metric_series first;
  for (int i = 0; i < 10; i++) {
    char v[16];
    snprintf(v, sizeof v, "c%d", i);
    gql_str c = S(v);
    gql_metric_series s;
    cr_assert(gql_metrics_series(m, f, &c, &s));
    if (i == 0)
      first = s;
    gql_metrics_add(sh, &s, 1);
  }
  gql_str again = S("c0");
  gql_metric_series s0;
  cr_assert(gql_metrics_series(m, f, &again, &s0));
  cr_assert_eq(s0.cell, first.cell, "a known series is found again");
  char *s = scrape(m);
  cr_assert(strstr(s, "x_total{code=\"c2\"} 1\n"));
  cr_assert(!strstr(s, "c3"));
  cr_assert(strstr(s, "x_total{code=\"other\"} 7\n"), "%s", s);
  free(s);
  gql_metrics_free(m);
}

Test(metrics, bad_definitions_are_refused) {
  gql_metrics *m = gql_metrics_new();
  static const char *const le[] = {"le"}, *const dunder[] = {"__x"},
                           *const dash[] = {"a-b"};
  static const double down[] = {1, 0.5};
  gql_metric_def defs[] = {
      {.name = "1x", .help = "", .kind = GQL_METRIC_COUNTER},
      {.name = "a b", .help = "", .kind = GQL_METRIC_COUNTER},
      {.name = "h",
       .help = "",
       .kind = GQL_METRIC_HISTOGRAM,
       .labels = le,
       .nlabels = 1},
      {.name = "c",
       .help = "",
       .kind = GQL_METRIC_COUNTER,
       .labels = dunder,
       .nlabels = 1},
      {.name = "c",
       .help = "",
       .kind = GQL_METRIC_COUNTER,
       .labels = dash,
       .nlabels = 1},
      {.name = "h",
       .help = "",
       .kind = GQL_METRIC_HISTOGRAM,
       .buckets = down,
       .nbuckets = 2},
  };
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
    cr_assert_eq(gql_metrics_family(m, &defs[i]), -1, "definition %zu", i);
  gql_metric_def ok = {.name = "ok_total", .help = "h", .kind = 0};
  cr_assert_geq(gql_metrics_family(m, &ok), 0);
  cr_assert_eq(gql_metrics_family(m, &ok), -1, "a name once");
  gql_metrics_free(m);
}

/* A histogram of values (costs): bounds in their own unit, a value on a
 * bound counted in it, the sum a double over the shards; NaN in +Inf. */
Test(metrics, values_histogram) {
  gql_metrics *m = gql_metrics_new();
  static const double bounds[] = {1, 10, 100};
  static const char *const result[] = {"result"};
  gql_metric_def def = {.name = "cost",
                        .help = "Estimated cost.",
                        .kind = GQL_METRIC_VALUES,
                        .labels = result,
                        .nlabels = 1,
                        .buckets = bounds,
                        .nbuckets = 3};
  int f = gql_metrics_family(m, &def);
  cr_assert_geq(f, 0);
  gql_metric_def no_bounds = def, down = def;
  no_bounds.name = "c1";
  no_bounds.buckets = NULL;
  static const double desc[] = {10, 1};
  down.name = "c2";
  down.buckets = desc;
  down.nbuckets = 2;
  cr_assert_eq(gql_metrics_family(m, &no_bounds), -1);
  cr_assert_eq(gql_metrics_family(m, &down), -1);
  gql_metric_series ok;
  gql_str v = S("ok");
  cr_assert(gql_metrics_series(m, f, &v, &ok));
  gql_metrics_shard *a = gql_metrics_shard_new(m),
                    *b = gql_metrics_shard_new(m);
  gql_metrics_observe(a, &ok, 0);
  gql_metrics_observe(a, &ok, 1);   /* on the bound: le="1" */
  gql_metrics_observe(b, &ok, 2.5); /* a fraction */
  gql_metrics_observe(b, &ok, 100);
  gql_metrics_observe(b, &ok, 1e6);
  char *s = scrape(m);
  cr_assert(strstr(s, "# TYPE cost histogram\n"), "%s", s);
  cr_assert(strstr(s, "cost_bucket{result=\"ok\",le=\"1\"} 2\n"), "%s", s);
  cr_assert(strstr(s, "cost_bucket{result=\"ok\",le=\"10\"} 3\n"), "%s", s);
  cr_assert(strstr(s, "cost_bucket{result=\"ok\",le=\"100\"} 4\n"), "%s", s);
  cr_assert(strstr(s, "cost_bucket{result=\"ok\",le=\"+Inf\"} 5\n"), "%s", s);
  cr_assert(strstr(s, "cost_sum{result=\"ok\"} 1000103.5\n"), "%s", s);
  cr_assert(strstr(s, "cost_count{result=\"ok\"} 5\n"), "%s", s);
  char out[4096];
  int rc = promtool(s, out, sizeof out);
  cr_assert_eq(rc, 0, "promtool: %s\n%s", out, s);
  free(s);
  gql_metrics_observe(a, &ok, NAN);
  s = scrape(m);
  cr_assert(strstr(s, "cost_bucket{result=\"ok\",le=\"+Inf\"} 6\n"), "%s", s);
  cr_assert(strstr(s, "cost_sum{result=\"ok\"} NaN\n"), "%s", s);
  free(s);
  gql_metrics_free(m);
}
