#include "language/lexer.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(lexer, .init = setup, .fini = teardown);

/* The first token of `src` (which must lex). */
static gql_token lex_one_n(const char *src, size_t len) {
  gql_lexer lx;
  gql_token tok;
  gql_lexer_init(&lx, arena, src, (uint32_t)len);
  int rc = gql_lexer_next(&lx, &tok);
  cr_assert_eq(rc, 0, "lexing %s failed: %s", src, lx.message);
  return tok;
}
static gql_token lex_one(const char *src) {
  return lex_one_n(src, strlen(src));
}

/* The error of the first token that fails in `src`. */
static gql_lexer lex_error_n(const char *src, size_t len) {
  gql_lexer lx;
  gql_token tok;
  gql_lexer_init(&lx, arena, src, (uint32_t)len);
  for (int i = 0; i < 100; i++) {
    int rc = gql_lexer_next(&lx, &tok);
    if (rc) {
      cr_assert_eq(rc, GQL_ESYNTAX);
      return lx;
    }
    if (tok.kind == GQL_TOK_EOF)
      break;
  }
  cr_assert_fail("no error lexing %s", src);
  return lx;
}
static gql_lexer lex_error(const char *src) {
  return lex_error_n(src, strlen(src));
}

static void assert_value(gql_token t, const char *want, size_t want_len) {
  cr_assert_eq(t.value.len, want_len, "value length %zu, want %zu", t.value.len,
               want_len);
  cr_assert(memcmp(t.value.ptr, want, want_len) == 0, "value '%.*s'",
            (int)t.value.len, t.value.ptr);
}
#define ASSERT_VALUE(t, lit) assert_value((t), (lit), sizeof(lit) - 1)

static void assert_error(const char *src, const char *message,
                         uint32_t offset) {
  gql_lexer lx = lex_error(src);
  cr_assert_str_eq(lx.message, message, "for %s", src);
  cr_assert_eq(lx.err_offset, offset, "offset %u for %s", lx.err_offset, src);
}

Test(lexer, punctuators_have_kind_and_span) {
  const char *src = "! $ & ( ) ... : = @ [ ] { | }";
  static const int kinds[] = {
      GQL_TOK_BANG,    GQL_TOK_DOLLAR,    GQL_TOK_AMP,       GQL_TOK_PAREN_L,
      GQL_TOK_PAREN_R, GQL_TOK_SPREAD,    GQL_TOK_COLON,     GQL_TOK_EQUALS,
      GQL_TOK_AT,      GQL_TOK_BRACKET_L, GQL_TOK_BRACKET_R, GQL_TOK_BRACE_L,
      GQL_TOK_PIPE,    GQL_TOK_BRACE_R,   GQL_TOK_EOF};
  static const uint32_t starts[] = {0,  2,  4,  6,  8,  10, 14, 16,
                                    18, 20, 22, 24, 26, 28, 29};
  gql_lexer lx;
  gql_lexer_init(&lx, arena, src, (uint32_t)strlen(src));
  for (size_t i = 0; i < GQL_ARRAY_LEN(kinds); i++) {
    gql_token t;
    cr_assert_eq(gql_lexer_next(&lx, &t), 0);
    cr_assert_eq(t.kind, kinds[i], "token %zu", i);
    cr_assert_eq(t.start, starts[i], "token %zu start %u", i, t.start);
  }
  gql_token t;
  cr_assert_eq(gql_lexer_next(&lx, &t), 0);
  cr_assert_eq(t.kind, GQL_TOK_EOF, "EOF repeats");
}

Test(lexer, spread_token_spans_three_dots) {
  gql_token t = lex_one("...");
  cr_assert_eq(t.kind, GQL_TOK_SPREAD);
  cr_assert_eq(t.start, 0);
  cr_assert_eq(t.end, 3);
}

Test(lexer, ignores_bom_whitespace_commas_and_comments) {
  const char *src = "\xEF\xBB\xBF \t,\r\n# a comment\r\n  ,,foo # trailing";
  gql_token t = lex_one(src);
  cr_assert_eq(t.kind, GQL_TOK_NAME);
  ASSERT_VALUE(t, "foo");
  cr_assert_eq(t.start, (uint32_t)(strstr(src, "foo") - src));
}

