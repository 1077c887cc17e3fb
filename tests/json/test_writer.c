#include "json/json.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static gql_arena *arena;
static gql_buf out;

static void setup(void) {
  arena = gql_arena_new(NULL);
  gql_buf_init(&out, NULL);
}
static void teardown(void) {
  gql_buf_free(&out);
  gql_arena_free(arena);
}

TestSuite(json_writer, .init = setup, .fini = teardown);

static const char *take(void) {
  const char *s = gql_buf_cstr(&out);
  cr_assert_not_null(s);
  return s;
}

static gql_json_value *parse(const char *src) {
  gql_json_value *v;
  gql_json_error err;
  int rc = gql_json_parse(arena, src, strlen(src), NULL, &v, &err);
  cr_assert_eq(rc, 0, "%s: %s", src, err.message);
  return v;
}

/* ---- numbers: expected strings are what node prints for String(x) */

static uint64_t pow10_u(int n) {
  uint64_t p = 1;
  while (n-- > 0)
    p *= 10;
  return p;
}

typedef struct num_case {
  double d;
  const char *js;
} num_case;

Test(json_writer, doubles_print_as_javascript_number_to_string) {
  static const num_case cases[] = {
      {0.1, "0.1"},
      {1e21, "1e+21"},
      {1e-7, "1e-7"},
      {-1e-7, "-1e-7"},
      {5e-7, "5e-7"},
      {123e-20, "1.23e-18"},
      {5e-324, "5e-324"},
      {-5e-324, "-5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {-0.0, "0"},
      {0.0, "0"},
      {0.000001, "0.000001"},
      {9007199254740992.0, "9007199254740992"},
      {123456789012345680000.0, "123456789012345680000"},
      {1e20, "100000000000000000000"},
      {0.1 + 0.2, "0.30000000000000004"},
      {9223372036854775808.0, "9223372036854776000"},
      {-9223372036854775808.0, "-9223372036854776000"},
      {18446744073709551616.0, "18446744073709552000"},
      {1.0 / 3.0, "0.3333333333333333"},
      {1e301, "1e+301"},
      {1e100, "1e+100"},
      {1.5, "1.5"},
      {-1.5, "-1.5"},
      {100, "100"},
      {4.35, "4.35"},
      {123.456, "123.456"},
      {1e15, "1000000000000000"},
      {1e16, "10000000000000000"},
      {2.5e-8, "2.5e-8"},
      {1.5e-323, "1.5e-323"},
      {1234.5e10, "12345000000000"},
      {499.5, "499.5"},
      {-42, "-42"},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    out.len = 0;
    gql_json_write_double(&out, cases[i].d);
    cr_assert_str_eq(take(), cases[i].js, "case %zu (%.17g)", i, cases[i].d);
  }
}

Test(json_writer, dtoa_shim_prints_shortest_round_trip_digits) {
  char buf[32];
  size_t n = gql_dtoa(0.1, buf);
  cr_assert_eq(n, 3);
  cr_assert_eq(memcmp(buf, "0.1", 3), 0);
  n = gql_dtoa(-1.7976931348623157e308, buf);
  cr_assert_eq(n, 24);
  cr_assert_eq(memcmp(buf, "-1.7976931348623157e+308", 24), 0);
  /* Every printed double reads back as itself. */
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d;
    memcpy(&d, &x, sizeof d);
    if (!isfinite(d))
      continue;
    n = gql_dtoa(d, buf);
    buf[n] = 0;
    double back = strtod(buf, NULL);
    cr_assert_eq(memcmp(&back, &d, sizeof d), 0, "%s", buf);
  }
}

/* The writer's own paths (integers, short decimals) must print exactly
 * what the general EcmaScript converter prints. */
static void expect_same_as_dtoa(double d) {
  char want[33];
  want[gql_dtoa(d, want)] = 0;
  out.len = 0;
  gql_json_write_double(&out, d);
  cr_assert_str_eq(take(), want, "%.17g", d);
}

