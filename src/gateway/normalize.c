/*
 * The client operation normalised for planning: fragments expanded, fields
 * merged by response key (and type condition), in query order, every
 * field with its definition. @skip / @include are decided here: literal
 * conditions, and variable ones from the request's values (their
 * defaults, else false, for a plan made without a request), each
 * variable consulted recorded in the plan's key so that a request with
 * other values gets another plan (gql_gw_plan_for).
 *
 * A field guarded by @authenticated / @requiresScopes that the request may
 * not see on any type it can be asked on is marked denied: the planner
 * fetches nothing of it (nor of its selection, not normalised), as Apollo
 * Router filters such fields before planning, and the projection answers
 * it null with its error. Each verdict consulted is recorded in the key.
 *
 * Below an abstract type, a fragment on another type keeps that type as
 * the condition of its fields (and the enclosing condition as cond2).
 * The root fields __schema and __type are the gateway's own
 * (introspection): kept verbatim, and printed as an operation of their
 * own that gql's executor answers over the API schema.
 */
#include "plan_internal.h"
#include "json/json.h"

typedef struct pending {
  gql_gw_sel *sel;
  const gql_ast_selection_set **sets;
  const gql_gw_defer **dls; /* per set: the payload its fields go in */
  uint32_t n, cap, dls_cap;
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

/* The value of condition variable `name` for this plan, recorded. */
static bool variable_value(gw_planner *p, gql_str name) {
  const gql_ast_operation *op = p->op;
  for (uint32_t i = 0; i < op->variables.count; i++) {
    const gql_ast_variable_definition *vd = op->variables.items[i];
    if (!gql_str_eq(gql_ast_name_str(vd->variable->u.name), name))
      continue;
    bool v = false;
    const gql_json_value *jv =
        p->variables ? gql_json_get(p->variables, name) : NULL;
    if (jv && jv->kind == GQL_JSON_BOOL)
      v = jv->boolean;
    else if (!jv && vd->default_value &&
             vd->default_value->h.kind == GQL_AST_BOOLEAN_VALUE)
      v = vd->default_value->u.boolean;
    if (i < 64) {
      p->plan->key.cond_mask |= (uint64_t)1 << i;
      if (v)
        p->plan->key.cond_vals |= (uint64_t)1 << i;
    }
    return v;
  }
  return false;
}

/* The request's verdict on guarded field f, recorded in the plan's key. */
static int verdict(gw_planner *p, const gql_gw_field *f, bool *allowed) {
  gql_gw_plan_key *k = &p->plan->key;
  *allowed = gql_gw_allowed(p->who, f);
  for (uint32_t i = 0; i < k->naccess; i++)
    if (k->access[i].field == f)
      return 0;
  gql_gw_verdict v = {f, *allowed};
  return GQL_ARRAY_PUSH(p->arena, k->access, k->naccess, k->access_cap, v)
             ? 0
             : GQL_ENOMEM;
}

/* Whether client field c (its def on type t) may not be fetched for this
 * request: its def is denied and, below an abstract type, so is the field
 * of every object type it can be asked on (the projection judges each
 * object by its own type's field). */
static int denied(gw_planner *p, const gql_gw_type *t, const gql_gw_sel *c,
                  bool *out) {
  bool ok;
  *out = false;
  int rc = verdict(p, c->def, &ok);
  if (rc || ok)
    return rc;
  for (uint32_t i = 0; i < t->npossible; i++) {
    const gql_gw_field *f =
        gql_supergraph_field_of(p->sg, t->possible[i], c->name);
    if (f && f != c->def && ((rc = verdict(p, f, &ok)) || ok))
      return rc;
  }
  *out = true;
  return 0;
}

/* ------------------------------------------------------------ @defer */

/* Whether directives `ds` hold an active @defer; its label. */
static bool defer_directive(gw_planner *p, const gql_ast_directives *ds,
                            gql_str *label) {
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    if (!gql_str_eq_cstr(gql_ast_name_str(d->name), "defer"))
      continue;
    bool on = true;
    *label = (gql_str){NULL, 0};
    for (uint32_t j = 0; j < d->args.count; j++) {
      gql_str an = gql_ast_name_str(d->args.items[j]->name);
      const gql_ast_value *v = d->args.items[j]->value;
      if (gql_str_eq_cstr(an, "if")) {
        if (v->h.kind == GQL_AST_BOOLEAN_VALUE)
          on = v->u.boolean;
        else if (v->h.kind == GQL_AST_VARIABLE)
          on = variable_value(p, gql_ast_name_str(v->u.name));
      } else if (gql_str_eq_cstr(an, "label") &&
                 v->h.kind == GQL_AST_STRING_VALUE) {
        *label = v->u.string.value;
      }
    }
    return on;
  }
  return false;
}

