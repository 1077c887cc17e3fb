/* The direct-mode walk: an object of a synchronous type written straight
 * into the response buffer, field by field (a resolver call, hook-free
 * calls and stamps when traced, the hooks' path otherwise), an object whose
 * fields are all members by a loop of key copies and member writes, list
 * members and lists of objects (gql_out_object_array's and
 * gql_out_object_ptrs's items) without an output per item. Everything
 * written here is either a value or, through errors.c, an error: the
 * general path of a value is the writers' (out.c), which call down into
 * this walk and never the other way. An incremental execution's eager
 * groups (@defer) borrow the walk, right after their object's own fields,
 * with a second output (inc_eager). */
#include "fast.h"

static __attribute__((noinline)) void
resolve_typename(exec_ctx *ctx, const plan_field *pf, gql_out *o) {
  gql_str name = ctx->s->types[pf->parent_type].name;
  set_written(o);
  if (!o->node) { /* a type name is a GraphQL name: JSON as is */
    gql_json_write_plain(ctx->out, name);
    return;
  }
  gql_json_value v = {.kind = GQL_JSON_STRING};
  v.string = name;
  gql_exec_serialize_leaf(o, &v);
}

/* A hook-free call runs like an untraced one, except that an error still
 * reaches resolve_finish, and that with `stamp` a synchronous completion
 * gets its clock read. */
static inline __attribute__((always_inline)) void
call_hook_free(exec_ctx *ctx, const gql_exec_hooks *h, const plan_field *pf,
               const void *parent, gql_out *o, bool stamp) {
  pf->fn(&o->own, parent, o);
  if (GQL_UNLIKELY(!o->written)) {
    set_written(o);
    gql_exec_complete_null(o);
  }
  /* a pended call's completion comes through gql_exec_pending_done */
  if (GQL_UNLIKELY(o->own.error != NULL)) {
    if (!o->pended && h->pub.resolve_finish)
      h->pub.resolve_finish(h->pub.ctx, &o->own);
  } else if (stamp && !o->pended) {
    stamp_completion(ctx, h, pf, o->own.path);
  }
}

/* A call with hooks, arguments or after an abort: hook-free when the
 * tracer says so, else gql_exec_resolve_field_hooked. */
static __attribute__((noinline)) void resolve_field_slow(exec_ctx *ctx,
                                                         const plan_field *pf,
                                                         const void *parent,
                                                         gql_out *o) {
  const gql_exec_hooks *h = ctx->hooks;
  if (GQL_LIKELY(h && !pf->has_args)) {
    if (hook_free(ctx, h, pf)) {
      call_hook_free(ctx, h, pf, parent, o, false);
      return;
    }
    if (stamp_only(ctx, h, pf)) {
      call_hook_free(ctx, h, pf, parent, o, true);
      return;
    }
  }
  gql_exec_resolve_field_hooked(ctx, pf, parent, o);
}

__attribute__((noinline)) void
gql_exec_resolve_field(exec_ctx *ctx, const plan_field *pf, const void *parent,
                       const path_frame *path, gql_out *o) {
  if (pf->meta == META_TYPENAME) {
    resolve_typename(ctx, pf, o);
    return;
  }
  /* out_init set ctx, pf, path and error; the rest only matters here */
  (void)path;
  o->own.args = NULL;
  o->own.trace = NULL;
  if (GQL_UNLIKELY(pf->has_args || ctx->hooks || ctx->aborted)) {
    /* constant arguments, untraced (ctx->aborted is only ever set with
     * hooks): the resolver straight */
    if (!pf->args_ready || ctx->hooks) {
      resolve_field_slow(ctx, pf, parent, o);
      return;
    }
    o->own.args = pf->args_const;
  }
  pf->fn(&o->own, parent, o);
  if (!o->written) {
    set_written(o);
    gql_exec_complete_null(o);
  }
}

/* One field of an object written in place, into `o`, the output that
 * object_direct shares between its fields (its ctx, path frame, info,
 * node and pending flags are set once per object: in direct mode a field
 * never keeps its output past its write); true when the object must become
 * null. A plain field (no arguments, not __typename) with no hook attached
 * calls its resolver straight. */
