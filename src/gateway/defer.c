/*
 * @defer through the gateway. Planning: normalize.c gives every client
 * field the payload that delivers it (`dl`: the initial result or a
 * deferred fragment, gql_gw_defer) and every node the deferred fragments
 * on its objects; the planner marks the fetches a field of the initial
 * result is placed in as primary, and the fetches those depend on (keys,
 * @requires, parents); the others come in waves after the primary ones
 * (plan->primary_levels), so that the server sends the initial result
 * before it asks the subgraphs for the deferred fields.
 *
 * Execution: after the primary waves the initial payload is the
 * projection of the fields it delivers, with "pending": one id per
 * deferred fragment and object (as graphql-js 17 gives one per list
 * item), announced by the projection where it meets the fragment's
 * objects (and forgotten when null propagation removes them). After each
 * later wave, one payload delivers the fragments whose fetches are all
 * merged (a fragment's level: the last wave its fields' fetches are in):
 * per fragment its fields ("incremental", with "subPath" for those below
 * fields an earlier payload delivered), "completed" (with "errors" when a
 * non-null field's null reached the fragment), and the fragments nested
 * in them that are ready too, announced and delivered in the same
 * payload, as graphql-js does when they are ready together.
 */
#include "execute_internal.h"
#include "plan_search.h"

#include <stdio.h>

/* ------------------------------------------------------------ planning */

const gql_gw_defer gw_dl_any; /* DL_ANY: its address only */

static void mark_primary(gql_gw_fetch *f) {
  if (!f || f->mark == UINT32_MAX)
    return;
  f->primary = true;
  f->mark = UINT32_MAX; /* walked */
  mark_primary(f->parent);
  for (uint32_t i = 0; i < f->ndeps; i++)
    mark_primary(f->deps[i]);
}

void gw_defer_mark(gw_planner *p) {
  gql_gw_plan *plan = p->plan;
  for (uint32_t i = 0; i < plan->nfetches; i++)
    plan->fetches[i]->mark = 0;
  for (uint32_t i = 0; i < plan->nfetches; i++)
    if (plan->fetches[i]->primary)
      mark_primary(plan->fetches[i]);
  for (uint32_t i = 0; i < plan->nfetches; i++)
    plan->fetches[i]->mark = 0;
}

int gw_defer_levels(gw_planner *p) {
  gql_gw_plan *plan = p->plan;
  uint32_t primary = 0;
  for (uint32_t i = 0; i < plan->nfetches; i++)
    if (plan->fetches[i]->primary && plan->fetches[i]->level > primary)
      primary = plan->fetches[i]->level;
  for (uint32_t i = 0; i < plan->nfetches; i++) {
    gql_gw_fetch *f = plan->fetches[i];
    if (f->primary)
      continue;
    f->level += primary;
    if (f->level > plan->nlevels)
      plan->nlevels = f->level;
  }
  plan->primary_levels = primary;
  return 0;
}

int gw_defer_note(gw_planner *p, const gql_gw_defer *dl, gql_gw_fetch *f) {
  gql_gw_defer *d = (gql_gw_defer *)dl; /* the plan's, being built */
  if (d->nfetches && d->fetches[d->nfetches - 1] == f)
    return 0;
  for (uint32_t i = 0; i < d->nfetches; i++)
    if (d->fetches[i] == f)
      return 0;
  if (!GQL_ARRAY_RESERVE_FIRST(p->arena, d->fetches, d->fetches_cap,
                               d->nfetches + 1, 4))
    return GQL_ENOMEM;
  d->fetches[d->nfetches++] = f;
  return 0;
}

void gw_defer_ready_levels(gw_planner *p) {
  gql_gw_plan *plan = p->plan;
  for (uint32_t i = 0; i < plan->ndefers; i++) {
    gql_gw_defer *d = plan->defers[i];
    d->level = 0;
    for (uint32_t k = 0; k < d->nfetches; k++)
      if (d->fetches[k]->level > d->level)
        d->level = d->fetches[k]->level;
  }
}

/* ----------------------------------------------------------- execution */

static void write_id(gql_buf *out, uint32_t i) {
  gql_buf_printf(out, "{\"id\":\"%u\"", i);
}

static void write_pending(gql_buf *out, const gw_defer_state *ds, uint32_t from,
                          uint32_t to) {
  gql_buf_puts(out, "\"pending\":[");
  bool first = true;
  for (uint32_t i = from; i < to; i++) {
    const gw_defer_inst *in = &ds->items[i];
    if (in->dead)
      continue;
    if (!first)
      gql_buf_putc(out, ',');
    first = false;
    write_id(out, i);
    gql_buf_puts(out, ",\"path\":");
    gql_json_write_value(out, in->path);
    if (in->d->label.ptr) {
      gql_buf_puts(out, ",\"label\":");
      gql_json_write_string(out, in->d->label);
    }
    gql_buf_putc(out, '}');
  }
  gql_buf_putc(out, ']');
}

