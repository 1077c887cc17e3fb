/* NoUnusedFragmentsRule: every fragment is used by some operation. */
#include "internal.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)ctx;
  (void)st;
  return node->kind != GQL_AST_OPERATION_DEFINITION &&
         node->kind != GQL_AST_FRAGMENT_DEFINITION;
}

static void leave(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_DOCUMENT)
    return;
  const gql_document *doc = (const gql_document *)node;
  gql_namemap used = {0};
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_OPERATION_DEFINITION)
      continue;
    gql_fragment_list l = gql_vctx_recursive_fragments(ctx, d);
    for (uint32_t j = 0; j < l.count; j++)
      if (gql_namemap_put(&used, ctx->arena, gql_ast_name_str(l.items[j]->name),
                          0) < 0) {
        ctx->errors->nomem = true;
        return;
      }
  }
  uint32_t unused;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    gql_ast_name name = ((const gql_ast_fragment *)d)->name;
    if (gql_namemap_get(&used, gql_ast_name_str(name), &unused))
      continue;
    uint32_t at = d->start;
    gql_vctx_report(ctx, &at, 1, "Fragment \"%.*s\" is never used.",
                    (int)name.len, name.ptr);
  }
}

const gql_vrule gql_rule_NoUnusedFragmentsRule = {"NoUnusedFragmentsRule", 0,
                                                  NULL, enter, leave};
