/*
 * The query planner. The client operation is normalised (fragments
 * expanded, fields merged by response key, in query order), then walked
 * in the context of the subgraph that produces each object: a field that
 * subgraph resolves stays in its fetch; any other field goes to an entity
 * fetch (subgraph, path, type) under the current one, which then adds
 * __typename and the entity key at that path. @requires fields are fetched
 * first (in the current fetch when it can, else in another entity fetch
 * that the requiring one depends on); @provides makes external fields
 * resolvable below the providing field.
 *
 * Below an interface or union, a fragment on another type keeps that type
 * as the condition of its fields: the subgraph gets `... on T { }` and
 * __typename, entity fetches below it take only objects of T, and the
 * projection picks fields by the concrete type.
 *
 * Fetches get a wave (level) from their dependencies; the fetches of one
 * subgraph in one wave become one request with aliased `_entities` fields.
 * A wave's batch that nothing depends on moves to a later wave that already
 * talks to the same subgraph, which saves a request without lengthening
 * the critical path (the benchmark query: 6 requests in 4 waves).
 */
#include "gateway.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_PATH 256
#define MAX_FETCHES 4096
/* Fields of the normalised operation: fragments spread at every level can
 * make it exponentially larger than the text, so it is bounded (as
 * gql_prepare bounds its plans). */
#define MAX_CLIENT_FIELDS 100000

typedef struct planner {
  const gql_supergraph *sg;
  const gql_document *doc;
  const gql_ast_operation *op;
  gql_arena *arena;
  const char **err;
  gql_gw_plan *plan;
  uint32_t fetch_cap;
  gql_str path[MAX_PATH];
  uint32_t path_len;
  /* a response key asked for two different fields (a client alias
   * named like an entity key the planner adds): refused, see build */
  gql_str conflict;
  uint32_t client_fields;
} planner;

#define FAIL(p, code, ...)                                                     \
  do {                                                                         \
    *(p)->err = gql_arena_sprintf((p)->arena, __VA_ARGS__);                    \
    return (code);                                                             \
  } while (0)

static const gql_str AT = {"@", 1};

/* ------------------------------------------------------- selection trees */

static gql_gw_sel *sel_find(gql_gw_sel *parent, gql_str key) {
  for (gql_gw_sel *s = parent->first; s; s = s->next)
    if (!s->fragment && gql_str_eq(s->key, key))
      return s;
  return NULL;
}

/* `"key":`, the key's JSON member prefix (response keys are GraphQL names:
 * nothing to escape); empty when out of memory (writers then escape). */
static gql_str key_json(planner *p, gql_str key) {
  char *t = gql_arena_alloc(p->arena, key.len + 3);
  if (!t)
    return (gql_str){NULL, 0};
  t[0] = '"';
  memcpy(t + 1, key.ptr, key.len);
  t[key.len + 1] = '"';
  t[key.len + 2] = ':';
  return (gql_str){t, key.len + 3};
}

static gql_gw_sel *sel_add(planner *p, gql_gw_sel *parent, gql_str key,
                           gql_str name, const gql_ast_selection *field) {
  gql_gw_sel *s = sel_find(parent, key);
  if (s) {
    if (!gql_str_eq(s->name, name) && !p->conflict.ptr)
      p->conflict = key;
    return s;
  }
  s = gql_arena_alloc(p->arena, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->key = key;
  s->key_json = key_json(p, key);
  s->name = name;
  s->field = field;
  if (parent->last)
    parent->last->next = s;
  else
    parent->first = s;
  parent->last = s;
  parent->has_children = true;
  return s;
}

static int sel_add_set(planner *p, gql_gw_sel *dst, const gql_gw_sel *fs);

/* Adds selection `c` with everything below it to `dst`. */
static int sel_add_copy(planner *p, gql_gw_sel *dst, const gql_gw_sel *c) {
  gql_gw_sel *s = sel_add(p, dst, c->key, c->name, NULL);
  if (!s)
    return GQL_ENOMEM;
  if (!c->has_children)
    return 0;
  s->has_children = true;
  return sel_add_set(p, s, c);
}

/* Adds a field set (key, requires) below `dst`. */
static int sel_add_set(planner *p, gql_gw_sel *dst, const gql_gw_sel *fs) {
  for (const gql_gw_sel *c = fs->first; c; c = c->next) {
    int rc = sel_add_copy(p, dst, c);
    if (rc)
      return rc;
  }
  return 0;
}

static const gql_gw_sel TYPENAME_SET_CHILD = {.key = {"__typename", 10},
                                              .name = {"__typename", 10}};
static const gql_gw_sel TYPENAME_SET = {
    .first = (gql_gw_sel *)&TYPENAME_SET_CHILD,
    .last = (gql_gw_sel *)&TYPENAME_SET_CHILD,
    .has_children = true};

/* ---------------------------------------------------------- normalising */

typedef struct pending {
  gql_gw_sel *sel;
  const gql_ast_selection_set **sets;
  uint32_t n, cap;
} pending;

typedef struct level {
  pending *items;
  uint32_t n, cap;
} level;

static const gql_ast_fragment *find_fragment(const gql_document *doc,
                                             gql_ast_name name) {
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (n->kind != GQL_AST_FRAGMENT_DEFINITION)
      continue;
    const gql_ast_fragment *f = (const gql_ast_fragment *)n;
    if (gql_str_eq(gql_ast_name_str(f->name), gql_ast_name_str(name)))
      return f;
  }
  return NULL;
}

/* @skip / @include with literal conditions; a variable condition keeps the
 * selection (the subgraph sees the directive and decides). */
