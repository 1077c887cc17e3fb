/*
 * The validation context's document helpers (graphql-js ValidationContext):
 * fragments by name, fragment spreads of a selection set, the fragments an
 * operation uses transitively and variable usages, each computed once per
 * node and cached; and error reporting.
 */
#include "internal.h"

#include <stdio.h>

/* ---- pointer map */

static uint32_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

void *gql_ptrmap_get(const gql_ptrmap *m, const void *key) {
  if (!m->cap)
    return NULL;
  for (uint32_t i = ptr_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->keys[i] == key)
      return m->values[i];
    if (!m->keys[i])
      return NULL;
  }
}

static void put_slot(const void **keys, void **values, uint32_t cap,
                     const void *key, void *value) {
  uint32_t i = ptr_hash(key) & (cap - 1);
  while (keys[i] && keys[i] != key)
    i = (i + 1) & (cap - 1);
  keys[i] = key;
  values[i] = value;
}

bool gql_ptrmap_put(gql_ptrmap *m, gql_arena *arena, const void *key,
                    void *value) {
  if ((m->count + 1) * 2 > m->cap) {
    uint32_t cap = m->cap ? m->cap * 2 : 16;
    const void **keys = gql_arena_alloc(arena, cap * sizeof *keys);
    void **values = gql_arena_alloc(arena, cap * sizeof *values);
    if (!keys || !values)
      return false;
    memset(keys, 0, cap * sizeof *keys);
    for (uint32_t i = 0; i < m->cap; i++)
      if (m->keys[i])
        put_slot(keys, values, cap, m->keys[i], m->values[i]);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
  }
  m->count++;
  put_slot(m->keys, m->values, m->cap, key, value);
  return true;
}

/* ---- name map */

static uint32_t *name_slot(const gql_namemap *m, gql_str key, bool *found) {
  uint32_t mask = m->cap - 1;
  for (uint32_t i = (uint32_t)gql_hash(key.ptr, key.len, m->seed) & mask;;
       i = (i + 1) & mask) {
    if (!m->keys[i].ptr) {
      *found = false;
      return &m->values[i];
    }
    if (gql_str_eq(m->keys[i], key)) {
      *found = true;
      return &m->values[i];
    }
  }
}

/* Empty names get a non-NULL pointer so that a slot's key is never NULL. */
static gql_str key_of(gql_str key) {
  return key.ptr ? key : (gql_str){"", 0};
}

bool gql_namemap_get(const gql_namemap *m, gql_str key, uint32_t *value) {
  if (!m->cap)
    return false;
  key = key_of(key);
  bool found;
  uint32_t *v = name_slot(m, key, &found);
  if (found)
    *value = *v;
  return found;
}

static bool namemap_grow(gql_namemap *m, gql_arena *arena) {
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  gql_namemap n = {gql_arena_alloc(arena, cap * sizeof *n.keys),
                   gql_arena_alloc(arena, cap * sizeof *n.values), cap, 0,
                   m->cap ? m->seed : gql_hash_seed()};
  if (!n.keys || !n.values)
    return false;
  memset(n.keys, 0, cap * sizeof *n.keys);
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->keys[i].ptr)
      continue;
    bool found;
    uint32_t *v = name_slot(&n, m->keys[i], &found);
    n.keys[v - n.values] = m->keys[i];
    *v = m->values[i];
    n.count++;
  }
  *m = n;
  return true;
}

static int namemap_put(gql_namemap *m, gql_arena *arena, gql_str key,
                       uint32_t value, bool overwrite) {
  key = key_of(key);
  if ((m->count + 1) * 2 > m->cap && !namemap_grow(m, arena))
    return -1;
  bool found;
  uint32_t *v = name_slot(m, key, &found);
  if (found && !overwrite)
    return 0;
  if (!found) {
    m->keys[v - m->values] = key;
    m->count++;
  }
  *v = value;
  return found ? 0 : 1;
}

int gql_namemap_put(gql_namemap *m, gql_arena *arena, gql_str key,
                    uint32_t value) {
  return namemap_put(m, arena, key, value, false);
}

bool gql_namemap_set(gql_namemap *m, gql_arena *arena, gql_str key,
                     uint32_t value) {
  return namemap_put(m, arena, key, value, true) >= 0;
}

/* ---- reporting */

static void nomem(gql_vctx *ctx) {
  ctx->errors->nomem = true;
}

