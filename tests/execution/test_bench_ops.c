/* Pins the responses of the seven operations of the execution benchmark
 * (bench/exec, ../shared/bench/README.md): every way gql runs them (C
 * resolvers prepared and full, the default resolver over JSON) and the
 * hand-written C floor give the same bytes, and those bytes are the ones
 * the README and graphql-js give. The benchmark's sources are compiled in
 * here so that the test does not depend on the bench targets. */
#include "../../bench/exec/ops.c"
#include "../../examples/starwars/starwars.c"

#include <criterion/criterion.h>

typedef struct response {
  char *json;
  size_t len;
  bool errors;
} response;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  response *r = ud;
  r->json = malloc(len + 1);
  cr_assert(r->json);
  memcpy(r->json, json, len);
  r->json[len] = 0;
  r->len = len;
  r->errors = errors;
}

static bench_ops *ops_new(void) {
  return bench_ops_new(GQL_SOURCE_DIR "/../shared");
}

/* Runs `op` on `schema` with `root`; prepares it once and executes twice
 * with the same arena and output, returning the second response (the
 * steady state of a server that reuses its buffers). */
static response run(gql_schema *schema, const bench_op *op, const void *root) {
  gql_prepared *p;
  cr_assert_eq(
      gql_prepare(schema, op->query, op->query_len, NULL, NULL, &p, NULL), 0,
      "%s: prepare", op->name);
  gql_arena *a = gql_arena_new(NULL);
  gql_output out = {0};
  response r = {0};
  for (int k = 0; k < 2; k++) {
    free(r.json);
    r = (response){0};
    gql_arena_reset(a);
    gql_execute_params params = {.arena = a,
                                 .output = &out,
                                 .root_value = root,
                                 .on_done = on_done,
                                 .ud = &r};
    cr_assert_eq(gql_execute(p, &params), 0, "%s: execute", op->name);
  }
  gql_output_free(&out);
  gql_arena_free(a);
  gql_prepared_free(p);
  cr_assert(r.json, "%s: no response", op->name);
  cr_assert(!r.errors, "%s: errors: %s", op->name, r.json);
  return r;
}

Test(bench_ops, responses_have_the_sizes_of_the_benchmark_readme) {
  static const size_t sizes[OP_COUNT] = {26, 99637, 26961, 509, 1919, 0, 0};
  bench_ops *ops = ops_new();
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    response r = run(op->schema, op, NULL);
    if (sizes[i])
      cr_expect_eq(r.len, sizes[i], "%s: %zu bytes", op->name, r.len);
    free(r.json);
  }
  bench_ops_free(ops);
}

Test(bench_ops, json_default_resolver_members_and_c_floor_same_bytes) {
  bench_ops *ops = ops_new();
  int compared = 0;
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    response ref = run(op->schema, op, NULL);
    if (op->json_schema) {
      response j = run(op->json_schema, op, op->json_root);
      cr_expect_str_eq(j.json, ref.json, "%s: json", op->name);
      free(j.json);
      compared++;
    }
    if (op->member_schema) {
      response m = run(op->member_schema, op, NULL);
      cr_expect_str_eq(m.json, ref.json, "%s: members", op->name);
      free(m.json);
      compared++;
    }
    if (op->floor) {
      floor_buf b;
      gql_buf_init(&b, NULL);
      op->floor(&b, bench_ops_floor_data(ops));
      op->floor(&b, bench_ops_floor_data(ops)); /* reused buffer */
      cr_expect(b.len == ref.len && memcmp(b.data, ref.json, b.len) == 0,
                "%s: floor differs", op->name);
      gql_buf_free(&b);
      compared++;
    }
    free(ref.json);
  }
  cr_expect_eq(compared, 11); /* 4 JSON documents, 4 member schemas, 3
                                 floors */
  bench_ops_free(ops);
}

