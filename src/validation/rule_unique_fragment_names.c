/* UniqueFragmentNamesRule: no two fragments share a name. */
#include "internal.h"

typedef struct state {
  gql_namemap seen; /* name → offset of its first name token */
} state;

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  if (node->kind == GQL_AST_OPERATION_DEFINITION)
    return false;
  if (node->kind != GQL_AST_FRAGMENT_DEFINITION)
    return true;
  const gql_ast_fragment *f = (const gql_ast_fragment *)node;
  gql_str name = gql_ast_name_str(f->name);
  uint32_t first;
  if (gql_namemap_get(&s->seen, name, &first)) {
    uint32_t at[2] = {first, f->name.start};
    gql_vctx_report(ctx, at, 2,
                    "There can be only one fragment named \"%.*s\".",
                    (int)name.len, name.ptr);
  } else if (gql_namemap_put(&s->seen, ctx->arena, name, f->name.start) < 0) {
    ctx->errors->nomem = true;
  }
  return false;
}

const gql_vrule gql_rule_UniqueFragmentNamesRule = {
    "UniqueFragmentNamesRule", sizeof(state), NULL, enter, NULL};
