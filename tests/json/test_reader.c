#include "json/json.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- helpers */

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(json_reader, .init = setup, .fini = teardown);

static gql_json_value *parse_ok(const char *src) {
  gql_json_value *v = NULL;
  gql_json_error err;
  int rc = gql_json_parse(arena, src, strlen(src), NULL, &v, &err);
  cr_assert_eq(rc, 0, "parse of %s failed: %s", src, err.message);
  cr_assert_not_null(v);
  return v;
}

static gql_json_error parse_err(const char *src, size_t len, int want_rc) {
  gql_json_value *v = (gql_json_value *)1;
  gql_json_error err;
  int rc = gql_json_parse(arena, src, len, NULL, &v, &err);
  cr_assert_eq(rc, want_rc, "rc %d (%s) for %.*s", rc, err.message, (int)len,
               src);
  cr_assert_null(v);
  return err;
}

/* Asserts the exact message (which ends with the line and column). */
static void expect_error(const char *src, const char *message, size_t offset) {
  gql_json_error err = parse_err(src, strlen(src), GQL_EJSON);
  cr_assert_str_eq(err.message, message, "for input %s", src);
  cr_assert_eq(err.offset, offset, "offset %zu, want %zu for %s", err.offset,
               offset, src);
}

/* ---- values */

Test(json_reader, parses_scalars_at_the_root_with_surrounding_whitespace) {
  cr_assert_eq(parse_ok(" \t\r\nnull\n")->kind, GQL_JSON_NULL);
  gql_json_value *t = parse_ok("true");
  cr_assert_eq(t->kind, GQL_JSON_BOOL);
  cr_assert(t->boolean);
  gql_json_value *f = parse_ok("false ");
  cr_assert_eq(f->kind, GQL_JSON_BOOL);
  cr_assert_not(f->boolean);
  gql_json_value *s = parse_ok("\"hi\"");
  cr_assert_eq(s->kind, GQL_JSON_STRING);
  cr_assert(gql_str_eq_cstr(s->string, "hi"));
  gql_json_value *n = parse_ok("-12");
  cr_assert_eq(n->kind, GQL_JSON_NUMBER);
  cr_assert(n->is_int);
  cr_assert_eq(n->number.i, -12);
  cr_assert_eq(n->number.d, -12.0);
}

Test(json_reader, integer_literals_keep_exact_int64_and_nearest_double) {
  gql_json_value *v = parse_ok("9007199254740993");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, 9007199254740993LL);
  cr_assert_eq(v->number.d, 9007199254740992.0);

  v = parse_ok("-9223372036854775808");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, INT64_MIN);

  v = parse_ok("9223372036854775807");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, INT64_MAX);

  v = parse_ok("9223372036854775808"); /* INT64_MAX + 1 */
  cr_assert_not(v->is_int);
  cr_assert_eq(v->number.d, 9223372036854775808.0);

  v = parse_ok("123456789012345678901234567890");
  cr_assert_not(v->is_int);
  cr_assert_eq(v->number.d, strtod("123456789012345678901234567890", NULL));
}

Test(json_reader, integral_non_literal_numbers_are_integers_like_js) {
  gql_json_value *v = parse_ok("1.0");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, 1);
  v = parse_ok("1e3");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, 1000);
  v = parse_ok("-2.5E+1");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, -25);
  v = parse_ok("-2.5E-1");
  cr_assert_not(v->is_int);
  cr_assert_eq(v->number.d, -0.25);
  v = parse_ok("1.5");
  cr_assert_not(v->is_int);
  v = parse_ok("1e19");
  cr_assert_not(v->is_int, "1e19 does not fit int64");
  v = parse_ok("-0");
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, 0);
  cr_assert(signbit(v->number.d), "-0 keeps its sign as a double");
}

Test(json_reader, numbers_are_correctly_rounded_on_fast_and_slow_paths) {
  static const char *cases[] = {
      "0.1",
      "0.3",
      "2.5",
      "123.456",
      "1e22",
      "1e23",
      "9007199254740993.0",
      "1.7976931348623157e308",
      "2.2250738585072014e-308",
      "2.2250738585072011e-308",
      "4.9e-324",
      "5e-324",
      "1e-400",
      "0.000000000000000000000000000001",
      "123456789012345678901234567890e-10",
      "3.14159265358979323846264338327950288",
      "-0.0000001",
      "8.98846567431158e307",
      "1.00000000000000011102230246251565404236316680908203125",
      "7.3177701707893310e+15",
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    gql_json_value *v = parse_ok(cases[i]);
    double want = strtod(cases[i], NULL);
    cr_assert_eq(memcmp(&v->number.d, &want, sizeof want), 0,
                 "%s parsed as %.17g, want %.17g", cases[i], v->number.d, want);
  }
}

/* 32 bytes a value and 48 a member (the gateway's memory per request is
 * mostly parsed subgraph answers). */
