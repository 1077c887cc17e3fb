/*
 * OverlappingFieldsCanBeMergedRule, ported from graphql-js 16.11: fields of
 * one selection set (fragments and inline fragments included) that share a
 * response name must be mergeable. The algorithm, its order of comparisons,
 * its memos (the fragment PairSet and the OrderedPairSet of field maps and
 * fragments) and the per-selection-set cache are graphql-js 16.11's, so
 * that the same conflicts come out in the same order with the same nested
 * reasons and locations. From graphql-js 17 it takes @stream: two fields of
 * one response name conflict when either streams, exclusive parents or not.
 *
 * Where graphql-js compares every pair of fields with the same response
 * name, or every pair of fragments spread together, the comparisons that
 * cannot have a side effect are shortened without changing what is
 * reported (tests check this against the every-pair version,
 * gql_rule_OverlappingFieldsCanBeMergedNaive, on random documents):
 *  - a "leaf" field (no selection set) compared with anything never
 *    recurses, so its result depends only on the two fields' parent types,
 *    names, arguments and definitions: leaf fields get classes by (parent
 *    type, name, canonical arguments). Fields with a selection set holding
 *    no fragment spread and no __schema / __type get classes by parent type
 *    and whole subtree. Results are memoized per class pair, and a row of
 *    comparisons whose class cannot conflict with any class on the other
 *    side is skipped whole: 5,000 copies of one field cost linear time
 *    instead of 12.5 million comparisons.
 *  - field maps whose fields all have classes compare by signature; look-
 *    alike fragments without spreads spread together form a clique in the
 *    pair set rather than n^2 pairs, and a map is not walked through
 *    fragments whose maps all have signatures compatible with its own
 *    (fragment chains stay linear).
 *  - a field map without fields (a selection set of spreads only) is not
 *    compared with fragments at all: it has nothing to conflict with.
 *  - a visited selection set without spreads and with distinct response
 *    names has nothing to compare and builds no field map.
 *  - response names are interned once and field maps have a hash index, so
 *    maps with thousands of response names are joined in linear time;
 *    arguments are compared through a canonical string made once per field.
 *  - once enough conflicts are collected to reach the error limit, the
 *    selection set stops (validation aborts there anyway).
 * Limits keep hostile documents bounded (see find_conflict and
 * push_conflict): past them the rule reports that it stopped.
 */
#include "internal.h"
#include "values.h"

#include <stdlib.h>

/* ---- field maps (graphql-js NodeAndDefCollection + fragment names) */

#define NO_CLASS UINT32_MAX /* compared one by one */
#define CLS_UNSET (UINT32_MAX - 1)

typedef struct nd {
  uint32_t parent; /* GQL_NO_TYPE when unknown */
  const gql_ast_selection *node;
  const gql_field *def;
  uint32_t cls; /* class id, NO_CLASS or CLS_UNSET */
} nd;

typedef struct group {
  uint32_t name_id;
  gql_str name;
  nd *items;
  uint32_t n, cap;
} group;

typedef struct fmap {
  group *groups;
  uint32_t ngroups, cgroups;
  uint32_t *index; /* open addressing on name_id: group index + 1; NULL
                    * for small maps (searched linearly) */
  uint32_t index_cap;
  uint32_t *frags; /* fragment name ids, first-seen order, unique */
  uint32_t nfrags;
  uint32_t id;  /* for the fields-and-fragment pair set */
  uint32_t sig; /* signature (see map_sig), once sig_done */
  bool sig_done;
} fmap;

/* ---- conflicts */

typedef struct reason {
  gql_str name;
  const char *msg; /* a leaf reason, or NULL with subs */
  struct reason *subs;
  uint32_t nsubs;
} reason;

typedef struct nlist {
  const gql_ast_selection **items;
  uint32_t n;
} nlist;

typedef struct conflict {
  reason r;
  nlist f1, f2;
} conflict;

typedef struct clist {
  conflict *items;
  uint32_t n, cap;
} clist;

/* What the rule knows about a fragment name. A fragment is "simple" when
 * it spreads no fragment and all its fields have classes: comparing it
 * with another simple fragment then depends only on their signatures (the
 * response names and classes of their fields) and touches nothing else. */
#define NO_SIG UINT32_MAX

typedef struct finfo {
  bool looked_up, sig_done;
  const gql_ast_fragment *def;
  uint32_t sig; /* NO_SIG when not simple */
  /* The signatures of the field maps of this fragment and of every fragment
   * it spreads at its top level, transitively (the walk of (E)): state 0
   * not made, 1 being made, 2 made, 3 unknown (a cycle, a field without
   * class, or more than MAX_CLOSURE signatures). */
  uint8_t clo_state, nclo;
  uint32_t clo[8];   /* MAX_CLOSURE */
  uint32_t *cliques; /* ids of the cliques it belongs to */
  uint32_t ncliques, ccliques;
} finfo;

typedef struct state {
  gql_vctx *ctx;
  bool ready, failed;
  bool naive;   /* compare every pair, as graphql-js (for tests) */
  bool cyclic;  /* the fragments spread each other in a cycle */
  bool limited; /* failed because of a limit, not out of memory */
  uint64_t nconflicts;
  uint32_t depth;     /* nesting of field comparisons */
  uint64_t steps;     /* field comparisons, counted in cyclic documents */
  bool stop;          /* enough conflicts for the error limit */
  clist *top;         /* the top-level list being filled */
  uint32_t budget;    /* conflicts the top-level list may usefully hold */
  gql_vintern names;  /* response names, field names, fragment names */
  gql_str *name_strs; /* id → string */
  uint32_t name_cap;
  gql_vintern classes; /* leaf class keys */
  gql_vmap cache;      /* selection set → fmap* */
  gql_vmap pairs;      /* fragment pair → 1 + mutually exclusive */
  gql_vmap fm_pairs;   /* (field map id, fragment) → 1 + mutually exclusive
                        * (graphql-js comparedFieldsAndFragmentPairs) */
  uint32_t nmaps;
  gql_vmap memo[2];    /* by exclusivity: class pair → reason text */
  gql_vmap args;       /* field node → canonical arguments (or NULL) */
  struct finfo *finfo; /* per name id, for fragment names */
  uint32_t finfo_cap;
  gql_vintern sigs; /* signatures of simple fragments */
  fmap **sig_rep;   /* per signature: the map of one such fragment */
  uint32_t sig_cap;
  gql_vmap compat[2]; /* by exclusivity: signature pair → 1 + compatible */
  gql_vmap members;   /* clique id << 32 | fragment id → present */
  uint32_t ncliques;
} state;

static const char NO_CONFLICT[] = "";
static const char HAS_CONFLICT[] = "";

/* ---- small helpers */

/* Room for `need` items in one of the rule's arrays (first room 4); false,
 * with the rule marked failed, when out of memory. */
#define RESERVE(st, items, cap, need)                                          \
  (GQL_ARRAY_RESERVE_FIRST((st)->ctx->arena, items, cap, need, 4) ||           \
   ((st)->failed = true, false))

static uint32_t name_id(state *st, gql_str s) {
  uint32_t id = gql_vintern_id(&st->names, s);
  if (id == UINT32_MAX) {
    st->failed = true;
    return id;
  }
  if (!RESERVE(st, st->name_strs, st->name_cap, id + 1))
    return UINT32_MAX;
  st->name_strs[id] = s;
  return id;
}

