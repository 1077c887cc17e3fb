/* Rule cases the recorded graphql-js corpus does not cover. */
#include "helpers.h"

static const char *sdl =
    "schema { query: Query subscription: Subscription }\n"
    "directive @onField on FIELD\n"
    "directive @rep repeatable on FIELD | OBJECT\n"
    "interface Pet { id: ID }\n"
    "interface Animal { name: String }\n"
    "type Dog implements Pet & Animal { id: ID name: String barks: Boolean }\n"
    "type Cat implements Pet & Animal { id: ID name: String }\n"
    "type Bird implements Pet { id: ID name: String }\n"
    "union CatOrDog = Cat | Dog\n"
    "type Query { pet: Pet catOrDog: CatOrDog f(x: Int): Int }\n"
    "type Subscription { a: Int b: Int }\n";

static gql_schema *schema;
static gql_arena *arena;

static void setup(void) {
  schema = build_schema(sdl);
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
  gql_schema_free(schema);
}

TestSuite(rules, .init = setup, .fini = teardown);

Test(rules, executable_definitions_names_directive_and_schema_extensions) {
  gql_error_list l = validate_rule(
      arena, schema, "{ f }\nextend schema @onField\ndirective @d on FIELD\n",
      &gql_rule_ExecutableDefinitionsRule);
  cr_assert_eq(l.count, 2);
  assert_error(&l, 0, "The schema definition is not executable.", 2, 1);
  assert_error(&l, 1, "The \"d\" definition is not executable.", 3, 1);
}

Test(rules, known_directives_input_extension_fields_are_argument_definitions) {
  gql_error_list l =
      validate_rule(arena, schema,
                    "directive @inField on INPUT_FIELD_DEFINITION\n"
                    "input In { a: Int @inField }\n"
                    "extend input In { b: Int @inField }\n"
                    "query ($v: Int @onField) { f @nope }\n",
                    &gql_rule_KnownDirectivesRule);
  cr_assert_eq(l.count, 3);
  assert_error(&l, 0,
               "Directive \"@inField\" may not be used on "
               "ARGUMENT_DEFINITION.",
               3, 26);
  assert_error(&l, 1,
               "Directive \"@onField\" may not be used on "
               "VARIABLE_DEFINITION.",
               4, 16);
  assert_error(&l, 2, "Unknown directive \"@nope\".", 4, 30);
}

Test(rules, unique_directives_shared_by_a_type_and_its_extensions) {
  gql_error_list l = validate_rule(arena, schema,
                                   "{ f @onField @rep @rep @onField }\n"
                                   "directive @obj on OBJECT\n"
                                   "type T @obj @rep { a: Int }\n"
                                   "extend type T @obj @rep\n",
                                   &gql_rule_UniqueDirectivesPerLocationRule);
  cr_assert_eq(l.count, 2);
  assert_error(&l, 0,
               "The directive \"@onField\" can only be used once at this "
               "location.",
               1, 5);
  assert_error(&l, 1,
               "The directive \"@obj\" can only be used once at this "
               "location.",
               3, 8);
  cr_assert_eq(l.items[1].nlocations, 2);
  cr_assert_eq(l.items[1].locations[1].line, 4);
  cr_assert_eq(l.items[1].locations[1].column, 15);
}

Test(rules, single_field_subscription_follows_fragments_and_skip) {
  gql_error_list l =
      validate_rule(arena, schema, "subscription S { a b @skip(if: true) }",
                    &gql_rule_SingleFieldSubscriptionsRule);
  cr_assert_eq(l.count, 0, "a skipped field is not collected");
  l = validate_rule(arena, schema,
                    "subscription S { ...F ...F ... on Subscription { a } }\n"
                    "fragment F on Subscription { a b }",
                    &gql_rule_SingleFieldSubscriptionsRule);
  cr_assert_eq(l.count, 1);
  assert_error(
      &l, 0, "Subscription \"S\" must select only one top level field.", 2, 32);
  l = validate_rule(arena, schema, "subscription { __typename }",
                    &gql_rule_SingleFieldSubscriptionsRule);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0,
               "Anonymous Subscription must not select an introspection top "
               "level field.",
               1, 16);
}