static bool included(const gql_ast_directives *ds) {
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    bool skip = gql_str_eq_cstr(gql_ast_name_str(d->name), "skip");
    bool incl = gql_str_eq_cstr(gql_ast_name_str(d->name), "include");
    if (!skip && !incl)
      continue;
    for (uint32_t j = 0; j < d->args.count; j++) {
      const gql_ast_value *v = d->args.items[j]->value;
      if (v->h.kind != GQL_AST_BOOLEAN_VALUE)
        continue;
      if (skip && v->u.boolean)
        return false;
      if (incl && !v->u.boolean)
        return false;
    }
  }
  return true;
}

static int pending_push(planner *p, level *lv, gql_gw_sel *sel,
                        const gql_ast_selection_set *set) {
  pending *pe = NULL;
  for (uint32_t i = 0; i < lv->n; i++)
    if (lv->items[i].sel == sel)
      pe = &lv->items[i];
  if (!pe) {
    if (lv->n == lv->cap) {
      uint32_t cap = lv->cap ? lv->cap * 2 : 8;
      lv->items =
          gql_arena_grow(p->arena, lv->items, lv->cap, cap, sizeof *lv->items);
      if (!lv->items)
        return GQL_ENOMEM;
      lv->cap = cap;
    }
    pe = &lv->items[lv->n++];
    memset(pe, 0, sizeof *pe);
    pe->sel = sel;
  }
  if (pe->n == pe->cap) {
    uint32_t cap = pe->cap ? pe->cap * 2 : 4;
    pe->sets =
        gql_arena_grow(p->arena, pe->sets, pe->cap, cap, sizeof *pe->sets);
    if (!pe->sets)
      return GQL_ENOMEM;
    pe->cap = cap;
  }
  pe->sets[pe->n++] = set;
  return 0;
}

static bool condition_applies(planner *p, const gql_ast_type *cond,
                              const gql_gw_type *t) {
  if (!cond)
    return true;
  gql_str name = gql_ast_name_str(cond->name);
  if (gql_str_eq(name, t->name))
    return true;
  const gql_gw_type *ct = gql_supergraph_type(p->sg, name);
  /* an object type: a fragment on an interface or union it belongs to */
  return ct && t->kind == GQL_AST_OBJECT_TYPE_DEFINITION &&
         gql_supergraph_satisfies(t, ct);
}

/* The client field `key` under condition `cond`, added when absent. */
static gql_gw_sel *client_add(planner *p, gql_gw_sel *dst, gql_str key,
                              gql_str name, const gql_ast_selection *field,
                              const gql_gw_type *cond) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (s->cond == cond && gql_str_eq(s->key, key))
      return s;
  if (++p->client_fields > MAX_CLIENT_FIELDS)
    return NULL; /* reported by the caller */
  gql_gw_sel *s = gql_arena_alloc(p->arena, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->key = key;
  s->key_json = key_json(p, key);
  s->name = name;
  s->field = field;
  s->cond = cond;
  dst->has_cond |= cond != NULL;
  if (dst->last)
    dst->last->next = s;
  else
    dst->first = s;
  dst->last = s;
  dst->has_children = true;
  return s;
}

static bool is_abstract(const gql_gw_type *t) {
  return t->kind == GQL_AST_INTERFACE_TYPE_DEFINITION ||
         t->kind == GQL_AST_UNION_TYPE_DEFINITION;
}

/* Collects the fields of `set` on type t into dst. Below an abstract type,
 * a fragment on another type gives its fields that type as condition. */
static int collect(planner *p, const gql_gw_type *t,
                   const gql_ast_selection_set *set, gql_gw_sel *dst,
                   level *next, unsigned depth, const gql_gw_type *cond) {
  if (depth > 64)
    FAIL(p, GQL_ELIMIT, "fragments nest too deeply");
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *s = set->selections.items[i];
    if (!included(&s->directives))
      continue;
    if (s->h.kind == GQL_AST_FIELD) {
      gql_str name = gql_ast_name_str(s->name);
      gql_str key = s->alias.ptr ? gql_ast_name_str(s->alias) : name;
      gql_gw_sel *c = client_add(p, dst, key, name, s, cond);
      if (!c && p->client_fields > MAX_CLIENT_FIELDS)
        FAIL(p, GQL_ELIMIT, "the operation selects more than %d fields",
             MAX_CLIENT_FIELDS);
      if (!c)
        return GQL_ENOMEM;
      c->def = gql_supergraph_field(cond ? cond : t, name);
      if (s->selection_set) {
        c->has_children = true;
        int rc = pending_push(p, next, c, s->selection_set);
        if (rc)
          return rc;
      }
      continue;
    }
    const gql_ast_type *type_cond = s->type_condition;
    const gql_ast_selection_set *sub = s->selection_set;
    if (s->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      const gql_ast_fragment *f = find_fragment(p->doc, s->name);
      if (!f)
        FAIL(p, GQL_EINVAL, "unknown fragment");
      type_cond = f->type_condition;
      sub = f->selection_set;
    }
    const gql_gw_type *owner = cond ? cond : t;
    const gql_gw_type *sub_cond = cond;
    if (!condition_applies(p, type_cond, owner)) {
      const gql_gw_type *ct =
          gql_supergraph_type(p->sg, gql_ast_name_str(type_cond->name));
      if (!ct)
        FAIL(p, GQL_EINVAL, "unknown type in a type condition");
      if (!is_abstract(owner))
        continue; /* this object never is such a type */
      sub_cond = ct;
    }
    int rc = collect(p, t, sub, dst, next, depth + 1, sub_cond);
    if (rc)
      return rc;
  }
  return 0;
}