Test(json_writer, fast_number_paths_agree_with_the_ecmascript_converter) {
  static const double pow10[] = {1,   1e1, 1e2, 1e3,  1e4,  1e5,  1e6,
                                 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < 300000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    /* decimals m / 10^k of up to 17 digits, both signs */
    uint64_t m = x % pow10_u(1 + (int)(x >> 59) % 17);
    double d = (double)m / pow10[(x >> 40) % GQL_ARRAY_LEN(pow10)];
    expect_same_as_dtoa(x & 1 ? -d : d);
    /* arbitrary bit patterns */
    memcpy(&d, &x, sizeof d);
    if (isfinite(d))
      expect_same_as_dtoa(d);
  }
  static const double edges[] = {1e-6,
                                 0.0000015,
                                 9.99e-7,
                                 0.000001000001,
                                 999999999999999.9,
                                 999999999999999.0,
                                 1e15 + 0.5,
                                 0.1 + 0.2,
                                 123456.7890123,
                                 4503599627370495.5,
                                 9007199254740991.0,
                                 9007199254740993.0,
                                 0.123456789,
                                 0.0123456789,
                                 37.7749295,
                                 19.99};
  for (size_t i = 0; i < GQL_ARRAY_LEN(edges); i++) {
    expect_same_as_dtoa(edges[i]);
    expect_same_as_dtoa(-edges[i]);
  }
}

Test(json_writer, non_finite_numbers_print_null_like_json_stringify) {
  gql_json_write_double(&out, NAN);
  gql_buf_putc(&out, ',');
  gql_json_write_double(&out, INFINITY);
  gql_buf_putc(&out, ',');
  gql_json_write_double(&out, -INFINITY);
  cr_assert_str_eq(take(), "null,null,null");
}

Test(json_writer, integers_print_in_decimal) {
  static const struct {
    int64_t i;
    const char *s;
  } cases[] = {
      {0, "0"},
      {7, "7"},
      {-1, "-1"},
      {10, "10"},
      {99, "99"},
      {100, "100"},
      {-1234567890, "-1234567890"},
      {INT64_MAX, "9223372036854775807"},
      {INT64_MIN, "-9223372036854775808"},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    out.len = 0;
    gql_json_write_int(&out, cases[i].i);
    cr_assert_str_eq(take(), cases[i].s);
  }
}

/* The digit counting and backward writing agree with printf at every
 * digit-count boundary and on random values of every magnitude. */
Test(json_writer, integers_agree_with_printf_at_every_length) {
  char want[32];
  for (int k = 0; k <= 18; k++) {
    int64_t p = (int64_t)pow10_u(k);
    int64_t around[] = {p - 1, p, p + 1, -(p - 1), -p, -(p + 1)};
    for (size_t i = 0; i < GQL_ARRAY_LEN(around); i++) {
      snprintf(want, sizeof want, "%lld", (long long)around[i]);
      out.len = 0;
      gql_json_write_int(&out, around[i]);
      cr_assert_str_eq(take(), want);
    }
  }
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 1000000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t v = (int64_t)(x >> (x & 63)); /* every magnitude */
    if (x & 64)
      v = -v;
    snprintf(want, sizeof want, "%lld", (long long)v);
    out.len = 0;
    gql_json_write_int(&out, v);
    cr_assert_str_eq(take(), want);
  }
}

/* Every integer from -20000 to 20000, as an int and as a double, next to
 * text already in the buffer and at every spare capacity (the small-value
 * path writes in place only with room for four bytes). */
Test(json_writer, small_integers_agree_with_printf_at_any_capacity) {
  char want[32], got[48];
  for (int v = -20000; v <= 20000; v++) {
    snprintf(want, sizeof want, "%d", v);
    out.len = 0;
    gql_json_write_int(&out, v);
    cr_assert_str_eq(take(), want);
    out.len = 0;
    gql_json_write_double(&out, (double)v);
    cr_assert_str_eq(take(), want);
  }
  for (size_t spare = 0; spare < 8; spare++) {
    for (int v = 0; v < 10000; v += 1 + v / 7) {
      gql_buf b;
      gql_buf_init(&b, NULL);
      gql_buf_append(&b, "x", 1);
      cr_assert(gql_buf_reserve(&b, 1));
      b.len = b.cap - spare; /* filler bytes stand before the number */
      memset(b.data, 'x', b.len);
      gql_json_write_int(&b, v);
      gql_json_write_double(&b, (double)v);
      snprintf(want, sizeof want, "%d%d", v, v);
      size_t n = strlen(want);
      cr_assert_geq(b.len, n);
      memcpy(got, b.data + b.len - n, n);
      got[n] = 0;
      cr_assert_str_eq(got, want);
      gql_buf_free(&b);
    }
  }
}

