/* Demand control's static estimate, worked by hand on the rules of the cost
 * directive specification as Apollo Router applies them (each expected
 * number is derived in the comment above its assertion). */
#include "language/ast.h"
#include "validation/cost.h"
#include "json/json.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

static const char sdl[] =
    "directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | "
    "FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR\n"
    "directive @listSize(assumedSize: Int, slicingArguments: [String!], "
    "sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on "
    "FIELD_DEFINITION\n"
    "type Query {\n"
    "  hero: Character\n"
    "  heroes: [Character]\n"
    "  names: [String]\n"
    "  expensive: Int @cost(weight: \"5\")\n"
    "  costlyArg(arg: Int @cost(weight: \"10\")): Int\n"
    "  kind: Kind\n"
    "  money: Money\n"
    "  vault: Vault\n"
    "  filter(f: Filter): Int\n"
    "  big: [String!] @listSize(assumedSize: 2000, requireOneSlicingArgument: "
    "false)\n"
    "  page(first: Int = 10): Page @listSize(slicingArguments: [\"first\"], "
    "sizedFields: [\"items\"])\n"
    "  byIds(ids: [ID!]!): [Character] @listSize(slicingArguments: "
    "[\"ids\"])\n"
    "  search(input: SearchInput): [Character] @listSize(slicingArguments: "
    "[\"input.pagination.first\"], assumedSize: 25, "
    "requireOneSlicingArgument: false)\n"
    "  two(first: Int, last: Int): [Character] @listSize(slicingArguments: "
    "[\"first\", \"last\"])\n"
    "  twoLoose(first: Int, last: Int): [Character] "
    "@listSize(slicingArguments: [\"first\", \"last\"], "
    "requireOneSlicingArgument: false)\n"
    "  half: Float @cost(weight: 2.5)\n"
    "}\n"
    "type Mutation { like(id: ID!): Character }\n"
    "interface Character { id: ID friends: [Character] }\n"
    "type Human implements Character { id: ID friends: [Character] height: "
    "Float }\n"
    "type Droid implements Character { id: ID friends: [Character] }\n"
    "enum Kind @cost(weight: \"15\") { A B }\n"
    "scalar Money @cost(weight: \"30\")\n"
    "type Vault @cost(weight: \"40\") { id: ID }\n"
    "input Filter { x: Int @cost(weight: \"20\") y: Int }\n"
    "type Page { items: [Character] total: Int }\n"
    "input SearchInput { pagination: Pagination q: String }\n"
    "input Pagination { first: Int after: String }\n";

static gql_schema *schema;
static gql_cost_schema *cs;
static gql_arena *arena;

static void setup(void) {
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL),
               0);
  char err[256] = "";
  gql_cost_options o = {.list_size = 10};
  cr_assert_eq(gql_cost_schema_new(schema, &o, &cs, err, sizeof err), 0, "%s",
               err);
  arena = gql_arena_new(NULL);
}

static void teardown(void) {
  gql_cost_schema_free(cs);
  gql_schema_free(schema);
  gql_arena_free(arena);
}

TestSuite(cost, .init = setup, .fini = teardown);

static int estimate_with(const gql_cost_schema *c, const char *query,
                         const char *vars, double *cost, const char **error) {
  gql_document *doc = NULL;
  gql_syntax_error serr;
  cr_assert_eq(gql_parse_syntax(arena, query, strlen(query), NULL, &doc, &serr),
               0, "%s", serr.message);
  const gql_ast_operation *op = NULL;
  for (uint32_t i = 0; i < doc->definitions.count && !op; i++)
    if (doc->definitions.items[i]->kind == GQL_AST_OPERATION_DEFINITION)
      op = (const gql_ast_operation *)doc->definitions.items[i];
  gql_json_value *v = NULL;
  if (vars)
    cr_assert_eq(gql_json_parse(arena, vars, strlen(vars), NULL, &v, NULL), 0);
  return gql_cost_estimate(c, doc, op, v, arena, cost, error);
}

static double cost_of(const char *query, const char *vars) {
  double c = -1;
  const char *error = NULL;
  int rc = estimate_with(cs, query, vars, &c, &error);
  cr_assert_eq(rc, 0, "%s: %s", query, error ? error : "");
  return c;
}

#define assert_cost(q, vars, want)                                             \
  do {                                                                         \
    double got_ = cost_of(q, vars);                                            \
    cr_assert_eq(got_, (double)(want), "%s: cost %g, expected %g", q, got_,    \
                 (double)(want));                                              \
  } while (0)

