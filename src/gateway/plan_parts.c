/*
 * The planner's parts that need no search: fetches and their dependencies,
 * fetch selections (tree keys, private and type-conflict aliases,
 * fragments), representation trees, the groups of a position, and what a
 * subgraph gives at a position (its own fields, @provides, entity jumps
 * by key or through an @interfaceObject).
 */
#include "plan_search.h"
#include "json/json.h"

/* Records that the plan depends on label i; whether it is on. */
bool pl_label_on(gw_planner *p, int32_t i) {
  uint64_t bit = (uint64_t)1 << i;
  p->plan->key.label_mask |= bit;
  if (p->labels & bit)
    p->plan->key.label_vals |= bit;
  return (p->labels & bit) != 0;
}

/* Whether a subgraph's field entry resolves the field for this request
 * (internal: for the gateway's keys and requires, which an overridden
 * field still gives). */
bool pl_usable(gw_planner *p, const gql_gw_field_graph *fg, bool internal) {
  if (!fg || fg->external)
    return false;
  if (fg->label >= 0)
    return pl_label_on(p, fg->label) == fg->label_on;
  return !fg->used_overridden || internal;
}

/* The child named `name` of a provided selection that applies to t. */
const gql_gw_sel *pl_provided_child(const gql_gw_sel *prov,
                                    const gql_gw_type *t, gql_str name) {
  if (!prov)
    return NULL;
  for (const gql_gw_sel *s = prov->first; s; s = s->next)
    if (gql_str_eq(s->name, name) && gw_applies(t, s))
      return s;
  return NULL;
}

bool pl_args_equal(const gql_ast_selection *a, const gql_ast_selection *b) {
  uint32_t na = a ? a->args.count : 0, nb = b ? b->args.count : 0;
  if (na != nb)
    return false;
  if (na == 0)
    return true;
  gql_buf x, y;
  gql_buf_init(&x, NULL);
  gql_buf_init(&y, NULL);
  bool eq = true;
  for (uint32_t i = 0; i < na && eq; i++) {
    const gql_ast_argument *ai = a->args.items[i], *bi = NULL;
    for (uint32_t j = 0; j < nb; j++)
      if (gql_str_eq(gql_ast_name_str(b->args.items[j]->name),
                     gql_ast_name_str(ai->name)))
        bi = b->args.items[j];
    if (!bi)
      eq = false;
    if (!eq)
      break;
    x.len = y.len = 0;
    gql_print_value(&x, ai->value);
    gql_print_value(&y, bi->value);
    eq = !x.failed && !y.failed && x.len == y.len &&
         memcmp(x.data, y.data, x.len) == 0;
  }
  gql_buf_free(&x);
  gql_buf_free(&y);
  return eq;
}

bool pl_same_field(const gql_gw_sel *a, const gql_gw_sel *b) {
  return gql_str_eq(a->name, b->name) && pl_args_equal(a->field, b->field);
}

uint64_t pl_path_hash(const gw_planner *p, uint32_t len) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < len; i++) {
    for (size_t k = 0; k < p->path[i].len; k++)
      h = (h ^ (unsigned char)p->path[i].ptr[k]) * 1099511628211ull;
    h = (h ^ '.') * 1099511628211ull;
  }
  return h;
}

/* The tree key of a gateway field at this position: its name, unless the
 * client's selection here or another gateway field at this path uses that
 * key for something else (another field, other arguments): then a private
 * alias, the same for every fetch that gives the field here. */
int pl_gateway_key(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                   gql_str *out) {
  uint64_t ph = pl_path_hash(p, ps->path_len);
  bool conflict = false;
  for (gw_tkey *e = p->tkeys; e; e = e->next) {
    if (e->path != ph)
      continue;
    if (pl_same_field(e->field, c)) {
      *out = e->key;
      return 0;
    }
    if (gql_str_eq(e->key, c->name))
      conflict = true;
  }
  if (ps->client)
    for (const gql_gw_sel *s = ps->client->first; s && !conflict; s = s->next)
      if (gql_str_eq(s->key, c->name) && !pl_same_field(s, c))
        conflict = true;
  gql_str key = c->name;
  if (conflict) {
    char *k = gql_arena_sprintf(p->arena, "%.*s__gw%u", (int)c->name.len,
                                c->name.ptr, ++p->alias_seq);
    if (!k)
      return GQL_ENOMEM;
    key = gql_cstr(k);
  }
  gw_tkey *e = gql_arena_alloc(p->arena, sizeof *e);
  if (!e)
    return GQL_ENOMEM;
  *e = (gw_tkey){ph, c, key, p->tkeys};
  p->tkeys = e;
  *out = key;
  return 0;
}

