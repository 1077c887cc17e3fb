/* The argument, value, variable-position, field-merging and introspection
 * depth rules on cases the recorded graphql-js corpus does not cover:
 * exact graphql-js 16 messages, locations and order, one rule at a time. */
#include "helpers.h"
#include "validation/values.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static const char *SDL =
    "scalar Custom\n"
    "enum Color { RED GREEN BLUE }\n"
    "input Point { x: Int! y: Int = 0 label: String }\n"
    "input Pick @oneOf { a: Int b: String }\n"
    "input Wrap { pick: Pick picks: [Pick] }\n"
    "directive @dir(req: Int!, opt: String) on FIELD\n"
    "type Query {\n"
    "  int(v: Int): Int\n"
    "  float(v: Float): Float\n"
    "  str(v: String): String\n"
    "  id(v: ID): ID\n"
    "  bool(v: Boolean): Boolean\n"
    "  custom(v: Custom): String\n"
    "  color(v: Color): Color\n"
    "  point(p: Point): String\n"
    "  points(p: [Point!]): String\n"
    "  pick(p: Pick): String\n"
    "  pickNN(p: Pick!): String\n"
    "  wrap(w: Wrap): String\n"
    "  req(a: Int!, b: String!, c: Int! = 3): String\n"
    "  ints(v: [Int!]!): Int\n"
    "  withDefault(v: Int! = 1): Int\n"
    "  node: Node\n"
    "  dog: Dog\n"
    "  cat: Cat\n"
    "  pet: Pet\n"
    "}\n"
    "interface Pet { name: String size: Int }\n"
    "type Dog implements Pet { name: String barks: Boolean size: Int "
    "len(unit: String): Int owner: Node }\n"
    "type Cat implements Pet { name: String meows: Boolean size: Int "
    "len(unit: String): Float owner: Node }\n"
    "type Node { id: ID name: String next: Node nodes: [Node] "
    "len(unit: String): Int }\n";

static gql_arena *arena;
static gql_schema *schema;

static void setup(void) {
  arena = gql_arena_new(NULL);
  cr_assert(arena);
  gql_error_list errs;
  gql_error_list_init(&errs, arena, 0);
  int rc = gql_schema_build(SDL, strlen(SDL), NULL, NULL, &schema, &errs);
  cr_assert_eq(rc, 0, "schema: %s", errs.count ? errs.items[0].message : "");
}

static void teardown(void) {
  gql_schema_free(schema);
  gql_arena_free(arena);
}

TestSuite(rules_b, .init = setup, .fini = teardown);

/* The errors of `rule` on `query` as "message @line:col,line:col" lines. */
static const char *run_rule(const gql_vrule *rule, const char *query) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(arena, query, strlen(query), NULL, &doc, &err);
  cr_assert_eq(rc, 0, "parse: %s", err.message ? err.message : "");
  gql_error_list errors;
  gql_error_list_init(&errors, arena, 0);
  const gql_vrule *rules[1] = {rule};
  rc = gql_validate_document(schema, doc, rules, 1, NULL, &errors);
  cr_assert_eq(rc, 0);
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < errors.count; i++) {
    gql_buf_printf(&b, "%s @", errors.items[i].message);
    for (uint32_t j = 0; j < errors.items[i].nlocations; j++)
      gql_buf_printf(&b, "%s%u:%u", j ? "," : "",
                     errors.items[i].locations[j].line,
                     errors.items[i].locations[j].column);
    gql_buf_putc(&b, '\n');
  }
  const char *s = gql_arena_strndup(arena, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  return s;
}

static gql_document *parse_doc_b(const char *query) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(arena, query, strlen(query), NULL, &doc, &err);
  cr_assert_eq(rc, 0, "parse: %s", err.message ? err.message : "");
  return doc;
}

static const char *run(const char *rule_name, const char *query) {
  const gql_vrule *rule = gql_find_rule(rule_name, strlen(rule_name));
  cr_assert(rule, "no rule %s", rule_name);
  return run_rule(rule, query);
}

#define EXPECT(rule, query, expected)                                          \
  cr_expect_str_eq(run(rule, query), expected)

/* ---- ValuesOfCorrectTypeRule */