/* Normalises the selection sets of `dst` (all merged) and below. */
static int normalise(planner *p, const gql_gw_type *t, gql_gw_sel *dst,
                     const gql_ast_selection_set **sets, uint32_t n,
                     unsigned depth) {
  if (depth > GQL_DEFAULT_MAX_DEPTH)
    FAIL(p, GQL_ELIMIT, "the operation nests too deeply");
  level next = {NULL, 0, 0};
  for (uint32_t i = 0; i < n; i++) {
    int rc = collect(p, t, sets[i], dst, &next, 0, NULL);
    if (rc)
      return rc;
  }
  for (uint32_t i = 0; i < next.n; i++) {
    pending *pe = &next.items[i];
    gql_str name = pe->sel->name;
    if (name.len > 2 && name.ptr[0] == '_' && name.ptr[1] == '_')
      FAIL(p, GQL_EUNSUPPORTED, "introspection is not planned yet");
    const gql_gw_field *f = pe->sel->def;
    if (!f)
      FAIL(p, GQL_EINVAL, "no field %.*s on %.*s", (int)pe->sel->name.len,
           pe->sel->name.ptr, (int)t->name.len, t->name.ptr);
    const gql_gw_type *ft = f->named;
    if (!ft)
      FAIL(p, GQL_EINVAL, "a selection on a scalar");
    int rc = normalise(p, ft, pe->sel, pe->sets, pe->n, depth + 1);
    if (rc)
      return rc;
  }
  return 0;
}

/* -------------------------------------------------------------- fetches */

static bool path_eq(const gql_gw_fetch *f, const gql_str *path, uint32_t n) {
  if (f->path_len != n)
    return false;
  for (uint32_t i = 0; i < n; i++)
    if (!gql_str_eq(f->path[i], path[i]))
      return false;
  return true;
}

static gql_gw_fetch *fetch_find(planner *p, uint32_t graph,
                                gql_gw_fetch *parent, gql_str type) {
  gql_gw_plan *plan = p->plan;
  for (uint32_t i = 0; i < plan->nfetches; i++) {
    gql_gw_fetch *f = plan->fetches[i];
    if (f->graph == graph && f->parent == parent &&
        gql_str_eq(f->type_name, type) && path_eq(f, p->path, p->path_len))
      return f;
  }
  return NULL;
}

static int fetch_get(planner *p, uint32_t graph, gql_gw_fetch *parent,
                     gql_str type, gql_gw_fetch **out) {
  gql_gw_fetch *f = fetch_find(p, graph, parent, type);
  if (f) {
    *out = f;
    return 0;
  }
  gql_gw_plan *plan = p->plan;
  if (plan->nfetches >= MAX_FETCHES)
    FAIL(p, GQL_ELIMIT, "the plan needs more than %d fetches", MAX_FETCHES);
  if (plan->nfetches == p->fetch_cap) {
    uint32_t cap = p->fetch_cap ? p->fetch_cap * 2 : 16;
    plan->fetches = gql_arena_grow(p->arena, plan->fetches, p->fetch_cap, cap,
                                   sizeof *plan->fetches);
    if (!plan->fetches)
      return GQL_ENOMEM;
    p->fetch_cap = cap;
  }
  f = gql_arena_alloc(p->arena, sizeof *f);
  if (!f)
    return GQL_ENOMEM;
  memset(f, 0, sizeof *f);
  f->id = plan->nfetches;
  f->graph = graph;
  f->parent = parent;
  f->type_name = type;
  f->path_len = p->path_len;
  f->path = gql_arena_alloc(p->arena, (p->path_len + 1) * sizeof *f->path);
  if (!f->path)
    return GQL_ENOMEM;
  memcpy(f->path, p->path, p->path_len * sizeof *f->path);
  if (parent) {
    f->requires = gql_arena_alloc(p->arena, sizeof *f->requires);
    if (!f->requires)
      return GQL_ENOMEM;
    memset(f->requires, 0, sizeof *f->requires);
    if (sel_add_set(p, f->requires, &TYPENAME_SET))
      return GQL_ENOMEM;
    parent->has_dependents = true;
  }
  plan->fetches[plan->nfetches++] = f;
  *out = f;
  return 0;
}

static int fetch_depend(planner *p, gql_gw_fetch *f, gql_gw_fetch *dep) {
  if (f == dep)
    return 0;
  for (uint32_t i = 0; i < f->ndeps; i++)
    if (f->deps[i] == dep)
      return 0;
  if (f->ndeps == f->deps_cap) {
    uint32_t cap = f->deps_cap ? f->deps_cap * 2 : 4;
    f->deps =
        gql_arena_grow(p->arena, f->deps, f->deps_cap, cap, sizeof *f->deps);
    if (!f->deps)
      return GQL_ENOMEM;
    f->deps_cap = cap;
  }
  f->deps[f->ndeps++] = dep;
  dep->has_dependents = true;
  return 0;
}

/* The field's @join__field for `graph`, or NULL. */
static const gql_gw_field_graph *field_graph(const gql_gw_field *f,
                                             uint32_t graph) {
  for (uint32_t i = 0; i < f->ngraphs; i++)
    if (f->graphs[i].graph == graph)
      return &f->graphs[i];
  return NULL;
}

/* A subgraph that resolves t.f and can look t up by a key; prefers one
 * that already has an entity fetch at this path below `parent`. */
static int64_t owner_of(planner *p, const gql_gw_type *t, const gql_gw_field *f,
                        gql_gw_fetch *parent) {
  int64_t first = -1;
  for (uint32_t g = 0; g < p->sg->ngraphs; g++) {
    if (!gql_supergraph_resolves(t, f, g))
      continue;
    const gql_gw_type_graph *tg = gql_supergraph_type_graph(t, g);
    if (!tg || !tg->key || !tg->resolvable)
      continue;
    if (fetch_find(p, g, parent, t->name))
      return g;
    if (first < 0)
      first = g;
  }
  return first;
}

