/* The printer against graphql-js 16's print(): exact output for documents
 * parsed from strings, for hand-built nodes, and for the string printers. */
#include "language/ast.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
  cr_assert(arena);
}

static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(printer, .init = setup, .fini = teardown);

/* print(parse(src)) */
static const char *pp(const char *src) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(arena, src, strlen(src), NULL, &doc, &err);
  cr_assert_eq(rc, 0, "parse failed (%d): %s\nin: %s", rc,
               err.message ? err.message : "", src);
  const char *out = NULL;
  size_t len = 0;
  cr_assert_eq(gql_print(arena, doc, &out, &len), 0);
  cr_assert_eq(strlen(out), len);
  return out;
}

/* Asserts print(parse(src)) == want and that printing is idempotent. */
static void expect_print(const char *src, const char *want) {
  const char *got = pp(src);
  cr_assert_str_eq(got, want, "\n--- got:\n%s\n--- want:\n%s", got, want);
  const char *again = pp(got);
  cr_assert_str_eq(again, got, "not idempotent:\n%s\n---\n%s", got, again);
}

static char *buf_take(gql_buf *b) {
  const char *s = gql_buf_cstr(b);
  cr_assert(s);
  char *copy = gql_arena_strndup(arena, s, b->len);
  gql_buf_free(b);
  return copy;
}

static char *block_string(const char *value) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_block_string(&b, gql_cstr(value));
  return buf_take(&b);
}

static char *quoted(const char *value, size_t len) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_string(&b, gql_str_from(value, len));
  return buf_take(&b);
}

/* ---------------------------------------------------------------- strings */

Test(printer, string_prints_plain_text_in_quotes) {
  cr_assert_str_eq(quoted("hello world", 11), "\"hello world\"");
  cr_assert_str_eq(quoted("who's test", 10), "\"who's test\"");
  cr_assert_str_eq(quoted(" ", 1), "\" \"");
  cr_assert_str_eq(quoted("", 0), "\"\"");
}

Test(printer, string_escapes_quotes_and_backslashes) {
  cr_assert_str_eq(quoted("\"hello world\"", 13), "\"\\\"hello world\\\"\"");
  cr_assert_str_eq(quoted("escape: \\", 9), "\"escape: \\\\\"");
}

Test(printer, string_escapes_well_known_control_chars_short) {
  cr_assert_str_eq(quoted("\b\f\n\r\t", 5), "\"\\b\\f\\n\\r\\t\"");
}

Test(printer, string_escapes_other_controls_as_uppercase_u_escapes) {
  cr_assert_str_eq(quoted("\0", 1), "\"\\u0000\"");
  cr_assert_str_eq(quoted("\x0b\x0e\x1a\x1f", 4),
                   "\"\\u000B\\u000E\\u001A\\u001F\"");
  cr_assert_str_eq(quoted("\x7f", 1), "\"\\u007F\"");
  /* C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F) */
  cr_assert_str_eq(quoted("a\xc2\x80"
                          "b\xc2\x9f",
                          6),
                   "\"a\\u0080b\\u009F\"");
}

Test(printer, string_keeps_non_ascii_characters_raw) {
  /* U+00A0 (C2 A0) is past the C1 range; U+21BB; U+1F600 */
  cr_assert_str_eq(quoted("\xc2\xa0", 2), "\"\xc2\xa0\"");
  cr_assert_str_eq(quoted("\xe2\x86\xbb", 3), "\"\xe2\x86\xbb\"");
  cr_assert_str_eq(quoted("\xf0\x9f\x98\x80", 4), "\"\xf0\x9f\x98\x80\"");
}