static inline __attribute__((always_inline)) bool
field_direct(exec_ctx *ctx, gql_buf *b, const plan_field *pf,
             const void *parent, path_frame *fr, gql_out *o) {

  fr->key = &pf->key;
  o->own.pf = pf;
  o->own.error = NULL;
  o->type = pf->type;
  o->mark = b->len; /* b is ctx->out */
  o->written = false;
  o->prop = false;
  o->dleaf = pf->dleaf;
  /* ctx->aborted is only ever set with hooks attached */
  const gql_exec_hooks *h = ctx->hooks;
  if (GQL_LIKELY(pf->plain && !h)) {
    pf->fn(&o->own, parent, o);
    if (GQL_UNLIKELY(!o->written)) {
      set_written(o);
      gql_exec_complete_null(o);
    }
  } else if (pf->plain) {
    unsigned c = hooks_answer(h, pf);
    if (GQL_LIKELY(c == 0)) {
      /* traced, but the tracer needs no hook for this call: inline, and
       * like the untraced call above (own.args and own.trace as they
       * were: the tracer that asked for no hook reads neither) */
      call_hook_free(ctx, h, pf, parent, o, false);
    } else if (c == GQL_HOOK_STAMP && h->stamps && h->now) {
      /* a composite field's (after an abort every answer asks) */
      call_hook_free(ctx, h, pf, parent, o, true);
    } else { /* what gql_exec_resolve_field would come to */
      o->own.args = NULL;
      o->own.trace = NULL;
      gql_exec_resolve_field_hooked(ctx, pf, parent, o);
    }
  } else {
    gql_exec_resolve_field(ctx, pf, parent, fr, o);
  }
  return o->prop;
}

/* Writes {...} for plan set `ps` into b (ctx->out) with the output and
 * frame object_out_init set; true when the object must become null. */
static inline __attribute__((always_inline)) bool
object_fields(exec_ctx *ctx, gql_buf *b, const plan_set *ps, const void *parent,
              path_frame *fr, gql_out *o) {
  if (!ps->any_cond) {
    /* The first field peeled off, so that each separator is a constant,
     * and a pointer walk, which the resolver calls cannot make reload. */
    const plan_field *pf = ps->fields, *end = ps->fields_end;
    if (pf == end) {
      gql_buf_put(b, "{}", 2);
      return false;
    }
    put_key(b, '{', pf);
    if (field_direct(ctx, b, pf, parent, fr, o))
      return true;
    while (++pf < end) {
      put_key(b, ',', pf);
      if (field_direct(ctx, b, pf, parent, fr, o))
        return true;
    }
    gql_buf_putc(b, '}');
    return false;
  }
  if (GQL_UNLIKELY(ctx->cond_check) && ps->check_conds)
    return ctx->fast && ps->any_defer
               ? gql_exec_fast_defer(ctx, ps, parent, fr->parent)
               : gql_exec_object_checked(ctx, ps, parent, fr->parent);
  char sep = '{';
  for (uint32_t i = 0; i < ps->nentries; i++) {
    if (!field_included(ctx, ps, ps->entries[i]))
      continue;
    const plan_field *pf = &ps->fields[ps->entries[i].field];
    put_key(b, sep, pf);
    sep = ',';
    if (field_direct(ctx, b, pf, parent, fr, o))
      return true;
  }
  if (sep == '{')
    gql_buf_putc(b, '{');
  gql_buf_putc(b, '}');
  return false;
}

/* A field of an all-members object whose value needs the general path, at
 * response path `path` (the object's); out of line: rare, and it keeps
 * the members loop free of outputs and frames. */
static __attribute__((noinline)) bool field_general(exec_ctx *ctx, gql_buf *b,
                                                    const plan_field *pf,
                                                    const void *parent,
                                                    const path_frame *path) {
  path_frame fr;
  fr.parent = path;
  gql_out o;
  object_out_init(&o, ctx, &fr);
  return field_direct(ctx, b, pf, parent, &fr, &o);
}

/* An enum list member (MEMBER_LIST_ENUM) of parent p written straight
 * into b: true when written; false (nothing written) when it needs the
 * general path (a null list, an index out of range), which writes it
 * again from the start: enum items have no side effects to repeat. */
