/*
 * DeferStreamDirectiveLabelRule (graphql-js 17): the `label` of @defer and
 * @stream is a string literal (null or none is fine), and no two of them in
 * the document carry the same one (its value, so "a" and """a""" are the
 * same). A repeated label is reported with the first directive that had it.
 */
#include "internal.h"

typedef struct state {
  gql_namemap labels; /* label value → offset of its first directive */
} state;

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  if (node->kind != GQL_AST_DIRECTIVE)
    return true;
  const gql_ast_directive *d = (const gql_ast_directive *)node;
  gql_str name = gql_ast_name_str(d->name);
  if (!gql_str_eq_cstr(name, "defer") && !gql_str_eq_cstr(name, "stream"))
    return true;
  const gql_ast_argument *label = gql_vfind_argument(d, "label");
  if (!label || label->value->h.kind == GQL_AST_NULL_VALUE)
    return true;
  uint32_t at[2] = {0, node->start};
  if (label->value->h.kind != GQL_AST_STRING_VALUE) {
    gql_vctx_report(ctx, at + 1, 1,
                    "Argument \"@%.*s(label:)\" must be a static string.",
                    (int)name.len, name.ptr);
    return true;
  }
  state *st = vs;
  gql_str value = label->value->u.string.value;
  if (gql_namemap_get(&st->labels, value, &at[0]))
    gql_vctx_report(ctx, at, 2,
                    "Value for arguments \"defer(label:)\" and "
                    "\"stream(label:)\" must be unique across all "
                    "Defer/Stream directive usages.");
  else if (gql_namemap_put(&st->labels, ctx->arena, value, node->start) < 0)
    ctx->errors->nomem = true;
  return true;
}

const gql_vrule gql_rule_DeferStreamDirectiveLabelRule = {
    "DeferStreamDirectiveLabelRule", sizeof(state), NULL, enter, NULL};
