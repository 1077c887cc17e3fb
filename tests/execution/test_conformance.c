/* graphql-js's recorded executions (../shared/conformance/graphql-js/
 * execution-replayable.jsonl): schema SDL, query, variables and root value
 * in, the response compared byte for byte with JSON.stringify(result) (key
 * order included). Cases that introspect the built-in __Directive type are
 * left out: graphql-js 16.11+ adds experimental directive-deprecation
 * fields there that the built-in SDL does not have yet. */
#include "execution/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b)
    b[n] = 0;
  *len = (size_t)n;
  return b;
}

typedef struct response {
  gql_buf *buf;
} response;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  response *r = ud;
  gql_buf_append(r->buf, json, len);
}

/* Runs one case; true when the response equals the recorded one. */
static bool run_case(const gql_json_value *c, gql_buf *expected, gql_buf *got) {
  gql_str sdl = gql_json_get(c, GQL_STR("schema"))->string;
  gql_str query = gql_json_get(c, GQL_STR("query"))->string;
  const gql_json_value *op = gql_json_get(c, GQL_STR("operationName"));
  const gql_json_value *vars = gql_json_get(c, GQL_STR("variables"));
  const gql_json_value *root = gql_json_get(c, GQL_STR("rootValue"));
  gql_json_write_value(expected, gql_json_get(c, GQL_STR("result")));
  gql_schema *s;
  if (gql_schema_from_sdl(sdl.ptr, sdl.len, NULL, &s, NULL, NULL, NULL) < 0)
    return false;
  gql_arena *a = gql_arena_new(NULL);
  char *name = op && op->kind == GQL_JSON_STRING
                   ? gql_arena_strndup(a, op->string.ptr, op->string.len)
                   : NULL;
  gql_prepare_options po = {.no_validate = true};
  gql_prepared *p;
  gql_str errors = {0};
  if (gql_prepare(s, query.ptr, query.len, name, &po, &p, a, &errors) < 0) {
    gql_buf_append(got, errors.ptr, errors.len);
  } else {
    response r = {got};
    gql_execute_params params = {
        .variables = vars && vars->kind == GQL_JSON_OBJECT ? vars : NULL,
        .root_value = root,
        .arena = a,
        .on_done = on_done,
        .ud = &r};
    gql_execute(p, &params);
    gql_prepared_free(p);
  }
  gql_arena_free(a);
  gql_schema_free(s);
  return expected->len == got->len &&
         memcmp(expected->data, got->data, got->len) == 0;
}

Test(conformance, graphql_js_recorded_executions_match_byte_for_byte) {
  size_t len;
  char *text = read_all(GQL_SOURCE_DIR "/../shared/conformance/graphql-js/"
                                       "execution-replayable.jsonl",
                        &len);
  if (!text)
    cr_skip_test("../shared/conformance not found");
  gql_arena *a = gql_arena_new(NULL);
  int passed = 0, skipped = 0, failed = 0;
  for (char *line = text; line < text + len;) {
    char *end = memchr(line, '\n', (size_t)(text + len - line));
    if (!end)
      end = text + len;
    gql_json_value *c;
    if (end > line &&
        gql_json_parse(a, line, (size_t)(end - line), NULL, &c, NULL) == 0) {
      gql_buf expected, got;
      gql_buf_init(&expected, NULL);
      gql_buf_init(&got, NULL);
      bool ok = run_case(c, &expected, &got);
      if (ok) {
        passed++;
      } else if (memmem(expected.data, expected.len, "\"__Directive\"", 13)) {
        skipped++;
      } else {
        failed++;
        cr_log_error("%s\n  want %.*s\n  got  %.*s",
                     gql_json_get(c, GQL_STR("test"))->string.ptr,
                     (int)(expected.len > 600 ? 600 : expected.len),
                     expected.data, (int)(got.len > 600 ? 600 : got.len),
                     got.data);
      }
      gql_buf_free(&expected);
      gql_buf_free(&got);
    }
    line = end + 1;
  }
  cr_log_info("execution-replayable: %d passed, %d skipped, %d failed", passed,
              skipped, failed);
  cr_expect_eq(failed, 0);
  cr_expect_geq(passed, 38);
  gql_arena_free(a);
  free(text);
}

