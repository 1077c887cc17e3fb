/*
 * The query planner's search: every field of the normalised operation (and
 * every field the gateway itself needs: entity keys, @requires inputs,
 * __typename) is placed into a fetch of some subgraph, by a search over
 * the subgraphs that can give it at its place in the response.
 *
 * A position is a place in the response tree (a path) holding objects of
 * one type: a concrete object type, an abstract type, or an interface
 * whose concrete type no subgraph there knows (an @interfaceObject). Its
 * groups are the subgraph fetches that return those objects there, each
 * with the type as that subgraph sees it and what an @provides adds.
 * A field can be placed:
 *  - in a group whose subgraph resolves it (its own field, or an
 *    @external one provided on this path);
 *  - in an entity fetch of another subgraph (a key jump): a resolvable key
 *    of the type there whose fields can themselves be placed here (in the
 *    groups, or through further jumps: multi-hop); the jump may go
 *    through an @interfaceObject of the type there;
 *  - with @requires, in an entity fetch of its subgraph whose
 *    representation carries the required fields, placed here first;
 *  - split: fetched from several groups when no single subgraph can give
 *    all its sub-selection (a shared root field, or a field of a type
 *    without keys reached only through a parent entity).
 * Options are compared by the fetches they add (a group used for the
 * first time costs its fetch plus its key's), the whole sub-selection
 * included, best first; ties keep the current fetch. One function does
 * both the estimate (no side effects, on copies of positions) and the
 * emission (which follows the estimate's choice), so what was found
 * possible is what is built.
 *
 * Abstract positions: __typename is fetched; a field common to all the
 * objects goes once at the abstract level of a group where every
 * implementation resolves it; the others go per concrete type `... on R`
 * known to the groups' subgraphs. Objects of an @interfaceObject get
 * their concrete type (when a field needs it) from a subgraph that has the
 * interface itself, by an entity fetch of __typename.
 */
#include "plan_search.h"

static int place_sel(gw_planner *p, pos *ps, const gql_gw_sel *c, bool internal,
                     bool emit, gql_gw_sel *rep, int *cost, int limit);
static int place_children(gw_planner *p, pos *ps, const gql_gw_sel *parent,
                          bool internal, bool emit, gql_gw_sel *rep, int *cost,
                          int limit);
static int materialise(gw_planner *p, pos *ps, uint32_t gi);
static int key_cost(gw_planner *p, const pos *ps, uint32_t graph,
                    const gql_gw_type *e, const gql_gw_key **key, int limit);

/* ------------------------------------------------------------- helpers */

/* ------------------------------------------------------------- fetches */

/* -------------------------------------------------------------- groups */

/* The entity fetch of group gi: its key's fields placed at this position
 * first (maybe through other fetches: multi-hop), each giving the fetch a
 * dependency, and the representation made of them. */
static int emit_jump(gw_planner *p, pos *ps, uint32_t gi) {
  group *g = &ps->g[gi];
  const gql_gw_type *e = g->etype;
  bool constant = ps->pseudo || e != ps->type || is_iobj(e, g->graph);
  deps d = {NULL, 0, 0};
  deps *saved = ps->deps;
  ps->deps = &d;
  gql_gw_sel *rep = pl_new_sel(p);
  int rc = rep ? 0 : GQL_ENOMEM, cost = 0;
  g->busy = true;
  if (!rc && constant) {
    gql_gw_sel *tn = pl_rep_child(p, rep, &PL_TYPENAME_SEL, PL_TYPENAME, false);
    rc = tn ? 0 : GQL_ENOMEM;
  } else if (!rc) {
    rc = place_sel(p, ps, &PL_TYPENAME_SEL, true, true, rep, &cost, INF);
  }
  if (!rc && !pl_guard_push(p, e, g->graph))
    GW_FAIL(p, GQL_ELIMIT, "keys nest too deeply");
  if (!rc) {
    rc = place_children(p, ps, g->key->fields, true, true, rep, &cost, INF);
    if (!rc)
      pl_mark_key(rep);
    p->guard_depth--;
  }
  g = &ps->g[gi];
  g->busy = false;
  ps->deps = saved;
  if (!rc && cost >= INF)
    GW_FAIL(p, GQL_EUNSUPPORTED, "no way to give the key %.*s of %.*s",
            (int)g->key->text.len, g->key->text.ptr, (int)e->name.len,
            e->name.ptr);
  if (rc)
    return rc;
  gql_gw_fetch *f;
  rc = pl_new_fetch(p, g->graph, ps->path_len, &f);
  if (rc)
    return rc;
  f->type_name = e->name;
  f->dl = g->dl;
  f->filter = ps->pseudo || ps->root ? NULL : ps->type;
  if (constant)
    f->rep_typename = e->name;
  f->requires = rep;
  f->parent = d.n ? d.items[0] : NULL;
  if (f->parent)
    f->parent->has_dependents = true;
  for (uint32_t i = 0; i < d.n && !rc; i++)
    rc = pl_fetch_depend(p, f, d.items[i]);
  if (rc)
    return rc;
  if (!f->parent)
    GW_FAIL(p, GQL_EUNSUPPORTED, "an entity fetch of %.*s with no input",
            (int)e->name.len, e->name.ptr);
  g->fetch = f;
  g->dst = &f->root;
  if (g->view && g->view->is_abstract && typed_view(g) &&
      !pl_add_typename(p, g->dst))
    return GQL_ENOMEM;
  return 0;
}

