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
