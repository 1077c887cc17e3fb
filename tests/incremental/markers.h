/*
 * The corpus's data (README.md "The data: default resolvers over JSON,
 * with markers") as C resolvers, shared by incremental_exec (a case through
 * gql_execute_incremental, ticks of its own loop) and incremental_serve
 * (every case through gql's HTTP server, ticks of a worker's libuv loop):
 * every field resolves as graphql-js's default resolver does (the parent's
 * property of the field's name); {"$error": M} fails the field or item
 * with M; {"$async": V, "$delay": N} makes it pending (gql_out_pending)
 * and completes it with V N ticks after its resolver ran. A tick's due
 * completions run in the order their resolvers ran.
 */
#ifndef GQL_TESTS_INCREMENTAL_MARKERS_H
#define GQL_TESTS_INCREMENTAL_MARKERS_H

#include "gql.h"

#include <stdbool.h>

/* The pending fields of one loop, by tick. */
typedef struct inc_markers {
  struct inc_due *queue;
  size_t n, cap;
  long now;
  /* called when a field starts to pend (NULL: nothing), to make the loop
   * tick */
  void (*wake)(void *ud);
  void *wake_ud;
  /* an $async value is written at once, as if it were not pending */
  bool at_once;
  /* a list of objects without markers or __typename (and nulls) is
   * written with gql_out_object_ptrs, the bulk writer's loop, as a C
   * resolver over structs would write it */
  bool bulk;
} inc_markers;

/* What a resolver writes with: the loop's markers and memory that lives
 * as long as the execution (a list's items may be written later). */
typedef struct inc_ctx {
  inc_markers *m;
  gql_arena *arena;
} inc_ctx;

/* Writes JSON value v (with its markers) to out. */
void inc_markers_write(inc_ctx x, gql_out *out, const gql_value *v);

/* The resolver of every field: `parent` is a gql_value; the context from
 * ctx_of(info). */
void inc_markers_resolve(inc_ctx x, const gql_resolve_info *info,
                         const void *parent, gql_out *out);

/* One tick: completes the due fields. Whether any field still pends. */
bool inc_markers_tick(inc_markers *m);

void inc_markers_free(inc_markers *m);

/* A case of cases/exec: its schema (with `resolve` on every field of its
 * object types, `data` given to each), document, operation name,
 * variables and root value, in `arena`. */
typedef struct inc_case {
  const gql_value *json;
  gql_str name, document, variables; /* variables: JSON text or empty */
  char operation[256];               /* "" when none */
  const gql_value *root_value;
  gql_schema *schema;
} inc_case;

/* Reads CASE.json into *c (memory in `arena`, the file's text `*text` to
 * free), every field resolved by `resolve` registered with `flags`
 * (gql_schema_set_resolver's); 0, or -1 with a message on stderr. */
int inc_case_load(const char *path, gql_arena *arena, char **text, inc_case *c,
                  gql_resolver_fn resolve, void *data, unsigned flags);

#endif
