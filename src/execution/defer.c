/* @defer in an incremental execution (graphql-js 17's buildExecutionPlan):
 * the fields of an object whose @defer usages are the set the running
 * context executes stay in it; the others go to execution groups, one per
 * set, that incremental.c runs after the payload of their fragments'
 * parent. Here the object's fragments (the usages its selections met) and
 * groups are recorded; nothing runs. Only plan sets with any_defer in a
 * context with an inc_state come here. */
#include "executor.h"

/* Whether usage `u` is on: its `if` is a variable that is not false. */
static bool usage_on(const exec_ctx *ctx, const plan_defer *u) {
  if (u->var == UINT32_MAX)
    return true;
  const gql_json_value *v = ctx->vars[u->var];
  return !v || v->kind != GQL_JSON_BOOL || v->boolean;
}

/* The innermost usage that is on, from `u` up (NULL: none). */
static const plan_defer *effective(const exec_ctx *ctx, const plan_defer *u) {
  while (u && !usage_on(ctx, u))
    u = u->parent;
  return u;
}

static bool in_set(const plan_defer *const *set, uint32_t n,
                   const plan_defer *u) {
  for (uint32_t i = 0; i < n; i++)
    if (set[i] == u)
      return true;
  return false;
}

/* graphql-js getFilteredDeferUsageSet of a field's included occurrences
 * into set (room for pf->nocc): empty when one is not deferred; a usage
 * whose ancestor is in the set is left out. */
static uint32_t field_set(const exec_ctx *ctx, const plan_field *pf,
                          const plan_defer **set) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < pf->nocc; i++) {
    if (!occ_included(ctx, &pf->occs[i]))
      continue;
    uint32_t d = pf->occs[i].defer;
    const plan_defer *u = effective(ctx, d ? ctx->p->defers[d - 1] : NULL);
    if (!u)
      return 0;
    if (!in_set(set, n, u))
      set[n++] = u;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    bool covered = false;
    for (const plan_defer *a = effective(ctx, set[i]->parent); a && !covered;
         a = effective(ctx, a->parent))
      covered = in_set(set, n, a);
    if (!covered)
      set[k++] = set[i];
  }
  return k;
}

static bool same_set(const plan_defer *const *a, uint32_t na,
                     const plan_defer *const *b, uint32_t nb) {
  if (na != nb)
    return false;
  for (uint32_t i = 0; i < na; i++)
    if (!in_set(b, nb, a[i]))
      return false;
  return true;
}

/* Whether JSON path `prefix` (`plen` bytes) is `path` (`len`) or a path
 * above it. */
static bool path_within(const char *prefix, size_t plen, const char *path,
                        size_t len) {
  size_t n = plen - 1; /* without its ']' */
  if (n >= len || memcmp(prefix, path, n) != 0)
    return false;
  return path[n] == ']' || (n == 1 || path[n] == ',');
}

/* The fragment of usage `u` whose object is at `path` or above it: among
 * the usage's records, newest first (the walk is depth first, so it is
 * the newest one but where pending fields interleave the walks); the
 * records and groups of one object share their path's string. */
static inc_record *find_record(const exec_ctx *ctx, const plan_defer *u,
                               const char *path, size_t len) {
  const inc_state *st = ctx->inc;
  for (inc_record *r = st->latest[u->index]; r; r = r->prev_same)
    if (r->path == path || path_within(r->path, r->path_len, path, len))
      return r;
  return NULL;
}

/* The response path `f` as JSON (`[...]`, in the arena; *len its length),
 * as gql_exec_path_json writes it: a key is a GraphQL name (nothing to
 * escape), an index is not negative. Written from its end, as the frames
 * go up. */
static const char *path_json(gql_arena *a, const path_frame *f, uint32_t *len) {
  uint32_t n = gql_exec_path_json_len(f);
  char *s = gql_arena_alloc(a, n + 1);
  if (!s)
    return NULL;
  gql_exec_path_json_put(s, n, f);
  s[n] = 0;
  *len = n;
  return s;
}

/* What the running context made: its group's list, or the initial
 * result's. */
static inc_made *made_by(exec_ctx *ctx) {
  return ctx->group ? &ctx->group->made : &ctx->inc->made;
}

/* Appends `r` (made by ctx) to the execution's records, its usage's and
 * its maker's. */
