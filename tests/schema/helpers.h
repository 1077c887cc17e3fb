/* Shared helpers for the schema tests. */
#ifndef GQL_TEST_SCHEMA_HELPERS_H
#define GQL_TEST_SCHEMA_HELPERS_H

#include "schema/internal.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* Builds `sdl` (NUL-terminated); fails the test on any error. */
static inline gql_schema *build_ok(const char *sdl) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errors;
  gql_error_list_init(&errors, a, 0);
  gql_schema *s = NULL;
  int rc = gql_schema_build(sdl, strlen(sdl), NULL, NULL, &s, &errors);
  for (uint32_t i = 0; i < errors.count; i++)
    fprintf(stderr, "unexpected error: %s\n", errors.items[i].message);
  cr_assert_eq(rc, 0, "build failed: %s", gql_strerror(rc));
  cr_assert_not_null(s);
  gql_arena_free(a);
  return s;
}

/* Builds `sdl` expecting failure; returns the errors joined as
 * "L:C message\n" lines (malloc'ed). */
static inline char *build_errors(const char *sdl,
                                 const gql_schema_build_options *o) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errors;
  gql_error_list_init(&errors, a, 0);
  gql_schema *s = NULL;
  int rc = gql_schema_build(sdl, strlen(sdl), NULL, o, &s, &errors);
  cr_assert_neq(rc, 0, "expected errors for: %s", sdl);
  cr_assert_null(s);
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < errors.count; i++) {
    const gql_error *e = &errors.items[i];
    for (uint32_t j = 0; j < e->nlocations; j++)
      gql_buf_printf(&b, "%s%u:%u", j ? "," : "", e->locations[j].line,
                     e->locations[j].column);
    gql_buf_printf(&b, " %s\n", e->message);
  }
  char *r = strdup(gql_buf_cstr(&b) ? gql_buf_cstr(&b) : "");
  gql_buf_free(&b);
  gql_arena_free(a);
  return r;
}

/* printSchema of `sdl` (malloc'ed). */
static inline char *print_of(const char *sdl) {
  gql_schema *s = build_ok(sdl);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_schema_print_sdl(s, &b);
  char *r = strdup(gql_buf_cstr(&b));
  gql_buf_free(&b);
  gql_schema_free(s);
  return r;
}

static inline gql_type_ref field_type(const gql_schema *s, const char *type,
                                      const char *field) {
  const gql_type *t = gql_schema_type(s, gql_cstr(type));
  cr_assert_not_null(t, "no type %s", type);
  const gql_field *f = gql_type_field(t, gql_cstr(field));
  cr_assert_not_null(f, "no field %s.%s", type, field);
  return f->type;
}

#endif