Test(bench_ops, full_requests_give_the_prepared_response) {
  bench_ops *ops = ops_new();
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    response ref = run(op->schema, op, NULL);
    gql_arena *a = gql_arena_new(NULL);
    gql_str json;
    cr_assert_eq(gql_graphql(op->schema, op->query, op->query_len, NULL, NULL,
                             0, NULL, NULL, a, &json),
                 0, "%s", op->name);
    cr_expect(json.len == ref.len && memcmp(json.ptr, ref.json, json.len) == 0,
              "%s: gql_graphql differs", op->name);
    gql_arena_free(a);
    free(ref.json);
  }
  bench_ops_free(ops);
}

Test(bench_ops, star_wars_answers_the_expected_data) {
  bench_ops *ops = ops_new();
  const bench_op *op = bench_ops_get(ops, OP_STAR_WARS);
  response r = run(op->schema, op, NULL);
  size_t len;
  char *expected = read_text(
      GQL_SOURCE_DIR "/../shared/bench/star_wars_expected_data.json", &len);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *want, *got;
  cr_assert_eq(gql_value_parse(a, expected, len, &want), 0);
  cr_assert_eq(gql_value_parse(a, r.json, r.len, &got), 0);
  cr_expect(gql_json_equal(gql_value_get(got, "data", 4), want));
  gql_arena_free(a);
  free(expected);
  free(r.json);
  bench_ops_free(ops);
}

Test(bench_ops, flat_and_nested_lists_end_with_the_readme_data) {
  bench_ops *ops = ops_new();
  response flat = run(bench_ops_get(ops, OP_FLAT_LIST)->schema,
                      bench_ops_get(ops, OP_FLAT_LIST), NULL);
  cr_expect(strstr(flat.json, "{\"id\":1,\"name\":\"item1\",\"email\":"
                              "\"item1@example.com\",\"active\":false,"
                              "\"score\":0.5,\"role\":\"USER\"}"));
  const char *last = "{\"id\":999,\"name\":\"item999\",\"email\":"
                     "\"item999@example.com\",\"active\":false,\"score\":"
                     "499.5,\"role\":\"ADMIN\"}]}}";
  cr_expect_str_eq(flat.json + flat.len - strlen(last), last);
  response nested = run(bench_ops_get(ops, OP_NESTED_LISTS)->schema,
                        bench_ops_get(ops, OP_NESTED_LISTS), NULL);
  cr_expect(strstr(nested.json, "{\"id\":99,\"name\":\"child99\",\"leaves\":"
                                "[{\"id\":990,\"value\":990},"));
  const char *tail = "{\"id\":999,\"value\":999}]}]}]}}";
  cr_expect_str_eq(nested.json + nested.len - strlen(tail), tail);
  free(flat.json);
  free(nested.json);
  bench_ops_free(ops);
}

Test(bench_ops, introspection_without_one_of_drops_only_that_field) {
  bench_ops *ops = ops_new();
  response with = run(bench_ops_get(ops, OP_INTROSPECTION)->schema,
                      bench_ops_get(ops, OP_INTROSPECTION), NULL);
  response without =
      run(bench_ops_get(ops, OP_INTROSPECTION_WITHOUT_ONE_OF)->schema,
          bench_ops_get(ops, OP_INTROSPECTION_WITHOUT_ONE_OF), NULL);
  cr_expect(strncmp(with.json, "{\"data\":{\"__schema\":", 20) == 0);
  /* Every type has "isOneOf" (null or false) in one response, no type has it
   * in the other; __Type still lists the field "isOneOf" in both. */
  size_t n = 0;
  for (const char *p = with.json; (p = strstr(p, ",\"isOneOf\":")); p++)
    n++;
  cr_expect_gt(n, 10);
  cr_expect_null(strstr(without.json, "\"isOneOf\":"));
  cr_expect(strstr(without.json, "{\"name\":\"isOneOf\","));
  cr_expect_lt(without.len, with.len);
  free(with.json);
  free(without.json);
  bench_ops_free(ops);
}
