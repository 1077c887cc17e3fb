/* The Star Wars example: placeholder until the C resolvers land. */
#include "gql.h"

int gql_starwars_schema(gql_schema **out) {
  *out = NULL;
  return GQL_EUNSUPPORTED;
}