/* UTF-16 code units of s[0..n) (continuation bytes count nothing, 4-byte
 * sequences two), as gql_location_of counts columns. */
static uint32_t utf16_units(const char *s, size_t n) {
  uint32_t u = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) != 0x80)
      u += c >= 0xF0 ? 2 : 1;
  }
  return u;
}

static bool line_end(const char *src, size_t len, size_t i) {
  return src[i] == '\n' ||
         (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'));
}

/* Builds the line and block tables; false when out of memory. Lines end
 * at "\r\n", "\n" or "\r", as in gql_location_of. */
static bool build_lines(gql_vctx *ctx) {
  struct gql_vctx_impl *impl = ctx->impl;
  const char *src = ctx->source.ptr;
  size_t len = ctx->source.len;
  uint32_t n = 1;
  for (size_t i = 0; i < len; i++)
    n += line_end(src, len, i);
  size_t nblocks = len / 64 + 1;
  impl->line_starts = gql_arena_alloc(ctx->arena, n * sizeof(uint32_t));
  impl->block_units = gql_arena_alloc(ctx->arena, nblocks * sizeof(uint32_t));
  if (!impl->line_starts || !impl->block_units)
    return false;
  impl->line_starts[0] = 0;
  n = 1;
  for (size_t i = 0; i < len; i++)
    if (line_end(src, len, i))
      impl->line_starts[n++] = (uint32_t)(i + 1);
  impl->nlines = n;
  uint32_t units = 0;
  for (size_t b = 0; b < nblocks; b++) {
    impl->block_units[b] = units;
    size_t end = (b + 1) * 64 < len ? (b + 1) * 64 : len;
    if (b * 64 < end)
      units += utf16_units(src + b * 64, end - b * 64);
  }
  impl->lines_built = true;
  return true;
}

static uint32_t units_before(const gql_vctx *ctx, uint32_t offset) {
  uint32_t b = offset / 64;
  return ctx->impl->block_units[b] +
         utf16_units(ctx->source.ptr + (size_t)b * 64, offset - b * 64);
}

/* gql_location_of in O(log lines + 64), for documents with many errors. */
static gql_location locate(gql_vctx *ctx, uint32_t offset) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (offset > ctx->source.len)
    offset = (uint32_t)ctx->source.len;
  if (!impl->lines_built && !build_lines(ctx))
    return gql_location_of(ctx->source.ptr, ctx->source.len, offset);
  uint32_t lo = 0, hi = impl->nlines; /* the last line start <= offset */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (impl->line_starts[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  uint32_t start = impl->line_starts[lo];
  return (gql_location){lo + 1, units_before(ctx, offset) -
                                    units_before(ctx, start) + 1};
}

void gql_vctx_report(gql_vctx *ctx, const uint32_t *offsets, uint32_t n,
                     const char *fmt, ...) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (impl->aborted || ctx->errors->nomem)
    return;
  if (impl->reported >= impl->max_errors) {
    gql_error_list_push(ctx->errors,
                        "Too many validation errors, error limit reached. "
                        "Validation aborted.",
                        NULL, 0);
    impl->aborted = true;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  char *msg = gql_arena_vsprintf(ctx->errors->arena, fmt, ap);
  va_end(ap);
  if (!msg) {
    nomem(ctx);
    return;
  }
  gql_location small[4];
  gql_location *locs = small;
  if (n > GQL_ARRAY_LEN(small)) {
    locs = gql_arena_alloc(ctx->arena, (size_t)n * sizeof *locs);
    if (!locs) {
      nomem(ctx);
      return;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    locs[i] = locate(ctx, offsets[i]);
  int rc = gql_error_list_push(ctx->errors, msg, locs, n);
  if (rc == 0)
    impl->reported++;
  else if (rc == GQL_ELIMIT) /* the caller's list is full: nothing to add */
    impl->aborted = true;
}

/* ---- fragments */

/* Indexes the document's own directive definitions by name, once. */
static const gql_namemap *directive_defs(gql_vctx *ctx) {
  struct gql_vctx_impl *impl = ctx->impl;
  const gql_document *doc = ctx->doc;
  if (!impl->directive_defs_built) {
    impl->directive_defs_built = true;
    for (uint32_t i = 0; i < doc->definitions.count; i++) {
      const gql_ast_node *d = doc->definitions.items[i];
      if (d->kind == GQL_AST_DIRECTIVE_DEFINITION &&
          !gql_namemap_set(
              &impl->directive_defs, ctx->arena,
              gql_ast_name_str(((const gql_ast_directive_def *)d)->name), i))
        nomem(ctx);
    }
  }
  return &impl->directive_defs;
}

bool gql_vctx_defines_directives(gql_vctx *ctx) {
  return directive_defs(ctx)->count != 0;
}

const gql_ast_directive_def *gql_vctx_directive_def(gql_vctx *ctx,
                                                    gql_str name) {
  const gql_namemap *m = directive_defs(ctx);
  uint32_t i;
  if (!m->count || !gql_namemap_get(m, name, &i))
    return NULL;
  return (const gql_ast_directive_def *)ctx->doc->definitions.items[i];
}

/* Builds the fragments' index by name once; false without memory. */
static bool build_fragments(gql_vctx *ctx) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (impl->fragments_built)
    return true;
  impl->fragments_built = true;
  /* graphql-js keeps the last definition of a name: walk backwards and
   * keep the first one */
  uint32_t n = 0;
  for (uint32_t k = ctx->doc->definitions.count; k-- > 0;) {
    const gql_ast_node *d = ctx->doc->definitions.items[k];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    if (n < GQL_ARRAY_LEN(impl->few_fragments))
      impl->few_fragments[n] = k;
    n++;
  }
  impl->nfew_fragments = n;
  if (n <= GQL_ARRAY_LEN(impl->few_fragments))
    return true;
  impl->many_fragments = true;
  gql_strmap_init(&impl->fragments, impl->fragments_alc);
  for (uint32_t k = ctx->doc->definitions.count; k-- > 0;) {
    const gql_ast_node *d = ctx->doc->definitions.items[k];
    if (d->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    gql_str name = gql_ast_name_str(((const gql_ast_fragment *)d)->name);
    if (gql_strmap_put(&impl->fragments, name, k) < 0) {
      nomem(ctx);
      return false;
    }
  }
  return true;
}

/* The definition index of fragment `name` into *k; false when none. */
static bool fragment_index(gql_vctx *ctx, gql_str name, uint32_t *k) {
  const struct gql_vctx_impl *impl = ctx->impl;
  if (impl->many_fragments)
    return gql_strmap_get(&impl->fragments, name, k);
  /* the last definition first: the first match wins */
  for (uint32_t i = 0; i < impl->nfew_fragments; i++) {
    uint32_t d = impl->few_fragments[i];
    const gql_ast_fragment *f =
        (const gql_ast_fragment *)ctx->doc->definitions.items[d];
    if (gql_str_eq(gql_ast_name_str(f->name), name)) {
      *k = d;
      return true;
    }
  }
  return false;
}

const gql_ast_fragment *gql_vctx_fragment(gql_vctx *ctx, gql_str name) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (!build_fragments(ctx))
    return NULL;
  /* rules look the same spread's name up several times: remember the
   * fragments found by the name's pointer (a hit is checked by name) */
  struct gql_frag_memo *m = NULL;
  if (name.ptr) {
    uintptr_t h = (uintptr_t)name.ptr;
    m = &impl->frag_memo[(h ^ (h >> 5)) % GQL_ARRAY_LEN(impl->frag_memo)];
    if (m->ptr == name.ptr) {
      const gql_ast_fragment *f = m->def;
      if (gql_str_eq(gql_ast_name_str(f->name), name))
        return f;
    }
  }
  uint32_t i;
  if (!fragment_index(ctx, name, &i))
    return NULL;
  const gql_ast_fragment *f =
      (const gql_ast_fragment *)ctx->doc->definitions.items[i];
  if (m)
    *m = (struct gql_frag_memo){name.ptr, f};
  return f;
}

/* A growable array of pointers in the arena. */
typedef GQL_VECTOR(const void *) ptrvec;

static bool vec_push(gql_vctx *ctx, ptrvec *v, const void *p) {
  if (!gql_vector_push(ctx->arena, v, p)) {
    nomem(ctx);
    return false;
  }
  return true;
}

gql_spread_list gql_vctx_fragment_spreads(gql_vctx *ctx,
                                          const gql_ast_selection_set *set) {
  struct gql_vctx_impl *impl = ctx->impl;
  gql_spread_list *cached = gql_ptrmap_get(&impl->spreads, set);
  if (cached)
    return *cached;
  ptrvec spreads = {0}, stack = {0};
  if (!vec_push(ctx, &stack, set))
    return (gql_spread_list){0};
  while (stack.count) {
    const gql_ast_selection_set *s = stack.items[--stack.count];
    for (uint32_t i = 0; i < s->selections.count; i++) {
      const gql_ast_selection *sel = s->selections.items[i];
      if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
        if (!vec_push(ctx, &spreads, sel))
          return (gql_spread_list){0};
      } else if (sel->selection_set) {
        if (!vec_push(ctx, &stack, sel->selection_set))
          return (gql_spread_list){0};
      }
    }
  }
  gql_spread_list *l = gql_arena_alloc(ctx->arena, sizeof *l);
  if (!l) {
    nomem(ctx);
    return (gql_spread_list){0};
  }
  *l = (gql_spread_list){(const gql_ast_selection **)spreads.items,
                         spreads.count};
  if (!gql_ptrmap_put(&impl->spreads, ctx->arena, set, l))
    nomem(ctx);
  return *l;
}

static const gql_ast_selection_set *selection_set_of(const gql_ast_node *def) {
  if (def->kind == GQL_AST_OPERATION_DEFINITION)
    return ((const gql_ast_operation *)def)->selection_set;
  if (def->kind == GQL_AST_FRAGMENT_DEFINITION)
    return ((const gql_ast_fragment *)def)->selection_set;
  return NULL;
}

#define NO_FRAGMENT UINT32_MAX

/* The definition index of the fragment each spread of `set` names, computed
 * once per set so that walks over the fragment graph hash nothing. */
static const uint32_t *resolved_spreads(gql_vctx *ctx,
                                        const gql_ast_selection_set *set,
                                        gql_spread_list *spreads) {
  struct gql_vctx_impl *impl = ctx->impl;
  *spreads = gql_vctx_fragment_spreads(ctx, set);
  uint32_t *idx = gql_ptrmap_get(&impl->resolved, set);
  if (idx || !spreads->count)
    return idx;
  idx = gql_arena_alloc(ctx->arena, spreads->count * sizeof *idx);
  if (!idx) {
    nomem(ctx);
    return NULL;
  }
  if (!build_fragments(ctx))
    return NULL;
  for (uint32_t i = 0; i < spreads->count; i++) {
    gql_str name = gql_ast_name_str(spreads->items[i]->name);
    uint32_t k = NO_FRAGMENT;
    if (!fragment_index(ctx, name, &k))
      k = NO_FRAGMENT;
    idx[i] = k;
  }
  if (!gql_ptrmap_put(&impl->resolved, ctx->arena, set, idx))
    nomem(ctx);
  return idx;
}

/* Called with the definition index of each fragment reached. */
typedef void (*fragment_fn)(gql_vctx *ctx, void *arg, uint32_t k);

/* graphql-js getRecursivelyReferencedFragments' walk from `root`: each
 * fragment reached is passed to `fn` once per generation, in graphql-js's
 * order. A new generation starts when `fresh`. */
static bool walk_fragments(gql_vctx *ctx, const gql_ast_selection_set *root,
                           bool fresh, fragment_fn fn, void *arg) {
  struct gql_vctx_impl *impl = ctx->impl;
  uint32_t ndefs = ctx->doc->definitions.count;
  if (!impl->frag_defs_known) {
    impl->frag_defs_known = true;
    for (uint32_t i = 0; i < ndefs && !impl->has_frag_defs; i++)
      impl->has_frag_defs =
          ctx->doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION;
  }
  /* without fragment definitions every spread is unknown: nothing to reach */
  if (!impl->has_frag_defs)
    return true;
  if (!impl->stamps) {
    size_t n = ndefs + 1;
    impl->stamps = gql_arena_alloc(ctx->arena, n * sizeof *impl->stamps);
    impl->def_resolved = gql_arena_alloc(ctx->arena, n * sizeof(void *));
    impl->def_nspreads = gql_arena_alloc(ctx->arena, n * sizeof(uint32_t));
    impl->def_usages = gql_arena_alloc(ctx->arena, n * sizeof(void *));
    if (!impl->stamps || !impl->def_resolved || !impl->def_nspreads ||
        !impl->def_usages) {
      impl->stamps = NULL;
      nomem(ctx);
      return false;
    }
    memset(impl->stamps, 0, n * sizeof *impl->stamps);
    memset(impl->def_resolved, 0, n * sizeof(void *));
    memset(impl->def_nspreads, 0xff, n * sizeof(uint32_t));
    memset(impl->def_usages, 0, n * sizeof(void *));
  }
  if (fresh || !impl->generation)
    impl->generation++;
  uint32_t gen = impl->generation;
  uint32_t n = 0;
  const uint32_t *idx = NULL;
  uint32_t count = 0;
  if (root) {
    gql_spread_list spreads;
    idx = resolved_spreads(ctx, root, &spreads);
    count = spreads.count;
    if (count && !idx)
      return false;
  }
  for (;;) {
    for (uint32_t i = 0; i < count; i++) {
      uint32_t k = idx[i];
      if (k == NO_FRAGMENT || impl->stamps[k] == gen)
        continue;
      impl->stamps[k] = gen;
      if (fn)
        fn(ctx, arg, k);
      if (!GQL_ARRAY_RESERVE_FIRST(ctx->arena, impl->walk_stack, impl->walk_cap,
                                   n + 1, 64)) {
        nomem(ctx);
        return false;
      }
      impl->walk_stack[n++] = k;
    }
    if (!n)
      return true;
    uint32_t k = impl->walk_stack[--n];
    if (impl->def_nspreads[k] == UINT32_MAX) {
      const gql_ast_fragment *f =
          (const gql_ast_fragment *)ctx->doc->definitions.items[k];
      gql_spread_list spreads;
      const uint32_t *r = resolved_spreads(ctx, f->selection_set, &spreads);
      if (spreads.count && !r)
        return false;
      impl->def_resolved[k] = r;
      impl->def_nspreads[k] = spreads.count;
    }
    idx = impl->def_resolved[k];
    count = impl->def_nspreads[k];
  }
}

bool gql_vctx_mark_used_fragments(gql_vctx *ctx) {
  bool first = true;
  for (uint32_t i = 0; i < ctx->doc->definitions.count; i++) {
    const gql_ast_node *d = ctx->doc->definitions.items[i];
    if (d->kind != GQL_AST_OPERATION_DEFINITION)
      continue;
    if (!walk_fragments(ctx, selection_set_of(d), first, NULL, NULL))
      return false;
    first = false;
  }
  if (first && !walk_fragments(ctx, NULL, true, NULL, NULL))
    return false;
  return true;
}

bool gql_vctx_fragment_used(gql_vctx *ctx, gql_str name) {
  const struct gql_vctx_impl *impl = ctx->impl;
  uint32_t k;
  return gql_vctx_fragment(ctx, name) && impl->stamps &&
         fragment_index(ctx, name, &k) && impl->stamps[k] == impl->generation;
}

static void collect_fragment(gql_vctx *ctx, void *arg, uint32_t k) {
  ptrvec *v = arg;
  vec_push(ctx, v, ctx->doc->definitions.items[k]);
}

gql_fragment_list gql_vctx_recursive_fragments(gql_vctx *ctx,
                                               const gql_ast_node *def) {
  struct gql_vctx_impl *impl = ctx->impl;
  gql_fragment_list *cached = gql_ptrmap_get(&impl->rec_frags, def);
  if (cached)
    return *cached;
  ptrvec frags = {0};
  const gql_ast_selection_set *root = selection_set_of(def);
  if (!walk_fragments(ctx, root, true, collect_fragment, &frags) ||
      ctx->errors->nomem)
    return (gql_fragment_list){0};
  gql_fragment_list *l = gql_arena_alloc(ctx->arena, sizeof *l);
  if (!l) {
    nomem(ctx);
    return (gql_fragment_list){0};
  }
  *l = (gql_fragment_list){(const gql_ast_fragment **)frags.items, frags.count};
  if (!gql_ptrmap_put(&impl->rec_frags, ctx->arena, def, l))
    nomem(ctx);
  return *l;
}

/* ---- variable usages: a walk with a fresh TypeInfo, or the validation's
 * own walk (see gql_vctx_keep_usages) */

typedef struct usage_walker {
  gql_walker w;
  gql_vctx *ctx;
  gql_usage_vec v;
} usage_walker;

/* False for variable definitions and for nodes whose text has no '$' (every
 * child's span is inside its parent's): no usage lies in them, so the walk
 * leaves them out. */
static bool has_dollar(gql_walker *w, const gql_ast_node *node) {
  const gql_vctx *ctx = ((const usage_walker *)w)->ctx;
  if (node->kind == GQL_AST_VARIABLE_DEFINITION)
    return false; /* defines variables, does not use them */
  if (!ctx->source.ptr || node->end > ctx->source.len ||
      node->start >= node->end)
    return true;
  return memchr(ctx->source.ptr + node->start, '$', node->end - node->start);
}

bool gql_usage_push(gql_vctx *ctx, const gql_type_info *ti, gql_usage_vec *v,
                    const gql_ast_node *node) {
  if (!gql_vector_reserve(ctx->arena, v, v->count + 1)) {
    nomem(ctx);
    return false;
  }
  gql_variable_usage *use = &v->items[v->count++];
  *use = (gql_variable_usage){.node = (const gql_ast_value *)node};
  if (ti->ninput_types && ti->ninput_types <= ti->cinput_types) {
    gql_opt_type t = ti->input_types[ti->ninput_types - 1];
    use->has_type = t.has;
    use->type = t.ref;
  }
  if (ti->ndefaults && ti->ndefaults <= ti->cdefaults) {
    use->has_default = ti->defaults[ti->ndefaults - 1].has;
    use->default_value = ti->defaults[ti->ndefaults - 1].value;
  }
  if (ti->ninput_types >= 2 && ti->ninput_types <= ti->cinput_types) {
    gql_opt_type p = ti->input_types[ti->ninput_types - 2];
    use->parent_is_one_of =
        p.has && p.ref.type != GQL_NO_TYPE &&
        ti->schema->types[p.ref.type].kind == GQL_TYPE_INPUT_OBJECT &&
        ti->schema->types[p.ref.type].one_of;
  }
  return true;
}

static bool usage_enter(gql_walker *w, const gql_ast_node *node) {
  usage_walker *u = (usage_walker *)w;
  if (node->kind != GQL_AST_VARIABLE)
    return true;
  if (!gql_usage_push(u->ctx, w->ti, &u->v, node)) {
    w->stop = true;
    return false;
  }
  return true;
}

static void usage_leave(gql_walker *w, const gql_ast_node *node) {
  (void)w;
  (void)node;
}

/* True when the document can use no variable: its text (every name is a
 * slice of it) has no '$'. Checked once per validation. */
static bool no_variables(gql_vctx *ctx) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (!impl->dollar_known) {
    impl->dollar_known = true;
    impl->no_dollar = ctx->source.ptr && ctx->source.len &&
                      !memchr(ctx->source.ptr, '$', ctx->source.len);
  }
  return impl->no_dollar;
}

gql_variable_usages gql_vctx_variable_usages(gql_vctx *ctx,
                                             const gql_ast_node *node) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (no_variables(ctx))
    return (gql_variable_usages){0};
  gql_variable_usages *cached = gql_ptrmap_get(&impl->usages, node);
  if (cached)
    return *cached;
  gql_type_info ti;
  gql_type_info_init(&ti, ctx->schema, ctx->arena);
  usage_walker u = {.w = {.ti = &ti,
                          .enter = usage_enter,
                          .leave = usage_leave,
                          .visit = has_dollar},
                    .ctx = ctx};
  gql_walk(&u.w, node);
  if (ti.nomem)
    nomem(ctx);
  gql_variable_usages *l = gql_arena_alloc(ctx->arena, sizeof *l);
  if (!l) {
    nomem(ctx);
    return (gql_variable_usages){0};
  }
  *l = (gql_variable_usages){u.v.items, u.v.count};
  if (!gql_ptrmap_put(&impl->usages, ctx->arena, node, l))
    nomem(ctx);
  return *l;
}

