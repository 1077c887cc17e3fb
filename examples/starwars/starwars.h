/* The Star Wars example schema with C resolvers over static data. */
#ifndef GQL_EXAMPLES_STARWARS_H
#define GQL_EXAMPLES_STARWARS_H

#include "gql.h"

#include <stdbool.h>

/* Builds the Star Wars schema (examples/starwars/schema.graphql) with its
 * synchronous C resolvers and Character's resolve_type. Free it with
 * gql_schema_free. 0 or a negative gql_err. */
int gql_starwars_schema(gql_schema **out);

/* The same schema with the characters' id, name, homePlanet and
 * primaryFunction read as struct members (gql_schema_set_member), and their
 * friends and appearsIn as list members (gql_schema_set_list_member),
 * instead of by C resolvers. */
int gql_starwars_schema_members(gql_schema **out);

/* Sets the example's resolvers (members: as gql_starwars_schema_members
 * reads the fields) on a schema that the caller built from
 * gql_starwars_sdl(), e.g. with graphql-js 17's @defer and @stream added.
 * GQL_ESCHEMA when its types are not the example's. */
int gql_starwars_set_resolvers(gql_schema *s, bool members);

/* The schema's SDL (the text of examples/starwars/schema.graphql). */
gql_str gql_starwars_sdl(void);

#endif
