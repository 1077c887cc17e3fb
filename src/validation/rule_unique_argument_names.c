/* UniqueArgumentNamesRule (graphql-js 16): a field or directive takes each
 * argument name once. One error per repeated name, in order of first
 * appearance, located at every occurrence's name. Linear in the number of
 * arguments. */
#include "values.h"

static void check(gql_vctx *ctx, const gql_ast_arguments *args) {
  uint32_t n = args->count;
  if (n < 2)
    return;
  gql_str *names = gql_arena_alloc(ctx->arena, n * sizeof *names);
  uint32_t *first = gql_arena_alloc(ctx->arena, n * sizeof *first);
  uint32_t *next = gql_arena_alloc(ctx->arena, n * sizeof *next);
  uint32_t *last = gql_arena_alloc(ctx->arena, n * sizeof *last);
  uint32_t *count = gql_arena_alloc(ctx->arena, n * sizeof *count);
  uint32_t *offs = gql_arena_alloc(ctx->arena, n * sizeof *offs);
  if (!names || !first || !next || !last || !count || !offs) {
    gql_vnomem(ctx);
    return;
  }
  for (uint32_t i = 0; i < n; i++)
    names[i] = gql_ast_name_str(args->items[i]->name);
  if (!gql_vfirst_same(ctx->arena, names, n, first))
    return;
  for (uint32_t i = 0; i < n; i++) {
    next[i] = UINT32_MAX;
    count[i] = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t f = first[i];
    if (f != i)
      next[last[f]] = i;
    last[f] = i;
    count[f]++;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (first[i] != i || count[i] < 2)
      continue;
    uint32_t k = 0;
    for (uint32_t j = i; j != UINT32_MAX; j = next[j])
      offs[k++] = args->items[j]->name.start;
    gql_vctx_report(ctx, offs, k,
                    "There can be only one argument named \"%.*s\".",
                    (int)names[i].len, names[i].ptr);
  }
}

static bool enter(gql_vctx *ctx, void *state, const gql_ast_node *node) {
  (void)state;
  if (node->kind == GQL_AST_FIELD)
    check(ctx, &((const gql_ast_selection *)node)->args);
  else if (node->kind == GQL_AST_DIRECTIVE)
    check(ctx, &((const gql_ast_directive *)node)->args);
  return true;
}

const gql_vrule gql_rule_UniqueArgumentNamesRule = {"UniqueArgumentNamesRule",
                                                    0, NULL, enter, NULL};
