/* @skip and @include whose `if` has no boolean value fail as graphql-js's
 * collectFields does (getArgumentValues' errors): at the root the response
 * is the error and no data; below, the object becomes null with the error
 * at its path, null propagating as for any field error. The expected
 * responses are graphql-js 16.15's execute() on the same schema, data and
 * query, byte for byte; each case also runs in tree mode (a resolver not
 * declared synchronous), which must answer alike. */
#include <criterion/criterion.h>
#include <gql.h>
#include <stdio.h>
#include <string.h>

static const char sdl[] =
    "type Query { a: String b: String o: O oo: O! "
    "l: [O!] ll: [O] f(x: Boolean!): String }\n"
    "type O { x: String y: String o: O f(x: Boolean!): String "
    "n(x: Boolean!): String! }\n";
static const char data[] =
    "{\"a\":\"A\",\"b\":\"B\",\"f\":\"F\",\"o\":{\"x\":\"X\",\"y\":\"Y\","
    "\"f\":\"OF\",\"n\":\"N\",\"o\":{\"x\":\"X2\"}},\"oo\":{\"x\":\"X\",\"y\":"
    "\"Y\"},\"l\":[{\"x\":\"1\"},{\"x\":"
    "\"2\"}],\"ll\":[{\"x\":\"1\"},{\"x\":\"2\"}]}";

static void prop(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  gql_str name = gql_info_field_name(info);
  gql_out_json(out, gql_value_get(parent, name.ptr, name.len));
}

typedef struct done {
  char json[2048];
} done;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  done *d = ud;
  snprintf(d->json, sizeof d->json, "%.*s", (int)len, json);
}

/* The response of q with vars, direct (`tree` false) or in tree mode (the
 * query type's `o` not declared synchronous). */
static void run(const char *q, const char *vars, bool validate, bool tree,
                done *d) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  if (tree)
    cr_assert_eq(gql_schema_set_resolver(s, "Query", "o", prop, NULL, 0), 0);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(a, data, sizeof data - 1, &root), 0);
  gql_prepare_options po = {.no_validate = !validate};
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, &po, &p, NULL), 0, "%s", q);
  gql_execute_params params = {.root_value = root,
                               .variables_json = vars,
                               .variables_len = strlen(vars),
                               .arena = a,
                               .on_done = on_done,
                               .ud = d};
  cr_assert_geq(gql_execute(p, &params), 0);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

static void expect_modes(const char *q, const char *vars, bool validate,
                         const char *want, int modes) {
  for (int tree = 0; tree < modes; tree++) {
    done d = {0};
    run(q, vars, validate, tree, &d);
    cr_expect_str_eq(d.json, want, "%s (%s): %s", q, tree ? "tree" : "direct",
                     d.json);
  }
}

static void expect(const char *q, const char *vars, bool validate,
                   const char *want) {
  expect_modes(q, vars, validate, want, 2);
}

#define NULL_IF                                                                \
  "Argument \\\"if\\\" of non-null type \\\"Boolean!\\\" must not be null."

Test(conditions, a_null_variable_with_a_default_fails_the_root) {
  expect("query($v: Boolean = false) { a @skip(if: $v) b }", "{\"v\": null}",
         true,
         "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
         "1,\"column\":42}]}],\"data\":null}");
}

Test(conditions, below_the_root_the_object_is_null_at_its_path) {
  expect("query($v: Boolean = false) { a o { x @include(if: $v) y } b }",
         "{\"v\": null}", true,
         "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
         "1,\"column\":51}],\"path\":[\"o\"]}],\"data\":{\"a\":\"A\",\"o\":"
         "null,\"b\":\"B\"}}");
  expect("query($v: Boolean = false) { o { o { x @skip(if: $v) } } }",
         "{\"v\": null}", true,
         "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
         "1,\"column\":50}],\"path\":[\"o\",\"o\"]}],\"data\":{\"o\":{\"o\":"
         "null}}}");
}

Test(conditions, a_non_null_object_propagates_and_items_fail_each) {
  expect("query($v: Boolean = false) { a oo { x y ... @skip(if: $v) { y } } b "
         "}",
         "{\"v\": null}", true,
         "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
         "1,\"column\":55}],\"path\":[\"oo\"]}],\"data\":null}");
  /* direct mode only: tree mode completes every item of a list, as
   * graphql-js does when items pend, so [O!] reports both of its items */
  expect_modes(
      "query($v: Boolean = false) { l { x @skip(if: $v) } ll { x "
      "@skip(if: $v) } }",
      "{\"v\": null}", true,
      "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
      "1,\"column\":46}],\"path\":[\"l\",0]},{\"message\":\"" NULL_IF
      "\",\"locations\":[{\"line\":1,\"column\":69}],\"path\":[\"ll\",0]},{"
      "\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":1,\"column\":69}"
      "],\"path\":[\"ll\",1]}],\"data\":{\"l\":null,\"ll\":[null,null]}}",
      1);
}