Test(json_reader, values_are_32_bytes_and_members_48) {
  cr_assert_eq(sizeof(gql_json_value), 32);
  cr_assert_eq(sizeof(gql_json_member), 48);
}

Test(json_reader, an_exponent_number_with_an_integral_value_is_an_int) {
  gql_json_value *v = parse_ok("  -12.50e+1 ");
  cr_assert_eq(v->number.d, -125.0);
  cr_assert(v->is_int);
  cr_assert_eq(v->number.i, -125);
}

Test(json_reader, strings_without_escapes_are_slices_of_the_source) {
  const char *src = "[\"plain text that is long enough for SWAR\", \"é€\"]";
  gql_json_value *v = parse_ok(src);
  cr_assert_eq(v->array.count, 2);
  gql_str s = v->array.items[0].string;
  cr_assert(s.ptr > src && s.ptr < src + strlen(src));
  cr_assert(gql_str_eq_cstr(s, "plain text that is long enough for SWAR"));
  cr_assert(gql_str_eq_cstr(v->array.items[1].string, "é€"));
  cr_assert(v->array.items[1].string.ptr > src);
}

/* verbatim: the string is the source's bytes, which written back between
 * quotes are what gql_json_write_string writes; never for decoded text. */
Test(json_reader, strings_without_escapes_are_verbatim_and_write_back_as_is) {
  const char *src =
      "{\"a\":\"plain\",\"b\":\"\",\"c\":\"\xc3\xa9\xe2\x80\xa8\x7f\","
      "\"d\":\"x\\ny\",\"e\":\"\\u0041\",\"f\":[1,true,null,{}]}";
  gql_json_value *v = parse_ok(src);
  const char *verbatim[] = {"a", "b", "c"};
  for (size_t i = 0; i < 3; i++) {
    const gql_json_value *s = gql_json_get(v, gql_cstr(verbatim[i]));
    cr_assert(s->verbatim, "%s", verbatim[i]);
    gql_buf b;
    gql_buf_init(&b, NULL);
    gql_json_write_string(&b, s->string);
    cr_assert_eq(b.len, s->string.len + 2);
    cr_assert_eq(memcmp(b.data + 1, s->string.ptr, s->string.len), 0);
    gql_buf_free(&b);
  }
  cr_assert_not(gql_json_get(v, GQL_STR("d"))->verbatim);
  cr_assert_not(gql_json_get(v, GQL_STR("e"))->verbatim);
  const gql_json_value *f = gql_json_get(v, GQL_STR("f"));
  cr_assert_not(f->verbatim);
  for (size_t i = 0; i < f->array.count; i++)
    cr_assert_not(f->array.items[i].verbatim);
}