int pl_path_push(gw_planner *p, gql_str key, uint32_t lists) {
  if (p->path_len + 1 + lists > GW_MAX_PATH)
    GW_FAIL(p, GQL_ELIMIT, "the operation nests too deeply");
  p->path[p->path_len++] = key;
  for (uint32_t i = 0; i < lists; i++)
    p->path[p->path_len++] = PL_AT;
  return 0;
}

bool pl_guarded(const gw_planner *p, const void *what, uint32_t graph) {
  for (uint32_t i = 0; i < p->guard_depth; i++)
    if (p->guards[i].what == what && p->guards[i].graph == graph)
      return true;
  return false;
}

bool pl_guard_push(gw_planner *p, const void *what, uint32_t graph) {
  if (p->guard_depth >= GW_MAX_GUARDS)
    return false;
  p->guards[p->guard_depth++] = (gw_guard){what, graph};
  return true;
}

int pl_add_dep(gw_planner *p, pos *ps, gql_gw_fetch *f) {
  deps *d = ps->deps;
  if (!d || !f)
    return 0;
  for (uint32_t i = 0; i < d->n; i++)
    if (d->items[i] == f)
      return 0;
  if (!GQL_ARRAY_RESERVE(p->arena, d->items, d->cap, d->n + 1))
    return GQL_ENOMEM;
  d->items[d->n++] = f;
  return 0;
}

int pl_fetch_depend(gw_planner *p, gql_gw_fetch *f, gql_gw_fetch *dep) {
  if (f == dep)
    return 0;
  for (uint32_t i = 0; i < f->ndeps; i++)
    if (f->deps[i] == dep)
      return 0;
  if (!GQL_ARRAY_RESERVE_FIRST(p->arena, f->deps, f->deps_cap, f->ndeps + 1, 4))
    return GQL_ENOMEM;
  f->deps[f->ndeps++] = dep;
  dep->has_dependents = true;
  return 0;
}

static bool pl_reaches(gql_gw_fetch *from, gql_gw_fetch *to, uint32_t mark) {
  if (from == to)
    return true;
  if (from->mark == mark)
    return false;
  from->mark = mark;
  if (from->parent && pl_reaches(from->parent, to, mark))
    return true;
  for (uint32_t i = 0; i < from->ndeps; i++)
    if (pl_reaches(from->deps[i], to, mark))
      return true;
  return false;
}

/* Whether fetch `f` (transitively) comes after `g`. */
bool pl_depends_on(gw_planner *p, gql_gw_fetch *f, gql_gw_fetch *g) {
  return pl_reaches(f, g, ++p->mark);
}

gql_gw_sel *pl_new_sel(gw_planner *p) {
  gql_gw_sel *s = gql_arena_alloc(p->arena, sizeof *s);
  if (s)
    memset(s, 0, sizeof *s);
  return s;
}

void pl_append(gql_gw_sel *parent, gql_gw_sel *s) {
  if (parent->last)
    parent->last->next = s;
  else
    parent->first = s;
  parent->last = s;
  parent->has_children = true;
}

int pl_new_fetch(gw_planner *p, uint32_t graph, uint32_t path_len,
                 gql_gw_fetch **out) {
  gql_gw_plan *plan = p->plan;
  if (plan->nfetches >= GW_MAX_FETCHES)
    GW_FAIL(p, GQL_ELIMIT, "the plan needs more than %d fetches",
            GW_MAX_FETCHES);
  if (!GQL_ARRAY_RESERVE_FIRST(p->arena, plan->fetches, p->fetch_cap,
                               plan->nfetches + 1, 16))
    return GQL_ENOMEM;
  gql_gw_fetch *f = gql_arena_alloc(p->arena, sizeof *f);
  if (!f)
    return GQL_ENOMEM;
  memset(f, 0, sizeof *f);
  f->id = plan->nfetches;
  f->graph = graph;
  f->path_len = path_len;
  f->path = gql_arena_alloc(p->arena, (path_len + 1) * sizeof *f->path);
  if (!f->path)
    return GQL_ENOMEM;
  memcpy(f->path, p->path, path_len * sizeof *f->path);
  plan->fetches[plan->nfetches++] = f;
  *out = f;
  return 0;
}

