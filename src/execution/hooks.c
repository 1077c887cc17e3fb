/* Hooks: a resolver call with hooks, arguments or after an abort (the
 * tracer's answers, hooks.h: which calls need resolve_start and
 * resolve_finish, entry stamps), and what the tracer reads of a call
 * (gql_exec_info_*). */
#include "executor.h"

static const gql_json_value *field_args(gql_out *o, const plan_field *pf) {
  exec_ctx *ctx = o->own.ctx;
  if (!pf->has_args)
    return NULL;
  if (pf->arg_error) {
    gql_exec_field_error(o, pf->arg_error, pf->arg_error_off);
    return NULL;
  }
  if (pf->arg_slot == UINT32_MAX)
    return pf->args_const;
  if (ctx->slots[pf->arg_slot])
    return ctx->slots[pf->arg_slot];
  coerce_ctx cc = {.s = ctx->s,
                   .arena = ctx->arena,
                   .vars = ctx->vars,
                   .var_defs = ctx->p->vars,
                   .nvars = ctx->p->nvars};
  const gql_ast_selection *node = pf->occs[0].node;
  const char *msg;
  uint32_t off;
  const gql_json_value *args;
  if (gql_exec_arg_values(&cc, pf->field->args, pf->field->nargs, &node->args,
                          node->h.start, &args, &msg, &off) < 0) {
    gql_exec_field_error(o, msg, off);
    return NULL;
  }
  ctx->slots[pf->arg_slot] = args;
  return args;
}

/* A per-execution copy of h whose answers (calls) all ask for both hooks,
 * one per planned field (what no answer means); NULL when out of
 * memory. */
gql_exec_hooks *gql_exec_hooks_asking(exec_ctx *ctx, const gql_exec_hooks *h) {
  uint32_t n = ctx->p->nplanned;
  gql_exec_hooks *c = gql_arena_alloc(ctx->arena, sizeof *c);
  uint8_t *calls = gql_arena_alloc(ctx->arena, n ? n : 1);
  if (!c || !calls)
    return NULL;
  *c = *h;
  memset(calls, GQL_HOOK_START | GQL_HOOK_FINISH, n);
  c->calls = calls;
  c->ncalls = n;
  return c;
}

/* gql_exec_resolve_field with hooks, arguments or an aborted execution. */
__attribute__((noinline)) void
gql_exec_resolve_field_hooked(exec_ctx *ctx, const plan_field *pf,
                              const void *parent, gql_out *o) {
  gql_resolve_info *info = &o->own;
  if (pf->has_args) {
    info->args = field_args(o, pf);
    if (!info->args)
      return;
  }
  const gql_exec_hooks *h = ctx->hooks;
  unsigned calls = GQL_HOOK_START | GQL_HOOK_FINISH;
  if (GQL_LIKELY(h != NULL)) {
    if (pf->ordinal < h->ncalls) { /* the tracer's cached answer */
      calls = h->calls[pf->ordinal];
      if ((calls & GQL_HOOK_ENTRY) && h->starts && h->now) {
        /* a start stamp instead of a resolve_start, once (calls is
         * writable when it asks for this) */
        h->starts[pf->ordinal] = hooks_now(h);
        calls &= ~(unsigned)GQL_HOOK_ENTRY;
        ((uint8_t *)(uintptr_t)h->calls)[pf->ordinal] = (uint8_t)calls;
      }
    }
    if ((calls & GQL_HOOK_START) && h->pub.resolve_start) {
      if (h->pub.resolve_start(h->pub.ctx, info) && !ctx->aborted) {
        ctx->aborted = true;
        /* From here on every call takes this path (hook_free reads no
         * abort flag): the hooks with answers that all ask. (Out of
         * memory, the owner's entries still count: gql_trace's are
         * all non-zero after an abort.) */
        gql_exec_hooks *c = gql_exec_hooks_asking(ctx, h);
        if (c) {
          ctx->hooks = c;
          h = c;
        }
      }
      if (pf->ordinal <
          h->ncalls) /* it may answer for this call's gql_exec_finish */
        calls = h->calls[pf->ordinal];
    }
  }
  if (GQL_UNLIKELY(ctx->aborted)) {
    if (h && h->pub.resolve_finish) /* the call completes, without an error */
      h->pub.resolve_finish(h->pub.ctx, info);
    gql_exec_field_error(o, "Execution aborted.", UINT32_MAX);
    return;
  }
  /* the registered resolver: a member's is its general path (members are
   * written straight only untraced); without one, pf->fn is the default
   * resolver */
  const exec_resolver *r = pf->field->resolver;
  (r && !pf->sub_root ? r->fn : pf->fn)(info, parent, o);
  if (!o->written) {
    set_written(o);
    gql_exec_complete_null(o);
  }
  if (GQL_UNLIKELY(h == NULL) || o->pended)
    return; /* a pending field's resolve_finish comes later */
  if (h->pub.resolve_finish && ((calls & GQL_HOOK_FINISH) || info->error))
    h->pub.resolve_finish(h->pub.ctx, info);
  else if ((calls & GQL_HOOK_STAMP) && h->stamps && h->now)
    stamp_completion(ctx, h, pf, o->own.path);
}