static gql_str response_name(const gql_ast_selection *f) {
  return gql_ast_name_str(f->alias.ptr ? f->alias : f->name);
}

static bool is_object(const gql_schema *s, uint32_t t) {
  return t != GQL_NO_TYPE && gql_schema_type_at(s, t)->kind == GQL_TYPE_OBJECT;
}

static uint32_t type_from_ast(const gql_schema *s, const gql_ast_type *t) {
  if (!t || t->h.kind != GQL_AST_NAMED_TYPE)
    return GQL_NO_TYPE;
  return gql_schema_type_index(s, gql_ast_name_str(t->name));
}

/* ---- collecting fields and fragment names */

static uint32_t index_slot(uint32_t id, uint32_t mask) {
  return (id * 2654435761u) & mask;
}

static group *find_group(const fmap *m, uint32_t id) {
  if (!m->index) {
    for (uint32_t i = 0; i < m->ngroups; i++)
      if (m->groups[i].name_id == id)
        return &m->groups[i];
    return NULL;
  }
  uint32_t mask = m->index_cap - 1;
  for (uint32_t j = index_slot(id, mask); m->index[j]; j = (j + 1) & mask)
    if (m->groups[m->index[j] - 1].name_id == id)
      return &m->groups[m->index[j] - 1];
  return NULL;
}

/* Fields and spreads of a selection set, inline fragments included. */
static void count_selections(const gql_ast_selection_set *set, uint32_t *nf,
                             uint32_t *ns) {
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    if (sel->h.kind == GQL_AST_FIELD)
      (*nf)++;
    else if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD)
      (*ns)++;
    else if (sel->selection_set)
      count_selections(sel->selection_set, nf, ns);
  }
}

/* The walk of graphql-js _collectFieldsAndFragmentNames, in two passes
 * over the same order: the first (place == NULL) numbers the response
 * names into groups and the fragment names, the second puts each field in
 * its group's slice. */
typedef struct collector {
  state *st;
  fmap *m;
  uint32_t *gids; /* per field, in walk order */
  uint32_t nfields;
  uint32_t *fill; /* per group: fields placed so far (second pass) */
  bool place;
  gql_vmap *seen; /* fragment ids already listed, when there are many */
} collector;

static uint32_t group_of(collector *c, const gql_ast_selection *sel) {
  fmap *m = c->m;
  uint32_t id = name_id(c->st, response_name(sel));
  if (id == UINT32_MAX)
    return UINT32_MAX;
  group *g = find_group(m, id);
  if (g)
    return (uint32_t)(g - m->groups);
  uint32_t gi = m->ngroups++;
  m->groups[gi] = (group){id, response_name(sel), NULL, 0, 0};
  if (m->index) {
    uint32_t mask = m->index_cap - 1;
    uint32_t j = index_slot(id, mask);
    while (m->index[j])
      j = (j + 1) & mask;
    m->index[j] = gi + 1;
  }
  return gi;
}

static void add_fragment(collector *c, gql_str name) {
  fmap *m = c->m;
  uint32_t id = name_id(c->st, name);
  if (id == UINT32_MAX)
    return;
  if (c->seen) {
    void *v;
    if (gql_vmap_get(c->seen, id, &v))
      return;
    if (!gql_vmap_put(c->seen, id, NULL)) {
      c->st->failed = true;
      return;
    }
  } else {
    /* few spreads: a linear check is cheapest */
    for (uint32_t i = 0; i < m->nfrags; i++)
      if (m->frags[i] == id)
        return;
  }
  m->frags[m->nfrags++] = id;
}

static void collect(collector *c, uint32_t parent,
                    const gql_ast_selection_set *set) {
  const gql_schema *s = c->st->ctx->schema;
  for (uint32_t i = 0; i < set->selections.count && !c->st->failed; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    if (sel->h.kind == GQL_AST_FIELD) {
      uint32_t k = c->nfields++;
      if (!c->place) {
        c->gids[k] = group_of(c, sel);
        continue;
      }
      const gql_field *def = NULL;
      if (parent != GQL_NO_TYPE) {
        const gql_type *pt = gql_schema_type_at(s, parent);
        if (pt->kind == GQL_TYPE_OBJECT || pt->kind == GQL_TYPE_INTERFACE)
          def = gql_type_field(pt, gql_ast_name_str(sel->name));
      }
      group *g = &c->m->groups[c->gids[k]];
      g->items[c->fill[c->gids[k]]++] = (nd){parent, sel, def, CLS_UNSET};
    } else if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      if (!c->place)
        add_fragment(c, gql_ast_name_str(sel->name));
    } else if (sel->selection_set) {
      uint32_t t =
          sel->type_condition ? type_from_ast(s, sel->type_condition) : parent;
      collect(c, t, sel->selection_set);
    }
  }
}

/* graphql-js getFieldsAndFragmentNames: cached per selection set (the
 * parent type of the first request wins, as in graphql-js). */
static fmap *fields_of(state *st, uint32_t parent,
                       const gql_ast_selection_set *set) {
  void *v;
  if (gql_vmap_get(&st->cache, (uint64_t)(uintptr_t)set, &v))
    return v;
  gql_arena *a = st->ctx->arena;
  uint32_t nf = 0, ns = 0;
  count_selections(set, &nf, &ns);
  fmap *m = gql_arena_alloc(a, sizeof *m);
  uint32_t *gids = gql_arena_alloc(a, (nf + 1) * sizeof *gids);
  if (!m || !gids) {
    st->failed = true;
    return NULL;
  }
  *m = (fmap){0};
  m->id = st->nmaps++;
  m->groups = gql_arena_alloc(a, (nf + 1) * sizeof *m->groups);
  m->frags = gql_arena_alloc(a, (ns + 1) * sizeof *m->frags);
  if (nf > 8) {
    m->index_cap = 16;
    while (m->index_cap < 2 * nf)
      m->index_cap *= 2;
    m->index = gql_arena_alloc(a, m->index_cap * sizeof *m->index);
    if (m->index)
      memset(m->index, 0, m->index_cap * sizeof *m->index);
  }
  if (!m->groups || !m->frags || (nf > 8 && !m->index)) {
    st->failed = true;
    return NULL;
  }
  gql_vmap seen;
  gql_vmap_init(&seen, a);
  collector c = {st, m, gids, 0, NULL, false, ns > 16 ? &seen : NULL};
  collect(&c, parent, set);
  if (st->failed)
    return NULL;
  /* slices of one array, by group */
  nd *items = gql_arena_alloc(a, (nf + 1) * sizeof *items);
  c.fill = gql_arena_alloc(a, (m->ngroups + 1) * sizeof *c.fill);
  if (!items || !c.fill) {
    st->failed = true;
    return NULL;
  }
  for (uint32_t i = 0; i < nf; i++)
    m->groups[gids[i]].n++;
  uint32_t off = 0;
  for (uint32_t g = 0; g < m->ngroups; g++) {
    m->groups[g].items = items + off;
    m->groups[g].cap = m->groups[g].n;
    off += m->groups[g].n;
    c.fill[g] = 0;
  }
  c.place = true;
  c.nfields = 0;
  collect(&c, parent, set);
  if (!gql_vmap_put(&st->cache, (uint64_t)(uintptr_t)set, m))
    st->failed = true;
  return m;
}

