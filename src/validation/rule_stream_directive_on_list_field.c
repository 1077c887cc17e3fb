/*
 * StreamDirectiveOnListFieldRule (graphql-js 17): @stream only on a field
 * whose type is a list or a non-null list. The field is TypeInfo's at the
 * directive (on a fragment spread or an inline fragment, the enclosing
 * field, with the selection set's type as the parent, which names it as
 * graphql-js does: "Hero.hero").
 */
#include "internal.h"

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  (void)vs;
  if (node->kind != GQL_AST_DIRECTIVE)
    return true;
  const gql_ast_directive *d = (const gql_ast_directive *)node;
  if (!gql_str_eq_cstr(gql_ast_name_str(d->name), "stream"))
    return true;
  const gql_field *def = gql_vctx_field_def(ctx);
  uint32_t parent = gql_vctx_parent_type(ctx);
  if (!def || parent == GQL_NO_TYPE)
    return true;
  const char *m = def->type.mods;
  if ((def->type.nmods >= 1 && m[0] == 'L') ||
      (def->type.nmods >= 2 && m[0] == '!' && m[1] == 'L'))
    return true;
  gql_str pn = gql_schema_type_at(ctx->schema, parent)->name;
  gql_vctx_report(ctx, &node->start, 1,
                  "Directive \"@stream\" cannot be used on non-list field "
                  "\"%.*s.%.*s\".",
                  (int)pn.len, pn.ptr, (int)def->name.len, def->name.ptr);
  return true;
}

const gql_vrule gql_rule_StreamDirectiveOnListFieldRule = {
    "StreamDirectiveOnListFieldRule", 0, NULL, enter, NULL};