Test(lexer, comments_are_tokens_when_asked) {
  gql_lexer lx;
  gql_token t;
  const char *src = "  # hello\nx";
  gql_lexer_init(&lx, arena, src, (uint32_t)strlen(src));
  lx.comments = true;
  cr_assert_eq(gql_lexer_next(&lx, &t), 0);
  cr_assert_eq(t.kind, GQL_TOK_COMMENT);
  ASSERT_VALUE(t, " hello");
  cr_assert_eq(t.start, 2);
  cr_assert_eq(t.end, 9);
}

Test(lexer, names_are_slices_of_the_source) {
  const char *src = "  _foo_Bar09 ";
  gql_token t = lex_one(src);
  cr_assert_eq(t.kind, GQL_TOK_NAME);
  cr_assert_eq(t.value.ptr, src + 2, "no copy");
  cr_assert_eq(t.value.len, 10);
  cr_assert_eq(t.end, 12);
}

Test(lexer, numbers_are_int_or_float_by_graphql_rules) {
  static const struct {
    const char *src;
    int kind;
  } cases[] = {
      {"4", GQL_TOK_INT},           {"-4", GQL_TOK_INT},
      {"0", GQL_TOK_INT},           {"-0", GQL_TOK_INT},
      {"9", GQL_TOK_INT},           {"4.123", GQL_TOK_FLOAT},
      {"-4.123", GQL_TOK_FLOAT},    {"0.123", GQL_TOK_FLOAT},
      {"123e4", GQL_TOK_FLOAT},     {"123E4", GQL_TOK_FLOAT},
      {"123e-4", GQL_TOK_FLOAT},    {"123e+4", GQL_TOK_FLOAT},
      {"-1.123e4", GQL_TOK_FLOAT},  {"-1.123E4", GQL_TOK_FLOAT},
      {"-1.123e-4", GQL_TOK_FLOAT}, {"-1.123e4567", GQL_TOK_FLOAT},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    gql_token t = lex_one(cases[i].src);
    cr_assert_eq(t.kind, cases[i].kind, "%s", cases[i].src);
    assert_value(t, cases[i].src, strlen(cases[i].src));
  }
}

Test(lexer, number_errors_match_graphql_js) {
  assert_error("-",
               "Syntax Error: Invalid number, expected digit but got: "
               "<EOF>.",
               1);
  assert_error("-A",
               "Syntax Error: Invalid number, expected digit but got: "
               "\"A\".",
               1);
  assert_error("1.\"",
               "Syntax Error: Invalid number, expected digit but got: "
               "'\"'.",
               2);
  assert_error("1e\xC3\xA9",
               "Syntax Error: Invalid number, expected digit "
               "but got: U+00E9.",
               2);
  assert_error("01",
               "Syntax Error: Invalid number, unexpected digit after 0: "
               "\"1\".",
               1);
  assert_error("1_",
               "Syntax Error: Invalid number, expected digit but got: "
               "\"_\".",
               1);
}

Test(lexer, plain_string_is_a_slice_of_the_source) {
  const char *src = "\"simple \xC3\xA9\"";
  gql_token t = lex_one(src);
  cr_assert_eq(t.kind, GQL_TOK_STRING);
  cr_assert_eq(t.value.ptr, src + 1);
  ASSERT_VALUE(t, "simple \xC3\xA9");
  cr_assert_eq(t.end, strlen(src));
}