static fmap *fragment_fields(state *st, const gql_ast_fragment *frag) {
  void *v;
  if (gql_vmap_get(&st->cache, (uint64_t)(uintptr_t)frag->selection_set, &v))
    return v;
  return fields_of(st, type_from_ast(st->ctx->schema, frag->type_condition),
                   frag->selection_set);
}

static finfo *frag_info(state *st, uint32_t id) {
  if (id >= st->finfo_cap) {
    uint32_t old = st->finfo_cap;
    if (!RESERVE(st, st->finfo, st->finfo_cap, id + 1))
      return NULL;
    memset(st->finfo + old, 0, (st->finfo_cap - old) * sizeof *st->finfo);
  }
  finfo *f = &st->finfo[id];
  if (!f->looked_up) {
    f->looked_up = true;
    f->def = gql_vctx_fragment(st->ctx, st->name_strs[id]);
  }
  return f;
}

static const gql_ast_fragment *fragment(state *st, uint32_t id) {
  finfo *f = frag_info(st, id);
  return f ? f->def : NULL;
}

/* ---- PairSet */

static uint64_t pair_key(uint32_t a, uint32_t b) {
  return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* Pairs of simple fragments with one signature, spread together in one
 * selection set, are recorded as a clique instead of one by one (see
 * within_selection_set); they count as added with exclusivity false. */
static bool in_clique(state *st, uint32_t a, uint32_t b) {
  if (a >= st->finfo_cap)
    return false;
  const finfo *f = &st->finfo[a];
  for (uint32_t i = 0; i < f->ncliques; i++) {
    void *v;
    if (gql_vmap_get(&st->members, (uint64_t)f->cliques[i] << 32 | b, &v))
      return true;
  }
  return false;
}

static bool pairs_has(state *st, uint32_t a, uint32_t b, bool excl) {
  void *v;
  if (gql_vmap_get(&st->pairs, pair_key(a, b), &v)) {
    bool stored = (uintptr_t)v == 2;
    if (excl || stored == excl)
      return true;
  }
  return in_clique(st, a, b);
}

static void pairs_add(state *st, uint32_t a, uint32_t b, bool excl) {
  if (!gql_vmap_put(&st->pairs, pair_key(a, b), (void *)(uintptr_t)(excl + 1)))
    st->failed = true;
}

/* ---- comparing two fields */

static int cmp_arg(const void *a, const void *b) {
  const gql_ast_argument *x = *(const gql_ast_argument *const *)a;
  const gql_ast_argument *y = *(const gql_ast_argument *const *)b;
  size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
  int c = memcmp(x->name.ptr, y->name.ptr, n);
  if (c)
    return c;
  return x->name.len < y->name.len ? -1 : x->name.len > y->name.len;
}

/* The arguments of a field (or of a directive: `node` is either, `args`
 * its arguments) as one string: sorted by name, each value as
 * print(sortValueNode(value)). NULL when the node repeats an argument name
 * (graphql-js's comparison then depends on order) or on failure. Two nodes
 * without repeated names have sameArguments exactly when these are equal. */
static const char *canonical_args(state *st, const void *node,
                                  const gql_ast_arguments *args) {
  if (!args->count)
    return "";
  void *v;
  if (gql_vmap_get(&st->args, (uint64_t)(uintptr_t)node, &v))
    return v;
  const char *res = NULL;
  uint32_t n = args->count;
  const gql_ast_argument **sorted =
      gql_arena_alloc(st->ctx->arena, (n ? n : 1) * sizeof *sorted);
  if (sorted) {
    for (uint32_t i = 0; i < n; i++)
      sorted[i] = args->items[i];
    qsort(sorted, n, sizeof *sorted, cmp_arg);
    bool dup = false;
    for (uint32_t i = 1; i < n && !dup; i++)
      dup = gql_str_eq(gql_ast_name_str(sorted[i]->name),
                       gql_ast_name_str(sorted[i - 1]->name));
    if (!dup) {
      gql_buf b;
      gql_allocator b_alc = gql_arena_allocator(st->ctx->arena);
      gql_buf_init(&b, &b_alc);
      for (uint32_t i = 0; i < n; i++) {
        const char *val =
            gql_vprint_sorted_value(st->ctx->arena, sorted[i]->value);
        if (!val) {
          b.failed = true;
          break;
        }
        gql_buf_put_str(&b, gql_ast_name_str(sorted[i]->name));
        gql_buf_putc(&b, ':');
        gql_buf_puts(&b, val);
        gql_buf_putc(&b, '\n'); /* cannot occur in a printed value */
      }
      if (!b.failed)
        res = gql_arena_strndup(st->ctx->arena, b.data ? b.data : "", b.len);
      gql_buf_free(&b);
    }
  }
  if (!gql_vmap_put(&st->args, (uint64_t)(uintptr_t)node, (void *)res))
    st->failed = true;
  return res;
}

/* graphql-js sameArguments (17's compareArguments for @stream's: the same
 * answer where no fragment has variables of its own). */
static bool same_arguments(state *st, const void *a,
                           const gql_ast_arguments *a1, const void *b,
                           const gql_ast_arguments *a2) {
  if (a1->count == 0)
    return a2->count == 0;
  if (a2->count == 0 || a1->count != a2->count)
    return false;
  const char *c1 = canonical_args(st, a, a1), *c2 = canonical_args(st, b, a2);
  if (c1 && c2)
    return strcmp(c1, c2) == 0;
  /* repeated names: graphql-js's exact procedure (Map of args2, last
   * value of a name wins; every arg1 must find its value there) */
  for (uint32_t i = 0; i < a1->count; i++) {
    const gql_ast_argument *x = a1->items[i], *y = NULL;
    for (uint32_t j = a2->count; j-- > 0 && !y;)
      if (gql_str_eq(gql_ast_name_str(a2->items[j]->name),
                     gql_ast_name_str(x->name)))
        y = a2->items[j];
    if (!y)
      return false;
    const char *p1 = gql_vprint_sorted_value(st->ctx->arena, x->value);
    const char *p2 = gql_vprint_sorted_value(st->ctx->arena, y->value);
    if (!p1 || !p2 || strcmp(p1, p2) != 0)
      return false;
  }
  return true;
}

/* graphql-js doTypesConflict. */
static bool types_conflict(const gql_schema *s, gql_type_ref a,
                           gql_type_ref b) {
  if (a.nmods != b.nmods || memcmp(a.mods, b.mods, a.nmods) != 0)
    return true;
  if (gql_schema_is_leaf(s, a.type) || gql_schema_is_leaf(s, b.type))
    return a.type != b.type;
  return false;
}

/* The part of graphql-js findConflict before the sub-selections: a reason
 * text or NULL. Never has side effects. */
static const char *shallow_conflict(state *st, bool parents_excl, const nd *f1,
                                    const nd *f2, bool *excl_out) {
  const gql_schema *s = st->ctx->schema;
  bool excl =
      parents_excl || (f1->parent != f2->parent && is_object(s, f1->parent) &&
                       is_object(s, f2->parent));
  *excl_out = excl;
  gql_arena *a = st->ctx->arena;
  if (!excl) {
    gql_str n1 = gql_ast_name_str(f1->node->name);
    gql_str n2 = gql_ast_name_str(f2->node->name);
    if (!gql_str_eq(n1, n2))
      return gql_arena_sprintf(a, "\"%.*s\" and \"%.*s\" are different fields",
                               (int)n1.len, n1.ptr, (int)n2.len, n2.ptr);
    if (!same_arguments(st, f1->node, &f1->node->args, f2->node,
                        &f2->node->args))
      return "they have differing arguments";
  }
  /* graphql-js 17: a field with @stream overlaps any other of its name */
  const gql_ast_directive *d1 = gql_vfind_directive(&f1->node->directives,
                                                    "stream"),
                          *d2 = gql_vfind_directive(&f2->node->directives,
                                                    "stream");
  if (d1 || d2)
    return d1 && d2 && same_arguments(st, d1, &d1->args, d2, &d2->args)
               ? "they have overlapping stream directives. See "
                 "https://github.com/graphql/defer-stream-wg/discussions/100"
               : "they have overlapping stream directives";
  if (f1->def && f2->def && types_conflict(s, f1->def->type, f2->def->type))
    return gql_arena_sprintf(
        a, "they return conflicting types \"%s\" and \"%s\"",
        gql_vtype_str(s, f1->def->type, a), gql_vtype_str(s, f2->def->type, a));
  return NULL;
}

/* Serializes a field's subtree for its class key: alias, name, arguments
 * and selections as written (directives other than @stream do not matter
 * to this rule). False when the subtree holds a fragment spread, a
 * __schema / __type field or a @stream (which conflicts with its copy):
 * comparing it could then touch the fragment-pair memo, or fill the field-map
 * cache with another parent type than graphql-js's order would, so it must be
 * compared where graphql-js compares it. */
static bool serialize(gql_buf *b, const gql_ast_selection *f) {
  gql_str name = gql_ast_name_str(f->name);
  if (gql_str_eq_cstr(name, "__schema") || gql_str_eq_cstr(name, "__type") ||
      gql_vfind_directive(&f->directives, "stream"))
    return false;
  gql_buf_put_str(b, gql_ast_name_str(f->alias));
  gql_buf_putc(b, ':');
  gql_buf_put_str(b, name);
  gql_buf_putc(b, '(');
  for (uint32_t i = 0; i < f->args.count; i++) {
    gql_buf_put_str(b, gql_ast_name_str(f->args.items[i]->name));
    gql_buf_putc(b, ':');
    gql_print_value(b, f->args.items[i]->value);
    gql_buf_putc(b, ',');
  }
  gql_buf_putc(b, ')');
  if (!f->selection_set)
    return true;
  gql_buf_putc(b, '{');
  const gql_ast_selection_set *set = f->selection_set;
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD)
      return false;
    if (sel->h.kind == GQL_AST_FIELD) {
      if (!serialize(b, sel))
        return false;
    } else {
      /* an inline fragment: its fields join the enclosing map */
      gql_buf_puts(b, "...");
      if (sel->type_condition)
        gql_buf_put_str(b, gql_ast_name_str(sel->type_condition->name));
      gql_buf_putc(b, '{');
      gql_ast_selection tmp = *sel;
      tmp.h.kind = GQL_AST_FIELD;
      tmp.alias = tmp.name = (gql_ast_name){0};
      tmp.args.count = 0;
      if (!serialize(b, &tmp))
        return false;
      gql_buf_putc(b, '}');
    }
    gql_buf_putc(b, ' ');
  }
  gql_buf_putc(b, '}');
  return true;
}

