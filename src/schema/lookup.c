/* Lookups by name, kind predicates, type references and subtyping. */
#include "internal.h"

#include <stddef.h>

static const char *const location_names[] = {
#define GQL_DIRLOC_NAME_(n) #n,
    GQL_DIRECTIVE_LOCATIONS(GQL_DIRLOC_NAME_)
#undef GQL_DIRLOC_NAME_
};

const char *gql_directive_location_name(gql_directive_location loc) {
  return (unsigned)loc < GQL_DIRLOC_COUNT ? location_names[loc] : "";
}

bool gql_directive_location_from_name(gql_str name,
                                      gql_directive_location *out) {
  for (int i = 0; i < GQL_DIRLOC_COUNT; i++)
    if (gql_str_eq_cstr(name, location_names[i])) {
      *out = (gql_directive_location)i;
      return true;
    }
  return false;
}

const char *gql_type_kind_name(gql_type_kind k) {
  static const char *const names[] = {"SCALAR", "OBJECT", "INTERFACE",
                                      "UNION",  "ENUM",   "INPUT_OBJECT"};
  return (unsigned)k < GQL_ARRAY_LEN(names) ? names[k] : "";
}

uint32_t gql_schema_type_index(const gql_schema *s, gql_str name) {
  uint32_t id;
  return gql_strmap_get(&s->type_map, name, &id) ? id : GQL_NO_TYPE;
}

const gql_type *gql_schema_type(const gql_schema *s, gql_str name) {
  uint32_t id = gql_schema_type_index(s, name);
  return id == GQL_NO_TYPE ? NULL : &s->types[id];
}

gql_str gql_schema_intern_lookup(const gql_schema *s, gql_str name) {
  uint32_t idx;
  if (gql_strmap_get(&s->names, name, &idx))
    return s->name_list[idx];
  return (gql_str){NULL, 0};
}

const gql_directive *gql_schema_directive(const gql_schema *s, gql_str name) {
  uint32_t id;
  return gql_strmap_get(&s->directive_map, name, &id) ? &s->directives[id]
                                                      : NULL;
}

uint32_t gql_schema_root_type(const gql_schema *s, gql_operation_type op) {
  switch (op) {
  case GQL_OP_QUERY:
    return s->query;
  case GQL_OP_MUTATION:
    return s->mutation;
  case GQL_OP_SUBSCRIPTION:
    return s->subscription;
  }
  return GQL_NO_TYPE;
}

/* Every member struct (gql_field, gql_enum_value, gql_input_value) starts
 * with its name, so one probe serves the three. */
_Static_assert(offsetof(gql_field, name) == 0, "name first");
_Static_assert(offsetof(gql_enum_value, name) == 0, "name first");
_Static_assert(offsetof(gql_input_value, name) == 0, "name first");
static const void *probe(const gql_type *t, gql_str name, const void *items,
                         size_t stride) {
  uint64_t h = gql_hash(name.ptr, name.len, gql_hash_seed());
  for (uint32_t i = (uint32_t)h & t->member_mask;;
       i = (i + 1) & t->member_mask) {
    uint32_t slot = t->member_index[i];
    if (!slot)
      return NULL;
    const void *item = (const char *)items + (size_t)(slot - 1) * stride;
    if (gql_str_eq(*(const gql_str *)item, name))
      return item;
  }
}

int gql_type_build_member_index(gql_type *t, gql_arena *arena) {
  const char *items;
  size_t stride;
  uint32_t n;
  if (t->kind == GQL_TYPE_OBJECT || t->kind == GQL_TYPE_INTERFACE) {
    items = (const char *)t->fields, stride = sizeof *t->fields;
    n = t->nfields;
  } else if (t->kind == GQL_TYPE_ENUM) {
    items = (const char *)t->values, stride = sizeof *t->values;
    n = t->nvalues;
  } else if (t->kind == GQL_TYPE_INPUT_OBJECT) {
    items = (const char *)t->input_fields, stride = sizeof *t->input_fields;
    n = t->ninput_fields;
  } else {
    return 0;
  }
  if (n <= 8)
    return 0; /* a scan of a few lengths is as fast */
  uint32_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  uint32_t *slots = gql_arena_alloc(arena, (size_t)cap * sizeof *slots);
  if (!slots)
    return GQL_ENOMEM;
  memset(slots, 0, (size_t)cap * sizeof *slots);
  uint64_t seed = gql_hash_seed();
  for (uint32_t k = 0; k < n; k++) {
    gql_str name = *(const gql_str *)(items + (size_t)k * stride);
    uint32_t i = (uint32_t)gql_hash(name.ptr, name.len, seed) & (cap - 1);
    while (slots[i])
      i = (i + 1) & (cap - 1);
    slots[i] = k + 1;
  }
  t->member_index = slots;
  t->member_mask = cap - 1;
  return 0;
}

