/* The public writers a resolver calls (gql_out_*): a value of the
 * expected kind is written straight into the buffer (the fast paths test
 * one byte, gql_out.dleaf), anything else through the general completion
 * (complete.c); and what a resolver is told (gql_info_*). */
#include "walk.h"

void gql_exec_default_resolver(const gql_resolve_info *info, const void *parent,
                               gql_out *out) {
  const gql_json_value *p = parent;
  if (!p || p->kind != GQL_JSON_OBJECT) {
    gql_out_null(out);
    return;
  }
  gql_str name = info->pf->field->name;
  const gql_json_value *v = NULL;
  if (p->object.index) {
    v = gql_json_get(p, name);
  } else {
    /* Small objects: a backward scan (the last duplicate wins, as
     * JSON.parse) that checks length and first byte before memcmp. */
    const gql_json_member *m = p->object.members;
    for (size_t i = p->object.count; i-- > 0;) {
      if (m[i].key.len == name.len &&
          (name.len == 0 || (m[i].key.ptr[0] == name.ptr[0] &&
                             memcmp(m[i].key.ptr, name.ptr, name.len) == 0))) {
        v = &m[i].value;
        break;
      }
    }
  }
  if (v)
    gql_out_json(out, v);
  else
    gql_out_null(out);
}

/* ------------------------------------------------------------ gql_out */

void gql_out_null(gql_out *o) {
  if (!begin(o))
    return;
  gql_exec_complete_null(o);
  DONE(o);
}

/* The fast-path kind (gql_out.dleaf): LEAF_NONE sends the writers below
 * to the general path. */
static inline int direct_leaf(const gql_out *o) {
  return o->dleaf;
}

/* Fast paths: a value of the expected scalar type written as is, straight
 * into the buffer (dleaf is only set in direct mode, before any write, and
 * never on a pending field's output). */
static inline void fast_begin(gql_out *o) {
  set_written(o);
}

static inline void fast_end(gql_out *o) {
  (void)o;
}

void gql_out_int(gql_out *o, int64_t i) {
  int leaf = direct_leaf(o);
  if ((leaf == LEAF_FLOAT ||
       (leaf == LEAF_INT && i >= -2147483648LL && i <= 2147483647LL))) {
    fast_begin(o);
    gql_json_write_int(o->own.ctx->out, i);
    fast_end(o);
    return;
  }
  gql_exec_out_int_slow(o, i);
}

void gql_out_float(gql_out *o, double d) {
  if (direct_leaf(o) == LEAF_FLOAT && isfinite(d)) {
    fast_begin(o);
    gql_json_write_double(o->own.ctx->out, d);
    fast_end(o);
    return;
  }
  gql_exec_out_float_slow(o, d);
}

void gql_out_string(gql_out *o, const char *s, size_t len) {
  int leaf = direct_leaf(o);
  if (leaf == LEAF_STRING || leaf == LEAF_ID) {
    fast_begin(o);
    gql_json_write_string(o->own.ctx->out, (gql_str){s, len});
    fast_end(o);
    return;
  }
  gql_exec_out_string_slow(o, s, len);
}

void gql_out_bool(gql_out *o, bool b) {
  if (direct_leaf(o) == LEAF_BOOLEAN) {
    fast_begin(o);
    if (b)
      gql_buf_put(o->own.ctx->out, "true", 4);
    else
      gql_buf_put(o->own.ctx->out, "false", 5);
    fast_end(o);
    return;
  }
  gql_exec_out_bool_slow(o, b);
}