static uint32_t live(const gw_defer_state *ds, uint32_t from, uint32_t to) {
  uint32_t n = 0;
  for (uint32_t i = from; i < to; i++)
    n += !ds->items[i].dead;
  return n;
}

int gql_gw_defer_initial(gql_gw_request *r, gql_buf *out, bool *plain) {
  gw_defer_state *ds = gql_arena_alloc(r->arena, sizeof *ds);
  if (!ds)
    return GQL_ENOMEM;
  memset(ds, 0, sizeof *ds);
  r->ds = ds;
  size_t start = out->len;
  int rc = gql_gw_request_response(r, out);
  if (rc)
    return rc;
  ds->errors = r->nerrors;
  *plain = live(ds, 0, ds->n) == 0;
  if (*plain || out->len == start)
    return 0;
  out->len--; /* the closing brace */
  gql_buf_putc(out, ',');
  write_pending(out, ds, 0, ds->n);
  gql_buf_puts(out, ",\"hasNext\":true}");
  return out->failed ? GQL_ENOMEM : 0;
}

/* The response path of a JSON path array, as segments in the arena. */
static const seg *path_segs(gql_arena *a, const gql_json_value *path) {
  const seg *s = NULL;
  for (size_t i = 0; i < path->array.count; i++) {
    seg *n = gql_arena_alloc(a, sizeof *n);
    if (!n)
      return NULL;
    const gql_json_value *v = &path->array.items[i];
    *n = v->kind == GQL_JSON_STRING ? (seg){s, v->string, 0}
                                    : (seg){s, {NULL, 0}, (size_t)v->number.i};
    s = n;
  }
  return s;
}

/* The value at JSON path `path` of the merged data. */
static const gql_json_value *value_at(const gql_json_value *v,
                                      const gql_json_value *path) {
  for (size_t i = 0; v && i < path->array.count; i++) {
    const gql_json_value *k = &path->array.items[i];
    if (k->kind == GQL_JSON_STRING)
      v = obj_get(v, k->string);
    else if (v->kind == GQL_JSON_ARRAY && (size_t)k->number.i < v->array.count)
      v = &v->array.items[k->number.i];
    else
      v = NULL;
  }
  return v;
}

/* Whether something of payload d is below client node c (or on it). */
static bool needs(const gql_gw_sel *c, const gql_gw_defer *d) {
  if (c->dl == d)
    return true;
  for (const gql_gw_defer *x = c->defers; x; x = x->next_at)
    if (x->parent == d)
      return true;
  for (const gql_gw_sel *k = c->first; k; k = k->next)
    if (needs(k, d))
      return true;
  return false;
}

typedef struct writer {
  gql_gw_request *r;
  uint32_t id; /* the instance (items move as more are announced) */
  gql_buf tmp;
} writer;

static int write_at(writer *w, const gql_json_value *obj,
                    const gql_gw_type *named, const gql_gw_sel *node,
                    const seg *path, size_t depth);

/* The objects of already delivered field c below obj, walked for the
 * fields of the payload below them. */
static int descend(writer *w, const gql_json_value *v, const gql_ast_type *t,
                   const gql_gw_type *named, const gql_gw_sel *c,
                   const seg *path, size_t depth) {
  if (!v || v->kind == GQL_JSON_NULL)
    return 0;
  if (t->h.kind == GQL_AST_NON_NULL_TYPE)
    t = t->of;
  if (t->h.kind == GQL_AST_LIST_TYPE) {
    if (v->kind != GQL_JSON_ARRAY)
      return 0;
    for (size_t i = 0; i < v->array.count; i++) {
      seg s = {path, {NULL, 0}, i};
      int rc = descend(w, &v->array.items[i], t->of, named, c, &s, depth + 1);
      if (rc)
        return rc;
    }
    return 0;
  }
  if (v->kind != GQL_JSON_OBJECT || !named)
    return 0;
  return write_at(w, v, named, c, path, depth);
}

/* Writes "subPath" (the path below the instance's). */
static void write_sub_path(gql_buf *out, const seg *path, size_t n) {
  const seg *parts[GW_MAX_PATH];
  size_t k = 0;
  for (const seg *s = path; s && k < n && k < GW_MAX_PATH; s = s->parent)
    parts[k++] = s;
  gql_buf_puts(out, ",\"subPath\":[");
  while (k-- > 0) {
    if (out->data[out->len - 1] != '[')
      gql_buf_putc(out, ',');
    if (parts[k]->key.ptr)
      gql_json_write_string(out, parts[k]->key);
    else
      gql_buf_printf(out, "%zu", parts[k]->index);
  }
  gql_buf_putc(out, ']');
}