/* ---- strings */

/* Strings of 0 to 20 bytes, plain or with a quote at each position, write
 * the same bytes whatever the spare capacity (the short-string path writes
 * in place only with room for 18 bytes). */
Test(json_writer, short_strings_write_the_same_at_any_capacity) {
  char src[21], want[64];
  for (size_t n = 0; n <= 20; n++) {
    for (size_t q = 0; q <= n; q++) { /* q == n: no quote */
      memset(src, 'a', n);
      if (q < n)
        src[q] = '"';
      size_t wl = 0;
      want[wl++] = '"';
      for (size_t i = 0; i < n; i++) {
        if (src[i] == '"')
          want[wl++] = '\\';
        want[wl++] = src[i];
      }
      want[wl++] = '"';
      for (size_t spare = 0; spare < 24; spare++) {
        gql_buf b;
        gql_buf_init(&b, NULL);
        gql_buf_append(&b, "x", 1);
        cr_assert(gql_buf_reserve(&b, 1));
        b.len = b.cap - spare;
        memset(b.data, 'x', b.len);
        size_t before = b.len;
        gql_json_write_string(&b, gql_str_from(src, n));
        cr_assert_eq(b.len - before, wl, "n %zu q %zu spare %zu", n, q, spare);
        cr_assert(memcmp(b.data + before, want, wl) == 0);
        gql_buf_free(&b);
      }
    }
  }
}

Test(json_writer, control_characters_escape_as_json_stringify) {
  char all[32];
  for (int i = 0; i < 32; i++)
    all[i] = (char)i;
  gql_json_write_string(&out, gql_str_from(all, 32));
  cr_assert_str_eq(
      take(),
      "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t"
      "\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014"
      "\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d"
      "\\u001e\\u001f\"");
}

Test(json_writer, quotes_and_backslashes_escape_but_not_slash_del_or_2028) {
  gql_json_write_string(&out,
                        GQL_STR("a\"b\\c/d\x7f\xe2\x80\xa8\xe2\x80\xa9é€😀"));
  cr_assert_str_eq(take(), "\"a\\\"b\\\\c/d\x7f\xe2\x80\xa8\xe2\x80\xa9é€😀\"");
}

Test(json_writer, long_plain_strings_copy_through) {
  const char *s = "The quick brown fox jumps over the lazy dog, twice: "
                  "The quick brown fox jumps over the lazy dog.";
  gql_json_write_string(&out, gql_cstr(s));
  cr_assert_eq(out.len, strlen(s) + 2);
  cr_assert_eq(memcmp(out.data + 1, s, strlen(s)), 0);
  out.len = 0;
  gql_json_write_string(&out, GQL_STR(""));
  cr_assert_str_eq(take(), "\"\"");
}

Test(json_writer, escapes_in_the_middle_of_long_runs) {
  gql_json_write_string(&out, GQL_STR("0123456789abcdef\"0123456789\nxyz"));
  cr_assert_str_eq(take(), "\"0123456789abcdef\\\"0123456789\\nxyz\"");
}

Test(json_writer, invalid_utf8_becomes_replacement_characters) {
  gql_json_write_string(&out, GQL_STR("a\xff"
                                      "b\xc3"));
  cr_assert_str_eq(take(), "\"a\xef\xbf\xbd"
                           "b\xef\xbf\xbd\"");
  out.len = 0;
  gql_json_write_string(&out, GQL_STR("\xed\xa0\x80")); /* a surrogate */
  cr_assert_str_eq(take(), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

/* JSON.stringify of a string, byte by byte (the input is valid UTF-8). */
static void reference_string(gql_buf *b, const char *s, size_t n) {
  gql_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      gql_buf_putc(b, '\\');
      gql_buf_putc(b, (char)c);
    } else if (c == '\n') {
      gql_buf_append(b, "\\n", 2);
    } else if (c < 0x20) {
      gql_buf_printf(b, "\\u%04x", c);
    } else {
      gql_buf_putc(b, (char)c);
    }
  }
  gql_buf_putc(b, '"');
}

