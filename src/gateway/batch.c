/*
 * From placed fetches to requests: each fetch gets a wave from its
 * dependencies; the fetches of one subgraph in one wave become one request
 * with aliased `_entities` fields (those of one type asking one selection
 * with one representation shape share a field, so their representations
 * are de-duplicated together). A wave's batch that nothing depends on
 * moves to a later wave that already talks to the same subgraph, which
 * saves a request without lengthening the critical path (the benchmark
 * query: 6 requests in 4 waves). Then the subgraph operation's text.
 */
#include "plan_internal.h"

#include <stdio.h>

/* ------------------------------------------------------ waves, batches */

static int level_of(gw_planner *p, gql_gw_fetch *f, uint32_t *out) {
  if (f->level) {
    *out = f->level;
    return 0;
  }
  if (f->visiting)
    GW_FAIL(p, GQL_EUNSUPPORTED, "the fetches depend in a cycle");
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
        if (batch_exists(plan, g, l2) &&
            (!plan->ndefers || /* not across @defer's initial result */
             (l2 <= plan->primary_levels) == (lv <= plan->primary_levels)))
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
void gw_print_sels(gql_buf *out, const gql_gw_sel *parent, bool spaced) {
  gql_buf_puts(out, spaced ? "{ " : "{");
  for (const gql_gw_sel *s = parent->first; s; s = s->next) {
    if (s != parent->first)
      gql_buf_putc(out, ' ');
    if (s->fragment) {
      gql_buf_puts(out, spaced ? "... on " : "...on ");
      gql_buf_put_str(out, s->name);
      if (spaced)
        gql_buf_putc(out, ' ');
      gw_print_sels(out, s, spaced);
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
      gw_print_sels(out, s, spaced);
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
  gql_buf_putc(&b, '/');
  gql_buf_put_str(&b, f->rep_typename);
  gql_buf_putc(&b, '/');
  if (f->filter)
    gql_buf_put_str(&b, f->filter->name);
  gw_print_sels(&b, f->requires, false);
  gw_print_sels(&b, &f->root, false);
  char *s = b.failed ? NULL : gql_arena_strndup(a, b.data, b.len);
  *out = (gql_str){s, b.len};
  gql_buf_free(&b);
  return s ? 0 : GQL_ENOMEM;
}

static int assign_fields(gw_planner *p, gql_gw_batch *b) {
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
static int batch_operation(gw_planner *p, gql_gw_batch *b) {
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
  gql_buf_puts(&out, !root_batch                            ? "query"
                     : op->operation == GQL_OP_MUTATION     ? "mutation"
                     : op->operation == GQL_OP_SUBSCRIPTION ? "subscription"
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
      gw_print_sels(&tmp, &f->root, false);
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
    gw_print_sels(&out, &f->root, false);
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

int gw_make_batches(gw_planner *p) {
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
  if (plan->ndefers) {
    int rc = gw_defer_levels(p);
    if (rc)
      return rc;
  }
  defer_leaves(plan);
  if (plan->ndefers)
    gw_defer_ready_levels(p);
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