/* Makes group gi's fetch and selection exist (emission). */
static int materialise(gw_planner *p, pos *ps, uint32_t gi) {
  group *g = &ps->g[gi];
  if (g->real)
    return 0;
  int rc = 0;
  switch (g->how) {
  case HOW_ROOT: {
    gql_gw_fetch *f = pl_root_fetch(p, g->graph, g->dl);
    if (!f) {
      rc = pl_new_fetch(p, g->graph, 0, &f);
      if (rc)
        return rc;
      f->dl = g->dl;
    }
    g->fetch = f;
    g->dst = &f->root;
    break;
  }
  case HOW_JUMP:
    rc = emit_jump(p, ps, gi);
    g = &ps->g[gi];
    break;
  case HOW_FIELD: {
    rc = materialise(p, g->ppos, g->pg);
    if (rc)
      return rc;
    group *pg = &g->ppos->g[g->pg];
    gql_gw_sel *sel =
        pl_add_field(p, pg->fetch, pg->dst, g->pfield, g->ptree_key, g->pfg);
    if (!sel)
      return GQL_ENOMEM;
    g->fetch = pg->fetch;
    g->dst = sel;
    if (g->pfield->def && g->pfield->def->named &&
        g->pfield->def->named->is_abstract && typed_view(g) &&
        !pl_add_typename(p, sel))
      return GQL_ENOMEM;
    break;
  }
  case HOW_FRAG:
  case HOW_SAME: {
    rc = materialise(p, g->ppos, g->pg);
    if (rc)
      return rc;
    group *pg = &g->ppos->g[g->pg];
    g->fetch = pg->fetch;
    g->dst =
        g->how == HOW_SAME ? pg->dst : pl_fragment_node(p, pg->dst, g->view);
    if (!g->dst)
      return GQL_ENOMEM;
    break;
  }
  default:
    break;
  }
  if (rc)
    return rc;
  g->real = true;
  return 0;
}

/* ------------------------------------------------------------- options */

/* The fetches the sub-selection of c adds when c comes from `graph` (its
 * type there: view; provided below: prov). */
static int child_cost(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                      uint32_t graph, const gql_gw_type *view,
                      const gql_gw_sel *prov, bool internal, bool in_entity,
                      int *out) {
  *out = 0;
  if (!c->has_children || !c->first)
    return 0;
  bool memo = !internal && p->guard_depth == 0 && p->memo;
  gw_memo *m = memo ? pl_memo_get(p, c, graph, prov, in_entity) : NULL;
  if (m) {
    *out = m->cost;
    return 0;
  }
  uint32_t saved = p->path_len;
  int rc = pl_path_push(p, c->name, c->def ? c->def->list_depth : 0);
  if (rc)
    return rc;
  pos *ch = malloc(sizeof *ch); /* positions stay off the stack */
  if (!ch) {
    p->path_len = saved;
    return GQL_ENOMEM;
  }
  pl_child_init(p, ch, ps, c, internal);
  ch->deps = NULL;
  uint32_t gi;
  group g = {.graph = graph,
             .view = view,
             .provided = prov,
             .real = true,
             .in_entity = in_entity,
             .how = HOW_REAL,
             .dl = internal ? NULL : c->dl};
  rc = pl_add_group(p, ch, &g, &gi);
  int cost = 0;
  if (!rc)
    rc = place_children(p, ch, c, internal, false, NULL, &cost, INF);
  free(ch);
  p->path_len = saved;
  if (rc)
    return rc;
  *out = cost;
  if (memo && c->id < p->memo_cap) {
    gw_memo *e = gql_arena_alloc(p->arena, sizeof *e);
    if (!e)
      return GQL_ENOMEM;
    *e = (gw_memo){graph, in_entity, prov, cost, p->memo[c->id]};
    p->memo[c->id] = e;
  }
  return 0;
}

/* The cheapest resolvable key of e in `graph` whose fields can be placed
 * here: its cost in fetches, when below `limit` (else some cost >= limit:
 * the caller has a cheaper option already; the estimates stop there). */
static int key_cost(gw_planner *p, const pos *ps, uint32_t graph,
                    const gql_gw_type *e, const gql_gw_key **key, int limit) {
  *key = NULL;
  if (ps->root)
    return 0;
  if (p->exhaustive)
    limit = INF;
  const gql_gw_type_graph *tg = gql_supergraph_type_graph(e, graph);
  if (!tg || pl_guarded(p, e, graph) || !pl_guard_push(p, e, graph))
    return INF;
  int best = limit;
  for (uint32_t k = 0; k < tg->nkeys && best > 0; k++) {
    if (!tg->keys[k].resolvable || !tg->keys[k].fields)
      continue;
    pos *w = malloc(sizeof *w);
    if (!w)
      break;
    *w = *ps;
    w->deps = NULL;
    int cost = 0;
    if (!(ps->pseudo || e != ps->type || is_iobj(e, graph)))
      place_sel(p, w, &PL_TYPENAME_SEL, true, false, NULL, &cost, best);
    int rc = place_children(p, w, tg->keys[k].fields, true, false, NULL, &cost,
                            best);
    free(w);
    if (rc)
      break;
    if (cost < best) {
      best = cost;
      *key = &tg->keys[k];
    }
  }
  p->guard_depth--;
  return best;
}

/* The cost of a new or existing entity fetch (graph, e) here (exact below
 * `limit`). */
static int entity_cost(gw_planner *p, const pos *ps, uint32_t graph,
                       const gql_gw_type *e, const gql_gw_key **key, int limit,
                       const gql_gw_defer *dl) {
  *key = NULL;
  uint32_t gi = pl_entity_group(ps, graph, e, dl);
  if (gi != UINT32_MAX)
    return ps->g[gi].real ? 0 : ps->g[gi].activation;
  if (ps->root) {
    for (uint32_t i = 0; i < ps->n; i++)
      if (ps->g[i].graph == graph && !ps->g[i].busy &&
          pl_dl_fits(&ps->g[i], dl))
        return ps->g[i].real ? 0 : ps->g[i].activation;
    return FETCH;
  }
  if (limit <= FETCH && !p->exhaustive)
    return FETCH;
  return add_cost(FETCH,
                  key_cost(p, ps, graph, e, key, sub_limit(limit, FETCH)));
}

/* The cost of placing a @requires field set here (on a copy; exact below
 * `limit`). */
