/*
 * Shared by the supergraph reader's files (supergraph.c, fieldset.c,
 * api_schema.c): directive argument helpers and the API schema printer.
 */
#ifndef GQL_GATEWAY_SUPERGRAPH_READ_H
#define GQL_GATEWAY_SUPERGRAPH_READ_H

#include "gateway.h"

static inline bool gw_has_prefix(gql_str s, const char *p) {
  size_t n = strlen(p);
  return s.len >= n && memcmp(s.ptr, p, n) == 0;
}

/* always inlined: `name` is a literal, so its length is known and the
 * compare is a few instructions (out of line, a strlen per argument was
 * 5% of loading a large supergraph) */
__attribute__((always_inline)) static inline const gql_ast_value *
gw_arg(const gql_ast_directive *d, const char *name) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(d->args.items[i]->name), name))
      return d->args.items[i]->value;
  return NULL;
}

__attribute__((always_inline)) static inline bool
gw_dir_is(const gql_ast_directive *d, const char *name) {
  return gql_str_eq_cstr(gql_ast_name_str(d->name), name);
}

static inline bool gw_has_dir(const gql_ast_directives *ds, const char *name) {
  for (uint32_t i = 0; i < ds->count; i++)
    if (gw_dir_is(ds->items[i], name))
      return true;
  return false;
}

static inline void gw_named_type(const gql_ast_type *t, gql_str *name,
                                 uint32_t *lists) {
  *lists = 0;
  while (t->h.kind != GQL_AST_NAMED_TYPE) {
    if (t->h.kind == GQL_AST_LIST_TYPE)
      (*lists)++;
    t = t->of;
  }
  *name = gql_ast_name_str(t->name);
}

/* Prints the API schema of a read supergraph (machinery and @inaccessible
 * parts removed) into `out`. */
int gql_gw_api_sdl(gql_supergraph *sg, gql_buf *out);

#endif
