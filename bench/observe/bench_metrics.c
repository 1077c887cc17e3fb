/* The cost of counting a request into the server's metrics
 * (src/observe/server_metrics.h): gql_http_requests_total{status,
 * operation_type}, the duration histogram and the document cache counter,
 * into a worker's shard. For callgrind's exact instruction counts:
 *   valgrind --tool=callgrind --toggle-collect=cg_count bench_metrics N
 *   valgrind --tool=callgrind --toggle-collect=cg_count_clock bench_metrics N
 *   valgrind --tool=callgrind --toggle-collect=cg_count_tsc bench_metrics N
 * (cg_count_clock adds the clock read that ends the request's duration,
 * clock_gettime; cg_count_tsc the time-stamp counter; the server reads the
 * start already). Without valgrind it prints ns per request. */
#include "bench_util.h"
#include "observe/server_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* n requests of 20-80 µs (the first bucket or two), all 200 queries from
 * the document cache: the common case. */
static __attribute__((noinline)) void cg_count(gql_server_metrics *sm,
                                               gql_metrics_shard *sh, int n) {
  for (int i = 0; i < n; i++)
    gql_server_metrics_request(sm, sh, 200, GQL_METRIC_OP_QUERY,
                               20000 + (uint64_t)(i & 63) * 1000, 1);
}

/* The same with the clock read that ends each request's duration. */
static __attribute__((noinline)) void cg_count_clock(gql_server_metrics *sm,
                                                     gql_metrics_shard *sh,
                                                     int n, uint64_t start) {
  for (int i = 0; i < n; i++) { /* (the last read as the start: a short
                                 * duration, as a request's) */
    uint64_t now = mono_ns();
    gql_server_metrics_request(sm, sh, 200, GQL_METRIC_OP_QUERY, now - start,
                               1);
    start = now;
  }
}

#if defined(__x86_64__)
#include <x86intrin.h>
/* The same with the time-stamp counter (the tracer's clock) instead: one
 * rdtsc and a multiply by the calibrated ns per tick. */
static __attribute__((noinline)) void cg_count_tsc(gql_server_metrics *sm,
                                                   gql_metrics_shard *sh, int n,
                                                   uint64_t start,
                                                   double ns_per_tick) {
  for (int i = 0; i < n; i++) {
    uint64_t now = __rdtsc();
    gql_server_metrics_request(sm, sh, 200, GQL_METRIC_OP_QUERY,
                               (uint64_t)((double)(now - start) * ns_per_tick),
                               1);
    start = now;
  }
}
#endif

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  gql_metrics *m = gql_metrics_new();
  gql_server_metrics sm;
  if (!m || gql_server_metrics_init(&sm, m, false, NULL) != 0)
    return 1;
  gql_metrics_shard *sh = gql_metrics_shard_new(m);
  if (!sh)
    return 1;
  cg_count(&sm, sh, 1000); /* the series found, pages warm */
  uint64_t t0 = bench_now_ns();
  cg_count(&sm, sh, n);
  uint64_t t1 = bench_now_ns();
  cg_count_clock(&sm, sh, n, t1);
  uint64_t t2 = bench_now_ns();
  printf("count %.2f ns/request, with clock_gettime %.2f ns/request",
         (double)(t1 - t0) / n, (double)(t2 - t1) / n);
#if defined(__x86_64__)
  uint64_t k = __rdtsc();
  cg_count_tsc(&sm, sh, n, k, 0.4);
  uint64_t t3 = bench_now_ns();
  printf(", with rdtsc %.2f ns/request", (double)(t3 - t2) / n);
#endif
  printf("\n");
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_metrics_write(m, &b);
  fprintf(stderr, "%.*s", (int)(b.len < 200 ? b.len : 200), b.data);
  gql_buf_free(&b);
  gql_metrics_free(m);
  return 0;
}
