/* Helpers of the value and argument rules: see values.h. */
#include "values.h"

#include "../schema/internal.h"

#include <stdio.h>

/* ---- interning */

struct gql_vintern_slot {
  const char *ptr;
  uint32_t len;
  uint32_t id; /* UINT32_MAX: empty */
  uint64_t hash;
};

void gql_vintern_init(gql_vintern *t, gql_arena *arena) {
  *t = (gql_vintern){.arena = arena, .seed = gql_hash_seed()};
}

static bool intern_grow(gql_vintern *t) {
  uint32_t cap = t->cap ? t->cap * 2 : 64;
  struct gql_vintern_slot *s = gql_arena_alloc(t->arena, cap * sizeof *s);
  if (!s)
    return false;
  for (uint32_t i = 0; i < cap; i++)
    s[i].id = UINT32_MAX;
  for (uint32_t i = 0; i < t->cap; i++) {
    if (t->slots[i].id == UINT32_MAX)
      continue;
    uint32_t j = (uint32_t)t->slots[i].hash & (cap - 1);
    while (s[j].id != UINT32_MAX)
      j = (j + 1) & (cap - 1);
    s[j] = t->slots[i];
  }
  t->slots = s;
  t->cap = cap;
  return true;
}

uint32_t gql_vintern_id(gql_vintern *t, gql_str str) {
  if ((t->count + 1) * 2 > t->cap && !intern_grow(t))
    return UINT32_MAX;
  uint64_t h = gql_hash(str.ptr, str.len, t->seed);
  uint32_t j = (uint32_t)h & (t->cap - 1);
  for (;;) {
    struct gql_vintern_slot *s = &t->slots[j];
    if (s->id == UINT32_MAX) {
      *s = (struct gql_vintern_slot){str.ptr, (uint32_t)str.len, t->count, h};
      return t->count++;
    }
    if (s->hash == h && s->len == str.len &&
        (str.len == 0 || memcmp(s->ptr, str.ptr, str.len) == 0))
      return s->id;
    j = (j + 1) & (t->cap - 1);
  }
}

/* ---- uint64 → pointer */

/* key + 1 is stored, so that 0 marks an empty slot */
struct gql_vmap_slot {
  uint64_t key1;
  void *value;
};

void gql_vmap_init(gql_vmap *m, gql_arena *arena) {
  *m = (gql_vmap){.arena = arena};
}

static uint32_t mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return (uint32_t)k;
}

bool gql_vmap_get(const gql_vmap *m, uint64_t key, void **out) {
  if (!m->cap)
    return false;
  uint64_t k1 = key + 1;
  uint32_t j = mix64(k1) & (m->cap - 1);
  while (m->slots[j].key1) {
    if (m->slots[j].key1 == k1) {
      *out = m->slots[j].value;
      return true;
    }
    j = (j + 1) & (m->cap - 1);
  }
  return false;
}

static bool vmap_grow(gql_vmap *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  struct gql_vmap_slot *s = gql_arena_alloc(m->arena, cap * sizeof *s);
  if (!s)
    return false;
  memset(s, 0, cap * sizeof *s);
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key1)
      continue;
    uint32_t j = mix64(m->slots[i].key1) & (cap - 1);
    while (s[j].key1)
      j = (j + 1) & (cap - 1);
    s[j] = m->slots[i];
  }
  m->slots = s;
  m->cap = cap;
  return true;
}

bool gql_vmap_put(gql_vmap *m, uint64_t key, void *value) {
  if (key == UINT64_MAX)
    return false; /* not representable */
  if ((m->count + 1) * 2 > m->cap && !vmap_grow(m))
    return false;
  uint64_t k1 = key + 1;
  uint32_t j = mix64(k1) & (m->cap - 1);
  while (m->slots[j].key1) {
    if (m->slots[j].key1 == k1) {
      m->slots[j].value = value;
      return true;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j] = (struct gql_vmap_slot){k1, value};
  m->count++;
  return true;
}

/* ---- duplicate names */

bool gql_vfirst_same(gql_arena *arena, const gql_str *names, uint32_t n,
                     uint32_t *first) {
  if (n <= 16) {
    for (uint32_t i = 0; i < n; i++) {
      first[i] = i;
      for (uint32_t j = 0; j < i; j++)
        if (gql_str_eq(names[j], names[i])) {
          first[i] = first[j];
          break;
        }
    }
    return true;
  }
  gql_vintern t;
  gql_vintern_init(&t, arena);
  uint32_t *by_id = gql_arena_alloc(arena, n * sizeof *by_id);
  if (!by_id)
    return false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = gql_vintern_id(&t, names[i]);
    if (id == UINT32_MAX)
      return false;
    first[i] = id; /* temporarily the id */
  }
  /* ids are assigned in first-occurrence order; map id → first index */
  for (uint32_t i = 0; i < n; i++)
    by_id[i] = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = first[i];
    if (by_id[id] == UINT32_MAX)
      by_id[id] = i;
    first[i] = by_id[id];
  }
  return true;
}