bool gql_vctx_may_use_variables(gql_vctx *ctx) {
  return !no_variables(ctx);
}

const gql_ast_directive *gql_vfind_directive(const gql_ast_directives *ds,
                                             const char *name) {
  for (uint32_t i = 0; i < ds->count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(ds->items[i]->name), name))
      return ds->items[i];
  return NULL;
}

void gql_vsel_init(gql_vsel_walk *w, gql_arena *arena) {
  w->arena = arena;
  w->stack = w->first;
  w->n = 0;
  w->cap = (uint32_t)GQL_ARRAY_LEN(w->first);
  w->nomem = false;
}

void gql_vsel_push(gql_vsel_walk *w, const gql_ast_selection_set *set,
                   const gql_ast_selection *via) {
  if (!set || w->nomem)
    return;
  if (w->n == w->cap) {
    uint32_t cap = w->cap * 2;
    gql_vsel_frame *p = gql_arena_alloc(w->arena, cap * sizeof *p);
    if (!p) {
      w->nomem = true;
      return;
    }
    memcpy(p, w->stack, w->n * sizeof *p);
    w->stack = p;
    w->cap = cap;
  }
  w->stack[w->n++] = (gql_vsel_frame){set, via, 0};
}

const gql_ast_selection *gql_vsel_next(gql_vsel_walk *w) {
  while (w->n && !w->nomem) {
    gql_vsel_frame *top = &w->stack[w->n - 1];
    if (top->next < top->set->selections.count)
      return top->set->selections.items[top->next++];
    w->n--;
  }
  return NULL;
}

