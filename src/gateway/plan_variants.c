/*
 * Building plans, and the variants of one operation's plan. A plan depends
 * on the values of the operation's @skip / @include condition variables,
 * of the progressive override labels it met while planning and on the
 * request's verdicts on the guarded fields it met (@authenticated,
 * @requiresScopes: a field the request may not see is not fetched),
 * recorded in plan->key. A request whose values agree on those gets the
 * plan; one
 * that does not gets a variant planned once for its values and kept with
 * the first plan (in that plan's arena, so a plan cache frees it with the
 * plan), up to 64 of them; past that, a request's own plan is made in its
 * arena. An operation without such conditions has one plan and pays one
 * pointer test per request.
 */
#include "plan_internal.h"
#include "json/json.h"

#define MAX_VARIANTS 64

struct gql_gw_plan_set {
  gql_arena *arena;
  const gql_gw_plan **variants;
  uint32_t n, cap;
};

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

int gw_plan_run(gw_planner *p) {
  int rc = gw_normalise(p, p->plan->root);
  if (!rc)
    rc = gw_plan_fetches(p);
  if (!rc && p->plan->ndefers)
    gw_defer_mark(p);
  if (!rc)
    rc = gw_make_batches(p);
  return rc;
}

static int build_once(const gql_supergraph *sg, const gql_document *doc,
                      const gql_ast_operation *op, gql_arena *arena,
                      const gql_value *variables, uint64_t labels,
                      const gql_gw_who *who, bool exhaustive, gql_gw_plan **out,
                      const char **err) {
  gw_planner p;
  memset(&p, 0, sizeof p);
  p.sg = sg;
  p.doc = doc;
  p.op = op;
  p.arena = arena;
  p.err = err;
  p.variables = variables;
  p.labels = labels;
  p.who = who;
  p.exhaustive = exhaustive;
  *err = NULL;
  /* a subscription is planned as a query of its root type: its root
   * fetch is the subscription opened to the subgraph (subscribe.c) */
  const gql_gw_type *root = gql_supergraph_type(
      sg, op->operation == GQL_OP_MUTATION       ? sg->mutation_type
          : op->operation == GQL_OP_SUBSCRIPTION ? sg->subscription_type
                                                 : sg->query_type);
  if (!root)
    GW_FAIL(&p, GQL_ESCHEMA,
            "the supergraph has no root type for this operation");
  p.plan = gql_arena_alloc(arena, sizeof *p.plan);
  if (!p.plan)
    return GQL_ENOMEM;
  memset(p.plan, 0, sizeof *p.plan);
  p.plan->sg = sg;
  p.plan->doc = doc;
  p.plan->op = op;
  p.plan->root = root;
  int rc = gw_plan_run(&p);
  if (rc) {
    if (!*err)
      *err = gql_strerror(rc);
    return rc;
  }
  *out = p.plan;
  return 0;
}

/* The search cuts estimates that cannot beat a way already found, which
 * finds the same plan; a refusal is explained by the full search (the
 * first field it found no way for), as before the cuts. */
static int build(const gql_supergraph *sg, const gql_document *doc,
                 const gql_ast_operation *op, gql_arena *arena,
                 const gql_value *variables, uint64_t labels,
                 const gql_gw_who *who, gql_gw_plan **out, const char **err) {
  int rc =
      build_once(sg, doc, op, arena, variables, labels, who, false, out, err);
  if (rc && rc != GQL_ENOMEM)
    rc =
        build_once(sg, doc, op, arena, variables, labels, who, false, out, err);
  return rc;
}

int gql_gw_plan_build(const gql_supergraph *sg, const gql_document *doc,
                      const char *operation_name, gql_arena *arena,
                      gql_gw_plan **out, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  *err = NULL;
  const gql_ast_operation *op = find_operation(doc, operation_name);
  if (!op) {
    *err = "no such operation";
    return GQL_EINVAL;
  }
  gql_gw_plan *plan;
  int rc = build(sg, doc, op, arena, NULL, 0, NULL, &plan, err);
  if (rc)
    return rc;
  if (plan->key.cond_mask || plan->key.label_mask || plan->key.naccess) {
    gql_gw_plan_set *set = gql_arena_alloc(arena, sizeof *set);
    if (!set)
      return GQL_ENOMEM;
    memset(set, 0, sizeof *set);
    set->arena = arena;
    plan->set = set;
  }
  *out = plan;
  return 0;
}

/* The value condition variable i has in this request (as normalize.c
 * reads it). */
static bool cond_value(const gql_ast_operation *op, const gql_value *vars,
                       uint32_t i) {
  const gql_ast_variable_definition *vd = op->variables.items[i];
  gql_str name = gql_ast_name_str(vd->variable->u.name);
  const gql_json_value *v = vars ? gql_json_get(vars, name) : NULL;
  if (v)
    return v->kind == GQL_JSON_BOOL && v->boolean;
  return vd->default_value &&
         vd->default_value->h.kind == GQL_AST_BOOLEAN_VALUE &&
         vd->default_value->u.boolean;
}

static bool fits(const gql_gw_plan *v, uint64_t conds, uint64_t labels,
                 const gql_gw_who *who) {
  if (((conds ^ v->key.cond_vals) & v->key.cond_mask) != 0 ||
      ((labels ^ v->key.label_vals) & v->key.label_mask) != 0)
    return false;
  for (uint32_t i = 0; i < v->key.naccess; i++)
    if (gql_gw_allowed(who, v->key.access[i].field) != v->key.access[i].allowed)
      return false;
  return true;
}

int gql_gw_plan_for(const gql_gw_plan *plan, const gql_value *variables,
                    uint64_t labels, const gql_gw_who *who, gql_arena *arena,
                    const gql_gw_plan **out, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  *out = plan;
  gql_gw_plan_set *set = plan->set;
  if (!set)
    return 0;
  const gql_ast_operation *op = plan->op;
  uint64_t conds = 0;
  for (uint32_t i = 0; i < op->variables.count && i < 64; i++)
    if (cond_value(op, variables, i))
      conds |= (uint64_t)1 << i;
  if (fits(plan, conds, labels, who))
    return 0;
  for (uint32_t i = 0; i < set->n; i++)
    if (fits(set->variants[i], conds, labels, who)) {
      *out = set->variants[i];
      return 0;
    }
  bool keep = set->n < MAX_VARIANTS;
  gql_gw_plan *v;
  int rc = build(plan->sg, plan->doc, op, keep ? set->arena : arena, variables,
                 labels, who, &v, err);
  if (rc)
    return rc;
  v->set = set;
  if (keep) {
    if (!GQL_ARRAY_RESERVE_FIRST(set->arena, set->variants, set->cap,
                                 set->n + 1, 4))
      return GQL_ENOMEM;
    set->variants[set->n++] = v;
  }
  *out = v;
  return 0;
}

uint64_t gql_gw_draw_labels(const gql_supergraph *sg, uint64_t *rng) {
  uint64_t on = 0;
  for (uint32_t i = 0; i < sg->nlabels && i < 64; i++) {
    if (sg->labels[i].percent < 0)
      continue;
    /* xorshift64*: a uniform draw in [0, 100) */
    uint64_t x = *rng ? *rng : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *rng = x;
    double u = (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
    if (u * 100.0 < sg->labels[i].percent)
      on |= (uint64_t)1 << i;
  }
  return on;
}
