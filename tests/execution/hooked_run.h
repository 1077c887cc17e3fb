/* For tests that compare two ways of answering the same queries: runs a
 * query with or without a resolve_start hook and keeps the response, its
 * error flag and the hook's call count. */
#ifndef GQL_TESTS_HOOKED_RUN_H
#define GQL_TESTS_HOOKED_RUN_H

#include "gql.h"

#include <criterion/criterion.h>
#include <string.h>

typedef struct got {
  char json[16384];
  bool errors;
  int starts; /* resolve_start calls */
} got;

static void got_done(void *ud, const char *json, size_t len, bool errors) {
  got *g = ud;
  cr_assert_lt(len, sizeof g->json);
  memcpy(g->json, json, len);
  g->json[len] = 0;
  g->errors = errors;
}

static int got_start(void *ctx, const gql_resolve_info *info) {
  (void)info;
  ((got *)ctx)->starts++;
  return 0;
}

/* Prepares q on s (validated unless `no_validate`) and executes it with
 * root value `root` and context `context`, counting resolve_start calls
 * when `hooked`. */
static void hooked_run(gql_schema *s, const char *q, const void *root,
                       void *context, bool no_validate, bool hooked, got *g) {
  memset(g, 0, sizeof *g);
  gql_prepared *p;
  gql_prepare_options po = {.no_validate = no_validate};
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, &po, &p, NULL), 0, "%s", q);
  gql_hooks h = {.resolve_start = got_start, .ctx = g};
  gql_execute_params params = {.root_value = root,
                               .context = context,
                               .hooks = hooked ? &h : NULL,
                               .on_done = got_done,
                               .ud = g};
  cr_assert(gql_execute(p, &params) >= 0);
  gql_prepared_free(p);
}

#endif