static int write_at(writer *w, const gql_json_value *obj,
                    const gql_gw_type *named, const gql_gw_sel *node,
                    const seg *path, size_t depth) {
  const gql_gw_defer *d = w->r->ds->items[w->id].d;
  const gql_gw_type *t = gw_concrete_type(w->r, obj, named);
  w->tmp.len = 0;
  w->r->ds->session = w->r->ds->n; /* offsets into tmp from here */
  if (gw_project_deferred(w->r, &w->tmp, obj, named, node, path, d)) {
    w->r->ds->items[w->id].failed = true;
    return 1;
  }
  if (w->tmp.failed)
    return GQL_ENOMEM;
  if (!(w->tmp.len == 2 && w->tmp.data[0] == '{')) { /* not `{}` */
    gw_defer_inst *in = &w->r->ds->items[w->id];
    gql_buf *e = &in->entries;
    if (in->nentries++)
      gql_buf_putc(e, ',');
    write_id(e, w->id);
    gql_buf_puts(e, ",\"data\":");
    gql_buf_append(e, w->tmp.data, w->tmp.len);
    if (depth)
      write_sub_path(e, path, depth);
    gql_buf_putc(e, '}');
  }
  for (const gql_gw_sel *c = node->first; c; c = c->next) {
    if (c->dl == d || !gql_gw_defer_within(c->dl, d) || !c->def ||
        !gw_sel_applies(t, c) || !needs(c, d))
      continue; /* delivered here, later, or by another fragment */
    seg s = {path, c->key, 0};
    int rc = descend(w, obj_get(obj, c->key), c->def->type, c->def->named, c,
                     &s, depth + 1);
    if (rc)
      return rc;
  }
  return 0;
}

/* Whether JSON path `pre` begins `path`. */
static bool path_prefix(const gql_json_value *pre, const gql_json_value *path) {
  if (!path || path->kind != GQL_JSON_ARRAY ||
      pre->array.count > path->array.count)
    return false;
  for (size_t i = 0; i < pre->array.count; i++) {
    const gql_json_value *a = &pre->array.items[i], *b = &path->array.items[i];
    if (a->kind != b->kind ||
        (a->kind == GQL_JSON_STRING ? !gql_str_eq(a->string, b->string)
                                    : a->number.i != b->number.i))
      return false;
  }
  return true;
}

static int inst_error(gql_gw_request *r, gw_defer_inst *in,
                      const gql_json_value *e) {
  if (!GQL_ARRAY_RESERVE(r->arena, in->errors, in->errors_cap, in->nerrors + 1))
    return GQL_ENOMEM;
  in->errors[in->nerrors++] = *e;
  return 0;
}

static void write_errors(gql_buf *out, const gw_defer_inst *in) {
  gql_buf_puts(out, ",\"errors\":[");
  for (uint32_t k = 0; k < in->nerrors; k++) {
    if (k)
      gql_buf_putc(out, ',');
    gql_json_write_value(out, &in->errors[k]);
  }
  gql_buf_putc(out, ']');
}

/* The errors of the deferred waves (subgraph errors, failed fetches),
 * r->errors[e0, e1), go to the fragment delivered now whose path is the
 * longest prefix of theirs, or else to the first delivered now. */
static int assign_fetch_errors(gql_gw_request *r, uint32_t from, uint32_t e0,
                               uint32_t e1) {
  gw_defer_state *ds = r->ds;
  gw_defer_inst *any = NULL;
  for (uint32_t i = from; i < ds->n && !any; i++)
    if (ds->items[i].now && !ds->items[i].dead)
      any = &ds->items[i];
  for (uint32_t k = e0; k < e1 && any; k++) {
    const gql_json_value *ep = gql_json_get(&r->errors[k], GQL_STR("path"));
    gw_defer_inst *best = NULL;
    for (uint32_t i = from; i < ds->n; i++) {
      gw_defer_inst *in = &ds->items[i];
      if (!in->now || in->dead || !path_prefix(in->path, ep))
        continue;
      if (!best || in->path->array.count > best->path->array.count)
        best = in;
    }
    if (inst_error(r, best ? best : any, &r->errors[k]))
      return GQL_ENOMEM;
  }
  return 0;
}