Test(printer, string_escapes_every_control_char_like_graphql_js) {
  char in[0x80 + 2 * 0x20];
  size_t n = 0;
  for (int c = 0; c < 0x80; c++)
    in[n++] = (char)c;
  for (int c = 0x80; c < 0xA0; c++) {
    in[n++] = (char)0xC2;
    in[n++] = (char)c;
  }
  const char *want =
      "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
      "\\b\\t\\n\\u000B\\f\\r\\u000E\\u000F"
      "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
      "\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F"
      " !\\\"#$%&'()*+,-./0123456789:;<=>?"
      "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_"
      "`abcdefghijklmnopqrstuvwxyz{|}~\\u007F"
      "\\u0080\\u0081\\u0082\\u0083\\u0084\\u0085\\u0086\\u0087"
      "\\u0088\\u0089\\u008A\\u008B\\u008C\\u008D\\u008E\\u008F"
      "\\u0090\\u0091\\u0092\\u0093\\u0094\\u0095\\u0096\\u0097"
      "\\u0098\\u0099\\u009A\\u009B\\u009C\\u009D\\u009E\\u009F\"";
  cr_assert_str_eq(quoted(in, n), want);
}

/* ---------------------------------------------------------- block strings */

Test(printer, block_string_does_not_escape_characters) {
  const char *s = "\" \\ / \b \f \n \r \t";
  char want[64];
  snprintf(want, sizeof want, "\"\"\"\n%s\n\"\"\"", s);
  cr_assert_str_eq(block_string(s), want);
}

Test(printer, block_string_single_line_stays_on_one_line) {
  cr_assert_str_eq(block_string("one liner"), "\"\"\"one liner\"\"\"");
  cr_assert_str_eq(block_string(""), "\"\"\"\"\"\"");
}

Test(printer, block_string_ending_with_triple_quote_is_escaped_multiline) {
  cr_assert_str_eq(block_string("triple quotation \"\"\""),
                   "\"\"\"\ntriple quotation \\\"\"\"\n\"\"\"");
}

Test(printer, block_string_escapes_every_triple_quote) {
  cr_assert_str_eq(block_string("a \"\"\" b \"\"\"\" c"),
                   "\"\"\"a \\\"\"\" b \\\"\"\"\" c\"\"\"");
  /* four quotes at the end: the escape covers the first three, so the
   * value ends with a plain quote and gets a trailing newline only */
  cr_assert_str_eq(block_string("x\"\"\"\""), "\"\"\"\nx\\\"\"\"\"\n\"\"\"");
}

Test(printer, block_string_single_line_with_leading_space_keeps_first_line) {
  cr_assert_str_eq(block_string("    space-led string"),
                   "\"\"\"    space-led string\"\"\"");
  cr_assert_str_eq(block_string("\ttab-led"), "\"\"\"\ttab-led\"\"\"");
}

Test(printer, block_string_leading_space_and_trailing_quote) {
  cr_assert_str_eq(block_string("    space-led value \"quoted string\""),
                   "\"\"\"    space-led value \"quoted string\"\n\"\"\"");
}

Test(printer, block_string_trailing_backslash_forces_newlines) {
  cr_assert_str_eq(block_string("backslash \\"),
                   "\"\"\"\nbackslash \\\n\"\"\"");
}

Test(printer, block_string_trailing_quote_forces_newlines) {
  cr_assert_str_eq(block_string("say \"hi\""), "\"\"\"\nsay \"hi\"\n\"\"\"");
}

Test(printer, block_string_multi_line_with_internal_indent) {
  cr_assert_str_eq(block_string("no indent\n with indent"),
                   "\"\"\"\nno indent\n with indent\n\"\"\"");
}

Test(printer, block_string_with_first_line_indentation) {
  cr_assert_str_eq(
      block_string("    first  \n  line     \nindentation\n     string"),
      "\"\"\"\n    first  \n  line     \nindentation\n     string\n\"\"\"");
}

Test(printer,
     block_string_whose_later_lines_are_indented_gets_leading_newline) {
  /* every line after the first starts with white space or is empty */
  cr_assert_str_eq(block_string("first\n  second\n\n\tthird"),
                   "\"\"\"\nfirst\n  second\n\n\tthird\n\"\"\"");
  /* single line with leading space but longer than 70: the leading
   * newline is skipped (it would eat the space), the trailing one is not */
  char s[75];
  memset(s, 'a', 74);
  s[0] = s[1] = ' ';
  s[74] = 0;
  char want[128];
  snprintf(want, sizeof want, "\"\"\"%s\n\"\"\"", s);
  cr_assert_str_eq(block_string(s), want);
}

