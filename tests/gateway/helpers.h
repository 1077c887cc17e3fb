/* Shared by the gateway tests: the benchmark's files and small planners. */
#ifndef GQL_TESTS_GATEWAY_HELPERS_H
#define GQL_TESTS_GATEWAY_HELPERS_H

#include "gateway/gateway.h"
#include "gateway/plan_internal.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_DIR GQL_SOURCE_DIR "/../shared/gateway-bench/"

static inline char *gw_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  buf[n] = 0;
  if (len)
    *len = (size_t)n;
  return buf;
}

static inline gql_supergraph *gw_load_text(const char *sdl) {
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  int rc = gql_supergraph_load(sdl, strlen(sdl), &sg, NULL, &err);
  cr_assert_eq(rc, 0, "supergraph: %s", err ? err : "?");
  return sg;
}

static inline gql_supergraph *gw_load_bench(void) {
  char *sdl = gw_read_file(BENCH_DIR "supergraph.graphql", NULL);
  gql_supergraph *sg = gw_load_text(sdl);
  free(sdl);
  return sg;
}

/* Plans `query` (which must outlive the plan) into `arena`. */
static inline gql_gw_plan *gw_plan(const gql_supergraph *sg, gql_arena *arena,
                                   const char *query, const char *op) {
  gql_document *doc;
  gql_syntax_error se;
  cr_assert_eq(gql_parse_syntax(arena, query, strlen(query), NULL, &doc, &se),
               0, "syntax: %s", se.message);
  gql_gw_plan *plan = NULL;
  const char *err = NULL;
  int rc = gql_gw_plan_build(sg, doc, op, arena, &plan, &err);
  cr_assert_eq(rc, 0, "plan: %s", err ? err : "?");
  return plan;
}

/* The batch of subgraph `name` in wave `level`, or NULL. */
static inline const gql_gw_batch *gw_batch(const gql_gw_plan *plan,
                                           const char *name, uint32_t level) {
  for (uint32_t i = 0; i < plan->nbatches; i++) {
    const gql_gw_batch *b = &plan->batches[i];
    if (b->level == level &&
        gql_str_eq_cstr(plan->sg->graphs[b->graph].name, name))
      return b;
  }
  return NULL;
}

/* The operation text of subgraph `graph`'s request in wave `level`. */
static inline void gw_expect_op(const gql_gw_plan *plan, const char *graph,
                                uint32_t level, const char *op) {
  const gql_gw_batch *b = gw_batch(plan, graph, level);
  cr_assert_not_null(b, "no %s request in wave %u", graph, level);
  char *got = malloc(b->operation.len + 1);
  memcpy(got, b->operation.ptr, b->operation.len);
  got[b->operation.len] = 0;
  cr_expect_str_eq(got, op);
  free(got);
}

/* A send function answering the batch of wave w with answers[w - 1]. */
static inline int gw_canned(void *ud, const gql_gw_batch *b, const char *body,
                            size_t len, gql_str *response) {
  const char **answers = ud;
  (void)body;
  (void)len;
  *response = gql_cstr(answers[b->level - 1]);
  return 0;
}

static inline char *gw_cstr(gql_str s) {
  char *c = malloc(s.len + 1);
  memcpy(c, s.ptr, s.len);
  c[s.len] = 0;
  return c;
}

#endif
