/* PossibleFragmentSpreadsRule: a fragment is spread only where its type
 * can overlap the parent type. */
#include "validation.h"

/* The fragment's type condition when it is a known composite type. */
static uint32_t fragment_type(gql_vctx *ctx, gql_str name) {
  const gql_ast_fragment *f = gql_vctx_fragment(ctx, name);
  if (!f)
    return GQL_NO_TYPE;
  uint32_t t =
      gql_vctx_type_index(ctx, gql_ast_name_str(f->type_condition->name));
  return t != GQL_NO_TYPE && gql_schema_is_composite(ctx->schema, t)
             ? t
             : GQL_NO_TYPE;
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  const gql_schema *s = ctx->schema;
  if (node->kind == GQL_AST_INLINE_FRAGMENT) {
    gql_type_ref frag;
    uint32_t parent = gql_vctx_parent_type(ctx);
    if (!gql_vctx_type(ctx, &frag) || frag.nmods ||
        !gql_schema_is_composite(s, frag.type) || parent == GQL_NO_TYPE ||
        gql_schema_do_types_overlap(s, frag.type, parent))
      return true;
    gql_str ps = s->types[parent].name, fs = s->types[frag.type].name;
    uint32_t at = node->start;
    gql_vctx_report(ctx, &at, 1,
                    "Fragment cannot be spread here as objects of type "
                    "\"%.*s\" can never be of type \"%.*s\".",
                    (int)ps.len, ps.ptr, (int)fs.len, fs.ptr);
  } else if (node->kind == GQL_AST_FRAGMENT_SPREAD) {
    const gql_ast_selection *sp = (const gql_ast_selection *)node;
    gql_str name = gql_ast_name_str(sp->name);
    uint32_t frag = fragment_type(ctx, name);
    uint32_t parent = gql_vctx_parent_type(ctx);
    if (frag == GQL_NO_TYPE || parent == GQL_NO_TYPE ||
        gql_schema_do_types_overlap(s, frag, parent))
      return true;
    gql_str ps = s->types[parent].name, fs = s->types[frag].name;
    uint32_t at = node->start;
    gql_vctx_report(ctx, &at, 1,
                    "Fragment \"%.*s\" cannot be spread here as objects of "
                    "type \"%.*s\" can never be of type \"%.*s\".",
                    (int)name.len, name.ptr, (int)ps.len, ps.ptr, (int)fs.len,
                    fs.ptr);
  }
  return true;
}

const gql_vrule gql_rule_PossibleFragmentSpreadsRule = {
    "PossibleFragmentSpreadsRule", 0, NULL, enter, NULL};