static void link_record(exec_ctx *ctx, inc_record *r) {
  inc_state *st = ctx->inc;
  *st->rtail = r;
  st->rtail = &r->next;
  inc_made *m = made_by(ctx);
  *m->rtail = r;
  m->rtail = &r->next_made;
  if (r->usage) {
    inc_record **head = &st->latest[r->usage->index];
    r->prev_same = *head;
    *head = r;
  }
}

static void link_group(exec_ctx *ctx, inc_group *g) {
  inc_state *st = ctx->inc;
  g->made.rtail = &g->made.recs;
  g->made.gtail = &g->made.groups;
  *st->gtail = g;
  st->gtail = &g->next;
  inc_made *m = made_by(ctx);
  *m->gtail = g;
  m->gtail = &g->next_made;
}

/* A copy of path `f` in one allocation (NULL: out of memory, or f NULL). */
static const path_frame *copy_path(gql_arena *a, const path_frame *f) {
  uint32_t n = 0;
  for (const path_frame *p = f; p; p = p->parent)
    n++;
  path_frame *c = n ? gql_arena_alloc(a, sizeof *c * n) : NULL;
  if (!c)
    return NULL;
  for (uint32_t i = 0; i < n; i++, f = f->parent) {
    c[i] = *f;
    c[i].parent = i + 1 < n ? &c[i + 1] : NULL;
  }
  return c;
}

/* Records the fragments of the usages met collecting `ps` at `path`. */
static bool add_records(exec_ctx *ctx, const plan_set *ps, const char *path,
                        uint32_t len, rnode *node) {
  for (uint32_t i = 0; i < ps->ndefers; i++) {
    const plan_defer *u = ps->defers[i];
    if (!usage_on(ctx, u))
      continue;
    inc_record *r = gql_arena_alloc(ctx->arena, sizeof *r);
    if (!r)
      return false;
    const plan_defer *pu = effective(ctx, u->parent);
    *r = (inc_record){.usage = u,
                      .label = u->label,
                      .path = path,
                      .path_len = len,
                      .parent = pu ? find_record(ctx, pu, path, len) : NULL,
                      .maker = ctx->group,
                      .node = node,
                      .id = -1,
                      .pred = -1};
    /* (an eager group's fragments are all of this kind) */
    if (!ctx->group && !r->parent && ctx->inc->direct)
      r->pred = ctx->inc->npred++;
    link_record(ctx, r);
  }
  return true;
}

/* `set` is kept as it is (a memo's: it lives as long as the execution). */
static inc_group *add_group(exec_ctx *ctx, const plan_set *ps,
                            const void *parent, const path_frame *path,
                            const char *path_json, uint32_t len, rnode *node,
                            const plan_defer **set, uint32_t n, bool eager) {
  inc_group *g = gql_arena_alloc(ctx->arena, sizeof *g + sizeof(void *) * n);
  if (!g)
    return NULL;
  inc_record **recs = (inc_record **)(g + 1);
  *g = (inc_group){.set = set,
                   .recs = recs,
                   .nset = n,
                   .nrecs = n,
                   .ps = ps,
                   .parent = parent,
                   .path = eager ? NULL : copy_path(ctx->arena, path),
                   .path_json = path_json,
                   .path_len = len,
                   .maker = ctx->group,
                   .node = node,
                   .eager = eager};
  if (path && !g->path && !eager) /* (an eager group runs now) */
    return NULL;
  for (uint32_t i = 0; i < n; i++) {
    recs[i] = find_record(ctx, set[i], path_json, len);
    if (!recs[i])
      g->dead = true; /* (unvalidated documents only) */
    else
      recs[i]->ngroups++;
  }
  link_group(ctx, g);
  return g;
}

/* How the fields of plan set `ps` split at an object, which is the same
 * at every object of the set in one execution (its variables are fixed)
 * for the same running set and kind of object: the fields the running
 * context keeps, and the usage sets of the groups it makes, in order. */
struct split_memo {
  const plan_set *ps;
  const plan_defer *const *cur;
  uint32_t ncur;
  bool group_root;
  /* a group root's: its fields can be written straight (the type is
   * synchronous, no @defer or @stream below them) */
  bool direct;
  bool *keep;
  const plan_defer ***sets;
  uint32_t *nset, nsets;
  /* made at gql_prepare (not a group root's): each group's root split, by
   * set, for its group (inc_group.memo), and whether the group can run
   * eagerly in a direct-mode initial result (eager_group) */
  struct split_memo **groups;
  bool *eager;
  struct split_memo *next;
};