Test(cost, objects_cost_one_and_leaves_nothing) {
  /* hero: an object (1); id: a scalar (0). */
  assert_cost("{ hero { id } }", NULL, 1);
  /* a scalar list: 10 items of 0. */
  assert_cost("{ names }", NULL, 0);
  /* __typename is free. */
  assert_cost("{ __typename hero { __typename } }", NULL, 1);
}

Test(cost, lists_multiply_by_the_default_list_size) {
  /* heroes: 10 * (1 + 0) */
  assert_cost("{ heroes { id } }", NULL, 10);
  /* heroes: 10 * (1 + friends: 10 * (1 + 0)) = 10 * 11 */
  assert_cost("{ heroes { friends { id } } }", NULL, 110);
  gql_cost_schema *three = NULL;
  char err[128];
  gql_cost_options o = {.list_size = 3};
  cr_assert_eq(gql_cost_schema_new(schema, &o, &three, err, sizeof err), 0);
  double c;
  const char *e;
  cr_assert_eq(
      estimate_with(three, "{ heroes { friends { id } } }", NULL, &c, &e), 0);
  /* 3 * (1 + 3 * 1) */
  cr_assert_eq(c, 12);
  gql_cost_schema_free(three);
}

Test(cost, a_mutation_starts_at_ten) {
  /* 10 + like: 1 + id argument (an ID literal, no @cost): 0 */
  assert_cost("mutation { like(id: \"1\") { id } }", NULL, 11);
}

Test(cost, cost_on_fields_arguments_types_and_input_fields) {
  /* expensive 5 + costlyArg: 0 + its argument 10 + kind: enum Kind 15 +
   * money: scalar Money 30 + vault: type Vault 40 (instead of 1) + filter:
   * 0 + argument f: an input object 1 + x 20 = 121 */
  assert_cost("{ expensive costlyArg(arg: 3) kind money vault { id } "
              "filter(f: {x: 1}) }",
              NULL, 121);
  /* A weight may be a Float literal as well as a String. */
  assert_cost("{ half }", NULL, 2.5);
  /* The input object from a variable scores the same: 1 + 20 + 0. */
  assert_cost("query ($f: Filter) { filter(f: $f) }",
              "{\"f\":{\"x\":5,\"y\":1}}", 21);
  /* A null argument costs nothing. */
  assert_cost("{ filter(f: null) }", NULL, 0);
}

Test(cost, list_size_from_assumed_size_and_slicing_arguments) {
  /* big: 2000 Strings of 0. */
  assert_cost("{ big }", NULL, 0);
  /* page: 1 * (1 + items sized by first's default 10: 10 * 1) */
  assert_cost("{ page { items { id } } }", NULL, 11);
  /* first: 3 → 1 + 3 */
  assert_cost("{ page(first: 3) { items { id } } }", NULL, 4);
  /* from a variable: 1 + 7; total is not a sized field: 0 */
  assert_cost("query ($n: Int) { page(first: $n) { total items { id } } }",
              "{\"n\":7}", 8);
  /* a variable's default when it is not given: 1 + 5 */
  assert_cost("query ($n: Int = 5) { page(first: $n) { items { id } } }", NULL,
              6);
  /* a list-valued slicing argument counts its items: 3 * 1 */
  assert_cost("{ byIds(ids: [\"a\", \"b\", \"c\"]) { id } }", NULL, 3);
  assert_cost("query ($ids: [ID!]!) { byIds(ids: $ids) { id } }",
              "{\"ids\":[\"a\",\"b\",\"c\",\"d\"]}", 4);
  /* a nested path: 4 * 1, + the argument: SearchInput 1 + Pagination 1 */
  assert_cost("{ search(input: {pagination: {first: 4}}) { id } }", NULL, 6);
  /* no slicing argument: assumedSize 25 */
  assert_cost("{ search { id } }", NULL, 25);
  /* requireOneSlicingArgument: false takes the largest: 5 */
  assert_cost("{ twoLoose(first: 2, last: 5) { id } }", NULL, 5);
}

Test(cost, exactly_one_slicing_argument_when_required) {
  double c;
  const char *e = NULL;
  cr_assert_eq(
      estimate_with(cs, "{ two(first: 2, last: 5) { id } }", NULL, &c, &e),
      GQL_EINVAL);
  cr_assert_str_eq(e, "Exactly one slicing argument is required, but found 2");
  cr_assert_eq(estimate_with(cs, "{ two { id } }", NULL, &c, &e), GQL_EINVAL);
  cr_assert_str_eq(e, "Exactly one slicing argument is required, but found 0");
  /* One is fine: 2 * 1 */
  assert_cost("{ two(last: 2) { id } }", NULL, 2);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_cost_failure_json(e, &b);
  cr_assert_str_eq(gql_buf_cstr(&b),
                   "{\"errors\":[{\"message\":\"Query could not be parsed: "
                   "Exactly one slicing argument is required, but found 0\","
                   "\"extensions\":{\"code\":\"COST_QUERY_PARSE_FAILURE\"}}]}");
  gql_buf_free(&b);
}

