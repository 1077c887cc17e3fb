/* ValuesOfCorrectTypeRule (graphql-js 16.11): every literal value fits the
 * input type expected where it stands: leaf literals through the built-in
 * scalars' and enums' parseLiteral (custom scalars accept anything), input
 * objects with all required fields, no unknown fields and, for @oneOf input
 * objects, exactly one non-null field. A list or object literal in a
 * position that does not take one is reported whole and not entered. */
#include "../schema/internal.h"
#include "values.h"

static void report_expected(gql_vctx *ctx, gql_type_ref t,
                            const gql_ast_value *v) {
  const char *printed = gql_vprint_value(ctx->arena, v);
  gql_vctx_report(
      ctx, &v->h.start, 1, "Expected value of type \"%s\", found %s.",
      gql_vtype_str(ctx->schema, t, ctx->arena), printed ? printed : "?");
}

/* graphql-js isValidValueNode. */
static void check_leaf(gql_vctx *ctx, const gql_ast_value *v) {
  gql_type_ref loc;
  if (!gql_vctx_input_type(ctx, &loc))
    return;
  if (!gql_schema_is_leaf(ctx->schema, loc.type)) {
    report_expected(ctx, loc, v);
    return;
  }
  const char *msg;
  if (gql_vleaf_literal_ok(ctx->schema, loc.type, v, ctx->arena, &msg))
    return;
  if (msg)
    gql_vctx_report(ctx, &v->h.start, 1, "%s", msg);
  else
    report_expected(ctx, loc, v);
}

static bool has_field(const gql_ast_value *obj, gql_str name) {
  for (uint32_t i = 0; i < obj->u.fields.count; i++)
    if (gql_str_eq(gql_ast_name_str(obj->u.fields.items[i]->name), name))
      return true;
  return false;
}

static void check_one_of(gql_vctx *ctx, const gql_ast_value *obj,
                         const gql_type *t) {
  uint32_t n = obj->u.fields.count;
  uint32_t distinct = 0;
  if (n) {
    gql_str *names = gql_arena_alloc(ctx->arena, n * sizeof *names);
    uint32_t *first = gql_arena_alloc(ctx->arena, n * sizeof *first);
    if (!names || !first) {
      gql_vnomem(ctx);
      return;
    }
    for (uint32_t i = 0; i < n; i++)
      names[i] = gql_ast_name_str(obj->u.fields.items[i]->name);
    if (!gql_vfirst_same(ctx->arena, names, n, first))
      return;
    for (uint32_t i = 0; i < n; i++)
      distinct += first[i] == i;
  }
  if (distinct != 1) {
    gql_vctx_report(ctx, &obj->h.start, 1,
                    "OneOf Input Object \"%s\" must specify exactly one key.",
                    t->name.ptr);
    return;
  }
  /* keyMap: the last field with the name wins */
  const gql_ast_argument *f = obj->u.fields.items[n - 1];
  if (f->value->h.kind == GQL_AST_NULL_VALUE)
    gql_vctx_report(ctx, &obj->h.start, 1,
                    "Field \"%s.%.*s\" must be non-null.", t->name.ptr,
                    (int)f->name.len, f->name.ptr);
}

static bool enter_object(gql_vctx *ctx, const gql_ast_value *obj) {
  gql_type_ref loc;
  bool has = gql_vctx_input_type(ctx, &loc);
  const gql_type *t = has ? gql_schema_type_at(ctx->schema, loc.type) : NULL;
  if (!t || t->kind != GQL_TYPE_INPUT_OBJECT) {
    check_leaf(ctx, obj);
    return false;
  }
  for (uint32_t i = 0; i < t->ninput_fields; i++) {
    const gql_input_value *f = &t->input_fields[i];
    if (!gql_type_ref_is_non_null(f->type) || f->default_value ||
        has_field(obj, f->name))
      continue;
    gql_vctx_report(ctx, &obj->h.start, 1,
                    "Field \"%s.%s\" of required type \"%s\" was not provided.",
                    t->name.ptr, f->name.ptr,
                    gql_vtype_str(ctx->schema, f->type, ctx->arena));
  }
  if (t->one_of)
    check_one_of(ctx, obj, t);
  return true;
}

static void enter_object_field(gql_vctx *ctx, const gql_ast_argument *f) {
  gql_type_ref parent, ft;
  if (gql_vctx_input_type(ctx, &ft) ||
      !gql_vctx_parent_input_type(ctx, &parent))
    return;
  const gql_type *t = gql_schema_type_at(ctx->schema, parent.type);
  if (t->kind != GQL_TYPE_INPUT_OBJECT)
    return;
  gql_str *names =
      gql_arena_alloc(ctx->arena, (t->ninput_fields + 1) * sizeof *names);
  gql_str *sugg =
      gql_arena_alloc(ctx->arena, (t->ninput_fields + 1) * sizeof *sugg);
  if (!names || !sugg) {
    gql_vnomem(ctx);
    return;
  }
  for (uint32_t i = 0; i < t->ninput_fields; i++)
    names[i] = t->input_fields[i].name;
  uint32_t n =
      gql_suggestion_list(gql_ast_name_str(f->name), names, t->ninput_fields,
                          sugg, t->ninput_fields, ctx->arena);
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&b, &b_alc);
  gql_buf_printf(&b, "Field \"%.*s\" is not defined by type \"%s\".",
                 (int)f->name.len, f->name.ptr, t->name.ptr);
  gql_did_you_mean(&b, NULL, sugg, n);
  const char *msg = gql_buf_cstr(&b);
  if (msg)
    gql_vctx_report(ctx, &f->h.start, 1, "%s", msg);
  gql_buf_free(&b);
}

static bool enter(gql_vctx *ctx, void *state, const gql_ast_node *node) {
  (void)state;
  const gql_ast_value *v = (const gql_ast_value *)node;
  gql_type_ref t;
  switch (node->kind) {
  case GQL_AST_LIST_VALUE:
    /* TypeInfo has entered the item type: look at the parent's */
    if (!gql_vctx_parent_input_type(ctx, &t) ||
        !gql_type_ref_is_list(gql_type_ref_nullable(t))) {
      check_leaf(ctx, v);
      return false;
    }
    return true;
  case GQL_AST_OBJECT_VALUE:
    return enter_object(ctx, v);
  case GQL_AST_OBJECT_FIELD:
    enter_object_field(ctx, (const gql_ast_argument *)node);
    return true;
  case GQL_AST_NULL_VALUE:
    if (gql_vctx_input_type(ctx, &t) && gql_type_ref_is_non_null(t))
      report_expected(ctx, t, v);
    return true;
  case GQL_AST_ENUM_VALUE:
  case GQL_AST_INT_VALUE:
  case GQL_AST_FLOAT_VALUE:
  case GQL_AST_STRING_VALUE:
  case GQL_AST_BOOLEAN_VALUE:
    check_leaf(ctx, v);
    return true;
  default:
    return true;
  }
}

const gql_vrule gql_rule_ValuesOfCorrectTypeRule = {"ValuesOfCorrectTypeRule",
                                                    0, NULL, enter, NULL};
