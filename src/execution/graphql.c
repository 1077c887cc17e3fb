/* gql_graphql: prepare and execute in one call, through the public API
 * only (a convenience above both). */
#include "core/core.h"

typedef struct oneshot {
  gql_arena *arena;
  gql_str *json;
  bool done;
} oneshot;

static void oneshot_done(void *ud, const char *json, size_t len,
                         bool has_errors) {
  (void)has_errors;
  oneshot *os = ud;
  char *copy = gql_arena_strndup(os->arena, json, len);
  *os->json = (gql_str){copy, copy ? len : 0};
  os->done = true;
}

int gql_graphql(gql_schema *schema, const char *query, size_t len,
                const char *operation_name, const char *variables_json,
                size_t variables_len, const void *root_value, void *context,
                gql_arena *arena, gql_str *json) {
  gql_prepared *p;
  gql_errors errors = {.arena = arena};
  *json = (gql_str){0};
  int rc = gql_prepare(schema, query, len, operation_name, NULL, &p, &errors);
  if (rc < 0) /* request errors are a response as well */
    return errors.count ? gql_errors_response(&errors, NULL, arena, json) : rc;
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
  return !os.done ? GQL_EUNSUPPORTED : json->ptr ? 0 : GQL_ENOMEM;
}