/* The class of a field (see the top of the file): leaf fields by parent
 * type, name and canonical arguments; fields with a selection set by
 * parent type and their whole subtree, when comparing them is free of side
 * effects. Fields without a class are compared one by one. */
static uint32_t field_class(state *st, nd *f) {
  if (f->cls != CLS_UNSET)
    return f->cls;
  f->cls = NO_CLASS;
  if (gql_vfind_directive(&f->node->directives, "stream"))
    return f->cls; /* it conflicts even with its own copy */
  const char *key = NULL;
  if (!f->node->selection_set) {
    const char *args = canonical_args(st, f->node, &f->node->args);
    if (!args)
      return f->cls;
    /* 'L', the parent type's 4 bytes, the name, '(', the arguments */
    size_t nl = f->node->name.len, al = strlen(args);
    char *k = gql_arena_alloc(st->ctx->arena, 6 + nl + al + 1);
    if (k) {
      k[0] = 'L';
      memcpy(k + 1, &f->parent, 4);
      memcpy(k + 5, f->node->name.ptr, nl);
      k[5 + nl] = '(';
      memcpy(k + 6 + nl, args, al + 1);
      uint32_t id = gql_vintern_id(&st->classes, (gql_str){k, 6 + nl + al});
      if (id < CLS_UNSET)
        f->cls = id;
      else
        st->failed = true;
      return f->cls;
    }
  } else {
    gql_buf b;
    gql_allocator b_alc = gql_arena_allocator(st->ctx->arena);
    gql_buf_init(&b, &b_alc);
    /* "N<parent> ", printed by hand: printf costs more than the rest */
    char num[16];
    size_t at = sizeof num;
    num[--at] = ' ';
    uint32_t v = f->parent;
    do {
      num[--at] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    num[--at] = 'N';
    gql_buf_append(&b, num + at, sizeof num - at);
    if (serialize(&b, f->node) && !b.failed)
      key = gql_arena_strndup(st->ctx->arena, b.data, b.len);
    gql_buf_free(&b);
    if (!key)
      return f->cls;
  }
  if (!key) {
    st->failed = true;
    return f->cls;
  }
  uint32_t id = gql_vintern_id(&st->classes, gql_cstr(key));
  if (id < CLS_UNSET)
    f->cls = id;
  return f->cls;
}

static bool is_class(uint32_t c) {
  return c < CLS_UNSET;
}

static void find_conflict(state *st, clist *out, bool parents_excl,
                          gql_str name, const nd *f1, const nd *f2);

/* Whether two classed fields conflict, memoized per class pair and
 * exclusivity: NULL for no conflict, else the reason text of a shallow
 * conflict between leaves, or HAS_CONFLICT when fields with sub-selections
 * conflict (each pair is then compared for its own nodes). */
static const char *class_conflict(state *st, bool parents_excl, gql_str name,
                                  nd *f1, nd *f2) {
  if (f1->cls == f2->cls && !f1->node->selection_set)
    return NULL;
  uint64_t key = (uint64_t)f1->cls << 32 | f2->cls;
  gql_vmap *memo = &st->memo[parents_excl];
  void *v;
  if (gql_vmap_get(memo, key, &v))
    return v == NO_CONFLICT ? NULL : v;
  const char *r;
  if (!f1->node->selection_set || !f2->node->selection_set) {
    bool excl;
    r = shallow_conflict(st, parents_excl, f1, f2, &excl);
  } else {
    clist scratch = {0};
    find_conflict(st, &scratch, parents_excl, name, f1, f2);
    r = scratch.n ? HAS_CONFLICT : NULL;
  }
  if (!gql_vmap_put(memo, key, (void *)(r ? r : NO_CONFLICT)))
    st->failed = true;
  return r;
}

/* Conflicts collected in one validation, nested ones included: beyond
 * this the document is refused (graphql-js would build error messages of
 * unbounded size). */
#define MAX_CONFLICTS 200000

static void push_conflict(state *st, clist *out, conflict c) {
  if (++st->nconflicts > MAX_CONFLICTS) {
    st->failed = st->limited = true;
    return;
  }
  if (!RESERVE(st, out->items, out->cap, out->n + 1))
    return;
  out->items[out->n++] = c;
  if (out == st->top && out->n >= st->budget)
    st->stop = true;
}

static conflict leaf_conflict(state *st, gql_str name, const char *msg,
                              const gql_ast_selection *n1,
                              const gql_ast_selection *n2) {
  conflict c = {{name, msg, NULL, 0}, {NULL, 1}, {NULL, 1}};
  const gql_ast_selection **p = gql_arena_alloc(st->ctx->arena, 2 * sizeof *p);
  if (!p) {
    st->failed = true;
    c.f1.n = c.f2.n = 0;
    return c;
  }
  p[0] = n1;
  p[1] = n2;
  c.f1.items = p;
  c.f2.items = p + 1;
  return c;
}

static void sub_selection_conflicts(state *st, clist *out, bool excl,
                                    uint32_t p1,
                                    const gql_ast_selection_set *s1,
                                    uint32_t p2,
                                    const gql_ast_selection_set *s2);

/* graphql-js findConflict; a found conflict is appended to `out`.
 *
 * Safety limits, beyond what graphql-js has: comparisons nest at most
 * MAX_DEPTH deep (the C stack), and documents whose fragments spread each
 * other in a cycle (invalid anyway: NoFragmentCyclesRule) get at most
 * MAX_CYCLIC_STEPS comparisons. Past a limit the rule reports that it
 * stopped. */
#define MAX_DEPTH 1000
#define MAX_CYCLIC_STEPS 2000000

static void find_conflict_in(state *st, clist *out, bool parents_excl,
                             gql_str name, const nd *f1, const nd *f2);

static void find_conflict(state *st, clist *out, bool parents_excl,
                          gql_str name, const nd *f1, const nd *f2) {
  if (st->failed)
    return;
  if (st->depth >= MAX_DEPTH ||
      (st->cyclic && ++st->steps > MAX_CYCLIC_STEPS)) {
    st->failed = st->limited = true;
    return;
  }
  st->depth++;
  find_conflict_in(st, out, parents_excl, name, f1, f2);
  st->depth--;
}

static void find_conflict_in(state *st, clist *out, bool parents_excl,
                             gql_str name, const nd *f1, const nd *f2) {
  bool excl;
  const char *msg = shallow_conflict(st, parents_excl, f1, f2, &excl);
  if (msg) {
    push_conflict(st, out, leaf_conflict(st, name, msg, f1->node, f2->node));
    return;
  }
  const gql_ast_selection_set *s1 = f1->node->selection_set;
  const gql_ast_selection_set *s2 = f2->node->selection_set;
  if (!s1 || !s2)
    return;
  clist subs = {0};
  uint32_t t1 = f1->def ? f1->def->type.type : GQL_NO_TYPE;
  uint32_t t2 = f2->def ? f2->def->type.type : GQL_NO_TYPE;
  sub_selection_conflicts(st, &subs, excl, t1, s1, t2, s2);
  if (!subs.n || st->failed)
    return;
  /* graphql-js subfieldConflicts */
  conflict c = {{name, NULL, NULL, subs.n}, {NULL, 1}, {NULL, 1}};
  for (uint32_t i = 0; i < subs.n; i++) {
    c.f1.n += subs.items[i].f1.n;
    c.f2.n += subs.items[i].f2.n;
  }
  gql_arena *a = st->ctx->arena;
  c.r.subs = gql_arena_alloc(a, subs.n * sizeof *c.r.subs);
  c.f1.items = gql_arena_alloc(a, c.f1.n * sizeof *c.f1.items);
  c.f2.items = gql_arena_alloc(a, c.f2.n * sizeof *c.f2.items);
  if (!c.r.subs || !c.f1.items || !c.f2.items) {
    st->failed = true;
    return;
  }
  c.f1.items[0] = f1->node;
  c.f2.items[0] = f2->node;
  uint32_t k1 = 1, k2 = 1;
  for (uint32_t i = 0; i < subs.n; i++) {
    const conflict *sc = &subs.items[i];
    c.r.subs[i] = sc->r;
    memcpy(c.f1.items + k1, sc->f1.items, sc->f1.n * sizeof *c.f1.items);
    memcpy(c.f2.items + k2, sc->f2.items, sc->f2.n * sizeof *c.f2.items);
    k1 += sc->f1.n;
    k2 += sc->f2.n;
  }
  push_conflict(st, out, c);
}

/* Compares fields1 × fields2 (within: only pairs i < j of one group) in
 * graphql-js's order. See the top of the file for the shortcuts. */
static void compare_groups(state *st, clist *out, bool excl, group *g1,
                           group *g2, bool within) {
  uint32_t n1 = g1->n, n2 = g2->n;
  if (within && n1 < 2)
    return;
  if (n1 * (uint64_t)n2 <= 16 || st->naive) {
    for (uint32_t i = 0; i < n1 && !st->stop; i++)
      for (uint32_t j = within ? i + 1 : 0; j < n2 && !st->stop; j++)
        find_conflict(st, out, excl, g1->name, &g1->items[i], &g2->items[j]);
    return;
  }
  /* the distinct leaf classes on the right, one field of each, and the
   * positions of the fields without a class */
  gql_arena *a = st->ctx->arena;
  uint32_t *cls2 = gql_arena_alloc(a, n2 * sizeof *cls2);
  uint32_t *rep2 = gql_arena_alloc(a, n2 * sizeof *rep2);
  uint32_t *other2 = gql_arena_alloc(a, n2 * sizeof *other2);
  if (!cls2 || !rep2 || !other2) {
    st->failed = true;
    return;
  }
  uint32_t k2 = 0, nother2 = 0;
  gql_vmap seen;
  gql_vmap_init(&seen, a);
  for (uint32_t j = 0; j < n2; j++) {
    uint32_t c = field_class(st, &g2->items[j]);
    void *v;
    if (!is_class(c)) {
      other2[nother2++] = j;
    } else if (!gql_vmap_get(&seen, c, &v)) {
      if (!gql_vmap_put(&seen, c, NULL)) {
        st->failed = true;
        return;
      }
      cls2[k2] = c;
      rep2[k2++] = j;
    }
  }
  /* per left leaf class: can it conflict with a right leaf class?
   * (1 no, 2 yes) */
  gql_vmap rowcache;
  gql_vmap_init(&rowcache, a);
  for (uint32_t i = 0; i < n1 && !st->stop && !st->failed; i++) {
    nd *f1 = &g1->items[i];
    uint32_t c1 = field_class(st, f1);
    uint32_t from = within ? i + 1 : 0;
    if (is_class(c1)) {
      void *v;
      uintptr_t row = 0;
      if (gql_vmap_get(&rowcache, c1, &v))
        row = (uintptr_t)v;
      if (!row) {
        row = 1;
        for (uint32_t k = 0; k < k2 && row == 1; k++)
          if (class_conflict(st, excl, g1->name, f1, &g2->items[rep2[k]]))
            row = 2;
        if (!gql_vmap_put(&rowcache, c1, (void *)row))
          st->failed = true;
      }
      if (row == 1) {
        /* only the fields without a class can conflict with this one */
        for (uint32_t k = 0; k < nother2 && !st->stop; k++)
          if (other2[k] >= from)
            find_conflict(st, out, excl, g1->name, f1, &g2->items[other2[k]]);
        continue;
      }
    }
    for (uint32_t j = from; j < n2 && !st->stop; j++) {
      nd *f2 = &g2->items[j];
      uint32_t c2 = field_class(st, f2);
      if (is_class(c1) && is_class(c2)) {
        const char *msg = class_conflict(st, excl, g1->name, f1, f2);
        if (msg == HAS_CONFLICT)
          find_conflict(st, out, excl, g1->name, f1, f2);
        else if (msg)
          push_conflict(st, out,
                        leaf_conflict(st, g1->name, msg, f1->node, f2->node));
        continue;
      }
      find_conflict(st, out, excl, g1->name, f1, f2);
    }
  }
}

/* graphql-js collectConflictsWithin. */
static void conflicts_within(state *st, clist *out, fmap *m) {
  for (uint32_t i = 0; i < m->ngroups && !st->stop; i++)
    compare_groups(st, out, false, &m->groups[i], &m->groups[i], true);
}

/* graphql-js collectConflictsBetween. */
static void conflicts_between(state *st, clist *out, bool excl, fmap *m1,
                              fmap *m2) {
  for (uint32_t i = 0; i < m1->ngroups && !st->stop; i++) {
    group *g2 = find_group(m2, m1->groups[i].name_id);
    if (g2)
      compare_groups(st, out, excl, &m1->groups[i], g2, false);
  }
}

#define MAX_CLOSURE 8

static uint32_t map_sig(state *st, fmap *m);
static const finfo *closure(state *st, uint32_t id, uint32_t depth);
static bool sig_compat(state *st, uint32_t a, uint32_t b, bool excl);

/* True when comparing field map m with fragment `frag` and everything (E)
 * would walk from it cannot give a conflict: m and every map on the way
 * have signatures, all compatible with m's. Skipping such a walk changes
 * nothing but pairs of m that only ever lead to walks like it. */
static bool quiet_walk(state *st, fmap *m, uint32_t frag, bool excl) {
  uint32_t sig = map_sig(st, m);
  if (sig == NO_SIG)
    return false;
  const finfo *c = closure(st, frag, 0);
  if (!c)
    return false;
  /* a copy: comparing may look up fragments and move the array */
  uint32_t clo[MAX_CLOSURE], n = c->nclo;
  memcpy(clo, c->clo, n * sizeof *clo);
  for (uint32_t i = 0; i < n; i++)
    if (!sig_compat(st, sig, clo[i], excl))
      return false;
  return true;
}

/* graphql-js OrderedPairSet of (field map, fragment name). */
static bool fm_has(state *st, const fmap *m, uint32_t frag, bool excl) {
  void *v;
  if (!gql_vmap_get(&st->fm_pairs, (uint64_t)m->id << 32 | frag, &v))
    return false;
  bool stored = (uintptr_t)v == 2;
  return excl || stored == excl;
}

static void fm_add(state *st, const fmap *m, uint32_t frag, bool excl) {
  if (!gql_vmap_put(&st->fm_pairs, (uint64_t)m->id << 32 | frag,
                    (void *)(uintptr_t)(excl + 1)))
    st->failed = true;
}

/* graphql-js collectConflictsBetweenFieldsAndFragment, with (E) the
 * fragments the fragment spreads. A field map without fields can have no
 * conflict with anything, and its pairs only ever matter to itself: it is
 * not walked at all. */
static void fields_and_fragment(state *st, clist *out, bool excl, fmap *m,
                                uint32_t frag_id) {
  if ((!m->ngroups && !st->naive) || st->stop || st->failed)
    return;
  if (fm_has(st, m, frag_id, excl))
    return;
  if (!st->naive && quiet_walk(st, m, frag_id, excl))
    return;
  fm_add(st, m, frag_id, excl);
  const gql_ast_fragment *frag = fragment(st, frag_id);
  if (!frag)
    return;
  fmap *m2 = fragment_fields(st, frag);
  if (!m2 || m == m2)
    return;
  conflicts_between(st, out, excl, m, m2);
  for (uint32_t i = 0; i < m2->nfrags; i++)
    fields_and_fragment(st, out, excl, m, m2->frags[i]);
}

/* graphql-js collectConflictsBetweenFragments. */
static void between_fragments(state *st, clist *out, bool excl, uint32_t a,
                              uint32_t b) {
  if (a == b || st->stop || st->failed)
    return;
  if (pairs_has(st, a, b, excl))
    return;
  pairs_add(st, a, b, excl);
  const gql_ast_fragment *f1 = fragment(st, a), *f2 = fragment(st, b);
  if (!f1 || !f2)
    return;
  fmap *m1 = fragment_fields(st, f1);
  fmap *m2 = m1 ? fragment_fields(st, f2) : NULL;
  if (!m2)
    return;
  conflicts_between(st, out, excl, m1, m2);
  for (uint32_t i = 0; i < m2->nfrags; i++)
    between_fragments(st, out, excl, a, m2->frags[i]);
  for (uint32_t i = 0; i < m1->nfrags; i++)
    between_fragments(st, out, excl, m1->frags[i], b);
}

/* graphql-js findConflictsBetweenSubSelectionSets. */
static void sub_selection_conflicts(state *st, clist *out, bool excl,
                                    uint32_t p1,
                                    const gql_ast_selection_set *s1,
                                    uint32_t p2,
                                    const gql_ast_selection_set *s2) {
  fmap *m1 = fields_of(st, p1, s1);
  fmap *m2 = m1 ? fields_of(st, p2, s2) : NULL;
  if (!m2)
    return;
  conflicts_between(st, out, excl, m1, m2);
  for (uint32_t i = 0; i < m2->nfrags; i++)
    fields_and_fragment(st, out, excl, m1, m2->frags[i]);
  for (uint32_t i = 0; i < m1->nfrags; i++)
    fields_and_fragment(st, out, excl, m2, m1->frags[i]);
  for (uint32_t i = 0; i < m1->nfrags; i++)
    for (uint32_t j = 0; j < m2->nfrags; j++)
      between_fragments(st, out, excl, m1->frags[i], m2->frags[j]);
}

/* ---- simple fragments */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The signature of a field map whose fields all have classes: their
 * response names and classes, sorted. Two such maps compare as any two
 * maps of their signatures do. NO_SIG when a field has no class. */
static uint32_t map_sig(state *st, fmap *m) {
  if (m->sig_done)
    return m->sig;
  m->sig_done = true;
  m->sig = NO_SIG;
  uint32_t n = 0;
  for (uint32_t g = 0; g < m->ngroups; g++)
    n += m->groups[g].n;
  uint64_t *keys = gql_arena_alloc(st->ctx->arena, (n + 1) * sizeof *keys);
  if (!keys) {
    st->failed = true;
    return NO_SIG;
  }
  uint32_t k = 0;
  for (uint32_t g = 0; g < m->ngroups; g++)
    for (uint32_t i = 0; i < m->groups[g].n; i++) {
      uint32_t c = field_class(st, &m->groups[g].items[i]);
      if (!is_class(c))
        return NO_SIG;
      keys[k++] = (uint64_t)m->groups[g].name_id << 32 | c;
    }
  qsort(keys, n, sizeof *keys, cmp_u64);
  uint32_t sig = gql_vintern_id(
      &st->sigs, (gql_str){(const char *)keys, n * sizeof *keys});
  if (sig == UINT32_MAX || sig >= NO_SIG) {
    st->failed = true;
    return NO_SIG;
  }
  if (!RESERVE(st, st->sig_rep, st->sig_cap, sig + 1))
    return NO_SIG;
  if (sig + 1 == st->sigs.count)
    st->sig_rep[sig] = m; /* the first map with this signature */
  m->sig = sig;
  return sig;
}

/* The signature of a simple fragment (no spreads, all fields classed), or
 * NO_SIG. */
static uint32_t frag_sig(state *st, uint32_t id) {
  finfo *f = frag_info(st, id);
  if (!f || f->sig_done)
    return f ? f->sig : NO_SIG;
  f->sig_done = true;
  f->sig = NO_SIG;
  fmap *m = f->def ? fragment_fields(st, f->def) : NULL;
  if (!m || m->nfrags || !m->ngroups)
    return NO_SIG;
  uint32_t sig = map_sig(st, m);
  st->finfo[id].sig = sig; /* the array may have moved */
  return sig;
}

/* The closure of signatures of fragment `id` (see finfo); NULL when it is
 * unknown. */
static const finfo *closure(state *st, uint32_t id, uint32_t depth) {
  finfo *f = frag_info(st, id);
  if (!f || f->clo_state == 3 || f->clo_state == 1)
    return NULL; /* 1: a cycle */
  if (f->clo_state == 2)
    return f;
  f->clo_state = 3;
  if (!f->def || depth > 2000)
    return NULL;
  fmap *m = fragment_fields(st, f->def);
  uint32_t sig = m ? map_sig(st, m) : NO_SIG;
  if (sig == NO_SIG)
    return NULL;
  st->finfo[id].clo_state = 1;
  uint32_t clo[MAX_CLOSURE], n = 0;
  clo[n++] = sig;
  for (uint32_t i = 0; i < m->nfrags; i++) {
    finfo *rf = frag_info(st, m->frags[i]);
    if (!rf || !rf->def)
      continue; /* an unknown fragment adds nothing */
    const finfo *r = closure(st, m->frags[i], depth + 1);
    if (!r) {
      st->finfo[id].clo_state = 3;
      return NULL;
    }
    for (uint32_t k = 0; k < r->nclo; k++) {
      uint32_t q = 0;
      while (q < n && clo[q] != r->clo[k])
        q++;
      if (q < n)
        continue;
      if (n == MAX_CLOSURE) {
        st->finfo[id].clo_state = 3;
        return NULL;
      }
      clo[n++] = r->clo[k];
    }
  }
  f = &st->finfo[id]; /* the array may have moved */
  memcpy(f->clo, clo, n * sizeof *clo);
  f->nclo = (uint8_t)n;
  f->clo_state = 2;
  return f;
}

/* Whether fragments of signatures a and b compare without conflict. */
static bool sig_compat(state *st, uint32_t a, uint32_t b, bool excl) {
  uint64_t key = (uint64_t)a << 32 | b;
  void *v;
  if (gql_vmap_get(&st->compat[excl], key, &v))
    return (uintptr_t)v == 2;
  clist scratch = {0};
  conflicts_between(st, &scratch, excl, st->sig_rep[a], st->sig_rep[b]);
  bool ok = scratch.n == 0 && !st->failed && !st->stop;
  if (!st->stop &&
      !gql_vmap_put(&st->compat[excl], key, (void *)(uintptr_t)(ok + 1)))
    st->failed = true;
  return ok;
}

static void join_clique(state *st, uint32_t clique, uint32_t frag) {
  finfo *f = frag_info(st, frag);
  if (!f)
    return;
  if (!RESERVE(st, f->cliques, f->ccliques, f->ncliques + 1))
    return;
  f->cliques[f->ncliques++] = clique;
  if (!gql_vmap_put(&st->members, (uint64_t)clique << 32 | frag, NULL))
    st->failed = true;
}

#define MAX_CLIQUE_SIGS 16

/* (B) and (C) of graphql-js findConflictsWithinSelectionSet. Fragments
 * spread together that are simple, share a signature and compare without
 * conflict form a clique: their pairs would be compared with no result and
 * no recursion, so they are recorded in the pair set at once and skipped,
 * making 5,000 spreads of look-alike fragments linear. */
static void fragments_within(state *st, clist *out, fmap *m) {
  uint32_t n = m->nfrags;
  uint32_t *sig = NULL, *others[MAX_CLIQUE_SIGS] = {0};
  uint32_t nothers[MAX_CLIQUE_SIGS] = {0}, csig[MAX_CLIQUE_SIGS], ncs = 0;
  if (n > 8 && !st->naive &&
      (sig = gql_arena_alloc(st->ctx->arena, n * sizeof *sig))) {
    uint32_t count[MAX_CLIQUE_SIGS] = {0};
    for (uint32_t i = 0; i < n; i++) {
      sig[i] = frag_sig(st, m->frags[i]);
      uint32_t q = 0;
      while (q < ncs && csig[q] != sig[i])
        q++;
      if (sig[i] == NO_SIG || (q == ncs && ncs == MAX_CLIQUE_SIGS))
        continue;
      if (q == ncs)
        csig[ncs++] = sig[i];
      count[q]++;
    }
    uint32_t kept = 0;
    for (uint32_t q = 0; q < ncs; q++)
      if (count[q] >= 2 && sig_compat(st, csig[q], csig[q], false))
        csig[kept++] = csig[q];
    ncs = kept;
    for (uint32_t q = 0; q < ncs && !st->failed; q++) {
      uint32_t clique = st->ncliques++;
      others[q] = gql_arena_alloc(st->ctx->arena, n * sizeof *others[q]);
      if (!others[q]) {
        st->failed = true;
        return;
      }
      for (uint32_t i = 0; i < n; i++) {
        if (sig[i] == csig[q])
          join_clique(st, clique, m->frags[i]);
        else
          others[q][nothers[q]++] = i;
      }
    }
  }
  for (uint32_t i = 0; i < n && !st->stop && !st->failed; i++) {
    fields_and_fragment(st, out, false, m, m->frags[i]);
    uint32_t q = 0;
    while (sig && q < ncs && csig[q] != sig[i])
      q++;
    if (sig && q < ncs) {
      for (uint32_t k = 0; k < nothers[q]; k++)
        if (others[q][k] > i)
          between_fragments(st, out, false, m->frags[i],
                            m->frags[others[q][k]]);
      continue;
    }
    for (uint32_t j = i + 1; j < n; j++)
      between_fragments(st, out, false, m->frags[i], m->frags[j]);
  }
}

/* graphql-js findConflictsWithinSelectionSet. */
static void within_selection_set(state *st, clist *out, uint32_t parent,
                                 const gql_ast_selection_set *set) {
  fmap *m = fields_of(st, parent, set);
  if (!m)
    return;
  conflicts_within(st, out, m);
  if (!m->nfrags)
    return;
  fragments_within(st, out, m);
}

/* ---- fragment cycles */

/* Depth-first search over the spreads of fragment `f`: colour 1 while on
 * the path, 2 when done. True when a cycle is found. */
static bool has_cycle_from(state *st, gql_vmap *colour,
                           const gql_ast_fragment *f, uint32_t depth) {
  void *v;
  if (gql_vmap_get(colour, (uint64_t)(uintptr_t)f, &v))
    return (uintptr_t)v == 1;
  if (depth > 5000 ||
      !gql_vmap_put(colour, (uint64_t)(uintptr_t)f, (void *)(uintptr_t)1))
    return true;
  gql_spread_list sp = gql_vctx_fragment_spreads(st->ctx, f->selection_set);
  for (uint32_t i = 0; i < sp.count; i++) {
    const gql_ast_fragment *g =
        gql_vctx_fragment(st->ctx, gql_ast_name_str(sp.items[i]->name));
    if (g && has_cycle_from(st, colour, g, depth + 1))
      return true;
  }
  gql_vmap_put(colour, (uint64_t)(uintptr_t)f, (void *)(uintptr_t)2);
  return false;
}

static bool has_fragment_cycle(state *st) {
  gql_vmap colour;
  gql_vmap_init(&colour, st->ctx->arena);
  const gql_document *doc = st->ctx->doc;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind == GQL_AST_FRAGMENT_DEFINITION &&
        has_cycle_from(st, &colour, (const gql_ast_fragment *)d, 0))
      return true;
  }
  return false;
}

