/* ProvidedRequiredArgumentsRule (graphql-js 16): every required argument
 * (non-null, no default) of a field or directive is given. Checked when
 * leaving the node, so that errors deeper inside come first. */
#include "values.h"

static bool provided(const gql_ast_arguments *args, gql_str name) {
  for (uint32_t i = 0; i < args->count; i++)
    if (gql_str_eq(gql_ast_name_str(args->items[i]->name), name))
      return true;
  return false;
}

static void leave_field(gql_vctx *ctx, const gql_ast_selection *field) {
  const gql_field *fd = gql_vctx_field_def(ctx);
  if (!fd)
    return;
  for (uint32_t i = 0; i < fd->nargs; i++) {
    const gql_input_value *a = &fd->args[i];
    if (!gql_type_ref_is_non_null(a->type) || a->default_value ||
        provided(&field->args, a->name))
      continue;
    gql_vctx_report(ctx, &field->h.start, 1,
                    "Field \"%s\" argument \"%s\" of type \"%s\" is required, "
                    "but it was not provided.",
                    fd->name.ptr, a->name.ptr,
                    gql_vtype_str(ctx->schema, a->type, ctx->arena));
  }
}

static void report_directive(gql_vctx *ctx, const gql_ast_directive *d,
                             gql_str arg, const char *type) {
  gql_vctx_report(ctx, &d->h.start, 1,
                  "Directive \"@%.*s\" argument \"%.*s\" of type \"%s\" is "
                  "required, but it was not provided.",
                  (int)d->name.len, d->name.ptr, (int)arg.len, arg.ptr, type);
}

static void leave_directive(gql_vctx *ctx, const gql_ast_directive *d) {
  gql_str name = gql_ast_name_str(d->name);
  /* A directive defined in the document itself wins (the last one). */
  const gql_ast_directive_def *dd = gql_vctx_defines_directives(ctx)
                                        ? gql_vctx_directive_def(ctx, name)
                                        : NULL;
  if (dd) {
    for (uint32_t i = 0; i < dd->args.count; i++) {
      const gql_ast_input_value_def *a = dd->args.items[i];
      if (a->type->h.kind != GQL_AST_NON_NULL_TYPE || a->default_value ||
          provided(&d->args, gql_ast_name_str(a->name)))
        continue;
      gql_buf b;
      gql_allocator b_alc = gql_arena_allocator(ctx->arena);
      gql_buf_init(&b, &b_alc);
      gql_print_type(&b, a->type);
      const char *t = gql_buf_cstr(&b);
      report_directive(ctx, d, gql_ast_name_str(a->name), t ? t : "?");
      gql_buf_free(&b);
    }
    return;
  }
  const gql_directive *sd = gql_vctx_directive_named(ctx, name);
  if (!sd)
    return;
  for (uint32_t i = 0; i < sd->nargs; i++) {
    const gql_input_value *a = &sd->args[i];
    if (!gql_type_ref_is_non_null(a->type) || a->default_value ||
        provided(&d->args, a->name))
      continue;
    report_directive(ctx, d, a->name,
                     gql_vtype_str(ctx->schema, a->type, ctx->arena));
  }
}

static void leave(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  if (node->kind == GQL_AST_FIELD)
    leave_field(ctx, (const gql_ast_selection *)node);
  else if (node->kind == GQL_AST_DIRECTIVE)
    leave_directive(ctx, (const gql_ast_directive *)node);
}

const gql_vrule gql_rule_ProvidedRequiredArgumentsRule = {
    "ProvidedRequiredArgumentsRule", 0, NULL, NULL, leave};
