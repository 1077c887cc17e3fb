/* Internals shared by the files of src/schema. */
#ifndef GQL_SCHEMA_INTERNAL_H
#define GQL_SCHEMA_INTERNAL_H

#include "schema.h"

/* The SDL of the built-in scalars, directives, introspection types and
 * the meta-fields (on the pseudo-type __Meta). */
gql_str gql_schema_builtin_sdl(void);
/* The SDL of graphql-js 17's @defer and @stream (the defer_stream option). */
gql_str gql_schema_defer_stream_sdl(void);
/* String, Int, Float, Boolean, ID. */
bool gql_schema_is_std_scalar_name(gql_str name);
/* __Schema, __Type, ... */
bool gql_schema_is_introspection_name(gql_str name);
/* include, skip, deprecated, specifiedBy, oneOf. */
bool gql_schema_is_std_directive_name(gql_str name);

/* The interned copy of `name` (NUL-terminated, in the schema arena), made
 * on first use; ptr NULL on allocation failure. */
gql_str gql_schema_intern(gql_schema *s, gql_str name);

/* Builds t->member_index when t has many fields / values / input fields
 * (call once the arrays are final). 0 or GQL_ENOMEM. */
int gql_type_build_member_index(gql_type *t, gql_arena *arena);

/* graphql-js isPrintableAsBlockString. */
bool gql_is_printable_as_block_string(gql_str s);
/* A description as printSchema prints it: block string when printable as
 * one, else a quoted string. */
void gql_schema_print_description_string(gql_buf *out, gql_str s);

#endif