Test(json_reader, decodes_every_simple_escape) {
  gql_json_value *v = parse_ok("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"");
  cr_assert(gql_str_eq_cstr(v->string, "a\"b\\c/d\be\ff\ng\rh\ti"));
}

Test(json_reader, decodes_unicode_escapes_and_surrogate_pairs) {
  gql_json_value *v =
      parse_ok("\"\\u00e9\\u20AC\\uD83D\\uDE00x\\u0041\\u007f\\u0800\"");
  cr_assert(gql_str_eq_cstr(v->string, "é€😀xA\x7f\xe0\xa0\x80"));
  v = parse_ok("\"\\uDBFF\\uDFFF\"");
  cr_assert(gql_str_eq_cstr(v->string, "\xf4\x8f\xbf\xbf")); /* U+10FFFF */
}

Test(json_reader, decodes_nul_escape_into_a_counted_string) {
  gql_json_value *v = parse_ok("\"a\\u0000b\"");
  cr_assert_eq(v->string.len, 3);
  cr_assert_eq(memcmp(v->string.ptr, "a\0b", 3), 0);
}

Test(json_reader, escapes_after_a_long_plain_prefix_keep_the_prefix) {
  gql_json_value *v =
      parse_ok("\"0123456789abcdefghij\\n0123456789\\u00e9 tail é\"");
  cr_assert(
      gql_str_eq_cstr(v->string, "0123456789abcdefghij\n0123456789é tail é"));
}

/* The plain-byte scan goes 16 then 8 bytes at a time: put each kind of
 * special byte at every offset of strings of every length up to 40 (and
 * text after the closing quote, which must not be taken for the string's). */
Test(json_reader, special_bytes_end_the_plain_scan_at_every_offset) {
  char src[160], want[64];
  for (size_t len = 0; len <= 40; len++) {
    for (size_t at = 0; at <= len; at++) {
      /* "xxxx...x" followed by text that would be special */
      for (size_t i = 0; i < len; i++)
        want[i] = (char)('a' + (i * 7 + at) % 26);
      want[len] = 0;
      int n = snprintf(src, sizeof src, "\"%s\"\x01\\", want);
      gql_json_value *v = NULL;
      gql_json_error err;
      cr_assert_eq(gql_json_parse(arena, src, (size_t)n - 2, NULL, &v, &err), 0,
                   "%s", err.message);
      cr_assert(gql_str_eq_cstr(v->string, want));
      cr_assert_eq(v->string.ptr, src + 1);
      if (at == len)
        continue;
      char tmp = want[at];
      /* an escape at `at`: decoded, the rest kept */
      snprintf(src, sizeof src, "\"%.*s\\n%s\"", (int)at, want, want + at);
      v = parse_ok(src);
      cr_assert_eq(v->string.len, len + 1);
      cr_assert_eq(v->string.ptr[at], '\n');
      cr_assert_eq(memcmp(v->string.ptr + at + 1, want + at, len - at), 0);
      /* a two-byte UTF-8 character at `at`: kept as is */
      snprintf(src, sizeof src, "\"%.*s\xc3\xa9%s\"", (int)at, want, want + at);
      v = parse_ok(src);
      cr_assert_eq(v->string.len, len + 2);
      cr_assert_eq(memcmp(v->string.ptr + at, "\xc3\xa9", 2), 0);
      /* a control character or a lone continuation byte at `at`: refused
       * at that byte */
      want[at] = '\x1f';
      n = snprintf(src, sizeof src, "\"%s\"", want);
      parse_err(src, (size_t)n, GQL_EJSON);
      cr_assert_eq(parse_err(src, (size_t)n, GQL_EJSON).offset, at + 1);
      want[at] = '\x80';
      snprintf(src, sizeof src, "\"%s\"", want);
      cr_assert_eq(parse_err(src, (size_t)n, GQL_EJSON).offset, at + 1);
      want[at] = tmp;
    }
  }
}

Test(json_reader, objects_keep_members_in_document_order) {
  gql_json_value *v =
      parse_ok("{ \"b\" : 1 , \"a\":[true,{\"c\":null}], \"\":\"e\" }");
  cr_assert_eq(v->kind, GQL_JSON_OBJECT);
  cr_assert_eq(v->object.count, 3);
  cr_assert(gql_str_eq_cstr(v->object.members[0].key, "b"));
  cr_assert(gql_str_eq_cstr(v->object.members[1].key, "a"));
  cr_assert(gql_str_eq_cstr(v->object.members[2].key, ""));
  const gql_json_value *a = gql_json_get(v, GQL_STR("a"));
  cr_assert_eq(a->kind, GQL_JSON_ARRAY);
  cr_assert_eq(a->array.count, 2);
  const gql_json_value *c = gql_json_get(&a->array.items[1], GQL_STR("c"));
  cr_assert_not_null(c);
  cr_assert_eq(c->kind, GQL_JSON_NULL);
  cr_assert_null(gql_json_get(v, GQL_STR("zz")));
  cr_assert_null(gql_json_get(a, GQL_STR("a")), "arrays have no members");
}

Test(json_reader, empty_containers) {
  gql_json_value *v = parse_ok("[ [ ] , { } ,[],{}]");
  cr_assert_eq(v->array.count, 4);
  for (int i = 0; i < 4; i++) {
    gql_json_value *x = &v->array.items[i];
    cr_assert_eq(x->kind, i % 2 ? GQL_JSON_OBJECT : GQL_JSON_ARRAY);
    cr_assert_eq(x->array.count, 0);
  }
}

Test(json_reader, duplicate_keys_last_one_wins_on_lookup) {
  gql_json_value *v = parse_ok("{\"a\":1,\"b\":2,\"a\":3}");
  cr_assert_eq(v->object.count, 3, "duplicates stay in the member list");
  cr_assert_eq(gql_json_get(v, GQL_STR("a"))->number.i, 3);
}

static char *big_object_text(int n, bool duplicate_last) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_putc(&b, '{');
  for (int i = 0; i < n; i++)
    gql_buf_printf(&b, "%s\"key%d\":%d", i ? "," : "", i, i);
  if (duplicate_last)
    gql_buf_puts(&b, ",\"key7\":-7");
  gql_buf_putc(&b, '}');
  return (char *)gql_buf_cstr(&b);
}

Test(json_reader, big_objects_get_a_hash_index_and_find_every_key) {
  char *text = big_object_text(50000, true);
  gql_json_value *v = parse_ok(text);
  cr_assert_eq(v->object.count, 50001);
  cr_assert_not_null(v->object.index);
  char key[32];
  for (int i = 0; i < 50000; i++) {
    int n = snprintf(key, sizeof key, "key%d", i);
    const gql_json_value *x = gql_json_get(v, gql_str_from(key, (size_t)n));
    cr_assert_not_null(x, "key%d missing", i);
    cr_assert_eq(x->number.i, i == 7 ? -7 : i);
  }
  cr_assert_null(gql_json_get(v, GQL_STR("key50000")));
  cr_assert_null(gql_json_get(v, GQL_STR("")));
  free(text);
}

Test(json_reader, small_objects_are_scanned_and_big_ones_indexed) {
  char *small = big_object_text(16, false);
  char *big = big_object_text(17, false);
  cr_assert_null(parse_ok(small)->object.index);
  gql_json_value *v = parse_ok(big);
  cr_assert_not_null(v->object.index);
  cr_assert_eq(gql_json_get(v, GQL_STR("key16"))->number.i, 16);
  free(small);
  free(big);
}