static int req_cost(gw_planner *p, const pos *ps, const gql_gw_field_graph *fg,
                    int limit) {
  if (pl_guarded(p, fg, UINT32_MAX) || !pl_guard_push(p, fg, UINT32_MAX))
    return INF;
  pos *w = malloc(sizeof *w);
  int cost = INF;
  if (w) {
    *w = *ps;
    w->deps = NULL;
    cost = 0;
    if (place_children(p, w, fg->requires, true, false, NULL, &cost, limit))
      cost = INF;
    free(w);
  }
  p->guard_depth--;
  return cost;
}

/* The option of c with @requires from (graph, e). */
static int req_option(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                      bool internal, uint32_t graph, const gql_gw_type *e,
                      const gql_gw_field_graph *fg, const gql_gw_type *view,
                      opt *o) {
  if (ps->root || pl_guarded(p, fg, UINT32_MAX))
    return 0;
  const gql_gw_key *key;
  const gql_gw_defer *dl = pl_want_dl(p, c, internal);
  int ec = entity_cost(p, ps, graph, e, &key, o->cost, dl);
  if (ec >= o->cost)
    return 0;
  int rq = req_cost(p, ps, fg, sub_limit(o->cost, ec));
  if (add_cost(ec, rq) >= o->cost)
    return 0;
  int cc;
  int rc = child_cost(p, ps, c, graph, view, fg->provides, internal, true, &cc);
  if (rc)
    return rc;
  int cost = add_cost(add_cost(add_cost(ec, rq), cc), 1);
  if (cost < o->cost)
    *o = (opt){cost,  OPT_REQ, pl_entity_group(ps, graph, e, dl),
               graph, e,       key,
               fg,    NULL,    view};
  return 0;
}

/* The cheapest single way to place c here costing less than `limit`
 * (OPT_NONE when none). */
static int options(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                   bool internal, opt *o, int limit) {
  *o = (opt){.cost = limit, .kind = OPT_NONE};
  const gql_gw_defer *dl = pl_want_dl(p, c, internal);
  for (uint32_t gi = 0; gi < ps->n; gi++) {
    const group *g = &ps->g[gi];
    const gql_gw_field_graph *fg;
    const gql_gw_sel *prov;
    const gql_gw_type *view;
    if (g->busy || !pl_dl_fits(g, dl) ||
        !pl_local_src(p, ps, g, c, internal, &fg, &prov, &view))
      continue;
    int rc;
    if (fg && fg->requires && !prov) {
      rc = req_option(p, ps, c, internal, g->graph, pl_owner_type(ps, g), fg,
                      view, o);
      if (rc)
        return rc;
      continue;
    }
    const gql_gw_sel *cp = fg && fg->provides           ? fg->provides
                           : prov && prov->has_children ? prov
                                                        : NULL;
    int act = g->real ? 0 : g->activation, cc;
    if (act >= o->cost)
      continue;
    rc = child_cost(p, ps, c, g->graph, view, cp, internal, g->in_entity, &cc);
    if (rc)
      return rc;
    int cost = add_cost(add_cost(act, cc), g->in_entity);
    if (cost < o->cost)
      *o = (opt){cost, OPT_LOCAL, gi, g->graph, NULL, NULL, fg, prov, view};
    if (o->cost == 0)
      return 0;
  }
  if (o->kind != OPT_NONE && o->cost < FETCH)
    return 0; /* a new fetch costs more */
  cand cs[MAX_CANDIDATES];
  uint32_t n = pl_jump_cands(p, ps, c, internal, cs);
  for (uint32_t i = 0; i < n; i++) {
    const cand *k = &cs[i];
    int rc;
    if (k->fg && k->fg->requires) {
      rc =
          req_option(p, ps, c, internal, k->graph, k->etype, k->fg, k->view, o);
      if (rc)
        return rc;
      continue;
    }
    const gql_gw_key *key;
    int ec = entity_cost(p, ps, k->graph, k->etype, &key, o->cost, dl);
    if (ec >= o->cost)
      continue;
    int cc;
    rc = child_cost(p, ps, c, k->graph, k->view, k->fg ? k->fg->provides : NULL,
                    internal, !ps->root, &cc);
    if (rc)
      return rc;
    int cost = add_cost(add_cost(ec, cc), !ps->root);
    if (cost < o->cost)
      *o = (opt){cost, OPT_JUMP, UINT32_MAX, k->graph, k->etype,
                 key,  k->fg,    NULL,       k->view};
  }
  return 0;
}

/* Field c into group gi (materialised), its sub-selection below it. */
static int emit_local(gw_planner *p, pos *ps, uint32_t gi, const gql_gw_sel *c,
                      bool internal, gql_gw_sel *rep,
                      const gql_gw_field_graph *fg, const gql_gw_sel *prov,
                      const gql_gw_type *view) {
  int rc = materialise(p, ps, gi);
  if (rc)
    return rc;
  group *g = &ps->g[gi];
  if (!internal && !c->dl)
    g->fetch->primary = true; /* the initial result needs it (@defer) */
  else if (!internal && (rc = gw_defer_note(p, c->dl, g->fetch)))
    return rc;
  gql_str tk = c->key;
  if (is_typename(c))
    tk = PL_TYPENAME;
  else if (internal && (rc = pl_gateway_key(p, ps, c, &tk)))
    return rc;
  gql_gw_sel *sel = is_typename(c)
                        ? pl_add_typename(p, g->dst)
                        : pl_add_field(p, g->fetch, g->dst, c, tk, fg);
  if (!sel)
    return GQL_ENOMEM;
  gql_gw_sel *rn = NULL;
  if (internal) {
    if ((rc = pl_add_dep(p, ps, g->fetch)))
      return rc;
    if (rep && !(rn = pl_rep_child(p, rep, c, tk, false)))
      return GQL_ENOMEM;
  }
  if (!c->has_children)
    return 0;
  const gql_gw_sel *cp = fg && fg->provides           ? fg->provides
                         : prov && prov->has_children ? prov
                                                      : NULL;
  uint32_t saved = p->path_len;
  rc = pl_path_push(p, tk, c->def ? c->def->list_depth : 0);
  if (rc)
    return rc;
  pos *ch = malloc(sizeof *ch);
  if (!ch)
    return GQL_ENOMEM;
  pl_child_init(p, ch, ps, c, internal);
  group cg = {.graph = g->graph,
              .view = view,
              .provided = cp,
              .fetch = g->fetch,
              .dst = sel,
              .real = true,
              .in_entity = g->in_entity,
              .how = HOW_REAL,
              .dl = g->dl};
  uint32_t ci;
  rc = pl_add_group(p, ch, &cg, &ci);
  if (!rc && ch->abstract && typed_view(&cg) && !pl_add_typename(p, sel))
    rc = GQL_ENOMEM; /* the objects' concrete types, for the projection */
  int cost = 0;
  if (!rc)
    rc = place_children(p, ch, c, internal, true, rn, &cost, INF);
  free(ch);
  p->path_len = saved;
  if (!rc && !sel->first && !pl_add_typename(p, sel))
    rc = GQL_ENOMEM;
  return rc;
}