/* The word-at-a-time scan (whole words, an overlapping last word, two
 * halves under 8 bytes) finds a byte needing an escape at every position
 * of strings of every length up to 40, and copies plain ones exactly. Each
 * input sits in its own allocation of its exact size, so that a read past
 * its end shows under ASan. */
Test(json_writer, string_scan_finds_specials_at_every_position) {
  static const char specials[] = {'"', '\\', '\n', 0x1f, 0x01};
  gql_buf want;
  gql_buf_init(&want, NULL);
  for (size_t n = 0; n <= 40; n++) {
    char *s = malloc(n ? n : 1);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
      s[i] = (char)('a' + i % 26);
    want.len = 0;
    reference_string(&want, s, n);
    out.len = 0;
    gql_json_write_string(&out, gql_str_from(s, n));
    cr_assert_eq(out.len, want.len);
    cr_assert_eq(memcmp(out.data, want.data, want.len), 0, "length %zu", n);
    for (size_t at = 0; at < n; at++) {
      for (size_t k = 0; k < sizeof specials; k++) {
        char keep = s[at];
        s[at] = specials[k];
        want.len = 0;
        reference_string(&want, s, n);
        out.len = 0;
        gql_json_write_string(&out, gql_str_from(s, n));
        cr_assert_eq(out.len, want.len, "length %zu, byte %zu", n, at);
        cr_assert_eq(memcmp(out.data, want.data, want.len), 0,
                     "length %zu, byte %zu", n, at);
        s[at] = keep;
      }
    }
    if (n >= 2) { /* a valid two-byte character at the end copies as is */
      s[n - 2] = (char)0xc3, s[n - 1] = (char)0xa9;
      want.len = 0;
      reference_string(&want, s, n);
      out.len = 0;
      gql_json_write_string(&out, gql_str_from(s, n));
      cr_assert_eq(out.len, want.len);
      cr_assert_eq(memcmp(out.data, want.data, want.len), 0);
    }
    free(s);
  }
  gql_buf_free(&want);
}

/* ---- values */

Test(json_writer, values_print_compact_like_json_stringify) {
  gql_json_value *v =
      parse("{ \"a\" : [1, 2.5, \"x\", true, false, null, {}, []] ,\n"
            "  \"b\": {\"c\": -0, \"d\": [[]], \"e\": 1E2, \"f\": 1.0,"
            " \"g\": \"\\u00e9\\/\"}}");
  cr_assert_eq(gql_json_write_value(&out, v), 0);
  cr_assert_str_eq(take(), "{\"a\":[1,2.5,\"x\",true,false,null,{},[]],"
                           "\"b\":{\"c\":0,\"d\":[[]],\"e\":100,\"f\":1,"
                           "\"g\":\"é/\"}}");
}

Test(json_writer, scalar_roots_print_alone) {
  static const char *cases[][2] = {
      {"null", "null"}, {" true ", "true"}, {"\"s\"", "\"s\""},
      {"[]", "[]"},     {"{}", "{}"},       {"-0.0", "0"},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(cases); i++) {
    out.len = 0;
    cr_assert_eq(gql_json_write_value(&out, parse(cases[i][0])), 0);
    cr_assert_str_eq(take(), cases[i][1]);
  }
}

Test(json_writer, big_integers_print_as_javascript_would_after_json_parse) {
  gql_json_value *v =
      parse("[9007199254740993,-9223372036854775808,12345678901234567890,"
            "9007199254740991]");
  cr_assert_eq(gql_json_write_value(&out, v), 0);
  cr_assert_str_eq(take(), "[9007199254740992,-9223372036854776000,"
                           "12345678901234567000,9007199254740991]");
}