const gql_field *gql_type_field(const gql_type *type, gql_str name) {
  if (type->member_index &&
      (type->kind == GQL_TYPE_OBJECT || type->kind == GQL_TYPE_INTERFACE))
    return probe(type, name, type->fields, sizeof *type->fields);
  for (uint32_t i = 0; i < type->nfields; i++)
    if (gql_str_eq(type->fields[i].name, name))
      return &type->fields[i];
  return NULL;
}

const gql_field *gql_schema_field_def(const gql_schema *s, uint32_t parent,
                                      gql_str name) {
  if (parent >= s->ntypes)
    return NULL;
  const gql_type *t = &s->types[parent];
  if (name.len > 2 && name.ptr[0] == '_' && name.ptr[1] == '_') {
    if (parent == s->query && gql_str_eq_cstr(name, "__schema"))
      return &s->meta_schema;
    if (parent == s->query && gql_str_eq_cstr(name, "__type"))
      return &s->meta_type;
    if (gql_str_eq_cstr(name, "__typename") &&
        gql_schema_is_composite(s, parent))
      return &s->meta_typename;
  }
  if (t->kind != GQL_TYPE_OBJECT && t->kind != GQL_TYPE_INTERFACE)
    return NULL;
  return gql_type_field(t, name);
}

static const gql_input_value *find_value(const gql_input_value *v, uint32_t n,
                                         gql_str name) {
  for (uint32_t i = 0; i < n; i++)
    if (gql_str_eq(v[i].name, name))
      return &v[i];
  return NULL;
}

const gql_input_value *gql_field_arg(const gql_field *f, gql_str name) {
  return find_value(f->args, f->nargs, name);
}

const gql_input_value *gql_directive_arg(const gql_directive *d, gql_str name) {
  return find_value(d->args, d->nargs, name);
}

const gql_input_value *gql_type_input_field(const gql_type *type,
                                            gql_str name) {
  if (type->member_index && type->kind == GQL_TYPE_INPUT_OBJECT)
    return probe(type, name, type->input_fields, sizeof *type->input_fields);
  return find_value(type->input_fields, type->ninput_fields, name);
}

const gql_enum_value *gql_type_enum_value(const gql_type *type, gql_str name) {
  if (type->member_index && type->kind == GQL_TYPE_ENUM)
    return probe(type, name, type->values, sizeof *type->values);
  for (uint32_t i = 0; i < type->nvalues; i++)
    if (gql_str_eq(type->values[i].name, name))
      return &type->values[i];
  return NULL;
}

/* ---- kinds */

static gql_type_kind kind_of(const gql_schema *s, uint32_t t) {
  return s->types[t].kind;
}

bool gql_schema_is_leaf(const gql_schema *s, uint32_t t) {
  return t < s->ntypes &&
         (kind_of(s, t) == GQL_TYPE_SCALAR || kind_of(s, t) == GQL_TYPE_ENUM);
}

bool gql_schema_is_composite(const gql_schema *s, uint32_t t) {
  return t < s->ntypes && (kind_of(s, t) == GQL_TYPE_OBJECT ||
                           kind_of(s, t) == GQL_TYPE_INTERFACE ||
                           kind_of(s, t) == GQL_TYPE_UNION);
}

bool gql_schema_is_abstract(const gql_schema *s, uint32_t t) {
  return t < s->ntypes && (kind_of(s, t) == GQL_TYPE_INTERFACE ||
                           kind_of(s, t) == GQL_TYPE_UNION);
}

bool gql_schema_is_input(const gql_schema *s, uint32_t t) {
  return t < s->ntypes &&
         (kind_of(s, t) == GQL_TYPE_SCALAR || kind_of(s, t) == GQL_TYPE_ENUM ||
          kind_of(s, t) == GQL_TYPE_INPUT_OBJECT);
}

bool gql_schema_is_output(const gql_schema *s, uint32_t t) {
  return t < s->ntypes && kind_of(s, t) != GQL_TYPE_INPUT_OBJECT;
}

/* ---- type references */

void gql_type_ref_print(const gql_schema *s, gql_type_ref r, gql_buf *out) {
  if (!r.nmods) {
    gql_buf_put_str(out, s->types[r.type].name);
    return;
  }
  gql_type_ref inner = gql_type_ref_unwrap(r);
  if (r.mods[0] == 'L') {
    gql_buf_putc(out, '[');
    gql_type_ref_print(s, inner, out);
    gql_buf_putc(out, ']');
  } else {
    gql_type_ref_print(s, inner, out);
    gql_buf_putc(out, '!');
  }
}