/* c with @requires: the required fields placed here, then c in an entity
 * fetch of its subgraph whose representation carries them (a fetch that
 * does not come before them). */
static int emit_req(gw_planner *p, pos *ps, const gql_gw_sel *c, bool internal,
                    gql_gw_sel *rep, const opt *o) {
  deps d = {NULL, 0, 0};
  deps *saved = ps->deps;
  ps->deps = &d;
  gql_gw_sel *r = pl_new_sel(p);
  int rc = r ? 0 : GQL_ENOMEM, cost = 0;
  if (!rc && !pl_guard_push(p, o->fg, UINT32_MAX))
    rc = GQL_ELIMIT;
  if (!rc) {
    rc = place_children(p, ps, o->fg->requires, true, true, r, &cost, INF);
    p->guard_depth--;
  }
  ps->deps = saved;
  if (rc)
    return rc;
  if (cost >= INF)
    GW_FAIL(p, GQL_EUNSUPPORTED, "no way to give the @requires of %.*s.%.*s",
            (int)ps->type->name.len, ps->type->name.ptr, (int)c->name.len,
            c->name.ptr);
  uint32_t gi = UINT32_MAX;
  const gql_gw_defer *dl = pl_want_dl(p, c, internal);
  for (uint32_t i = 0; i < ps->n && gi == UINT32_MAX; i++) {
    group *g = &ps->g[i];
    if (!g->entity || !g->real || g->busy || g->graph != o->graph ||
        g->etype != o->etype || !pl_dl_fits(g, dl))
      continue;
    bool ok = true;
    for (uint32_t k = 0; k < d.n && ok; k++)
      ok = d.items[k] != g->fetch && !pl_depends_on(p, d.items[k], g->fetch);
    if (ok)
      gi = i;
  }
  if (gi == UINT32_MAX) {
    const gql_gw_key *key;
    if (key_cost(p, ps, o->graph, o->etype, &key, INF) >= INF || !key)
      GW_FAIL(p, GQL_EUNSUPPORTED, "no key to fetch %.*s from %.*s",
              (int)o->etype->name.len, o->etype->name.ptr,
              (int)p->sg->graphs[o->graph].name.len,
              p->sg->graphs[o->graph].name.ptr);
    group ng = pl_jump_group(ps, o->graph, o->etype, key, FETCH, dl);
    if ((rc = pl_add_group(p, ps, &ng, &gi)) || (rc = materialise(p, ps, gi)))
      return rc;
  }
  gql_gw_fetch *f = ps->g[gi].fetch;
  pl_rep_merge(f->requires, r);
  for (uint32_t k = 0; k < d.n && !rc; k++)
    rc = pl_fetch_depend(p, f, d.items[k]);
  if (rc)
    return rc;
  return emit_local(p, ps, gi, c, internal, rep, o->fg, NULL, o->view);
}

/* The group of field c's objects that group gi of w gives when c is
 * placed there (materialised on first use). */
static group field_group(pos *w, uint32_t gi, const gql_gw_sel *c, gql_str tk,
                         const gql_gw_field_graph *fg, const gql_gw_type *view,
                         const gql_gw_sel *provided) {
  const group *g = &w->g[gi];
  return (group){.graph = g->graph,
                 .view = view,
                 .provided = provided,
                 .how = HOW_FIELD,
                 .ppos = w,
                 .pg = gi,
                 .pfield = c,
                 .ptree_key = tk,
                 .pfg = fg,
                 .in_entity = g->in_entity,
                 .activation = g->real ? 0 : g->activation,
                 .dl = g->dl};
}

/* Split: c fetched from several groups (those that have it, and new
 * fetches of subgraphs that have it), each giving part of its
 * sub-selection. Estimates on a copy; emission materialises a group only
 * when a field below is placed in it. */