int gw_defer_fragment(gw_planner *p, const gql_ast_selection *frag,
                      const gql_gw_sel *at, const gql_gw_type *cond,
                      const gql_gw_type *cond2, const gql_gw_defer *parent,
                      const gql_gw_defer **dl) {
  gql_str label;
  *dl = parent;
  if (!frag->directives.count || !defer_directive(p, &frag->directives, &label))
    return 0;
  gql_gw_plan *plan = p->plan;
  if (p->op->operation == GQL_OP_SUBSCRIPTION)
    return 0; /* validation refuses it; planned as without */
  for (uint32_t i = 0; i < plan->ndefers; i++) {
    gql_gw_defer *d = plan->defers[i];
    if (d->node == frag && d->at == at && d->parent == parent &&
        d->cond == cond && d->cond2 == cond2) {
      *dl = d;
      return 0;
    }
  }
  gql_gw_defer *d = gql_arena_alloc(p->arena, sizeof *d);
  uint32_t cap = plan->ndefers; /* doubles at powers of two */
  if (!d)
    return GQL_ENOMEM;
  if ((cap & (cap - 1)) == 0) {
    gql_gw_defer **n =
        gql_arena_alloc(p->arena, (cap ? 2 * cap : 4) * sizeof *n);
    if (!n)
      return GQL_ENOMEM;
    if (cap)
      memcpy(n, plan->defers, cap * sizeof *n);
    plan->defers = n;
  }
  gql_gw_sel *node = (gql_gw_sel *)at; /* the client tree, being built */
  *d = (gql_gw_defer){.index = plan->ndefers,
                      .label = label,
                      .parent = parent,
                      .at = at,
                      .cond = cond,
                      .cond2 = cond2,
                      .node = frag};
  gql_gw_defer *last = (gql_gw_defer *)node->defers; /* document order */
  while (last && last->next_at)
    last = (gql_gw_defer *)last->next_at;
  if (last)
    last->next_at = d;
  else
    node->defers = d;
  plan->defers[plan->ndefers++] = d;
  *dl = d;
  return 0;
}

/* A field in two fragments goes with the one that encloses the other; in
 * two apart (siblings), with the innermost fragment enclosing both: each
 * fragment's payload can then only need fields delivered before it. */
const gql_gw_defer *gw_defer_earlier(const gql_gw_defer *a,
                                     const gql_gw_defer *b) {
  for (; a; a = a->parent)
    if (gql_gw_defer_within(a, b))
      return a;
  return NULL;
}

/* ------------------------------------------------------------ fields */

/* @skip / @include: whether the selection is kept. */
static bool included(gw_planner *p, const gql_ast_directives *ds) {
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    bool skip = gql_str_eq_cstr(gql_ast_name_str(d->name), "skip");
    bool incl = gql_str_eq_cstr(gql_ast_name_str(d->name), "include");
    if (!skip && !incl)
      continue;
    for (uint32_t j = 0; j < d->args.count; j++) {
      if (!gql_str_eq_cstr(gql_ast_name_str(d->args.items[j]->name), "if"))
        continue;
      const gql_ast_value *v = d->args.items[j]->value;
      bool b = false;
      if (v->h.kind == GQL_AST_BOOLEAN_VALUE)
        b = v->u.boolean;
      else if (v->h.kind == GQL_AST_VARIABLE)
        b = variable_value(p, gql_ast_name_str(v->u.name));
      if (skip && b)
        return false;
      if (incl && !b)
        return false;
    }
  }
  return true;
}

static int pending_push(gw_planner *p, level *lv, gql_gw_sel *sel,
                        const gql_ast_selection_set *set,
                        const gql_gw_defer *dl) {
  pending *pe = NULL;
  for (uint32_t i = 0; i < lv->n; i++)
    if (lv->items[i].sel == sel)
      pe = &lv->items[i];
  if (!pe) {
    if (!GQL_ARRAY_RESERVE(p->arena, lv->items, lv->cap, lv->n + 1))
      return GQL_ENOMEM;
    pe = &lv->items[lv->n++];
    memset(pe, 0, sizeof *pe);
    pe->sel = sel;
  }
  if (!GQL_ARRAY_RESERVE_FIRST(p->arena, pe->sets, pe->cap, pe->n + 1, 4) ||
      !GQL_ARRAY_RESERVE_FIRST(p->arena, pe->dls, pe->dls_cap, pe->n + 1, 4))
    return GQL_ENOMEM;
  pe->dls[pe->n] = dl;
  pe->sets[pe->n++] = set;
  return 0;
}