__attribute__((noinline)) bool
gql_exec_enum_list_write(gql_buf *b, const plan_field *pf, const char *p) {
  const exec_resolver *r = pf->field->resolver;
  const uint8_t *items =
      (const uint8_t *)ld_items(p, pf->member_off, r->items_inline);
  if (!items)
    return false;
  size_t count = ld_count(p + r->count_offset, r->count_size);
  return enum_items_put(b, pf, items, count);
}

/* One field of an all-members object (see members_fields): true when the
 * object must become null. */
static inline __attribute__((always_inline)) bool
member_field(exec_ctx *ctx, gql_buf *b, const plan_field *pf, const char *p,
             const path_frame *path) {
  bool done;
  const char *m = p + pf->member_off;
  /* one switch: each scalar case is member_write of a constant kind */
  switch (pf->member) {
#define SCALAR(kind)                                                           \
  case kind:                                                                   \
    done = member_write(b, kind, pf, m);                                       \
    break;
    SCALAR(MEMBER_INT32)
    SCALAR(MEMBER_INT64_INT)
    SCALAR(MEMBER_INT64)
    SCALAR(MEMBER_DOUBLE)
    SCALAR(MEMBER_BOOL)
    SCALAR(MEMBER_STR)
    SCALAR(MEMBER_CSTR)
    SCALAR(MEMBER_ENUM)
#undef SCALAR
  case MEMBER_LIST_ENUM:
    done = gql_exec_enum_list_write(b, pf, p);
    break;
  case MEMBER_LIST_OBJECTS:
    return gql_exec_members_list(ctx, b, pf, p, path);
  default: /* MEMBER_NONE: not in an all-members set */
    GQL_UNREACHABLE();
  }
  return !done && field_general(ctx, b, pf, p, path);
}

/* object_fields for a plan set whose fields are all members
 * (plan_set.all_members), untraced, of a parent at `path`: keys and
 * values, nothing else, unless a value needs the general path. */
static inline __attribute__((always_inline)) bool
members_fields(exec_ctx *ctx, gql_buf *b, const plan_set *ps,
               const void *parent, const path_frame *path, char open) {
  const plan_field *pf = ps->fields, *end = ps->fields_end;
  const char *p = parent;
  if (open)
    put_item_key(b, open, pf);
  else
    put_key(b, '{', pf);
  if (member_field(ctx, b, pf, p, path))
    return true;
  while (++pf < end) {
    put_key(b, ',', pf);
    if (member_field(ctx, b, pf, p, path))
      return true;
  }
  gql_buf_putc(b, '}');
  return false;
}

/* exec_object_direct of an all-members plan set (untraced, a parent); out
 * of line, so that the general loop keeps its registers. */
__attribute__((noinline)) bool gql_exec_members_object(exec_ctx *ctx,
                                                       const plan_set *ps,
                                                       const void *parent,
                                                       const path_frame *path) {
  return members_fields(ctx, ctx->out, ps, parent, path, 0);
}

/* Writes {...} for plan set `ps` straight into the buffer; true when the
 * object must become null. */
__attribute__((noinline)) bool gql_exec_object_direct(exec_ctx *ctx,
                                                      const plan_set *ps,
                                                      const void *parent,
                                                      const path_frame *path) {
  path_frame fr;
  fr.parent = path;
  gql_out o;
  object_out_init(&o, ctx, &fr);
  return object_fields(ctx, ctx->out, ps, parent, &fr, &o);
}

/* The fields of conditional set `ps` that `keep` marks (by entry; NULL:
 * those included) written straight into the buffer; true when the object
 * must become null. */
static bool keep_fields(exec_ctx *ctx, const plan_set *ps, const void *parent,
                        const path_frame *path, const bool *keep) {
  path_frame fr;
  fr.parent = path;
  gql_out o;
  object_out_init(&o, ctx, &fr);
  gql_buf *b = ctx->out;
  bool members = !ctx->hooks && parent; /* as exec_object_direct */
  char sep = '{';
  for (uint32_t i = 0; i < ps->nentries; i++) {
    if (keep ? !keep[i] : !field_included(ctx, ps, ps->entries[i]))
      continue;
    const plan_field *pf = &ps->fields[ps->entries[i].field];
    put_key(b, sep, pf);
    sep = ',';
    if (members && pf->member != MEMBER_NONE
            ? member_field(ctx, b, pf, parent, path)
            : field_direct(ctx, b, pf, parent, &fr, &o))
      return true;
  }
  if (sep == '{')
    gql_buf_putc(b, '{');
  gql_buf_putc(b, '}');
  return false;
}