/* ---- reporting */

static void reason_message(gql_buf *b, const reason *r) {
  if (r->msg) {
    gql_buf_puts(b, r->msg);
    return;
  }
  for (uint32_t i = 0; i < r->nsubs; i++) {
    if (i)
      gql_buf_puts(b, " and ");
    gql_buf_printf(b, "subfields \"%.*s\" conflict because ",
                   (int)r->subs[i].name.len, r->subs[i].name.ptr);
    reason_message(b, &r->subs[i]);
  }
}

static void report(state *st, const conflict *c) {
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(st->ctx->arena);
  gql_buf_init(&b, &b_alc);
  gql_buf_printf(&b, "Fields \"%.*s\" conflict because ", (int)c->r.name.len,
                 c->r.name.ptr);
  reason_message(&b, &c->r);
  gql_buf_puts(&b, ". Use different aliases on the fields to fetch both if "
                   "this was intentional.");
  uint32_t n = c->f1.n + c->f2.n;
  uint32_t *offs = gql_arena_alloc(st->ctx->arena, (n ? n : 1) * sizeof *offs);
  const char *msg = gql_buf_cstr(&b);
  if (offs && msg) {
    for (uint32_t i = 0; i < c->f1.n; i++)
      offs[i] = c->f1.items[i]->h.start;
    for (uint32_t i = 0; i < c->f2.n; i++)
      offs[c->f1.n + i] = c->f2.items[i]->h.start;
    gql_vctx_report(st->ctx, offs, n, "%s", msg);
  }
  gql_buf_free(&b);
}

