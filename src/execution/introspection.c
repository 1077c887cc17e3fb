/* Introspection as built-in synchronous resolvers over the schema structs.
 * Parents: __Schema is the gql_schema, __Type a gql_type_ref (named types use
 * the stable reference in their exec_type), __Field a gql_field,
 * __InputValue a gql_input_value, __EnumValue a gql_enum_value and
 * __Directive a gql_directive. */
#include "../schema/internal.h"
#include "exec.h"

#define S(info) gql_exec_info_schema(info)

static uint32_t tindex(const gql_schema *s, const char *name) {
  return gql_schema_type_index(s, gql_cstr(name));
}

static void out_str(gql_out *o, gql_str s) {
  if (s.ptr)
    gql_out_string(o, s.ptr, s.len);
  else
    gql_out_null(o);
}

static void out_named(gql_out *o, const gql_schema *s, uint32_t t) {
  if (t == GQL_NO_TYPE) {
    gql_out_null(o);
    return;
  }
  const exec_type *et = s->types[t].exec_data;
  gql_out_object(o, &et->named, tindex(s, "__Type"));
}

static bool include_deprecated(const gql_resolve_info *info) {
  return gql_value_bool(gql_arg(info, "includeDeprecated"));
}

/* ---- lists of pointers */

typedef struct ptr_list {
  const void **items;
  uint32_t type; /* introspection type of the items */
} ptr_list;

static void ptr_item(const void *list, size_t i, gql_out *o) {
  const ptr_list *l = list;
  gql_out_object(o, l->items[i], l->type);
}

/* Writes the `n` elements of `base` (each `size` bytes) that are not
 * deprecated (unless `all`) as a list of objects of type `type_name`. */
static void out_filtered(gql_out *o, const gql_resolve_info *info,
                         const void *base, uint32_t n, size_t size,
                         size_t reason_off, bool all, const char *type_name) {
  gql_arena *a = gql_info_arena(info);
  ptr_list *l = gql_arena_alloc(a, sizeof *l);
  const void **items = gql_arena_alloc(a, sizeof *items * (n + 1));
  if (!l || !items) {
    gql_out_error(o, "Out of memory.");
    return;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const char *e = (const char *)base + i * size;
    const gql_str *reason = (const gql_str *)(e + reason_off);
    if (all || !reason->ptr)
      items[k++] = e;
  }
  *l = (ptr_list){items, tindex(S(info), type_name)};
  gql_out_list(o, l, k, ptr_item);
}

typedef struct index_list {
  const uint32_t *items;
  const gql_schema *s;
} index_list;

static void index_item(const void *list, size_t i, gql_out *o) {
  const index_list *l = list;
  out_named(o, l->s, l->items[i]);
}

static void out_indices(gql_out *o, const gql_resolve_info *info,
                        const uint32_t *items, uint32_t n) {
  index_list *l = gql_arena_alloc(gql_info_arena(info), sizeof *l);
  if (!l) {
    gql_out_error(o, "Out of memory.");
    return;
  }
  *l = (index_list){items, S(info)};
  gql_out_list(o, l, n, index_item);
}

/* ---- meta fields */

static void r_meta_schema(const gql_resolve_info *info, const void *parent,
                          gql_out *o) {
  gql_out_object(o, S(info), tindex(S(info), "__Schema"));
}

static void r_meta_type(const gql_resolve_info *info, const void *parent,
                        gql_out *o) {
  gql_str name = gql_value_string(gql_arg(info, "name"));
  out_named(o, S(info), gql_schema_type_index(S(info), name));
}

/* ---- __Schema */

static void all_types_item(const void *list, size_t i, gql_out *o) {
  const gql_schema *s = list;
  out_named(o, s, (uint32_t)i);
}

static void schema_types(const gql_resolve_info *info, const void *parent,
                         gql_out *o) {
  const gql_schema *s = parent;
  gql_out_list(o, s, s->ntypes, all_types_item);
}

static void schema_field(const gql_resolve_info *info, const void *parent,
                         gql_out *o) {
  const gql_schema *s = parent;
  gql_str f = gql_info_field_name(info);
  if (gql_str_eq_cstr(f, "description"))
    out_str(o, s->description);
  else if (gql_str_eq_cstr(f, "queryType"))
    out_named(o, s, s->query);
  else if (gql_str_eq_cstr(f, "mutationType"))
    out_named(o, s, s->mutation);
  else if (gql_str_eq_cstr(f, "subscriptionType"))
    out_named(o, s, s->subscription);
  else if (gql_str_eq_cstr(f, "directives"))
    out_filtered(o, info, s->directives, s->ndirectives, sizeof(gql_directive),
                 0, true, "__Directive");
  else
    gql_out_null(o);
}