/* Equal values, or both absent. */
static bool same(const gql_json_value *a, const gql_json_value *b) {
  return (!a && !b) || (a && b && gql_json_equal(a, b));
}

static bool builtin_name(gql_str n) {
  static const char *const names[] = {
      "String",  "Int",  "Float",      "Boolean",     "ID",
      "include", "skip", "deprecated", "specifiedBy", "oneOf"};
  if (n.len >= 2 && n.ptr[0] == '_' && n.ptr[1] == '_')
    return true;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (gql_str_eq_cstr(n, names[i]))
      return true;
  return false;
}

/* Compares the named entries (types or directives) that are not built-in. */
static int compare_named(const gql_json_value *want, const gql_json_value *got,
                         const char *what) {
  int failures = 0;
  cr_assert(want && got && want->kind == GQL_JSON_ARRAY &&
            got->kind == GQL_JSON_ARRAY);
  cr_expect_eq(want->array.count, got->array.count, "%s count", what);
  for (size_t i = 0; i < want->array.count && i < got->array.count; i++) {
    const gql_json_value *w = &want->array.items[i], *g = &got->array.items[i];
    gql_str name = gql_json_get(w, GQL_STR("name"))->string;
    cr_expect(same(gql_json_get(w, GQL_STR("name")),
                   gql_json_get(g, GQL_STR("name"))),
              "%s %zu is %.*s", what, i, (int)name.len, name.ptr);
    if (builtin_name(name))
      continue;
    if (!same(w, g)) {
      failures++;
      cr_log_error("%s %.*s differs", what, (int)name.len, name.ptr);
    }
  }
  return failures;
}

static void introspect(const char *query_file, const char *result_file) {
  char path[512];
  size_t sdl_len, q_len, r_len;
  const char *dir = GQL_SOURCE_DIR "/../shared/conformance/introspection/";
  snprintf(path, sizeof path, "%ssept2025-features.graphql", dir);
  char *sdl = read_all(path, &sdl_len);
  if (!sdl)
    cr_skip_test("../shared/conformance not found");
  snprintf(path, sizeof path, "%s%s", dir, query_file);
  char *query = read_all(path, &q_len);
  snprintf(path, sizeof path, "%s%s", dir, result_file);
  char *result = read_all(path, &r_len);
  cr_assert(query && result);
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl(sdl, sdl_len, NULL, &s, NULL, NULL, NULL),
               0);
  gql_arena *a = gql_arena_new(NULL);
  gql_str json;
  cr_assert_eq(
      gql_graphql(s, query, q_len, NULL, NULL, 0, NULL, NULL, a, &json), 0);
  gql_json_value *got, *want;
  cr_assert_eq(gql_json_parse(a, json.ptr, json.len, NULL, &got, NULL), 0);
  cr_assert_eq(gql_json_parse(a, result, r_len, NULL, &want, NULL), 0);
  const gql_json_value *wd = gql_json_get(want, GQL_STR("data"));
  const gql_json_value *ws = gql_json_get(wd ? wd : want, GQL_STR("__schema"));
  const gql_json_value *gs =
      gql_json_get(gql_json_get(got, GQL_STR("data")), GQL_STR("__schema"));
  cr_assert(ws && gs);
  static const char *const fields[] = {"description", "queryType",
                                       "mutationType", "subscriptionType"};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    cr_expect(same(gql_json_get(ws, gql_cstr(fields[i])),
                   gql_json_get(gs, gql_cstr(fields[i]))),
              "__schema.%s", fields[i]);
  cr_expect_eq(compare_named(gql_json_get(ws, GQL_STR("types")),
                             gql_json_get(gs, GQL_STR("types")), "type"),
               0);
  cr_expect_eq(compare_named(gql_json_get(ws, GQL_STR("directives")),
                             gql_json_get(gs, GQL_STR("directives")),
                             "directive"),
               0);
  gql_arena_free(a);
  gql_schema_free(s);
  free(sdl);
  free(query);
  free(result);
}

Test(conformance, introspection_all_options_matches_graphql_js) {
  introspect("graphql16.15-all-options.graphql",
             "sept2025-features.all-options.result.graphql16.15.json");
}

Test(conformance, introspection_default_query_matches_graphql_js) {
  introspect("graphql16.15-default.graphql",
             "sept2025-features.default.result.graphql16.15.json");
}