/* An execution group's object (incremental.c): the fields of conditional
 * set `ps` that `keep` marks (by entry), written straight into the
 * buffer; true when the object must become null. */
bool gql_exec_object_direct_keep(exec_ctx *ctx, const plan_set *ps,
                                 const void *parent, const path_frame *path,
                                 const bool *keep) {
  if (GQL_UNLIKELY(ctx->cond_check) && ctx->conds_bad && ps->check_conds &&
      gql_exec_conditions_fail(ctx, ps->type, path))
    return true;
  return keep_fields(ctx, ps, parent, path, keep);
}

/* Writes an eager group's entry into st->eager: the fields of `ps` that
 * `keep` marks over `parent` at `path` (the group's object, JSON `gpath`,
 * `glen` bytes), at fragment `r`'s expected id. The group runs in the
 * initial result's context, which lends it its walk with st->eager as the
 * output and an error list of its own. */
static void eager_write(exec_ctx *ctx, inc_entry *e, const inc_record *r,
                        const plan_set *ps, const bool *keep,
                        const void *parent, const path_frame *path,
                        const char *gpath, uint32_t glen) {
  inc_state *st = ctx->inc;
  gql_buf *b = &st->eager;
  size_t start = b->len;
  /* as much room as the output has, which in a loop of requests is about
   * what the last one's entries took */
  if (GQL_UNLIKELY(!b->data) && ctx->resp.cap > 256)
    gql_buf_reserve(b, ctx->resp.cap);
  gql_exec_inc_entry_start(b, r->pred);
  size_t off = b->len;
  PUT_LIT(b, ",\"data\":");
  exec_lent lent = gql_exec_lend(ctx, b);
  /* the objects below keep all their fields (defer.c's eager_group): no
   * split */
  ctx->inc = NULL;
  e->walked = true;
  if (gql_exec_object_direct_keep(ctx, ps, parent, path, keep)) {
    b->len = start;
    e->failed = true;
    e->errors = gql_exec_errors_array(ctx);
  } else {
    if (GQL_UNLIKELY(ctx->nerrs)) {
      gql_buf_putc(b, ',');
      gql_exec_write_errors(ctx, b);
      e->errs = true;
    }
    gql_exec_inc_sub_path(b, r->path_len, gpath, glen);
    gql_buf_putc(b, '}');
    e->off = (uint32_t)off;
    e->end = (uint32_t)b->len;
  }
  gql_exec_give_back(ctx, &lent);
  ctx->inc = st;
}

/* Runs the eager groups `at` (of an object of `ps` over `parent` at
 * `path`, its own fields written): each writes its incremental entry into
 * inc_state.eager, with errors of its own; one whose object becomes null
 * fails its fragments (incremental.c's on_initial). */
static void inc_eager(exec_ctx *ctx, const inc_eager_at *at, const plan_set *ps,
                      const void *parent, const path_frame *path) {
  for (inc_record *r = at->recs; r && r->path == at->recs->path;
       r = r->next_made)
    if (r->eager)
      eager_write(ctx, &r->entry, r, ps, r->ekeep, parent, path, r->path,
                  r->path_len);
  inc_group *g = at->groups;
  for (uint32_t i = 0; i < at->ngroups && g; i++, g = g->next_made)
    if (g->eager && !g->dead) {
      g->started = g->done = true;
      eager_write(ctx, &g->entry, gql_exec_inc_best(g), ps, g->ekeep, parent,
                  path, g->path_json, g->path_len);
      if (g->entry.failed) { /* its fragments fail (deliver_group) */
        g->failed = true;
        g->errors = g->entry.errors;
      }
    }
}

