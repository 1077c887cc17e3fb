/*
 * Helpers shared by the value and argument rules (KnownArgumentNames,
 * UniqueArgumentNames, ValuesOfCorrectType, ProvidedRequiredArguments,
 * VariablesInAllowedPosition, OverlappingFieldsCanBeMerged,
 * UniqueInputFieldNames, MaxIntrospectionDepth): small arena hash tables,
 * duplicate-name grouping, value printing as graphql-js print() does it and
 * the literal checks of the built-in scalars and enums (parseLiteral).
 */
#ifndef GQL_VALIDATION_VALUES_H
#define GQL_VALIDATION_VALUES_H

#include "validation.h"

/* Marks the validation as out of memory (gql_validate_document then
 * returns GQL_ENOMEM). */
static inline void gql_vnomem(gql_vctx *ctx) {
  ctx->errors->nomem = true;
}

/* ---- interning: equal strings get the same dense id (0, 1, 2, ...). */
typedef struct gql_vintern {
  struct gql_vintern_slot *slots;
  uint32_t cap, count;
  gql_arena *arena;
  uint64_t seed;
} gql_vintern;

void gql_vintern_init(gql_vintern *t, gql_arena *arena);
/* The id of `s` (strings are borrowed, not copied); UINT32_MAX on
 * allocation failure. */
uint32_t gql_vintern_id(gql_vintern *t, gql_str s);

/* ---- a uint64 → pointer map in an arena (any key but UINT64_MAX). */
typedef struct gql_vmap {
  struct gql_vmap_slot *slots;
  uint32_t cap, count;
  gql_arena *arena;
} gql_vmap;

void gql_vmap_init(gql_vmap *m, gql_arena *arena);
/* True and *out set when present. */
bool gql_vmap_get(const gql_vmap *m, uint64_t key, void **out);
/* Inserts or replaces; false on allocation failure. */
bool gql_vmap_put(gql_vmap *m, uint64_t key, void *value);

/* ---- duplicate names */

/* For each of the n names, first[i] is the index of the first name equal to
 * names[i] (i itself when it is the first). Linear time. False on
 * allocation failure. */
bool gql_vfirst_same(gql_arena *arena, const gql_str *names, uint32_t n,
                     uint32_t *first);

/* ---- printing */

/* graphql-js print(value) as a NUL-terminated string in `arena`; NULL on
 * allocation failure. */
const char *gql_vprint_value(gql_arena *arena, const gql_ast_value *v);
/* print(sortValueNode(value)): object fields sorted by name (naturalCompare,
 * stable), recursively. Used to compare argument values. */
const char *gql_vprint_sorted_value(gql_arena *arena, const gql_ast_value *v);
/* inspect(type): "[Int!]!". */
const char *gql_vtype_str(const gql_schema *s, gql_type_ref t,
                          gql_arena *arena);

/* ---- literals of leaf types (graphql-js parseLiteral, no variables) */

/* Checks literal `v` (not a variable) against leaf type `type` (scalar or
 * enum). Returns true when valid. Otherwise *message is the message
 * graphql-js's parseLiteral throws (in `arena`), or NULL when parseLiteral
 * would return undefined / the message could not be made. Custom scalars
 * accept every literal, as graphql-js's default parseLiteral does. */
bool gql_vleaf_literal_ok(const gql_schema *s, uint32_t type,
                          const gql_ast_value *v, gql_arena *arena,
                          const char **message);

/* OverlappingFieldsCanBeMergedRule without its shortcuts: every pair is
 * compared as graphql-js does. Tests check the real rule against it. */
extern const gql_vrule gql_rule_OverlappingFieldsCanBeMergedNaive;

#endif
