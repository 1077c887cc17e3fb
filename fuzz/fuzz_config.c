/* Loads arbitrary bytes as a configuration file, with a fixed environment.
 * A refusal must carry error lines naming the file; accepted settings must
 * compile into the CORS and header policies, which then decide for a fixed
 * request without failing, and their subgraph names be checked against a
 * fixed supergraph's (one line per unknown one, naming the file). */
#include "config/config.h"
#include "config/cors.h"
#include "config/headers.h"

#include <stdint.h>
#include <stdlib.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static const char *env(void *ud, const char *name) {
  (void)ud;
  return name[0] == 'X' ? NULL : "v${env.X}"; /* values are not re-expanded */
}

static void decide(const gql_settings *st) {
  char why[256];
  gql_cors *cors = NULL;
  gql_header_policy *hp = NULL;
  CHECK(gql_cors_build(&st->cors, &cors, why, sizeof why) == 0);
  CHECK(gql_header_policy_build(&st->headers, &hp, why, sizeof why) == 0);
  gql_cors_request rq = {GQL_STR("OPTIONS"), GQL_STR("https://a.example.com"),
                         GQL_STR("POST"), GQL_STR("content-type, x-a")};
  gql_cors_answer a;
  gql_cors_decide(cors, &rq, &a);
  CHECK(a.nheaders <= GQL_CORS_MAX_HEADERS);
  rq.method = GQL_STR("POST");
  gql_cors_decide(cors, &rq, &a);
  gql_arena *arena = gql_arena_new(NULL);
  gql_header in[] = {{GQL_STR("X-A"), GQL_STR("1")},
                     {GQL_STR("authorization"), GQL_STR("Bearer t")},
                     {GQL_STR("content-length"), GQL_STR("3")}};
  gql_header_input hi = {in, 3, NULL, NULL};
  gql_header_list out = {0};
  gql_header_rules *r = gql_header_policy_for(hp, GQL_STR("products"));
  CHECK(gql_header_rules_apply(r, &hi, &out, arena) == 0);
  for (uint32_t i = 0; i < out.count; i++)
    CHECK(!gql_header_reserved(out.items[i].name.ptr, out.items[i].name.len));
  gql_arena_free(arena);
  gql_header_policy_free(hp);
  gql_cors_free(cors);
  static const gql_str names[] = {GQL_STR("products"), GQL_STR("reviews")};
  char *lines = NULL;
  int n = gql_cfg_unknown_subgraphs(st, names, 2, &lines);
  CHECK(n >= 0 && (n == 0) == (lines == NULL));
  int nl = 0;
  for (const char *p = lines; p && (p = strstr(p, "fuzz.yaml:")); p++)
    nl++;
  CHECK(nl >= n); /* (a name may itself hold "fuzz.yaml:") */
  free(lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gql_settings_env e = {env, NULL};
  gql_settings *st = NULL;
  char *errors = NULL;
  int rc = gql_settings_load("fuzz.yaml", (const char *)data, size, &e, &st,
                             &errors);
  if (rc == 0) {
    CHECK(st && !errors);
    decide(st);
    gql_settings_free(st);
  } else {
    CHECK(!st && errors && strncmp(errors, "fuzz.yaml", 9) == 0);
    free(errors);
  }
  return 0;
}
