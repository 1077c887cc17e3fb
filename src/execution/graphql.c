/* gql_graphql: prepare and execute in one call, through the public API
 * only (a convenience above both). */
#include "core/core.h"

typedef struct oneshot {
  gql_arena *arena;
  gql_str *json;
  bool done, errors;
} oneshot;

static void oneshot_done(void *ud, const char *json, size_t len,
                         bool has_errors) {
  oneshot *os = ud;
  char *copy = gql_arena_strndup(os->arena, json, len);
  *os->json = (gql_str){copy, copy ? len : 0};
  os->done = true;
  os->errors = has_errors;
}

int gql_graphql(gql_schema *schema, const char *query, size_t len,
                const char *operation_name, const char *variables_json,
                size_t variables_len, const void *root_value, void *context,
                gql_arena *arena, gql_str *json) {
  gql_prepared *p;
  int rc =
      gql_prepare(schema, query, len, operation_name, NULL, &p, arena, json);
  if (rc < 0)
    return json->ptr ? 1 : rc;
  oneshot os = {.arena = arena, .json = json};
  gql_execute_params params = {.variables_json = variables_json,
                               .variables_len = variables_len,
                               .root_value = root_value,
                               .context = context,
                               .on_done = oneshot_done,
                               .ud = &os,
                               /* graphql-js's graphql() runs one once */
                               .subscription_once = true};
  rc = gql_execute(p, &params);
  gql_prepared_free(p);
  if (rc < 0)
    return rc;
  if (!os.done)
    return GQL_EUNSUPPORTED;
  return os.errors ? 1 : 0;
}