/* The client field `key` under conditions cond / cond2, added when absent. */
static gql_gw_sel *client_add(gw_planner *p, gql_gw_sel *dst, gql_str key,
                              gql_str name, const gql_ast_selection *field,
                              const gql_gw_type *cond,
                              const gql_gw_type *cond2) {
  for (gql_gw_sel *s = dst->first; s; s = s->next)
    if (s->cond == cond && s->cond2 == cond2 && gql_str_eq(s->key, key))
      return s;
  if (++p->client_fields > GW_MAX_CLIENT_FIELDS)
    return NULL; /* reported by the caller */
  gql_gw_sel *s = gql_arena_alloc(p->arena, sizeof *s);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  s->key = key;
  s->key_json = gql_json_key(p->arena, key);
  s->name = name;
  s->field = field;
  s->cond = cond;
  s->cond2 = cond2;
  s->id = p->nodes++;
  dst->has_cond |= cond != NULL;
  if (dst->last)
    dst->last->next = s;
  else
    dst->first = s;
  dst->last = s;
  dst->has_children = true;
  return s;
}

/* Collects the fields of `set` on type t into dst. */
static int collect(gw_planner *p, const gql_gw_type *t,
                   const gql_ast_selection_set *set, gql_gw_sel *dst,
                   level *next, unsigned depth, const gql_gw_type *cond,
                   const gql_gw_type *cond2, bool root,
                   const gql_gw_defer *dl) {
  if (depth > 64)
    GW_FAIL(p, GQL_ELIMIT, "fragments nest too deeply");
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *s = set->selections.items[i];
    if (!included(p, &s->directives))
      continue;
    if (s->h.kind == GQL_AST_FIELD) {
      gql_str name = gql_ast_name_str(s->name);
      gql_str key = s->alias.ptr ? gql_ast_name_str(s->alias) : name;
      if (gql_str_eq_cstr(key, "__typename") &&
          !gql_str_eq_cstr(name, "__typename"))
        GW_FAIL(p, GQL_EUNSUPPORTED,
                "the response key __typename is the gateway's: alias "
                "\"%.*s\" otherwise",
                (int)name.len, name.ptr);
      uint32_t before = p->nodes;
      gql_gw_sel *c = client_add(p, dst, key, name, s, cond, cond2);
      if (!c && p->client_fields > GW_MAX_CLIENT_FIELDS)
        GW_FAIL(p, GQL_ELIMIT, "the operation selects more than %d fields",
                GW_MAX_CLIENT_FIELDS);
      if (!c)
        return GQL_ENOMEM;
      c->dl = p->nodes != before ? dl : gw_defer_earlier(c->dl, dl);
      bool intro = root && (gql_str_eq_cstr(name, "__schema") ||
                            gql_str_eq_cstr(name, "__type"));
      if (intro) {
        c->verbatim = true;
        continue;
      }
      if (!gql_str_eq_cstr(name, "__typename")) {
        c->def = gql_supergraph_field_of(p->sg, cond ? cond : t, name);
        if (!c->def)
          GW_FAIL(p, GQL_EINVAL, "no field %.*s on %.*s", (int)name.len,
                  name.ptr, (int)(cond ? cond : t)->name.len,
                  (cond ? cond : t)->name.ptr);
        if (c->def->guarded) {
          int rc = denied(p, cond ? cond : t, c, &c->denied);
          if (rc)
            return rc;
        }
      }
      if (c->denied) {
        c->has_children = s->selection_set != NULL;
        continue;
      }
      if (s->selection_set) {
        c->has_children = true;
        int rc = pending_push(p, next, c, s->selection_set, dl);
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
        GW_FAIL(p, GQL_EINVAL, "unknown fragment");
      type_cond = f->type_condition;
      sub = f->selection_set;
    }
    const gql_gw_type *owner = cond ? cond : t;
    const gql_gw_type *nc = cond, *nc2 = cond2;
    if (type_cond) {
      gql_str n = gql_ast_name_str(type_cond->name);
      const gql_gw_type *ct = gql_supergraph_type(p->sg, n);
      if (!ct)
        GW_FAIL(p, GQL_EINVAL, "unknown type %.*s in a type condition",
                (int)n.len, n.ptr);
      if (!gql_supergraph_overlap(ct, owner) || !gql_supergraph_overlap(ct, t))
        continue; /* never applies */
      if (ct != owner && !(owner->kind == GQL_AST_OBJECT_TYPE_DEFINITION &&
                           gql_supergraph_satisfies(owner, ct))) {
        nc2 = cond;
        nc = ct;
      }
    }
    const gql_gw_defer *sub_dl = dl;
    int rc = gw_defer_fragment(p, s, dst, nc, nc2, dl, &sub_dl);
    if (!rc)
      rc = collect(p, t, sub, dst, next, depth + 1, nc, nc2, root, sub_dl);
    if (rc)
      return rc;
  }
  return 0;
}

