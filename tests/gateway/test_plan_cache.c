#include "helpers.h"

static gql_supergraph *sg;
static gql_arena *arena;

static void setup(void) {
  sg = gw_load_bench();
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

TestSuite(plan_cache, .init = setup, .fini = teardown);

static char *plan_text(const gql_gw_plan *plan) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_gw_plan_print(plan, &b);
  char *text = gw_cstr((gql_str){b.data, b.len});
  gql_buf_free(&b);
  return text;
}

static gql_gw_plan_cache_info info(const gql_gw_plan_cache *c) {
  gql_gw_plan_cache_info i;
  gql_gw_plan_cache_stats(c, &i);
  return i;
}

/* Gets the plan of `q` and releases it at once (the cache keeps it). */
static const gql_gw_plan *get(gql_gw_plan_cache *c, const char *q,
                              const char *op) {
  const gql_gw_plan *p = NULL;
  gql_gw_plan_ref *ref = NULL;
  const char *err = NULL;
  int rc = gql_gw_plan_cache_get(c, q, strlen(q), op, &p, &ref, &err);
  cr_assert_eq(rc, 0, "%s: %s", q, err ? err : gql_strerror(rc));
  cr_assert_not_null(ref);
  gql_gw_plan_cache_release(ref);
  return p;
}

/* A distinct operation per n: the same plan shape, another text. */
static const char *nth_query(char *buf, size_t size, unsigned n) {
  snprintf(buf, size, "{ a%u: me { id name } topProducts { upc } }", n);
  return buf;
}

Test(plan_cache, plans_are_cached_by_operation_text_and_name) {
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 0);
  cr_assert_not_null(c);
  const char *q = "query A { me { id } } query B { topProducts { upc } }";
  const gql_gw_plan *p1 = get(c, q, "A");
  const gql_gw_plan *p2 = get(c, q, "A");
  const gql_gw_plan *p3 = get(c, q, "B");
  cr_expect_eq(p1, p2);
  cr_expect_neq(p1, p3);
  gql_gw_plan_cache_info i = info(c);
  cr_expect_eq(i.hits, 1);
  cr_expect_eq(i.misses, 2);
  cr_expect_eq(i.plans, 2);
  cr_expect_eq(i.budget, (size_t)64 << 20);
  gql_gw_plan_cache_free(c);
}

Test(plan_cache, a_syntax_error_is_an_error_with_its_message_not_a_plan) {
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 0);
  const gql_gw_plan *p = NULL;
  gql_gw_plan_ref *ref = NULL;
  const char *err = NULL;
  cr_expect_eq(gql_gw_plan_cache_get(c, "{", 1, NULL, &p, &ref, &err),
               GQL_ESYNTAX);
  cr_expect_null(ref);
  cr_assert_not_null(err);
  cr_expect(strstr(err, "Syntax Error") != NULL, "%s", err);
  cr_expect_eq(info(c).plans, 0);
  /* the same text again is planned again: errors are not cached */
  cr_expect_eq(gql_gw_plan_cache_get(c, "{", 1, NULL, &p, &ref, &err),
               GQL_ESYNTAX);
  cr_expect_eq(info(c).misses, 2);
  gql_gw_plan_cache_free(c);
}

Test(plan_cache, the_cached_plan_is_the_one_a_fresh_planning_gives) {
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 0);
  char *query = gw_read_file(BENCH_DIR "query.graphql", NULL);
  const gql_gw_plan *p1 = get(c, query, NULL);
  const gql_gw_plan *p2 = get(c, query, NULL);
  cr_expect_eq(p1, p2);
  char *cached = plan_text(p2);
  char *fresh = plan_text(gw_plan(sg, arena, query, NULL));
  cr_expect_str_eq(cached, fresh);
  free(cached);
  free(fresh);
  free(query);
  gql_gw_plan_cache_free(c);
}