/* The paths of the items of list f->pfx_frame up to their index, at the
 * first that gql_exec_fast_defer writes (false: too long to keep). */
__attribute__((noinline)) bool gql_exec_fast_prefix(inc_fast *f) {
  uint32_t n = gql_exec_path_json_len(f->pfx_frame);
  if (n > sizeof f->pfx) {
    f->pfx_frame = NULL;
    return false;
  }
  gql_exec_path_json_put(f->pfx, n, f->pfx_frame); /* [..."a"] as [..."a", */
  f->pfx[n - 1] = ',';
  f->pfx_len = n;
  return true;
}

/* An object of an eager_only execution's set deferred whole (eager.c), at
 * `path`: {} in the initial result; its fragment's pending entry, with the
 * next id; and its incremental entry, every field written by the set's
 * twin as a plain execution writes them, with errors of its own. When
 * the object becomes null, its fragment fails instead (inc_fast.fails).
 * True when the object itself must become null (a condition without a
 * value, as gql_exec_object_checked). */
__attribute__((noinline)) bool gql_exec_fast_defer(exec_ctx *ctx,
                                                   const plan_set *ps,
                                                   const void *parent,
                                                   const path_frame *path) {
  if (ctx->conds_bad && gql_exec_conditions_fail(ctx, ps->type, path))
    return true;
  inc_fast *f = ctx->fast;
  uint32_t id = f->n++;
  gql_buf_put(ctx->out, "{}", 2);
  gql_exec_fast_pending(f, id, ps->defers[0], path,
                        path && !path->key && path->parent == f->pfx_frame &&
                            (f->pfx_len || gql_exec_fast_prefix(f)));
  size_t start = gql_exec_fast_entry_open(f);
  gql_exec_fast_id_next(f->id, &f->idlen);
  exec_lent lent = gql_exec_lend(ctx, &f->eager);
  ctx->fast = NULL; /* (nothing below is deferred: keep_fields' walk) */
  const plan_set *twin = ctx->p->twins[ps->memo_slot - 1];
  /* (untraced: as exec_object_direct) */
  gql_exec_fast_entry_close(
      ctx, f, start, id,
      twin->all_members && parent
          ? gql_exec_members_object(ctx, twin, parent, path)
          : gql_exec_object_direct(ctx, twin, parent, path));
  ctx->fast = f;
  gql_exec_give_back(ctx, &lent);
  return false;
}

/* An object of a set with check_conds when the walk looks first
 * (ctx->cond_check): graphql-js's collectFields throws for a condition
 * without a value (the object is null, with the error); an incremental
 * execution's initial result in direct mode keeps the fields that defer.c
 * does not split off into execution groups. True when the object must
 * become null. */
__attribute__((noinline)) bool gql_exec_object_checked(exec_ctx *ctx,
                                                       const plan_set *ps,
                                                       const void *parent,
                                                       const path_frame *path) {
  if (ctx->conds_bad && gql_exec_conditions_fail(ctx, ps->type, path))
    return true;
  const bool *keep = NULL;
  inc_eager_at eager = {0};
  if (ps->any_defer && ctx->inc) {
    if (!(keep = gql_exec_defer_split(ctx, ps, parent, path, NULL))) {
      /* an error, for incremental.c's settle_direct */
      gql_exec_add_error(ctx, "Out of memory.", NULL, UINT32_MAX, NULL);
      return true;
    }
    /* the groups to run at once, after the object's own fields (the walk
     * below splits other objects) */
    eager = ctx->inc->eager_at;
    if (keep[ps->nentries]) { /* every field deferred */
      gql_buf_put(ctx->out, "{}", 2);
      if (eager.recs || eager.groups)
        inc_eager(ctx, &eager, ps, parent, path);
      return false;
    }
  }
  if (keep_fields(ctx, ps, parent, path, keep))
    return true; /* (its groups die with it: settle_direct) */
  if (eager.recs || eager.groups)
    inc_eager(ctx, &eager, ps, parent, path);
  return false;
}

/* Writes [{...},...] for `count` objects `stride` bytes apart, each by plan
 * set `ps`; a failed item becomes null, or when items are non-null, the
 * call returns true (the list must become null). `members`: ps is
 * all-members and untraced (members_fields, no output); else one output
 * and one pair of path frames serve every item (the item's index changes).
 * Inlined into its two callers, so that each loop keeps its registers. */
