/* Resolver registration (gql_schema_set_resolver, set_member,
 * set_list_member, set_resolve_type) and gql_schema_finalize: the built-in
 * introspection resolvers, the enums' list slots and the proof of which
 * types are synchronous all the way down. */
#include "exec.h"

#include <string.h>

static exec_type *type_data(gql_schema *s, uint32_t t) {
  gql_type *ty = &s->types[t];
  if (!ty->exec_data) {
    exec_type *et = gql_arena_alloc(s->arena, sizeof *et);
    if (!et)
      return NULL;
    *et = (exec_type){.named = gql_type_ref_named(t)};
    ty->exec_data = et;
  }
  return ty->exec_data;
}

static int set_field_resolver(gql_schema *s, gql_field *f, gql_resolver_fn fn,
                              void *data, unsigned flags) {
  exec_resolver *r = gql_arena_alloc(s->arena, sizeof *r);
  if (!r)
    return GQL_ENOMEM;
  *r = (exec_resolver){.fn = fn, .flags = flags};
  f->resolver = r;
  f->resolver_data = data;
  f->sync = (flags & GQL_RESOLVER_SYNC) != 0;
  return 0;
}

/* The field `type`.`field` a resolver can be set on (the query type's
 * __schema and __type included), or NULL with *rc. */
static gql_field *settable_field(gql_schema *s, const char *type,
                                 const char *field, int *rc) {
  *rc = GQL_EINVAL;
  if (!s || !type || !field || gql_exec_finalized(s))
    return NULL;
  *rc = GQL_ENOTFOUND;
  uint32_t t = gql_schema_type_index(s, gql_cstr(type));
  if (t == GQL_NO_TYPE)
    return NULL;
  gql_type *ty = &s->types[t];
  gql_field *f = (gql_field *)gql_type_field(ty, gql_cstr(field));
  if (!f && t == s->query && strcmp(field, "__schema") == 0)
    f = &s->meta_schema;
  if (!f && t == s->query && strcmp(field, "__type") == 0)
    f = &s->meta_type;
  return f;
}

int gql_schema_set_resolver(gql_schema *s, const char *type, const char *field,
                            gql_resolver_fn fn, void *data, unsigned flags) {
  if (!fn)
    return GQL_EINVAL;
  int rc;
  gql_field *f = settable_field(s, type, field, &rc);
  return f ? set_field_resolver(s, f, fn, data, flags) : rc;
}

int gql_schema_set_member(gql_schema *s, const char *type, const char *field,
                          gql_member_kind kind, size_t offset) {
  if (kind < GQL_MEMBER_INT32 || kind > GQL_MEMBER_ENUM_U8 ||
      offset > UINT32_MAX)
    return GQL_EINVAL;
  int rc;
  gql_field *f = settable_field(s, type, field, &rc);
  if (!f)
    return rc;
  if ((rc = set_field_resolver(s, f, gql_exec_member_resolver, NULL,
                               GQL_RESOLVER_SYNC)) < 0)
    return rc;
  exec_resolver *r = (exec_resolver *)f->resolver;
  r->member = (uint8_t)kind;
  r->offset = (uint32_t)offset;
  return 0;
}

/* Whether list member `m` fits field `f` (see gql_schema_set_list_member). */
static bool list_member_fits(const gql_schema *s, const gql_field *f,
                             const gql_list_member *m) {
  gql_type_ref t = gql_type_ref_nullable(f->type);
  if (!gql_type_ref_is_list(t))
    return false;
  gql_type_ref item = gql_type_ref_nullable(gql_type_ref_unwrap(t));
  if (gql_type_ref_is_list(item))
    return false; /* a list of lists */
  uint32_t named = f->type.type;
  const gql_type *nt = &s->types[named];
  if (m->kind == GQL_LIST_ENUM_U8)
    return nt->kind == GQL_TYPE_ENUM;
  if (nt->kind != GQL_TYPE_OBJECT && !gql_schema_is_abstract(s, named))
    return false;
  if (m->type == GQL_TYPE_AUTO)
    return true;
  if (m->type >= s->ntypes || s->types[m->type].kind != GQL_TYPE_OBJECT)
    return false;
  return nt->kind == GQL_TYPE_OBJECT
             ? m->type == named
             : gql_schema_is_possible_type(s, named, m->type);
}

int gql_schema_set_list_member(gql_schema *s, const char *type,
                               const char *field, const gql_list_member *m) {
  if (!m || m->kind < GQL_LIST_OBJECT_PTRS || m->kind > GQL_LIST_STRUCTS ||
      (m->count_size != 1 && m->count_size != 2 && m->count_size != 4 &&
       m->count_size != 8) ||
      m->items_offset > UINT32_MAX || m->count_offset > UINT32_MAX ||
      m->stride > UINT32_MAX)
    return GQL_EINVAL;
  int rc;
  gql_field *f = settable_field(s, type, field, &rc);
  if (!f)
    return rc;
  if (!list_member_fits(s, f, m))
    return GQL_EINVAL;
  if ((rc = set_field_resolver(s, f, gql_exec_member_resolver, NULL,
                               GQL_RESOLVER_SYNC)) < 0)
    return rc;
  exec_resolver *r = (exec_resolver *)f->resolver;
  r->offset = (uint32_t)m->items_offset;
  r->list = (uint8_t)m->kind;
  r->items_inline = m->items_inline;
  r->count_size = m->count_size;
  r->count_offset = (uint32_t)m->count_offset;
  r->stride = (uint32_t)m->stride;
  r->item_type = m->kind == GQL_LIST_ENUM_U8 ? GQL_TYPE_AUTO : m->type;
  return 0;
}