const gql_ast_argument *gql_vfind_argument(const gql_ast_directive *d,
                                           const char *name) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(d->args.items[i]->name), name))
      return d->args.items[i];
  return NULL;
}

void gql_vctx_keep_usages(gql_vctx *ctx, const gql_ast_node *def,
                          const gql_usage_vec *v) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (gql_ptrmap_get(&impl->usages, def))
    return; /* already computed by a walk of its own */
  gql_variable_usages *l = gql_arena_alloc(ctx->arena, sizeof *l);
  if (!l) {
    nomem(ctx);
    return;
  }
  *l = (gql_variable_usages){v->items, v->count};
  if (!gql_ptrmap_put(&impl->usages, ctx->arena, def, l))
    nomem(ctx);
}

typedef struct usage_sum {
  uint64_t total;
  gql_variable_usage *items; /* NULL while counting */
  uint32_t n;
} usage_sum;

static void add_usages(gql_vctx *ctx, void *arg, uint32_t k) {
  usage_sum *u = arg;
  struct gql_vctx_impl *impl = ctx->impl;
  if (!impl->def_usages[k]) {
    gql_vctx_variable_usages(ctx, ctx->doc->definitions.items[k]);
    impl->def_usages[k] =
        gql_ptrmap_get(&impl->usages, ctx->doc->definitions.items[k]);
    if (!impl->def_usages[k])
      return; /* out of memory, already recorded */
  }
  gql_variable_usages fu = *impl->def_usages[k];
  if (u->items && fu.count)
    memcpy(u->items + u->n, fu.items, fu.count * sizeof *fu.items);
  u->n += fu.count;
  u->total += fu.count;
}

