/* The subgraph API (include/gql_subgraph.h) and the builder the gql command
 * uses, which collects errors into a gql_error_list. */
#ifndef GQL_FEDERATION_SUBGRAPH_H
#define GQL_FEDERATION_SUBGRAPH_H

#include "core/errors.h"
#include "gql_subgraph.h"

/* gql_subgraph_new with the errors in `errors`. */
int gql_subgraph_build(const char *sdl, size_t len, const gql_allocator *alc,
                       gql_subgraph **out, gql_error_list *errors);

#endif