static int path_push(planner *p, gql_str key, uint32_t lists) {
  if (p->path_len + 1 + lists > MAX_PATH)
    FAIL(p, GQL_ELIMIT, "the operation nests too deeply");
  p->path[p->path_len++] = key;
  for (uint32_t i = 0; i < lists; i++)
    p->path[p->path_len++] = AT;
  return 0;
}

static int walk(planner *p, gql_gw_fetch *f, gql_gw_sel *dst,
                const gql_gw_type *t, const gql_gw_sel *client,
                const gql_gw_sel *provided);

/* The entity fetch of `t` in subgraph `graph` below fetch `f`: `dst` (in
 * f's answer) gets __typename and the key the representations carry, and
 * the entity fetch requires that key. */
static int entity_fetch(planner *p, uint32_t graph, gql_gw_fetch *f,
                        const gql_gw_type *t, gql_gw_sel *dst,
                        gql_gw_fetch **out) {
  int rc = fetch_get(p, graph, f, t->name, out);
  if (rc)
    return rc;
  const gql_gw_type_graph *tg = gql_supergraph_type_graph(t, (*out)->graph);
  if (sel_add_set(p, dst, &TYPENAME_SET) || sel_add_set(p, dst, tg->key) ||
      sel_add_set(p, (*out)->requires, tg->key))
    return GQL_ENOMEM;
  return 0;
}

/* Makes the fields of `req` (a @requires field set of t) available at
 * the current path for `g`: from `f` when its subgraph resolves them, else
 * from an entity fetch that `g` then depends on. */
static int plan_requires(planner *p, gql_gw_fetch *f, gql_gw_sel *dst,
                         const gql_gw_type *t, const gql_gw_sel *req,
                         gql_gw_fetch *g) {
  for (const gql_gw_sel *r = req->first; r; r = r->next) {
    const gql_gw_field *rf = gql_supergraph_field(t, r->name);
    if (!rf)
      FAIL(p, GQL_ESCHEMA, "@requires names an unknown field %.*s",
           (int)r->name.len, r->name.ptr);
    if (sel_add_copy(p, g->requires, r))
      return GQL_ENOMEM;
    if (gql_supergraph_resolves(t, rf, f->graph)) {
      if (sel_add_copy(p, dst, r))
        return GQL_ENOMEM;
      continue;
    }
    int64_t owner = owner_of(p, t, rf, f);
    if (owner < 0 || (uint32_t)owner == g->graph)
      FAIL(p, GQL_EUNSUPPORTED, "no subgraph can provide %.*s.%.*s",
           (int)t->name.len, t->name.ptr, (int)r->name.len, r->name.ptr);
    gql_gw_fetch *h;
    int rc = entity_fetch(p, (uint32_t)owner, f, t, dst, &h);
    if (rc)
      return rc;
    if (sel_add_copy(p, &h->root, r))
      return GQL_ENOMEM;
    rc = fetch_depend(p, g, h);
    if (rc)
      return rc;
  }
  return 0;
}

/* Plans client field `c` (of t) in entity fetch of another subgraph. */
static int plan_jump(planner *p, gql_gw_fetch *f, gql_gw_sel *dst,
                     const gql_gw_type *t, const gql_gw_field *field,
                     const gql_gw_sel *c) {
  int64_t owner = owner_of(p, t, field, f);
  if (owner < 0)
    FAIL(p, GQL_EUNSUPPORTED, "no subgraph can resolve %.*s.%.*s by a key",
         (int)t->name.len, t->name.ptr, (int)c->name.len, c->name.ptr);
  gql_gw_fetch *g;
  int rc = entity_fetch(p, (uint32_t)owner, f, t, dst, &g);
  if (rc)
    return rc;
  const gql_gw_field_graph *fg = field_graph(field, g->graph);
  if (fg && fg->requires) {
    rc = plan_requires(p, f, dst, t, fg->requires, g);
    if (rc)
      return rc;
  }
  gql_gw_sel *s = sel_add(p, &g->root, c->key, c->name, c->field);
  if (!s)
    return GQL_ENOMEM;
  if (!c->has_children)
    return 0;
  s->has_children = true;
  const gql_gw_type *ft = gql_supergraph_type(p->sg, field->type_name);
  uint32_t saved = p->path_len;
  rc = path_push(p, c->key, field->list_depth);
  if (!rc)
    rc = walk(p, g, s, ft, c, fg ? fg->provides : NULL);
  p->path_len = saved;
  return rc;
}

/* The inline fragment `... on t` below dst, added when absent. */
static gql_gw_sel *fragment_node(planner *p, gql_gw_sel *dst,
                                 const gql_gw_type *t) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (s->fragment && gql_str_eq(s->name, t->name))
      return s;
  gql_gw_sel *s = gql_arena_alloc(p->arena, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->key = s->name = t->name;
  s->fragment = true;
  s->has_children = true;
  if (dst->last)
    dst->last->next = s;
  else
    dst->first = s;
  dst->last = s;
  dst->has_children = true;
  return s;
}