Test(printer, block_string_longer_than_70_units_is_multiline) {
  char s70[71], s71[72];
  memset(s70, 'a', 70);
  s70[70] = 0;
  memset(s71, 'a', 71);
  s71[71] = 0;
  char want[128];
  snprintf(want, sizeof want, "\"\"\"%s\"\"\"", s70);
  cr_assert_str_eq(block_string(s70), want);
  snprintf(want, sizeof want, "\"\"\"\n%s\n\"\"\"", s71);
  cr_assert_str_eq(block_string(s71), want);
  /* 70 two-byte characters are 70 UTF-16 units: still one line */
  char e70[141];
  for (int i = 0; i < 70; i++) {
    e70[2 * i] = (char)0xC3;
    e70[2 * i + 1] = (char)0xA9;
  }
  e70[140] = 0;
  char want2[160];
  snprintf(want2, sizeof want2, "\"\"\"%s\"\"\"", e70);
  cr_assert_str_eq(block_string(e70), want2);
  /* 36 astral characters are 72 UTF-16 units: multi-line */
  char emoji[36 * 4 + 1];
  for (int i = 0; i < 36; i++)
    memcpy(emoji + 4 * i, "\xf0\x9f\x98\x80", 4);
  emoji[144] = 0;
  char want3[160];
  snprintf(want3, sizeof want3, "\"\"\"\n%s\n\"\"\"", emoji);
  cr_assert_str_eq(block_string(emoji), want3);
}

/* ------------------------------------------------------ hand-built nodes */

static gql_ast_name name_of(const char *s) {
  return (gql_ast_name){s, (uint32_t)strlen(s), 0};
}

static void *node(size_t size, gql_ast_kind kind) {
  gql_ast_node *n = gql_arena_alloc(arena, size);
  cr_assert(n);
  memset(n, 0, size);
  n->kind = (uint8_t)kind;
  return n;
}

static gql_ast_value *int_value(const char *raw) {
  gql_ast_value *v = node(sizeof *v, GQL_AST_INT_VALUE);
  v->u.raw = gql_cstr(raw);
  return v;
}

static char *print_node(const gql_ast_node *n) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_node(&b, n);
  return buf_take(&b);
}

Test(printer, minimal_field_node_prints_its_name) {
  gql_ast_selection *f = node(sizeof *f, GQL_AST_FIELD);
  f->name = name_of("foo");
  cr_assert_str_eq(print_node(&f->h), "foo");
}

Test(printer, hand_built_field_arguments_wrap_past_80_columns) {
  gql_ast_selection *f = node(sizeof *f, GQL_AST_FIELD);
  f->alias = name_of("alias");
  f->name = name_of("field");
  static const char *names[] = {"argumentNumber1", "argumentNumber2",
                                "argumentNumbr3", "argumentNumber4"};
  gql_ast_argument **args = gql_arena_alloc(arena, 4 * sizeof *args);
  for (int i = 0; i < 4; i++) {
    args[i] = node(sizeof **args, GQL_AST_ARGUMENT);
    args[i]->name = name_of(names[i]);
    args[i]->value = int_value("1000");
  }
  f->args.items = args;
  f->args.count = 3;
  const char *one_line = "alias: field(argumentNumber1: 1000, argumentNumber2: "
                         "1000, argumentNumbr3: 1000)";
  cr_assert_eq(strlen(one_line), 80);
  cr_assert_str_eq(print_node(&f->h), one_line);
  f->args.count = 4;
  cr_assert_str_eq(print_node(&f->h), "alias: field(\n"
                                      "  argumentNumber1: 1000\n"
                                      "  argumentNumber2: 1000\n"
                                      "  argumentNumbr3: 1000\n"
                                      "  argumentNumber4: 1000\n"
                                      ")");
}

Test(printer, empty_document_prints_empty_string) {
  gql_document *doc = node(sizeof *doc, GQL_AST_DOCUMENT);
  const char *out = NULL;
  size_t len = 99;
  cr_assert_eq(gql_print(arena, doc, &out, &len), 0);
  cr_assert_str_eq(out, "");
  cr_assert_eq(len, 0);
}

