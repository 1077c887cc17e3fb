/* LoneAnonymousOperationRule: an anonymous operation must be alone. */
#include "validation.h"

typedef struct state {
  uint32_t operations;
} state;

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  if (node->kind == GQL_AST_DOCUMENT) {
    const gql_document *doc = (const gql_document *)node;
    s->operations = 0;
    for (uint32_t i = 0; i < doc->definitions.count; i++)
      if (doc->definitions.items[i]->kind == GQL_AST_OPERATION_DEFINITION)
        s->operations++;
  } else if (node->kind == GQL_AST_OPERATION_DEFINITION) {
    const gql_ast_operation *op = (const gql_ast_operation *)node;
    if (!op->name.ptr && s->operations > 1) {
      uint32_t at = node->start;
      gql_vctx_report(ctx, &at, 1,
                      "This anonymous operation must be the only defined "
                      "operation.");
    }
  }
  return true;
}

const gql_vrule gql_rule_LoneAnonymousOperationRule = {
    "LoneAnonymousOperationRule", sizeof(state), NULL, enter, NULL};