Test(json_reader, hand_built_objects_can_be_indexed) {
  gql_json_member m[40];
  char keys[40][8];
  for (int i = 0; i < 40; i++) {
    int n = snprintf(keys[i], sizeof keys[i], "k%d", i);
    m[i].key = gql_str_from(keys[i], (size_t)n);
    m[i].value = (gql_json_value){
        .kind = GQL_JSON_NUMBER, .is_int = true, .number = {.d = i, .i = i}};
  }
  gql_json_value obj = {.kind = GQL_JSON_OBJECT,
                        .object = {.members = m, .count = 40}};
  cr_assert_eq(gql_json_get(&obj, GQL_STR("k39"))->number.i, 39);
  cr_assert_eq(gql_json_object_index(arena, &obj), 0);
  cr_assert_not_null(obj.object.index);
  cr_assert_eq(gql_json_get(&obj, GQL_STR("k39"))->number.i, 39);
  cr_assert_eq(gql_json_get(&obj, GQL_STR("k0"))->number.i, 0);
  cr_assert_null(gql_json_get(&obj, GQL_STR("k40")));
}

Test(json_reader, arrays_of_100k_elements) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_putc(&b, '[');
  for (int i = 0; i < 100000; i++)
    gql_buf_printf(&b, "%s{\"id\":%d,\"s\":\"v%d\"}", i ? "," : "", i, i);
  gql_buf_putc(&b, ']');
  gql_json_value *v = parse_ok(gql_buf_cstr(&b));
  cr_assert_eq(v->array.count, 100000);
  char want[16];
  for (int i = 0; i < 100000; i++) {
    const gql_json_value *item = &v->array.items[i];
    cr_assert_eq(gql_json_get(item, GQL_STR("id"))->number.i, i);
    snprintf(want, sizeof want, "v%d", i);
    cr_assert(gql_str_eq_cstr(gql_json_get(item, GQL_STR("s"))->string, want));
  }
  gql_buf_free(&b);
}

/* ---- rejections: message, line/column and offset */

Test(json_reader, rejects_invalid_utf8_in_and_out_of_strings) {
  expect_error("\"a\xff\"", "Invalid UTF-8 in string at line 1, column 3", 2);
  expect_error("\"\xc0\xaf\"", "Invalid UTF-8 in string at line 1, column 2",
               1); /* overlong '/' */
  expect_error("\"\xed\xa0\x80\"",
               "Invalid UTF-8 in string at line 1, column 2",
               1); /* an encoded surrogate */
  expect_error("\"\xf4\x90\x80\x80\"",
               "Invalid UTF-8 in string at line 1, column 2",
               1); /* above U+10FFFF */
  expect_error("\"abc\xe2\x82\"", "Invalid UTF-8 in string at line 1, column 5",
               4); /* truncated */
  expect_error("\"0123456789\x80\"",
               "Invalid UTF-8 in string at line 1, column 12", 11);
  expect_error("\"\\n\xff\"", "Invalid UTF-8 in string at line 1, column 4",
               3); /* on the escape path */
  expect_error("\xff", "Invalid UTF-8 at line 1, column 1", 0);
  expect_error("[\xc3\xa9]", "Unexpected character U+00E9 at line 1, column 2",
               1);
}

/* The reader's inline UTF-8 check accepts exactly what the strict core
 * decoder accepts: every 2-byte sequence, every 3-byte one over all first
 * two bytes, and 4-byte ones over all first two bytes, in both the plain
 * and the escape path. */
static void expect_utf8_agrees(const unsigned char *seq, size_t n) {
  char doc[16];
  uint32_t cp;
  bool valid = gql_utf8_decode((const char *)seq, n, &cp) == n;
  for (int path = 0; path < 2; path++) {
    size_t len = 0;
    doc[len++] = '"';
    if (path) {
      doc[len++] = '\\';
      doc[len++] = 'n';
    }
    memcpy(doc + len, seq, n);
    len += n;
    doc[len++] = '"';
    gql_json_value *v;
    int rc = gql_json_parse(arena, doc, len, NULL, &v, NULL);
    cr_assert_eq(rc == 0, valid, "%02x %02x %02x %02x (n=%zu, path %d)", seq[0],
                 seq[1], n > 2 ? seq[2] : 0, n > 3 ? seq[3] : 0, n, path);
  }
}

Test(json_reader, utf8_validation_matches_the_strict_decoder) {
  unsigned char seq[4];
  for (unsigned a = 0x80; a < 0x100; a++) {
    for (unsigned b = 0; b < 0x100; b++) {
      if (b == '"' || b == '\\')
        continue;
      seq[0] = (unsigned char)a, seq[1] = (unsigned char)b;
      expect_utf8_agrees(seq, 2);
      seq[2] = 0x80 | (b & 0x3F);
      expect_utf8_agrees(seq, 3);
      seq[3] = 0xBF;
      expect_utf8_agrees(seq, 4);
    }
  }
}