Test(printer, print_rejects_missing_arguments) {
  const char *out;
  cr_assert_eq(gql_print(arena, NULL, &out, NULL), GQL_EINVAL);
  gql_document *doc = node(sizeof *doc, GQL_AST_DOCUMENT);
  cr_assert_eq(gql_print(NULL, doc, &out, NULL), GQL_EINVAL);
  cr_assert_eq(gql_print(arena, doc, NULL, NULL), GQL_EINVAL);
}

Test(printer, deep_hand_built_list_type_prints_all_wrappers) {
  gql_ast_type *t = node(sizeof *t, GQL_AST_NAMED_TYPE);
  t->name = name_of("T");
  for (int i = 0; i < 200; i++) {
    gql_ast_type *w =
        node(sizeof *w, i % 2 ? GQL_AST_NON_NULL_TYPE : GQL_AST_LIST_TYPE);
    w->of = t;
    t = w;
  }
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_type(&b, t);
  char *s = buf_take(&b);
  cr_assert_eq(strlen(s), 1 + 100 * 3);
  cr_assert_eq(strncmp(s, "[[[", 3), 0);
  cr_assert_eq(s[100], 'T');
  cr_assert_str_eq(s + strlen(s) - 4, "]!]!");
}

Test(printer, schema_coordinates_print_in_every_form) {
  gql_ast_schema_coordinate *c = node(sizeof *c, GQL_AST_SCHEMA_COORDINATE);
  c->name = name_of("Type");
  cr_assert_str_eq(print_node(&c->h), "Type");
  c->member = name_of("field");
  cr_assert_str_eq(print_node(&c->h), "Type.field");
  c->argument = name_of("arg");
  cr_assert_str_eq(print_node(&c->h), "Type.field(arg:)");
  c->directive = true;
  c->member = (gql_ast_name){0};
  c->name = name_of("deprecated");
  cr_assert_str_eq(print_node(&c->h), "@deprecated(arg:)");
  c->argument = (gql_ast_name){0};
  cr_assert_str_eq(print_node(&c->h), "@deprecated");
}

/* ------------------------------------------------ executable documents */

Test(printer, anonymous_query_prints_as_shorthand) {
  expect_print("query { id, name }", "{\n  id\n  name\n}");
  expect_print("{ id }", "{\n  id\n}");
}

Test(printer, anonymous_non_query_operations_keep_their_keyword) {
  expect_print("mutation { id, name }", "mutation {\n  id\n  name\n}");
  expect_print("subscription { id }", "subscription {\n  id\n}");
}

Test(printer, anonymous_query_with_variables_or_directives_keeps_keyword) {
  expect_print("query ($foo: TestType) @testDirective { id, name }",
               "query ($foo: TestType) @testDirective {\n  id\n  name\n}");
  expect_print("mutation ($foo: TestType) @testDirective { id, name }",
               "mutation ($foo: TestType) @testDirective {\n  id\n  name\n}");
  expect_print("query @d { id }", "query @d {\n  id\n}");
}

Test(printer, named_query_keeps_keyword_and_name) {
  expect_print("query Q { id }", "query Q {\n  id\n}");
  expect_print("query Q($a: [Int!]! = [1], $b: String) { id }",
               "query Q($a: [Int!]! = [1], $b: String) {\n  id\n}");
}

Test(printer, variable_definitions_print_defaults_and_directives) {
  expect_print(
      "query ($foo: TestType = {a: 123} @testDirective(if: true) @test) { id }",
      "query ($foo: TestType = {a: 123} @testDirective(if: true) @test) {\n"
      "  id\n}");
}

Test(printer, arguments_stay_on_one_line_up_to_80_columns) {
  expect_print("{trip(wheelchair:false arriveBy:false){dateTime}}",
               "{\n  trip(wheelchair: false, arriveBy: false) {\n"
               "    dateTime\n  }\n}");
}

Test(printer, arguments_go_one_per_line_past_80_columns) {
  expect_print("{trip(wheelchair:false arriveBy:false "
               "includePlannedCancellations:true "
               "transitDistanceReluctance:2000){dateTime}}",
               "{\n"
               "  trip(\n"
               "    wheelchair: false\n"
               "    arriveBy: false\n"
               "    includePlannedCancellations: true\n"
               "    transitDistanceReluctance: 2000\n"
               "  ) {\n"
               "    dateTime\n"
               "  }\n"
               "}");
}