static inline __attribute__((always_inline)) bool
array_items(exec_ctx *ctx, const plan_set *ps, const char *p, size_t count,
            size_t stride, const path_frame *path, bool item_non_null,
            bool members) {
  gql_buf *b = ctx->out;
  path_frame item = {path, NULL, 0, 0};
  path_frame fr;
  gql_out o;
  if (!members) {
    if (GQL_UNLIKELY(ctx->last_stamps))
      item.last = items_last(item_non_null, count);
    fr.parent = &item;
    object_out_init(&o, ctx, &fr);
  }
  for (size_t i = 0; i < count; i++, p += stride) {
    size_t mark;
    if (members) {
      mark = b->len + 1; /* after the '[' or ',' members_fields writes */
    } else {
      gql_buf_putc(b, i ? ',' : '[');
      mark = b->len;
    }
    item.index = (int64_t)i;
    if (members ? members_fields(ctx, b, ps, p, &item, i ? ',' : '[')
                : object_fields(ctx, b, ps, p, &fr, &o)) {
      if (item_non_null)
        return true;
      b->len = mark;
      gql_buf_append(b, "null", 4);
    }
  }
  if (!count)
    gql_buf_putc(b, '[');
  gql_buf_putc(b, ']');
  return false;
}

/* array_items of an all-members plan set (untraced), out of line. */
static __attribute__((noinline)) bool
members_array(exec_ctx *ctx, const plan_set *ps, const char *p, size_t count,
              size_t stride, const path_frame *path, bool item_non_null) {
  assert(p); /* the caller tested the base */
  return array_items(ctx, ps, p, count, stride, path, item_non_null, true);
}

/* gql_exec_object_array's list whose items an eager_only execution defers
 * whole (gql_exec_fast_defer): the items' paths up to their index are
 * written once, into inc_fast.pfx, for as long as the list is written
 * (nothing below its items is deferred). */
static __attribute__((noinline)) void fast_array(gql_out *o, const plan_set *ps,
                                                 const char *p, size_t count,
                                                 size_t stride,
                                                 bool item_non_null) {
  exec_ctx *ctx = o->own.ctx;
  inc_fast *f = ctx->fast;
  const path_frame *path = o->own.path;
  gql_exec_fast_list(f, path);
  if (GQL_UNLIKELY(ctx->conds_bad)) { /* (the items' conditions first) */
    if (array_items(ctx, ps, p, count, stride, path, item_non_null, false))
      gql_exec_value_failed(o);
    f->pfx_frame = NULL;
    return;
  }
  /* the initial result's items, every one {} */
  gql_buf *b = ctx->out;
  if (GQL_LIKELY(b->cap - b->len >= count * 3 + 2) ||
      gql_buf_reserve(b, count * 3 + 2)) {
    char *w = b->data + b->len;
    *w = '[';
    for (size_t i = 0; i < count; i++)
      memcpy(w + 1 + 3 * i, "{},", 3);
    w[count ? 3 * count : 1] = ']';
    b->len += count ? 3 * count + 1 : 2;
  }
  /* each item's entries, its fields written by the twin into f->eager with
   * errors of their own (the members' loop or object_fields, as
   * array_items would) */
  const plan_defer *u = ps->defers[0];
  const plan_set *twin = ctx->p->twins[ps->memo_slot - 1];
  bool pfx = gql_exec_fast_prefix(f), members = twin->all_members;
  path_frame item = {path, NULL, 0, 0};
  path_frame fr;
  fr.parent = &item;
  gql_out io;
  object_out_init(&io, ctx, &fr);
  exec_lent lent = gql_exec_lend(ctx, &f->eager);
  ctx->fast = NULL;
  for (size_t i = 0; i < count; i++, p += stride) {
    item.index = (int64_t)i;
    uint32_t id = f->n++;
    gql_exec_fast_pending(f, id, u, &item, pfx);
    size_t start = gql_exec_fast_entry_open(f);
    gql_exec_fast_id_next(f->id, &f->idlen);
    gql_exec_fast_entry_close(
        ctx, f, start, id,
        members ? members_fields(ctx, &f->eager, twin, p, &item, 0)
                : object_fields(ctx, &f->eager, twin, p, &fr, &io));
    ctx->nerrs = 0; /* (the array is the next item's) */
  }
  ctx->fast = f;
  gql_exec_give_back(ctx, &lent);
  f->pfx_frame = NULL;
}

