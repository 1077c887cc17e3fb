/* VariablesAreInputTypesRule: variables have input types. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_VARIABLE_DEFINITION)
    return true;
  const gql_ast_variable_definition *v =
      (const gql_ast_variable_definition *)node;
  const gql_ast_type *named = v->type;
  while (named->h.kind != GQL_AST_NAMED_TYPE)
    named = named->of;
  uint32_t t = gql_vctx_type_index(ctx, gql_ast_name_str(named->name));
  if (t == GQL_NO_TYPE || gql_schema_is_input(ctx->schema, t))
    return true;
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&b, &b_alc);
  gql_print_type(&b, v->type);
  const char *type = gql_buf_cstr(&b);
  gql_ast_name name = v->variable->u.name;
  uint32_t at = v->type->h.start;
  if (type)
    gql_vctx_report(ctx, &at, 1,
                    "Variable \"$%.*s\" cannot be non-input type \"%s\".",
                    (int)name.len, name.ptr, type);
  else
    ctx->errors->nomem = true;
  gql_buf_free(&b);
  return true;
}

const gql_vrule gql_rule_VariablesAreInputTypesRule = {
    "VariablesAreInputTypesRule", 0, NULL, enter, NULL};
