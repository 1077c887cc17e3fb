/* The type-system checks of graphql-js validateSchema (no recorded cases
 * cover them, so each message is pinned here). */
#include "helpers.h"

static void expect(const char *sdl, const char *want) {
  char *got = build_errors(sdl, NULL);
  cr_assert_str_eq(got, want);
  free(got);
}

Test(validate_schema, query_root_type_must_be_provided) {
  expect("type Foo { a: Int }", " Query root type must be provided.\n");
  expect("schema { mutation: M } type M { a: Int }",
         "1:1 Query root type must be provided.\n");
}

Test(validate_schema, root_types_must_be_objects) {
  expect("schema { query: I mutation: In }\n"
         "interface I { a: Int } input In { a: Int }",
         "1:17 Query root type must be Object type, it cannot be I.\n"
         "1:29 Mutation root type must be Object type if provided, it cannot "
         "be In.\n");
}

Test(validate_schema, names_must_not_start_with_two_underscores) {
  expect("type Query { __a(__b: Int): Int }\ntype __T { a: Int }\n"
         "directive @__d on FIELD",
         "3:1 Name \"__d\" must not begin with \"__\", which is reserved by "
         "GraphQL introspection.\n"
         "1:14 Name \"__a\" must not begin with \"__\", which is reserved by "
         "GraphQL introspection.\n"
         "1:18 Name \"__b\" must not begin with \"__\", which is reserved by "
         "GraphQL introspection.\n"
         "2:1 Name \"__T\" must not begin with \"__\", which is reserved by "
         "GraphQL introspection.\n");
}

Test(validate_schema, fields_need_output_types_and_args_input_types) {
  expect("type Query { a: In b(x: Query): Int }\ninput In { q: Query }",
         "1:17 The type of Query.a must be Output Type but got: In.\n"
         "1:25 The type of Query.b(x:) must be Input Type but got: Query.\n"
         "2:15 The type of In.q must be Input Type but got: Query.\n");
}

Test(validate_schema, empty_types_are_reported_with_extensions) {
  gql_schema_build_options o = {0};
  char *got = build_errors("type Query { a: Int }\ntype E\nextend type E @t\n"
                           "union U\nenum En\ninput I\n"
                           "directive @t on OBJECT",
                           &o);
  cr_assert_str_eq(got,
                   "2:1,3:1 Type E must define one or more fields.\n"
                   "4:1 Union type U must define one or more member types.\n"
                   "5:1 Enum type En must define one or more values.\n"
                   "6:1 Input Object type I must define one or more fields.\n");
  free(got);
}

Test(validate_schema, interface_implementation_is_checked) {
  expect("type Query implements I { a: String b(x: String): Int c(y: Int!, "
         "z: Int): Int }\n"
         "interface I { a: Int b(x: Int): Int c: Int d: Int }",
         "2:18,1:30 Interface field I.a expects type Int but Query.a is type "
         "String.\n"
         "2:27,1:42 Interface field argument I.b(x:) expects type Int but "
         "Query.b(x:) is type String.\n"
         "1:57,2:37 Object field Query.c includes required argument y that is "
         "missing from the Interface field I.c.\n"
         "2:44,1:1 Interface field I.d expected but Query does not provide "
         "it.\n");
}

Test(validate_schema, missing_interface_argument_is_reported) {
  expect("type Query implements I { a: Int }\ninterface I { a(x: Int): Int }",
         "2:17,1:27 Interface field argument I.a(x:) expected but Query.a "
         "does not provide it.\n");
}

Test(validate_schema, covariant_field_types_are_allowed) {
  gql_schema *s = build_ok("type Query implements I { a: Query! b: [Query] }\n"
                           "interface I { a: I b: [I] }");
  gql_schema_free(s);
}

Test(validate_schema, transitive_interfaces_must_be_declared) {
  expect("type Query implements B { a: Int }\n"
         "interface A { a: Int }\ninterface B implements A { a: Int }",
         "3:24,1:23 Type Query must implement A because it is implemented by "
         "B.\n");
}

Test(validate_schema, interface_cycles_and_self_implementation) {
  expect("type Query { a: Int }\ninterface A implements A { a: Int }",
         "2:24 Type A cannot implement itself because it would create a "
         "circular reference.\n");
  expect("type Query { a: Int }\ninterface A implements B { a: Int }\n"
         "interface B implements A { a: Int }",
         "3:24,2:24 Type A cannot implement B because it would create a "
         "circular reference.\n"
         "2:24,3:24 Type B cannot implement A because it would create a "
         "circular reference.\n");
}

Test(validate_schema, implementing_non_interfaces_and_twice) {
  expect("type Query implements I & I & Query { a: Int }\n"
         "interface I { a: Int }",
         "1:23,1:27 Type Query can only implement I once.\n"
         "1:31 Type Query must only implement Interface types, it cannot "
         "implement Query.\n");
}

Test(validate_schema, union_members_are_unique_objects) {
  expect("type Query { a: Int }\ninterface I { a: Int }\n"
         "union U = Query | I | Query",
         "3:19 Union type U can only include Object types, it cannot include "
         "I.\n"
         "3:11,3:23 Union type U can only include type Query once.\n");
}

Test(validate_schema,
     required_arguments_and_input_fields_cannot_be_deprecated) {
  expect("type Query { a(x: Int! @deprecated): Int }\n"
         "input In { f: Int! @deprecated g: Int! = 1 @deprecated }\n"
         "directive @d(x: Int! @deprecated) on FIELD",
         "3:22,3:17 Required argument @d(x:) cannot be deprecated.\n"
         "1:24,1:19 Required argument Query.a(x:) cannot be deprecated.\n"
         "2:20,2:15 Required input field In.f cannot be deprecated.\n");
}

Test(validate_schema, one_of_fields_are_nullable_without_defaults) {
  expect("type Query { a(i: In): Int }\n"
         "input In @oneOf { a: Int! b: Int = 1 c: Int }",
         "2:22 OneOf input field In.a must be nullable.\n"
         "2:27 OneOf input field In.b cannot have a default value.\n");
}

Test(validate_schema, input_cycles_through_non_null_fields) {
  expect("type Query { a(i: A): Int }\n"
         "input A { b: B! ok: A }\ninput B { c: C! }\ninput C { a: A! }",
         "2:11,3:11,4:11 Cannot reference Input Object \"A\" within itself "
         "through a series of non-null fields: \"b.c.a\".\n");
  gql_schema *s = build_ok("type Query { a(i: A): Int }\n"
                           "input A { self: A list: [A!]! }");
  gql_schema_free(s);
}

Test(validate_schema, errors_in_an_extension_point_into_its_own_text) {
  gql_schema *base = build_ok("type Query { a: Int }\ninterface I { x: Int }");
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errors = {.arena = a};
  gql_schema *s;
  const char *ext = "\n\nextend type Query implements I";
  cr_assert_eq(gql_schema_extend(base, ext, strlen(ext), NULL, &s, &errors),
               GQL_ESCHEMA);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "Interface field I.x expected but Query does not provide "
                   "it.");
  cr_assert_eq(errors.items[0].nlocations, 3);
  cr_assert_eq(errors.items[0].locations[0].line, 2); /* I.x in the base */
  cr_assert_eq(errors.items[0].locations[0].column, 15);
  cr_assert_eq(errors.items[0].locations[1].line, 1); /* Query in the base */
  cr_assert_eq(errors.items[0].locations[2].line, 3); /* the extension */
  cr_assert_eq(errors.items[0].locations[2].column, 1);
  gql_arena_free(a);
  gql_schema_free(base);
}
