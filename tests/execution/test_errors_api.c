/* The public API's one error carrier (gql_errors) and one return convention
 * (0 or a negative gql_err), through every call that reports GraphQL
 * errors: parsing, building a schema, preparing, and the one-shot
 * gql_graphql, whose request errors are a response like any other. */
#include <criterion/criterion.h>
#include <gql.h>
#include <stdio.h>
#include <string.h>

static gql_schema *schema(void) {
  static const char sdl[] = "type Query { a(n: Int): Int }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  return s;
}

Test(errors_api, parse_reports_its_syntax_error_as_one_gql_error) {
  gql_arena *a = gql_arena_new(NULL);
  gql_document *doc = NULL;
  gql_errors errors = {.arena = a};
  cr_assert_eq(gql_parse(a, "{\n  a(", 6, NULL, &doc, &errors), GQL_ESYNTAX);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "Syntax Error: Expected Name, found <EOF>.");
  cr_assert_eq(errors.items[0].nlocations, 1);
  cr_assert_eq(errors.items[0].locations[0].line, 2);
  cr_assert_eq(errors.items[0].locations[0].column, 5);
  /* a later success clears them */
  cr_assert_eq(gql_parse(a, "{ a }", 5, NULL, &doc, &errors), 0);
  cr_assert_eq(errors.count, 0);
  cr_assert_null(errors.items);
  /* a limit is an error at line 1, column 1 */
  gql_parse_options o = {.max_size = 3};
  cr_assert_eq(gql_parse(a, "{ a }", 5, &o, &doc, &errors), GQL_ELIMIT);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "Syntax Error: Document exceeds the maximum size of 3 "
                   "bytes.");
  cr_assert_eq(errors.items[0].locations[0].line, 1);
  cr_assert_eq(errors.items[0].locations[0].column, 1);
  /* not kept: without an arena, or without the carrier */
  gql_errors none = {0};
  cr_assert_eq(gql_parse(a, "{", 1, NULL, &doc, &none), GQL_ESYNTAX);
  cr_assert_eq(none.count, 0);
  cr_assert_eq(gql_parse(a, "{", 1, NULL, &doc, NULL), GQL_ESYNTAX);
  gql_arena_free(a);
}

Test(errors_api, prepare_reports_syntax_validation_and_selection_errors) {
  gql_schema *s = schema();
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errors = {.arena = a};
  gql_prepared *p = (gql_prepared *)1;
  cr_assert_eq(gql_prepare(s, "{ a(", 4, NULL, NULL, &p, &errors), GQL_ESYNTAX);
  cr_assert_null(p);
  cr_assert_eq(errors.count, 1);
  cr_assert_eq(errors.items[0].locations[0].column, 5);
  const char *q = "{ bb cc }";
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, &errors),
               GQL_EVALIDATION);
  cr_assert_eq(errors.count, 2);
  cr_assert_str_eq(errors.items[1].message,
                   "Cannot query field \"cc\" on type \"Query\".");
  cr_assert_eq(errors.items[1].locations[0].column, 6);
  q = "query A { a } query B { a }";
  cr_assert_eq(gql_prepare(s, q, strlen(q), "C", NULL, &p, &errors),
               GQL_EINVAL);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message, "Unknown operation named \"C\".");
  cr_assert_eq(errors.items[0].nlocations, 0);
  gql_str json;
  cr_assert_eq(gql_errors_response(&errors, "CODE", a, &json), 0);
  cr_assert_str_eq(json.ptr, "{\"errors\":[{\"message\":\"Unknown operation "
                             "named \\\"C\\\".\",\"extensions\":{\"code\":"
                             "\"CODE\"}}]}");
  cr_assert_eq(gql_prepare(s, q, strlen(q), "B", NULL, &p, &errors), 0);
  cr_assert_eq(errors.count, 0);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

/* graphql() resolves to a result also for request errors: gql_graphql
 * returns 0 with the response; a negative code only when there is none. */
Test(errors_api, graphql_answers_request_errors_as_a_response) {
  gql_schema *s = schema();
  gql_arena *a = gql_arena_new(NULL);
  gql_str json;
  cr_assert_eq(gql_graphql(s, "{ bb }", 6, NULL, NULL, 0, NULL, NULL, a, &json),
               0);
  cr_assert_str_eq(json.ptr,
                   "{\"errors\":[{\"message\":\"Cannot query field \\\"bb\\\" "
                   "on type \\\"Query\\\".\",\"locations\":[{\"line\":1,"
                   "\"column\":3}]}]}");
  cr_assert_eq(gql_graphql(s, "{ a }", 5, NULL, "{", 1, NULL, NULL, a, &json),
               0);
  cr_assert_str_eq(json.ptr, "{\"errors\":[{\"message\":\"Variables are "
                             "invalid JSON: Unexpected end of input, expected "
                             "a string key at line 1, column 2\"}]}");
  cr_assert_eq(gql_graphql(s, "{ a }", 5, NULL, NULL, 0, NULL, NULL, a, &json),
               0);
  cr_assert_str_eq(json.ptr, "{\"data\":{\"a\":null}}");
  cr_assert_eq(
      gql_graphql(NULL, "{ a }", 5, NULL, NULL, 0, NULL, NULL, a, &json),
      GQL_EINVAL);
  gql_arena_free(a);
  gql_schema_free(s);
}

/* gql_execute returns 0 whether or not fields pend: on_done says when the
 * response is there. */
typedef struct later {
  gql_pending *p;
  int done;
  char json[256];
} later;

static void pend(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  later *l = gql_info_context(info);
  l->p = gql_out_pending(out);
}

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  later *l = ud;
  l->done++;
  snprintf(l->json, sizeof l->json, "%.*s", (int)len, json);
}

Test(errors_api, execute_returns_0_also_when_fields_pend) {
  gql_schema *s = schema();
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "a", pend, NULL, 0), 0);
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, "{ a }", 5, NULL, NULL, &p, NULL), 0);
  later l = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {
      .context = &l, .arena = a, .on_done = on_done, .ud = &l};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(l.done, 0);
  cr_assert_not_null(l.p);
  gql_out_int(gql_pending_out(l.p), 4);
  cr_assert_eq(l.done, 1);
  cr_assert_str_eq(l.json, "{\"data\":{\"a\":4}}");
  params.on_done = NULL;
  cr_assert_eq(gql_execute(p, &params), GQL_EINVAL);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

/* gql_execute_incremental tells whether fields pend (1), as it documents,
 * also for an operation that defers nothing (gql_execute's path): it
 * returned 0 there, and a caller waiting for 1 (the fuzz harness, gql exec)
 * never completed the field (fuzz_incremental_exec found it). */
Test(errors_api, execute_incremental_returns_1_when_fields_pend) {
  gql_schema *s = schema();
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "a", pend, NULL, 0), 0);
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, "{ a }", 5, NULL, NULL, &p, NULL), 0);
  later l = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {
      .context = &l, .arena = a, .on_done = on_done, .ud = &l};
  cr_assert_eq(gql_execute_incremental(p, &params), 1);
  cr_assert_eq(l.done, 0);
  cr_assert_not_null(l.p);
  gql_out_int(gql_pending_out(l.p), 4);
  cr_assert_eq(l.done, 1);
  cr_assert_str_eq(l.json, "{\"data\":{\"a\":4}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}