Test(rules_b, int_literals_must_fit_in_32_bits) {
  EXPECT("ValuesOfCorrectType",
         "{ a: int(v: 2147483647) b: int(v: -2147483648) "
         "c: int(v: 2147483648) d: int(v: -2147483649) "
         "e: int(v: 123456789012345678901234567890) }",
         "Int cannot represent non 32-bit signed integer value: 2147483648 "
         "@1:58\n"
         "Int cannot represent non 32-bit signed integer value: -2147483649 "
         "@1:80\n"
         "Int cannot represent non 32-bit signed integer value: "
         "123456789012345678901234567890 @1:103\n");
}

Test(rules_b, int_rejects_float_string_and_block_string_literals) {
  EXPECT("ValuesOfCorrectType",
         "{ a: int(v: 1.5) b: int(v: \"\"\"x\"\"\") c: int(v: [1]) "
         "d: int(v: {a: 1}) }",
         "Int cannot represent non-integer value: 1.5 @1:13\n"
         "Int cannot represent non-integer value: \"\"\"x\"\"\" @1:28\n"
         "Int cannot represent non-integer value: [1] @1:47\n"
         "Int cannot represent non-integer value: {a: 1} @1:62\n");
}

Test(rules_b, float_takes_int_and_float_literals_even_huge_ones) {
  EXPECT("ValuesOfCorrectType",
         "{ a: float(v: 1) b: float(v: 1.5e3) c: float(v: 1e999) "
         "d: float(v: \"1\") }",
         "Float cannot represent non numeric value: \"1\" @1:68\n");
}

Test(rules_b, id_takes_strings_and_ints_only) {
  EXPECT("ValuesOfCorrectType",
         "{ a: id(v: \"x\") b: id(v: 12) c: id(v: 1.0) d: id(v: X) }",
         "ID cannot represent a non-string and non-integer value: 1.0 @1:39\n"
         "ID cannot represent a non-string and non-integer value: X @1:53\n");
}

Test(rules_b, custom_scalars_accept_any_literal) {
  EXPECT("ValuesOfCorrectType",
         "{ a: custom(v: 1) b: custom(v: {x: [1, \"a\", NOPE]}) "
         "c: custom(v: [[true]]) d: custom(v: ENUM) }",
         "");
}

Test(rules_b, enum_literals_with_suggestions) {
  EXPECT("ValuesOfCorrectType",
         "{ a: color(v: RED) b: color(v: red) c: color(v: \"RED\") "
         "d: color(v: PURPLE) e: color(v: 1) }",
         "Value \"red\" does not exist in \"Color\" enum. Did you mean the "
         "enum value \"RED\"? @1:32\n"
         "Enum \"Color\" cannot represent non-enum value: \"RED\". Did you "
         "mean the enum value \"RED\" or \"GREEN\"? @1:49\n"
         "Value \"PURPLE\" does not exist in \"Color\" enum. @1:68\n"
         "Enum \"Color\" cannot represent non-enum value: 1. @1:88\n");
}

Test(rules_b, null_in_non_null_positions) {
  EXPECT("ValuesOfCorrectType",
         "{ a: req(a: null, b: \"x\") b: ints(v: [1, null]) "
         "c: point(p: {x: null}) }",
         "Expected value of type \"Int!\", found null. @1:13\n"
         "Expected value of type \"Int!\", found null. @1:42\n"
         "Expected value of type \"Int!\", found null. @1:65\n");
}

Test(rules_b, input_objects_required_unknown_and_nested_fields) {
  EXPECT("ValuesOfCorrectType",
         "{ points(p: [{y: 1}, {x: 1, lable: \"a\"}, 3]) }",
         "Field \"Point.x\" of required type \"Int!\" was not provided. "
         "@1:14\n"
         "Field \"lable\" is not defined by type \"Point\". Did you mean "
         "\"label\"? @1:29\n"
         "Expected value of type \"Point!\", found 3. @1:42\n");
}