const void *gql_exec_info_key(const gql_resolve_info *info) {
  return info->pf;
}

const gql_field *gql_exec_info_field(const gql_resolve_info *info) {
  return info->pf->field;
}

const gql_ast_selection *gql_exec_info_node(const gql_resolve_info *info) {
  return info->pf->nocc ? info->pf->occs[0].node : NULL;
}

uint32_t gql_exec_info_depth(const gql_resolve_info *info) {
  uint32_t n = 0;
  for (const path_frame *f = info->path; f; f = f->parent)
    n += f->key != NULL;
  return n;
}

static void path_dotted(gql_buf *b, const path_frame *f, bool collapse) {
  if (!f)
    return;
  path_dotted(b, f->parent, collapse);
  if (f->parent)
    gql_buf_putc(b, '.');
  if (f->key)
    gql_buf_put_str(b, *f->key);
  else if (collapse)
    gql_buf_putc(b, '*');
  else {
    char d[24];
    size_t n = sizeof d;
    uint64_t v = (uint64_t)f->index;
    do
      d[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    gql_buf_append(b, d + n, sizeof d - n);
  }
}

void gql_exec_info_path_dotted(const gql_resolve_info *info, gql_buf *b,
                               bool collapse) {
  path_dotted(b, info->path, collapse);
}

static size_t index_digits(uint64_t v) {
  size_t n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

uint32_t gql_exec_info_lists_above(const gql_resolve_info *info) {
  uint32_t n = 0;
  const path_frame *f = info->path;
  for (f = f ? f->parent : NULL; f && !f->key; f = f->parent)
    n++;
  return n;
}
/* One pass for the length, one filling from the end: no buffer calls. */
gql_str gql_exec_info_path_str(const gql_resolve_info *info, gql_arena *a,
                               bool collapse) {
  size_t n = 0;
  for (const path_frame *f = info->path; f; f = f->parent)
    n += (f->parent != NULL) + (f->key     ? f->key->len
                                : collapse ? 1
                                           : index_digits((uint64_t)f->index));
  char *d = gql_arena_alloc(a, n + 1);
  if (!d)
    return GQL_STR("");
  d[n] = 0;
  char *e = d + n;
  for (const path_frame *f = info->path; f; f = f->parent) {
    if (f->key) {
      e -= f->key->len;
      memcpy(e, f->key->ptr, f->key->len);
    } else if (collapse) {
      *--e = '*';
    } else {
      uint64_t v = (uint64_t)f->index;
      do
        *--e = (char)('0' + v % 10);
      while ((v /= 10) != 0);
    }
    if (f->parent)
      *--e = '.';
  }
  return (gql_str){d, n};
}

const gql_json_value *gql_exec_info_variable(const gql_resolve_info *info,
                                             gql_str name) {
  const gql_prepared *p = info->ctx->p;
  for (uint32_t i = 0; i < p->nvars; i++)
    if (p->vars[i].name.len == name.len &&
        memcmp(p->vars[i].name.ptr, name.ptr, name.len) == 0)
      return info->ctx->vars[i];
  return NULL;
}