static int split(gw_planner *p, pos *ps, const gql_gw_sel *c, bool internal,
                 bool emit, gql_gw_sel *rep, int *out, int limit) {
  *out = INF;
  pos *w = ps;
  if (!emit) {
    if (!(w = malloc(sizeof *w)))
      return GQL_ENOMEM;
    *w = *ps;
    w->deps = NULL;
  }
  gql_str tk = c->key;
  int rc = 0;
  if (emit && internal)
    rc = pl_gateway_key(p, ps, c, &tk);
  else if (internal)
    tk = c->name;
  uint32_t saved = p->path_len;
  pos *ch = rc ? NULL : malloc(sizeof *ch);
  if (!rc && !ch)
    rc = GQL_ENOMEM;
  if (!rc)
    rc = pl_path_push(p, tk, c->def ? c->def->list_depth : 0);
  if (rc)
    goto done;
  pl_child_init(p, ch, w, c, internal);
  uint32_t n0 = w->n;
  for (uint32_t gi = 0; gi < n0 && !rc; gi++) {
    const group *g = &w->g[gi];
    const gql_gw_field_graph *fg;
    const gql_gw_sel *prov;
    const gql_gw_type *view;
    if (g->busy || !pl_local_src(p, w, g, c, internal, &fg, &prov, &view) ||
        (fg && fg->requires && !prov))
      continue;
    const gql_gw_sel *cp = fg && fg->provides           ? fg->provides
                           : prov && prov->has_children ? prov
                                                        : NULL;
    group cg = field_group(w, gi, c, tk, fg, view, cp);
    cg.real = !emit && g->real;
    uint32_t ci;
    rc = pl_add_group(p, ch, &cg, &ci);
  }
  cand cs[MAX_CANDIDATES];
  uint32_t n = rc ? 0 : pl_jump_cands(p, w, c, internal, cs);
  for (uint32_t i = 0; i < n && !rc; i++) {
    const cand *k = &cs[i];
    bool have = false;
    for (uint32_t gi = 0; gi < w->n && !have; gi++)
      have = w->g[gi].graph == k->graph;
    if (have || (k->fg && k->fg->requires))
      continue;
    const gql_gw_key *key;
    const gql_gw_defer *dl = pl_want_dl(p, c, internal);
    int ec = entity_cost(p, w, k->graph, k->etype, &key, INF, dl);
    if (ec >= INF)
      continue;
    group jg = pl_jump_group(w, k->graph, k->etype, key, ec, dl);
    uint32_t wi, ci;
    rc = pl_add_group(p, w, &jg, &wi);
    if (rc)
      break;
    group cg = field_group(w, wi, c, tk, k->fg, k->view,
                           k->fg ? k->fg->provides : NULL);
    rc = pl_add_group(p, ch, &cg, &ci);
  }
  if (rc || ch->n < 2)
    goto done;
  gql_gw_sel *rn = NULL;
  if (emit && internal && rep && !(rn = pl_rep_child(p, rep, c, tk, false))) {
    rc = GQL_ENOMEM;
    goto done;
  }
  int cost = 0;
  rc = place_children(p, ch, c, internal, emit, rn, &cost, emit ? INF : limit);
  if (!rc && emit) {
    bool any = false;
    for (uint32_t i = 0; i < ch->n; i++)
      any |= ch->g[i].real;
    if (!any)
      rc = materialise(p, ch, 0);
    for (uint32_t i = 0; i < ch->n && !rc; i++)
      if (ch->g[i].real) {
        if (internal)
          rc = pl_add_dep(p, ps, ch->g[i].fetch);
        if (!rc && !ch->g[i].dst->first && !pl_add_typename(p, ch->g[i].dst))
          rc = GQL_ENOMEM;
      }
  }
  if (!rc)
    *out = cost;
done:
  p->path_len = saved;
  free(ch);
  if (w != ps)
    free(w);
  return rc;
}

/* In estimates: what the option takes here, for the siblings after it. */
static int est_take(gw_planner *p, pos *ps, const opt *o,
                    const gql_gw_defer *dl) {
  if (o->kind == OPT_LOCAL) {
    ps->g[o->gi].real = true;
    return 0;
  }
  if (o->kind != OPT_JUMP && o->kind != OPT_REQ)
    return 0;
  uint32_t gi =
      ps->root ? UINT32_MAX : pl_entity_group(ps, o->graph, o->etype, dl);
  for (uint32_t i = 0; ps->root && i < ps->n; i++)
    if (ps->g[i].graph == o->graph && pl_dl_fits(&ps->g[i], dl))
      gi = i;
  if (gi != UINT32_MAX) {
    ps->g[gi].real = true;
    return 0;
  }
  group g = pl_jump_group(ps, o->graph, o->etype, o->key, 0, dl);
  g.real = true;
  return pl_add_group(p, ps, &g, &gi);
}

/* Places c here: emitted, or estimated into *cost (an estimate stops once
 * *cost reaches `limit`, where the caller has a cheaper way already: a
 * branch and bound that finds what the full search finds, in the same
 * order, since costs only add up). */
static int place_sel(gw_planner *p, pos *ps, const gql_gw_sel *c, bool internal,
                     bool emit, gql_gw_sel *rep, int *cost, int limit) {
  if (p->budget == 0)
    GW_FAIL(p, GQL_ELIMIT, "the operation is too complex to plan");
  p->budget--;
  if (c->verbatim || c->denied || (is_typename(c) && !internal && !ps->pseudo))
    return 0;
  if (p->exhaustive || emit)
    limit = INF;
  if (*cost >= limit && !emit)
    return 0;
  int bound = sub_limit(limit, *cost);
  opt o;
  int rc = options(p, ps, c, internal, &o, bound);
  if (!rc && o.cost > 0 && c->has_children && !ps->serial) {
    /* several subgraphs each giving part of c's selection may cost less
     * (or be the only way) */
    int sc;
    rc = split(p, ps, c, internal, false, NULL, &sc, o.cost);
    if (!rc && sc < o.cost)
      o = (opt){.cost = sc, .kind = OPT_SPLIT};
  }
  if (rc)
    return rc;
  if (o.kind == OPT_NONE && p->plan->ndefers && !p->defer_relaxed &&
      !internal && c->dl) {
    /* a deferred field no fetch of its own can give (a field of a value
     * type with no key to ask it by): placed as if not deferred, with
     * its selection; still delivered in its fragment's payload */
    p->defer_relaxed = true;
    rc = place_sel(p, ps, c, internal, emit, rep, cost, limit);
    p->defer_relaxed = false;
    return rc;
  }
  if (o.kind == OPT_NONE) {
    if (bound >= INF)
      pl_note_fail(p, ps, c);
    if (emit)
      GW_FAIL(p, GQL_EUNSUPPORTED, "no subgraph can give %.*s.%.*s here",
              (int)ps->type->name.len, ps->type->name.ptr, (int)c->name.len,
              c->name.ptr);
    *cost = INF;
    return 0;
  }
  *cost = add_cost(*cost, o.cost);
  const gql_gw_defer *dl = pl_want_dl(p, c, internal);
  if (!emit)
    return est_take(p, ps, &o, dl);
  uint32_t gi;
  switch (o.kind) {
  case OPT_LOCAL:
    return emit_local(p, ps, o.gi, c, internal, rep, o.fg, o.prov, o.view);
  case OPT_JUMP:
    gi = ps->root ? UINT32_MAX : pl_entity_group(ps, o.graph, o.etype, dl);
    for (uint32_t i = 0; ps->root && i < ps->n; i++)
      if (ps->g[i].graph == o.graph && pl_dl_fits(&ps->g[i], dl))
        gi = i;
    if (gi == UINT32_MAX) {
      group g = pl_jump_group(ps, o.graph, o.etype, o.key, FETCH, dl);
      if ((rc = pl_add_group(p, ps, &g, &gi)))
        return rc;
    }
    return emit_local(p, ps, gi, c, internal, rep, o.fg, NULL, o.view);
  case OPT_REQ:
    return emit_req(p, ps, c, internal, rep, &o);
  default: {
    int sc;
    rc = split(p, ps, c, internal, true, rep, &sc, INF);
    if (!rc && sc >= INF)
      GW_FAIL(p, GQL_EUNSUPPORTED, "no subgraphs can give %.*s.%.*s here",
              (int)ps->type->name.len, ps->type->name.ptr, (int)c->name.len,
              c->name.ptr);
    return rc;
  }
  }
}

