/* General completion (graphql-js completeValue) of what a fast path does
 * not write: objects and abstract types (resolve-type, __typename), lists
 * through an item function, JSON values (gql_out_json) and the general
 * path of gql_out_int, _float, _string and _bool. */
#include "walk.h"

static void complete_object(gql_out *o, const void *obj, uint32_t concrete) {
  exec_ctx *ctx = o->own.ctx;
  const plan_set *ps = sub_plan(o->own.pf, concrete);
  if (!ps) {
    gql_exec_not_possible(o, concrete);
    return;
  }
  if (!o->node) {
    if (exec_object_direct(ctx, ps, obj, o->own.path))
      gql_exec_value_failed(o);
    return;
  }
  /* (an incremental execution's objects are in the tree where defer.c
   * may split their fields: in sets with a @defer or @stream at or below
   * them) */
  if (ctx->s->types[concrete].sync && (!ctx->inc || ps->inc_free)) {
    size_t start = ctx->out->len;
    if (exec_object_direct(ctx, ps, obj, o->own.path)) {
      ctx->out->len = start;
      gql_exec_value_failed(o);
      return;
    }
    o->node->kind = R_BYTES;
    o->node->start = start;
    o->node->end = ctx->out->len;
    return;
  }
  gql_exec_object_tree(ctx, ps, obj, o->own.path, o->node, false);
}

/* graphql-js ensureValidRuntimeType, for a type index (< ntypes). */
static void complete_abstract_index(gql_out *o, const void *obj, uint32_t t) {
  exec_ctx *ctx = o->own.ctx;
  if (GQL_UNLIKELY(ctx->s->types[t].kind != GQL_TYPE_OBJECT)) {
    gql_exec_not_object(o, t);
    return;
  }
  complete_object(o, obj, t);
}

/* graphql-js ensureValidRuntimeType, for a type found by name. */
static void complete_abstract_named(gql_out *o, const void *obj, gql_str name) {
  exec_ctx *ctx = o->own.ctx;
  const gql_type *at = &ctx->s->types[o->type.type];
  uint32_t t = gql_schema_type_index(ctx->s, name);
  if (t == GQL_NO_TYPE) {
    gql_exec_field_errorf(
        o,
        "Abstract type \"%.*s\" was resolved to a type \"%.*s\" "
        "that does not exist inside the schema.",
        (int)at->name.len, at->name.ptr, (int)name.len, name.ptr);
    return;
  }
  complete_abstract_index(o, obj, t);
}

static void complete_composite(gql_out *o, const void *obj, uint32_t type) {
  exec_ctx *ctx = o->own.ctx;
  uint32_t t = o->type.type;
  const gql_type *ty = &ctx->s->types[t];
  if (ty->kind == GQL_TYPE_OBJECT) {
    complete_object(o, obj, t);
    return;
  }
  if (type != GQL_TYPE_AUTO) {
    if (type >= ctx->s->ntypes) {
      gql_exec_no_runtime_type(o);
      return;
    }
    complete_abstract_index(o, obj, type);
    return;
  }
  const exec_type *et = ty->exec_data;
  if (et && et->resolve_type) {
    int64_t r = et->resolve_type(out_info(o), obj);
    if (r < 0 || (uint64_t)r >= ctx->s->ntypes) {
      gql_exec_no_runtime_type(o);
      return;
    }
    complete_abstract_index(o, obj, (uint32_t)r);
    return;
  }
  const gql_json_value *v = obj;
  const gql_json_value *tn = v && v->kind == GQL_JSON_OBJECT
                                 ? gql_json_get(v, GQL_STR("__typename"))
                                 : NULL;
  if (!tn || tn->kind != GQL_JSON_STRING) {
    gql_exec_no_runtime_type(o);
    return;
  }
  complete_abstract_named(o, obj, tn->string);
}

/* complete_composite for the writers (gql_out_object). */
void gql_exec_complete_composite(gql_out *o, const void *obj, uint32_t type) {
  complete_composite(o, obj, type);
}

