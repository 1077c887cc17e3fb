/* gql as an Apollo Federation v2 subgraph: the public C API (part of libgql).
 *
 * Serve the schema of gql_subgraph_schema() like any other: with
 * gql_execute, or over HTTP with gql_http_server_new (include/gql_http.h).
 *
 * gql_subgraph_new takes subgraph SDL (Federation 1 `extend type` style or
 * Federation 2 with `@link`), defines the federation directives it uses
 * (@key, @external, @requires, @provides, @shareable, @inaccessible, @tag,
 * @override, @link, ...) unless the SDL defines them, turns an extension of
 * a type the SDL never defines into its definition (as Apollo's
 * buildSubgraphSchema does), and adds the subgraph contract:
 *
 *   scalar _Any
 *   type _Service { sdl: String }
 *   union _Entity = <every object type with a resolvable @key>
 *   extend type Query {
 *     _entities(representations: [_Any!]!): [_Entity]!   (when entities exist)
 *     _service: _Service!
 *   }
 *
 * `_service { sdl }` answers the SDL text exactly as given. `_entities`
 * answers one item per representation, in order: the entity resolver of the
 * representation's __typename, else the JSON document's lookup (see
 * gql_subgraph_set_json), else the representation itself (Apollo's default
 * __resolveReference). An unknown __typename, a representation that is not
 * an object with a __typename, or an error written by the resolver makes
 * that item null with an error at ["_entities", i]; the others are kept.
 */
#ifndef GQL_SUBGRAPH_H
#define GQL_SUBGRAPH_H

#include "gql.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gql_subgraph gql_subgraph;

/* What an entity resolver is given for one representation. */
typedef struct gql_entity_call {
  const gql_value *representation; /* object: __typename, key fields and
                                      the @requires fields the gateway sent */
  uint32_t type;                   /* the object type's index */
  size_t index;                    /* position in `representations` */
  void *data;                      /* given to gql_subgraph_set_entity */
  void *context;                   /* gql_execute_params.context */
  gql_arena *arena;                /* the request's arena */
} gql_entity_call;

/* Writes the entity to `out`: gql_out_object(out, obj, call->type) (the
 * type's field resolvers then read obj), gql_out_json for JSON data,
 * gql_out_null when there is no such entity, gql_out_error for an error of
 * this item only. */
typedef void (*gql_entity_fn)(const gql_entity_call *call, gql_out *out);

/* Builds the subgraph schema from `sdl` (copied). Same error contract as
 * gql_schema_from_sdl: returns 0, GQL_ESYNTAX, GQL_ESCHEMA or GQL_ENOMEM
 * with the errors in *errors (NULL: not kept; at most 100; positions refer
 * to `sdl`). The schema is not finalized: set resolvers on
 * gql_subgraph_schema() before the first execution. */
GQL_API int gql_subgraph_new(const char *sdl, size_t len,
                             const gql_allocator *alc, gql_subgraph **out,
                             gql_errors *errors);
/* Frees the subgraph and its schema. NULL is allowed. */
GQL_API void gql_subgraph_free(gql_subgraph *sg);

/* The executable schema (owned by the subgraph). */
GQL_API gql_schema *gql_subgraph_schema(const gql_subgraph *sg);

/* The number of entity types (members of _Entity) and the name of one. */
GQL_API uint32_t gql_subgraph_entity_count(const gql_subgraph *sg);
GQL_API gql_str gql_subgraph_entity_name(const gql_subgraph *sg, uint32_t i);

/* Sets the entity resolver of entity type `type` (NULL: back to the
 * default). `flags`: GQL_RESOLVER_SYNC when fn never writes
 * gql_out_pending (without it _entities is not proven synchronous).
 * GQL_ENOTFOUND when `type` is not an entity of this subgraph; GQL_EINVAL
 * once the schema is finalized (first execution). */
GQL_API int gql_subgraph_set_entity(gql_subgraph *sg, const char *type,
                                    gql_entity_fn fn, void *data,
                                    unsigned flags);

/* Entities from a JSON document (no C code): for entity type T without a
 * resolver, `data` (an object, which must outlive the subgraph) holds an
 * array "T" of objects. A representation matches the first object equal to
 * it on the fields of one of T's @key field sets (compound and nested keys
 * compare every field, an integer in the document matching its decimal
 * string; with several @key directives each set whose fields
 * the representation carries is tried in order). The entity is that object
 * with the representation's other fields (e.g. @requires fields) added
 * where the object lacks them; no match gives null. When `data` has no
 * array "T", the entity is the representation itself. */
GQL_API void gql_subgraph_set_json(gql_subgraph *sg, const gql_value *data);

#ifdef __cplusplus
}
#endif

#endif