Test(rules, fields_on_correct_type_suggests_common_interfaces_first) {
  gql_error_list l =
      validate_rule(arena, schema, "{ pet { name } catOrDog { nme id } }",
                    &gql_rule_FieldsOnCorrectTypeRule);
  cr_assert_eq(l.count, 3);
  assert_error(&l, 0,
               "Cannot query field \"name\" on type \"Pet\". Did you mean to "
               "use an inline fragment on \"Animal\", \"Bird\", \"Cat\", or "
               "\"Dog\"?",
               1, 9);
  assert_error(&l, 1, "Cannot query field \"nme\" on type \"CatOrDog\".", 1,
               27);
  assert_error(&l, 2,
               "Cannot query field \"id\" on type \"CatOrDog\". Did you mean "
               "to use an inline fragment on \"Pet\", \"Cat\", or \"Dog\"?",
               1, 31);
}

Test(rules, known_type_names_in_sdl_accept_standard_types) {
  gql_schema *bare = build_schema("type Query { f: Int }");
  gql_error_list l =
      validate_rule(arena, bare,
                    "type Foo { a: ID b: __Type c: Strin }\n"
                    "query ($a: Strin, $b: Foo, $c: [ID!]) { f }",
                    &gql_rule_KnownTypeNamesRule);
  /* ID is not in this schema: known in SDL (a standard name), unknown in
   * the operation; Foo is defined by the document */
  cr_assert_eq(l.count, 3);
  assert_error(&l, 0, "Unknown type \"Strin\". Did you mean \"String\"?", 1,
               31);
  assert_error(&l, 1, "Unknown type \"Strin\". Did you mean \"String\"?", 2,
               12);
  assert_error(&l, 2, "Unknown type \"ID\".", 2, 33);
  gql_schema_free(bare);
}

Test(rules, variables_through_fragments_defined_and_used) {
  gql_error_list l = validate_with(
      arena, schema,
      "query Q($a: Int, $unused: Int) { ...F }\n"
      "fragment F on Query { f(x: $a) g: f(x: $b) }",
      (const gql_vrule *const[]){&gql_rule_NoUndefinedVariablesRule,
                                 &gql_rule_NoUnusedVariablesRule},
      2);
  cr_assert_eq(l.count, 2);
  assert_error(&l, 0, "Variable \"$b\" is not defined by operation \"Q\".", 2,
               40);
  cr_assert_eq(l.items[0].nlocations, 2);
  cr_assert_eq(l.items[0].locations[1].column, 1);
  assert_error(&l, 1, "Variable \"$unused\" is never used in operation \"Q\".",
               1, 18);
}

Test(rules, unique_variable_names_lists_every_duplicate) {
  gql_error_list l = validate_rule(
      arena, schema, "query ($a: Int, $b: Int, $a: Int, $a: ID) { f }",
      &gql_rule_UniqueVariableNamesRule);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0, "There can be only one variable named \"$a\".", 1, 9);
  cr_assert_eq(l.items[0].nlocations, 3);
  cr_assert_eq(l.items[0].locations[1].column, 27);
  cr_assert_eq(l.items[0].locations[2].column, 36);
}

Test(rules, fragment_spreading_itself) {
  gql_error_list l = validate_rule(arena, schema,
                                   "fragment A on Query { ...A f ...B }\n"
                                   "fragment B on Query { ...A }",
                                   &gql_rule_NoFragmentCyclesRule);
  cr_assert_eq(l.count, 2);
  assert_error(&l, 0, "Cannot spread fragment \"A\" within itself.", 1, 23);
  assert_error(&l, 1, "Cannot spread fragment \"A\" within itself via \"B\".",
               1, 30);
  cr_assert_eq(l.items[1].nlocations, 2);
}

Test(rules, all_rules_report_in_rule_order_per_node) {
  gql_error_list l =
      validate_with(arena, schema, "{ pet { nope } ...Missing }\n", NULL, 0);
  cr_assert_eq(l.count, 2);
  assert_error(&l, 0, "Cannot query field \"nope\" on type \"Pet\".", 1, 9);
  assert_error(&l, 1, "Unknown fragment \"Missing\".", 1, 19);
}