static split_memo *find_memo(const inc_state *st, const plan_set *ps,
                             const plan_defer *const *cur, uint32_t ncur,
                             bool group_root) {
  for (split_memo *m = st->memos; m; m = m->next)
    if (m->ps == ps && m->group_root == group_root &&
        same_set(m->cur, m->ncur, cur, ncur))
      return m;
  return NULL;
}

static split_memo *make_memo(exec_ctx *ctx, const plan_set *ps,
                             const plan_defer *const *cur, uint32_t ncur,
                             bool group_root) {
  inc_state *st = ctx->inc;
  gql_arena *a = ctx->arena;
  split_memo *m = gql_arena_alloc(a, sizeof *m);
  bool *keep = gql_arena_alloc(a, sizeof *keep * (ps->nentries + 1));
  const plan_defer ***sets = gql_arena_alloc(a, sizeof *sets * ps->nentries);
  uint32_t *nset = gql_arena_alloc(a, sizeof *nset * ps->nentries);
  if (!m || !keep || !sets || !nset)
    return NULL;
  *m = (split_memo){.ps = ps,
                    .cur = cur,
                    .ncur = ncur,
                    .group_root = group_root,
                    .keep = keep,
                    .sets = sets,
                    .nset = nset,
                    .direct = group_root && ctx->s->types[ps->type].sync};
  for (uint32_t i = 0; i < ps->nentries; i++) {
    keep[i] = false;
    if (!field_included(ctx, ps, ps->entries[i]))
      continue;
    const plan_field *pf = &ps->fields[ps->entries[i].field];
    const plan_defer **set = gql_arena_alloc(a, sizeof *set * pf->nocc);
    if (!set)
      return NULL;
    uint32_t n = field_set(ctx, pf, set);
    if (same_set(set, n, cur, ncur) || (n == 0 && !group_root)) {
      keep[i] = true;
      m->direct &= pf->inc_free;
      continue;
    }
    if (group_root) /* another group's field, or the initial result's */
      continue;
    bool found = false;
    for (uint32_t j = 0; j < m->nsets && !found; j++)
      found = same_set(sets[j], nset[j], set, n);
    if (!found) {
      sets[m->nsets] = set;
      nset[m->nsets++] = n;
    }
  }
  /* keep[nentries]: no field is kept (the object is {}) */
  keep[ps->nentries] = true;
  for (uint32_t i = 0; i < ps->nentries; i++)
    keep[ps->nentries] &= !keep[i];
  m->next = st->memos;
  st->memos = m;
  return m;
}

bool *gql_exec_defer_split(exec_ctx *ctx, const plan_set *ps,
                           const void *parent, const path_frame *path,
                           rnode *node) {
  assert(ps->any_cond && ctx->inc);
  const inc_group *run = ctx->group;
  /* the root of a group: its fields alone, its fragments already made */
  bool group_root = run && !run->stream && node == run->root;
  const plan_defer *const *cur = run ? run->set : NULL;
  uint32_t ncur = run ? run->nset : 0;
  /* gql_prepare's: the initial result's, a group's root's */
  split_memo *m = !run && ps->memo_slot ? ctx->p->memos[ps->memo_slot - 1]
                  : group_root          ? run->memo
                                        : NULL;
  if (!m)
    m = find_memo(ctx->inc, ps, cur, ncur, group_root);
  if (!m && !(m = make_memo(ctx, ps, cur, ncur, group_root)))
    return NULL;
  if (group_root) /* nothing to record: its fragments are made */
    return m->keep;
  uint32_t len;
  const char *pj = path_json(ctx->arena, path, &len);
  inc_record **made = made_by(ctx)->rtail; /* the first made here */
  if (!pj || !add_records(ctx, ps, pj, len, node))
    return NULL;
  inc_state *st = ctx->inc;
  /* eager groups: in a direct-mode initial result, run by
   * walk.c's inc_eager once the object's own fields are written; one of a
   * single fragment made here is the fragment's (no inc_group) */
  const bool *eager = !run && st->direct ? m->eager : NULL;
  inc_eager_at at = {0};
  for (uint32_t i = 0; i < m->nsets; i++) {
    bool e = eager && eager[i];
    if (e && m->nset[i] == 1) {
      inc_record *r = find_record(ctx, m->sets[i][0], pj, len);
      if (r && r->path == pj) {
        r->eager = true;
        r->ekeep = m->groups[i]->keep;
        r->ngroups++;
        at.recs = *made;
        continue;
      }
    }
    inc_group *g = add_group(ctx, ps, parent, path, pj, len, node, m->sets[i],
                             m->nset[i], e);
    if (!g)
      return NULL;
    g->memo = m->groups ? m->groups[i] : NULL;
    g->ekeep = e ? m->groups[i]->keep : NULL;
    if (e && !at.groups) {
      at.groups = g;
      at.ngroups = m->nsets - i;
    }
  }
  st->eager_at = at;
  return m->keep;
}

