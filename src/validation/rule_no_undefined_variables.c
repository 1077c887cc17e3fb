/* NoUndefinedVariablesRule: every variable used by an operation (and the
 * fragments it spreads) is defined by it. */
#include "internal.h"

static bool defined(const gql_ast_operation *op, gql_str name) {
  for (uint32_t i = 0; i < op->variables.count; i++)
    if (gql_str_eq(gql_ast_name_str(op->variables.items[i]->variable->u.name),
                   name))
      return true;
  return false;
}

static void leave(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  gql_namemap defs = {0};
  bool small = op->variables.count <= 8;
  for (uint32_t i = 0; i < op->variables.count && !small; i++)
    if (gql_namemap_put(
            &defs, ctx->arena,
            gql_ast_name_str(op->variables.items[i]->variable->u.name),
            0) < 0) {
      ctx->errors->nomem = true;
      return;
    }
  gql_variable_usages u = gql_vctx_recursive_variable_usages(ctx, op);
  for (uint32_t i = 0; i < u.count; i++) {
    gql_ast_name name = u.items[i].node->u.name;
    gql_str n = gql_ast_name_str(name);
    uint32_t unused;
    if (small ? defined(op, n) : gql_namemap_get(&defs, n, &unused))
      continue;
    uint32_t at[2] = {u.items[i].node->h.start, node->start};
    if (op->name.ptr)
      gql_vctx_report(ctx, at, 2,
                      "Variable \"$%.*s\" is not defined by operation "
                      "\"%.*s\".",
                      (int)name.len, name.ptr, (int)op->name.len, op->name.ptr);
    else
      gql_vctx_report(ctx, at, 2, "Variable \"$%.*s\" is not defined.",
                      (int)name.len, name.ptr);
  }
}

const gql_vrule gql_rule_NoUndefinedVariablesRule = {"NoUndefinedVariablesRule",
                                                     0, NULL, NULL, leave};