Test(lexer, string_decodes_every_simple_escape) {
  gql_token t = lex_one("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"");
  ASSERT_VALUE(t, "q\" b\\ s/ \b\f\n\r\t");
}

Test(lexer, string_decodes_unicode_escapes_to_utf8) {
  ASSERT_VALUE(lex_one("\"\\u0041\\u00e9\\u20AC\""), "A\xC3\xA9\xE2\x82\xAC");
  ASSERT_VALUE(lex_one("\"\\u{41}\\u{1F600}\\u{10FFFF}\""),
               "A\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
  ASSERT_VALUE(lex_one("\"\\u{00000041}\""), "A");
  ASSERT_VALUE(lex_one("\"\\uD83D\\uDE00\""), "\xF0\x9F\x98\x80");
  ASSERT_VALUE(lex_one("\"\\u{0}\""), "\0");
}

Test(lexer, string_with_escape_keeps_text_after_it) {
  gql_token t = lex_one("\"a\\nb\\u00e9c\" rest");
  ASSERT_VALUE(t, "a\nb\xC3\xA9"
                  "c");
  cr_assert_eq(t.end, 13);
}

Test(lexer, string_errors_match_graphql_js) {
  assert_error("\"abc", "Syntax Error: Unterminated string.", 4);
  assert_error("\"a\\n", "Syntax Error: Unterminated string.", 4);
  assert_error("\"a\\nb\nc\"", "Syntax Error: Unterminated string.", 5);
  assert_error("\"\\",
               "Syntax Error: Invalid character escape sequence: "
               "\"\\\".",
               1);
  assert_error("\"\\u{}\"",
               "Syntax Error: Invalid Unicode escape sequence: "
               "\"\\u{}\".",
               1);
  assert_error("\"\\u12\"",
               "Syntax Error: Invalid Unicode escape sequence: "
               "\"\\u12\"\".",
               1);
  assert_error("\"\\uDE00\"",
               "Syntax Error: Invalid Unicode escape sequence: "
               "\"\\uDE00\".",
               1);
  assert_error("\"\\u{DE00}\"",
               "Syntax Error: Invalid Unicode escape "
               "sequence: \"\\u{DE00}\".",
               1);
}

Test(lexer, control_characters_are_allowed_inside_strings) {
  gql_token t = lex_one_n("\"a\x01"
                          "b\"",
                          5);
  ASSERT_VALUE(t, "a\x01"
                  "b");
}

Test(lexer, lone_surrogate_bytes_are_named_like_graphql_js) {
  /* U+DEAD encoded as UTF-8 bytes (what a JavaScript lone surrogate
   * becomes when written with surrogatepass). */
  assert_error("\"a\xED\xBA\xAD\"",
               "Syntax Error: Invalid character within "
               "String: U+DEAD.",
               2);
  assert_error("\xED\xBA\xAD", "Syntax Error: Invalid character: U+DEAD.", 0);
  assert_error("\"\"\"a\xED\xA0\x80\"\"\"",
               "Syntax Error: Invalid character within String: U+D800.", 4);
}

Test(lexer, invalid_utf8_is_reported_with_the_byte) {
  assert_error("\xFF", "Syntax Error: Invalid UTF-8 byte 0xFF.", 0);
  assert_error("\"ab\xC3\"", "Syntax Error: Invalid UTF-8 byte 0xC3.", 3);
  assert_error("\"\xC0\x80\"", "Syntax Error: Invalid UTF-8 byte 0xC0.", 1);
  assert_error("\"\xF4\x90\x80\x80\"", "Syntax Error: Invalid UTF-8 byte 0xF4.",
               1);
  /* A comment stops at the bad byte, which is then an error. */
  assert_error("# x\xFE", "Syntax Error: Invalid UTF-8 byte 0xFE.", 3);
}

Test(lexer, unexpected_characters_match_graphql_js) {
  assert_error("~", "Syntax Error: Unexpected character: \"~\".", 0);
  assert_error("\xC2\xAA", "Syntax Error: Unexpected character: U+00AA.", 0);
  assert_error("\xF0\x9F\x98\x80",
               "Syntax Error: Unexpected character: U+1F600.", 0);
  gql_lexer lx = lex_error_n("a\0", 2);
  cr_assert_str_eq(lx.message, "Syntax Error: Unexpected character: U+0000.");
  cr_assert_eq(lx.err_offset, 1);
  assert_error("'x'",
               "Syntax Error: Unexpected single quote character ('), "
               "did you mean to use a double quote (\")?",
               0);
  assert_error("a ..", "Syntax Error: Unexpected character: \".\".", 2);
  assert_error("\"", "Syntax Error: Unterminated string.", 1);
}

static void assert_block(const char *src, const char *want) {
  gql_token t = lex_one(src);
  cr_assert_eq(t.kind, GQL_TOK_BLOCK_STRING, "%s", src);
  cr_assert_eq(t.end, strlen(src));
  cr_assert_eq(t.value.len, strlen(want), "%s gave '%.*s'", src,
               (int)t.value.len, t.value.ptr);
  cr_assert(memcmp(t.value.ptr, want, t.value.len) == 0, "%s gave '%.*s'", src,
            (int)t.value.len, t.value.ptr);
}

Test(lexer, block_strings_as_graphql_js_lexes_them) {
  assert_block("\"\"\"\"\"\"", "");
  assert_block("\"\"\"simple\"\"\"", "simple");
  assert_block("\"\"\" white space \"\"\"", " white space ");
  assert_block("\"\"\"contains \" quote\"\"\"", "contains \" quote");
  assert_block("\"\"\"contains \\\"\"\" triple quote\"\"\"",
               "contains \"\"\" triple quote");
  assert_block("\"\"\"multi\nline\"\"\"", "multi\nline");
  assert_block("\"\"\"multi\rline\r\nnormalized\"\"\"",
               "multi\nline\nnormalized");
  assert_block("\"\"\"unescaped \\n\\r\\b\\t\\f\\u1234\"\"\"",
               "unescaped \\n\\r\\b\\t\\f\\u1234");
  assert_block("\"\"\"slashes \\\\ \\/\"\"\"", "slashes \\\\ \\/");
  assert_block("\"\"\"\n\n        spans\n          multiple\n"
               "            lines\n\n        \"\"\"",
               "spans\n  multiple\n    lines");
}

static void assert_dedent(const char *raw, const char *want) {
  gql_str out;
  cr_assert_eq(gql_block_string_value(arena, gql_cstr(raw), &out), 0);
  cr_assert_eq(out.len, strlen(want), "'%s' gave '%.*s'", raw, (int)out.len,
               out.ptr);
  cr_assert(memcmp(out.ptr, want, out.len) == 0, "'%s' gave '%.*s'", raw,
            (int)out.len, out.ptr);
}

Test(lexer, block_string_dedent_follows_dedent_block_string_lines) {
  assert_dedent("", "");
  assert_dedent("   ", "");
  assert_dedent("\n  \n\t\n", "");
  /* the first line keeps its indentation and does not count */
  assert_dedent("  first\n    second\n    third", "  first\nsecond\nthird");
  assert_dedent("first\n  a\n    b\n  c", "first\na\n  b\nc");
  /* leading and trailing blank lines go, inner ones stay */
  assert_dedent("\n\n  a\n\n  b\n  \n", "a\n\nb");
  /* whitespace-only lines longer than the indent keep the rest */
  assert_dedent("\n  a\n      \n  b", "a\n    \nb");
  /* tabs count as one character of indentation each */
  assert_dedent("\n\t\ta\n\t\t\tb", "a\n\tb");
  /* lines that are blank do not set the common indent */
  assert_dedent("\n    a\n \n    b", "a\n\nb");
  assert_dedent("x\r\n  y\r  z", "x\ny\nz");
}

Test(lexer, block_string_errors) {
  assert_error("\"\"\"abc\"\"", "Syntax Error: Unterminated string.", 8);
  assert_error("\"\"\"\\\"\"\"", "Syntax Error: Unterminated string.", 7);
}

Test(lexer, coordinate_mode_lexes_dots_and_allows_no_ignored_tokens) {
  gql_lexer lx;
  gql_token t;
  const char *src = "A.b(c:)";
  gql_lexer_init(&lx, arena, src, 7);
  lx.coordinate = true;
  static const int kinds[] = {GQL_TOK_NAME,    GQL_TOK_DOT,  GQL_TOK_NAME,
                              GQL_TOK_PAREN_L, GQL_TOK_NAME, GQL_TOK_COLON,
                              GQL_TOK_PAREN_R, GQL_TOK_EOF};
  for (size_t i = 0; i < GQL_ARRAY_LEN(kinds); i++) {
    cr_assert_eq(gql_lexer_next(&lx, &t), 0);
    cr_assert_eq(t.kind, kinds[i], "token %zu", i);
  }
  gql_lexer_init(&lx, arena, "A .b", 4);
  lx.coordinate = true;
  cr_assert_eq(gql_lexer_next(&lx, &t), 0);
  cr_assert_eq(gql_lexer_next(&lx, &t), GQL_ESYNTAX);
  cr_assert_str_eq(lx.message, "Syntax Error: Invalid character: \" \".");
  cr_assert_eq(lx.err_offset, 1);
}

Test(lexer, token_kind_descriptions_match_get_token_kind_desc) {
  cr_assert_str_eq(gql_token_kind_desc(GQL_TOK_NAME), "Name");
  cr_assert_str_eq(gql_token_kind_desc(GQL_TOK_EOF), "<EOF>");
  cr_assert_str_eq(gql_token_kind_desc(GQL_TOK_BRACE_L), "\"{\"");
  cr_assert_str_eq(gql_token_kind_desc(GQL_TOK_SPREAD), "\"...\"");
  cr_assert_str_eq(gql_token_kind_desc(GQL_TOK_BLOCK_STRING), "BlockString");
}

Test(lexer, indentation_of_any_length_is_skipped) {
  /* The word-at-a-time skip must stop exactly at the first non-space and
   * never read past the end of the source. */
  for (size_t n = 0; n < 40; n++) {
    char *src = malloc(n + 3);
    src[0] = '\n';
    memset(src + 1, ' ', n);
    src[n + 1] = 'x';
    gql_token t = lex_one_n(src, n + 2);
    cr_assert_eq(t.kind, GQL_TOK_NAME);
    cr_assert_eq(t.start, n + 1, "after %zu spaces", n);
    /* the same without the name: only EOF, at the end */
    t = lex_one_n(src, n + 1);
    cr_assert_eq(t.kind, GQL_TOK_EOF);
    cr_assert_eq(t.start, n + 1);
    /* a tab or comma inside the indentation is still ignored */
    if (n > 2) {
      src[n / 2] = n % 2 ? '\t' : ',';
      t = lex_one_n(src, n + 2);
      cr_assert_eq(t.start, n + 1);
    }
    free(src);
  }
}

Test(lexer, long_strings_with_non_ascii_are_scanned_whole) {
  char src[400];
  for (int block = 0; block < 2; block++) {
    size_t q = block ? 3 : 1, o = q;
    memcpy(src, "\"\"\"", q);
    for (int i = 0; i < 50; i++) {
      memcpy(src + o, "ab\xC3\xA9\xE2\x82\xAC", 7);
      o += 7;
    }
    memcpy(src + o, "\"\"\"", q);
    o += q;
    gql_token t = lex_one_n(src, o);
    cr_assert_eq(t.kind, block ? GQL_TOK_BLOCK_STRING : GQL_TOK_STRING);
    cr_assert_eq(t.value.len, 350);
    cr_assert_eq(t.end, o);
  }
}

Test(lexer, utf8_edge_cases_in_comments_and_tokens) {
  /* a valid multi-byte character inside a comment is skipped */
  gql_token t = lex_one("# caf\xC3\xA9 \xF0\x9F\x98\x80\nx");
  cr_assert_eq(t.kind, GQL_TOK_NAME);
  cr_assert_eq(t.start, 13);
  /* EF that does not start a BOM is an ordinary character */
  assert_error("\xEF\xBF\xBF", "Syntax Error: Unexpected character: U+FFFF.",
               0);
  /* overlong and out-of-range forms are not code points */
  assert_error("\xE0\x80\x80", "Syntax Error: Invalid UTF-8 byte 0xE0.", 0);
  assert_error("\xF5\x80\x80\x80", "Syntax Error: Invalid UTF-8 byte 0xF5.", 0);
  assert_error("\xE2\x82", "Syntax Error: Invalid UTF-8 byte 0xE2.", 0);
  assert_error("\xC3(", "Syntax Error: Invalid UTF-8 byte 0xC3.", 0);
  assert_error("\"\xE2\x82\"", "Syntax Error: Invalid UTF-8 byte 0xE2.", 1);
}

Test(lexer, line_terminators_end_a_string) {
  assert_error("\"multi\nline\"", "Syntax Error: Unterminated string.", 6);
  assert_error("\"multi\rline\"", "Syntax Error: Unterminated string.", 6);
  assert_error("\"a\xC3\xA9\r\n\"", "Syntax Error: Unterminated string.", 4);
}
