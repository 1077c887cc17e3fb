/* Hostile documents validate fast with all rules: each shape that makes a
 * naive validator quadratic (or worse) validates in under 150 ms, and gives
 * the errors graphql-js gives. */
#include "validation/validation.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* 150 ms (the documents take about 50 ms on the project's 2-core VMs, a
 * quadratic validator seconds); sanitizer builds run several times slower */
#if defined(__SANITIZE_ADDRESS__)
#define LIMIT_MS 500.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIMIT_MS 500.0
#endif
#endif
#ifndef LIMIT_MS
#define LIMIT_MS 150.0
#endif

static const char *SDL =
    "type Query { a: String f(x: Int, y: String): String t: T big: Big "
    "v(x: Int): Int g(i: In): String }\n"
    "input In { a: Int b: Int }\n"
    "type T { x: String y: Int t: T f(x: Int): String }\n";

static gql_arena *arena;
static gql_schema *schema;

static void setup(void) {
  arena = gql_arena_new(NULL);
  cr_assert(arena);
  /* Big has a field with 1,000 arguments */
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, SDL);
  gql_buf_puts(&b, "type Big { many(");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%sa%d: Int", i ? ", " : "", i);
  gql_buf_puts(&b, "): Int }\n");
  gql_error_list errs;
  gql_error_list_init(&errs, arena, 0);
  int rc = gql_schema_build(b.data, b.len, NULL, NULL, &schema, &errs);
  gql_buf_free(&b);
  cr_assert_eq(rc, 0, "schema: %s", errs.count ? errs.items[0].message : "");
}

static void teardown(void) {
  gql_schema_free(schema);
  gql_arena_free(arena);
}

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 60);

/* This thread's CPU time: other work on a shared machine does not count
 * (wall-clock timing failed under load in Debug builds). */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Parses `text` (owned by the buffer), validates it with all rules and
 * returns the error list; *ms is the best validation CPU time of five. */
static gql_error_list validate(gql_buf *text, double *ms) {
  cr_assert_not(text->failed);
  const char *src = gql_buf_cstr(text);
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  gql_parse_options po = {.max_tokens = 1000000};
  int rc = gql_parse_syntax(arena, src, text->len, &po, &doc, &err);
  cr_assert_eq(rc, 0, "parse: %s", err.message ? err.message : "");
  /* the best of five runs: the machine is shared */
  gql_error_list errors;
  *ms = 1e9;
  for (int i = 0; i < 5; i++) {
    gql_error_list_init(&errors, arena, 0);
    double t0 = now_ms();
    rc = gql_validate_document(schema, doc, NULL, 0, NULL, &errors);
    double t = now_ms() - t0;
    cr_assert_eq(rc, 0);
    if (t < *ms)
      *ms = t;
  }
  return errors;
}

static void expect_valid_fast(gql_buf *text) {
  double ms;
  gql_error_list e = validate(text, &ms);
  cr_expect_eq(e.count, 0, "%u errors, first: %s", e.count,
               e.count ? e.items[0].message : "");
  cr_expect_lt(ms, LIMIT_MS, "validation took %.1f ms", ms);
}

Test(hostile, five_thousand_copies_of_one_field_are_linear) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 5000; i++)
    gql_buf_puts(&b, " a");
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, five_thousand_copies_of_a_field_with_subselection) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 5000; i++)
    gql_buf_puts(&b, " t { x }");
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, two_thousand_aliases_with_arguments) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 2000; i++)
    gql_buf_printf(&b, " a%d: f(x: %d, y: \"s%d\")", i, i, i);
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, many_copies_with_one_different_report_up_to_the_limit) {
  /* 3,000 `a: f(x: 1)` then one `a: f(x: 2)`: 3,000 conflicts, of which
   * the first 100 are reported before validation aborts */
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 3000; i++)
    gql_buf_puts(&b, " a: f(x: 1)");
  gql_buf_puts(&b, " a: f(x: 2) }");
  double ms;
  gql_error_list e = validate(&b, &ms);
  cr_assert_eq(e.count, 101);
  cr_expect_str_eq(e.items[0].message,
                   "Fields \"a\" conflict because they have differing "
                   "arguments. Use different aliases on the fields to fetch "
                   "both if this was intentional.");
  cr_expect_eq(e.items[0].nlocations, 2);
  cr_expect_eq(e.items[0].locations[0].column, 3);
  cr_expect_eq(e.items[1].locations[0].column, 14);
  cr_expect_str_eq(e.items[100].message,
                   "Too many validation errors, error limit reached. "
                   "Validation aborted.");
  cr_expect_lt(ms, LIMIT_MS, "validation took %.1f ms", ms);
  gql_buf_free(&b);
}

