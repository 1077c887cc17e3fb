/* The public calls an executor of its own needs from a prepared operation
 * (the HTTP layer and the gateway use nothing else): its type, its size,
 * variable coercion with its errors as a response; and JSON printing of
 * values and the growable output buffer. */
#include <criterion/criterion.h>
#include <gql.h>
#include <string.h>

static gql_schema *schema(void) {
  static const char sdl[] = "type Query { a(n: Int): Int }\n"
                            "type Mutation { m: Int }\n"
                            "type Subscription { s: Int }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  return s;
}

static gql_prepared *prepare(gql_schema *s, const char *q) {
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0, "%s", q);
  return p;
}

Test(prepared, tells_its_operation_type_and_size) {
  gql_schema *s = schema();
  const char *qs[] = {"{ a }", "mutation { m }", "subscription { s }"};
  gql_operation_type want[] = {GQL_OP_QUERY, GQL_OP_MUTATION,
                               GQL_OP_SUBSCRIPTION};
  for (int i = 0; i < 3; i++) {
    gql_prepared *p = prepare(s, qs[i]);
    cr_assert_eq(gql_prepared_operation(p), want[i], "%s", qs[i]);
    cr_assert_gt(gql_prepared_bytes(p), strlen(qs[i]));
    gql_prepared_free(p);
  }
  gql_schema_free(s);
}