Test(rules_b, one_of_input_objects) {
  EXPECT("ValuesOfCorrectType",
         "query Q($s: String) {\n"
         "  a: pick(p: {a: 1})\n"
         "  b: pick(p: {a: 1, b: \"x\"})\n"
         "  c: pick(p: {})\n"
         "  d: pick(p: {b: null})\n"
         "  e: pick(p: {b: $s})\n"
         "  f: wrap(w: {picks: [{a: 1}, {a: 1, a: 2}]})\n"
         "}",
         "OneOf Input Object \"Pick\" must specify exactly one key. @3:14\n"
         "OneOf Input Object \"Pick\" must specify exactly one key. @4:14\n"
         "Field \"Pick.b\" must be non-null. @5:14\n");
}

Test(rules_b, variable_default_values_are_checked) {
  EXPECT("ValuesOfCorrectType",
         "query Q($a: Int = \"x\", $b: Point = {y: 2}, $c: [Int] = [1, B]) "
         "{ int }",
         "Int cannot represent non-integer value: \"x\" @1:19\n"
         "Field \"Point.x\" of required type \"Int!\" was not provided. "
         "@1:36\n"
         "Int cannot represent non-integer value: B @1:60\n");
}

/* ---- KnownArgumentNamesRule */

Test(rules_b, unknown_arguments_get_suggestions) {
  EXPECT("KnownArgumentNames",
         "{ dog { len(unti: \"cm\") } int(V: 1) req(a: 1, b: \"\", zz: 1) "
         "int @dir(rq: 1, req: 1) @skip(iff: true) }",
         "Unknown argument \"unti\" on field \"Dog.len\". Did you mean "
         "\"unit\"? @1:13\n"
         "Unknown argument \"V\" on field \"Query.int\". Did you mean \"v\"? "
         "@1:31\n"
         "Unknown argument \"zz\" on field \"Query.req\". @1:54\n"
         "Unknown argument \"rq\" on directive \"@dir\". Did you mean \"req\"? "
         "@1:70\n"
         "Unknown argument \"iff\" on directive \"@skip\". Did you mean "
         "\"if\"? @1:91\n");
}

Test(rules_b, unknown_fields_and_directives_are_left_to_other_rules) {
  EXPECT("KnownArgumentNames", "{ nope(x: 1) int @nope(x: 1) }", "");
}

/* ---- UniqueArgumentNamesRule */

Test(rules_b, repeated_arguments_one_error_per_name_in_first_order) {
  EXPECT("UniqueArgumentNames",
         "{ req(b: \"\", a: 1, b: \"\", a: 2, b: \"\") int @dir(req: 1, "
         "req: 2) }",
         "There can be only one argument named \"b\". @1:7,1:20,1:33\n"
         "There can be only one argument named \"a\". @1:14,1:27\n"
         "There can be only one argument named \"req\". @1:49,1:57\n");
}

/* ---- ProvidedRequiredArgumentsRule */

Test(rules_b, missing_required_arguments_after_inner_errors) {
  /* a field is checked when left: its directives come first */
  EXPECT("ProvidedRequiredArguments",
         "{ req @dir { x } withDefault node { id } req(a: 1, b: \"\") }",
         "Directive \"@dir\" argument \"req\" of type \"Int!\" is required, "
         "but it was not provided. @1:7\n"
         "Field \"req\" argument \"a\" of type \"Int!\" is required, but it "
         "was not provided. @1:3\n"
         "Field \"req\" argument \"b\" of type \"String!\" is required, but "
         "it was not provided. @1:3\n");
}

/* ---- VariablesInAllowedPositionRule */

Test(rules_b, default_values_allow_nullable_variables) {
  EXPECT("VariablesInAllowedPosition",
         "query Q($a: Int, $b: Int = 1, $c: Int = null, $d: [Int]) {\n"
         "  w1: withDefault(v: $a)\n"
         "  r1: req(a: $b, b: \"\")\n"
         "  r2: req(a: $c, b: \"\")\n"
         "  i: ints(v: $d)\n"
         "  j: ints(v: [$a])\n"
         "}",
         "Variable \"$c\" of type \"Int\" used in position expecting type "
         "\"Int!\". @1:31,4:14\n"
         "Variable \"$d\" of type \"[Int]\" used in position expecting type "
         "\"[Int!]!\". @1:47,5:14\n"
         "Variable \"$a\" of type \"Int\" used in position expecting type "
         "\"Int!\". @1:9,6:15\n");
}