const bool *gql_exec_defer_group_fields(exec_ctx *ctx, const plan_set *ps,
                                        bool *direct) {
  const inc_group *run = ctx->group;
  split_memo *m = run->memo;
  if (!m)
    m = find_memo(ctx->inc, ps, run->set, run->nset, true);
  if (!m && !(m = make_memo(ctx, ps, run->set, run->nset, true)))
    return NULL;
  *direct = m->direct;
  return m->keep;
}

static void clear_slots(plan_set *ps) {
  ps->memo_slot = 0;
  for (uint32_t i = 0; i < ps->nfields; i++)
    for (uint32_t j = 0; j < ps->fields[i].nsubs; j++)
      clear_slots(ps->fields[i].subs[j]);
}

/* Whether a split of `ps` depends on no variable: no field of it has a
 * @skip or @include (the document's @defer have no variable `if`). */
static bool fixed_split(const plan_set *ps) {
  for (uint32_t i = 0; i < ps->nfields; i++)
    for (uint32_t j = 0; j < ps->fields[i].nocc; j++)
      if (ps->fields[i].occs[j].nconds)
        return false;
  return true;
}

/* Whether the objects of `ps`, below a group's field whose usages are
 * `cur`, keep every field as a plain execution would: each of its fields
 * has the usages `cur` (inherited from the group's field), no @defer is
 * met, no @skip or @include, and the same below (an eager group then
 * writes them without a split). */
static bool inherits(exec_ctx *ctx, const plan_set *ps,
                     const plan_defer *const *cur, uint32_t ncur) {
  if (ps->inc_free)
    return true;
  if (ps->ndefers || !fixed_split(ps))
    return false;
  for (uint32_t i = 0; i < ps->nfields; i++) {
    const plan_field *pf = &ps->fields[i];
    const plan_defer **set =
        gql_arena_alloc(ctx->arena, sizeof *set * pf->nocc);
    if (!set || !same_set(set, field_set(ctx, pf, set), cur, ncur))
      return false;
    for (uint32_t j = 0; j < pf->nsubs; j++)
      if (!inherits(ctx, pf->subs[j], cur, ncur))
        return false;
  }
  return true;
}

/* Whether group root split `gm` (of `ps`) can run eagerly: its type is
 * synchronous, none of its usages has a parent (its fragments are
 * announced with the initial result) and its fields' objects keep their
 * fields (inherits). */
static bool eager_group(exec_ctx *ctx, const plan_set *ps,
                        const split_memo *gm) {
  if (!ctx->s->types[ps->type].sync)
    return false;
  for (uint32_t k = 0; k < gm->ncur; k++)
    if (gm->cur[k]->parent)
      return false;
  for (uint32_t i = 0; i < ps->nentries; i++) {
    if (!gm->keep[i])
      continue;
    const plan_field *pf = &ps->fields[ps->entries[i].field];
    for (uint32_t j = 0; j < pf->nsubs && !pf->inc_free; j++)
      if (!inherits(ctx, pf->subs[j], gm->cur, gm->ncur))
        return false;
  }
  return true;
}

/* Makes the initial result's split of every set with a @defer at or below
 * `ps` that depends on no variable, and its groups' root splits; false
 * when out of memory. */
static bool prepare_sets(exec_ctx *ctx, gql_prepared *p, plan_set *ps,
                         uint32_t *n) {
  if (ps->any_defer && fixed_split(ps) && *n < UINT16_MAX) {
    split_memo *m = make_memo(ctx, ps, NULL, 0, false);
    split_memo **gm =
        m ? gql_arena_alloc(ctx->arena, sizeof *gm * (m->nsets + 1)) : NULL;
    if (!gm)
      return false;
    bool *eager = gql_arena_alloc(ctx->arena, sizeof *eager * (m->nsets + 1));
    if (!eager)
      return false;
    for (uint32_t i = 0; i < m->nsets; i++) {
      if (!(gm[i] = make_memo(ctx, ps, m->sets[i], m->nset[i], true)))
        return false;
      eager[i] = eager_group(ctx, ps, gm[i]);
    }
    m->groups = gm;
    m->eager = eager;
    p->memos[*n] = m;
    ps->memo_slot = (uint16_t)++ * n;
  }
  for (uint32_t i = 0; i < ps->nfields; i++)
    for (uint32_t j = 0; j < ps->fields[i].nsubs; j++)
      if (!prepare_sets(ctx, p, ps->fields[i].subs[j], n))
        return false;
  return true;
}

