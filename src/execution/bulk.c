/* The bulk list writers: gql_out_object_array, gql_out_object_ptrs and
 * gql_out_enum_indices write a list in one call (the items' loop in the
 * walk, walk.c, or here); an item that needs the general path (a null, an
 * error, a type to find from JSON) goes through an item output as
 * gql_out_list's would. */
#include "fast.h"
#include "walk.h"

typedef struct object_array {
  const char *base;
  size_t stride;
  uint32_t type;
} object_array;

static void object_array_item(const void *list, size_t i, gql_out *out) {
  const object_array *a = list;
  gql_out_object(out, a->base + i * a->stride, a->type);
}

/* gql_out_object_array's general path: a NULL base is null, else the
 * list through gql_out_list with an item function. */
static void object_array_general(gql_out *o, const void *base, size_t count,
                                 size_t stride, uint32_t type) {
  if (!base) {
    gql_out_null(o);
    return;
  }
  /* in the arena: a streamed list's items are written after this call */
  object_array *a = gql_arena_alloc(o->own.ctx->arena, sizeof *a);
  if (!a) {
    gql_out_error(o, "Out of memory.");
    return;
  }
  *a = (object_array){base, stride, type};
  gql_out_list(o, a, count, object_array_item);
}

void gql_out_object_array(gql_out *o, const void *base, size_t count,
                          size_t stride, uint32_t type) {
  /* the items' loop is the walk's */
  gql_exec_object_array(o, base, count, stride, type, object_array_general);
}

/* The plan of an object item of list field `pf` (direct mode): by the
 * field's object type, the given type *type, or the abstract type's
 * resolve_type; NULL when the item needs the general path (a null, an
 * error), with *type what the general path is to be given: resolve_type's
 * answer, when it was called (one call per item, as graphql-js makes),
 * and UINT32_MAX - 1 (no type) for an answer that is no type index. */
static inline const plan_set *item_plan(const gql_resolve_info *info,
                                        const plan_field *pf, const void *obj,
                                        uint32_t *type) {
  if (!obj)
    return NULL;
  if (pf->named_object)
    return pf->subs[0];
  uint32_t t = *type;
  if (t == GQL_TYPE_AUTO) {
    if (!pf->resolve_type)
      return NULL;
    int64_t r = pf->resolve_type(info, obj);
    if (GQL_UNLIKELY((uint64_t)r >= GQL_TYPE_AUTO)) {
      *type = GQL_TYPE_AUTO - 1; /* negative, or not a type index */
      return NULL;
    }
    t = (uint32_t)r;
  }
  /* sub_plan finds only a possible object type */
  const plan_set *ps = sub_plan(pf, t);
  if (GQL_UNLIKELY(!ps))
    *type = t;
  return ps;
}

/* Direct mode, the field's own list output (not an item of an outer
 * list) and items of fast-path kind `dleaf`: the bulk writers below loop
 * themselves. */
static inline bool bulk_direct(const gql_out *o, uint8_t dleaf) {
  const plan_field *pf = o->own.pf;
  return !o->written && !o->node && o->type.nmods == pf->type.nmods &&
         pf->list_dleaf == dleaf;
}

/* An item that the bulk writers leave to the general path, written
 * through an item output as gql_exec_complete_list would; true when the list
 * must become null. */
static __attribute__((noinline)) bool bulk_item(gql_out *o, path_frame *fr,
                                                const void *obj,
                                                uint32_t type_or_index,
                                                bool is_enum) {
  const plan_field *pf = o->own.pf;
  gql_out io;
  out_init(&io, o->own.ctx, pf, pf->list_item, pf->list_dleaf, fr, NULL);
  io.info = out_info(o);
  if (is_enum)
    gql_out_enum_index(&io, type_or_index);
  else
    gql_out_object(&io, obj, type_or_index);
  if (!io.written) {
    set_written(&io);
    gql_exec_complete_null(&io);
  }
  return io.prop;
}

typedef struct ptr_list {
  const void *const *items;
  uint32_t type;
} ptr_list;

static void ptr_item(const void *list, size_t i, gql_out *out) {
  const ptr_list *l = list;
  gql_out_object(out, l->items[i], l->type);
}

/* An item of an eager_only execution's list deferred whole (its set `ps`
 * has a @defer): {} in the list, its fragment's pending entry (the path
 * from the list's prefix while it is this list's: an item of another type
 * before it may have written a list of its own, which took f->pfx) and
 * its incremental entry, the set's twin writing the fields with errors of
 * their own (as gql_exec_fast_defer, without its call and its look at the
 * path: the twin's write is written again here, a call to a shared one
 * cost 22 Ir a fragment, fragments 1.39 -> 1.43 of plain). */
static inline void fast_item(exec_ctx *ctx, inc_fast *f, gql_buf *b, char open,
                             const plan_set *ps, const void *obj,
                             const path_frame *fr) {
  if (GQL_LIKELY(b->cap - b->len >= 3) || gql_buf_reserve(b, 3)) {
    char *w = b->data + b->len;
    w[0] = open;
    w[1] = '{';
    w[2] = '}';
    b->len += 3;
  }
  uint32_t id = f->n++;
  gql_exec_fast_pending(f, id, ps->defers[0], fr,
                        fr->parent == f->pfx_frame &&
                            (f->pfx_len || gql_exec_fast_prefix(f)));
  size_t start = gql_exec_fast_entry_open(f);
  gql_exec_fast_id_next(f->id, &f->idlen);
  exec_lent lent = gql_exec_lend(ctx, &f->eager);
  ctx->fast = NULL;
  const plan_set *twin = ctx->p->twins[ps->memo_slot - 1];
  gql_exec_fast_entry_close(ctx, f, start, id,
                            twin->all_members
                                ? gql_exec_members_object(ctx, twin, obj, fr)
                                : gql_exec_object_direct(ctx, twin, obj, fr));
  ctx->fast = f;
  gql_exec_give_back(ctx, &lent);
}