static int walk(planner *p, gql_gw_fetch *f, gql_gw_sel *dst0,
                const gql_gw_type *t0, const gql_gw_sel *client,
                const gql_gw_sel *provided) {
  /* the merge and the projection need the concrete type of these */
  if (is_abstract(t0) &&
      !sel_add(p, dst0, GQL_STR("__typename"), GQL_STR("__typename"), NULL))
    return GQL_ENOMEM;
  for (const gql_gw_sel *c = client->first; c; c = c->next) {
    const gql_gw_type *t = t0;
    gql_gw_sel *dst = dst0;
    if (c->cond && c->cond != t0) {
      t = c->cond;
      dst = fragment_node(p, dst0, t);
      if (!dst)
        return GQL_ENOMEM;
    }
    if (gql_str_eq_cstr(c->name, "__typename")) {
      if (!sel_add(p, dst, c->key, c->name, c->field))
        return GQL_ENOMEM;
      continue;
    }
    const gql_gw_field *field = gql_supergraph_field(t, c->name);
    if (!field)
      FAIL(p, GQL_EINVAL, "no field %.*s on %.*s", (int)c->name.len,
           c->name.ptr, (int)t->name.len, t->name.ptr);
    const gql_gw_sel *prov =
        provided ? sel_find((gql_gw_sel *)provided, c->name) : NULL;
    bool here = gql_supergraph_resolves(t, field, f->graph) ||
                (prov && gql_supergraph_type_graph(t, f->graph));
    if (!here) {
      int rc = plan_jump(p, f, dst, t, field, c);
      if (rc)
        return rc;
      continue;
    }
    gql_gw_sel *s = sel_add(p, dst, c->key, c->name, c->field);
    if (!s)
      return GQL_ENOMEM;
    if (!c->has_children)
      continue;
    s->has_children = true;
    const gql_gw_type *ft = gql_supergraph_type(p->sg, field->type_name);
    const gql_gw_field_graph *fg = field_graph(field, f->graph);
    const gql_gw_sel *sub = fg && fg->provides           ? fg->provides
                            : prov && prov->has_children ? prov
                                                         : NULL;
    uint32_t saved = p->path_len;
    int rc = path_push(p, c->key, field->list_depth);
    if (!rc)
      rc = walk(p, f, s, ft, c, sub);
    p->path_len = saved;
    if (rc)
      return rc;
  }
  return 0;
}

/* Root fields go to the fetch of the first subgraph resolving them. A
 * mutation's fields run one after the other: consecutive fields of one
 * subgraph share a fetch (the subgraph runs them in order), and each
 * other fetch waits for everything planned before it. */
static int plan_root(planner *p, const gql_gw_type *root) {
  bool serial = p->op->operation == GQL_OP_MUTATION;
  int64_t last_graph = -1;
  uint32_t segment = 0, before = 0;
  gql_str seg_name = {NULL, 0};
  for (gql_gw_sel *c = p->plan->client.first; c; c = c->next) {
    if (gql_str_eq_cstr(c->name, "__typename"))
      continue; /* the gateway's */
    if (c->name.len > 2 && c->name.ptr[0] == '_' && c->name.ptr[1] == '_')
      FAIL(p, GQL_EUNSUPPORTED, "introspection is not planned yet");
    const gql_gw_field *field = gql_supergraph_field(root, c->name);
    if (!field)
      FAIL(p, GQL_EINVAL, "no field %.*s on %.*s", (int)c->name.len,
           c->name.ptr, (int)root->name.len, root->name.ptr);
    int64_t graph = -1;
    for (uint32_t g = 0; g < p->sg->ngraphs && graph < 0; g++)
      if (gql_supergraph_resolves(root, field, g))
        graph = g;
    if (graph < 0)
      FAIL(p, GQL_ESCHEMA, "no subgraph resolves %.*s.%.*s",
           (int)root->name.len, root->name.ptr, (int)c->name.len, c->name.ptr);
    gql_gw_fetch *f;
    p->path_len = 0;
    if (serial && graph != last_graph) {
      /* a new segment: a root fetch of its own, after all before it */
      before = p->plan->nfetches;
      char *name = gql_arena_sprintf(p->arena, "#%u", segment++);
      if (!name)
        return GQL_ENOMEM;
      seg_name = gql_cstr(name);
      last_graph = graph;
    }
    int rc = fetch_get(p, (uint32_t)graph, NULL, seg_name, &f);
    if (rc)
      return rc;
    for (uint32_t i = 0; serial && i < before; i++) {
      rc = fetch_depend(p, f, p->plan->fetches[i]);
      if (rc)
        return rc;
    }
    /* plan the one field through walk() on a one-field client list */
    gql_gw_sel one = *c, holder;
    one.next = NULL;
    memset(&holder, 0, sizeof holder);
    holder.first = holder.last = &one;
    rc = walk(p, f, &f->root, root, &holder, NULL);
    if (rc)
      return rc;
  }
  return 0;
}

/* ------------------------------------------------------ waves, batches */

static int level_of(planner *p, gql_gw_fetch *f, uint32_t *out) {
  if (f->level) {
    *out = f->level;
    return 0;
  }
  if (f->visiting)
    FAIL(p, GQL_EUNSUPPORTED, "the fetches depend in a cycle");
  f->visiting = true;
  uint32_t lv = 1, l;
  if (f->parent) {
    int rc = level_of(p, f->parent, &l);
    if (rc)
      return rc;
    if (l + 1 > lv)
      lv = l + 1;
  }
  for (uint32_t i = 0; i < f->ndeps; i++) {
    int rc = level_of(p, f->deps[i], &l);
    if (rc)
      return rc;
    if (l + 1 > lv)
      lv = l + 1;
  }
  f->visiting = false;
  f->level = *out = lv;
  return 0;
}

static bool batch_exists(const gql_gw_plan *plan, uint32_t graph,
                         uint32_t level) {
  for (uint32_t i = 0; i < plan->nfetches; i++)
    if (plan->fetches[i]->graph == graph && plan->fetches[i]->level == level)
      return true;
  return false;
}

