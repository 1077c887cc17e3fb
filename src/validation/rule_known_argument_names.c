/* KnownArgumentNamesRule (graphql-js 16): every argument of a field or a
 * directive is defined by it; unknown ones get "Did you mean" suggestions.
 * Directive arguments are checked on the Directive node (which is then
 * skipped), field arguments on each Argument node. */
#include "../schema/internal.h"
#include "values.h"

/* The argument names a directive of the document's own definitions (last
 * definition wins, as graphql-js's object assignment) or of the schema
 * defines; false when the directive is unknown. */
static bool directive_arg_names(gql_vctx *ctx, gql_str name, gql_str **names,
                                uint32_t *n) {
  const gql_ast_directive_def *dd = gql_vctx_defines_directives(ctx)
                                        ? gql_vctx_directive_def(ctx, name)
                                        : NULL;
  if (dd) {
    *n = dd->args.count;
    *names = gql_arena_alloc(ctx->arena, (*n + 1) * sizeof **names);
    if (!*names) {
      gql_vnomem(ctx);
      return false;
    }
    for (uint32_t i = 0; i < *n; i++)
      (*names)[i] = gql_ast_name_str(dd->args.items[i]->name);
    return true;
  }
  const gql_directive *sd = gql_vctx_directive_named(ctx, name);
  if (!sd)
    return false;
  *n = sd->nargs;
  *names = gql_arena_alloc(ctx->arena, (*n + 1) * sizeof **names);
  if (!*names) {
    gql_vnomem(ctx);
    return false;
  }
  for (uint32_t i = 0; i < *n; i++)
    (*names)[i] = sd->args[i].name;
  return true;
}

static void report_unknown(gql_vctx *ctx, const gql_ast_argument *arg,
                           const char *prefix, const char *owner,
                           const gql_str *known, uint32_t nknown) {
  gql_str *sugg = gql_arena_alloc(ctx->arena, (nknown + 1) * sizeof *sugg);
  uint32_t ns = sugg ? gql_suggestion_list(gql_ast_name_str(arg->name), known,
                                           nknown, sugg, nknown, ctx->arena)
                     : 0;
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&b, &b_alc);
  gql_buf_printf(&b, "Unknown argument \"%.*s\" on %s \"%s\".",
                 (int)arg->name.len, arg->name.ptr, prefix, owner);
  gql_did_you_mean(&b, NULL, sugg, ns);
  const char *msg = gql_buf_cstr(&b);
  if (msg)
    gql_vctx_report(ctx, &arg->h.start, 1, "%s", msg);
  gql_buf_free(&b);
}

/* True when every argument of a directive of the schema is defined (the
 * common case, checked without allocating). */
static bool all_known_in_schema(gql_vctx *ctx, const gql_ast_directive *d) {
  if (gql_vctx_defines_directives(ctx))
    return false;
  const gql_directive *sd =
      gql_schema_directive(ctx->schema, gql_ast_name_str(d->name));
  if (!sd)
    return true; /* unknown directives are KnownDirectivesRule's */
  for (uint32_t i = 0; i < d->args.count; i++)
    if (!gql_directive_arg(sd, gql_ast_name_str(d->args.items[i]->name)))
      return false;
  return true;
}

static bool check_directive(gql_vctx *ctx, const gql_ast_directive *d) {
  gql_str *known;
  uint32_t nknown;
  if (!d->args.count || all_known_in_schema(ctx, d) ||
      !directive_arg_names(ctx, gql_ast_name_str(d->name), &known, &nknown))
    return false;
  const char *owner =
      gql_arena_sprintf(ctx->arena, "@%.*s", (int)d->name.len, d->name.ptr);
  if (!owner) {
    gql_vnomem(ctx);
    return false;
  }
  for (uint32_t i = 0; i < d->args.count; i++) {
    const gql_ast_argument *a = d->args.items[i];
    bool found = false;
    for (uint32_t j = 0; j < nknown && !found; j++)
      found = gql_str_eq(known[j], gql_ast_name_str(a->name));
    if (!found)
      report_unknown(ctx, a, "directive", owner, known, nknown);
  }
  return false;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  if (node->kind == GQL_AST_DIRECTIVE)
    return check_directive(ctx, (const gql_ast_directive *)node);
  if (node->kind != GQL_AST_ARGUMENT)
    return true;
  const gql_field *fd = gql_vctx_field_def(ctx);
  uint32_t parent = gql_vctx_parent_type(ctx);
  if (gql_vctx_argument(ctx) || !fd || parent == GQL_NO_TYPE)
    return true;
  gql_str *known = gql_arena_alloc(ctx->arena, (fd->nargs + 1) * sizeof *known);
  if (!known) {
    gql_vnomem(ctx);
    return true;
  }
  for (uint32_t i = 0; i < fd->nargs; i++)
    known[i] = fd->args[i].name;
  const char *owner = gql_arena_sprintf(
      ctx->arena, "%s.%s", gql_schema_type_at(ctx->schema, parent)->name.ptr,
      fd->name.ptr);
  if (owner)
    report_unknown(ctx, (const gql_ast_argument *)node, "field", owner, known,
                   fd->nargs);
  return true;
}

const gql_vrule gql_rule_KnownArgumentNamesRule = {"KnownArgumentNamesRule", 0,
                                                   NULL, enter, NULL};