/* Walks the fragment graph twice (count, then copy) rather than keeping the
 * operation's fragment list: many operations sharing a large fragment graph
 * then cost no memory beyond their usages. */
gql_variable_usages
gql_vctx_recursive_variable_usages(gql_vctx *ctx, const gql_ast_operation *op) {
  struct gql_vctx_impl *impl = ctx->impl;
  if (no_variables(ctx))
    return (gql_variable_usages){0};
  gql_variable_usages *cached = gql_ptrmap_get(&impl->rec_usages, op);
  if (cached)
    return *cached;
  gql_variable_usages own = gql_vctx_variable_usages(ctx, &op->h);
  usage_sum sum = {.total = own.count};
  if (!walk_fragments(ctx, op->selection_set, true, add_usages, &sum))
    return (gql_variable_usages){0};
  gql_variable_usages *l = gql_arena_alloc(ctx->arena, sizeof *l);
  if (!l || sum.total > UINT32_MAX) {
    nomem(ctx);
    return (gql_variable_usages){0};
  }
  *l = own;
  if (sum.total > own.count) {
    sum.items = gql_arena_alloc(ctx->arena, sum.total * sizeof *sum.items);
    if (!sum.items) {
      nomem(ctx);
      return (gql_variable_usages){0};
    }
    if (own.count)
      memcpy(sum.items, own.items, own.count * sizeof *sum.items);
    sum.n = own.count;
    if (!walk_fragments(ctx, op->selection_set, true, add_usages, &sum))
      return (gql_variable_usages){0};
    *l = (gql_variable_usages){sum.items, sum.n};
  }
  if (!gql_ptrmap_put(&impl->rec_usages, ctx->arena, op, l))
    nomem(ctx);
  return *l;
}