/* Moves the entity fetches of a (subgraph, wave) that nothing depends on
 * to the latest later wave that talks to that subgraph anyway. */
static void defer_leaves(gql_gw_plan *plan) {
  for (uint32_t lv = plan->nlevels; lv >= 2; lv--) {
    for (uint32_t g = 0; g < plan->sg->ngraphs; g++) {
      bool any = false, all_leaves = true;
      for (uint32_t i = 0; i < plan->nfetches; i++) {
        const gql_gw_fetch *f = plan->fetches[i];
        if (f->graph != g || f->level != lv)
          continue;
        any = true;
        if (f->has_dependents || !f->parent)
          all_leaves = false;
      }
      if (!any || !all_leaves)
        continue;
      uint32_t to = 0;
      for (uint32_t l2 = plan->nlevels; l2 > lv && !to; l2--)
        if (batch_exists(plan, g, l2))
          to = l2;
      if (!to)
        continue;
      for (uint32_t i = 0; i < plan->nfetches; i++)
        if (plan->fetches[i]->graph == g && plan->fetches[i]->level == lv)
          plan->fetches[i]->level = to;
    }
  }
}

static void print_args(gql_buf *out, const gql_ast_selection *field) {
  if (!field || field->args.count == 0)
    return;
  gql_buf_putc(out, '(');
  for (uint32_t i = 0; i < field->args.count; i++) {
    if (i)
      gql_buf_putc(out, ',');
    gql_buf_put_str(out, gql_ast_name_str(field->args.items[i]->name));
    gql_buf_putc(out, ':');
    gql_print_value(out, field->args.items[i]->value);
  }
  gql_buf_putc(out, ')');
}

/* `a:b(x:1){c d}` (compact) or `a: b(x:1) { c d }` (spaced). */
static void print_sels(gql_buf *out, const gql_gw_sel *parent, bool spaced) {
  gql_buf_puts(out, spaced ? "{ " : "{");
  for (const gql_gw_sel *s = parent->first; s; s = s->next) {
    if (s != parent->first)
      gql_buf_putc(out, ' ');
    if (s->fragment) {
      gql_buf_puts(out, spaced ? "... on " : "...on ");
      gql_buf_put_str(out, s->name);
      if (spaced)
        gql_buf_putc(out, ' ');
      print_sels(out, s, spaced);
      continue;
    }
    if (!gql_str_eq(s->key, s->name)) {
      gql_buf_put_str(out, s->key);
      gql_buf_puts(out, spaced ? ": " : ":");
    }
    gql_buf_put_str(out, s->name);
    print_args(out, s->field);
    if (s->has_children) {
      if (spaced)
        gql_buf_putc(out, ' ');
      print_sels(out, s, spaced);
    }
  }
  gql_buf_puts(out, spaced ? " }" : "}");
}

/* Variables of the client operation used in a selection's arguments. */
static void mark_vars(const gql_ast_value *v, const gql_ast_operation *op,
                      bool *used) {
  if (!v)
    return;
  if (v->h.kind == GQL_AST_VARIABLE) {
    for (uint32_t i = 0; i < op->variables.count; i++)
      if (gql_str_eq(gql_ast_name_str(op->variables.items[i]->variable->u.name),
                     gql_ast_name_str(v->u.name)))
        used[i] = true;
  } else if (v->h.kind == GQL_AST_LIST_VALUE) {
    for (uint32_t i = 0; i < v->u.list.count; i++)
      mark_vars(v->u.list.items[i], op, used);
  } else if (v->h.kind == GQL_AST_OBJECT_VALUE) {
    for (uint32_t i = 0; i < v->u.fields.count; i++)
      mark_vars(v->u.fields.items[i]->value, op, used);
  }
}

static void mark_sel_vars(const gql_gw_sel *parent, const gql_ast_operation *op,
                          bool *used) {
  for (const gql_gw_sel *s = parent->first; s; s = s->next) {
    if (s->field)
      for (uint32_t i = 0; i < s->field->args.count; i++)
        mark_vars(s->field->args.items[i]->value, op, used);
    mark_sel_vars(s, op, used);
  }
}

/* The text that decides whether two entity fetches can share a field. */
static int fetch_shape(gql_arena *a, const gql_gw_fetch *f, gql_str *out) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_put_str(&b, f->type_name);
  print_sels(&b, f->requires, false);
  print_sels(&b, &f->root, false);
  char *s = b.failed ? NULL : gql_arena_strndup(a, b.data, b.len);
  *out = (gql_str){s, b.len};
  gql_buf_free(&b);
  return s ? 0 : GQL_ENOMEM;
}

static int assign_fields(planner *p, gql_gw_batch *b) {
  b->field = gql_arena_alloc(p->arena, (b->nfetches + 1) * sizeof *b->field);
  gql_str *shapes =
      gql_arena_alloc(p->arena, (b->nfetches + 1) * sizeof *shapes);
  if (!b->field || !shapes)
    return GQL_ENOMEM;
  b->nfields = 0;
  for (uint32_t i = 0; i < b->nfetches; i++) {
    b->field[i] = UINT32_MAX;
    if (!b->fetches[i]->parent)
      continue;
    int rc = fetch_shape(p->arena, b->fetches[i], &shapes[i]);
    if (rc)
      return rc;
    for (uint32_t j = 0; j < i && b->field[i] == UINT32_MAX; j++)
      if (b->field[j] != UINT32_MAX && gql_str_eq(shapes[i], shapes[j]))
        b->field[i] = b->field[j];
    if (b->field[i] == UINT32_MAX)
      b->field[i] = b->nfields++;
  }
  return 0;
}