/* Normalises the selection sets of `dst` (all merged) and below. */
static int normalise(gw_planner *p, const gql_gw_type *t, gql_gw_sel *dst,
                     const gql_ast_selection_set **sets,
                     const gql_gw_defer **dls, uint32_t n, unsigned depth,
                     bool root) {
  if (depth > GQL_DEFAULT_MAX_DEPTH)
    GW_FAIL(p, GQL_ELIMIT, "the operation nests too deeply");
  level next = {NULL, 0, 0};
  for (uint32_t i = 0; i < n; i++) {
    int rc = collect(p, t, sets[i], dst, &next, 0, NULL, NULL, root,
                     dls ? dls[i] : NULL);
    if (rc)
      return rc;
  }
  for (uint32_t i = 0; i < next.n; i++) {
    pending *pe = &next.items[i];
    const gql_gw_field *f = pe->sel->def;
    const gql_gw_type *ft = f ? f->named : NULL;
    if (!ft)
      GW_FAIL(p, GQL_EINVAL, "a selection on a scalar");
    int rc =
        normalise(p, ft, pe->sel, pe->sets, pe->dls, pe->n, depth + 1, false);
    if (rc)
      return rc;
  }
  return 0;
}

/* The introspection operation: the root fields __schema / __type with the
 * operation's variables and every fragment of the document. */
static int introspection_text(gw_planner *p) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  const gql_ast_operation *op = p->op;
  gql_buf_puts(&b, "query");
  for (uint32_t i = 0; i < op->variables.count; i++) {
    const gql_ast_variable_definition *vd = op->variables.items[i];
    gql_buf_puts(&b, i ? ", $" : "($");
    gql_buf_put_str(&b, gql_ast_name_str(vd->variable->u.name));
    gql_buf_puts(&b, ": ");
    gql_print_type(&b, vd->type);
    if (vd->default_value) {
      gql_buf_puts(&b, " = ");
      gql_print_value(&b, vd->default_value);
    }
    if (i + 1 == op->variables.count)
      gql_buf_putc(&b, ')');
  }
  gql_buf_puts(&b, " {\n");
  for (gql_gw_sel *c = p->plan->client.first; c; c = c->next)
    if (c->verbatim) {
      gql_print_node(&b, &c->field->h);
      gql_buf_putc(&b, '\n');
    }
  gql_buf_puts(&b, "}\n");
  const gql_document *doc = p->doc;
  for (uint32_t i = 0; i < doc->definitions.count; i++)
    if (doc->definitions.items[i]->kind == GQL_AST_FRAGMENT_DEFINITION) {
      gql_print_node(&b, doc->definitions.items[i]);
      gql_buf_putc(&b, '\n');
    }
  int rc = b.failed ? GQL_ENOMEM : 0;
  if (!rc) {
    char *s = gql_arena_strndup(p->arena, b.data, b.len);
    if (!s)
      rc = GQL_ENOMEM;
    p->plan->introspection = (gql_str){s, b.len};
  }
  gql_buf_free(&b);
  return rc;
}

int gw_normalise(gw_planner *p, const gql_gw_type *root) {
  const gql_ast_selection_set *set = p->op->selection_set;
  int rc = normalise(p, root, &p->plan->client, &set, NULL, 1, 0, true);
  if (rc)
    return rc;
  for (gql_gw_sel *c = p->plan->client.first; c; c = c->next)
    if (c->verbatim)
      return introspection_text(p);
  return 0;
}