/* --------------------------------------------------------- abstract types */

/* Whether field c can be asked once at the abstract level of group g:
 * the subgraph resolves it on every object type it has there. */
static bool hoistable(gw_planner *p, const pos *aps, const group *g,
                      const gql_gw_sel *c, bool internal,
                      const gql_gw_field_graph **fg_out,
                      const gql_gw_sel **prov_out,
                      const gql_gw_type **view_out) {
  if (g->busy || !g->view)
    return false;
  pos tmp;
  memset(&tmp, 0, offsetof(pos, g));
  tmp.type = g->view;
  tmp.pseudo = !typed_view(g);
  group one = *g;
  if (!pl_local_src(p, &tmp, &one, c, internal, fg_out, prov_out, view_out) ||
      (*fg_out && (*fg_out)->requires && !*prov_out))
    return false;
  if (!typed_view(g) || !g->view->is_abstract)
    return true;
  const gql_gw_type_graph *tg = pl_view_types(g);
  for (uint32_t i = 0; tg && i < tg->npossible; i++) {
    const gql_gw_type *r = tg->possible[i];
    const gql_gw_field *f = gql_supergraph_field_of(p->sg, r, c->name);
    const gql_gw_field_graph *fg =
        f ? gql_supergraph_field_graph(r, f, g->graph) : NULL;
    const gql_gw_sel *prov = pl_provided_child(g->provided, r, c->name);
    if (!prov && (!pl_usable(p, fg, internal) || fg->requires))
      return false;
  }
  (void)aps;
  return true;
}

/* A position for objects of type r below abstract position aps, from its
 * groups (only group `only` when not UINT32_MAX). */
static int type_pos(gw_planner *p, const pos *aps, const gql_gw_type *r,
                    uint32_t only, bool emit, pos *rp) {
  memset(rp, 0, offsetof(pos, g));
  rp->n = 0;
  rp->type = r;
  rp->client = aps->client;
  rp->path_len = aps->path_len;
  rp->deps = aps->deps;
  for (uint32_t i = 0; i < aps->n; i++) {
    const group *g = &aps->g[i];
    if ((only != UINT32_MAX && i != only) || g->busy)
      continue;
    group d = {.graph = g->graph,
               .provided = g->provided,
               .ppos = (pos *)aps,
               .pg = i,
               .in_entity = g->in_entity,
               .activation = g->real ? 0 : g->activation,
               .dl = g->dl};
    d.real = !emit && g->real;
    if (pl_knows(g, r)) {
      d.view = r;
      d.how = g->view == r ? HOW_SAME : HOW_FRAG;
    } else if (!typed_view(g) && gql_supergraph_satisfies(r, g->view)) {
      d.view = g->view;
      d.how = HOW_SAME;
    } else {
      continue;
    }
    uint32_t gi;
    int rc = pl_add_group(p, rp, &d, &gi);
    if (rc)
      return rc;
  }
  return 0;
}

/* Places the fields of `parent` (index in mask) for objects of type r. */
static int place_typed(gw_planner *p, pos *aps, const gql_gw_sel *parent,
                       const gql_gw_type *r, const uint32_t *choice,
                       uint32_t only, bool internal, bool emit, gql_gw_sel *rep,
                       int *cost, int limit) {
  bool any = false;
  uint32_t i = 0;
  for (const gql_gw_sel *c = parent->first; c; c = c->next, i++)
    any |=
        choice[i] == only && gw_applies(r, c) && !is_typename(c) && !c->denied;
  if (!any)
    return 0;
  pos *rp = malloc(sizeof *rp);
  if (!rp)
    return GQL_ENOMEM;
  int rc = type_pos(p, aps, r, only, emit, rp);
  if (!rc && rp->n == 0) {
    free(rp); /* no group has objects of this type here */
    return 0;
  }
  i = 0;
  for (const gql_gw_sel *c = parent->first; c && !rc; c = c->next, i++)
    if (choice[i] == only && gw_applies(r, c) && !is_typename(c))
      rc = place_sel(p, rp, c, internal, emit, rep, cost, limit);
  if (!rc && !emit) /* what the type's fetches took, for its siblings */
    for (uint32_t g = 0; g < rp->n; g++)
      if (rp->g[g].real &&
          (rp->g[g].how == HOW_FRAG || rp->g[g].how == HOW_SAME))
        aps->g[rp->g[g].pg].real = true;
  free(rp);
  return rc;
}

#define CHOICE_ALL UINT32_MAX        /* per type, any group */
#define CHOICE_DONE (UINT32_MAX - 1) /* placed at the abstract level */

