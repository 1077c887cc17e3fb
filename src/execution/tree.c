/* Tree mode: when a type below the root is not proven synchronous, values
 * go to an arena response tree whose leaves (and synchronous subtrees) are
 * ranges of a byte buffer; pending fields fill their node later, a
 * mutation's root fields run one after the other, and the tree is written
 * in selection order once nothing is pending (deliver.c). */
#include "deliver.h"
#include "executor.h"

/* Tree mode: an object node whose fields fill its kids. */
static void tree_field(exec_ctx *ctx, const plan_field *pf, const void *parent,
                       const path_frame *path, rnode *kid) {
  path_frame fr;
  fr.parent = path;
  fr.key = &pf->key;
  gql_out o;
  out_init(&o, ctx, pf, pf->type, pf->dleaf, &fr, kid);
  gql_exec_resolve_field(ctx, pf, parent, &fr, &o);
}

/* Resolves the root fields of a mutation until one pends (it resumes when
 * everything pending has completed) or all are done. */
static void serial_continue(exec_ctx *ctx) {
  serial_walk *w = &ctx->serial;
  bool walking = ctx->walking;
  ctx->walking = true;
  /* (a field that nulled the data stops the rest, as graphql-js's
   * executeFieldsSerially: its reduce throws, or its promise rejects) */
  while (w->next < w->count && ctx->pending == 0 && w->node->kind != R_NULL) {
    uint32_t k = w->next++;
    tree_field(ctx, w->fields[k], w->parent, NULL, &w->node->kids[k]);
  }
  ctx->walking = walking;
  if (!walking && ctx->pending == 0)
    gql_exec_finish(ctx);
}

/* Tree mode: an object node whose fields fill its kids. Its fields and
 * keys are laid out first; `serial` (the root of a mutation) resolves them
 * one after the other, each after the previous one has completed. */
void gql_exec_object_tree(exec_ctx *ctx, const plan_set *ps, const void *parent,
                          const path_frame *path, rnode *node, bool serial) {
  if (GQL_UNLIKELY(ctx->cond_check) && ctx->conds_bad && ps->check_conds &&
      gql_exec_conditions_fail(ctx, ps->type, path)) {
    gql_exec_tree_fail(ctx, node);
    if (serial)
      ctx->serial = (serial_walk){0};
    return;
  }
  uint32_t n = ps->any_cond ? ps->nentries : ps->nfields;
  uint32_t count = 0;
  /* an incremental execution's @defer: the fields this context runs */
  const bool *keep = NULL;
  if (GQL_UNLIKELY(ps->any_defer) && ctx->inc &&
      !(keep = gql_exec_defer_split(ctx, ps, parent, path, node))) {
    gql_exec_tree_fail(ctx, node);
    return;
  }
  for (uint32_t i = 0; i < n; i++)
    count += keep ? keep[i]
                  : !ps->any_cond || field_included(ctx, ps, ps->entries[i]);
  rnode *kids = gql_arena_alloc(ctx->arena, sizeof *kids * (count + 1));
  gql_str *keys = gql_arena_alloc(ctx->arena, sizeof *keys * (count + 1));
  const plan_field **fields =
      gql_arena_alloc(ctx->arena, sizeof *fields * (count + 1));
  if (!kids || !keys || !fields) {
    gql_exec_tree_fail(ctx, node);
    return;
  }
  node->kind = R_OBJECT;
  node->kids = kids;
  node->keys = keys;
  node->nkids = count;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const plan_field *pf;
    if (ps->any_cond) {
      if (keep ? !keep[i] : !field_included(ctx, ps, ps->entries[i]))
        continue;
      pf = &ps->fields[ps->entries[i].field];
    } else {
      pf = &ps->fields[i];
    }
    fields[k] = pf;
    kids[k] = (rnode){.kind = R_EMPTY,
                      .parent = node,
                      .nullable = !gql_type_ref_is_non_null(pf->field->type)};
    keys[k++] = pf->key_json;
  }
  if (serial) {
    ctx->serial = (serial_walk){fields, count, 0, parent, node};
    serial_continue(ctx);
    return;
  }
  /* A field whose failure nulled the object stops the fields after it:
   * graphql-js's executeFields throws out of its loop (a pending field's
   * failure comes later, when the others have run). The null propagation
   * marks each node up to the first nullable one, so a failure that went
   * past this object marked it too. */
  for (k = 0; k < count && node->kind != R_NULL; k++)
    tree_field(ctx, fields[k], parent, path, &kids[k]);
}