Test(json_writer, pretty_output_matches_json_stringify_with_indent_2) {
  gql_json_value *v = parse("{\"a\":[1,2.5,\"x\",true,false,null,{},[]],"
                            "\"b\":{\"c\":-0,\"d\":[[]]}}");
  cr_assert_eq(gql_json_write_value_pretty(&out, v, 2), 0);
  cr_assert_str_eq(take(), "{\n"
                           "  \"a\": [\n"
                           "    1,\n"
                           "    2.5,\n"
                           "    \"x\",\n"
                           "    true,\n"
                           "    false,\n"
                           "    null,\n"
                           "    {},\n"
                           "    []\n"
                           "  ],\n"
                           "  \"b\": {\n"
                           "    \"c\": 0,\n"
                           "    \"d\": [\n"
                           "      []\n"
                           "    ]\n"
                           "  }\n"
                           "}");
}

Test(json_writer, canonical_documents_round_trip_byte_for_byte) {
  static const char *docs[] = {
      "{\"data\":{\"hero\":{\"id\":\"2001\",\"name\":\"R2-D2\",\"friends\":["
      "{\"name\":\"Luke Skywalker\"},{\"name\":\"Han Solo\"}]}}}",
      "[0.1,1e+21,1e-7,5e-324,-1.5,9007199254740991,\"\\u0000\\n\",\"é\"]",
      "{\"errors\":[{\"message\":\"x\",\"locations\":[{\"line\":1,\"column\":"
      "3}],\"path\":[\"a\",0,\"b\"]}],\"data\":null}",
      "[[[[[]]]],{},{\"\":{\"\":[]}}]",
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(docs); i++) {
    out.len = 0;
    cr_assert_eq(gql_json_write_value(&out, parse(docs[i])), 0);
    cr_assert_str_eq(take(), docs[i]);
  }
}

Test(json_writer, written_values_parse_back_equal) {
  gql_buf src;
  gql_buf_init(&src, NULL);
  gql_buf_putc(&src, '[');
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 5000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d;
    memcpy(&d, &x, sizeof d);
    if (!isfinite(d))
      d = (double)(int64_t)x;
    char num[32];
    num[gql_dtoa(d, num)] = 0;
    gql_buf_printf(&src, "%s{\"n\":%s,\"s\":\"\\u%04x\\t%d\",\"b\":%s}",
                   i ? "," : "", num, (unsigned)(x % 0xD000) + 1, i,
                   i % 2 ? "true" : "null");
  }
  gql_buf_putc(&src, ']');
  gql_json_value *a = parse(gql_buf_cstr(&src));
  cr_assert_eq(gql_json_write_value(&out, a), 0);
  gql_json_value *b = parse(take());
  cr_assert(gql_json_equal(a, b));
  /* Writing again gives the same bytes. */
  gql_buf again;
  gql_buf_init(&again, NULL);
  cr_assert_eq(gql_json_write_value(&again, b), 0);
  cr_assert_eq(again.len, out.len);
  cr_assert_eq(memcmp(again.data, out.data, out.len), 0);
  gql_buf_free(&again);
  gql_buf_free(&src);
}

Test(json_writer, deep_values_write_iteratively) {
  size_t depth = 100000;
  char *s = malloc(2 * depth);
  memset(s, '[', depth);
  memset(s + depth, ']', depth);
  gql_json_options opt = {.max_depth = 200000};
  gql_json_value *v;
  cr_assert_eq(gql_json_parse(arena, s, 2 * depth, &opt, &v, NULL), 0);
  cr_assert_eq(gql_json_write_value(&out, v), 0);
  cr_assert_eq(out.len, 2 * depth);
  cr_assert_eq(memcmp(out.data, s, 2 * depth), 0);
  free(s);
}

/* ---- memory */

typedef struct failing {
  long fail_after;
} failing;

static void *f_malloc(void *ctx, size_t size) {
  failing *f = ctx;
  if (f->fail_after == 0)
    return NULL;
  f->fail_after--;
  return malloc(size);
}
static void *f_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  failing *f = ctx;
  if (f->fail_after == 0)
    return NULL;
  f->fail_after--;
  return realloc(p, new_size);
}
static void f_free(void *ctx, void *p, size_t size) {
  free(p);
}

