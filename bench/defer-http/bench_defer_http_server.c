/* The server of the time-to-first-payload benchmark (bench/defer-http):
 * gql's HTTP server with gql's executor over
 *
 *   type Query { fast: String  slow(ms: Int!): String }
 *
 * where `fast` resolves at once and `slow` pends (gql_out_pending) and is
 * completed with "slow" by a uv_timer on the worker's loop `ms`
 * milliseconds later. `{ fast ... @defer { slow(ms: D) } }` asked with
 * Accept: multipart/mixed gets its first payload at once and the deferred
 * one after D ms.
 *
 * With --op NAME it serves instead one of the seven execution operations'
 * schemas (../shared/bench/README.md: bench/exec/ops.c's C resolvers, with
 * graphql-js 17's @defer and @stream), for server_cost.sh, which asks the
 * operation with and without a @defer (bench_defer texts).
 *
 * Usage: bench_defer_http_server [--threads N] [--op NAME]
 * Listens on a free loopback port, prints "bench_defer_http_server on
 * http://127.0.0.1:PORT/graphql" and runs until SIGINT or SIGTERM. */
#include "../exec/ops.h"
#include "gql_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sdl[] =
    "directive @defer(if: Boolean! = true, label: String) on "
    "FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "type Query { fast: String slow(ms: Int!): String }";

static void fast(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "fast", 4);
}

typedef struct slow_timer {
  uv_timer_t timer;
  gql_pending *pending;
} slow_timer;

static void slow_closed(uv_handle_t *h) {
  free(h->data);
}

static void slow_fire(uv_timer_t *t) {
  slow_timer *st = t->data;
  gql_out_string(gql_pending_out(st->pending), "slow", 4);
  uv_close((uv_handle_t *)&st->timer, slow_closed);
}

static void slow(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)parent;
  int64_t ms = 0;
  gql_value_int(gql_arg(info, "ms"), &ms);
  if (ms < 0)
    ms = 0;
  slow_timer *st = malloc(sizeof *st);
  if (!st) {
    gql_out_error(out, "out of memory");
    return;
  }
  st->pending = gql_out_pending(out);
  uv_timer_init(gql_http_loop(info), &st->timer);
  st->timer.data = st;
  uv_timer_start(&st->timer, slow_fire, (uint64_t)ms, 0);
}

/* The schema of --op `name` (borrowed from *ops), or NULL. */
static gql_schema *op_schema(const char *name, bench_ops **ops) {
  int i = bench_op_by_name(name);
  if (i < 0)
    return NULL;
  *ops = bench_ops_new_with(BENCH_SHARED_DIR, true);
  return bench_ops_get(*ops, i)->schema;
}

int main(int argc, char **argv) {
  unsigned threads = 1;
  const char *op = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = (unsigned)atoi(argv[++i]);
    } else if (strcmp(argv[i], "--op") == 0 && i + 1 < argc) {
      op = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--threads N] [--op NAME]\n", argv[0]);
      return 2;
    }
  }
  gql_schema *s = NULL;
  bench_ops *ops = NULL;
  if (op) {
    if (!(s = op_schema(op, &ops))) {
      fprintf(stderr, "bench_defer_http_server: no operation %s\n", op);
      return 2;
    }
  } else if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL) != 0 ||
             gql_schema_set_resolver(s, "Query", "fast", fast, NULL,
                                     GQL_RESOLVER_SYNC) != 0 ||
             gql_schema_set_resolver(s, "Query", "slow", slow, NULL, 0) != 0) {
    fprintf(stderr, "bench_defer_http_server: the schema\n");
    return 1;
  }
  gql_http_options o = {.port = -1,
                        .threads = threads ? threads : 1,
                        .banner = "bench_defer_http_server"};
  gql_http_server *srv = NULL;
  int rc = gql_http_server_new(s, &o, &srv);
  if (rc != 0) {
    fprintf(stderr, "bench_defer_http_server: cannot make the server\n");
  } else {
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = gql_http_server_run(srv);
    gql_http_server_free(srv);
  }
  if (ops)
    bench_ops_free(ops); /* (its schemas with it) */
  else
    gql_schema_free(s);
  return rc == 0 ? 0 : 1;
}