/* The GraphQL operation of a batch (see gql_gw_batch). */
static int batch_operation(planner *p, gql_gw_batch *b) {
  const gql_ast_operation *op = p->op;
  bool *used = gql_arena_alloc(p->arena, op->variables.count + 1);
  if (!used)
    return GQL_ENOMEM;
  memset(used, 0, op->variables.count + 1);
  for (uint32_t i = 0; i < b->nfetches; i++)
    mark_sel_vars(&b->fetches[i]->root, op, used);
  gql_buf out;
  gql_buf_init(&out, NULL);
  bool root_batch = b->nfetches && !b->fetches[0]->parent;
  gql_buf_puts(&out, root_batch && op->operation == GQL_OP_MUTATION ? "mutation"
                                                                    : "query");
  bool open = false;
  uint32_t nent = b->nfields;
  for (uint32_t k = 0; k < nent; k++) {
    gql_buf_puts(&out, open ? "," : "(");
    open = true;
    if (nent == 1)
      gql_buf_puts(&out, "$representations:[_Any!]!");
    else
      gql_buf_printf(&out, "$r%u:[_Any!]!", k);
  }
  b->variables = gql_arena_alloc(p->arena, (op->variables.count + 1) *
                                               sizeof *b->variables);
  if (!b->variables)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < op->variables.count; i++) {
    if (!used[i])
      continue;
    const gql_ast_variable_definition *vd = op->variables.items[i];
    b->variables[b->nvariables++] = gql_ast_name_str(vd->variable->u.name);
    gql_buf_puts(&out, open ? "," : "(");
    open = true;
    gql_buf_putc(&out, '$');
    gql_buf_put_str(&out, gql_ast_name_str(vd->variable->u.name));
    gql_buf_putc(&out, ':');
    gql_print_type(&out, vd->type);
    if (vd->default_value) {
      gql_buf_putc(&out, '=');
      gql_print_value(&out, vd->default_value);
    }
  }
  if (open)
    gql_buf_putc(&out, ')');
  gql_buf_putc(&out, '{');
  uint32_t printed = 0;
  for (uint32_t i = 0, k = 0; i < b->nfetches; i++) {
    const gql_gw_fetch *f = b->fetches[i];
    if (f->parent && b->field[i] != k)
      continue; /* shares the field of an earlier fetch */
    if (printed++)
      gql_buf_putc(&out, ' ');
    if (!f->parent) {
      /* root fields, without the braces of their selection set */
      gql_buf tmp;
      gql_buf_init(&tmp, NULL);
      print_sels(&tmp, &f->root, false);
      if (tmp.len >= 2)
        gql_buf_append(&out, tmp.data + 1, tmp.len - 2);
      out.failed |= tmp.failed;
      gql_buf_free(&tmp);
      continue;
    }
    if (nent == 1)
      gql_buf_puts(&out, "_entities(representations:$representations)");
    else
      gql_buf_printf(&out, "_%u:_entities(representations:$r%u)", k, k);
    k++;
    gql_buf_puts(&out, "{...on ");
    gql_buf_put_str(&out, f->type_name);
    print_sels(&out, &f->root, false);
    gql_buf_putc(&out, '}');
  }
  gql_buf_putc(&out, '}');
  int rc = out.failed ? GQL_ENOMEM : 0;
  if (!rc) {
    char *s = gql_arena_strndup(p->arena, out.data, out.len);
    if (!s)
      rc = GQL_ENOMEM;
    b->operation = (gql_str){s, out.len};
  }
  gql_buf_free(&out);
  return rc;
}

static int make_batches(planner *p) {
  gql_gw_plan *plan = p->plan;
  plan->nlevels = 0;
  for (uint32_t i = 0; i < plan->nfetches; i++) {
    uint32_t lv;
    int rc = level_of(p, plan->fetches[i], &lv);
    if (rc)
      return rc;
    if (lv > plan->nlevels)
      plan->nlevels = lv;
  }
  defer_leaves(plan);
  plan->batches =
      gql_arena_alloc(p->arena, (plan->nfetches + 1) * sizeof *plan->batches);
  if (!plan->batches)
    return GQL_ENOMEM;
  for (uint32_t lv = 1; lv <= plan->nlevels; lv++) {
    for (uint32_t i = 0; i < plan->nfetches; i++) {
      gql_gw_fetch *f = plan->fetches[i];
      if (f->level != lv)
        continue;
      gql_gw_batch *b = NULL;
      for (uint32_t j = 0; j < plan->nbatches; j++)
        if (plan->batches[j].level == lv &&
            plan->batches[j].graph == f->graph &&
            !plan->batches[j].fetches[0]->parent == !f->parent)
          b = &plan->batches[j]; /* root and entity fetches never mix */
      if (!b) {
        b = &plan->batches[plan->nbatches++];
        memset(b, 0, sizeof *b);
        b->graph = f->graph;
        b->level = lv;
        b->fetches = gql_arena_alloc(p->arena,
                                     (plan->nfetches + 1) * sizeof *b->fetches);
        if (!b->fetches)
          return GQL_ENOMEM;
      }
      b->fetches[b->nfetches++] = f;
    }
  }
  for (uint32_t j = 0; j < plan->nbatches; j++) {
    int rc = assign_fields(p, &plan->batches[j]);
    if (!rc)
      rc = batch_operation(p, &plan->batches[j]);
    if (rc)
      return rc;
  }
  return 0;
}

/* ---------------------------------------------------------------- build */

