/* Placeholder until the parser lands. */
#include "ast.h"

int gql_parse(gql_arena *arena, const char *source, size_t len,
              const gql_parse_options *options, gql_document **out,
              gql_syntax_error *err) {
  return GQL_EUNSUPPORTED;
}
