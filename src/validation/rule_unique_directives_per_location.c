/* UniqueDirectivesPerLocationRule: a non-repeatable directive appears at
 * most once per location; on schema and type definitions and their
 * extensions, once across all of them for the same schema or type. */
#include "internal.h"

typedef struct state {
  gql_namemap seen_schema; /* directive name → offset of its first use */
  gql_namemap types;       /* type name → index into per_type */
  gql_namemap *per_type;
  uint32_t ntypes, ctypes;
} state;

/* True when the directive named `name` is non-repeatable (and known): a
 * directive definition in the document wins over the schema's. */
static bool unique(gql_vctx *ctx, state *s, gql_str name) {
  const gql_ast_directive_def *dd = gql_vctx_directive_def(ctx, name);
  if (dd)
    return !dd->repeatable;
  const gql_directive *def = gql_vctx_directive_named(ctx, name);
  return def && !def->repeatable;
}

static const gql_ast_directives *directives_of(const gql_ast_node *node) {
  switch ((gql_ast_kind)node->kind) {
  case GQL_AST_OPERATION_DEFINITION:
    return &((const gql_ast_operation *)node)->directives;
  case GQL_AST_VARIABLE_DEFINITION:
    return &((const gql_ast_variable_definition *)node)->directives;
  case GQL_AST_FIELD:
  case GQL_AST_FRAGMENT_SPREAD:
  case GQL_AST_INLINE_FRAGMENT:
    return &((const gql_ast_selection *)node)->directives;
  case GQL_AST_FRAGMENT_DEFINITION:
    return &((const gql_ast_fragment *)node)->directives;
  case GQL_AST_SCHEMA_DEFINITION:
  case GQL_AST_SCHEMA_EXTENSION:
    return &((const gql_ast_schema_def *)node)->directives;
  case GQL_AST_FIELD_DEFINITION:
    return &((const gql_ast_field_def *)node)->directives;
  case GQL_AST_INPUT_VALUE_DEFINITION:
    return &((const gql_ast_input_value_def *)node)->directives;
  case GQL_AST_ENUM_VALUE_DEFINITION:
    return &((const gql_ast_enum_value_def *)node)->directives;
  default:
    if (gql_ast_is_type_definition(node->kind) ||
        gql_ast_is_type_extension(node->kind))
      return &((const gql_ast_type_def *)node)->directives;
    return NULL;
  }
}

/* The map of directives already seen at this node's location. */
static gql_namemap *seen_for(gql_vctx *ctx, state *s, const gql_ast_node *node,
                             gql_namemap *local) {
  if (node->kind == GQL_AST_SCHEMA_DEFINITION ||
      node->kind == GQL_AST_SCHEMA_EXTENSION)
    return &s->seen_schema;
  if (!gql_ast_is_type_definition(node->kind) &&
      !gql_ast_is_type_extension(node->kind))
    return local;
  gql_str name = gql_ast_name_str(((const gql_ast_type_def *)node)->name);
  uint32_t i;
  if (gql_namemap_get(&s->types, name, &i))
    return &s->per_type[i];
  if (!GQL_ARRAY_RESERVE(ctx->arena, s->per_type, s->ctypes, s->ntypes + 1))
    return NULL;
  if (gql_namemap_put(&s->types, ctx->arena, name, s->ntypes) < 0)
    return NULL;
  s->per_type[s->ntypes] = (gql_namemap){0};
  return &s->per_type[s->ntypes++];
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  const gql_ast_directives *ds = directives_of(node);
  if (!ds || !ds->count)
    return true;
  gql_namemap local = {0};
  if (ds->count == 1 && node->kind != GQL_AST_SCHEMA_DEFINITION &&
      node->kind != GQL_AST_SCHEMA_EXTENSION &&
      !gql_ast_is_type_definition(node->kind) &&
      !gql_ast_is_type_extension(node->kind))
    return true; /* one directive alone: nothing to compare (no map made) */
  gql_namemap *seen = seen_for(ctx, s, node, &local);
  if (!seen) {
    ctx->errors->nomem = true;
    return true;
  }
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    gql_str name = gql_ast_name_str(d->name);
    if (!unique(ctx, s, name))
      continue;
    uint32_t first;
    if (gql_namemap_get(seen, name, &first)) {
      uint32_t at[2] = {first, d->h.start};
      gql_vctx_report(ctx, at, 2,
                      "The directive \"@%.*s\" can only be used once at this "
                      "location.",
                      (int)name.len, name.ptr);
    } else if (gql_namemap_put(seen, ctx->arena, name, d->h.start) < 0) {
      ctx->errors->nomem = true;
      return true;
    }
  }
  return true;
}

const gql_vrule gql_rule_UniqueDirectivesPerLocationRule = {
    "UniqueDirectivesPerLocationRule", sizeof(state), NULL, enter, NULL};