static const gql_ast_operation *find_operation(const gql_document *doc,
                                               const char *name) {
  const gql_ast_operation *found = NULL;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (n->kind != GQL_AST_OPERATION_DEFINITION)
      continue;
    const gql_ast_operation *op = (const gql_ast_operation *)n;
    if (name) {
      if (gql_str_eq_cstr(gql_ast_name_str(op->name), name))
        return op;
    } else {
      if (found)
        return NULL; /* several: a name is needed */
      found = op;
    }
  }
  return found;
}

int gql_gw_plan_build(const gql_supergraph *sg, const gql_document *doc,
                      const char *operation_name, gql_arena *arena,
                      gql_gw_plan **out, const char **err) {
  const char *dummy;
  planner p;
  memset(&p, 0, sizeof p);
  p.sg = sg;
  p.doc = doc;
  p.arena = arena;
  p.err = err ? err : &dummy;
  *p.err = NULL;
  p.op = find_operation(doc, operation_name);
  if (!p.op)
    FAIL(&p, GQL_EINVAL, "no such operation");
  if (p.op->operation == GQL_OP_SUBSCRIPTION)
    FAIL(&p, GQL_EUNSUPPORTED, "subscriptions are not planned yet");
  const gql_gw_type *root = gql_supergraph_type(
      sg,
      p.op->operation == GQL_OP_MUTATION ? sg->mutation_type : sg->query_type);
  if (!root)
    FAIL(&p, GQL_ESCHEMA, "the supergraph has no root type for this operation");
  p.plan = gql_arena_alloc(arena, sizeof *p.plan);
  if (!p.plan)
    return GQL_ENOMEM;
  memset(p.plan, 0, sizeof *p.plan);
  p.plan->sg = sg;
  p.plan->op = p.op;
  p.plan->root = root;
  const gql_ast_selection_set *set = p.op->selection_set;
  int rc = normalise(&p, root, &p.plan->client, &set, 1, 0);
  if (!rc)
    rc = plan_root(&p, root);
  if (!rc && p.conflict.ptr)
    FAIL(&p, GQL_EUNSUPPORTED,
         "the response key \"%.*s\" is used for another field than the "
         "entity key or @requires field of that name",
         (int)p.conflict.len, p.conflict.ptr);
  if (!rc)
    rc = make_batches(&p);
  if (rc) {
    if (!*p.err)
      *p.err = gql_strerror(rc);
    return rc;
  }
  *out = p.plan;
  return 0;
}

/* ---------------------------------------------------------------- print */

static void indent(gql_buf *out, int n) {
  for (int i = 0; i < n; i++)
    gql_buf_puts(out, "  ");
}

static void print_path(gql_buf *out, const gql_gw_fetch *f) {
  for (uint32_t i = 0; i < f->path_len; i++) {
    if (i)
      gql_buf_putc(out, '.');
    gql_buf_put_str(out, f->path[i]);
  }
}

static void print_entity(gql_buf *out, const gql_gw_fetch *f, int d) {
  indent(out, d);
  gql_buf_puts(out, "Flatten(path: \"");
  print_path(out, f);
  gql_buf_puts(out, "\") {\n");
  indent(out, d + 1);
  gql_buf_puts(out, "{ ... on ");
  gql_buf_put_str(out, f->type_name);
  gql_buf_putc(out, ' ');
  print_sels(out, f->requires, true);
  gql_buf_puts(out, " } =>\n");
  indent(out, d + 1);
  gql_buf_puts(out, "{ ... on ");
  gql_buf_put_str(out, f->type_name);
  gql_buf_putc(out, ' ');
  print_sels(out, &f->root, true);
  gql_buf_puts(out, " }\n");
  indent(out, d);
  gql_buf_puts(out, "},\n");
}

static void print_batch(gql_buf *out, const gql_gw_plan *plan,
                        const gql_gw_batch *b, int d) {
  const gql_gw_graph *g = &plan->sg->graphs[b->graph];
  indent(out, d);
  gql_buf_puts(out, "Fetch(service: \"");
  gql_buf_put_str(out, g->name);
  gql_buf_putc(out, '"');
  if (b->nfetches > 1)
    gql_buf_printf(out, ", batch: %u", b->nfetches);
  gql_buf_puts(out, ") {\n");
  for (uint32_t i = 0; i < b->nfetches; i++) {
    const gql_gw_fetch *f = b->fetches[i];
    if (f->parent) {
      print_entity(out, f, d + 1);
      continue;
    }
    indent(out, d + 1);
    print_sels(out, &f->root, true);
    gql_buf_putc(out, '\n');
  }
  indent(out, d);
  gql_buf_puts(out, "},\n");
}

void gql_gw_plan_print(const gql_gw_plan *plan, gql_buf *out) {
  gql_buf_puts(out, "QueryPlan {\n");
  bool seq = plan->nlevels > 1;
  int d = 1;
  if (seq) {
    indent(out, d++);
    gql_buf_puts(out, "Sequence {\n");
  }
  for (uint32_t lv = 1; lv <= plan->nlevels; lv++) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < plan->nbatches; j++)
      n += plan->batches[j].level == lv;
    if (n == 0)
      continue;
    if (n > 1) {
      indent(out, d++);
      gql_buf_puts(out, "Parallel {\n");
    }
    for (uint32_t j = 0; j < plan->nbatches; j++)
      if (plan->batches[j].level == lv)
        print_batch(out, plan, &plan->batches[j], d);
    if (n > 1) {
      indent(out, --d);
      gql_buf_puts(out, "},\n");
    }
  }
  if (seq) {
    indent(out, --d);
    gql_buf_puts(out, "},\n");
  }
  gql_buf_puts(out, "}\n");
}
