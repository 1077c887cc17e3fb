/* NoUnusedVariablesRule: every variable an operation defines is used by it
 * or by the fragments it spreads. */
#include "internal.h"

static void leave(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  if (!op->variables.count)
    return;
  gql_namemap used = {0};
  gql_variable_usages u = gql_vctx_recursive_variable_usages(ctx, op);
  for (uint32_t i = 0; i < u.count; i++)
    if (gql_namemap_put(&used, ctx->arena,
                        gql_ast_name_str(u.items[i].node->u.name), 0) < 0) {
      ctx->errors->nomem = true;
      return;
    }
  for (uint32_t i = 0; i < op->variables.count; i++) {
    const gql_ast_variable_definition *v = op->variables.items[i];
    gql_ast_name name = v->variable->u.name;
    uint32_t unused;
    if (gql_namemap_get(&used, gql_ast_name_str(name), &unused))
      continue;
    uint32_t at = v->h.start;
    if (op->name.ptr)
      gql_vctx_report(ctx, &at, 1,
                      "Variable \"$%.*s\" is never used in operation \"%.*s\".",
                      (int)name.len, name.ptr, (int)op->name.len, op->name.ptr);
    else
      gql_vctx_report(ctx, &at, 1, "Variable \"$%.*s\" is never used.",
                      (int)name.len, name.ptr);
  }
}

const gql_vrule gql_rule_NoUnusedVariablesRule = {"NoUnusedVariablesRule", 0,
                                                  NULL, NULL, leave};