/* ---- printing (graphql-js print for values) */

static const char *buf_to_arena(gql_buf *b, gql_arena *arena) {
  const char *s = NULL;
  if (!b->failed)
    s = gql_arena_strndup(arena, b->data ? b->data : "", b->len);
  gql_buf_free(b);
  return s;
}

const char *gql_vprint_value(gql_arena *arena, const gql_ast_value *v) {
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(arena);
  gql_buf_init(&b, &b_alc);
  gql_print_value(&b, v);
  return buf_to_arena(&b, arena);
}

static void print_sorted(gql_buf *out, const gql_ast_value *v,
                         gql_arena *arena) {
  if (v->h.kind == GQL_AST_LIST_VALUE) {
    gql_buf_putc(out, '[');
    for (uint32_t i = 0; i < v->u.list.count; i++) {
      if (i)
        gql_buf_puts(out, ", ");
      print_sorted(out, v->u.list.items[i], arena);
    }
    gql_buf_putc(out, ']');
    return;
  }
  if (v->h.kind != GQL_AST_OBJECT_VALUE) {
    gql_print_value(out, v);
    return;
  }
  uint32_t n = v->u.fields.count;
  const gql_ast_argument **f = gql_arena_alloc(arena, (n ? n : 1) * sizeof *f);
  if (!f) {
    out->failed = true;
    return;
  }
  /* stable merge-free insertion sort is quadratic; use a bottom-up merge
   * sort through a scratch array for large objects */
  for (uint32_t i = 0; i < n; i++)
    f[i] = v->u.fields.items[i];
  const gql_ast_argument **tmp =
      gql_arena_alloc(arena, (n ? n : 1) * sizeof *tmp);
  if (!tmp) {
    out->failed = true;
    return;
  }
  for (uint32_t w = 1; w < n; w *= 2) {
    for (uint32_t lo = 0; lo < n; lo += 2 * w) {
      uint32_t mid = lo + w < n ? lo + w : n;
      uint32_t hi = lo + 2 * w < n ? lo + 2 * w : n;
      uint32_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) {
        if (gql_natural_compare(gql_ast_name_str(f[b]->name),
                                gql_ast_name_str(f[a]->name)) < 0)
          tmp[k++] = f[b++];
        else
          tmp[k++] = f[a++];
      }
      while (a < mid)
        tmp[k++] = f[a++];
      while (b < hi)
        tmp[k++] = f[b++];
    }
    memcpy(f, tmp, n * sizeof *f);
  }
  gql_buf_putc(out, '{');
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      gql_buf_puts(out, ", ");
    gql_buf_put_str(out, gql_ast_name_str(f[i]->name));
    gql_buf_puts(out, ": ");
    print_sorted(out, f[i]->value, arena);
  }
  gql_buf_putc(out, '}');
}

const char *gql_vprint_sorted_value(gql_arena *arena, const gql_ast_value *v) {
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(arena);
  gql_buf_init(&b, &b_alc);
  print_sorted(&b, v, arena);
  return buf_to_arena(&b, arena);
}

const char *gql_vtype_str(const gql_schema *s, gql_type_ref t,
                          gql_arena *arena) {
  const char *r = gql_type_ref_str(s, t, arena);
  return r ? r : "?";
}

/* ---- leaf literals */

/* True when the Int literal `raw` is within 32 bits (graphql-js compares
 * parseInt(raw) with the bounds). */