Test(hostile, long_fragment_chain) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  int n = 1000;
  gql_buf_puts(&b, "{ t { ...A0 } }\n");
  for (int i = 0; i < n; i++) {
    gql_buf_printf(&b, "fragment A%d on T { x t { y } ", i);
    if (i + 1 < n)
      gql_buf_printf(&b, "...A%d ", i + 1);
    gql_buf_puts(&b, "}\n");
  }
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, many_spreads_in_one_selection_set) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  int n = 300;
  gql_buf_puts(&b, "{ t {");
  for (int i = 0; i < n; i++)
    gql_buf_printf(&b, " ...A%d", i);
  gql_buf_puts(&b, " } }\n");
  for (int i = 0; i < n; i++)
    gql_buf_printf(&b, "fragment A%d on T { x f(x: 1) }\n", i);
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, fragments_spread_twice_at_each_level) {
  /* graphql-js's introspection depth check re-walks each fragment per
   * spread: 2^40 walks without memoization */
  gql_buf b;
  gql_buf_init(&b, NULL);
  int n = 40;
  gql_buf_puts(&b, "{ __schema { types { ...F0 } } }\n");
  for (int i = 0; i < n; i++) {
    gql_buf_printf(&b, "fragment F%d on __Type { name ", i);
    if (i + 1 < n)
      gql_buf_printf(&b, "ofType { ...F%d } ofType { ...F%d }", i + 1, i + 1);
    gql_buf_puts(&b, "}\n");
  }
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, nesting_two_hundred_levels) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 200; i++)
    gql_buf_puts(&b, " t {");
  gql_buf_puts(&b, " x");
  for (int i = 0; i < 200; i++)
    gql_buf_puts(&b, " }");
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, two_equal_trees_nested_two_hundred_levels) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 120; i++)
      gql_buf_puts(&b, " t {");
    gql_buf_puts(&b, " x");
    for (int i = 0; i < 120; i++)
      gql_buf_puts(&b, " }");
  }
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, a_field_with_a_thousand_arguments) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ big { many(");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%sa%d: %d", i ? ", " : "", i, i);
  gql_buf_puts(&b, ") } }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, a_thousand_repeated_arguments_are_one_error) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ v(");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%sx: %d", i ? ", " : "", i);
  gql_buf_puts(&b, ") }");
  double ms;
  gql_error_list e = validate(&b, &ms);
  cr_assert_eq(e.count, 1);
  cr_expect_str_eq(e.items[0].message,
                   "There can be only one argument named \"x\".");
  cr_expect_eq(e.items[0].nlocations, 1000);
  cr_expect_lt(ms, LIMIT_MS, "validation took %.1f ms", ms);
  gql_buf_free(&b);
}

Test(hostile, a_thousand_variables) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "query Q(");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%s$v%d: Int", i ? ", " : "", i);
  gql_buf_puts(&b, ") {");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, " k%d: v(x: $v%d)", i, i);
  gql_buf_puts(&b, " }");
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, an_input_object_with_a_thousand_repeated_fields) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ g(i: {");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%sa: %d", i ? ", " : "", i);
  gql_buf_puts(&b, "}) }");
  double ms;
  gql_error_list e = validate(&b, &ms);
  cr_assert_eq(e.count, 101);
  cr_expect_str_eq(e.items[0].message,
                   "There can be only one input field named \"a\".");
  cr_expect_eq(e.items[0].nlocations, 2);
  cr_expect_lt(ms, LIMIT_MS, "validation took %.1f ms", ms);
  gql_buf_free(&b);
}

Test(hostile, five_thousand_spreads_of_look_alike_fragments) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ t {");
  for (int i = 0; i < 5000; i++)
    gql_buf_printf(&b, " ...A%d", i);
  gql_buf_puts(&b, " } }\n");
  for (int i = 0; i < 5000; i++)
    gql_buf_printf(&b, "fragment A%d on T { x f(x: 1) t { y } }\n", i);
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, two_thousand_spreads_of_conflicting_fragments_stop_at_limit) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ t {");
  for (int i = 0; i < 2000; i++)
    gql_buf_printf(&b, " ...%c%d", i % 2 ? 'B' : 'A', i / 2);
  gql_buf_puts(&b, " } }\n");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(
        &b, "fragment A%d on T { v: x }\nfragment B%d on T { v: y }\n", i, i);
  double ms;
  gql_error_list e = validate(&b, &ms);
  cr_assert_eq(e.count, 101);
  cr_expect_str_eq(
      e.items[0].message,
      "Fields \"v\" conflict because \"x\" and \"y\" are different "
      "fields. Use different aliases on the fields to fetch both "
      "if this was intentional.");
  cr_expect_lt(ms, LIMIT_MS, "validation took %.1f ms", ms);
  gql_buf_free(&b);
}

Test(hostile, many_operations_spreading_a_fragment_of_many_spreads) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "query Q%d { t { ...F } }\n", i);
  gql_buf_puts(&b, "fragment F on T {");
  for (int i = 0; i < 3000; i++)
    gql_buf_printf(&b, " ...G%d", i);
  gql_buf_puts(&b, " }\n");
  for (int i = 0; i < 3000; i++)
    gql_buf_printf(&b, "fragment G%d on T { x }\n", i);
  expect_valid_fast(&b);
  gql_buf_free(&b);
}

Test(hostile, nested_conflicts_without_end_are_refused) {
  /* 600 x 600 differing arguments under one response name: graphql-js
   * would build one error out of 360,000 nested reasons */
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int k = 0; k < 2; k++) {
    gql_buf_puts(&b, " t {");
    for (int i = 0; i < 600; i++)
      gql_buf_printf(&b, " a: f(x: %d)", k * 600 + i);
    gql_buf_puts(&b, " }");
  }
  gql_buf_puts(&b, " }");
  double ms;
  gql_error_list e = validate(&b, &ms);
  bool found = false;
  for (uint32_t i = 0; i < e.count; i++)
    found = found || strstr(e.items[i].message, "too complex") != NULL;
  cr_expect(found);
  cr_expect_lt(ms, 20 * LIMIT_MS, "validation took %.1f ms", ms);
  gql_buf_free(&b);
}