/* Equal bytes, by overlapping words up to 16 bytes (enum value names). */
static inline bool same_bytes(const char *a, const char *b, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t x0, x1, y0, y1;
    memcpy(&x0, a, 8), memcpy(&y0, b, 8);
    memcpy(&x1, a + n - 8, 8), memcpy(&y1, b + n - 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t x0, x1, y0, y1;
    memcpy(&x0, a, 4), memcpy(&y0, b, 4);
    memcpy(&x1, a + n - 4, 4), memcpy(&y1, b + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  return memcmp(a, b, n) == 0;
}

void gql_out_enum(gql_out *o, const char *name, size_t len) {
  if (direct_leaf(o) == LEAF_ENUM) {
    /* The enum's own value names first by pointer (a resolver that
     * writes the schema's names), then by content. */
    const gql_type *ty = &o->own.ctx->s->types[o->type.type];
    const gql_enum_value *ev = NULL;
    if (ty->nvalues <= 8) {
      for (uint32_t i = 0; i < ty->nvalues; i++) {
        gql_str v = ty->values[i].name;
        if (v.len == len &&
            (v.ptr == name || len == 0 ||
             (v.ptr[0] == name[0] && same_bytes(v.ptr, name, len)))) {
          ev = &ty->values[i];
          break;
        }
      }
    } else {
      ev = gql_type_enum_value(ty, (gql_str){name, len});
    }
    if (ev) {
      set_written(o);
      gql_json_write_plain(o->own.ctx->out, ev->name);
      return;
    }
  }
  gql_out_string(o, name, len);
}

static __attribute__((noinline)) void out_enum_index_slow(gql_out *o,
                                                          uint32_t index);

void gql_out_enum_index(gql_out *o, uint32_t index) {
  /* dleaf LEAF_ENUM: the field's named type (its own, or its list's
   * items') is the enum */
  const gql_type *ty = o->own.pf->named;
  if (GQL_LIKELY(direct_leaf(o) == LEAF_ENUM && index < ty->nvalues)) {
    gql_buf *b = o->own.ctx->out;
    gql_str name = ty->values[index].name;
    /* a name of 4 to 16 bytes: one check, two overlapping words, no
     * frame (the rest take the slow path's put_quoted) */
    size_t n = name.len;
    if (GQL_LIKELY(n >= 4 && n <= 16 && b->cap - b->len >= 18)) {
      set_written(o);
      char *d = b->data + b->len;
      d[0] = '"';
      if (n >= 8) {
        memcpy(d + 1, name.ptr, 8);
        memcpy(d + 1 + n - 8, name.ptr + n - 8, 8);
      } else {
        memcpy(d + 1, name.ptr, 4);
        memcpy(d + 1 + n - 4, name.ptr + n - 4, 4);
      }
      d[n + 1] = '"';
      b->len += n + 2;
      return;
    }
  }
  out_enum_index_slow(o, index);
}

static __attribute__((noinline)) void out_enum_index_slow(gql_out *o,
                                                          uint32_t index) {
  const gql_type *ty = &o->own.ctx->s->types[o->type.type];
  if (GQL_LIKELY(direct_leaf(o) == LEAF_ENUM && index < ty->nvalues)) {
    set_written(o);
    gql_json_write_plain(o->own.ctx->out, ty->values[index].name);
    return;
  }
  if (ty->kind == GQL_TYPE_ENUM && index < ty->nvalues) {
    /* tree mode; or a list type, which errors as gql_out_enum does */
    gql_str n = ty->values[index].name;
    gql_out_enum(o, n.ptr, n.len);
    return;
  }
  if (!begin(o))
    return;
  if (ty->kind == GQL_TYPE_ENUM)
    gql_exec_field_errorf(o, "Enum \"%.*s\" has no value at index %u.",
                          (int)ty->name.len, ty->name.ptr, index);
  else
    gql_exec_field_errorf(
        o, "Type \"%.*s\" is not an enum but was given an enum index.",
        (int)ty->name.len, ty->name.ptr);
  DONE(o);
}

void gql_out_object(gql_out *o, const void *obj, uint32_t type) {
  /* Fast path: a composite type T or T! (not a list, not a leaf) needs
   * none of the checks below; an object type written in place needs no
   * runtime type either. */
  if (direct_leaf(o) == LEAF_OBJECT && obj) {
    exec_ctx *ctx = o->own.ctx;
    const plan_field *pf = o->own.pf;
    set_written(o);
    /* The concrete type: the field's own object type, or the one given
     * for an abstract type. A sub-plan exists only for a possible object
     * type, so finding one is ensureValidRuntimeType's whole check. */
    const plan_set *ps = NULL;
    if (pf->named_object)
      ps = pf->subs[0];
    else if (type != GQL_TYPE_AUTO)
      ps = sub_plan(pf, type);
    if (ps) {
      if (exec_object_direct(ctx, ps, obj, o->own.path))
        gql_exec_value_failed(o);
      DONE(o);
      return;
    }
    gql_exec_complete_composite(o, obj, type);
    DONE(o);
    return;
  }
  if (!begin(o))
    return;
  if (!obj) {
    gql_exec_complete_null(o);
    DONE(o);
    return;
  }
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (gql_type_ref_is_list(t)) {
    gql_exec_not_iterable(o);
    DONE(o);
    return;
  }
  if (o->own.pf->leaf != LEAF_NONE) { /* the named type is not composite */
    const gql_str *pn = parent_name(o);
    gql_exec_field_errorf(
        o, "Field \"%.*s.%.*s\" of leaf type was given an object.",
        (int)pn->len, pn->ptr, (int)o->own.pf->field->name.len,
        o->own.pf->field->name.ptr);
    DONE(o);
    return;
  }
  gql_exec_complete_composite(o, obj, type);
  DONE(o);
}

void gql_out_list(gql_out *o, const void *list, size_t count,
                  gql_list_item_fn fn) {
  if (!begin(o))
    return;
  gql_type_ref t = gql_type_ref_nullable(o->type);
  if (!gql_type_ref_is_list(t)) {
    const gql_str *pn = parent_name(o);
    gql_exec_field_errorf(
        o, "Field \"%.*s.%.*s\" is not a list but was given one.", (int)pn->len,
        pn->ptr, (int)o->own.pf->field->name.len, o->own.pf->field->name.ptr);
    DONE(o);
    return;
  }
  gql_exec_complete_list(o, list, count, fn);
  DONE(o);
}

void gql_out_error(gql_out *o, const char *message) {
  if (!begin(o))
    return;
  exec_ctx *ctx = o->own.ctx;
  uint32_t before = ctx->nerrs;
  gql_exec_field_error(o, message ? message : "Unknown error.", UINT32_MAX);
  gql_resolve_info *info = (gql_resolve_info *)out_info(o);
  if ((info == &o->own || o->field_level) && !info->error &&
      ctx->nerrs > before)
    info->error = ctx->errs[before].message;
  DONE(o);
}

gql_str gql_info_field_name(const gql_resolve_info *info) {
  return info->pf->field->name;
}

uint32_t gql_info_parent_type(const gql_resolve_info *info) {
  return info->pf->parent_type;
}

const gql_value *gql_arg(const gql_resolve_info *info, const char *name) {
  const gql_json_value *a = info->pf->has_args ? info->args : NULL;
  if (!a || !a->object.count)
    return NULL;
  size_t n = strlen(name);
  for (size_t i = 0; i < a->object.count; i++) {
    gql_str k = a->object.members[i].key;
    if (k.len == n && memcmp(k.ptr, name, n) == 0)
      return &a->object.members[i].value;
  }
  return NULL;
}

const gql_value *gql_info_args(const gql_resolve_info *info) {
  return info->pf->has_args ? info->args : NULL;
}

void *gql_info_context(const gql_resolve_info *info) {
  return info->ctx->context;
}

void *gql_info_data(const gql_resolve_info *info) {
  return info->pf->field->resolver_data;
}

gql_arena *gql_info_arena(const gql_resolve_info *info) {
  return info->ctx->arena;
}

const char *gql_info_path(const gql_resolve_info *info) {
  return gql_exec_path_json(info->ctx, info->path);
}

void gql_info_error(const gql_resolve_info *info, const char *message) {
  gql_exec_add_error(info->ctx, message ? message : "Unknown error.", info->pf,
                     UINT32_MAX, info->path);
}

const gql_schema *gql_exec_info_schema(const gql_resolve_info *info) {
  return info->ctx->s;
}

const gql_schema *gql_exec_out_schema(const gql_out *o) {
  return o->own.ctx->s;
}

gql_arena *gql_exec_out_arena(const gql_out *o) {
  return o->own.ctx->arena;
}

/* ---- subscriptions: the root field's value (subscribe.c runs the phases) */

void gql_exec_sub_resolver(const gql_resolve_info *info, const void *parent,
                           gql_out *out) {
  exec_sub *sub = info->ctx->sub;
  if (sub && sub->event_phase) {
    gql_out_json(out, sub->event);
    return;
  }
  const exec_resolver *r = info->pf->field->resolver;
  (r ? r->fn : gql_exec_default_resolver)(info, parent, out);
}

gql_stream *gql_out_stream(gql_out *out, const gql_stream_source *source) {
  exec_ctx *ctx = out->own.ctx;
  exec_sub *sub = ctx->sub;
  bool root = out->own.pf && out->own.pf->sub_root && out->info == NULL;
  if (!sub || sub->event_phase || !root || sub->stream) {
    gql_out_null(out);
    return NULL;
  }
  if (source)
    sub->source = *source;
  sub->stream = (gql_stream *)sub->sub; /* the subscription, seen from its
                                         * source */
  gql_out_null(out);
  return sub->stream;
}
