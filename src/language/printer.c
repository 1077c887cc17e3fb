/* Placeholder until the printer lands. */
#include "ast.h"

int gql_print(gql_arena *arena, const gql_document *doc, const char **out,
              size_t *len) {
  return GQL_EUNSUPPORTED;
}