/* gql_out_object_ptrs in direct mode. `fast` (a constant in each copy):
 * an eager_only execution's, whose items deferred whole go to fast_item;
 * NULL: a plain one's loop. */
static inline __attribute__((always_inline)) void
ptrs_items(gql_out *o, const void *const *items, size_t count, uint32_t type,
           inc_fast *fast) {
  exec_ctx *ctx = o->own.ctx;
  const plan_field *pf = o->own.pf;
  gql_buf *b = ctx->out;
  bool item_non_null = pf->list_item.nmods == 1;
  const gql_resolve_info *info = out_info(o);
  path_frame fr = {o->own.path, NULL, 0, 0};
  if (GQL_UNLIKELY(ctx->last_stamps))
    fr.last = items_last(
        pf->items_one || (item_non_null && type != GQL_TYPE_AUTO), count);
  set_written(o);
  if (fast) /* the items' paths up to their index, written once */
    gql_exec_fast_list(fast, o->own.path);
  if (!count)
    gql_buf_putc(b, '[');
  for (size_t i = 0; i < count; i++) {
    char open = i ? ',' : '[';
    fr.index = (int64_t)i;
    const void *obj = items[i];
    uint32_t t = type;
    const plan_set *ps = item_plan(info, pf, obj, &t);
    size_t mark = b->len + 1; /* after `open` */
    if (GQL_LIKELY(ps != NULL)) {
      if (fast && ps->any_defer) {
        fast_item(ctx, fast, b, open, ps, obj, &fr);
        continue;
      }
      gql_buf_putc(b, open);
      bool failed = exec_object_direct(ctx, ps, obj, &fr);
      if (!failed)
        continue;
      if (!item_non_null) {
        b->len = mark;
        gql_buf_append(b, "null", 4);
        continue;
      }
    } else {
      gql_buf_putc(b, open);
      if (!bulk_item(o, &fr, obj, t, false))
        continue;
    }
    if (fast)
      fast->pfx_frame = NULL;
    gql_exec_value_failed(o);
    DONE(o);
    return;
  }
  if (fast)
    fast->pfx_frame = NULL;
  gql_buf_putc(b, ']');
  DONE(o);
}

/* ptrs_items of an eager_only execution (its conditions checked: not
 * conds_bad), out of line. */
static __attribute__((noinline)) void
fast_ptrs(gql_out *o, const void *const *items, size_t count, uint32_t type) {
  ptrs_items(o, items, count, type, o->own.ctx->fast);
}

/* gql_out_object_ptrs outside direct mode: a NULL `items` is null, else
 * the list through gql_out_list (out of line: the loop's function keeps
 * its registers). */
static __attribute__((noinline)) void ptrs_general(gql_out *o,
                                                   const void *const *items,
                                                   size_t count,
                                                   uint32_t type) {
  if (!items) {
    gql_out_null(o);
    return;
  }
  /* (in the arena, as object_array_general's) */
  ptr_list *l = gql_arena_alloc(o->own.ctx->arena, sizeof *l);
  if (!l) {
    gql_out_error(o, "Out of memory.");
    return;
  }
  *l = (ptr_list){items, type};
  gql_out_list(o, l, count, ptr_item);
}

void gql_out_object_ptrs(gql_out *o, const void *const *items, size_t count,
                         uint32_t type) {
  if (!items || !bulk_direct(o, LEAF_OBJECT)) {
    ptrs_general(o, items, count, type);
    return;
  }
  const exec_ctx *ctx = o->own.ctx;
  if (GQL_UNLIKELY(ctx->cond_check) && ctx->fast && !ctx->conds_bad)
    fast_ptrs(o, items, count, type);
  else
    ptrs_items(o, items, count, type, NULL);
}

static void enum_item(const void *list, size_t i, gql_out *out) {
  gql_out_enum_index(out, ((const uint8_t *)list)[i]);
}

void gql_out_enum_indices(gql_out *o, const uint8_t *indices, size_t count) {
  if (indices && bulk_direct(o, LEAF_ENUM)) {
    exec_ctx *ctx = o->own.ctx;
    const gql_type *ty = o->own.pf->named;
    gql_buf *b = ctx->out;
    set_written(o);
    if (GQL_LIKELY(enum_items_put(b, o->own.pf, indices, count))) {
      DONE(o);
      return;
    }
    /* an index out of range: item by item */
    path_frame fr = {o->own.path, NULL, 0, 0};
    if (!count)
      gql_buf_putc(b, '[');
    for (size_t i = 0; i < count; i++) {
      gql_buf_putc(b, i ? ',' : '[');
      uint8_t v = indices[i];
      if (GQL_LIKELY(v < ty->nvalues)) {
        gql_json_write_plain(b, ty->values[v].name);
        continue;
      }
      fr.index = (int64_t)i;
      if (bulk_item(o, &fr, NULL, v, true)) {
        gql_exec_value_failed(o);
        DONE(o);
        return;
      }
    }
    gql_buf_putc(b, ']');
    DONE(o);
    return;
  }
  if (!indices) {
    gql_out_null(o);
    return;
  }
  gql_out_list(o, indices, count, enum_item);
}
