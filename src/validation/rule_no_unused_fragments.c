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
  /* the union of every operation's recursively referenced fragments, in
   * one walk of the fragment graph */
  if (!gql_vctx_mark_used_fragments(ctx))
    return;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    gql_ast_name name = ((const gql_ast_fragment *)d)->name;
    if (gql_vctx_fragment_used(ctx, gql_ast_name_str(name)))
      continue;
    uint32_t at = d->start;
    gql_vctx_report(ctx, &at, 1, "Fragment \"%.*s\" is never used.",
                    (int)name.len, name.ptr);
  }
}

const gql_vrule gql_rule_NoUnusedFragmentsRule = {"NoUnusedFragmentsRule", 0,
                                                  NULL, enter, leave};