/* Whether `ps`, a set with a @defer, is an object an eager_only execution
 * defers whole: its one usage is its own, not nested, and takes every
 * field (nothing is kept), in one group that runs eagerly (eager_group:
 * nothing below is deferred or conditional). */
static bool whole_object(const gql_prepared *p, const plan_set *ps) {
  if (!ps->memo_slot || ps->ndefers != 1 || ps->defers[0]->parent)
    return false;
  const split_memo *m = p->memos[ps->memo_slot - 1];
  return m->keep[ps->nentries] && m->nsets == 1 && m->nset[0] == 1 &&
         m->sets[0][0] == ps->defers[0] && m->eager[0];
}

/* Whether every set with a @defer at or below `ps`, outside the objects
 * deferred whole, is such an object; each gets its twin (the set as a
 * plain execution walks it, sharing its fields). */
static bool eager_sets(gql_prepared *p, const plan_set *ps) {
  if (ps->any_defer) {
    if (!whole_object(p, ps))
      return false;
    plan_set *t = gql_arena_alloc(p->arena, sizeof *t);
    if (!t)
      return false;
    *t = *ps;
    t->entries = NULL;
    t->nentries = 0;
    t->any_cond = t->check_conds = t->any_defer = false;
    t->defers = NULL;
    t->ndefers = 0;
    t->memo_slot = 0;
    t->all_members = t->nfields > 0;
    for (uint32_t i = 0; i < t->nfields; i++)
      t->all_members &= t->fields[i].member != MEMBER_NONE;
    p->twins[ps->memo_slot - 1] = t;
    return true;
  }
  for (uint32_t i = 0; i < ps->nfields; i++)
    for (uint32_t j = 0; j < ps->fields[i].nsubs; j++)
      if (!eager_sets(p, ps->fields[i].subs[j]))
        return false;
  return true;
}

static uint32_t count_sets(const plan_set *ps) {
  uint32_t n = ps->any_defer;
  for (uint32_t i = 0; i < ps->nfields; i++)
    for (uint32_t j = 0; j < ps->fields[i].nsubs; j++)
      n += count_sets(ps->fields[i].subs[j]);
  return n;
}

/* (make_memo reads of the context only what a split without variables
 * needs: the operation, schema and arena, and a list for its memos) */
void gql_exec_defer_prepare(gql_prepared *p) {
  if (p->bad_condition || !p->root)
    return;
  for (uint32_t i = 0; i < p->ndefers; i++)
    if (p->defers[i]->var != UINT32_MAX)
      return;
  uint32_t total = count_sets(p->root);
  if (!total)
    return;
  p->memos = gql_arena_alloc(p->arena, sizeof *p->memos * total);
  if (!p->memos)
    return;
  inc_state st = {0};
  exec_ctx ctx = {.p = p, .s = p->s, .arena = p->arena, .inc = &st};
  uint32_t n = 0;
  if (!prepare_sets(&ctx, p, p->root, &n)) { /* out of memory: per request */
    clear_slots(p->root);
    return;
  }
  if (p->any_stream || p->kind != GQL_OP_QUERY || p->bad_condition ||
      !p->s->types[p->root_type].sync)
    return;
  p->twins = gql_arena_alloc(p->arena, sizeof *p->twins * total);
  if (!p->twins)
    return;
  memset(p->twins, 0, sizeof *p->twins * total);
  p->eager_only = eager_sets(p, p->root);
}

/* The value of an argument of a @stream: its variable's (NULL: none), or
 * the literal's kind and text (*lit). */