Test(conditions, a_skip_that_is_true_is_read_before_the_include) {
  expect("query($v: Boolean = false, $t: Boolean = true) { a @skip(if: $t) "
         "@include(if: $v) b @include(if: $v) @skip(if: $t) }",
         "{\"v\": null}", true, "{\"data\":{}}");
  expect("query($v: Boolean = false) { o { ...F ...F } } fragment F on O { x "
         "@skip(if: $v) }",
         "{\"v\": null}", true,
         "{\"errors\":[{\"message\":\"" NULL_IF "\",\"locations\":[{\"line\":"
         "1,\"column\":78}],\"path\":[\"o\"]}],\"data\":{\"o\":null}}");
}

Test(conditions, values_that_are_booleans_or_defaults_still_work) {
  expect("query($v: Boolean = false) { a @skip(if: $v) }", "{\"v\": true}",
         true, "{\"data\":{}}");
  expect("query($v: Boolean = false) { a @skip(if: $v) }", "{}", true,
         "{\"data\":{\"a\":\"A\"}}");
}

Test(conditions, unvalidated_ifs_fail_as_get_argument_values_does) {
  expect("query($v: Boolean) { a @skip(if: $v) b }", "{}", false,
         "{\"errors\":[{\"message\":\"Argument \\\"if\\\" of required type "
         "\\\"Boolean!\\\" was provided the variable \\\"$v\\\" which was not "
         "provided a runtime value.\",\"locations\":[{\"line\":1,\"column\":34}"
         "]}],\"data\":null}");
  expect("{ a @skip b }", "{}", false,
         "{\"errors\":[{\"message\":\"Argument \\\"if\\\" of required type "
         "\\\"Boolean!\\\" was not provided.\",\"locations\":[{\"line\":1,"
         "\"column\":5}]}],\"data\":null}");
  expect("{ o { ... on Query @include(if: $nope) { a } x } }", "{}", false,
         "{\"errors\":[{\"message\":\"Argument \\\"if\\\" of required type "
         "\\\"Boolean!\\\" was provided the variable \\\"$nope\\\" which was "
         "not provided a runtime value.\",\"locations\":[{\"line\":1,\"column\""
         ":33}],\"path\":[\"o\"]}],\"data\":{\"o\":null}}");
  /* a variable of another type is taken as it is: neither true nor false */
  expect("query($v: String = \"x\") { o { x @skip(if: $v) y @include(if: $v) } "
         "}",
         "{}", false, "{\"data\":{\"o\":{\"x\":\"X\",\"y\":\"Y\"}}}");
}

/* The same rule for a field's argument (graphql-js getArgumentValues): the
 * field is null with the error at its path, a non-null field nulls its
 * parent. */
#define NULL_X                                                                 \
  "Argument \\\"x\\\" of non-null type \\\"Boolean!\\\" must not be null."

Test(conditions, a_null_variable_with_a_default_fails_a_field_argument) {
  expect("query($v: Boolean = false) { a f(x: $v) b }", "{\"v\": null}", true,
         "{\"errors\":[{\"message\":\"" NULL_X "\",\"locations\":[{\"line\":"
         "1,\"column\":37}],\"path\":[\"f\"]}],\"data\":{\"a\":\"A\",\"f\":"
         "null,\"b\":\"B\"}}");
  expect("query($v: Boolean = false) { o { x f(x: $v) } b }", "{\"v\": null}",
         true,
         "{\"errors\":[{\"message\":\"" NULL_X "\",\"locations\":[{\"line\":"
         "1,\"column\":41}],\"path\":[\"o\",\"f\"]}],\"data\":{\"o\":{\"x\":"
         "\"X\",\"f\":null},\"b\":\"B\"}}");
  expect("query($v: Boolean = false) { a o { x n(x: $v) } b }", "{\"v\": null}",
         true,
         "{\"errors\":[{\"message\":\"" NULL_X "\",\"locations\":[{\"line\":"
         "1,\"column\":43}],\"path\":[\"o\",\"n\"]}],\"data\":{\"a\":\"A\","
         "\"o\":null,\"b\":\"B\"}}");
}
