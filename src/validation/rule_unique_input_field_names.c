/* UniqueInputFieldNamesRule (graphql-js 16): an input object literal names
 * each field once. Reported at the repeated field, with the first one's
 * name, when the repeated ObjectField is visited (so nested errors keep
 * graphql-js's order). Each object's duplicates are found once, in linear
 * time, when the object is entered. */
#include "values.h"

typedef struct frame {
  const gql_ast_value *obj;
  uint32_t *first; /* first[i]: index of the first field named like i */
  uint32_t next;   /* index of the next ObjectField to be visited */
} frame;

typedef struct state {
  frame *stack;
  uint32_t depth, cap;
  uint32_t lost; /* objects entered while the stack could not grow */
} state;

static bool push(gql_vctx *ctx, state *st, const gql_ast_value *obj) {
  if (!GQL_ARRAY_RESERVE_FIRST(ctx->arena, st->stack, st->cap, st->depth + 1,
                               16)) {
    gql_vnomem(ctx);
    st->lost++;
    return false;
  }
  frame *f = &st->stack[st->depth++];
  *f = (frame){obj, NULL, 0};
  uint32_t n = obj->u.fields.count;
  if (n < 2)
    return true;
  gql_str *names = gql_arena_alloc(ctx->arena, n * sizeof *names);
  f->first = gql_arena_alloc(ctx->arena, n * sizeof *f->first);
  if (!names || !f->first) {
    f->first = NULL;
    return true;
  }
  for (uint32_t i = 0; i < n; i++)
    names[i] = gql_ast_name_str(obj->u.fields.items[i]->name);
  if (!gql_vfirst_same(ctx->arena, names, n, f->first))
    f->first = NULL;
  return true;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  state *st = vs;
  if (node->kind == GQL_AST_OBJECT_VALUE) {
    push(ctx, st, (const gql_ast_value *)node);
    return true;
  }
  if (node->kind != GQL_AST_OBJECT_FIELD || !st->depth)
    return true;
  frame *f = &st->stack[st->depth - 1];
  const gql_ast_value *obj = f->obj;
  uint32_t i = f->next;
  if (i >= obj->u.fields.count || obj->u.fields.items[i] != (const void *)node)
    for (i = 0; i < obj->u.fields.count; i++)
      if (obj->u.fields.items[i] == (const void *)node)
        break;
  if (i >= obj->u.fields.count)
    return true;
  f->next = i + 1;
  if (f->first && f->first[i] != i) {
    const gql_ast_argument *a = obj->u.fields.items[f->first[i]];
    const gql_ast_argument *b = obj->u.fields.items[i];
    uint32_t offs[2] = {a->name.start, b->name.start};
    gql_vctx_report(ctx, offs, 2,
                    "There can be only one input field named \"%.*s\".",
                    (int)b->name.len, b->name.ptr);
  }
  return true;
}

static void leave(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  (void)ctx;
  state *st = vs;
  if (node->kind != GQL_AST_OBJECT_VALUE)
    return;
  if (st->lost)
    st->lost--;
  else if (st->depth)
    st->depth--;
}

const gql_vrule gql_rule_UniqueInputFieldNamesRule = {
    "UniqueInputFieldNamesRule", sizeof(state), NULL, enter, leave};