static const path_frame *copy_path(exec_ctx *ctx, const path_frame *f) {
  if (!f)
    return NULL;
  path_frame *c = gql_arena_alloc(ctx->arena, sizeof *c);
  if (!c)
    return NULL;
  *c = *f;
  c->parent = copy_path(ctx, f->parent);
  return c;
}

gql_pending *gql_out_pending(gql_out *o) {
  if (!begin(o))
    return NULL;
  exec_ctx *ctx = o->own.ctx;
  if (!o->node) {
    const gql_str *pn = parent_name(o);
    gql_exec_field_errorf(o,
                          "Field \"%.*s.%.*s\" is declared synchronous but its "
                          "resolver returned pending.",
                          (int)pn->len, pn->ptr,
                          (int)o->own.pf->field->name.len,
                          o->own.pf->field->name.ptr);
    return NULL;
  }
  gql_pending *p = gql_arena_alloc(ctx->arena, sizeof *p);
  if (!p) {
    gql_exec_field_error(o, "Out of memory.", UINT32_MAX);
    return NULL;
  }
  bool field_level = !o->info || o->field_level;
  o->pended = true;
  o->field_level = false;
  p->out = *o;
  p->out.written = false;
  p->out.pending_root = true;
  p->out.pended = false;
  p->out.field_level = field_level;
  p->out.own.path = copy_path(ctx, o->own.path);
  p->info = *out_info(o);
  p->info.path = p->out.own.path;
  p->out.info = &p->info;
  ctx->pending++;
  DONE(o);
  return p;
}

gql_out *gql_pending_out(gql_pending *p) {
  return p ? &p->out : NULL;
}

/* Called after each write to a pending field's output. */
void gql_exec_pending_done(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  o->pending_root = false;
  const gql_exec_hooks *h = ctx->hooks;
  if (o->field_level && h && h->pub.resolve_finish)
    h->pub.resolve_finish(h->pub.ctx, o->info);
  if (ctx->pending)
    ctx->pending--;
  if (ctx->walking || ctx->pending)
    return;
  if (ctx->serial.next < ctx->serial.count)
    serial_continue(ctx);
  else
    gql_exec_finish(ctx);
}

/* Tree mode: 1 when fields are pending (on_done comes when the last
 * completes), else 0 (answered). */
__attribute__((noinline)) int gql_exec_tree(exec_ctx *ctx,
                                            const void *root_value) {
  const gql_prepared *p = ctx->p;
  ctx->walking = ctx->done = false;
  ctx->pending = 0;
  ctx->inc = NULL;
  ctx->fast = NULL;
  ctx->group = NULL;
  ctx->serial = (serial_walk){0};
  gql_buf_init(&ctx->bytes, ctx->output->alc);
  ctx->out = &ctx->bytes;
  ctx->root = gql_arena_alloc(ctx->arena, sizeof *ctx->root);
  if (!ctx->root) {
    gql_buf_free(&ctx->bytes);
    gql_exec_add_error(ctx, "Out of memory.", NULL, UINT32_MAX, NULL);
    gql_exec_errors_only(ctx, true);
    return 0;
  }
  *ctx->root = (rnode){.kind = R_EMPTY, .nullable = true};
  ctx->walking = true;
  gql_exec_object_tree(ctx, p->root, root_value, NULL, ctx->root,
                       p->kind == GQL_OP_MUTATION);
  ctx->walking = false;
  if (ctx->done)
    return 0;
  if (ctx->pending == 0) {
    gql_exec_finish(ctx);
    return 0;
  }
  return 1;
}