int gql_schema_set_resolve_type(gql_schema *s, const char *type,
                                gql_resolve_type_fn fn) {
  if (!s || !type)
    return GQL_EINVAL;
  if (gql_exec_finalized(s))
    return GQL_EINVAL;
  uint32_t t = gql_schema_type_index(s, gql_cstr(type));
  if (t == GQL_NO_TYPE)
    return GQL_ENOTFOUND;
  if (!gql_schema_is_abstract(s, t))
    return GQL_EINVAL;
  exec_type *et = type_data(s, t);
  if (!et)
    return GQL_ENOMEM;
  et->resolve_type = fn;
  return 0;
}

static bool field_sync(const gql_schema *s, const gql_field *f) {
  const exec_resolver *r = f->resolver;
  if (r && !(r->flags & GQL_RESOLVER_SYNC))
    return false;
  return s->types[f->type.type].sync;
}

static void never_called(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  gql_out_null(out);
}

/* exec_type.quoted of enum `ty` into *out: NULL when a name is too long
 * for a slot; false when out of memory. */
static bool quoted_values(gql_schema *s, const gql_type *ty, const char **out) {
  *out = NULL;
  for (uint32_t i = 0; i < ty->nvalues; i++)
    if (ty->values[i].name.len + 3 >= ENUM_SLOT)
      return true;
  char *q = gql_arena_alloc(s->arena, (size_t)ty->nvalues * ENUM_SLOT + 1);
  if (!q)
    return false;
  memset(q, 0, (size_t)ty->nvalues * ENUM_SLOT);
  for (uint32_t i = 0; i < ty->nvalues; i++) {
    gql_str n = ty->values[i].name; /* a name: no escapes */
    char *slot = q + (size_t)i * ENUM_SLOT;
    slot[0] = ',';
    slot[1] = '"';
    memcpy(slot + 2, n.ptr, n.len);
    slot[n.len + 2] = '"';
    slot[ENUM_SLOT - 1] = (char)(n.len + 3);
  }
  *out = q;
  return true;
}

/* A built-in resolver, on the fields it names that have none yet. */
static void set_builtin(gql_schema *s, const exec_builtin *b) {
  uint32_t t = b->type ? gql_schema_type_index(s, gql_cstr(b->type)) : s->query;
  if (t == GQL_NO_TYPE)
    return;
  gql_type *ty = &s->types[t];
  if (!b->type) { /* __schema and __type, on the query type */
    gql_field *f =
        strcmp(b->field, "__schema") == 0 ? &s->meta_schema : &s->meta_type;
    if (!f->resolver)
      set_field_resolver(s, f, b->fn, NULL, GQL_RESOLVER_SYNC);
    return;
  }
  for (uint32_t i = 0; i < ty->nfields; i++) {
    gql_field *f = &ty->fields[i];
    if (!f->resolver && (!b->field || gql_str_eq_cstr(f->name, b->field)))
      set_field_resolver(s, f, b->fn, NULL, GQL_RESOLVER_SYNC);
  }
}

/* Synchronous types by fixpoint: start with every type, remove objects with
 * an asynchronous field and abstract types with an asynchronous possible
 * type until nothing changes. */
int gql_schema_finalize(gql_schema *s) {
  if (!s)
    return GQL_EINVAL;
  if (gql_exec_finalized(s))
    return 0;
  size_t nbuiltins;
  const exec_builtin *b = gql_exec_introspection_resolvers(&nbuiltins);
  for (size_t i = 0; i < nbuiltins; i++)
    set_builtin(s, &b[i]);
  for (uint32_t t = 0; t < s->ntypes; t++) {
    exec_type *et = type_data(s, t);
    if (!et || (s->types[t].kind == GQL_TYPE_ENUM &&
                !quoted_values(s, &s->types[t], &et->quoted)))
      return GQL_ENOMEM;
    s->types[t].sync = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t t = 0; t < s->ntypes; t++) {
      gql_type *ty = &s->types[t];
      if (!ty->sync)
        continue;
      bool sync = true;
      if (ty->kind == GQL_TYPE_OBJECT) {
        for (uint32_t i = 0; i < ty->nfields && sync; i++)
          sync = field_sync(s, &ty->fields[i]);
        if (t == s->query && sync)
          sync = field_sync(s, &s->meta_schema) && field_sync(s, &s->meta_type);
      } else if (ty->kind == GQL_TYPE_INTERFACE || ty->kind == GQL_TYPE_UNION) {
        for (uint32_t i = 0; i < ty->npossible && sync; i++)
          sync = s->types[ty->possible[i]].sync;
      }
      if (!sync) {
        ty->sync = false;
        changed = true;
      }
    }
  }
  return set_field_resolver(s, &s->meta_typename, never_called, NULL,
                            GQL_RESOLVER_SYNC);
}
