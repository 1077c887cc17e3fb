/* FieldsOnCorrectTypeRule: every selected field exists on its parent type;
 * otherwise suggest types to use an inline fragment on, or similar field
 * names, as graphql-js does. */
#include "../schema/internal.h"
#include "internal.h"

typedef struct suggested {
  uint32_t type;
  uint32_t count;
} suggested;

static int compare(const gql_schema *s, const suggested *a,
                   const suggested *b) {
  if (a->count != b->count)
    return b->count > a->count ? 1 : -1;
  if (s->types[a->type].kind == GQL_TYPE_INTERFACE &&
      gql_schema_is_sub_type(s, a->type, b->type))
    return -1;
  if (s->types[b->type].kind == GQL_TYPE_INTERFACE &&
      gql_schema_is_sub_type(s, b->type, a->type))
    return 1;
  return gql_natural_compare(s->types[a->type].name, s->types[b->type].name);
}

static uint32_t add(suggested *list, uint32_t n, uint32_t type) {
  for (uint32_t i = 0; i < n; i++)
    if (list[i].type == type) {
      list[i].count++;
      return n;
    }
  list[n] = (suggested){type, 1};
  return n + 1;
}

/* The types to suggest, sorted as graphql-js sorts them (V8's stable sort
 * of short arrays: binary insertion). Returns their number. */
static uint32_t suggested_types(gql_vctx *ctx, uint32_t parent, gql_str field,
                                gql_str *out) {
  const gql_schema *s = ctx->schema;
  const gql_type *t = &s->types[parent];
  if (t->kind != GQL_TYPE_INTERFACE && t->kind != GQL_TYPE_UNION)
    return 0;
  uint32_t max = t->npossible;
  for (uint32_t i = 0; i < t->npossible; i++)
    max += s->types[t->possible[i]].ninterfaces;
  suggested *list = gql_arena_alloc(ctx->arena, (max + 1) * sizeof *list);
  if (!list) {
    ctx->errors->nomem = true;
    return 0;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->npossible; i++) {
    const gql_type *pt = &s->types[t->possible[i]];
    if (!gql_type_field(pt, field))
      continue;
    /* an object type: counted once */
    n = add(list, n, t->possible[i]);
    for (uint32_t j = 0; j < pt->ninterfaces; j++)
      if (gql_type_field(&s->types[pt->interfaces[j]], field))
        n = add(list, n, pt->interfaces[j]);
  }
  for (uint32_t i = 1; i < n; i++) {
    suggested x = list[i];
    uint32_t lo = 0, hi = i;
    while (lo < hi) {
      uint32_t mid = lo + ((hi - lo) >> 1);
      if (compare(s, &x, &list[mid]) < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    memmove(&list[lo + 1], &list[lo], (i - lo) * sizeof *list);
    list[lo] = x;
  }
  uint32_t k = n < 5 ? n : 5;
  for (uint32_t i = 0; i < k; i++)
    out[i] = s->types[list[i].type].name;
  return k;
}

static uint32_t suggested_fields(gql_vctx *ctx, uint32_t parent, gql_str field,
                                 gql_str *out) {
  const gql_type *t = &ctx->schema->types[parent];
  if (t->kind != GQL_TYPE_OBJECT && t->kind != GQL_TYPE_INTERFACE)
    return 0;
  gql_str *names =
      gql_arena_alloc(ctx->arena, (t->nfields + 1) * sizeof *names);
  if (!names) {
    ctx->errors->nomem = true;
    return 0;
  }
  for (uint32_t i = 0; i < t->nfields; i++)
    names[i] = t->fields[i].name;
  return gql_suggestion_list(field, names, t->nfields, out, 5, ctx->arena);
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_FIELD)
    return true;
  uint32_t parent = gql_vctx_parent_type(ctx);
  if (parent == GQL_NO_TYPE || gql_vctx_field_def(ctx))
    return true;
  const gql_ast_selection *f = (const gql_ast_selection *)node;
  gql_str name = gql_ast_name_str(f->name);
  gql_str best[5];
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&b, &b_alc);
  uint32_t n = suggested_types(ctx, parent, name, best);
  if (n) {
    gql_did_you_mean(&b, "to use an inline fragment on", best, n);
  } else {
    n = suggested_fields(ctx, parent, name, best);
    gql_did_you_mean(&b, NULL, best, n);
  }
  const char *dym = gql_buf_cstr(&b);
  gql_str tn = ctx->schema->types[parent].name;
  uint32_t at = node->start;
  if (dym)
    gql_vctx_report(ctx, &at, 1,
                    "Cannot query field \"%.*s\" on type \"%.*s\".%s",
                    (int)name.len, name.ptr, (int)tn.len, tn.ptr, dym);
  else
    ctx->errors->nomem = true;
  gql_buf_free(&b);
  return true;
}

const gql_vrule gql_rule_FieldsOnCorrectTypeRule = {"FieldsOnCorrectTypeRule",
                                                    0, NULL, enter, NULL};