/* gql_out_object_array: [T] or [T!] (nullable or not) of an object type T
 * written in place, each item by T's plan set as gql_out_object's fast
 * path would write it; anything else through `general` (bulk.c's: the
 * list through gql_out_list, a NULL base as null), which the walk only
 * calls through the pointer it is given. */
void gql_exec_object_array(gql_out *o, const void *base, size_t count,
                           size_t stride, uint32_t type,
                           gql_exec_array_fn general) {
  const plan_field *pf = o->own.pf;
  exec_ctx *ctx = o->own.ctx;
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (!o->written && !o->node && base && gql_type_ref_is_list(t) &&
      pf->leaf == LEAF_NONE) {
    gql_type_ref item = gql_type_ref_unwrap(t);
    uint32_t it = item.type;
    const plan_set *ps = NULL;
    if ((item.nmods == 0 || (item.nmods == 1 && item.mods[0] == '!')) &&
        ctx->s->types[it].kind == GQL_TYPE_OBJECT)
      ps = pf->nsubs == 1 && pf->sub_types[0] == it ? pf->subs[0]
                                                    : sub_plan(pf, it);
    if (ps) {
      set_written(o);
      if (GQL_UNLIKELY(ctx->cond_check) && ctx->fast && ps->any_defer) {
        fast_array(o, ps, base, count, stride, item.nmods == 1);
        return;
      }
      bool failed = ps->all_members && !ctx->hooks
                        ? members_array(ctx, ps, base, count, stride,
                                        o->own.path, item.nmods == 1)
                        : array_items(ctx, ps, base, count, stride, o->own.path,
                                      item.nmods == 1, false);
      if (failed)
        gql_exec_value_failed(o);
      return;
    }
  }
  general(o, base, count, stride, type);
}

/* item_plan for an item whose plan depends on it (plan_field.list_plan
 * NULL: an abstract type, GQL_TYPE_AUTO): resolve_type's, and without one
 * no type rather than __typename. item_plan's abstract branch written
 * again on purpose: one body for both cost star_wars 8 (prepared) to 32
 * (members) instructions a request, either way round. */
static inline const plan_set *item_resolved(const gql_resolve_info *info,
                                            const plan_field *pf,
                                            const void *obj, uint32_t *type) {
  if (!obj)
    return NULL;
  if (GQL_UNLIKELY(!pf->resolve_type)) {
    *type = GQL_TYPE_AUTO - 1; /* see list_item_type */
    return NULL;
  }
  int64_t r = pf->resolve_type(info, obj);
  if (GQL_UNLIKELY((uint64_t)r >= GQL_TYPE_AUTO)) {
    *type = GQL_TYPE_AUTO - 1;
    return NULL;
  }
  const plan_set *ps = sub_plan(pf, (uint32_t)r);
  if (GQL_UNLIKELY(!ps))
    *type = (uint32_t)r;
  return ps;
}

/* An object item of list member `pf` that has no plan (a null item, a
 * type that resolve_type cannot give), written as gql_out_object_ptrs's
 * general item would be (gql_exec_object_unresolved: null or an error),
 * through an output for the field (at frame `ffr`, its value starting at
 * `mark`) and one for the item: 0 when written; else the list failed, and
 * 1 when it is now null, -1 when the object must become null. */
static __attribute__((noinline)) int
list_item_general(exec_ctx *ctx, const plan_field *pf, const path_frame *ffr,
                  path_frame *fr, size_t mark, const void *obj, uint32_t type) {
  gql_out lo;
  out_init(&lo, ctx, pf, pf->type, LEAF_NONE, ffr, NULL);
  lo.own.args = NULL;
  lo.own.trace = NULL;
  lo.mark = mark;
  lo.written = true;
  gql_out io;
  out_init(&io, ctx, pf, pf->list_item, pf->list_dleaf, fr, NULL);
  io.info = out_info(&lo);
  gql_exec_object_unresolved(&io, obj, type);
  if (!io.prop)
    return 0;
  gql_exec_value_failed(&lo);
  return lo.prop ? -1 : 1;
}