Test(rules_b, one_of_fields_need_non_null_variables_even_in_later_fragments) {
  EXPECT("VariablesInAllowedPosition",
         "query Q($s: String, $t: String!, $i: Int) {\n"
         "  ...F\n"
         "  b: pick(p: {b: $t})\n"
         "}\n"
         "fragment F on Query {\n"
         "  w: wrap(w: {picks: [{a: $i}], pick: {b: $s}})\n"
         "}",
         "Variable \"$i\" is of type \"Int\" but must be non-nullable to be "
         "used for OneOf Input Object \"Pick\". @1:34,6:27\n"
         "Variable \"$s\" is of type \"String\" but must be non-nullable to "
         "be used for OneOf Input Object \"Pick\". @1:9,6:43\n");
}

/* ---- UniqueInputFieldNamesRule */

Test(rules_b, repeated_input_fields_in_visit_order) {
  EXPECT("UniqueInputFieldNames",
         "{ wrap(w: {pick: {a: 1, a: 2, a: 3}, pick: {b: \"\", b: \"\"}}) }",
         "There can be only one input field named \"a\". @1:19,1:25\n"
         "There can be only one input field named \"a\". @1:19,1:31\n"
         "There can be only one input field named \"pick\". @1:12,1:38\n"
         "There can be only one input field named \"b\". @1:45,1:52\n");
}

/* ---- MaxIntrospectionDepthRule */

Test(rules_b, introspection_depth_through_fragments_and_cycles) {
  EXPECT("MaxIntrospectionDepth",
         "{ __type(name: \"Query\") { ...A } }\n"
         "fragment A on __Type { fields { type { ...B } } }\n"
         "fragment B on __Type { ...A interfaces { fields { name } } }\n",
         "Maximum introspection depth exceeded @1:3\n");
  EXPECT("MaxIntrospectionDepth",
         "{ __schema { types { ...A } } }\n"
         "fragment A on __Type { ofType { ...A } fields { name } }\n",
         "");
}

Test(rules_b, nested_introspection_fields_are_skipped_after_an_error) {
  EXPECT("MaxIntrospectionDepth",
         "{ __schema { types { fields { type { fields { type { fields { "
         "type { name __type(name: \"x\") { fields { type { fields { type { "
         "fields { name } } } } } } } } } } } } } } }",
         "Maximum introspection depth exceeded @1:3\n");
}

/* ---- OverlappingFieldsCanBeMergedRule */

Test(rules_b, every_conflicting_pair_is_reported_in_order) {
  EXPECT("OverlappingFieldsCanBeMerged",
         "{ dog { x: name x: barks x: name x: barks } }",
         "Fields \"x\" conflict because \"name\" and \"barks\" are different "
         "fields. Use different aliases on the fields to fetch both if this "
         "was intentional. @1:9,1:17\n"
         "Fields \"x\" conflict because \"name\" and \"barks\" are different "
         "fields. Use different aliases on the fields to fetch both if this "
         "was intentional. @1:9,1:34\n"
         "Fields \"x\" conflict because \"barks\" and \"name\" are different "
         "fields. Use different aliases on the fields to fetch both if this "
         "was intentional. @1:17,1:26\n"
         "Fields \"x\" conflict because \"name\" and \"barks\" are different "
         "fields. Use different aliases on the fields to fetch both if this "
         "was intentional. @1:26,1:34\n");
}

Test(rules_b, same_field_with_other_types_on_exclusive_parents) {
  EXPECT("OverlappingFieldsCanBeMerged",
         "{ pet { ... on Dog { x: name } ... on Cat { x: meows } } }",
         "Fields \"x\" conflict because they return conflicting types "
         "\"String\" and \"Boolean\". Use different aliases on the fields to "
         "fetch both if this was intentional. @1:22,1:45\n");
}

Test(rules_b, nested_reasons_are_joined_with_and) {
  EXPECT("OverlappingFieldsCanBeMerged",
         "{ node { next { a: id b: name } } node { next { a: name b: id } } }",
         "Fields \"node\" conflict because subfields \"next\" conflict "
         "because subfields \"a\" conflict because \"id\" and \"name\" are "
         "different fields and subfields \"b\" conflict because \"name\" and "
         "\"id\" are different fields. Use different aliases on the fields to "
         "fetch both if this was intentional. "
         "@1:3,1:10,1:17,1:23,1:35,1:42,1:49,1:57\n");
}

