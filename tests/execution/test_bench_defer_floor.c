/* Pins the C floor of the incremental-delivery benchmark (bench/defer/
 * floor.c) against gql: for each operation with a floor, its plain
 * response is gql_execute's and its payloads, one by one, are
 * gql_execute_incremental's for the deferred text bench_defer runs. The
 * floor's figures mean something only while it writes gql's bytes: when
 * gql's payloads change, floor.c must follow. The benchmark's sources are
 * compiled in, as test_bench_ops.c does. */
#include "../../bench/defer/deferred.c"
#include "../../bench/defer/floor.c"
#include "../../bench/exec/ops.c"
#include "../../examples/starwars/starwars.c"

#include <criterion/criterion.h>

/* Every payload, each followed by a newline, and how many. */
typedef struct payloads {
  gql_buf all;
  unsigned n;
  bool errors;
} payloads;

static void on_payload(void *ud, const char *json, size_t len, bool errors) {
  payloads *p = ud;
  gql_buf_append(&p->all, json, len);
  gql_buf_append(&p->all, "\n", 1);
  p->n++;
  p->errors |= errors;
}

static void payloads_reset(payloads *p) {
  p->all.len = 0;
  p->n = 0;
  p->errors = false;
}

/* gql's payloads for `text` on op's schema: prepared once, executed twice
 * with the same arena and output (the second run's, as bench_defer's
 * loop). */
static void run_gql(const bench_op *op, const char *text, size_t len,
                    bool incremental, payloads *out) {
  gql_prepared *p;
  cr_assert_eq(gql_prepare(op->schema, text, len, NULL, NULL, &p, NULL), 0,
               "%s: prepare", op->name);
  gql_arena *a = gql_arena_new(NULL);
  gql_output o = {0};
  for (int k = 0; k < 2; k++) {
    payloads_reset(out);
    gql_arena_reset(a);
    gql_execute_params params = {
        .arena = a, .output = &o, .on_done = on_payload, .ud = out};
    int rc = incremental ? gql_execute_incremental(p, &params)
                         : gql_execute(p, &params);
    cr_assert_eq(rc, 0, "%s: execute", op->name);
  }
  cr_assert(!out->errors && !out->all.failed, "%s: errors", op->name);
  gql_output_free(&o);
  gql_arena_free(a);
  gql_prepared_free(p);
}

static void expect_same(const payloads *floor, const payloads *gql,
                        const char *name, const char *what) {
  cr_expect_eq(floor->n, gql->n, "%s %s: %u payloads against gql's %u", name,
               what, floor->n, gql->n);
  size_t n = floor->all.len < gql->all.len ? floor->all.len : gql->all.len;
  size_t at = 0;
  while (at < n && floor->all.data[at] == gql->all.data[at])
    at++;
  size_t from = at > 40 ? at - 40 : 0;
  int fl = (int)(floor->all.len - from < 80 ? floor->all.len - from : 80);
  int gl = (int)(gql->all.len - from < 80 ? gql->all.len - from : 80);
  cr_expect(at == n && floor->all.len == gql->all.len,
            "%s %s differs from gql's at byte %zu:\n  floor: %.*s\n  gql:   "
            "%.*s",
            name, what, at, fl, floor->all.data + from, gl,
            gql->all.data + from);
}

Test(bench_defer_floor, floor_payloads_are_gqls_bytes) {
  bench_ops *ops = bench_ops_new_with(GQL_SOURCE_DIR "/../shared", true);
  int floors = 0;
  for (int i = 0; i < OP_COUNT; i++) {
    const bench_op *op = bench_ops_get(ops, i);
    defer_floor f = bench_defer_floor(ops, i);
    if (!f.plain || !f.defer)
      continue;
    floors++;
    payloads gql = {0}, fl = {0};
    gql_buf_init(&gql.all, NULL);
    gql_buf_init(&fl.all, NULL);
    floor_buf b;
    gql_buf_init(&b, NULL);

    run_gql(op, op->query, op->query_len, false, &gql);
    for (int k = 0; k < 2; k++) { /* the second into the reused buffer */
      payloads_reset(&fl);
      bench_defer_floor_plain(&f, &b, bench_ops_floor_data(ops), on_payload,
                              &fl);
    }
    expect_same(&fl, &gql, op->name, "plain");

    size_t len;
    char *text = bench_defer_text(op, i, &len);
    cr_assert(text, "%s: no deferred text", op->name);
    run_gql(op, text, len, true, &gql);
    cr_expect_geq(gql.n, 2, "%s: gql sent %u payloads", op->name, gql.n);
    for (int k = 0; k < 2; k++) {
      payloads_reset(&fl);
      f.defer(&b, bench_ops_floor_data(ops), on_payload, &fl);
    }
    expect_same(&fl, &gql, op->name, "@defer");

    free(text);
    gql_buf_free(&b);
    gql_buf_free(&gql.all);
    gql_buf_free(&fl.all);
  }
  cr_expect_eq(floors, 4); /* minimal, flat_list, nested_lists, star_wars */
  bench_ops_free(ops);
}