/* The child of dst (not in a fragment) kept at tree key `tk`. */
gql_gw_sel *pl_tree_child(gql_gw_sel *dst, gql_str tk) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (!s->fragment && gql_str_eq(s->tree_key.len ? s->tree_key : s->key, tk))
      return s;
  return NULL;
}

/* Field c into fetch selection dst, kept at tree key tk. A field whose
 * type in this subgraph differs from the API's is sent under an alias of
 * its own (fields of one response key must have one type in a subgraph
 * query) and renamed back when merged. */
gql_gw_sel *pl_add_field(gw_planner *p, gql_gw_fetch *f, gql_gw_sel *dst,
                         const gql_gw_sel *c, gql_str tk,
                         const gql_gw_field_graph *fg) {
  gql_gw_sel *s = pl_tree_child(dst, tk);
  if (s)
    return s;
  if (!(s = pl_new_sel(p)))
    return NULL;
  s->name = c->name;
  s->field = c->field;
  s->key = tk;
  s->tree_key = tk;
  s->has_children = c->has_children;
  if (fg && fg->type_differs) {
    char *k = gql_arena_sprintf(p->arena, "%.*s__alias%u", (int)tk.len, tk.ptr,
                                ++p->alias_seq);
    if (!k)
      return NULL;
    s->key = gql_cstr(k);
    s->renamed = true;
    f->renames = true;
  }
  pl_append(dst, s);
  return s;
}

gql_gw_sel *pl_add_typename(gw_planner *p, gql_gw_sel *dst) {
  gql_gw_sel *s = pl_tree_child(dst, PL_TYPENAME);
  if (s)
    return s;
  if (!(s = pl_new_sel(p)))
    return NULL;
  s->key = s->name = s->tree_key = PL_TYPENAME;
  pl_append(dst, s);
  return s;
}

/* The inline fragment `... on t` below dst, added when absent. */
gql_gw_sel *pl_fragment_node(gw_planner *p, gql_gw_sel *dst,
                             const gql_gw_type *t) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (s->fragment && gql_str_eq(s->name, t->name))
      return s;
  gql_gw_sel *s = pl_new_sel(p);
  if (!s)
    return NULL;
  s->key = s->name = t->name;
  s->fragment = true;
  s->has_children = true;
  pl_append(dst, s);
  return s;
}

/* The representation node for field c below rep (merged by name and
 * conditions). */
gql_gw_sel *pl_rep_child(gw_planner *p, gql_gw_sel *rep, const gql_gw_sel *c,
                         gql_str tk, bool key) {
  for (gql_gw_sel *s = rep->first; s; s = s->next)
    if (gql_str_eq(s->name, c->name) && s->cond == c->cond &&
        s->cond2 == c->cond2) {
      s->key_field |= key;
      return s;
    }
  gql_gw_sel *s = pl_new_sel(p);
  if (!s)
    return NULL;
  s->name = s->key = c->name;
  s->tree_key = tk;
  s->key_json = gql_json_key(p->arena, c->name);
  s->cond = c->cond;
  s->cond2 = c->cond2;
  s->key_field = key;
  s->has_children = c->has_children;
  rep->has_cond |= c->cond != NULL;
  pl_append(rep, s);
  return s;
}

int pl_add_group(gw_planner *p, pos *ps, const group *g, uint32_t *gi) {
  if (ps->n >= MAX_GROUPS)
    GW_FAIL(p, GQL_ELIMIT,
            "more than %d subgraph fetches give objects at one place",
            MAX_GROUPS);
  ps->g[ps->n] = *g;
  *gi = ps->n++;
  return 0;
}

/* The entity fetch at this position for (graph, type), or UINT32_MAX. */
uint32_t pl_entity_group(const pos *ps, uint32_t graph, const gql_gw_type *e,
                         const gql_gw_defer *dl) {
  for (uint32_t i = 0; i < ps->n; i++)
    if (ps->g[i].entity && ps->g[i].graph == graph && ps->g[i].etype == e &&
        !ps->g[i].busy && pl_dl_fits(&ps->g[i], dl))
      return i;
  return UINT32_MAX;
}

gql_gw_fetch *pl_root_fetch(gw_planner *p, uint32_t graph,
                            const gql_gw_defer *dl) {
  for (uint32_t i = 0; i < p->plan->nfetches; i++) {
    gql_gw_fetch *f = p->plan->fetches[i];
    if (!f->parent && f->graph == graph && !f->type_name.len && !f->mutation &&
        f->dl == dl)
      return f;
  }
  return NULL;
}