Test(rules_b, exclusive_parents_may_differ_but_not_in_type) {
  EXPECT("OverlappingFieldsCanBeMerged",
         "{ pet { ... on Dog { len(unit: \"a\") } ... on Cat { len(unit: "
         "\"b\") } } }",
         "Fields \"len\" conflict because they return conflicting types "
         "\"Int\" and \"Float\". Use different aliases on the fields to fetch "
         "both if this was intentional. @1:22,1:52\n");
}

/* ---- the shortcuts of OverlappingFieldsCanBeMerged give graphql-js's
 * answers: random documents against the every-pair version */

/* Selections on Node; spreads only of fragments F<lo>..F<nfrags-1>, so
 * that fragment Fi spreading only later ones makes no cycle. */
static void gen_set(rng *r, gql_buf *b, int depth, int lo, int nfrags);

static void gen_selection(rng *r, gql_buf *b, int depth, int lo, int nfrags) {
  /* aliases keep to one field each, but rarely; a conflicting alias or
   * argument is rarer still */
  static const char *leaves[] = {"id",    "name",    "len", "__typename",
                                 "a: id", "b: name", "id",  "name"};
  uint32_t k = next(r, 10);
  if (k < 5 || depth > 3) {
    const char *leaf = leaves[next(r, 8)];
    if (next(r, 60) == 0)
      leaf = next(r, 2) ? "a: name" : "len(unit: \"m\")";
    gql_buf_printf(b, " %s", leaf);
  } else if (k < 8) {
    gql_buf_printf(b, " %s%s",
                   next(r, 80) ? "" : "b: ", next(r, 2) ? "next" : "nodes");
    gen_set(r, b, depth + 1, lo, nfrags);
  } else if (k < 9 && lo < nfrags) {
    gql_buf_printf(b, " ...F%u", lo + next(r, (uint32_t)(nfrags - lo)));
  } else {
    gql_buf_puts(b, " ... on Node");
    gen_set(r, b, depth + 1, lo, nfrags);
  }
}

static void gen_set(rng *r, gql_buf *b, int depth, int lo, int nfrags) {
  gql_buf_puts(b, " {");
  uint32_t n = 1 + next(r, depth == 0 ? 14 : 6);
  for (uint32_t i = 0; i < n; i++)
    gen_selection(r, b, depth, lo, nfrags);
  gql_buf_puts(b, " }");
}

Test(rules_b, overlapping_shortcuts_match_every_pair_comparison) {
  rng r = {0x9E3779B97F4A7C15ULL};
  uint32_t with_errors = 0;
  for (int iter = 0; iter < 400; iter++) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    int nfrags = (int)next(&r, 4);
    gql_buf_puts(&b, "{ node");
    gen_set(&r, &b, 0, 0, nfrags);
    gql_buf_puts(&b, " node");
    gen_set(&r, &b, 0, 0, nfrags);
    gql_buf_puts(&b, " }\n");
    for (int f = 0; f < nfrags; f++) {
      gql_buf_printf(&b, "fragment F%d on Node", f);
      gen_set(&r, &b, 1, f + 1, nfrags);
      gql_buf_putc(&b, '\n');
    }
    const char *q = gql_buf_cstr(&b);
    cr_assert(q);
    const char *fast = run("OverlappingFieldsCanBeMerged", q);
    const char *slow = run_rule(&gql_rule_OverlappingFieldsCanBeMergedNaive, q);
    cr_assert_str_eq(fast, slow, "document:\n%s", q);
    with_errors += fast[0] != 0;
    gql_buf_free(&b);
  }
  /* the generator must make both outcomes */
  cr_expect_gt(with_errors, 40, "%u", with_errors);
  cr_expect_lt(with_errors, 360, "%u", with_errors);
}

/* Many fragments, most of them look-alikes without spreads, spread many at
 * a time and from fields without other fields: the clique and empty-map
 * shortcuts against every-pair comparison. */
