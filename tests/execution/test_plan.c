/* Planning: sub-plans shared between parents with the same occurrences
 * answer like separately built ones, and count against max_plan_size as if
 * they had been built again. */
#include "execution/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const char sdl[] =
    "interface Node { id: Int next: [Node] }\n"
    "type A implements Node { id: Int next: [Node] a: String }\n"
    "type B implements Node { id: Int next: [Node] b: String }\n"
    "type Query { root: Node }\n";

/* root A(1) -> [B(2) -> [A(4)], A(3) -> [B(5)]] */
static const char data[] =
    "{\"root\":{\"__typename\":\"A\",\"id\":1,\"a\":\"a1\",\"next\":["
    "{\"__typename\":\"B\",\"id\":2,\"b\":\"b2\",\"next\":["
    "{\"__typename\":\"A\",\"id\":4,\"a\":\"a4\",\"next\":[]}]},"
    "{\"__typename\":\"A\",\"id\":3,\"a\":\"a3\",\"next\":["
    "{\"__typename\":\"B\",\"id\":5,\"b\":\"b5\",\"next\":null}]}]}}";

typedef struct got {
  char json[4096];
} got;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  (void)errors;
  got *g = ud;
  cr_assert_lt(len, sizeof g->json);
  memcpy(g->json, json, len);
  g->json[len] = 0;
}

/* Prepares and runs q with max_plan_size `max` (0: default); the response
 * or the prepare error goes to g->json. */
static int run(const char *q, uint32_t max, got *g) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p;
  gql_errors errs = {.arena = a};
  gql_prepare_options po = {.max_plan_size = max};
  int rc = gql_prepare(s, q, strlen(q), NULL, &po, &p, &errs);
  gql_str err = {0};
  if (errs.count)
    cr_assert_eq(gql_errors_response(&errs, NULL, a, &err), 0);
  if (rc < 0) {
    snprintf(g->json, sizeof g->json, "%.*s", (int)err.len, err.ptr);
  } else {
    const gql_value *root = NULL;
    cr_assert_eq(gql_value_parse(a, data, sizeof data - 1, &root), 0);
    gql_execute_params params = {
        .root_value = root, .on_done = on_done, .ud = g};
    rc = gql_execute(p, &params);
    gql_prepared_free(p);
  }
  gql_arena_free(a);
  gql_schema_free(s);
  return rc;
}

Test(plan, shared_sub_plans_answer_per_concrete_type) {
  got g = {{0}};
  cr_assert_eq(run("{ root { id ...F next { id ...F next { id ...F "
                   "__typename } } } }\n"
                   "fragment F on Node { ... on A { a } ... on B { b } }",
                   0, &g),
               0);
  cr_assert_str_eq(g.json,
                   "{\"data\":{\"root\":{\"id\":1,\"a\":\"a1\",\"next\":["
                   "{\"id\":2,\"b\":\"b2\",\"next\":[{\"id\":4,\"a\":\"a4\","
                   "\"__typename\":\"A\"}]},"
                   "{\"id\":3,\"a\":\"a3\",\"next\":[{\"id\":5,\"b\":\"b5\","
                   "\"__typename\":\"B\"}]}]}}}");
}

Test(plan, shared_sub_plans_with_aliases_keep_their_keys) {
  got g = {{0}};
  cr_assert_eq(run("{ root { n1: next { x: id } n2: next { y: id } } }", 0, &g),
               0);
  cr_assert_str_eq(g.json, "{\"data\":{\"root\":{\"n1\":[{\"x\":2},{\"x\":3}],"
                           "\"n2\":[{\"y\":2},{\"y\":3}]}}}");
}

/* root (1) + next under A and B (2) + next under each of those 2 fields for
 * A and B (4) + id under each of those 4 fields for A and B (8): 15 planned
 * fields, though only 7 distinct sets are built. */
static const char deep[] = "{ root { next { next { id } } } }";

Test(plan, reused_sub_plans_count_against_max_plan_size) {
  got g = {{0}};
  cr_assert_eq(run(deep, 14, &g), GQL_ELIMIT);
  cr_assert(strstr(g.json, "The operation is too large to plan.") != NULL, "%s",
            g.json);
}

Test(plan, max_plan_size_equal_to_the_planned_fields_is_allowed) {
  got g = {{0}};
  cr_assert_eq(run(deep, 15, &g), 0);
  cr_assert_str_eq(g.json,
                   "{\"data\":{\"root\":{\"next\":[{\"next\":[{\"id\":4}]},"
                   "{\"next\":[{\"id\":5}]}]}}}");
}