const char *gql_type_ref_str(const gql_schema *s, gql_type_ref r,
                             gql_arena *arena) {
  const gql_type *t = &s->types[r.type];
  size_t n = t->name.len + 2 * (size_t)r.nmods;
  char *p = gql_arena_alloc(arena, n + 1);
  if (!p)
    return NULL;
  size_t o = 0;
  for (uint32_t i = 0; i < r.nmods; i++)
    if (r.mods[i] == 'L')
      p[o++] = '[';
  memcpy(p + o, t->name.ptr, t->name.len);
  o += t->name.len;
  /* closers from the inside out */
  for (uint32_t i = r.nmods; i-- > 0;)
    p[o++] = r.mods[i] == 'L' ? ']' : '!';
  p[o] = 0;
  return p;
}

bool gql_schema_type_ref_from_ast(const gql_schema *s, const gql_ast_type *t,
                                  gql_arena *arena, gql_type_ref *out) {
  uint32_t n = 0;
  for (const gql_ast_type *a = t; a->h.kind != GQL_AST_NAMED_TYPE; a = a->of)
    n++;
  char *mods = gql_arena_alloc(arena, n + 1);
  *out = (gql_type_ref){GQL_NO_TYPE, n, mods};
  if (!mods)
    return false;
  n = 0;
  const gql_ast_type *a = t;
  for (; a->h.kind != GQL_AST_NAMED_TYPE; a = a->of)
    mods[n++] = a->h.kind == GQL_AST_LIST_TYPE ? 'L' : '!';
  mods[n] = 0;
  out->type = gql_schema_type_index(s, gql_ast_name_str(a->name));
  return out->type != GQL_NO_TYPE;
}

/* ---- subtyping */

bool gql_schema_is_possible_type(const gql_schema *s, uint32_t abstract,
                                 uint32_t obj) {
  const gql_type *t = &s->types[abstract];
  for (uint32_t i = 0; i < t->npossible; i++)
    if (t->possible[i] == obj)
      return true;
  return false;
}

bool gql_schema_is_sub_type(const gql_schema *s, uint32_t abstract,
                            uint32_t maybe_sub) {
  const gql_type *t = &s->types[abstract];
  if (t->kind == GQL_TYPE_UNION)
    return gql_schema_is_possible_type(s, abstract, maybe_sub);
  if (t->kind != GQL_TYPE_INTERFACE)
    return false;
  if (gql_schema_is_possible_type(s, abstract, maybe_sub))
    return true;
  for (uint32_t i = 0; i < t->nimplementing_interfaces; i++)
    if (t->implementing_interfaces[i] == maybe_sub)
      return true;
  return false;
}

bool gql_schema_is_type_sub_type_of(const gql_schema *s, gql_type_ref sub,
                                    gql_type_ref super) {
  for (;;) {
    if (gql_type_ref_equal(sub, super))
      return true;
    if (gql_type_ref_is_non_null(super)) {
      if (!gql_type_ref_is_non_null(sub))
        return false;
      sub = gql_type_ref_unwrap(sub);
      super = gql_type_ref_unwrap(super);
      continue;
    }
    if (gql_type_ref_is_non_null(sub)) {
      sub = gql_type_ref_unwrap(sub);
      continue;
    }
    if (gql_type_ref_is_list(super)) {
      if (!gql_type_ref_is_list(sub))
        return false;
      sub = gql_type_ref_unwrap(sub);
      super = gql_type_ref_unwrap(super);
      continue;
    }
    if (gql_type_ref_is_list(sub))
      return false;
    return gql_schema_is_abstract(s, super.type) &&
           (kind_of(s, sub.type) == GQL_TYPE_INTERFACE ||
            kind_of(s, sub.type) == GQL_TYPE_OBJECT) &&
           gql_schema_is_sub_type(s, super.type, sub.type);
  }
}

bool gql_schema_do_types_overlap(const gql_schema *s, uint32_t a, uint32_t b) {
  if (a == b)
    return true;
  if (gql_schema_is_abstract(s, a)) {
    if (gql_schema_is_abstract(s, b)) {
      const gql_type *ta = &s->types[a];
      for (uint32_t i = 0; i < ta->npossible; i++)
        if (gql_schema_is_sub_type(s, b, ta->possible[i]))
          return true;
      return false;
    }
    return gql_schema_is_sub_type(s, a, b);
  }
  if (gql_schema_is_abstract(s, b))
    return gql_schema_is_sub_type(s, b, a);
  return false;
}

gql_str gql_schema_source_of(const gql_schema *s, const char *ptr) {
  for (uint32_t i = 0; i < s->nsources; i++) {
    gql_str t = s->sources[i].text;
    if (ptr >= t.ptr && ptr <= t.ptr + t.len)
      return t;
  }
  return (gql_str){NULL, 0};
}
