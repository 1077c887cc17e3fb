/* Errors and null propagation: an error with its locations and path
 * (graphql-js's order), a value that cannot be completed becoming null or
 * making its container null, and the errors of a value whose concrete type
 * cannot be found. The bottom of the executor: it calls nothing above. */
#include "executor.h"

static void write_path(gql_buf *b, const path_frame *f) {
  if (!f)
    return;
  write_path(b, f->parent);
  if (f->parent)
    gql_buf_putc(b, ',');
  if (!f->key)
    gql_json_write_int(b, f->index);
  else
    gql_json_write_string(b, *f->key);
}

const char *gql_exec_path_json_in(exec_ctx *ctx, const path_frame *f,
                                  gql_buf *b) {
  b->len = 0;
  gql_buf_putc(b, '[');
  write_path(b, f);
  gql_buf_putc(b, ']');
  const char *s = gql_buf_cstr(b);
  return s ? gql_arena_strndup(ctx->arena, s, b->len) : NULL;
}

const char *gql_exec_path_json(exec_ctx *ctx, const path_frame *f) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  const char *r = gql_exec_path_json_in(ctx, f, &b);
  gql_buf_free(&b);
  return r;
}

/* Records an error at the field's nodes (or at byte `off` when not
 * UINT32_MAX) with the path. */
void gql_exec_add_error(exec_ctx *ctx, const char *msg, const plan_field *pf,
                        uint32_t off, const path_frame *path) {
  if (GQL_UNLIKELY(ctx->owed)) /* the error may end a list early */
    gql_exec_stamps_settle(ctx);
  if (!GQL_ARRAY_RESERVE(ctx->arena, ctx->errs, ctx->cap, ctx->nerrs + 1))
    return;
  exec_error *e = &ctx->errs[ctx->nerrs++];
  gql_str src = ctx->p->text;
  *e = (exec_error){.message = gql_arena_strndup(ctx->arena, msg, strlen(msg))};
  if (!e->message)
    e->message = "Out of memory.";
  if (off != UINT32_MAX) {
    e->locs = gql_arena_alloc(ctx->arena, sizeof *e->locs);
    if (e->locs) {
      e->locs[0] = gql_location_of(src.ptr, src.len, off);
      e->nlocs = 1;
    }
  } else if (pf) {
    e->locs = gql_arena_alloc(ctx->arena, sizeof *e->locs * pf->nocc);
    for (uint32_t i = 0; e->locs && i < pf->nocc; i++)
      if (occ_included(ctx, &pf->occs[i]))
        e->locs[e->nlocs++] =
            gql_location_of(src.ptr, src.len, pf->occs[i].node->h.start);
  }
  if (path)
    e->path = gql_exec_path_json(ctx, path);
}

void gql_exec_tree_fail(exec_ctx *ctx, rnode *n) {
  while (n) {
    n->kind = R_NULL;
    if (n->nullable)
      return;
    n = n->parent;
  }
}

/* The value cannot be completed: null when its type allows, else the
 * container becomes null. */
void gql_exec_value_failed(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  if (o->node) {
    if (gql_type_ref_is_non_null(o->type))
      gql_exec_tree_fail(ctx, o->node->parent ? o->node->parent : o->node);
    else
      o->node->kind = R_NULL;
    return;
  }
  if (gql_type_ref_is_non_null(o->type)) {
    o->prop = true;
    return;
  }
  ctx->out->len = o->mark;
  gql_buf_append(ctx->out, "null", 4);
}

void gql_exec_field_error(gql_out *o, const char *msg, uint32_t off) {
  gql_exec_add_error(o->own.ctx, msg, o->own.pf, off, o->own.path);
  gql_exec_value_failed(o);
}

void gql_exec_field_errorf(gql_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = gql_arena_vsprintf(o->own.ctx->arena, fmt, ap);
  va_end(ap);
  gql_exec_field_error(o, m ? m : "Out of memory.", UINT32_MAX);
}