Test(json_reader, rejects_lone_surrogate_escapes) {
  expect_error("\"\\uD800\"",
               "Lone high surrogate '\\uD800' in string at line 1, column 2",
               1);
  expect_error("\"ab\\uD83D\\u0041\"",
               "Lone high surrogate '\\uD83D' in string at line 1, column 4",
               3);
  expect_error("\"\\uD83Dx\"",
               "Lone high surrogate '\\uD83D' in string at line 1, column 2",
               1);
  expect_error("\"\\uD83D\\uD83D\"",
               "Lone high surrogate '\\uD83D' in string at line 1, column 2",
               1);
  expect_error("\"\\uDE00\"",
               "Lone low surrogate '\\uDE00' in string at line 1, column 2", 1);
  expect_error("\"\\uD800",
               "Lone high surrogate '\\uD800' in string at line 1, column 2",
               1);
}

Test(json_reader, rejects_bad_escapes) {
  expect_error("\"\\x\"", "Invalid escape sequence '\\x' at line 1, column 2",
               1);
  expect_error("\"\\'\"", "Invalid escape sequence '\\'' at line 1, column 2",
               1);
  expect_error("\"\\u12G4\"",
               "Invalid Unicode escape: \\u must be followed by 4 hex digits"
               " at line 1, column 2",
               1);
  expect_error("\"\\u12\"",
               "Invalid Unicode escape: \\u must be followed by 4 hex digits"
               " at line 1, column 2",
               1);
  expect_error("\"\\", "Unterminated string at line 1, column 3", 2);
}

Test(json_reader, rejects_control_characters_in_strings) {
  expect_error("\"a\nb\"",
               "Invalid control character U+000A in string at line 1, column 3",
               2);
  expect_error("\"\t\"",
               "Invalid control character U+0009 in string at line 1, column 2",
               1);
  expect_error("\"\\n\x1f\"",
               "Invalid control character U+001F in string at line 1, column 4",
               3);
  /* DEL is not a control character for JSON. */
  cr_assert(gql_str_eq_cstr(parse_ok("\"\x7f\"")->string, "\x7f"));
}

Test(json_reader, rejects_unterminated_strings_at_the_end) {
  expect_error("\"abc", "Unterminated string at line 1, column 5", 4);
  expect_error("[\"abc\\\"]", "Unterminated string at line 1, column 9", 8);
  expect_error("{\"a", "Unterminated string at line 1, column 4", 3);
}

Test(json_reader, rejects_malformed_numbers) {
  expect_error("01",
               "Invalid number: leading zeros are not allowed at line 1, "
               "column 1",
               0);
  expect_error("[-012]",
               "Invalid number: leading zeros are not allowed at line 1, "
               "column 2",
               1);
  expect_error("+1", "Unexpected character '+' at line 1, column 1", 0);
  expect_error(".5", "Unexpected character '.' at line 1, column 1", 0);
  expect_error("1.",
               "Invalid number: expected a digit after '.' at line 1, "
               "column 3",
               2);
  expect_error("1.e5",
               "Invalid number: expected a digit after '.' at line 1, "
               "column 3",
               2);
  expect_error("1e",
               "Invalid number: expected a digit in the exponent at line 1, "
               "column 3",
               2);
  expect_error("[1E+]",
               "Invalid number: expected a digit in the exponent at line 1, "
               "column 5",
               4);
  expect_error("-", "Unexpected end of input at line 1, column 2", 1);
  expect_error("- 1",
               "Invalid number: expected a digit after '-' at line 1, "
               "column 2",
               1);
  expect_error("0x10",
               "Unexpected character 'x' after the JSON value at line 1, "
               "column 2",
               1);
}

Test(json_reader, rejects_nan_and_infinity) {
  expect_error("NaN", "Unexpected character 'N' at line 1, column 1", 0);
  expect_error("Infinity", "Unexpected character 'I' at line 1, column 1", 0);
  expect_error("-Infinity",
               "Invalid number: expected a digit after '-' at line 1, "
               "column 2",
               1);
  expect_error("[nan]", "Unexpected character 'a' at line 1, column 3", 2);
}

Test(json_reader, rejects_numbers_out_of_double_range) {
  expect_error("1e400", "Number out of range: 1e400 at line 1, column 1", 0);
  expect_error("[0, -1.8e308]",
               "Number out of range: -1.8e308 at line 1, column 5", 4);
  expect_error("1e99999999999999999999",
               "Number out of range: 1e99999999999999999999 at line 1, "
               "column 1",
               0);
  /* Underflow is not an error: JSON.parse gives 0. */
  cr_assert_eq(parse_ok("1e-99999999999")->number.d, 0.0);
}

