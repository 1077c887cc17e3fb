/*
 * DeferStreamDirectiveOnValidOperationsRule (graphql-js 17): a subscription
 * may hold @defer and @stream only where they can be off: with `if: false`
 * or `if: $variable`, or below a selection that @skip or @include may leave
 * out (a literal that keeps it does not count; a variable does). Every
 * selection of the operation counts, through fields, inline fragments and
 * the fragments it spreads (each once per operation). An error names the
 * directive and then the spreads that led to it, innermost first. A
 * fragment found clean for one subscription is not walked again for the
 * next; one with an error is.
 */
#include "internal.h"

typedef struct state {
  gql_namemap checked; /* fragment names walked without an error */
} state;

/* graphql-js ifArgumentCanBeFalse. */
static bool can_be_off(const gql_ast_directive *d) {
  const gql_ast_argument *a = gql_vfind_argument(d, "if");
  if (!a)
    return false;
  if (a->value->h.kind == GQL_AST_BOOLEAN_VALUE)
    return !a->value->u.boolean;
  return a->value->h.kind == GQL_AST_VARIABLE;
}

/* graphql-js canBeSkippedViaSkipDirective / ...ViaIncludeDirective: a
 * directive without `if` skips (@skip) or keeps (@include); a literal
 * boolean decides; anything else may skip. */
static bool may_skip(const gql_ast_directive *d, bool skip) {
  const gql_ast_argument *a = gql_vfind_argument(d, "if");
  if (!a)
    return skip;
  if (a->value->h.kind == GQL_AST_BOOLEAN_VALUE)
    return a->value->u.boolean == skip;
  return true;
}

/* The directive, then the spreads that led to it: every frame on the
 * stack is an ancestor of the selection being looked at. */
static void report(gql_vctx *ctx, const gql_vsel_walk *sw,
                   const gql_ast_directive *d, bool defer) {
  if (ctx->impl->aborted)
    return; /* the error limit was reached: no memory for more */
  uint32_t n = 1;
  for (uint32_t i = 0; i < sw->n; i++)
    n += sw->stack[i].via != NULL;
  uint32_t *at = gql_arena_alloc(ctx->arena, n * sizeof *at);
  if (!at) {
    ctx->errors->nomem = true;
    return;
  }
  at[0] = d->h.start;
  n = 1;
  for (uint32_t i = sw->n; i-- > 0;)
    if (sw->stack[i].via)
      at[n++] = sw->stack[i].via->h.start;
  if (defer)
    gql_vctx_report(ctx, at, n,
                    "Defer directive not supported on subscription "
                    "operations. Disable `@defer` by setting the `if` "
                    "argument to `false`.");
  else
    gql_vctx_report(ctx, at, n,
                    "Stream directive not supported on subscription "
                    "operations. Disable `@stream` by setting the `if` "
                    "argument to `false`.");
}

/* graphql-js forbidUnconditionalDeferStream over one subscription: false
 * when it reported. The fragments it walked go to `walked`. */
static bool forbid(gql_vctx *ctx, state *st, const gql_ast_selection_set *set,
                   gql_namemap *visited, gql_str **walked, uint32_t *nwalked,
                   bool *nomem) {
  bool valid = true;
  uint32_t cap = 0;
  gql_vsel_walk sw;
  gql_vsel_init(&sw, ctx->arena);
  gql_vsel_push(&sw, set, NULL);
  const gql_ast_selection *sel;
  while ((sel = gql_vsel_next(&sw)) && !*nomem && !ctx->impl->aborted) {
    const gql_ast_directives *ds = &sel->directives;
    const gql_ast_directive *d;
    if (((d = gql_vfind_directive(ds, "skip")) && may_skip(d, true)) ||
        ((d = gql_vfind_directive(ds, "include")) && may_skip(d, false)))
      continue;
    for (uint32_t i = 0; i < ds->count; i++) {
      gql_str name = gql_ast_name_str(ds->items[i]->name);
      bool defer = gql_str_eq_cstr(name, "defer");
      if ((defer || gql_str_eq_cstr(name, "stream")) &&
          !can_be_off(ds->items[i])) {
        valid = false;
        report(ctx, &sw, ds->items[i], defer);
      }
    }
    if (sel->h.kind != GQL_AST_FRAGMENT_SPREAD) {
      gql_vsel_push(&sw, sel->selection_set, NULL);
      continue;
    }
    gql_str name = gql_ast_name_str(sel->name);
    uint32_t dummy;
    if (gql_namemap_get(&st->checked, name, &dummy))
      continue;
    int r = gql_namemap_put(visited, ctx->arena, name, 0);
    if (r == 1 && !GQL_ARRAY_RESERVE(ctx->arena, *walked, cap, *nwalked + 1))
      r = -1;
    if (r < 0)
      *nomem = true;
    if (r != 1)
      continue;
    (*walked)[(*nwalked)++] = name;
    const gql_ast_fragment *f = gql_vctx_fragment(ctx, name);
    if (f)
      gql_vsel_push(&sw, f->selection_set, sel);
  }
  *nomem |= sw.nomem;
  return valid;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return true;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  if (op->operation != GQL_OP_SUBSCRIPTION || !op->selection_set)
    return true;
  state *st = vs;
  gql_namemap visited = {0};
  gql_str *walked = NULL;
  uint32_t nwalked = 0;
  bool nomem = false;
  if (forbid(ctx, st, op->selection_set, &visited, &walked, &nwalked, &nomem))
    for (uint32_t i = 0; i < nwalked; i++)
      if (gql_namemap_put(&st->checked, ctx->arena, walked[i], 0) < 0)
        nomem = true;
  if (nomem)
    ctx->errors->nomem = true;
  return true;
}

const gql_vrule gql_rule_DeferStreamDirectiveOnValidOperationsRule = {
    "DeferStreamDirectiveOnValidOperationsRule", sizeof(state), NULL, enter,
    NULL};