void gql_exec_complete_null(gql_out *o) {
  if (gql_type_ref_is_non_null(o->type)) {
    const gql_str *pn = parent_name(o);
    gql_exec_field_errorf(
        o, "Cannot return null for non-nullable field %.*s.%.*s.", (int)pn->len,
        pn->ptr, (int)o->own.pf->field->name.len, o->own.pf->field->name.ptr);
    return;
  }
  if (o->node)
    o->node->kind = R_NULL;
  else
    gql_buf_append(o->own.ctx->out, "null", 4);
}

/* Stores the time into every owed stamp: an error may end a list before
 * its next item calls the field (the stamp then ends no earlier than the
 * field's last completion, and no later than this error), and the hooks'
 * execute_error and execute_finish see none. */
__attribute__((noinline)) void gql_exec_stamps_settle(exec_ctx *ctx) {
  ctx->owed = false;
  const gql_exec_hooks *h = ctx->hooks;
  uint64_t now = 0;
  for (uint32_t k = 0, n = ctx->p->nplanned; k < n; k++)
    if (h->stamps[k] == GQL_STAMP_OWED) {
      if (!now)
        now = hooks_now(h);
      h->stamps[k] = now;
    }
}

/* ---- a value whose concrete object type cannot be found (graphql-js
 * ensureValidRuntimeType) */

void gql_exec_no_runtime_type(gql_out *o) {
  exec_ctx *ctx = o->own.ctx;
  const gql_str *an = &ctx->s->types[o->type.type].name;
  const gql_str *pn = parent_name(o);
  gql_exec_field_errorf(
      o,
      "Abstract type \"%.*s\" must resolve to an Object type at "
      "runtime for field \"%.*s.%.*s\". Either the \"%.*s\" type "
      "should provide a \"resolveType\" function or each possible "
      "type should provide an \"isTypeOf\" function.",
      (int)an->len, an->ptr, (int)pn->len, pn->ptr,
      (int)o->own.pf->field->name.len, o->own.pf->field->name.ptr, (int)an->len,
      an->ptr);
}

/* Type t (< ntypes) is not an object type. */
void gql_exec_not_object(gql_out *o, uint32_t t) {
  const gql_schema *s = o->own.ctx->s;
  const gql_type *at = &s->types[o->type.type];
  const gql_str *name = &s->types[t].name;
  gql_exec_field_errorf(
      o, "Abstract type \"%.*s\" was resolved to a non-object type \"%.*s\".",
      (int)at->name.len, at->name.ptr, (int)name->len, name->ptr);
}

/* Object type t is not a possible type of the value's. */
void gql_exec_not_possible(gql_out *o, uint32_t t) {
  const gql_schema *s = o->own.ctx->s;
  const gql_type *ct = &s->types[t];
  const gql_type *at = &s->types[o->type.type];
  gql_exec_field_errorf(
      o, "Runtime Object type \"%.*s\" is not a possible type for \"%.*s\".",
      (int)ct->name.len, ct->name.ptr, (int)at->name.len, at->name.ptr);
}

/* gql_out_object(o, obj, t) for a value of an abstract type that has no
 * plan for t: null for a NULL obj, else the error (t: resolve_type's
 * answer; UINT32_MAX - 1 or any index >= ntypes for none). What the walk
 * writes for an item it cannot complete, with no call up to the writers:
 * an object with a plan it completes itself. */
void gql_exec_object_unresolved(gql_out *o, const void *obj, uint32_t t) {
  const gql_schema *s = o->own.ctx->s;
  set_written(o);
  assert(s->types[o->type.type].kind != GQL_TYPE_OBJECT);
  if (!obj)
    gql_exec_complete_null(o);
  else if (t >= s->ntypes)
    gql_exec_no_runtime_type(o);
  else if (s->types[t].kind != GQL_TYPE_OBJECT)
    gql_exec_not_object(o, t);
  else
    gql_exec_not_possible(o, t);
}