Test(json_writer, failing_buffer_allocator_reports_nomem) {
  gql_buf src;
  gql_buf_init(&src, NULL);
  for (int i = 0; i < 100; i++)
    gql_buf_puts(&src, "[");
  gql_buf_puts(&src, "\"a long enough string to need a bigger buffer\"");
  for (int i = 0; i < 100; i++)
    gql_buf_puts(&src, "]");
  gql_json_options opt = {.max_depth = 1000};
  gql_json_value *v;
  cr_assert_eq(
      gql_json_parse(arena, gql_buf_cstr(&src), src.len, &opt, &v, NULL), 0);
  for (long n = 0; n < 3; n++) {
    failing f = {n};
    gql_allocator alc = {f_malloc, f_realloc, f_free, &f};
    gql_buf b;
    gql_buf_init(&b, &alc);
    cr_assert_eq(gql_json_write_value(&b, v), GQL_ENOMEM, "n=%ld", n);
    cr_assert(b.failed);
    gql_buf_free(&b);
  }
  failing f = {-1};
  gql_allocator alc = {f_malloc, f_realloc, f_free, &f};
  gql_buf b;
  gql_buf_init(&b, &alc);
  cr_assert_eq(gql_json_write_value(&b, v), 0);
  cr_assert_eq(b.len, src.len);
  gql_buf_free(&b);
  gql_buf_free(&src);
}

/* ---- hand-built values, as the executor makes them */

Test(json_writer, hand_built_values_write_like_parsed_ones) {
  gql_json_value items[3] = {
      {.kind = GQL_JSON_NUMBER, .number = {.d = 0.25}},
      {.kind = GQL_JSON_NUMBER, .is_int = true, .number = {.d = 7, .i = 7}},
      {.kind = GQL_JSON_STRING, .string = {"a\0b", 3}},
  };
  gql_json_member members[2] = {
      {GQL_STR("list"),
       {.kind = GQL_JSON_ARRAY, .array = {.items = items, .count = 3}}},
      {GQL_STR("empty"), {.kind = GQL_JSON_OBJECT}},
  };
  gql_json_value root = {.kind = GQL_JSON_OBJECT,
                         .object = {.members = members, .count = 2}};
  cr_assert_eq(gql_json_write_value(&out, &root), 0);
  cr_assert_str_eq(take(), "{\"list\":[0.25,7,\"a\\u0000b\"],\"empty\":{}}");
  cr_assert_null(gql_json_get(NULL, GQL_STR("list")));
  cr_assert_eq(gql_json_get(&root, GQL_STR("list"))->array.count, 3);
}

Test(json_writer, pretty_indent_is_clamped_like_json_stringify) {
  gql_json_value *v = parse("[1,[2]]");
  cr_assert_eq(gql_json_write_value_pretty(&out, v, 0), 0);
  cr_assert_str_eq(take(), "[1,[2]]");
  out.len = 0;
  cr_assert_eq(gql_json_write_value_pretty(&out, v, 40), 0);
  cr_assert_str_eq(take(), "[\n          1,\n          [\n                    2"
                           "\n          ]\n]");
}

Test(json_writer, key_prefix_copies_a_name_and_escapes_anything_else) {
  gql_str k = gql_json_key(arena, gql_cstr("hero_2"));
  cr_assert_eq(k.len, 9);
  cr_assert(memcmp(k.ptr, "\"hero_2\":", 9) == 0);
  k = gql_json_key(arena, gql_cstr("a\"b\\\n"));
  cr_assert_eq(k.len, 11);
  cr_assert(memcmp(k.ptr, "\"a\\\"b\\\\\\n\":", 11) == 0);
  k = gql_json_key(arena, gql_cstr("caf\xc3\xa9"));
  cr_assert_eq(k.len, 8, "UTF-8 through the writer, as is");
  cr_assert(memcmp(k.ptr, "\"caf\xc3\xa9\":", 8) == 0);
}
