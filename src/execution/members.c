/* Fields read from the parent C struct (gql_schema_set_member,
 * gql_schema_set_list_member) as resolvers: the general resolver a member
 * answers as, and the per-kind resolvers of a member beside other fields,
 * which write it straight when they can (an object whose fields are all
 * members is the walk's, walk.c). */
#include "executor.h"

/* gql_exec_member_resolver for a list member: the bulk writer it stands
 * for. */
static void list_member_resolver(const gql_resolve_info *info,
                                 const exec_resolver *r, const char *parent,
                                 gql_out *out) {
  const char *items = ld_items(parent, r->offset, r->items_inline);
  size_t count = ld_count(parent + r->count_offset, r->count_size);
  switch (r->list) {
  case GQL_LIST_OBJECT_PTRS:
    gql_out_object_ptrs(out, (const void *const *)(const void *)items, count,
                        list_item_type(info->pf, r));
    return;
  case GQL_LIST_ENUM_U8:
    gql_out_enum_indices(out, (const uint8_t *)items, count);
    return;
  default: /* GQL_LIST_STRUCTS */
    gql_out_object_array(out, items, count, r->stride,
                         list_item_type(info->pf, r));
    return;
  }
}

void gql_exec_member_resolver(const gql_resolve_info *info, const void *parent,
                              gql_out *out) {
  const exec_resolver *r = info->pf->field->resolver;
  if (!parent) {
    gql_out_null(out);
    return;
  }
  if (r->list) {
    list_member_resolver(info, r, parent, out);
    return;
  }
  const char *p = (const char *)parent + r->offset;
  switch (r->member) {
  case GQL_MEMBER_INT32:
    gql_out_int(out, ld_i32(p));
    return;
  case GQL_MEMBER_INT64:
    gql_out_int(out, ld_i64(p));
    return;
  case GQL_MEMBER_DOUBLE:
    gql_out_float(out, ld_f64(p));
    return;
  case GQL_MEMBER_BOOL:
    gql_out_bool(out, ld_bool(p));
    return;
  case GQL_MEMBER_STR: {
    gql_str v = ld_str(p);
    if (v.ptr)
      gql_out_string(out, v.ptr, v.len);
    else
      gql_out_null(out);
    return;
  }
  case GQL_MEMBER_CSTR: {
    const char *v = ld_cstr(p);
    if (v)
      gql_out_string(out, v, strlen(v));
    else
      gql_out_null(out);
    return;
  }
  default: /* GQL_MEMBER_ENUM_U8 */
    gql_out_enum_index(out, (uint8_t)*p);
    return;
  }
}

/* The resolvers of member fields in objects that also have other fields
 * (plan_field.fn when pf->member is set; all-members objects take
 * members_fields): the member written straight into the response when the
 * output is the field's own in direct mode, else the general path. */
#define MEMBER_FN(name, kind)                                                  \
  static void name(const gql_resolve_info *info, const void *parent,           \
                   gql_out *o) {                                               \
    const plan_field *pf = info->pf;                                           \
    uint8_t dleaf = o->dleaf;                                                  \
    if (GQL_LIKELY(parent && dleaf != LEAF_NONE)) {                            \
      /* written first, so that the write is the last call (a tail call);      \
       * member_write writes nothing when it fails */                          \
      set_written(o);                                                          \
      if (member_write(o->own.ctx->out, kind, pf,                              \
                       (const char *)parent + pf->member_off))                 \
        return;                                                                \
      o->written = false;                                                      \
      o->dleaf = dleaf;                                                        \
    }                                                                          \
    gql_exec_member_resolver(info, parent, o);                                 \
  }

MEMBER_FN(member_int32, MEMBER_INT32)

MEMBER_FN(member_int64_int, MEMBER_INT64_INT)

MEMBER_FN(member_int64, MEMBER_INT64)

MEMBER_FN(member_double, MEMBER_DOUBLE)

MEMBER_FN(member_bool, MEMBER_BOOL)

MEMBER_FN(member_str, MEMBER_STR)

MEMBER_FN(member_cstr, MEMBER_CSTR)

MEMBER_FN(member_enum, MEMBER_ENUM)

#undef MEMBER_FN

static void member_list(const gql_resolve_info *info, const void *parent,
                        gql_out *o);

gql_resolver_fn gql_exec_member_fn(uint8_t member) {
  static const gql_resolver_fn fns[] = {
      [MEMBER_INT32] = member_int32,    [MEMBER_INT64_INT] = member_int64_int,
      [MEMBER_INT64] = member_int64,    [MEMBER_DOUBLE] = member_double,
      [MEMBER_BOOL] = member_bool,      [MEMBER_STR] = member_str,
      [MEMBER_CSTR] = member_cstr,      [MEMBER_ENUM] = member_enum,
      [MEMBER_LIST_ENUM] = member_list, [MEMBER_LIST_OBJECTS] = member_list};
  return member < GQL_ARRAY_LEN(fns) && fns[member] ? fns[member]
                                                    : gql_exec_member_resolver;
}

/* The resolver of a list member beside other fields (plan_field.fn for
 * MEMBER_LIST_*): written as in an all-members object when the output is
 * the field's own in direct mode (its frame's parent is the object's
 * path), untraced, and the list is not null; else the general path. */
static void member_list(const gql_resolve_info *info, const void *parent,
                        gql_out *o) {
  const plan_field *pf = info->pf;
  exec_ctx *ctx = o->own.ctx;
  if (GQL_LIKELY(parent && !o->node && !o->written && !ctx->hooks)) {
    const exec_resolver *r = pf->field->resolver;
    if (pf->member == MEMBER_LIST_ENUM) {
      if (gql_exec_enum_list_write(ctx->out, pf, parent)) {
        set_written(o);
        return;
      }
    } else if (ld_items(parent, pf->member_off, r->items_inline)) {
      set_written(o);
      if (gql_exec_members_list(ctx, ctx->out, pf, parent, o->own.path->parent))
        o->prop = true; /* the non-null list failed */
      return;
    }
  }
  gql_exec_member_resolver(info, parent, o);
}