/* ---- __Type */

static void type_field(const gql_resolve_info *info, const void *parent,
                       gql_out *o) {
  const gql_type_ref *r = parent;
  const gql_schema *s = S(info);
  const gql_type *t = &s->types[r->type];
  gql_str f = gql_info_field_name(info);
  bool wrapped = r->nmods > 0;
  if (gql_str_eq_cstr(f, "kind")) {
    const char *k = !wrapped            ? gql_type_kind_name(t->kind)
                    : r->mods[0] == '!' ? "NON_NULL"
                                        : "LIST";
    gql_out_enum(o, k, strlen(k));
    return;
  }
  if (gql_str_eq_cstr(f, "ofType")) {
    if (!wrapped) {
      gql_out_null(o);
      return;
    }
    gql_type_ref *in = gql_arena_alloc(gql_info_arena(info), sizeof *in);
    if (!in) {
      gql_out_error(o, "Out of memory.");
      return;
    }
    *in = gql_type_ref_unwrap(*r);
    gql_out_object(o, in, tindex(s, "__Type"));
    return;
  }
  if (wrapped) {
    gql_out_null(o);
    return;
  }
  bool all = include_deprecated(info);
  if (gql_str_eq_cstr(f, "name"))
    out_str(o, t->name);
  else if (gql_str_eq_cstr(f, "description"))
    out_str(o, t->description);
  else if (gql_str_eq_cstr(f, "specifiedByURL"))
    out_str(o,
            t->kind == GQL_TYPE_SCALAR ? t->specified_by_url : (gql_str){0, 0});
  else if (gql_str_eq_cstr(f, "fields")) {
    if (t->kind == GQL_TYPE_OBJECT || t->kind == GQL_TYPE_INTERFACE)
      out_filtered(o, info, t->fields, t->nfields, sizeof(gql_field),
                   offsetof(gql_field, deprecation_reason), all, "__Field");
    else
      gql_out_null(o);
  } else if (gql_str_eq_cstr(f, "interfaces")) {
    if (t->kind == GQL_TYPE_OBJECT || t->kind == GQL_TYPE_INTERFACE)
      out_indices(o, info, t->interfaces, t->ninterfaces);
    else
      gql_out_null(o);
  } else if (gql_str_eq_cstr(f, "possibleTypes")) {
    if (t->kind == GQL_TYPE_INTERFACE || t->kind == GQL_TYPE_UNION)
      out_indices(o, info, t->possible, t->npossible);
    else
      gql_out_null(o);
  } else if (gql_str_eq_cstr(f, "enumValues")) {
    if (t->kind == GQL_TYPE_ENUM)
      out_filtered(o, info, t->values, t->nvalues, sizeof(gql_enum_value),
                   offsetof(gql_enum_value, deprecation_reason), all,
                   "__EnumValue");
    else
      gql_out_null(o);
  } else if (gql_str_eq_cstr(f, "inputFields")) {
    if (t->kind == GQL_TYPE_INPUT_OBJECT)
      out_filtered(
          o, info, t->input_fields, t->ninput_fields, sizeof(gql_input_value),
          offsetof(gql_input_value, deprecation_reason), all, "__InputValue");
    else
      gql_out_null(o);
  } else if (gql_str_eq_cstr(f, "isOneOf")) {
    if (t->kind == GQL_TYPE_INPUT_OBJECT)
      gql_out_bool(o, t->one_of);
    else
      gql_out_null(o);
  } else {
    gql_out_null(o);
  }
}

/* ---- __Field, __InputValue, __EnumValue */

static void deprecation(gql_out *o, gql_str f, gql_str reason) {
  if (gql_str_eq_cstr(f, "isDeprecated"))
    gql_out_bool(o, reason.ptr != NULL);
  else
    out_str(o, reason);
}

static void field_field(const gql_resolve_info *info, const void *parent,
                        gql_out *o) {
  const gql_field *fd = parent;
  gql_str f = gql_info_field_name(info);
  if (gql_str_eq_cstr(f, "name"))
    out_str(o, fd->name);
  else if (gql_str_eq_cstr(f, "description"))
    out_str(o, fd->description);
  else if (gql_str_eq_cstr(f, "args"))
    out_filtered(o, info, fd->args, fd->nargs, sizeof(gql_input_value),
                 offsetof(gql_input_value, deprecation_reason),
                 include_deprecated(info), "__InputValue");
  else if (gql_str_eq_cstr(f, "type"))
    gql_out_object(o, &fd->type, tindex(S(info), "__Type"));
  else
    deprecation(o, f, fd->deprecation_reason);
}

