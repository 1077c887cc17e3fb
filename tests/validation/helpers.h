/* Shared helpers for the validation tests: build a schema, parse a
 * document, validate it and look at the errors. */
#ifndef GQL_TESTS_VALIDATION_HELPERS_H
#define GQL_TESTS_VALIDATION_HELPERS_H

#include "validation/validation.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline gql_schema *build_schema(const char *sdl) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errors;
  gql_error_list_init(&errors, a, 0);
  gql_schema *s = NULL;
  int rc = gql_schema_build(sdl, strlen(sdl), NULL, NULL, &s, &errors);
  cr_assert_eq(rc, 0, "schema: %s",
               errors.count ? errors.items[0].message : gql_strerror(rc));
  gql_arena_free(a);
  return s;
}

static inline gql_document *parse_doc(gql_arena *a, const char *src) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(a, src, strlen(src), NULL, &doc, &err);
  cr_assert_eq(rc, 0, "parse: %s", err.message);
  return doc;
}

/* Validates `src` with `rules` (NULL: all); the errors live in `a`. */
static inline gql_error_list validate_with(gql_arena *a, const gql_schema *s,
                                           const char *src,
                                           const gql_vrule *const *rules,
                                           uint32_t nrules) {
  gql_error_list errors;
  gql_error_list_init(&errors, a, 0);
  int rc =
      gql_validate_document(s, parse_doc(a, src), rules, nrules, NULL, &errors);
  cr_assert_eq(rc, 0);
  return errors;
}

static inline gql_error_list validate_rule(gql_arena *a, const gql_schema *s,
                                           const char *src,
                                           const gql_vrule *rule) {
  const gql_vrule *rules[] = {rule};
  return validate_with(a, s, src, rules, 1);
}

static inline void assert_error(const gql_error_list *l, uint32_t i,
                                const char *msg, uint32_t line,
                                uint32_t column) {
  cr_assert_lt(i, l->count, "no error %u (have %u)", i, l->count);
  cr_assert_str_eq(l->items[i].message, msg);
  cr_assert_geq(l->items[i].nlocations, 1);
  cr_assert_eq(l->items[i].locations[0].line, line, "line of %s", msg);
  cr_assert_eq(l->items[i].locations[0].column, column, "column of %s", msg);
}

/* xorshift64: the random documents of the tests that compare the rules'
 * shortcuts with graphql-js's every-pair procedure. */
typedef struct rng {
  uint64_t s;
} rng;

static inline uint32_t next(rng *r, uint32_t n) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (uint32_t)(r->s % n);
}

/* CPU time of this process: the machine may be shared, wall time is not a
 * fair measure of the work done. */
static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