/* The items of gql_exec_members_list: `ptrs` (pointers, else structs step bytes
 * apart) and `fixed` (every item's plan, else item_plan's) are constants
 * in each of its copies, so that the loop keeps few registers. Every item
 * opens with ',', the first made '[' at the end. */
static inline __attribute__((always_inline)) bool
list_items(exec_ctx *ctx, gql_buf *b, const plan_field *pf, const char *it,
           size_t count, size_t stride, path_frame *fr,
           const gql_resolve_info *info, bool ptrs, const plan_set *fixed) {
  size_t step = ptrs ? sizeof(void *) : stride, mark = b->len;
  /* the item's index is its path frame's (fr->index is 0) */
  for (size_t n = count; n; n--, it += step, fr->index++) {
    const void *obj = ptrs ? ld_ptr(it) : (const void *)it;
    /* what the general path is given: a fixed plan's type matters only
     * for an item that is not NULL, which gets the plan */
    uint32_t t = GQL_TYPE_AUTO;
    const plan_set *ps = !fixed         ? item_resolved(info, pf, obj, &t)
                         : ptrs && !obj ? NULL
                                        : fixed;
    if (GQL_UNLIKELY(ps == NULL)) {
      gql_buf_putc(b, ',');
      int r = list_item_general(ctx, pf, fr->parent, fr, mark, obj, t);
      if (r)
        return r < 0;
      continue;
    }
    size_t imark = b->len + 1; /* after the ',' */
    bool failed;
    if (GQL_LIKELY(ps->all_members)) {
      failed = members_fields(ctx, b, ps, obj, fr, ',');
    } else {
      gql_buf_putc(b, ',');
      failed = gql_exec_object_direct(ctx, ps, obj, fr);
    }
    if (GQL_LIKELY(!failed))
      continue;
    if (pf->list_item.nmods == 0) { /* a null item */
      b->len = imark;
      gql_buf_append(b, "null", 4);
      continue;
    }
    /* a non-null item failed: the list fails */
    if (gql_type_ref_is_non_null(pf->type))
      return true;
    b->len = mark;
    gql_buf_append(b, "null", 4);
    return false;
  }
  if (!count)
    gql_buf_putc(b, '[');
  else if (b->len > mark) /* not when the buffer failed */
    b->data[mark] = '[';
  gql_buf_putc(b, ']');
  return false;
}

/* A list member of objects (MEMBER_LIST_OBJECTS) of parent p in an
 * all-members object (untraced, direct): gql_out_object_ptrs's or
 * gql_out_object_array's fast path without an output, each all-members
 * item inline; true when the object must become null. */
__attribute__((noinline)) bool gql_exec_members_list(exec_ctx *ctx, gql_buf *b,
                                                     const plan_field *pf,
                                                     const char *p,
                                                     const path_frame *path) {
  const exec_resolver *r = pf->field->resolver;
  const char *items = ld_items(p, pf->member_off, r->items_inline);
  if (!items) /* a null list */
    return field_general(ctx, b, pf, p, path);
  size_t count = ld_count(p + r->count_offset, r->count_size);
  path_frame ffr = {path, &pf->key, 0, 0}; /* the field's */
  path_frame fr = {&ffr, NULL, 0, 0};      /* its items' */
  /* what resolve_type is told: the field's info, as a resolver's output
   * would give it */
  gql_resolve_info info = {.ctx = ctx, .pf = pf, .path = &ffr};
  const plan_set *fixed = pf->list_plan;
  if (r->list == GQL_LIST_OBJECT_PTRS)
    return fixed ? list_items(ctx, b, pf, items, count, 0, &fr, &info, true,
                              fixed)
                 : list_items(ctx, b, pf, items, count, 0, &fr, &info, true,
                              NULL);
  return list_items(ctx, b, pf, items, count, r->stride, &fr, &info, false,
                    fixed);
}
