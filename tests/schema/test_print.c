#include "helpers.h"

static void expect_print(const char *sdl, const char *want) {
  char *got = print_of(sdl);
  cr_assert_str_eq(got, want);
  free(got);
}

Test(print_schema, descriptions_of_fields_and_args_as_graphql_js) {
  expect_print("\"A type\"\n"
               "type Query {\n"
               "  \"one\"\n  a: Int\n"
               "  \"two\"\n  b(\"arg desc\" x: Int, y: Int): Int\n"
               "}",
               "\"\"\"A type\"\"\"\n"
               "type Query {\n"
               "  \"\"\"one\"\"\"\n  a: Int\n\n"
               "  \"\"\"two\"\"\"\n  b(\n"
               "    \"\"\"arg desc\"\"\"\n    x: Int\n    y: Int\n  ): Int\n"
               "}");
}

Test(print_schema, long_and_unprintable_descriptions) {
  expect_print("\"" /* 71 characters */
               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
               "aaaaaaaa\"\ntype Query {\n  \"\\nstarts with a newline\"\n"
               "  a: Int\n  \"multi\\nline\"\n  b: Int\n}",
               "\"\"\"\n"
               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
               "aaaaaaaa\n\"\"\"\ntype Query {\n"
               "  \"\\nstarts with a newline\"\n  a: Int\n\n"
               "  \"\"\"\n  multi\n  line\n  \"\"\"\n  b: Int\n}");
}

Test(print_schema, default_values_are_coerced_then_printed) {
  expect_print(
      "enum E { A B }\n"
      "input In { a: Int = 5, b: Int, c: String }\n"
      "type Query {\n"
      "  f(a: Float = 1.0, b: [Int] = 1, c: ID = \"12\", d: ID = \"ab\",\n"
      "    e: String = \"\"\"x\"\"\", g: E = A, h: In = {b: 2},\n"
      "    i: Int = \"x\", j: Float = 1.5e3, k: Float = 1e21,\n"
      "    l: Float = 0.0000001, m: [E] = [A, B]): Int\n"
      "}",
      "enum E {\n  A\n  B\n}\n\n"
      "input In {\n  a: Int = 5\n  b: Int\n  c: String\n}\n\n"
      "type Query {\n"
      "  f(a: Float = 1, b: [Int] = [1], c: ID = 12, d: ID = \"ab\", "
      "e: String = \"x\", g: E = A, h: In = {a: 5, b: 2}, i: Int, "
      "j: Float = 1500, k: Float = 1e+21, l: Float = 1e-7, "
      "m: [E] = [A, B]): Int\n"
      "}");
}

Test(print_schema, deprecation_and_specified_by) {
  expect_print("type Query {\n  a: Int @deprecated\n"
               "  b: Int @deprecated(reason: \"No longer supported\")\n"
               "  c: Int @deprecated(reason: \"use \\\"d\\\"\")\n}\n"
               "scalar Url @specifiedBy(url: \"https://x.y/z\")\n"
               "enum E { A @deprecated(reason: \"\") }",
               "type Query {\n  a: Int @deprecated\n  b: Int @deprecated\n"
               "  c: Int @deprecated(reason: \"use \\\"d\\\"\")\n}\n\n"
               "scalar Url @specifiedBy(url: \"https://x.y/z\")\n\n"
               "enum E {\n  A @deprecated(reason: \"\")\n}");
}

Test(print_schema, schema_definition_only_when_names_are_not_conventional) {
  expect_print("schema { query: Query } type Query { a: Int }",
               "type Query {\n  a: Int\n}");
  expect_print("schema { query: Root mutation: Mutation }\n"
               "type Root { a: Int } type Mutation { b: Int }",
               "schema {\n  query: Root\n  mutation: Mutation\n}\n\n"
               "type Root {\n  a: Int\n}\n\ntype Mutation {\n  b: Int\n}");
  expect_print("\"The schema\" schema { query: Query } type Query { a: Int }",
               "\"\"\"The schema\"\"\"\nschema {\n  query: Query\n}\n\n"
               "type Query {\n  a: Int\n}");
}

Test(print_schema, directives_keep_declared_location_order) {
  expect_print("\"d\" directive @d(a: Int = 1, b: [String!]!) repeatable on "
               "FIELD | QUERY | ENUM_VALUE\n"
               "directive @skip(if: Boolean!) on FIELD\n"
               "type Query { a: Int }",
               "\"\"\"d\"\"\"\ndirective @d(a: Int = 1, b: [String!]!) "
               "repeatable on FIELD | QUERY | ENUM_VALUE\n\n"
               "type Query {\n  a: Int\n}");
}

Test(print_schema, every_kind_with_interfaces_and_one_of) {
  expect_print("type Query implements I & J { a: Int }\n"
               "interface I { a: Int }\ninterface J implements I { a: Int }\n"
               "union U = Query\ninput O @oneOf { x: Int y: String }\n"
               "scalar S\n",
               "type Query implements I & J {\n  a: Int\n}\n\n"
               "interface I {\n  a: Int\n}\n\n"
               "interface J implements I {\n  a: Int\n}\n\n"
               "union U = Query\n\n"
               "input O @oneOf {\n  x: Int\n  y: String\n}\n\n"
               "scalar S");
}

Test(print_schema, builtin_scalars_are_omitted_even_when_redefined) {
  expect_print("scalar String\ntype Query { a: String b: Int }",
               "type Query {\n  a: String\n  b: Int\n}");
}

Test(print_schema, block_string_edge_cases) {
  expect_print(
      "\"ends with a quote\\\"\"\ntype Query { a: Int }",
      "\"\"\"\nends with a quote\"\n\"\"\"\ntype Query {\n  a: Int\n}");
  expect_print("\"has \\\"\\\"\\\" inside\"\ntype Query { a: Int }",
               "\"\"\"has \\\"\"\" inside\"\"\"\ntype Query {\n  a: Int\n}");
  expect_print("\" starts with space\"\ntype Query { a: Int }",
               "\"\"\" starts with space\"\"\"\ntype Query {\n  a: Int\n}");
  expect_print("\"tab\\there\\u0001\"\ntype Query { a: Int }",
               "\"tab\\there\\u0001\"\ntype Query {\n  a: Int\n}");
}