/* A string argument of n copies of `unit` in f(s: "..."): 8 + n units. */
static char *long_field(const char *unit, int n) {
  size_t u = strlen(unit);
  char *s = gql_arena_alloc(arena, 32 + u * (size_t)n);
  char *p = s + sprintf(s, "{f(s: \"");
  for (int i = 0; i < n; i++, p += u)
    memcpy(p, unit, u);
  strcpy(p, "\")}");
  return s;
}

Test(printer, line_length_counts_utf16_units_not_bytes) {
  /* f(s: "é x 72") is 80 UTF-16 units (152 bytes): one line */
  const char *got = pp(long_field("\xc3\xa9", 72));
  cr_assert_eq(strncmp(got, "{\n  f(s: \"", 10), 0, "%s", got);
  /* 73 of them: 81 units, wrapped */
  got = pp(long_field("\xc3\xa9", 73));
  cr_assert_eq(strncmp(got, "{\n  f(\n    s: \"", 15), 0, "%s", got);
  /* an astral character counts two: 36 make 80 units, 37 make 82 */
  got = pp(long_field("\xf0\x9f\x98\x80", 36));
  cr_assert_eq(strncmp(got, "{\n  f(s: \"", 10), 0, "%s", got);
  got = pp(long_field("\xf0\x9f\x98\x80", 37));
  cr_assert_eq(strncmp(got, "{\n  f(\n    s: \"", 15), 0, "%s", got);
}

Test(printer, line_length_ignores_enclosing_indentation) {
  /* The argument line with a multi-line block string is exactly 80 units
   * when unindented; the two levels of indentation added to its newlines
   * must not count. */
  char a40[41], a41[42];
  memset(a40, 'a', 40);
  a40[40] = 0;
  memset(a41, 'a', 41);
  a41[41] = 0;
  char src[256], want[512];
  snprintf(src, sizeof src,
           "{ a { f(x: \"\"\"\nmulti\nline\n\"\"\", y: 1, long: \"%s\") } }",
           a40);
  snprintf(want, sizeof want,
           "{\n  a {\n    f(x: \"\"\"\n    multi\n    line\n    \"\"\", y: 1, "
           "long: \"%s\")\n  }\n}",
           a40);
  expect_print(src, want);
  snprintf(src, sizeof src,
           "{ a { f(x: \"\"\"\nmulti\nline\n\"\"\", y: 1, long: \"%s\") } }",
           a41);
  snprintf(want, sizeof want,
           "{\n  a {\n    f(\n      x: \"\"\"\n      multi\n      line\n"
           "      \"\"\"\n      y: 1\n      long: \"%s\"\n    )\n  }\n}",
           a41);
  expect_print(src, want);
}

Test(printer, aliases_directives_and_nested_selections) {
  expect_print("{ a: b(c: 1) @skip(if: $x) @other { d e: f } }",
               "{\n  a: b(c: 1) @skip(if: $x) @other {\n    d\n    e: f\n"
               "  }\n}");
}

Test(printer, fragments_spreads_and_inline_fragments) {
  expect_print("{ ...F @d ... on T @e { a } ... @f { b } ... { c } }",
               "{\n  ...F @d\n  ... on T @e {\n    a\n  }\n  ... @f {\n"
               "    b\n  }\n  ... {\n    c\n  }\n}");
  expect_print("fragment F on T @d { a }", "fragment F on T @d {\n  a\n}");
  expect_print("fragment F on T { a }", "fragment F on T {\n  a\n}");
}

Test(printer, values_of_every_kind) {
  expect_print("{ f(a: 1, b: -1.5e3, c: \"s\", d: true, e: false, g: null, "
               "h: ENUM, i: [1, [2]], j: {k: {l: $v}}, m: [], n: {}) }",
               "{\n  f(\n    a: 1\n    b: -1.5e3\n    c: \"s\"\n    d: true\n"
               "    e: false\n    g: null\n    h: ENUM\n    i: [1, [2]]\n"
               "    j: {k: {l: $v}}\n    m: []\n    n: {}\n  )\n}");
}