/* Projects instance i's fields (and announces the fragments in them). */
static int deliver(gql_gw_request *r, writer *w, uint32_t i) {
  gw_defer_state *ds = r->ds;
  gw_defer_inst *in = &ds->items[i];
  w->id = i;
  uint32_t first = ds->n, nerr = r->nerrors;
  const seg *path = path_segs(r->arena, in->path);
  if (in->path->array.count && !path)
    return GQL_ENOMEM;
  const gql_json_value *obj = value_at(r->data, in->path);
  int wr = obj && obj->kind == GQL_JSON_OBJECT
               ? write_at(w, obj, in->type, in->d->at, path, 0)
               : 0;
  in = &ds->items[i]; /* announcements may have moved the items */
  if (wr < 0)
    return wr;
  if (wr == 1) { /* nulled: its data and what it announced go */
    for (uint32_t k = first; k < ds->n; k++)
      ds->items[k].dead = true;
    in->nentries = 0;
  }
  int rc = 0;
  for (uint32_t k = nerr; k < r->nerrors && !rc; k++)
    rc = inst_error(r, in, &r->errors[k]);
  return rc;
}

/* Writes the entries of instance in (its errors with the first). */
static void write_entries(gql_buf *out, const gw_defer_inst *in) {
  if (!in->nerrors) {
    gql_buf_append(out, in->entries.data, in->entries.len);
    return;
  }
  const char *e = in->entries.data;
  size_t n = in->entries.len, cut = 0;
  for (int depth = 0; cut < n; cut++) { /* the end of the first entry */
    char ch = e[cut];
    if (ch == '"') {
      for (cut++; cut < n && e[cut] != '"'; cut++)
        if (e[cut] == '\\')
          cut++;
    } else if (ch == '{' || ch == '[') {
      depth++;
    } else if ((ch == '}' || ch == ']') && --depth == 0) {
      break;
    }
  }
  gql_buf_append(out, e, cut);
  write_errors(out, in);
  gql_buf_append(out, e + cut, n - cut);
}

int gql_gw_defer_next(gql_gw_request *r, uint32_t level, gql_buf *out,
                      bool *more) {
  gw_defer_state *ds = r->ds;
  writer w = {.r = r};
  uint32_t from = ds->n, announced = ds->n;
  uint32_t e0 = ds->errors, e1 = r->nerrors; /* the waves' errors */
  /* the fragments ready at this level, and those they announce */
  int rc = 0;
  for (uint32_t i = 0; i < ds->n && !rc; i++) {
    gw_defer_inst *in = &ds->items[i];
    if (in->dead || in->done || (in->d->level > level && level != UINT32_MAX))
      continue;
    in->now = in->done = true;
    if (i < from)
      from = i;
    rc = deliver(r, &w, i);
  }
  gql_buf_free(&w.tmp);
  *more = false;
  for (uint32_t i = 0; i < ds->n; i++)
    *more |= !ds->items[i].dead && !ds->items[i].done;
  if (!rc && from < ds->n) {
    rc = assign_fetch_errors(r, from, e0, e1);
    ds->errors = r->nerrors;
  }
  if (rc || (from == ds->n && level != UINT32_MAX)) {
    for (uint32_t i = 0; i < ds->n; i++)
      if (ds->items[i].now) {
        ds->items[i].now = false;
        gql_buf_free(&ds->items[i].entries);
      }
    return rc; /* nothing ready: no payload */
  }
  gql_buf_printf(out, "{\"hasNext\":%s", *more ? "true" : "false");
  bool pend = false;
  for (uint32_t i = announced; i < ds->n && !pend; i++)
    pend = !ds->items[i].dead;
  if (pend) {
    gql_buf_putc(out, ',');
    write_pending(out, ds, announced, ds->n);
  }
  bool first = true;
  for (uint32_t i = from; i < ds->n; i++) {
    gw_defer_inst *in = &ds->items[i];
    if (!in->now || in->dead || in->failed || !in->nentries)
      continue;
    gql_buf_puts(out, first ? ",\"incremental\":[" : ",");
    first = false;
    write_entries(out, in);
  }
  if (!first)
    gql_buf_putc(out, ']');
  first = true;
  for (uint32_t i = from; i < ds->n; i++) {
    gw_defer_inst *in = &ds->items[i];
    if (!in->now || in->dead)
      continue;
    gql_buf_puts(out, first ? ",\"completed\":[" : ",");
    first = false;
    write_id(out, i);
    if ((in->failed || !in->nentries) && in->nerrors)
      write_errors(out, in);
    gql_buf_putc(out, '}');
  }
  if (!first)
    gql_buf_putc(out, ']');
  gql_buf_putc(out, '}');
  for (uint32_t i = 0; i < ds->n; i++)
    if (ds->items[i].now) {
      ds->items[i].now = false;
      gql_buf_free(&ds->items[i].entries);
    }
  return out->failed ? GQL_ENOMEM : 0;
}