Test(json_reader, rejects_trailing_commas) {
  expect_error("[1,]", "Trailing comma before ']' at line 1, column 3", 2);
  expect_error("{\"a\":1 , }", "Trailing comma before '}' at line 1, column 8",
               7);
  expect_error("[,1]", "Unexpected character ',' at line 1, column 2", 1);
  expect_error("[1,,2]", "Unexpected character ',' at line 1, column 4", 3);
  expect_error("{,}",
               "Unexpected character ',', expected a string key at "
               "line 1, column 2",
               1);
}

Test(json_reader, rejects_trailing_garbage_after_the_root) {
  expect_error("{} x",
               "Unexpected character 'x' after the JSON value at line 1, "
               "column 4",
               3);
  expect_error("1 2",
               "Unexpected character '2' after the JSON value at line 1, "
               "column 3",
               2);
  expect_error("[]]",
               "Unexpected character ']' after the JSON value at line 1, "
               "column 3",
               2);
  expect_error("truex",
               "Unexpected character 'x' after the JSON value at line 1, "
               "column 5",
               4);
  /* A NUL after the root is garbage too, not an end. */
  gql_json_error err = parse_err("{}\0", 3, GQL_EJSON);
  cr_assert_str_eq(err.message, "Unexpected character U+0000 after the JSON "
                                "value at line 1, column 3");
}

Test(json_reader, rejects_structural_mistakes_with_what_was_expected) {
  expect_error("", "Unexpected end of input at line 1, column 1", 0);
  expect_error(" \n ", "Unexpected end of input at line 2, column 2", 3);
  expect_error("[", "Unexpected end of input at line 1, column 2", 1);
  expect_error("[1",
               "Unexpected end of input, expected ',' or ']' at line 1, "
               "column 3",
               2);
  expect_error("{",
               "Unexpected end of input, expected a string key at line "
               "1, column 2",
               1);
  expect_error("{\"a\"",
               "Unexpected end of input, expected ':' after the key at line "
               "1, column 5",
               4);
  expect_error("{\"a\":", "Unexpected end of input at line 1, column 6", 5);
  expect_error("{a:1}",
               "Unexpected character 'a', expected a string key at line 1, "
               "column 2",
               1);
  expect_error("{\"a\" 1}",
               "Unexpected character '1', expected ':' after the key at line "
               "1, column 6",
               5);
  expect_error("[1 2]",
               "Unexpected character '2', expected ',' or ']' at line 1, "
               "column 4",
               3);
  expect_error("{\"a\":1 \"b\":2}",
               "Unexpected character '\"', expected ',' or '}' at line 1, "
               "column 8",
               7);
  expect_error("[1}",
               "Unexpected character '}', expected ',' or ']' at line "
               "1, column 3",
               2);
  expect_error("'a'", "Unexpected character ''' at line 1, column 1", 0);
  expect_error("/* c */ 1", "Unexpected character '/' at line 1, column 1", 0);
  expect_error("tru", "Unexpected end of input at line 1, column 4", 3);
  expect_error("trUe", "Unexpected character 'U' at line 1, column 3", 2);
  expect_error("\x01", "Unexpected character U+0001 at line 1, column 1", 0);
  expect_error("\xef\xbb\xbf{}",
               "Unexpected character U+FEFF at line 1, "
               "column 1",
               0); /* a BOM is not JSON whitespace */
}

Test(json_reader, reports_lines_and_columns_across_lines) {
  expect_error("[1,\n 2,\n x]", "Unexpected character 'x' at line 3, column 2",
               9);
  expect_error("{\r\n  \"é\": 1,\r\n  }",
               "Trailing comma before '}' at line 2, column 9", 12);
  /* Columns count UTF-16 units: 😀 is two. */
  expect_error("[\"😀\", x]", "Unexpected character 'x' at line 1, column 8", 9);
}

Test(json_reader, error_pointer_may_be_null) {
  gql_json_value *v;
  cr_assert_eq(gql_json_parse(arena, "[1,]", 4, NULL, &v, NULL), GQL_EJSON);
  cr_assert_null(v);
}

/* ---- limits */

static char *nested(size_t depth, char open, char close) {
  char *s = malloc(2 * depth + 1);
  memset(s, open, depth);
  memset(s + depth, close, depth);
  s[2 * depth] = 0;
  return s;
}

Test(json_reader, nesting_at_the_default_limit_parses) {
  char *s = nested(512, '[', ']');
  gql_json_value *v = parse_ok(s);
  int depth = 0;
  while (v->kind == GQL_JSON_ARRAY && v->array.count) {
    v = &v->array.items[0];
    depth++;
  }
  cr_assert_eq(depth, 511);
  free(s);
}

Test(json_reader, nesting_over_the_default_limit_is_a_limit_error) {
  char *s = nested(513, '[', ']');
  gql_json_error err = parse_err(s, strlen(s), GQL_ELIMIT);
  cr_assert_str_eq(err.message,
                   "Nesting deeper than 512 levels at line 1, column 513");
  cr_assert_eq(err.offset, 512);
  free(s);
}

