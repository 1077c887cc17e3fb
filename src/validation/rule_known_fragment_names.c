/* KnownFragmentNamesRule: every spread names a defined fragment. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_FRAGMENT_SPREAD)
    return true;
  const gql_ast_selection *s = (const gql_ast_selection *)node;
  gql_str name = gql_ast_name_str(s->name);
  if (!gql_vctx_fragment(ctx, name)) {
    uint32_t at = s->name.start;
    gql_vctx_report(ctx, &at, 1, "Unknown fragment \"%.*s\".", (int)name.len,
                    name.ptr);
  }
  return true;
}

const gql_vrule gql_rule_KnownFragmentNamesRule = {"KnownFragmentNamesRule", 0,
                                                   NULL, enter, NULL};