Test(printer, string_values_are_reescaped) {
  expect_print("{ f(s: \"a\\u0001b\\\"c\\\\d\\n\\u00e9\\t/\\/\") }",
               "{\n  f(s: \"a\\u0001b\\\"c\\\\d\\n\xc3\xa9\\t//\")\n}");
}

Test(printer, block_string_values_stay_block_strings) {
  expect_print("{ f(s: \"\"\"\n  one\n  two\"\"\") }",
               "{\n  f(s: \"\"\"\n  one\n  two\n  \"\"\")\n}");
  /* the first line keeps its indentation, later lines lose the common one */
  expect_print("{ f(s: \"\"\"  one\n  two\"\"\") }",
               "{\n  f(s: \"\"\"\n    one\n  two\n  \"\"\")\n}");
  expect_print("{ f(s: \"\"\"x\"\"\") }", "{\n  f(s: \"\"\"x\"\"\")\n}");
}

Test(printer, definitions_are_separated_by_one_blank_line) {
  expect_print("query A { a } query B { b }\n\n\nfragment F on T { c }",
               "query A {\n  a\n}\n\nquery B {\n  b\n}\n\n"
               "fragment F on T {\n  c\n}");
}

/* ------------------------------------------------------- type system */

Test(printer, schema_definition_and_extension) {
  expect_print("schema @d { query: Q mutation: M subscription: S }",
               "schema @d {\n  query: Q\n  mutation: M\n  subscription: S\n}");
  expect_print("extend schema @d", "extend schema @d");
  expect_print("extend schema { query: Q }", "extend schema {\n  query: Q\n}");
  expect_print("\"desc\" schema { query: Q }",
               "\"desc\"\nschema {\n  query: Q\n}");
}

Test(printer, scalar_definition_and_extension) {
  expect_print("scalar S", "scalar S");
  expect_print("scalar S @a @b(c: 1)", "scalar S @a @b(c: 1)");
  expect_print("extend scalar S @a", "extend scalar S @a");
}

Test(printer, object_type_with_interfaces_fields_and_arguments) {
  expect_print("type T implements A & B @d { f(a: Int = 1 @x, b: [S!]!): "
               "String! @deprecated g: T }",
               "type T implements A & B @d {\n"
               "  f(a: Int = 1 @x, b: [S!]!): String! @deprecated\n"
               "  g: T\n}");
  expect_print("type T", "type T");
  expect_print("extend type T implements I", "extend type T implements I");
  expect_print("extend type T @d { f: Int }",
               "extend type T @d {\n  f: Int\n}");
}

Test(printer, interface_definition_and_extension) {
  expect_print("interface I implements J & K { f: Int }",
               "interface I implements J & K {\n  f: Int\n}");
  expect_print("extend interface I @d", "extend interface I @d");
  expect_print("extend interface I implements J { g: Int }",
               "extend interface I implements J {\n  g: Int\n}");
}

Test(printer, union_definition_and_extension) {
  expect_print("union U = | A | B", "union U = A | B");
  expect_print("union U @d = A", "union U @d = A");
  expect_print("union U", "union U");
  expect_print("extend union U = C", "extend union U = C");
  expect_print("extend union U @d", "extend union U @d");
}

Test(printer, enum_definition_and_extension) {
  expect_print("enum E { A @d B }", "enum E {\n  A @d\n  B\n}");
  expect_print("enum E @d", "enum E @d");
  expect_print("extend enum E { C }", "extend enum E {\n  C\n}");
}

Test(printer, input_object_definition_and_extension) {
  expect_print("input I @oneOf { a: Int = 1 @d b: [String] }",
               "input I @oneOf {\n  a: Int = 1 @d\n  b: [String]\n}");
  expect_print("extend input I { c: Float = 1.5 }",
               "extend input I {\n  c: Float = 1.5\n}");
  expect_print("extend input I @d", "extend input I @d");
}

Test(printer, directive_definitions_with_repeatable_and_locations) {
  expect_print("directive @d on FIELD", "directive @d on FIELD");
  expect_print("directive @d(a: Int = 1) repeatable on | OBJECT | INTERFACE",
               "directive @d(a: Int = 1) repeatable on OBJECT | INTERFACE");
  expect_print("\"\"\"doc\"\"\" directive @d on\n  | QUERY\n  | MUTATION",
               "\"\"\"doc\"\"\"\ndirective @d on QUERY | MUTATION");
}

