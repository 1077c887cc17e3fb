/*
 * NoFragmentCyclesRule: no fragment spreads itself, directly or through
 * others. graphql-js's depth-first search with a visited set (each fragment
 * is explored once, so the search is linear), made iterative so that a long
 * chain of fragments cannot exhaust the C stack.
 */
#include "internal.h"

#define NOT_ON_PATH UINT32_MAX

typedef struct frame {
  gql_str name;
  gql_spread_list spreads;
  uint32_t next; /* index of the next spread to follow */
} frame;

typedef struct state {
  gql_namemap visited;
  gql_namemap path_index; /* name → index in the spread path, or NOT_ON_PATH */
  const gql_ast_selection **path;
  uint32_t npath, cpath;
  frame *frames;
  uint32_t nframes, cframes;
} state;

/* Room for one more item in a stack (first room 16); false, with the
 * out-of-memory noted, when there is none. */
#define RESERVE(ctx, items, n, cap)                                            \
  (GQL_ARRAY_RESERVE_FIRST((ctx)->arena, items, cap, (n) + 1, 16) ||           \
   ((ctx)->errors->nomem = true, false))

/* Starts exploring `f` unless it was visited; false when out of memory. */
static bool push_fragment(gql_vctx *ctx, state *s, const gql_ast_fragment *f) {
  gql_str name = gql_ast_name_str(f->name);
  int rc = gql_namemap_put(&s->visited, ctx->arena, name, 0);
  if (rc <= 0)
    return rc == 0;
  gql_spread_list spreads = gql_vctx_fragment_spreads(ctx, f->selection_set);
  if (!spreads.count)
    return true;
  if (!gql_namemap_set(&s->path_index, ctx->arena, name, s->npath))
    return false;
  if (!RESERVE(ctx, s->frames, s->nframes, s->cframes))
    return false;
  s->frames[s->nframes++] = (frame){name, spreads, 0};
  return true;
}

static void report_cycle(gql_vctx *ctx, state *s, uint32_t from) {
  const gql_ast_selection *last = s->path[s->npath - 1];
  gql_buf via;
  gql_allocator via_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&via, &via_alc);
  for (uint32_t i = from; i + 1 < s->npath; i++) {
    gql_buf_puts(&via, i > from ? ", \"" : " via \"");
    gql_buf_append(&via, s->path[i]->name.ptr, s->path[i]->name.len);
    gql_buf_putc(&via, '"');
  }
  uint32_t n = s->npath - from;
  uint32_t *at = gql_arena_alloc(ctx->arena, n * sizeof *at);
  const char *v = gql_buf_cstr(&via);
  if (!at || !v) {
    ctx->errors->nomem = true;
  } else {
    for (uint32_t i = 0; i < n; i++)
      at[i] = s->path[from + i]->h.start;
    gql_vctx_report(ctx, at, n,
                    "Cannot spread fragment \"%.*s\" within itself%s.",
                    (int)last->name.len, last->name.ptr, v);
  }
  gql_buf_free(&via);
}

static void detect_cycles(gql_vctx *ctx, state *s, const gql_ast_fragment *f) {
  if (!push_fragment(ctx, s, f))
    return;
  while (s->nframes && !ctx->errors->nomem) {
    frame *top = &s->frames[s->nframes - 1];
    if (top->next > 0) /* back from the previous spread */
      s->npath--;
    if (top->next == top->spreads.count) {
      gql_namemap_set(&s->path_index, ctx->arena, top->name, NOT_ON_PATH);
      s->nframes--;
      continue;
    }
    const gql_ast_selection *spread = top->spreads.items[top->next++];
    gql_str name = gql_ast_name_str(spread->name);
    uint32_t cycle = NOT_ON_PATH;
    gql_namemap_get(&s->path_index, name, &cycle);
    if (!RESERVE(ctx, s->path, s->npath, s->cpath))
      return;
    s->path[s->npath++] = spread;
    if (cycle == NOT_ON_PATH) {
      const gql_ast_fragment *next = gql_vctx_fragment(ctx, name);
      if (next && !push_fragment(ctx, s, next))
        return;
    } else {
      report_cycle(ctx, s, cycle);
    }
  }
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  if (node->kind == GQL_AST_OPERATION_DEFINITION)
    return false;
  if (node->kind != GQL_AST_FRAGMENT_DEFINITION)
    return true;
  detect_cycles(ctx, st, (const gql_ast_fragment *)node);
  return false;
}

const gql_vrule gql_rule_NoFragmentCyclesRule = {
    "NoFragmentCyclesRule", sizeof(state), NULL, enter, NULL};
