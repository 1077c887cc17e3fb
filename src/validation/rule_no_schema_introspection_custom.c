/* NoSchemaIntrospectionCustomRule (graphql-js's optional rule, not in
 * specifiedRules): forbids fields whose type is an introspection type, for
 * servers that turn introspection off. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_FIELD)
    return true;
  gql_type_ref t;
  if (!gql_vctx_type(ctx, &t))
    return true;
  gql_str name = gql_schema_type_at(ctx->schema, t.type)->name;
  /* The introspection types are the built-in types named "__...". */
  if (name.len > 2 && name.ptr[0] == '_' && name.ptr[1] == '_') {
    const gql_ast_selection *f = (const gql_ast_selection *)node;
    uint32_t at = node->start;
    gql_vctx_report(ctx, &at, 1,
                    "GraphQL introspection has been disabled, but the "
                    "requested query contained the field \"%.*s\".",
                    (int)f->name.len, f->name.ptr);
  }
  return true;
}

const gql_vrule gql_rule_NoSchemaIntrospectionCustomRule = {
    "NoSchemaIntrospectionCustomRule", 0, NULL, enter, NULL};
