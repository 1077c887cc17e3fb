/* NoDeprecatedCustomRule (graphql-js's optional rule, not in
 * specifiedRules): reports uses of deprecated fields, arguments, input
 * fields and enum values. */
#include "validation.h"

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  const gql_schema *s = ctx->schema;
  uint32_t at = node->start;
  switch (node->kind) {
  case GQL_AST_FIELD: {
    const gql_field *f = gql_vctx_field_def(ctx);
    uint32_t parent = gql_vctx_parent_type(ctx);
    if (f && f->deprecation_reason.ptr && parent != GQL_NO_TYPE) {
      gql_str pn = gql_schema_type_at(s, parent)->name;
      gql_vctx_report(ctx, &at, 1, "The field %.*s.%.*s is deprecated. %.*s",
                      (int)pn.len, pn.ptr, (int)f->name.len, f->name.ptr,
                      (int)f->deprecation_reason.len,
                      f->deprecation_reason.ptr);
    }
    break;
  }
  case GQL_AST_ARGUMENT: {
    const gql_input_value *a = gql_vctx_argument(ctx);
    if (!a || !a->deprecation_reason.ptr)
      break;
    gql_str why = a->deprecation_reason;
    const gql_directive *d = gql_vctx_directive(ctx);
    if (d) {
      gql_vctx_report(ctx, &at, 1,
                      "Directive \"@%.*s\" argument \"%.*s\" is deprecated. "
                      "%.*s",
                      (int)d->name.len, d->name.ptr, (int)a->name.len,
                      a->name.ptr, (int)why.len, why.ptr);
      break;
    }
    const gql_field *f = gql_vctx_field_def(ctx);
    uint32_t parent = gql_vctx_parent_type(ctx);
    if (f && parent != GQL_NO_TYPE) {
      gql_str pn = gql_schema_type_at(s, parent)->name;
      gql_vctx_report(ctx, &at, 1,
                      "Field \"%.*s.%.*s\" argument \"%.*s\" is deprecated. "
                      "%.*s",
                      (int)pn.len, pn.ptr, (int)f->name.len, f->name.ptr,
                      (int)a->name.len, a->name.ptr, (int)why.len, why.ptr);
    }
    break;
  }
  case GQL_AST_OBJECT_FIELD: {
    gql_type_ref parent;
    if (!gql_vctx_parent_input_type(ctx, &parent))
      break;
    const gql_type *t = gql_schema_type_at(s, parent.type);
    if (t->kind != GQL_TYPE_INPUT_OBJECT)
      break;
    const gql_ast_argument *of = (const gql_ast_argument *)node;
    const gql_input_value *f =
        gql_type_input_field(t, gql_ast_name_str(of->name));
    if (f && f->deprecation_reason.ptr)
      gql_vctx_report(
          ctx, &at, 1, "The input field %.*s.%.*s is deprecated. %.*s",
          (int)t->name.len, t->name.ptr, (int)f->name.len, f->name.ptr,
          (int)f->deprecation_reason.len, f->deprecation_reason.ptr);
    break;
  }
  case GQL_AST_ENUM_VALUE: {
    const gql_enum_value *v = gql_vctx_enum_value(ctx);
    gql_type_ref in;
    if (v && v->deprecation_reason.ptr && gql_vctx_input_type(ctx, &in)) {
      gql_str tn = gql_schema_type_at(s, in.type)->name;
      gql_vctx_report(
          ctx, &at, 1, "The enum value \"%.*s.%.*s\" is deprecated. %.*s",
          (int)tn.len, tn.ptr, (int)v->name.len, v->name.ptr,
          (int)v->deprecation_reason.len, v->deprecation_reason.ptr);
    }
    break;
  }
  default:
    break;
  }
  return true;
}

const gql_vrule gql_rule_NoDeprecatedCustomRule = {"NoDeprecatedCustomRule", 0,
                                                   NULL, enter, NULL};
