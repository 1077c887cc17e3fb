/*
 * The API schema of a supergraph: the supergraph without the join / link
 * machinery and without @inaccessible elements, printed back to SDL (the
 * input of gql_schema_from_sdl).
 */
#include "supergraph_read.h"

/* ------------------------------------------------------------ API schema */

static bool removed_type(const gql_supergraph *sg, gql_str name) {
  if (gw_has_prefix(name, "join__") || gw_has_prefix(name, "link__"))
    return true;
  const gql_gw_type *t = gql_supergraph_type(sg, name);
  return t && t->inaccessible;
}

static void *arena_array(gql_arena *a, uint32_t n, size_t elem) {
  return gql_arena_alloc(a, (n ? n : 1) * elem);
}

#define FILTER(arena, arr, keep_expr)                                          \
  do {                                                                         \
    __typeof__((arr).items) items_ =                                           \
        arena_array((arena), (arr).count, sizeof *(arr).items);                \
    if (!items_)                                                               \
      return GQL_ENOMEM;                                                       \
    uint32_t n_ = 0;                                                           \
    for (uint32_t i_ = 0; i_ < (arr).count; i_++) {                            \
      __typeof__(*(arr).items) it = (arr).items[i_];                           \
      if (keep_expr)                                                           \
        items_[n_++] = it;                                                     \
    }                                                                          \
    (arr).items = items_;                                                      \
    (arr).count = n_;                                                          \
  } while (0)

static int api_directives(gql_arena *a, gql_ast_directives *ds) {
  FILTER(a, *ds, !gw_machinery_directive(gql_ast_name_str(it->name)));
  return 0;
}

static bool keep_input(const gql_supergraph *sg,
                       const gql_ast_input_value_def *iv) {
  gql_str name;
  uint32_t lists;
  gw_named_type(iv->type, &name, &lists);
  return !gw_has_dir(&iv->directives, "inaccessible") &&
         !removed_type(sg, name);
}

static int api_inputs(const gql_supergraph *sg, gql_ast_input_value_defs *ivs) {
  FILTER(sg->arena, *ivs, keep_input(sg, it));
  for (uint32_t i = 0; i < ivs->count; i++) {
    gql_ast_input_value_def *c = gql_arena_alloc(sg->arena, sizeof *c);
    if (!c)
      return GQL_ENOMEM;
    *c = *ivs->items[i];
    if (api_directives(sg->arena, &c->directives))
      return GQL_ENOMEM;
    ivs->items[i] = c;
  }
  return 0;
}

static bool keep_field(const gql_supergraph *sg, const gql_ast_field_def *f) {
  gql_str name;
  uint32_t lists;
  gw_named_type(f->type, &name, &lists);
  return !gw_has_dir(&f->directives, "inaccessible") && !removed_type(sg, name);
}

static int api_type(const gql_supergraph *sg, const gql_ast_type_def *def,
                    gql_buf *out) {
  gql_arena *a = sg->arena;
  gql_ast_type_def c = *def;
  if (api_directives(a, &c.directives))
    return GQL_ENOMEM;
  FILTER(a, c.interfaces, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.members, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.values, !gw_has_dir(&it->directives, "inaccessible"));
  FILTER(a, c.fields, keep_field(sg, it));
  for (uint32_t i = 0; i < c.values.count; i++) {
    gql_ast_enum_value_def *v = gql_arena_alloc(a, sizeof *v);
    if (!v)
      return GQL_ENOMEM;
    *v = *c.values.items[i];
    if (api_directives(a, &v->directives))
      return GQL_ENOMEM;
    c.values.items[i] = v;
  }
  for (uint32_t i = 0; i < c.fields.count; i++) {
    gql_ast_field_def *f = gql_arena_alloc(a, sizeof *f);
    if (!f)
      return GQL_ENOMEM;
    *f = *c.fields.items[i];
    if (api_directives(a, &f->directives) || api_inputs(sg, &f->args))
      return GQL_ENOMEM;
    c.fields.items[i] = f;
  }
  if (api_inputs(sg, &c.input_fields))
    return GQL_ENOMEM;
  gql_print_node(out, &c.h);
  gql_buf_puts(out, "\n\n");
  return 0;
}

static int api_directive_def(const gql_supergraph *sg,
                             const gql_ast_directive_def *def, gql_buf *out) {
  gql_ast_directive_def c = *def;
  if (api_inputs(sg, &c.args))
    return GQL_ENOMEM;
  gql_print_node(out, &c.h);
  gql_buf_puts(out, "\n\n");
  return 0;
}

int gql_gw_api_sdl(gql_supergraph *sg, gql_buf *out) {
  const gql_document *doc = sg->doc;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    int rc = 0;
    if (n->kind == GQL_AST_SCHEMA_DEFINITION ||
        n->kind == GQL_AST_SCHEMA_EXTENSION) {
      gql_ast_schema_def c = *(const gql_ast_schema_def *)n;
      if (api_directives(sg->arena, &c.directives))
        return GQL_ENOMEM;
      if (c.operation_types.count == 0 && c.directives.count == 0)
        continue;
      gql_print_node(out, &c.h);
      gql_buf_puts(out, "\n\n");
    } else if (n->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      const gql_ast_directive_def *d = (const gql_ast_directive_def *)n;
      if (gw_machinery_directive(gql_ast_name_str(d->name)))
        continue;
      rc = api_directive_def(sg, d, out);
    } else if (gql_ast_is_type_definition(n->kind) ||
               gql_ast_is_type_extension(n->kind)) {
      const gql_ast_type_def *t = (const gql_ast_type_def *)n;
      if (removed_type(sg, gql_ast_name_str(t->name)))
        continue;
      rc = api_type(sg, t, out);
    }
    if (rc)
      return rc;
  }
  return out->failed ? GQL_ENOMEM : 0;
}