/* Up to 8 response names of a selection set, inline fragments included;
 * false when there are more, or a fragment spread. */
/* The response names a selection set collects, its fragments' included,
 * into names[]: false when there are more than PLAIN_MAX or when a fragment
 * is reached twice (so also on a cycle). Unknown fragments add nothing
 * (the rule ignores them too). */
enum { PLAIN_MAX = 32, PLAIN_FRAGMENTS = 16 };

typedef struct plain_walk {
  gql_vctx *ctx;
  gql_str names[PLAIN_MAX];
  uint32_t n;
  const gql_ast_fragment *seen[PLAIN_FRAGMENTS];
  uint32_t nseen;
} plain_walk;

static bool plain_names(plain_walk *w, const gql_ast_selection_set *set) {
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      const gql_ast_fragment *f =
          gql_vctx_fragment(w->ctx, gql_ast_name_str(sel->name));
      if (!f)
        continue;
      for (uint32_t j = 0; j < w->nseen; j++)
        if (w->seen[j] == f)
          return false;
      if (w->nseen == PLAIN_FRAGMENTS)
        return false;
      w->seen[w->nseen++] = f;
      if (!plain_names(w, f->selection_set))
        return false;
    } else if (sel->h.kind == GQL_AST_FIELD) {
      if (w->n == PLAIN_MAX)
        return false;
      w->names[w->n++] = response_name(sel);
    } else if (sel->selection_set && !plain_names(w, sel->selection_set)) {
      return false;
    }
  }
  return true;
}