Test(json_reader, nesting_of_objects_counts_too) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (int i = 0; i < 600; i++)
    gql_buf_puts(&b, "{\"a\":");
  gql_buf_puts(&b, "1");
  for (int i = 0; i < 600; i++)
    gql_buf_putc(&b, '}');
  gql_json_error err = parse_err(gql_buf_cstr(&b), b.len, GQL_ELIMIT);
  cr_assert_str_eq(err.message,
                   "Nesting deeper than 512 levels at line 1, column 2561");
  gql_buf_free(&b);
}

Test(json_reader, nesting_limit_is_configurable) {
  gql_json_options opt = {.max_depth = 3};
  gql_json_value *v;
  gql_json_error err;
  cr_assert_eq(gql_json_parse(arena, "[{\"a\":[]}]", 10, &opt, &v, &err), 0);
  cr_assert_eq(gql_json_parse(arena, "[{\"a\":[[]]}]", 12, &opt, &v, &err),
               GQL_ELIMIT);
  cr_assert_str_eq(err.message,
                   "Nesting deeper than 3 levels at line 1, column 8");
}

Test(json_reader, a_million_open_brackets_fail_fast_without_recursion) {
  size_t n = 1000000;
  char *s = malloc(n);
  memset(s, '[', n);
  gql_json_error err = parse_err(s, n, GQL_ELIMIT);
  cr_assert_eq(err.offset, 512);
  free(s);
}

Test(json_reader, very_deep_documents_parse_iteratively_when_allowed) {
  size_t depth = 200000;
  char *s = nested(depth, '[', ']');
  gql_json_options opt = {.max_depth = 300000};
  gql_json_value *v;
  gql_json_error err;
  cr_assert_eq(gql_json_parse(arena, s, 2 * depth, &opt, &v, &err), 0, "%s",
               err.message);
  size_t d = 1;
  while (v->array.count) {
    v = &v->array.items[0];
    d++;
  }
  cr_assert_eq(d, depth);
  free(s);
}

Test(json_reader, documents_over_the_size_limit_are_refused) {
  gql_json_options opt = {.max_size = 10};
  gql_json_value *v;
  gql_json_error err;
  cr_assert_eq(gql_json_parse(arena, "[1,2,3,4,5]", 11, &opt, &v, &err),
               GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Document of 11 bytes exceeds the limit of "
                                "10 bytes at line 1, column 1");
  cr_assert_eq(gql_json_parse(arena, "[1,2,3,45]", 10, &opt, &v, &err), 0);
}

Test(json_reader, very_long_numbers_are_a_limit_error) {
  size_t n = 70000;
  char *s = malloc(n + 1);
  memset(s, '1', n);
  s[n] = 0;
  gql_json_error err = parse_err(s, n, GQL_ELIMIT);
  cr_assert_str_eq(err.message,
                   "Number longer than 65536 characters at line 1, column 1");
  free(s);
}

/* ---- memory */

typedef struct counting {
  size_t mallocs, frees;
  long live_bytes;
  long fail_after; /* -1: never */
} counting;

static void *c_malloc(void *ctx, size_t size) {
  counting *c = ctx;
  if (c->fail_after == 0)
    return NULL;
  if (c->fail_after > 0)
    c->fail_after--;
  c->mallocs++;
  c->live_bytes += (long)size;
  return malloc(size);
}
static void *c_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  counting *c = ctx;
  if (c->fail_after == 0)
    return NULL;
  if (c->fail_after > 0)
    c->fail_after--;
  c->live_bytes += (long)new_size - (long)old_size;
  return realloc(p, new_size);
}
static void c_free(void *ctx, void *p, size_t size) {
  counting *c = ctx;
  c->frees++;
  c->live_bytes -= (long)size;
  free(p);
}

static char *sample_document(int items) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"data\":{\"items\":[");
  for (int i = 0; i < items; i++)
    gql_buf_printf(&b,
                   "%s{\"id\":%d,\"name\":\"item\\u0020%d\",\"score\":%d.5,"
                   "\"tags\":[\"a\",\"b\"]}",
                   i ? "," : "", i, i, i);
  gql_buf_puts(&b, "]}}");
  return (char *)gql_buf_cstr(&b);
}

Test(json_reader, small_documents_need_no_scratch_allocation) {
  counting c = {.fail_after = -1};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_json_options opt = {.alc = &alc};
  gql_json_value *v;
  const char *src = "{\"query\":\"{ a }\",\"variables\":{\"x\":[1,2,3]}}";
  cr_assert_eq(gql_json_parse(arena, src, strlen(src), &opt, &v, NULL), 0);
  cr_assert_eq(c.mallocs, 0);
}