/* A gql_allocator on the request arena (freeing is a no-op). */
static void *arena_malloc(void *ctx, size_t size) {
  return gql_arena_alloc(ctx, size);
}
static void *arena_realloc(void *ctx, void *ptr, size_t old_size,
                           size_t new_size) {
  void *n = gql_arena_alloc(ctx, new_size);
  if (n && ptr && old_size)
    memcpy(n, ptr, old_size < new_size ? old_size : new_size);
  return n;
}
static void arena_free(void *ctx, void *ptr, size_t size) {
  (void)ctx;
  (void)ptr;
  (void)size;
}

static void input_value_field(const gql_resolve_info *info, const void *parent,
                              gql_out *o) {
  const gql_input_value *iv = parent;
  gql_str f = gql_info_field_name(info);
  if (gql_str_eq_cstr(f, "name"))
    out_str(o, iv->name);
  else if (gql_str_eq_cstr(f, "description"))
    out_str(o, iv->description);
  else if (gql_str_eq_cstr(f, "type"))
    gql_out_object(o, &iv->type, tindex(S(info), "__Type"));
  else if (gql_str_eq_cstr(f, "defaultValue")) {
    /* printed into the request arena (the string lives as long as the
     * response is being written) */
    gql_allocator alc = {arena_malloc, arena_realloc, arena_free,
                         gql_info_arena(info)};
    gql_buf b;
    gql_buf_init(&b, &alc);
    if (iv->default_value &&
        gql_schema_print_default(S(info), iv->type, iv->default_value, &b))
      gql_out_string(o, b.data, b.len);
    else
      gql_out_null(o);
    gql_buf_free(&b);
  } else
    deprecation(o, f, iv->deprecation_reason);
}

static void enum_value_field(const gql_resolve_info *info, const void *parent,
                             gql_out *o) {
  const gql_enum_value *ev = parent;
  gql_str f = gql_info_field_name(info);
  if (gql_str_eq_cstr(f, "name"))
    out_str(o, ev->name);
  else if (gql_str_eq_cstr(f, "description"))
    out_str(o, ev->description);
  else
    deprecation(o, f, ev->deprecation_reason);
}

/* ---- __Directive */

static void location_item(const void *list, size_t i, gql_out *o) {
  const uint8_t *locs = list;
  const char *n = gql_directive_location_name(locs[i]);
  gql_out_enum(o, n, strlen(n));
}

static void directive_field(const gql_resolve_info *info, const void *parent,
                            gql_out *o) {
  const gql_directive *d = parent;
  gql_str f = gql_info_field_name(info);
  if (gql_str_eq_cstr(f, "name"))
    out_str(o, d->name);
  else if (gql_str_eq_cstr(f, "description"))
    out_str(o, d->description);
  else if (gql_str_eq_cstr(f, "isRepeatable"))
    gql_out_bool(o, d->repeatable);
  else if (gql_str_eq_cstr(f, "locations"))
    gql_out_list(o, d->locations, d->nlocations, location_item);
  else if (gql_str_eq_cstr(f, "args"))
    out_filtered(o, info, d->args, d->nargs, sizeof(gql_input_value),
                 offsetof(gql_input_value, deprecation_reason),
                 include_deprecated(info), "__InputValue");
  else if (gql_str_eq_cstr(f, "isDeprecated") ||
           gql_str_eq_cstr(f, "deprecationReason"))
    deprecation(o, f, (gql_str){0, 0}); /* directives cannot be deprecated */
  else
    gql_out_null(o);
}

/* ---- the table gql_schema_finalize installs */

static const exec_builtin builtins[] = {
    {"__Schema", "types", schema_types},
    {"__Schema", NULL, schema_field},
    {"__Type", NULL, type_field},
    {"__Field", NULL, field_field},
    {"__InputValue", NULL, input_value_field},
    {"__EnumValue", NULL, enum_value_field},
    {"__Directive", NULL, directive_field},
    {NULL, "__schema", r_meta_schema},
    {NULL, "__type", r_meta_type},
};

const exec_builtin *gql_exec_introspection_resolvers(size_t *n) {
  *n = GQL_ARRAY_LEN(builtins);
  return builtins;
}