Test(plan_cache, the_least_recently_used_plan_goes_first) {
  char q[5][64];
  /* the bytes of one plan, to size a budget that holds four */
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 0);
  get(c, nth_query(q[0], sizeof q[0], 0), NULL);
  size_t one = info(c).bytes;
  gql_gw_plan_cache_free(c);
  cr_assert_gt(one, 0);
  c = gql_gw_plan_cache_new(sg, one * 4 + one / 2);
  for (unsigned n = 0; n < 4; n++)
    get(c, nth_query(q[n], sizeof q[n], n), NULL);
  cr_assert_eq(info(c).plans, 4);
  get(c, q[0], NULL); /* q0 used again: q1 is now the oldest */
  get(c, nth_query(q[4], sizeof q[4], 4), NULL);
  gql_gw_plan_cache_info i = info(c);
  cr_expect_eq(i.plans, 4);
  cr_expect_eq(i.evictions, 1);
  cr_expect_leq(i.bytes, i.budget);
  uint64_t misses = i.misses;
  get(c, q[0], NULL);
  get(c, q[2], NULL);
  get(c, q[3], NULL);
  get(c, q[4], NULL);
  cr_expect_eq(info(c).misses, misses, "q0, q2, q3, q4 are still cached");
  get(c, q[1], NULL);
  cr_expect_eq(info(c).misses, misses + 1, "q1 was evicted");
  gql_gw_plan_cache_free(c);
}

Test(plan_cache, distinct_operations_without_end_keep_it_within_its_budget) {
  const size_t budget = 512 << 10;
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, budget);
  char q[64];
  size_t most = 0;
  for (unsigned n = 0; n < 3000; n++) {
    get(c, nth_query(q, sizeof q, n), NULL);
    gql_gw_plan_cache_info i = info(c);
    cr_assert_leq(i.bytes, budget, "after %u: %zu bytes", n, i.bytes);
    most = i.plans > most ? i.plans : most;
  }
  gql_gw_plan_cache_info i = info(c);
  cr_expect_eq(i.misses, 3000);
  cr_expect_eq(i.evictions + i.plans, 3000);
  cr_expect_gt(i.plans, 4, "the budget holds more than a few plans");
  cr_expect_eq(i.plans, most, "a full cache stays full");
  gql_gw_plan_cache_free(c);
}

Test(plan_cache, a_held_plan_outlives_its_eviction_and_the_cache) {
  char q[64];
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 64 << 10);
  const gql_gw_plan *held = NULL;
  gql_gw_plan_ref *ref = NULL;
  const char *err = NULL;
  const char *first = "{ me { id username } }";
  cr_assert_eq(
      gql_gw_plan_cache_get(c, first, strlen(first), NULL, &held, &ref, &err),
      0);
  for (unsigned n = 0; n < 200; n++) /* evicts `first` */
    get(c, nth_query(q, sizeof q, n), NULL);
  cr_assert_gt(info(c).evictions, 0);
  gql_gw_plan_cache_free(c);
  /* still whole (ASan would see a use after free) */
  char *text = plan_text(held);
  char *fresh = plan_text(gw_plan(sg, arena, first, NULL));
  cr_expect_str_eq(text, fresh);
  free(text);
  free(fresh);
  gql_gw_plan_cache_release(ref);
}

Test(plan_cache, a_plan_over_a_quarter_of_the_budget_is_used_once) {
  gql_gw_plan_cache *c = gql_gw_plan_cache_new(sg, 1);
  const char *q = "{ me { name } }";
  const gql_gw_plan *p = NULL;
  gql_gw_plan_ref *ref = NULL;
  cr_assert_eq(gql_gw_plan_cache_get(c, q, strlen(q), NULL, &p, &ref, NULL), 0);
  cr_expect_eq(info(c).plans, 0);
  cr_expect_eq(p->nbatches, 1);
  char *text = plan_text(p);
  cr_expect(strstr(text, "{ me { name } }") != NULL, "%s", text);
  free(text);
  gql_gw_plan_cache_release(ref);
  get(c, q, NULL);
  cr_expect_eq(info(c).misses, 2);
  cr_expect_eq(info(c).bytes, 0);
  gql_gw_plan_cache_free(c);
}