Test(printer, descriptions_print_as_written_kind_of_string) {
  expect_print("\"quoted\" type T { \"f\" f: Int \"\"\"block\"\"\" g: Int }",
               "\"quoted\"\ntype T {\n  \"f\"\n  f: Int\n"
               "  \"\"\"block\"\"\"\n  g: Int\n}");
  expect_print("\"\"\"\n  Two\n  lines\n\"\"\"\nenum E { \"\"\"v\"\"\" V }",
               "\"\"\"\nTwo\nlines\n\"\"\"\nenum E {\n  \"\"\"v\"\"\"\n  V\n}");
}

Test(printer, described_argument_definitions_go_one_per_line_indented) {
  expect_print("type T { f(\"a desc\" a: Int, b: Int): Int }",
               "type T {\n  f(\n    \"a desc\"\n    a: Int\n    b: Int\n"
               "  ): Int\n}");
  expect_print("directive @d(\"\"\"x\ny\"\"\" a: Int) on FIELD",
               "directive @d(\n  \"\"\"\n  x\n  y\n  \"\"\"\n  a: Int\n) on "
               "FIELD");
}

Test(printer, long_argument_definitions_stay_on_one_line) {
  /* graphql-js wraps argument definitions only for newlines, never for
   * length */
  expect_print(
      "type T { f(aaaaaaaaaaaaaaaaaaaa: Int, bbbbbbbbbbbbbbbbbbbbbbbbb: "
      "Int, cccccccccccccccccccccc: Int): Int }",
      "type T {\n  f(aaaaaaaaaaaaaaaaaaaa: Int, "
      "bbbbbbbbbbbbbbbbbbbbbbbbb: Int, cccccccccccccccccccccc: Int): "
      "Int\n}");
}

/* ------------------------------------------- September 2025 descriptions */

Test(printer, operation_descriptions_precede_the_operation) {
  expect_print("\"op\" query Q { a }", "\"op\"\nquery Q {\n  a\n}");
  expect_print("\"\"\"op\"\"\" query { a }", "\"\"\"op\"\"\"\nquery {\n  a\n}");
  expect_print("\"m\" mutation { a }", "\"m\"\nmutation {\n  a\n}");
}

Test(printer, fragment_descriptions_precede_the_fragment) {
  expect_print("\"frag\" fragment F on T { a }",
               "\"frag\"\nfragment F on T {\n  a\n}");
}

Test(printer, described_variables_go_one_per_line_unindented) {
  expect_print("query Q(\"first\" $a: Int, $b: Int = 2) { a }",
               "query Q(\n\"first\"\n$a: Int\n$b: Int = 2\n) {\n  a\n}");
}

/* ------------------------------------------------------------ pieces */

Test(printer, value_and_type_pieces_print_alone) {
  gql_ast_value *v = NULL;
  gql_syntax_error err = {0};
  const char *src = "{a: [1, \"x\"], b: $v}";
  cr_assert_eq(gql_parse_value(arena, src, strlen(src), NULL, false, &v, &err),
               0);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_print_value(&b, v);
  cr_assert_str_eq(buf_take(&b), "{a: [1, \"x\"], b: $v}");
  gql_ast_type *t = NULL;
  src = "[ [ Int ! ] ]!";
  cr_assert_eq(gql_parse_type(arena, src, strlen(src), NULL, &t, &err), 0);
  gql_buf_init(&b, NULL);
  gql_print_type(&b, t);
  cr_assert_str_eq(buf_take(&b), "[[Int!]]!");
}

Test(printer, parsed_schema_coordinates_print_back) {
  static const char *cases[] = {"Type", "Type.field", "Type.field(arg:)",
                                "@dir", "@dir(arg:)"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    gql_ast_schema_coordinate *c = NULL;
    gql_syntax_error err = {0};
    cr_assert_eq(gql_parse_schema_coordinate(arena, cases[i], strlen(cases[i]),
                                             &c, &err),
                 0, "%s", cases[i]);
    cr_assert_str_eq(print_node(&c->h), cases[i]);
  }
}

