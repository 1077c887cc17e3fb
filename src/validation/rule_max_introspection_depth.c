/* MaxIntrospectionDepthRule (graphql-js 16.9+, in specifiedRules as a
 * "recommended" rule): a __schema or __type field may not nest the
 * introspection list fields (fields, interfaces, possibleTypes, inputFields)
 * three deep, fragments followed. Reported at the __schema / __type field,
 * whose subtree is then skipped.
 *
 * graphql-js re-walks every fragment at every spread, which is exponential
 * for fragments spread twice in a chain; here the answer for a fragment at
 * an incoming depth is remembered whenever it did not depend on a cycle
 * being cut, which gives the same answers. */
#include "values.h"

#define MAX_DEPTH 3

typedef struct walk {
  gql_vctx *ctx;
  gql_vmap frag_index; /* fragment pointer → 1 + slot */
  uint8_t *visiting;   /* per slot */
  uint8_t *memo;       /* per slot * MAX_DEPTH: 0 unknown, 1 false, 2 true */
  uint32_t nslots;
  bool cut; /* a spread was cut because of a cycle */
} walk;

typedef struct state {
  walk w;
  bool ready;
} state;

static bool is_list_field(gql_ast_name n) {
  gql_str s = gql_ast_name_str(n);
  return gql_str_eq_cstr(s, "fields") || gql_str_eq_cstr(s, "interfaces") ||
         gql_str_eq_cstr(s, "possibleTypes") ||
         gql_str_eq_cstr(s, "inputFields");
}

static bool check_set(walk *w, const gql_ast_selection_set *set,
                      uint32_t depth);

static bool check_fragment(walk *w, const gql_ast_fragment *frag,
                           uint32_t depth) {
  void *v;
  uint32_t slot;
  if (gql_vmap_get(&w->frag_index, (uint64_t)(uintptr_t)frag, &v)) {
    slot = (uint32_t)(uintptr_t)v - 1;
  } else {
    slot = w->nslots++;
    if (!gql_vmap_put(&w->frag_index, (uint64_t)(uintptr_t)frag,
                      (void *)(uintptr_t)(slot + 1)))
      return false;
  }
  if (w->visiting[slot]) {
    w->cut = true; /* cycles are NoFragmentCyclesRule's business */
    return false;
  }
  uint8_t *m = &w->memo[slot * MAX_DEPTH + depth];
  if (*m)
    return *m == 2;
  bool outer_cut = w->cut;
  w->cut = false;
  w->visiting[slot] = 1;
  bool r = check_set(w, frag->selection_set, depth);
  w->visiting[slot] = 0;
  if (!w->cut)
    *m = r ? 2 : 1;
  w->cut = w->cut || outer_cut;
  return r;
}

static bool check_selection(walk *w, const gql_ast_selection *sel,
                            uint32_t depth) {
  if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
    const gql_ast_fragment *frag =
        gql_vctx_fragment(w->ctx, gql_ast_name_str(sel->name));
    return frag ? check_fragment(w, frag, depth) : false;
  }
  if (sel->h.kind == GQL_AST_FIELD && is_list_field(sel->name) &&
      ++depth >= MAX_DEPTH)
    return true;
  return check_set(w, sel->selection_set, depth);
}

static bool check_set(walk *w, const gql_ast_selection_set *set,
                      uint32_t depth) {
  if (!set)
    return false;
  for (uint32_t i = 0; i < set->selections.count; i++)
    if (check_selection(w, set->selections.items[i], depth))
      return true;
  return false;
}

static bool setup(gql_vctx *ctx, walk *w) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < ctx->doc->definitions.count; i++)
    if (ctx->doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION)
      n++;
  w->ctx = ctx;
  gql_vmap_init(&w->frag_index, ctx->arena);
  w->visiting = gql_arena_alloc(ctx->arena, n + 1);
  w->memo = gql_arena_alloc(ctx->arena, (size_t)(n + 1) * MAX_DEPTH);
  if (!w->visiting || !w->memo) {
    gql_vnomem(ctx);
    return false;
  }
  memset(w->visiting, 0, n + 1);
  memset(w->memo, 0, (size_t)(n + 1) * MAX_DEPTH);
  return true;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  state *st = vs;
  if (node->kind != GQL_AST_FIELD)
    return true;
  const gql_ast_selection *f = (const gql_ast_selection *)node;
  gql_str name = gql_ast_name_str(f->name);
  if (!gql_str_eq_cstr(name, "__schema") && !gql_str_eq_cstr(name, "__type"))
    return true;
  if (!st->ready) {
    if (!setup(ctx, &st->w))
      return true;
    st->ready = true;
  }
  st->w.cut = false;
  if (!check_selection(&st->w, f, 0))
    return true;
  gql_vctx_report(ctx, &node->start, 1, "Maximum introspection depth exceeded");
  return false;
}

const gql_vrule gql_rule_MaxIntrospectionDepthRule = {
    "MaxIntrospectionDepthRule", sizeof(state), NULL, enter, NULL};