Test(prepared, coerces_variables_with_defaults_as_execute_does) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "query($x: Int = 3, $y: Int, $z: Int) "
                               "{ a(n: $x) b: a(n: $y) c: a(n: $z) }");
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *in, *out;
  cr_assert_eq(gql_value_parse(a, "{\"y\":5,\"w\":1}", 13, &in), 0);
  gql_errors errors = {.arena = a};
  cr_assert_eq(gql_prepared_coerce_variables(p, a, in, &out, &errors), 0);
  cr_assert_eq(errors.count, 0);
  gql_str json;
  cr_assert_eq(gql_value_print(a, out, &json), 0);
  /* the default of x, the given y; neither z (no value) nor w (undeclared) */
  cr_assert_str_eq(json.ptr, "{\"x\":3,\"y\":5}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(prepared, refuses_invalid_variables_with_graphql_js_errors) {
  gql_schema *s = schema();
  gql_prepared *p = prepare(s, "query($x: Int!) { a(n: $x) }");
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *in, *out = (const gql_value *)1;
  cr_assert_eq(gql_value_parse(a, "{\"x\":\"no\"}", 10, &in), 0);
  gql_errors errors = {.arena = a};
  cr_assert_eq(gql_prepared_coerce_variables(p, a, in, &out, &errors),
               GQL_EINVAL);
  cr_assert_null(out);
  cr_assert_eq(errors.count, 1);
  gql_str json;
  cr_assert_eq(gql_errors_response(&errors, NULL, a, &json), 0);
  cr_assert_str_eq(json.ptr,
                   "{\"errors\":[{\"message\":\"Variable \\\"$x\\\" got "
                   "invalid value \\\"no\\\"; Int cannot represent non-integer "
                   "value: \\\"no\\\"\",\"locations\":[{\"line\":1,\"column\":"
                   "7}]}]}");
  /* none given: the required one is missing */
  cr_assert_eq(gql_prepared_coerce_variables(p, a, NULL, &out, &errors),
               GQL_EINVAL);
  cr_assert_str_eq(errors.items[0].message,
                   "Variable \"$x\" of required type \"Int!\" was not "
                   "provided.");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(output, grows_and_keeps_what_was_appended) {
  gql_output o = {0};
  char chunk[100];
  for (int i = 0; i < 100; i++)
    chunk[i] = (char)('a' + i % 26);
  for (int i = 0; i < 50; i++)
    cr_assert_eq(gql_output_append(&o, chunk, sizeof chunk), 0);
  cr_assert_eq(o.len, 5000);
  cr_assert_geq(o.cap, 5000);
  cr_assert(memcmp(o.data + 4900, chunk, 100) == 0);
  cr_assert_eq(gql_output_reserve(&o, 100000), 0);
  cr_assert_geq(o.cap - o.len, 100000);
  cr_assert_eq(o.len, 5000);
  cr_assert_eq(gql_output_reserve(&o, SIZE_MAX), GQL_ENOMEM);
  cr_assert_eq(o.len, 5000);
  gql_output_free(&o);
  cr_assert_null(o.data);
}

/* gql_output_json_string escapes as JSON.stringify and appends to what
 * the buffer holds. */
Test(prepared, output_json_string_escapes_as_json_stringify) {
  gql_output o = {0};
  cr_assert_eq(gql_output_append(&o, "[", 1), 0);
  static const char s[] = "a\"b\\c\n\x01\xe2\x80\xa8";
  cr_assert_eq(gql_output_json_string(&o, s, sizeof s - 1), 0);
  cr_assert_eq(gql_output_json_string(&o, "\xff", 1), 0);
  static const char want[] =
      "[\"a\\\"b\\\\c\\n\\u0001\xe2\x80\xa8\"\"\xef\xbf\xbd\"";
  cr_assert_eq(o.len, sizeof want - 1);
  cr_assert(memcmp(o.data, want, o.len) == 0);
  gql_output_free(&o);
}

/* graphql-js 16.15 words an enum input's suggestions "Did you mean the
 * enum value ...?", for a string naming no value and for a value that is
 * not a string (suggested from how inspect() prints it). */
Test(prepared, enum_variables_suggest_the_enum_value_as_graphql_js_does) {
  static const char esdl[] = "enum Color { RED GREEN BLUE RE1 }\n"
                             "type Query { c(x: Color): String }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(esdl, sizeof esdl - 1, NULL, &s, NULL), 0);
  gql_prepared *p = prepare(s, "query($x: Color) { c(x: $x) }");
  gql_arena *a = gql_arena_new(NULL);
  static const char *const in[] = {"{\"x\":\"REDD\"}", "{\"x\":\"GRE\"}",
                                   "{\"x\":true}", "{\"x\":1}"};
  static const char *const want[] = {
      "Variable \"$x\" got invalid value \"REDD\"; Value \"REDD\" does not "
      "exist in \"Color\" enum. Did you mean the enum value \"RED\" or "
      "\"RE1\"?",
      "Variable \"$x\" got invalid value \"GRE\"; Value \"GRE\" does not "
      "exist in \"Color\" enum. Did you mean the enum value \"GREEN\", "
      "\"RE1\", or \"RED\"?",
      "Variable \"$x\" got invalid value true; Enum \"Color\" cannot "
      "represent non-string value: true. Did you mean the enum value "
      "\"BLUE\"?",
      "Variable \"$x\" got invalid value 1; Enum \"Color\" cannot represent "
      "non-string value: 1."};
  for (size_t i = 0; i < 4; i++) {
    const gql_value *v, *out;
    cr_assert_eq(gql_value_parse(a, in[i], strlen(in[i]), &v), 0);
    gql_errors errors = {.arena = a};
    cr_assert_eq(gql_prepared_coerce_variables(p, a, v, &out, &errors),
                 GQL_EINVAL);
    cr_assert_eq(errors.count, 1);
    cr_expect_str_eq(errors.items[0].message, want[i]);
  }
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

/* graphql-js's graphql() executes a subscription operation once, like a
 * query, over the root value; gql_graphql does the same (gql_execute
 * answers an error unless asked: it has no event stream to serve). */
Test(prepared, gql_graphql_runs_a_subscription_once_over_the_root_value) {
  static const char ssdl[] = "type Query { a: String }\n"
                             "type Subscription { tick: Int }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(ssdl, sizeof ssdl - 1, NULL, &s, NULL), 0);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(a, "{\"tick\":3}", 10, &root), 0);
  gql_str json = {0};
  const char q[] = "subscription { tick }";
  cr_assert_eq(
      gql_graphql(s, q, sizeof q - 1, NULL, NULL, 0, root, NULL, a, &json), 0);
  cr_expect_str_eq(json.ptr, "{\"data\":{\"tick\":3}}");
  gql_arena_free(a);
  gql_schema_free(s);
}