Test(cost, fragments_add_every_branch) {
  /* hero 1 + F (id 0 + friends 10 * 1) + on Human (height 0 + friends 10) */
  assert_cost("{ hero { ...F ... on Human { height friends { id } } } } "
              "fragment F on Character { id friends { id } }",
              NULL, 21);
  /* A fragment spread many times over is counted each time (its cost is
   * remembered, not its multiplicity): heroes 10 * (1 + 3 * 10) */
  assert_cost("{ heroes { ...G ...G ...G } } fragment G on Character { "
              "friends { id } }",
              NULL, 310);
}

Test(cost, skipped_and_excluded_fields_cost_nothing) {
  const char *q = "query ($s: Boolean!) { heroes @skip(if: $s) { id } "
                  "hero @include(if: false) { id } }";
  assert_cost(q, "{\"s\":true}", 0);
  assert_cost(q, "{\"s\":false}", 10);
  assert_cost("{ ... @skip(if: true) { heroes { id } } }", NULL, 0);
}

Test(cost, a_fragment_bomb_is_estimated_in_linear_time) {
  /* 2^20 expansions if walked naively. */
  gql_buf q;
  gql_buf_init(&q, NULL);
  gql_buf_puts(&q, "{ hero { ...F0 } }");
  for (int i = 0; i < 20; i++)
    gql_buf_printf(&q, " fragment F%d on Character { ...F%d ...F%d }", i, i + 1,
                   i + 1);
  gql_buf_puts(&q, " fragment F20 on Character { friends { id } }");
  /* hero 1 + 2^20 * friends 10 */
  assert_cost(gql_buf_cstr(&q), NULL, 1 + 10.0 * (1 << 20));
  gql_buf_free(&q);
}

Test(cost, the_refusal_has_apollos_shape) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_cost_too_expensive_json(1234, 1000, &b);
  cr_assert_str_eq(gql_buf_cstr(&b),
                   "{\"errors\":[{\"message\":\"query estimated cost 1234 "
                   "exceeded configured maximum 1000\",\"extensions\":{"
                   "\"cost.estimated\":1234,\"cost.max\":1000,\"code\":"
                   "\"COST_ESTIMATED_TOO_EXPENSIVE\"}}]}");
  gql_buf_free(&b);
}

Test(cost, directives_imported_under_other_names_through_link) {
  static const char linked[] =
      "schema @link(url: \"https://specs.apollo.dev/cost/v0.1\", import: "
      "[{name: \"@cost\", as: \"@weight\"}, \"@listSize\"]) { query: Q }\n"
      "directive @link(url: String, as: String, import: [link__Import]) "
      "repeatable on SCHEMA\n"
      "scalar link__Import\n"
      "directive @weight(weight: String!) on FIELD_DEFINITION | OBJECT\n"
      "directive @cost(weight: String!) on FIELD_DEFINITION\n"
      "directive @listSize(assumedSize: Int) on FIELD_DEFINITION\n"
      "type Q { a: Int @weight(weight: \"7\") b: Int @cost(weight: \"100\") "
      "c: [Q] @listSize(assumedSize: 4) }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(linked, sizeof linked - 1, NULL, &s, NULL),
               0);
  gql_cost_schema *c = NULL;
  char err[128] = "";
  cr_assert_eq(gql_cost_schema_new(s, NULL, &c, err, sizeof err), 0, "%s", err);
  double v;
  const char *e;
  /* a: 7 (the alias); b: 0 (@cost is another directive here); c: 4 * 1 */
  cr_assert_eq(estimate_with(c, "{ a b c { a } }", NULL, &v, &e), 0);
  /* 7 + 0 + 4 * (1 + 7) */
  cr_assert_eq(v, 39, "cost %g", v);
  gql_cost_schema_free(c);
  gql_schema_free(s);
}

Test(cost, a_bad_weight_is_a_schema_error) {
  static const char bad[] =
      "directive @cost(weight: String!) on FIELD_DEFINITION\n"
      "type Query { a: Int @cost(weight: \"lots\") }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(bad, sizeof bad - 1, NULL, &s, NULL), 0);
  gql_cost_schema *c = NULL;
  char err[160] = "";
  cr_assert_eq(gql_cost_schema_new(s, NULL, &c, err, sizeof err), GQL_EINVAL);
  cr_assert_str_eq(err, "@cost on a: weight must be a number");
  gql_schema_free(s);
}