Test(json_reader, failing_arena_allocator_gives_nomem_never_a_crash) {
  char *src = sample_document(2000);
  size_t len = strlen(src);
  bool succeeded = false;
  for (long n = 0; n < 200 && !succeeded; n++) {
    counting c = {.fail_after = n};
    gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
    gql_arena *a = gql_arena_new(&alc);
    if (!a)
      continue;
    gql_json_value *v;
    gql_json_error err;
    int rc = gql_json_parse(a, src, len, NULL, &v, &err);
    if (rc == 0) {
      succeeded = true;
      cr_assert_eq(gql_json_get(v, GQL_STR("data"))->kind, GQL_JSON_OBJECT);
    } else {
      cr_assert_eq(rc, GQL_ENOMEM, "n=%ld rc=%d %s", n, rc, err.message);
      cr_assert_null(v);
      cr_assert(strncmp(err.message, "Out of memory", 13) == 0, "%s",
                err.message);
    }
    gql_arena_free(a);
    cr_assert_eq(c.live_bytes, 0, "leak with n=%ld", n);
  }
  cr_assert(succeeded, "the parse succeeds once enough memory is allowed");
  free(src);
}

Test(json_reader, failing_scratch_allocator_gives_nomem_and_frees_it) {
  char *src = sample_document(500);
  size_t len = strlen(src);
  for (long n = 0; n < 4; n++) {
    counting c = {.fail_after = n};
    gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
    gql_json_options opt = {.alc = &alc};
    gql_json_value *v;
    gql_json_error err;
    int rc = gql_json_parse(arena, src, len, &opt, &v, &err);
    cr_assert(rc == 0 || rc == GQL_ENOMEM);
    if (n == 0)
      cr_assert_eq(rc, GQL_ENOMEM, "500 items need a scratch stack");
    cr_assert_eq(c.live_bytes, 0, "scratch freed with n=%ld", n);
  }
  free(src);
}

Test(json_reader, arena_byte_limit_stops_a_huge_document) {
  char *src = sample_document(20000);
  gql_arena *a = gql_arena_new(NULL);
  gql_arena_set_limit(a, 64 * 1024);
  gql_json_value *v;
  gql_json_error err;
  cr_assert_eq(gql_json_parse(a, src, strlen(src), NULL, &v, &err), GQL_ENOMEM);
  gql_arena_free(a);
  free(src);
}

/* ---- equality */

Test(json_reader, equal_compares_structure_and_values) {
  gql_json_value *a = parse_ok("{\"a\":[1,2.0,{\"b\":\"x\"}],\"c\":null}");
  gql_json_value *b =
      parse_ok(" { \"a\" : [ 1.0 , 2 , { \"b\":\"\\u0078\" } ] ,"
               " \"c\" : null } ");
  cr_assert(gql_json_equal(a, b));
  cr_assert_not(gql_json_equal(a, parse_ok("{\"a\":[1,2,{\"b\":\"y\"}],"
                                           "\"c\":null}")));
  cr_assert_not(gql_json_equal(a, parse_ok("{\"c\":null,\"a\":[1,2,{\"b\":"
                                           "\"x\"}]}")));
  cr_assert_not(gql_json_equal(a, parse_ok("{\"a\":[1,2],\"c\":null}")));
  cr_assert_not(gql_json_equal(parse_ok("[true]"), parse_ok("[false]")));
  cr_assert_not(gql_json_equal(parse_ok("[0]"), parse_ok("[false]")));
}

Test(json_reader, same_ignores_member_order_and_takes_the_last_of_a_key) {
  gql_json_value *a =
      parse_ok("{\"a\":[1,2.5,{\"b\":\"x\",\"c\":2}],\"d\":null}");
  cr_assert(gql_json_same(
      a, parse_ok("{\"d\":null,\"a\":[1.0,2.5,{\"c\":2,\"b\":\"x\"}]}")));
  cr_assert(
      gql_json_same(parse_ok("{\"a\":1,\"a\":2}"), parse_ok("{\"a\":2}")));
  cr_assert_not(
      gql_json_same(parse_ok("{\"a\":1,\"a\":2}"), parse_ok("{\"a\":1}")));
  /* arrays stay in order; a missing or extra key differs */
  cr_assert_not(gql_json_same(a, parse_ok("{\"d\":null,\"a\":[2.5,1,{\"c\":2,"
                                          "\"b\":\"x\"}]}")));
  cr_assert_not(gql_json_same(a, parse_ok("{\"a\":[1,2.5,{\"b\":\"x\","
                                          "\"c\":2}]}")));
  cr_assert_not(
      gql_json_same(parse_ok("{\"a\":1}"), parse_ok("{\"a\":1,\"b\":null}")));
  cr_assert_not(gql_json_same(parse_ok("[0]"), parse_ok("[false]")));
  cr_assert_not(gql_json_same(parse_ok("[\"1\"]"), parse_ok("[1]")));
}

Test(json_reader, equal_handles_deep_values) {
  char *s = nested(5000, '[', ']');
  gql_json_options opt = {.max_depth = 10000};
  gql_json_value *x, *y;
  cr_assert_eq(gql_json_parse(arena, s, 10000, &opt, &x, NULL), 0);
  cr_assert_eq(gql_json_parse(arena, s, 10000, &opt, &y, NULL), 0);
  cr_assert(gql_json_equal(x, y));
  free(s);
}