/* True when a selection set visited has nothing to compare: the response
 * names it collects, through its inline fragments and the fragments it
 * spreads (each once), are distinct, so no two fields of it,
 * of its fragments or between them share a name, and every comparison the
 * rule makes is between fields of one name. Its field map is then not
 * built now; should a comparison need it later, it is built then, with the
 * parent type graphql-js would have cached, except for the introspection
 * types below __schema and __type, which TypeInfo knows but the rule's own
 * lookups do not (those sets are always built at the visit, as graphql-js
 * does). */
static bool plain_set(gql_vctx *ctx, uint32_t parent,
                      const gql_ast_selection_set *set) {
  /* composite built-in types are the introspection types */
  if (parent != GQL_NO_TYPE && gql_schema_type_at(ctx->schema, parent)->builtin)
    return false;
  plain_walk w;
  w.ctx = ctx;
  w.n = 0;
  w.nseen = 0;
  if (!plain_names(&w, set))
    return false;
  for (uint32_t i = 1; i < w.n; i++)
    for (uint32_t j = 0; j < i; j++)
      if (gql_str_eq(w.names[i], w.names[j]))
        return false;
  return true;
}

static bool enter(gql_vctx *ctx, void *vs, const gql_ast_node *node) {
  state *st = vs;
  if (node->kind != GQL_AST_SELECTION_SET || st->failed)
    return true;
  if (ctx->impl->aborted)
    return false;
  uint32_t parent = gql_vctx_parent_type(ctx);
  if (plain_set(ctx, parent, (const gql_ast_selection_set *)node))
    return true;
  if (!st->ready) { /* at the first set with something to compare */
    st->ctx = ctx;
    gql_vintern_init(&st->names, ctx->arena);
    gql_vintern_init(&st->classes, ctx->arena);
    gql_vmap_init(&st->cache, ctx->arena);
    gql_vmap_init(&st->pairs, ctx->arena);
    gql_vmap_init(&st->fm_pairs, ctx->arena);
    gql_vmap_init(&st->memo[0], ctx->arena);
    gql_vmap_init(&st->memo[1], ctx->arena);
    gql_vmap_init(&st->args, ctx->arena);
    gql_vintern_init(&st->sigs, ctx->arena);
    gql_vmap_init(&st->compat[0], ctx->arena);
    gql_vmap_init(&st->compat[1], ctx->arena);
    gql_vmap_init(&st->members, ctx->arena);
    st->ready = true;
    st->cyclic = has_fragment_cycle(st);
  }
  uint32_t max = ctx->impl->max_errors;
  uint32_t count = ctx->impl->reported;
  clist out = {0};
  st->top = &out;
  st->budget = count < max ? max - count + 1 : 1;
  st->stop = false;
  within_selection_set(st, &out, parent, (const gql_ast_selection_set *)node);
  st->top = NULL;
  st->stop = false;
  if (st->failed) {
    /* the rule stops for the rest of the document, saying so */
    if (!st->limited)
      ctx->errors->nomem = true;
    else
      gql_vctx_report(ctx, &node->start, 1,
                      "The fields of this selection set are too complex to "
                      "check for conflicts; validation of overlapping fields "
                      "stopped.");
    return true;
  }
  for (uint32_t i = 0; i < out.n; i++)
    report(st, &out.items[i]);
  return true;
}

const gql_vrule gql_rule_OverlappingFieldsCanBeMergedRule = {
    "OverlappingFieldsCanBeMergedRule", sizeof(state), NULL, enter, NULL};

static void init_naive(gql_vctx *ctx, void *vs) {
  (void)ctx;
  ((state *)vs)->naive = true;
}

const gql_vrule gql_rule_OverlappingFieldsCanBeMergedNaive = {
    "OverlappingFieldsCanBeMergedRule", sizeof(state), init_naive, enter, NULL};