Test(printer, print_fails_cleanly_when_the_arena_is_full) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  const char *src = "{ a b c d e f g h i j k l m n o p q r s t u v w x y z }";
  cr_assert_eq(gql_parse_syntax(arena, src, strlen(src), NULL, &doc, &err), 0);
  gql_arena_set_limit(arena, gql_arena_reserved(arena));
  /* fill what is left so that the copy cannot fit */
  while (gql_arena_alloc(arena, 8))
    ;
  const char *out = NULL;
  cr_assert_eq(gql_print(arena, doc, &out, NULL), GQL_ENOMEM);
}

/* -------------------------------------------------- conformance goldens */

static char *read_fixture(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/../shared/conformance/fixtures/%s",
           GQL_SOURCE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *s = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      s = realloc(s, cap);
      cr_assert(s);
    }
    size_t got = fread(s + n, 1, 4096, f);
    n += got;
    if (got < 4096)
      break;
  }
  fclose(f);
  s[n] = 0;
  char *copy = gql_arena_strndup(arena, s, n);
  free(s);
  return copy;
}

static void expect_golden(const char *source_name, const char *printed_name) {
  char *src = read_fixture(source_name);
  char *want = read_fixture(printed_name);
  if (!src || !want)
    cr_skip_test("conformance fixtures not found next to the repository");
  size_t n = strlen(want);
  cr_assert(n > 0 && want[n - 1] == '\n');
  want[n - 1] = 0; /* the golden ends with the CLI's newline */
  expect_print(src, want);
}

Test(printer, kitchen_sink_matches_graphql_js) {
  expect_golden("kitchen-sink.graphql", "kitchen-sink.printed.graphql");
}

Test(printer, schema_kitchen_sink_matches_graphql_js) {
  expect_golden("schema-kitchen-sink.graphql",
                "schema-kitchen-sink.printed.graphql");
}

/* ----------------------------------------------------------------- depth */

Test(printer, deeply_nested_selections_indent_two_spaces_a_level) {
  enum { DEPTH = 200 };
  char *src = gql_arena_alloc(arena, DEPTH * 3 + 2);
  char *p = src;
  for (int i = 0; i < DEPTH; i++)
    p += sprintf(p, "a{");
  *p++ = 'b';
  for (int i = 0; i < DEPTH; i++)
    *p++ = '}';
  *p = 0;
  char *wrapped = gql_arena_sprintf(arena, "{%s}", src);
  const char *got = pp(wrapped);
  /* the innermost field sits at depth DEPTH + 1 */
  char *line = gql_arena_alloc(arena, 2 * (DEPTH + 1) + 4);
  memset(line, ' ', 2 * (DEPTH + 1));
  strcpy(line + 2 * (DEPTH + 1), "b\n");
  char *needle = gql_arena_sprintf(arena, "{\n%s", line);
  cr_assert(strstr(got, needle), "innermost field not indented as expected");
  cr_assert_eq(got[strlen(got) - 1], '}');
  cr_assert_str_eq(pp(got), got);
}

Test(printer, nodes_print_alone_without_enclosing_indentation) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  const char *src = "{ outer { f(x: \"\"\"a\nb\"\"\") { g } } }";
  cr_assert_eq(gql_parse_syntax(arena, src, strlen(src), NULL, &doc, &err), 0);
  const gql_ast_operation *op =
      (const gql_ast_operation *)doc->definitions.items[0];
  const gql_ast_selection *outer = op->selection_set->selections.items[0];
  const gql_ast_selection *f = outer->selection_set->selections.items[0];
  cr_assert_str_eq(print_node(&f->h), "f(x: \"\"\"\na\nb\n\"\"\") {\n  g\n}");
  cr_assert_str_eq(print_node(&f->args.items[0]->h), "x: \"\"\"\na\nb\n\"\"\"");
  cr_assert_str_eq(
      print_node(&op->selection_set->h),
      "{\n  outer {\n    f(x: \"\"\"\n    a\n    b\n    \"\"\") {\n"
      "      g\n    }\n  }\n}");
}