/* Puts the key fields of the representation tree's nodes below `rep`. */
void pl_mark_key(gql_gw_sel *rep) {
  for (gql_gw_sel *s = rep->first; s; s = s->next) {
    if (!gql_str_eq(s->name, PL_TYPENAME))
      s->key_field = true;
    pl_mark_key(s);
  }
}

/* The type whose field group g gives at this position: the position's, or
 * the @interfaceObject the subgraph has instead. */
const gql_gw_type *pl_owner_type(const pos *ps, const group *g) {
  if (g->view && g->view != ps->type &&
      g->view->kind == GQL_AST_INTERFACE_TYPE_DEFINITION &&
      (ps->pseudo || gql_supergraph_satisfies(ps->type, g->view)))
    return g->view;
  return ps->type;
}

/* The field's type as subgraph entry fg has it. */
const gql_gw_type *pl_field_view(const gql_gw_field_graph *fg,
                                 const gql_gw_field *f) {
  return fg && fg->named ? fg->named : f ? f->named : NULL;
}

/* Whether group g gives field c here, and how. */
bool pl_local_src(gw_planner *p, const pos *ps, const group *g,
                  const gql_gw_sel *c, bool internal,
                  const gql_gw_field_graph **fg_out,
                  const gql_gw_sel **prov_out, const gql_gw_type **view_out) {
  *fg_out = NULL;
  *prov_out = NULL;
  *view_out = NULL;
  if (is_typename(c))
    return typed_view(g) && !ps->pseudo;
  const gql_gw_type *owner = pl_owner_type(ps, g);
  const gql_gw_field *f = owner == ps->type && c->def && c->def->parent == owner
                              ? c->def
                              : gql_supergraph_field_of(p->sg, owner, c->name);
  if (!f)
    return false;
  const gql_gw_field_graph *fg = gql_supergraph_field_graph(owner, f, g->graph);
  const gql_gw_sel *prov = pl_provided_child(g->provided, ps->type, c->name);
  if (!pl_usable(p, fg, internal) && !prov)
    return false;
  *fg_out = fg;
  *prov_out = prov;
  *view_out = pl_field_view(fg, f);
  return true;
}

/* The subgraphs an entity fetch (or, at the root, a root fetch) could
 * give field c from, with the entity type asked there. */
uint32_t pl_jump_cands(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                       bool internal, cand *out) {
  uint32_t n = 0;
  const gql_gw_type *t = ps->type;
  const gql_gw_type *types[1 + 16];
  uint32_t nt = 0;
  types[nt++] = t;
  if (!ps->root && !ps->pseudo)
    for (uint32_t i = 0; i < t->ninterfaces && nt < 17; i++)
      types[nt++] = t->interfaces[i];
  for (uint32_t k = 0; k < nt; k++) {
    const gql_gw_type *e = types[k];
    const gql_gw_field *f = NULL;
    if (!is_typename(c)) {
      f = gql_supergraph_field_of(p->sg, e, c->name);
      if (!f)
        continue;
    }
    /* A field in a few of its type's subgraphs (a root field: Query is in
     * all 200 of bench/gateway-scale) is looked for only there: the
     * entries of e->graphs of its own subgraphs, in e->graphs' order (the
     * order of the candidates), as the full walk would find them. */
    uint32_t only[16], nonly = UINT32_MAX;
    if (f && !f->all_graphs && e->graph_slot && f->ngraphs < 16 &&
        f->ngraphs < e->ngraphs) {
      nonly = 0;
      for (uint32_t j = 0; j < f->ngraphs; j++) {
        uint32_t slot = e->graph_slot[f->graphs[j].graph];
        if (!slot)
          continue;
        uint32_t at = nonly++;
        while (at > 0 && only[at - 1] > slot - 1) {
          only[at] = only[at - 1];
          at--;
        }
        only[at] = slot - 1;
      }
    }
    uint32_t end = nonly == UINT32_MAX ? e->ngraphs : nonly;
    for (uint32_t x = 0; x < end && n < MAX_CANDIDATES; x++) {
      uint32_t i = nonly == UINT32_MAX ? x : only[x];
      const gql_gw_type_graph *tg = &e->graphs[i];
      if (ps->root) {
        /* a root fetch */
      } else if (!tg->resolvable_key) {
        continue;
      } else if (k > 0 && !tg->interface_object) {
        continue; /* an interface of the type: only as an interfaceObject */
      } else if (ps->pseudo && is_typename(c) && tg->interface_object) {
        continue; /* the concrete type comes from the interface's owner */
      }
      if (pl_guarded(p, e, tg->graph))
        continue;
      const gql_gw_field_graph *fg = NULL;
      if (f) {
        fg = gql_supergraph_field_graph(e, f, tg->graph);
        if (!pl_usable(p, fg, internal))
          continue;
      }
      out[n++] = (cand){tg->graph, e, fg, pl_field_view(fg, f)};
    }
  }
  return n;
}