static void gen_fragment_body(rng *r, gql_buf *b, int f, int nfrags) {
  static const char *fields[] = {"id",          "name",
                                 "len",         "a: id",
                                 "a: name",     "len(unit: \"m\")",
                                 "next { id }", "next { name }"};
  gql_buf_puts(b, " {");
  uint32_t n = 1 + next(r, 3);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = next(r, 20);
    /* mostly the same few bodies, so that signatures repeat */
    gql_buf_printf(b, " %s", fields[k < 12 ? i % 2 : k < 19 ? k % 8 : 0]);
  }
  if (f + 1 < nfrags && next(r, 4) == 0)
    gql_buf_printf(b, " ...F%u", f + 1 + next(r, (uint32_t)(nfrags - f - 1)));
  gql_buf_puts(b, " }");
}

Test(rules_b, overlapping_fragment_shortcuts_match_every_pair_comparison) {
  rng r = {0xD1B54A32D192ED03ULL};
  uint32_t with_errors = 0;
  for (int iter = 0; iter < 150; iter++) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    int nfrags = 10 + (int)next(&r, 20);
    gql_buf_puts(&b, "{ node {");
    for (int k = 0; k < 3; k++) {
      gql_buf_puts(&b, next(&r, 2) ? " next {" : " nodes {");
      if (next(&r, 3) == 0)
        gql_buf_puts(&b, " id");
      uint32_t spreads = 9 + next(&r, 12);
      for (uint32_t i = 0; i < spreads; i++)
        gql_buf_printf(&b, " ...F%u", next(&r, (uint32_t)nfrags));
      gql_buf_puts(&b, " }");
    }
    gql_buf_puts(&b, " } }\n");
    for (int f = 0; f < nfrags; f++) {
      gql_buf_printf(&b, "fragment F%d on Node", f);
      gen_fragment_body(&r, &b, f, nfrags);
      gql_buf_putc(&b, '\n');
    }
    const char *q = gql_buf_cstr(&b);
    cr_assert(q);
    const char *fast = run("OverlappingFieldsCanBeMerged", q);
    const char *slow = run_rule(&gql_rule_OverlappingFieldsCanBeMergedNaive, q);
    cr_assert_str_eq(fast, slow, "document:\n%s", q);
    with_errors += fast[0] != 0;
    gql_buf_free(&b);
  }
  cr_expect_gt(with_errors, 15, "%u", with_errors);
  cr_expect_lt(with_errors, 135, "%u", with_errors);
}

Test(rules_b, directives_defined_in_the_document_take_precedence) {
  const char *q = "{ int @dir(zz: 1) @dir(opt: \"\") }\n"
                  "directive @dir(zz: Int, need: [Int]!) on FIELD\n";
  EXPECT("KnownArgumentNames", q,
         "Unknown argument \"opt\" on directive \"@dir\". @1:24\n");
  EXPECT("ProvidedRequiredArguments", q,
         "Directive \"@dir\" argument \"need\" of type \"[Int]!\" is "
         "required, but it was not provided. @1:7\n"
         "Directive \"@dir\" argument \"need\" of type \"[Int]!\" is "
         "required, but it was not provided. @1:19\n");
}

Test(rules_b, introspection_depth_counts_fields_not_fragment_names) {
  EXPECT("MaxIntrospectionDepth",
         "{ __schema { types { ...fields } } }\n"
         "fragment fields on __Type { fields { type { fields { name } } } }\n",
         "");
  EXPECT("MaxIntrospectionDepth",
         "{ __schema { types { ...fields } } }\n"
         "fragment fields on __Type { fields { type { inputFields { type { "
         "interfaces { name } } } } } }\n",
         "Maximum introspection depth exceeded @1:3\n");
}

Test(rules_b, one_of_check_needs_a_nullable_one_of_position_as_graphql_js) {
  /* graphql-js looks at getParentInputType(), which is "Pick!" here: not an
   * input object type, so the nullable variable passes */
  EXPECT("VariablesInAllowedPosition",
         "query Q($i: Int) { pickNN(p: {a: $i}) }", "");
  EXPECT("VariablesInAllowedPosition", "query Q($i: Int) { pick(p: {a: $i}) }",
         "Variable \"$i\" is of type \"Int\" but must be non-nullable to be "
         "used for OneOf Input Object \"Pick\". @1:9,1:32\n");
}