void gql_exec_complete_list(gql_out *o, const void *list, size_t count,
                            gql_list_item_fn fn) {
  exec_ctx *ctx = o->own.ctx;
  const plan_field *pf = o->own.pf;
  gql_type_ref item;
  uint8_t dleaf;
  if (GQL_LIKELY(o->type.nmods == pf->type.nmods)) { /* the field's list */
    item = pf->list_item;
    dleaf = pf->list_dleaf;
  } else { /* a list in a list */
    item = gql_type_ref_unwrap(gql_type_ref_nullable(o->type));
    dleaf = gql_exec_fast_kind(item, pf->leaf);
  }
  if (!o->node) {
    /* One output for every item: in direct mode an item's write changes
     * only its written, prop and dleaf members (a pending write is an
     * error here), which are reset with its mark and path index. */
    gql_buf *b = ctx->out;
    /* items_one: a list of non-null items of the field's object type (the
     * field's own list: it has no list in it), so that an item fn writes
     * such an object or an error */
    path_frame fr = {o->own.path, NULL, 0, 0};
    if (GQL_UNLIKELY(ctx->last_stamps))
      fr.last = items_last(pf->items_one, count);
    gql_out io;
    out_init(&io, ctx, o->own.pf, item, dleaf, &fr, NULL);
    io.info = out_info(o);
    if (!count)
      gql_buf_putc(b, '[');
    for (size_t i = 0; i < count; i++) {
      gql_buf_putc(b, i ? ',' : '[');
      fr.index = (int64_t)i;
      io.mark = b->len;
      io.written = false;
      io.prop = false;
      io.dleaf = dleaf;
      fn(list, i, &io);
      if (!io.written) {
        set_written(&io);
        gql_exec_complete_null(&io);
      }
      if (io.prop) {
        gql_exec_value_failed(o);
        return;
      }
    }
    gql_buf_putc(b, ']');
    return;
  }
  rnode *kids = gql_arena_alloc(ctx->arena, sizeof *kids * (count + 1));
  if (!kids) {
    gql_exec_field_error(o, "Out of memory.", UINT32_MAX);
    return;
  }
  rnode *node = o->node;
  /* an incremental execution's @stream: the initial items here, the rest
   * streamed (defer.c) */
  size_t total = count;
  bool streamed = GQL_UNLIKELY(ctx->inc != NULL) &&
                  o->type.nmods == pf->type.nmods &&
                  gql_exec_stream_initial(ctx, pf, total, &count);
  node->kind = R_LIST;
  node->kids = kids;
  node->nkids = (uint32_t)count;
  for (size_t i = 0; i < count; i++)
    kids[i] = (rnode){.kind = R_EMPTY,
                      .parent = node,
                      .nullable = !gql_type_ref_is_non_null(item)};
  /* An item whose failure nulled the list stops the items after it, as
   * graphql-js's completeListValue throws out of its loop (see
   * gql_exec_object_tree); nor does its stream start. */
  for (size_t i = 0; i < count && node->kind != R_NULL; i++) {
    path_frame fr = {o->own.path, NULL, (int64_t)i, 0};
    gql_out io;
    out_init(&io, ctx, o->own.pf, item, dleaf, &fr, &kids[i]);
    io.info = out_info(o);
    fn(list, i, &io);
    if (!io.written) {
      set_written(&io);
      gql_exec_complete_null(&io);
    }
  }
  if (GQL_UNLIKELY(streamed) && node->kind != R_NULL)
    gql_exec_stream_add(o, list, total, fn, count, item);
}

static void json_item(const void *list, size_t i, gql_out *out) {
  const gql_json_value *l = list;
  gql_out_json(out, &l->array.items[i]);
}

void gql_exec_not_iterable(gql_out *o) {
  const gql_str *pn = parent_name(o);
  gql_exec_field_errorf(o,
                        "Expected Iterable, but did not find one for field "
                        "\"%.*s.%.*s\".",
                        (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
                        o->own.pf->field->name.ptr);
}

/* complete_composite of a JSON object (its type from __typename or
 * resolve_type), out of line: gql_out_json's inline copy of
 * gql_exec_complete_json stays small. */
static __attribute__((noinline)) void
complete_json_composite(gql_out *o, const gql_json_value *v) {
  complete_composite(o, v, GQL_TYPE_AUTO);
}

/* completeValue for a JSON value. */
void gql_exec_complete_json(gql_out *o, const gql_json_value *v) {
  if (!v || v->kind == GQL_JSON_NULL) {
    gql_exec_complete_null(o);
    return;
  }
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (gql_type_ref_is_list(t)) {
    if (v->kind != GQL_JSON_ARRAY) {
      gql_exec_not_iterable(o);
      return;
    }
    gql_exec_complete_list(o, v, v->array.count, json_item);
    return;
  }
  if (o->own.pf->leaf != LEAF_NONE) {
    gql_exec_serialize_leaf(o, v);
    return;
  }
  complete_json_composite(o, v);
}

static void out_scalar(gql_out *o, const gql_json_value *v) {
  if (!begin(o))
    return;
  gql_exec_complete_json(o, v);
  DONE(o);
}

/* The general paths, out of line so that the fast ones need no frame. */
__attribute__((noinline)) void gql_exec_out_int_slow(gql_out *o, int64_t i) {
  gql_json_value v = {.kind = GQL_JSON_NUMBER, .is_int = true};
  v.number.i = i;
  v.number.d = (double)i;
  out_scalar(o, &v);
}

__attribute__((noinline)) void gql_exec_out_float_slow(gql_out *o, double d) {
  gql_json_value v = {.kind = GQL_JSON_NUMBER};
  v.number.d = d;
  if (d == floor(d) && fabs(d) < 9e15) {
    v.is_int = true;
    v.number.i = (int64_t)d;
  }
  out_scalar(o, &v);
}

__attribute__((noinline)) void
gql_exec_out_string_slow(gql_out *o, const char *s, size_t len) {
  gql_json_value v = {.kind = GQL_JSON_STRING};
  v.string = (gql_str){s, len};
  out_scalar(o, &v);
}

__attribute__((noinline)) void gql_exec_out_bool_slow(gql_out *o, bool b) {
  gql_json_value v = {.kind = GQL_JSON_BOOL};
  v.boolean = b;
  out_scalar(o, &v);
}

void gql_out_json(gql_out *o, const gql_value *v) {
  out_scalar(o, v);
}