/* The objects of an abstract position: __typename, the fields common to
 * all objects once where a group resolves them for all its types, the rest
 * per concrete type. A field common to all objects that no group resolves
 * at the abstract level is asked per type from one group (the subgraph
 * chosen for it answers for all its objects); a field of a fragment per
 * type from any group. Objects only an @interfaceObject knows get their
 * concrete type first when some field needs it. */
static int place_abstract(gw_planner *p, pos *aps, const gql_gw_sel *parent,
                          bool internal, bool emit, gql_gw_sel *rep, int *cost,
                          int limit) {
  const gql_gw_type *x = aps->type;
  bool typed = false, need = false;
  for (uint32_t i = 0; i < aps->n; i++)
    typed |= typed_view(&aps->g[i]);
  uint32_t nc = 0;
  for (const gql_gw_sel *c = parent->first; c; c = c->next, nc++)
    if (is_typename(c) ? !internal
                       : !pl_common(p, x, c) || (c->cond && c->cond != x) ||
                             (c->cond2 && c->cond2 != x))
      need = true; /* the projection needs the objects' concrete types (a
                      denied field's too: whether its null applies) */
  int rc = 0;
  if (need && !typed) {
    aps->pseudo = true;
    aps->abstract = false;
    rc = place_sel(p, aps, &PL_TYPENAME_SEL, true, emit, NULL, cost, limit);
    aps->pseudo = false;
    aps->abstract = true;
    typed = true;
    if (rc || *cost >= limit)
      return rc;
  }
  uint32_t *choice = malloc((nc + 1) * sizeof *choice);
  if (!choice)
    return GQL_ENOMEM;
  uint32_t i = 0;
  for (const gql_gw_sel *c = parent->first; c && !rc; c = c->next, i++) {
    choice[i] = CHOICE_ALL;
    if (is_typename(c)) {
      choice[i] = CHOICE_DONE;
      if (!internal)
        continue;
      /* the gateway's __typename: any typed group has it */
      uint32_t gi = UINT32_MAX;
      for (uint32_t k = 0; k < aps->n && gi == UINT32_MAX; k++)
        if (typed_view(&aps->g[k]) && !aps->g[k].busy)
          gi = k;
      if (gi == UINT32_MAX) {
        *cost = INF;
        break;
      }
      if (!emit) {
        *cost = add_cost(*cost, aps->g[gi].real ? 0 : aps->g[gi].activation);
        aps->g[gi].real = true;
      } else {
        rc = emit_local(p, aps, gi, c, true, rep, NULL, NULL, NULL);
      }
      continue;
    }
    if (c->denied) { /* not fetched (normalize.c) */
      choice[i] = CHOICE_DONE;
      continue;
    }
    if (!pl_common(p, x, c))
      continue;
    /* once, at the abstract level of the best group that can */
    uint32_t best_g = UINT32_MAX;
    int best = INF;
    const gql_gw_field_graph *bfg = NULL;
    const gql_gw_sel *bprov = NULL;
    const gql_gw_type *bview = NULL;
    for (uint32_t gi = 0; gi < aps->n && !rc && best > 0; gi++) {
      const group *g = &aps->g[gi];
      const gql_gw_field_graph *fg;
      const gql_gw_sel *prov;
      const gql_gw_type *view;
      if (!hoistable(p, aps, g, c, internal, &fg, &prov, &view))
        continue;
      const gql_gw_sel *cp = fg && fg->provides           ? fg->provides
                             : prov && prov->has_children ? prov
                                                          : NULL;
      int act = g->real ? 0 : g->activation, cc;
      rc = child_cost(p, aps, c, g->graph, view, cp, internal, g->in_entity,
                      &cc);
      int total = add_cost(add_cost(act, cc), g->in_entity);
      if (!rc && total < best) {
        best = total;
        best_g = gi;
        bfg = fg;
        bprov = prov;
        bview = view;
      }
    }
    if (rc)
      break;
    if (best_g != UINT32_MAX) {
      choice[i] = CHOICE_DONE;
      *cost = add_cost(*cost, best);
      if (!emit)
        aps->g[best_g].real = true;
      else
        rc = emit_local(p, aps, best_g, c, internal, rep, bfg, bprov, bview);
      continue;
    }
    if (!typed) {
      /* only @interfaceObject groups: the interface as an object */
      choice[i] = CHOICE_DONE;
      aps->pseudo = true;
      aps->abstract = false;
      rc = place_sel(p, aps, c, internal, emit, rep, cost, limit);
      aps->pseudo = false;
      aps->abstract = true;
      continue;
    }
    /* per type, from the one group that costs least for all its types */
    best = INF;
    for (uint32_t gi = 0; gi < aps->n && !rc; gi++) {
      if (!typed_view(&aps->g[gi]))
        continue;
      pos *w = malloc(sizeof *w);
      if (!w) {
        rc = GQL_ENOMEM;
        break;
      }
      *w = *aps;
      w->deps = NULL;
      int total = INF; /* a group with no objects of x: no answer */
      choice[i] = gi;
      for (uint32_t t = 0; t < x->npossible && !rc; t++)
        if (pl_knows(&w->g[gi], x->possible[t])) {
          if (total == INF)
            total = 0;
          if (total < best)
            rc = place_typed(p, w, parent, x->possible[t], choice, gi, internal,
                             false, NULL, &total, best);
        }
      free(w);
      if (!rc && total < best) {
        best = total;
        best_g = gi;
      }
    }
    if (best_g == UINT32_MAX) {
      pl_note_fail(p, aps, c);
      *cost = INF;
      break;
    }
    choice[i] = best_g;
  }
  /* per concrete type (in the order the selection names them): the
   * fragments' fields from any group, the common fields asked per type
   * from their group */
  const gql_gw_type **order =
      rc ? NULL : malloc((x->npossible + 1) * sizeof *order);
  uint32_t no = 0;
  if (!rc && !order)
    rc = GQL_ENOMEM;
  for (const gql_gw_sel *c = parent->first; c && order; c = c->next)
    for (uint32_t t = 0; t < x->npossible; t++)
      if (c->cond && gql_supergraph_satisfies(x->possible[t], c->cond))
        no = pl_add_type(order, no, x->possible[t]);
  for (uint32_t t = 0; t < x->npossible && order; t++)
    no = pl_add_type(order, no, x->possible[t]);
  for (uint32_t t = 0; t < no && !rc && *cost < limit; t++) {
    const gql_gw_type *r = order[t];
    rc = place_typed(p, aps, parent, r, choice, CHOICE_ALL, internal, emit, rep,
                     cost, limit);
    for (uint32_t gi = 0; gi < aps->n && !rc && *cost < limit; gi++) {
      bool chosen = false;
      for (uint32_t k = 0; k < nc && !chosen; k++)
        chosen = choice[k] == gi;
      if (chosen && pl_knows(&aps->g[gi], r))
        rc = place_typed(p, aps, parent, r, choice, gi, internal, emit, rep,
                         cost, limit);
    }
  }
  free(choice);
  free(order);
  return rc;
}