/* A position for the children of field c placed in a group (or several,
 * added by the caller), below the current path (pushed by the caller). */
void pl_child_init(gw_planner *p, pos *ch, const pos *ps, const gql_gw_sel *c,
                   bool internal) {
  memset(ch, 0, offsetof(pos, g));
  ch->n = 0;
  ch->type = c->def ? c->def->named : NULL;
  ch->abstract = ch->type && ch->type->is_abstract;
  ch->client = internal ? NULL : c;
  ch->path_len = p->path_len;
  ch->deps = ps->deps;
}

gw_memo *pl_memo_get(gw_planner *p, const gql_gw_sel *c, uint32_t graph,
                     const gql_gw_sel *prov, bool in_entity) {
  if (c->id >= p->memo_cap)
    return NULL;
  for (gw_memo *m = p->memo[c->id]; m; m = m->next)
    if (m->graph == graph && m->provided == prov && m->in_entity == in_entity)
      return m;
  return NULL;
}

void pl_note_fail(gw_planner *p, const pos *ps, const gql_gw_sel *c) {
  if (!p->fail_type) {
    p->fail_type = ps->type;
    p->fail_field = c->name;
  }
}

/* A new (not yet materialised) entity or root fetch group here. */
group pl_jump_group(const pos *ps, uint32_t graph, const gql_gw_type *e,
                    const gql_gw_key *key, int activation,
                    const gql_gw_defer *dl) {
  group g = {.dl = dl == DL_ANY ? NULL : dl,
             .graph = graph,
             .view = e,
             .how = ps->root ? HOW_ROOT : HOW_JUMP,
             .entity = !ps->root,
             .in_entity = !ps->root,
             .etype = e,
             .key = key,
             .activation = activation};
  return g;
}

/* Merges representation nodes src into dst (by name and conditions). */
void pl_rep_merge(gql_gw_sel *dst, gql_gw_sel *src) {
  gql_gw_sel *s = src->first;
  while (s) {
    gql_gw_sel *next = s->next;
    gql_gw_sel *d = NULL;
    for (gql_gw_sel *x = dst->first; x && !d; x = x->next)
      if (gql_str_eq(x->name, s->name) && x->cond == s->cond &&
          x->cond2 == s->cond2)
        d = x;
    if (d) {
      pl_rep_merge(d, s);
    } else {
      s->next = NULL;
      pl_append(dst, s);
      dst->has_cond |= s->cond != NULL;
    }
    s = next;
  }
}

/* Whether c is a field of abstract type x applying to every object of it
 * (the rest are asked per concrete type). */
bool pl_common(const gw_planner *p, const gql_gw_type *x, const gql_gw_sel *c) {
  if (!is_typename(c) && !gql_supergraph_field_of(p->sg, x, c->name))
    return false;
  if (!c->cond && !c->cond2)
    return true;
  for (uint32_t i = 0; i < x->npossible; i++)
    if (!gw_applies(x->possible[i], c))
      return false;
  return true;
}

/* The object types `view` has in group g's subgraph. */
const gql_gw_type_graph *pl_view_types(const group *g) {
  return g->view ? gql_supergraph_type_graph(g->view, g->graph) : NULL;
}

bool pl_knows(const group *g, const gql_gw_type *r) {
  if (!typed_view(g))
    return false;
  if (g->view == r)
    return true;
  const gql_gw_type_graph *tg = pl_view_types(g);
  for (uint32_t i = 0; tg && i < tg->npossible; i++)
    if (tg->possible[i] == r)
      return true;
  return false;
}

uint32_t pl_add_type(const gql_gw_type **order, uint32_t n,
                     const gql_gw_type *t) {
  for (uint32_t i = 0; i < n; i++)
    if (order[i] == t)
      return n;
  order[n] = t;
  return n + 1;
}
