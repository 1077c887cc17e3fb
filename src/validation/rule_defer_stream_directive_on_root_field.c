/*
 * DeferStreamDirectiveOnRootFieldRule (graphql-js 17): no @defer on a
 * fragment at the root of a mutation or subscription, and no @stream on a
 * root field there. The root is the operation's selection set with its
 * inline fragments and the fragments it spreads (each once per operation);
 * fields' own selections are below the root. A fragment found clean for one
 * operation is not walked again for the next; one with an error is, so its
 * errors come once per operation, as in graphql-js.
 */
#include "internal.h"

typedef struct state {
  gql_namemap checked; /* fragment names walked without an error */
} state;

typedef struct walk {
  gql_vctx *ctx;
  const char *op;   /* "mutation" or "subscription" */
  const char *root; /* the root type's name */
  gql_namemap visited;
  gql_str *names; /* visited, in order (to mark them checked) */
  uint32_t nnames, cap;
  bool valid, nomem;
} walk;

static void report(walk *w, const gql_ast_directive *d, const char *what) {
  uint32_t at = d->h.start;
  w->valid = false;
  gql_vctx_report(w->ctx, &at, 1,
                  "%s directive cannot be used on root %s type \"%s\".", what,
                  w->op, w->root);
}

/* False when the fragment was visited already (or on failure). */
static bool visit(walk *w, gql_str name) {
  int r = gql_namemap_put(&w->visited, w->ctx->arena, name, 0);
  if (r == 1 &&
      !GQL_ARRAY_RESERVE(w->ctx->arena, w->names, w->cap, w->nnames + 1))
    r = -1;
  if (r < 0)
    w->nomem = true;
  else if (r == 1)
    w->names[w->nnames++] = name;
  return r == 1;
}

/* graphql-js forbidDeferStream over the operation's root. */
static void forbid(walk *w, state *st, const gql_ast_selection_set *root) {
  gql_vsel_walk sw;
  gql_vsel_init(&sw, w->ctx->arena);
  gql_vsel_push(&sw, root, NULL);
  const gql_ast_selection *sel;
  while ((sel = gql_vsel_next(&sw)) && !w->nomem && !w->ctx->impl->aborted) {
    const gql_ast_directive *d;
    if (sel->h.kind == GQL_AST_FIELD) {
      if ((d = gql_vfind_directive(&sel->directives, "stream")))
        report(w, d, "Stream");
      continue;
    }
    if (sel->h.kind == GQL_AST_INLINE_FRAGMENT) {
      if ((d = gql_vfind_directive(&sel->directives, "defer")))
        report(w, d, "Defer");
      gql_vsel_push(&sw, sel->selection_set, NULL);
      continue;
    }
    gql_str name = gql_ast_name_str(sel->name);
    const gql_ast_fragment *f;
    if (!visit(w, name) || !(f = gql_vctx_fragment(w->ctx, name)))
      continue;
    if ((d = gql_vfind_directive(&sel->directives, "defer")))
      report(w, d, "Defer");
    uint32_t dummy;
    if (!gql_namemap_get(&st->checked, name, &dummy))
      gql_vsel_push(&sw, f->selection_set, sel);
  }
  w->nomem |= sw.nomem;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return true;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  if (op->operation == GQL_OP_QUERY || !op->selection_set)
    return true;
  uint32_t root = gql_schema_root_type(ctx->schema, op->operation);
  if (root == GQL_NO_TYPE)
    return true;
  state *st = vs;
  walk w = {.ctx = ctx,
            .valid = true,
            .op =
                op->operation == GQL_OP_MUTATION ? "mutation" : "subscription",
            .root = gql_schema_type_at(ctx->schema, root)->name.ptr};
  forbid(&w, st, op->selection_set);
  for (uint32_t i = 0; w.valid && i < w.nnames; i++)
    if (gql_namemap_put(&st->checked, ctx->arena, w.names[i], 0) < 0)
      w.nomem = true;
  if (w.nomem)
    ctx->errors->nomem = true;
  return true;
}

const gql_vrule gql_rule_DeferStreamDirectiveOnRootFieldRule = {
    "DeferStreamDirectiveOnRootFieldRule", sizeof(state), NULL, enter, NULL};