static int place_children(gw_planner *p, pos *ps, const gql_gw_sel *parent,
                          bool internal, bool emit, gql_gw_sel *rep, int *cost,
                          int limit) {
  if (p->path_len > GW_MAX_PATH - 2 || p->guard_depth >= GW_MAX_GUARDS)
    GW_FAIL(p, GQL_ELIMIT, "the operation nests too deeply to plan");
  if (p->exhaustive || emit)
    limit = INF;
  if (ps->abstract)
    return place_abstract(p, ps, parent, internal, emit, rep, cost, limit);
  for (const gql_gw_sel *c = parent->first; c; c = c->next) {
    if (!ps->root && !gw_applies(ps->type, c))
      continue;
    int rc = place_sel(p, ps, c, internal, emit, rep, cost, limit);
    if (rc)
      return rc;
    if (*cost >= limit && !emit)
      return 0;
  }
  return 0;
}

/* ------------------------------------------------------------------ root */

/* A mutation's root fields run one after the other: each from one
 * subgraph, consecutive fields of one subgraph in one fetch (the subgraph
 * runs them in order), every other fetch after everything planned before. */
static int plan_mutation(gw_planner *p, const gql_gw_type *root) {
  int64_t last = -1;
  uint32_t segment = 0, before = 0;
  gql_gw_fetch *f = NULL;
  for (gql_gw_sel *c = p->plan->client.first; c; c = c->next) {
    if (c->verbatim || c->denied || is_typename(c))
      continue; /* (a denied mutation field is not run) */
    pos *ps = malloc(sizeof *ps);
    if (!ps)
      return GQL_ENOMEM;
    memset(ps, 0, offsetof(pos, g));
    ps->n = 0;
    ps->type = root;
    ps->root = ps->serial = true;
    ps->client = &p->plan->client;
    cand cs[MAX_CANDIDATES];
    uint32_t n = pl_jump_cands(p, ps, c, false, cs);
    int best = INF, rc = 0;
    const cand *bk = NULL;
    for (uint32_t i = 0; i < n && !rc; i++) {
      int cc;
      rc = child_cost(p, ps, c, cs[i].graph, cs[i].view,
                      cs[i].fg ? cs[i].fg->provides : NULL, false, false, &cc);
      int cost = add_cost(cs[i].graph == last ? 0 : FETCH, cc);
      if (!rc && cost < best) {
        best = cost;
        bk = &cs[i];
      }
    }
    if (!rc && !bk) {
      free(ps);
      GW_FAIL(p, GQL_EUNSUPPORTED, "no subgraph can run %.*s.%.*s",
              (int)root->name.len, root->name.ptr, (int)c->name.len,
              c->name.ptr);
    }
    if (!rc && bk->graph != last) {
      /* a new segment: a root fetch of its own, after all before it */
      before = p->plan->nfetches;
      rc = pl_new_fetch(p, bk->graph, 0, &f);
      if (!rc) {
        char *name = gql_arena_sprintf(p->arena, "#%u", segment++);
        f->type_name = name ? gql_cstr(name) : GQL_STR("#");
        f->mutation = true;
        for (uint32_t i = 0; i < before && !rc; i++)
          rc = pl_fetch_depend(p, f, p->plan->fetches[i]);
      }
      last = bk->graph;
    }
    uint32_t gi;
    group g = {.graph = bk ? bk->graph : 0,
               .view = root,
               .fetch = f,
               .dst = f ? &f->root : NULL,
               .real = true,
               .how = HOW_REAL};
    if (!rc)
      rc = pl_add_group(p, ps, &g, &gi);
    if (!rc)
      rc = emit_local(p, ps, gi, c, false, NULL, bk->fg, NULL, bk->view);
    free(ps);
    if (rc)
      return rc;
  }
  return 0;
}

int gw_plan_fetches(gw_planner *p) {
  p->budget = ESTIMATE_BUDGET;
  p->memo_cap = p->nodes;
  p->memo = gql_arena_alloc(p->arena, (p->nodes + 1) * sizeof *p->memo);
  if (!p->memo)
    return GQL_ENOMEM;
  memset(p->memo, 0, (p->nodes + 1) * sizeof *p->memo);
  const gql_gw_type *root = p->plan->root;
  if (p->op->operation == GQL_OP_MUTATION)
    return plan_mutation(p, root);
  pos *ps = malloc(sizeof *ps);
  if (!ps)
    return GQL_ENOMEM;
  memset(ps, 0, offsetof(pos, g));
  ps->n = 0;
  ps->type = root;
  ps->root = true;
  ps->client = &p->plan->client;
  int cost = 0;
  int rc =
      place_children(p, ps, &p->plan->client, false, true, NULL, &cost, INF);
  free(ps);
  if (rc == GQL_EUNSUPPORTED && p->fail_type)
    *p->err = gql_arena_sprintf(
        p->arena, "%s (no subgraph can give %.*s.%.*s there)",
        *p->err ? *p->err : "no plan", (int)p->fail_type->name.len,
        p->fail_type->name.ptr, (int)p->fail_field.len, p->fail_field.ptr);
  return rc;
}
