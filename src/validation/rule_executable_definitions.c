/* ExecutableDefinitionsRule: a document to execute holds only operations
 * and fragments. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *state, const gql_ast_node *node) {
  (void)state;
  if (node->kind != GQL_AST_DOCUMENT)
    return true;
  const gql_document *doc = (const gql_document *)node;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (gql_ast_is_executable_definition(d->kind))
      continue;
    uint32_t at = d->start;
    if (d->kind == GQL_AST_SCHEMA_DEFINITION ||
        d->kind == GQL_AST_SCHEMA_EXTENSION) {
      gql_vctx_report(ctx, &at, 1, "The schema definition is not executable.");
      continue;
    }
    gql_ast_name name = d->kind == GQL_AST_DIRECTIVE_DEFINITION
                            ? ((const gql_ast_directive_def *)d)->name
                            : ((const gql_ast_type_def *)d)->name;
    gql_vctx_report(ctx, &at, 1, "The \"%.*s\" definition is not executable.",
                    (int)name.len, name.ptr);
  }
  return false;
}

const gql_vrule gql_rule_ExecutableDefinitionsRule = {
    "ExecutableDefinitionsRule", 0, NULL, enter, NULL};