static bool int_in_range(gql_str raw) {
  size_t i = 0;
  bool neg = false;
  if (i < raw.len && raw.ptr[i] == '-') {
    neg = true;
    i++;
  }
  while (i < raw.len && raw.ptr[i] == '0' && i + 1 < raw.len)
    i++;
  if (raw.len - i > 10)
    return false;
  int64_t v = 0;
  for (; i < raw.len; i++)
    v = v * 10 + (raw.ptr[i] - '0');
  if (neg)
    v = -v;
  return v >= INT32_MIN && v <= INT32_MAX;
}

static const char *fail(gql_arena *arena, const char **message, const char *fmt,
                        const char *a, const char *b) {
  *message = gql_arena_sprintf(arena, fmt, a, b);
  return NULL;
}

static bool enum_ok(const gql_schema *s, const gql_type *t,
                    const gql_ast_value *v, gql_arena *arena,
                    const char **message) {
  if (v->h.kind == GQL_AST_ENUM_VALUE && gql_type_enum_value(t, v->u.raw))
    return true;
  const char *printed = gql_vprint_value(arena, v);
  if (!printed)
    return false;
  gql_str *names = gql_arena_alloc(arena, (t->nvalues + 1) * sizeof *names);
  gql_str *sugg = gql_arena_alloc(arena, (t->nvalues + 1) * sizeof *sugg);
  if (!names || !sugg)
    return false;
  for (uint32_t i = 0; i < t->nvalues; i++)
    names[i] = t->values[i].name;
  uint32_t n = gql_suggestion_list(gql_cstr(printed), names, t->nvalues, sugg,
                                   t->nvalues, arena);
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(arena);
  gql_buf_init(&b, &b_alc);
  if (v->h.kind != GQL_AST_ENUM_VALUE)
    gql_buf_printf(&b, "Enum \"%s\" cannot represent non-enum value: %s.",
                   t->name.ptr, printed);
  else
    gql_buf_printf(&b, "Value \"%s\" does not exist in \"%s\" enum.", printed,
                   t->name.ptr);
  gql_did_you_mean(&b, "the enum value", sugg, n);
  *message = buf_to_arena(&b, arena);
  return false;
}

bool gql_vleaf_literal_ok(const gql_schema *s, uint32_t type,
                          const gql_ast_value *v, gql_arena *arena,
                          const char **message) {
  const gql_type *t = gql_schema_type_at(s, type);
  *message = NULL;
  if (t->kind == GQL_TYPE_ENUM)
    return enum_ok(s, t, v, arena, message);
  if (t->kind != GQL_TYPE_SCALAR)
    return false;
  int k = v->h.kind;
  if (type == s->t_int) {
    if (k != GQL_AST_INT_VALUE) {
      fail(arena, message, "Int cannot represent non-integer value: %s%s",
           gql_vprint_value(arena, v), "");
      return false;
    }
    if (!int_in_range(v->u.raw)) {
      const char *raw = gql_arena_strndup(arena, v->u.raw.ptr, v->u.raw.len);
      fail(arena, message,
           "Int cannot represent non 32-bit signed integer value: %s%s", raw,
           "");
      return false;
    }
    return true;
  }
  if (type == s->t_float) {
    /* graphql-js 16 parseFloat()s any Int or Float literal; an overflow to
     * Infinity is not rejected there, so it is not rejected here. */
    if (k == GQL_AST_INT_VALUE || k == GQL_AST_FLOAT_VALUE)
      return true;
    fail(arena, message, "Float cannot represent non numeric value: %s%s",
         gql_vprint_value(arena, v), "");
    return false;
  }
  if (type == s->t_string) {
    if (k == GQL_AST_STRING_VALUE)
      return true;
    fail(arena, message, "String cannot represent a non string value: %s%s",
         gql_vprint_value(arena, v), "");
    return false;
  }
  if (type == s->t_boolean) {
    if (k == GQL_AST_BOOLEAN_VALUE)
      return true;
    fail(arena, message, "Boolean cannot represent a non boolean value: %s%s",
         gql_vprint_value(arena, v), "");
    return false;
  }
  if (type == s->t_id) {
    if (k == GQL_AST_STRING_VALUE || k == GQL_AST_INT_VALUE)
      return true;
    fail(arena, message,
         "ID cannot represent a non-string and non-integer value: %s%s",
         gql_vprint_value(arena, v), "");
    return false;
  }
  return true; /* custom scalar: valueFromASTUntyped never throws */
}
