/* KnownDirectivesRule: directives are defined (by the schema or the
 * document) and used where they may be. The location comes from the node
 * the directive is applied to, as graphql-js getDirectiveLocationForASTPath
 * finds it; the rule keeps its own stack of ancestors for that. */
#include "internal.h"

typedef struct state {
  const gql_ast_node **stack;
  uint32_t n, cap;
} state;

/* The locations a directive named `name` may appear at, as a mask: the
 * last directive definition in the document wins over the schema's. */
static bool locations_of(gql_vctx *ctx, state *s, gql_str name,
                         uint32_t *mask) {
  const gql_ast_directive_def *dd = gql_vctx_directive_def(ctx, name);
  if (dd) {
    *mask = 0;
    for (uint32_t j = 0; j < dd->locations.count; j++) {
      gql_directive_location loc;
      if (gql_directive_location_from_name(
              gql_ast_name_str(*dd->locations.items[j]), &loc))
        *mask |= 1u << loc;
    }
    return true;
  }
  const gql_directive *def = gql_vctx_directive_named(ctx, name);
  if (!def)
    return false;
  *mask = def->location_mask;
  return true;
}

static bool location_for(const state *s, gql_directive_location *out) {
  if (!s->n)
    return false;
  const gql_ast_node *applied = s->stack[s->n - 1];
  switch ((gql_ast_kind)applied->kind) {
  case GQL_AST_OPERATION_DEFINITION:
    switch (((const gql_ast_operation *)applied)->operation) {
    case GQL_OP_QUERY:
      *out = GQL_DIRLOC_QUERY;
      return true;
    case GQL_OP_MUTATION:
      *out = GQL_DIRLOC_MUTATION;
      return true;
    case GQL_OP_SUBSCRIPTION:
      *out = GQL_DIRLOC_SUBSCRIPTION;
      return true;
    }
    return false;
  case GQL_AST_FIELD:
    *out = GQL_DIRLOC_FIELD;
    return true;
  case GQL_AST_FRAGMENT_SPREAD:
    *out = GQL_DIRLOC_FRAGMENT_SPREAD;
    return true;
  case GQL_AST_INLINE_FRAGMENT:
    *out = GQL_DIRLOC_INLINE_FRAGMENT;
    return true;
  case GQL_AST_FRAGMENT_DEFINITION:
    *out = GQL_DIRLOC_FRAGMENT_DEFINITION;
    return true;
  case GQL_AST_VARIABLE_DEFINITION:
    *out = GQL_DIRLOC_VARIABLE_DEFINITION;
    return true;
  case GQL_AST_SCHEMA_DEFINITION:
  case GQL_AST_SCHEMA_EXTENSION:
    *out = GQL_DIRLOC_SCHEMA;
    return true;
  case GQL_AST_SCALAR_TYPE_DEFINITION:
  case GQL_AST_SCALAR_TYPE_EXTENSION:
    *out = GQL_DIRLOC_SCALAR;
    return true;
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_OBJECT_TYPE_EXTENSION:
    *out = GQL_DIRLOC_OBJECT;
    return true;
  case GQL_AST_FIELD_DEFINITION:
    *out = GQL_DIRLOC_FIELD_DEFINITION;
    return true;
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
    *out = GQL_DIRLOC_INTERFACE;
    return true;
  case GQL_AST_UNION_TYPE_DEFINITION:
  case GQL_AST_UNION_TYPE_EXTENSION:
    *out = GQL_DIRLOC_UNION;
    return true;
  case GQL_AST_ENUM_TYPE_DEFINITION:
  case GQL_AST_ENUM_TYPE_EXTENSION:
    *out = GQL_DIRLOC_ENUM;
    return true;
  case GQL_AST_ENUM_VALUE_DEFINITION:
    *out = GQL_DIRLOC_ENUM_VALUE;
    return true;
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
  case GQL_AST_INPUT_OBJECT_TYPE_EXTENSION:
    *out = GQL_DIRLOC_INPUT_OBJECT;
    return true;
  case GQL_AST_INPUT_VALUE_DEFINITION:
    /* graphql-js 16 checks for an input object *definition* only: input
     * fields of an extension count as argument definitions */
    *out = s->n >= 2 && s->stack[s->n - 2]->kind ==
                            GQL_AST_INPUT_OBJECT_TYPE_DEFINITION
               ? GQL_DIRLOC_INPUT_FIELD_DEFINITION
               : GQL_DIRLOC_ARGUMENT_DEFINITION;
    return true;
  default:
    return false;
  }
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  if (node->kind == GQL_AST_DIRECTIVE) {
    const gql_ast_directive *d = (const gql_ast_directive *)node;
    gql_str name = gql_ast_name_str(d->name);
    uint32_t mask, at = node->start;
    gql_directive_location loc;
    if (!locations_of(ctx, s, name, &mask))
      gql_vctx_report(ctx, &at, 1, "Unknown directive \"@%.*s\".",
                      (int)name.len, name.ptr);
    else if (location_for(s, &loc) && !((mask >> loc) & 1u))
      gql_vctx_report(ctx, &at, 1, "Directive \"@%.*s\" may not be used on %s.",
                      (int)name.len, name.ptr,
                      gql_directive_location_name(loc));
    /* arguments need no ancestors: the subtree is of no interest */
    return false;
  }
  if (!GQL_ARRAY_RESERVE_FIRST(ctx->arena, s->stack, s->cap, s->n + 1, 32)) {
    ctx->errors->nomem = true;
    return false;
  }
  s->stack[s->n++] = node;
  return true;
}

static void leave(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  (void)ctx;
  if (s->n && s->stack[s->n - 1] == node)
    s->n--;
}

const gql_vrule gql_rule_KnownDirectivesRule = {
    "KnownDirectivesRule", sizeof(state), NULL, enter, leave};
