/* ScalarLeafsRule: leaf fields have no selection, others must have one. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_FIELD)
    return true;
  const gql_ast_selection *f = (const gql_ast_selection *)node;
  gql_type_ref t;
  if (!gql_vctx_type(ctx, &t))
    return true;
  bool leaf = gql_schema_is_leaf(ctx->schema, t.type);
  if (leaf == (f->selection_set != NULL)) {
    const char *ts = gql_type_ref_str(ctx->schema, t, ctx->arena);
    if (!ts) {
      ctx->errors->nomem = true;
      return true;
    }
    gql_str name = gql_ast_name_str(f->name);
    if (leaf) {
      uint32_t at = f->selection_set->h.start;
      gql_vctx_report(ctx, &at, 1,
                      "Field \"%.*s\" must not have a selection since type "
                      "\"%s\" has no subfields.",
                      (int)name.len, name.ptr, ts);
    } else {
      uint32_t at = node->start;
      gql_vctx_report(ctx, &at, 1,
                      "Field \"%.*s\" of type \"%s\" must have a selection of "
                      "subfields. Did you mean \"%.*s { ... }\"?",
                      (int)name.len, name.ptr, ts, (int)name.len, name.ptr);
    }
  }
  return true;
}

const gql_vrule gql_rule_ScalarLeafsRule = {"ScalarLeafsRule", 0, NULL, enter,
                                            NULL};