Test(rules_b, undefined_variables_used_twice_are_left_to_other_rules) {
  EXPECT("VariablesInAllowedPosition",
         "query Q($a: Nope, $b: Int) { int(v: $x) str(v: $x) bool(v: $b) "
         "id(v: $a) }",
         "Variable \"$b\" of type \"Int\" used in position expecting type "
         "\"Boolean\". @1:19,1:60\n");
}

Test(rules_b, many_variables_are_looked_up_by_name) {
  /* more than 16 variables take the hashed path; the last definition of a
   * repeated name wins, as graphql-js's map */
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "query Q(");
  for (int i = 0; i < 20; i++)
    gql_buf_printf(&b, "$v%d: Int, ", i);
  gql_buf_puts(&b, "$v3: Boolean) { a: int(v: $x) b: int(v: $x) "
                   "c: bool(v: $v3) d: bool(v: $v4) e: int(v: $v19) }");
  const char *q = gql_buf_cstr(&b);
  cr_assert(q);
  EXPECT("VariablesInAllowedPosition", q,
         "Variable \"$v4\" of type \"Int\" used in position expecting type "
         "\"Boolean\". @1:49,1:290\n");
  gql_buf_free(&b);
}

Test(rules_b, comparison_through_a_fragment_cycle_ends_as_in_graphql_js) {
  /* the fields-and-fragment pairs graphql-js 16.11 remembers end this
   * walk; it reports nothing (NoFragmentCycles reports the cycle) */
  EXPECT("OverlappingFieldsCanBeMerged",
         "{ node { nodes { a: nodes { ...F1 } ...F1 } } }\n"
         "fragment F1 on Node { a: nodes { a: nodes { ...F1 } } }",
         "");
}

/* The errors of all rules as text, validated in `a`; *rc gets the result. */
static const char *all_errors_in(gql_arena *a, const gql_document *doc,
                                 int *rc) {
  gql_error_list l;
  gql_error_list_init(&l, a, 0);
  *rc = gql_validate_document(schema, doc, NULL, 0, NULL, &l);
  if (*rc)
    return NULL;
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < l.count; i++) {
    gql_buf_puts(&b, l.items[i].message);
    for (uint32_t j = 0; j < l.items[i].nlocations; j++)
      gql_buf_printf(&b, " %u:%u", l.items[i].locations[j].line,
                     l.items[i].locations[j].column);
    gql_buf_putc(&b, '\n');
  }
  const char *s = gql_arena_strndup(arena, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  return s;
}

Test(rules_b, out_of_memory_gives_enomem_or_the_full_answer) {
  const char *src =
      "query Q($s: String, $i: Int, $p: Point = {y: 1}) {\n"
      "  a: int(v: 1.5) a: str(v: $s) req(a: 1, a: 2, zz: 3)\n"
      "  pick(p: {a: $i, b: null}) wrap(w: {pick: {b: $s}, pick: {a: 1}})\n"
      "  node { ...F ...G next { id } next { name: id } }\n"
      "  color(v: red) @dir(rq: 1)\n"
      "  __schema { types { fields { type { fields { type { fields { name "
      "} } } } } } }\n"
      "}\n"
      "fragment F on Node { x: id len(unit: \"m\") next { ...G } }\n"
      "fragment G on Node { x: name len next { x: len } }\n";
  gql_document *doc = parse_doc_b(src);
  int rc;
  const char *full = all_errors_in(arena, doc, &rc);
  cr_assert_eq(rc, 0);
  cr_assert_gt(strlen(full), 500);
  uint32_t failed = 0, completed = 0;
  for (size_t pad = 0; pad < 200000; pad += 173) {
    gql_arena *small = gql_arena_new(NULL);
    gql_arena_set_limit(small, 200000);
    for (size_t p = 0; p + 256 <= pad; p += 256)
      if (!gql_arena_alloc(small, 256))
        break;
    const char *got = all_errors_in(small, doc, &rc);
    cr_assert(rc == 0 || rc == GQL_ENOMEM, "rc %d", rc);
    if (rc == 0) {
      completed++;
      cr_assert_str_eq(got, full, "pad %zu", pad);
    } else {
      failed++;
    }
    gql_arena_free(small);
  }
  cr_assert_gt(completed, 0);
  cr_assert_gt(failed, 0);
}
