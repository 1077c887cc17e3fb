/* UniqueVariableNamesRule: an operation defines each variable once. */
#include "internal.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return true;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  uint32_t n = op->variables.count;
  if (n < 2)
    return true;
  /* group by name in order of first appearance (graphql-js groupBy) */
  gql_namemap group = {0};
  uint32_t *first = gql_arena_alloc(ctx->arena, n * sizeof *first);
  uint32_t *count = gql_arena_alloc(ctx->arena, n * sizeof *count);
  uint32_t *offs = gql_arena_alloc(ctx->arena, n * sizeof *offs);
  if (!first || !count || !offs) {
    ctx->errors->nomem = true;
    return true;
  }
  for (uint32_t i = 0; i < n; i++) {
    gql_str name = gql_ast_name_str(op->variables.items[i]->variable->u.name);
    int rc = gql_namemap_put(&group, ctx->arena, name, i);
    if (rc < 0) {
      ctx->errors->nomem = true;
      return true;
    }
    uint32_t g;
    gql_namemap_get(&group, name, &g);
    first[i] = g;
    count[i] = 0;
    count[g]++;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (first[i] != i || count[i] < 2)
      continue;
    uint32_t k = 0;
    for (uint32_t j = i; j < n; j++)
      if (first[j] == i)
        offs[k++] = op->variables.items[j]->variable->u.name.start;
    gql_ast_name name = op->variables.items[i]->variable->u.name;
    gql_vctx_report(ctx, offs, k,
                    "There can be only one variable named \"$%.*s\".",
                    (int)name.len, name.ptr);
  }
  return true;
}

const gql_vrule gql_rule_UniqueVariableNamesRule = {"UniqueVariableNamesRule",
                                                    0, NULL, enter, NULL};