static const gql_json_value *arg(const exec_ctx *ctx,
                                 const gql_ast_directive *d, const char *name,
                                 const gql_ast_value **lit) {
  const gql_ast_argument *a = gql_ast_find_argument(&d->args, name);
  *lit = a ? a->value : NULL;
  if (!a || a->value->h.kind != GQL_AST_VARIABLE)
    return NULL;
  *lit = NULL;
  gql_str vname = gql_ast_name_str(a->value->u.name);
  for (uint32_t i = 0; i < ctx->p->nvars; i++)
    if (gql_str_eq(ctx->p->vars[i].name, vname))
      return ctx->vars[i];
  return NULL;
}

/* The @stream of the field's first included occurrence with one (read from
 * the document: only an incremental execution's lists come here). */
static const gql_ast_directive *stream_of(const exec_ctx *ctx,
                                          const plan_field *pf) {
  for (uint32_t i = 0; i < pf->nocc; i++) {
    if (!occ_included(ctx, &pf->occs[i]))
      continue;
    const gql_ast_directive *d =
        gql_ast_find_directive(&pf->occs[i].node->directives, "stream");
    if (d)
      return d;
  }
  return NULL;
}

bool gql_exec_stream_initial(const exec_ctx *ctx, const plan_field *pf,
                             size_t count, size_t *initial) {
  const gql_ast_directive *d = stream_of(ctx, pf);
  if (!d)
    return false;
  const gql_ast_value *lit;
  const gql_json_value *v = arg(ctx, d, "if", &lit);
  if ((v && v->kind == GQL_JSON_BOOL && !v->boolean) ||
      (lit && lit->h.kind == GQL_AST_BOOLEAN_VALUE && !lit->u.boolean))
    return false;
  int64_t n = 0; /* initialCount's default */
  v = arg(ctx, d, "initialCount", &lit);
  if (v && v->kind == GQL_JSON_NUMBER)
    n = v->is_int ? v->number.i : (int64_t)v->number.d;
  if (lit && lit->h.kind == GQL_AST_INT_VALUE) {
    gql_str raw = lit->u.raw;
    bool neg = raw.len && raw.ptr[0] == '-';
    for (size_t i = neg; i < raw.len && n < INT32_MAX; i++)
      n = n * 10 + (raw.ptr[i] - '0');
    n = neg ? -n : n;
  }
  if (n < 0 || (uint64_t)n > count) /* graphql-js: the list ended first */
    return false;
  *initial = (size_t)n;
  return true;
}

/* The stream of the list at o (its first `initial` items are in place) and
 * a group per item after them. */
void gql_exec_stream_add(gql_out *o, const void *list, size_t count,
                         gql_list_item_fn fn, size_t initial,
                         gql_type_ref item) {
  exec_ctx *ctx = o->own.ctx;
  const gql_ast_directive *d = stream_of(ctx, o->own.pf);
  const gql_ast_value *lit;
  arg(ctx, d, "label", &lit);
  inc_record *r = gql_arena_alloc(ctx->arena, sizeof *r);
  gql_resolve_info *info = gql_arena_alloc(ctx->arena, sizeof *info);
  const path_frame *path = copy_path(ctx->arena, o->own.path);
  const char *path_json =
      gql_exec_path_json_in(ctx, o->own.path, &ctx->inc->scratch);
  inc_group *gs =
      gql_arena_alloc(ctx->arena, sizeof *gs * (count - initial + 1));
  if (!r || !info || !path || !path_json || !gs) {
    gql_exec_field_error(o, "Out of memory.", UINT32_MAX);
    return;
  }
  *info = *out_info(o);
  info->ctx = ctx;
  info->path = path;
  *r = (inc_record){.label = lit && lit->h.kind == GQL_AST_STRING_VALUE
                                 ? lit->u.string.value
                                 : (gql_str){0},
                    .first = initial,
                    .path = path_json,
                    .path_len = (uint32_t)strlen(path_json),
                    .maker = ctx->group,
                    .node = o->node,
                    .ngroups = (uint32_t)(count - initial),
                    .id = -1};
  link_record(ctx, r);
  const inc_group *run = ctx->group;
  for (size_t i = initial; i < count; i++) {
    inc_group *g = &gs[i - initial];
    *g = (inc_group){.set = run ? run->set : NULL,
                     .nset = run ? run->nset : 0,
                     .recs = &g->stream,
                     .nrecs = 1,
                     .stream = r,
                     .index = i,
                     .list = list,
                     .fn = fn,
                     .item = item,
                     .info = info,
                     .path = path,
                     .path_json = path_json,
                     .path_len = r->path_len,
                     .maker = ctx->group,
                     .node = o->node};
    link_group(ctx, g);
  }
}
