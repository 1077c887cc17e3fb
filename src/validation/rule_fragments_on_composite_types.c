/* FragmentsOnCompositeTypesRule: fragments condition on objects,
 * interfaces or unions. */
#include "validation.h"

/* Reports when the condition names a known type that is not composite. */
static void check(gql_vctx *ctx, const gql_ast_type *cond,
                  const gql_ast_name *fragment) {
  uint32_t t = gql_vctx_type_index(ctx, gql_ast_name_str(cond->name));
  if (t == GQL_NO_TYPE || gql_schema_is_composite(ctx->schema, t))
    return;
  uint32_t at = cond->h.start;
  if (fragment)
    gql_vctx_report(ctx, &at, 1,
                    "Fragment \"%.*s\" cannot condition on non composite type "
                    "\"%.*s\".",
                    (int)fragment->len, fragment->ptr, (int)cond->name.len,
                    cond->name.ptr);
  else
    gql_vctx_report(ctx, &at, 1,
                    "Fragment cannot condition on non composite type \"%.*s\".",
                    (int)cond->name.len, cond->name.ptr);
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind == GQL_AST_INLINE_FRAGMENT) {
    const gql_ast_selection *s = (const gql_ast_selection *)node;
    if (s->type_condition)
      check(ctx, s->type_condition, NULL);
  } else if (node->kind == GQL_AST_FRAGMENT_DEFINITION) {
    const gql_ast_fragment *f = (const gql_ast_fragment *)node;
    check(ctx, f->type_condition, &f->name);
  }
  return true;
}

const gql_vrule gql_rule_FragmentsOnCompositeTypesRule = {
    "FragmentsOnCompositeTypesRule", 0, NULL, enter, NULL};
