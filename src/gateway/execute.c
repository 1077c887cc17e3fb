/*
 * Executing a plan: subgraph answers are parsed into arena JSON and merged
 * into one data tree; each entity fetch walks its path over that tree to
 * find the objects it completes, projects each onto its representation
 * selection (__typename, key, @requires fields, in that fixed order, so
 * equal entities give equal text) and sends each distinct representation
 * once. The response is the client's normalised selection projected over
 * the tree, with graphql-js's null propagation.
 */
#include "execute_internal.h"

#include <stdio.h>
#include <stdlib.h>

gql_json_value *gw_path_json(gql_arena *a, const seg *s,
                             const gql_json_value *tail, size_t ntail) {
  size_t n = ntail;
  for (const seg *p = s; p; p = p->parent)
    n++;
  gql_json_value *v = gql_arena_alloc(a, sizeof *v);
  gql_json_value *items = gql_arena_alloc(a, (n + 1) * sizeof *items);
  if (!v || !items)
    return NULL;
  memset(items, 0, (n + 1) * sizeof *items);
  size_t i = n - ntail;
  for (const seg *p = s; p; p = p->parent) {
    gql_json_value *it = &items[--i];
    if (p->key.ptr) {
      it->kind = GQL_JSON_STRING;
      it->string = p->key;
    } else {
      it->kind = GQL_JSON_NUMBER;
      it->is_int = true;
      it->number.i = (int64_t)p->index;
      it->number.d = (double)p->index;
    }
  }
  for (size_t k = 0; k < ntail; k++)
    items[n - ntail + k] = tail[k];
  memset(v, 0, sizeof *v);
  v->kind = GQL_JSON_ARRAY;
  v->array.items = items;
  v->array.count = n;
  return v;
}

static void deep_merge(gql_arena *a, gql_json_value *dst,
                       const gql_json_value *src, bool *oom);

static void merge_value(gql_arena *a, gql_json_value *dst,
                        const gql_json_value *src, bool *oom) {
  if (dst->kind == GQL_JSON_OBJECT && src->kind == GQL_JSON_OBJECT) {
    deep_merge(a, dst, src, oom);
  } else if (dst->kind == GQL_JSON_ARRAY && src->kind == GQL_JSON_ARRAY &&
             dst->array.count == src->array.count) {
    for (size_t i = 0; i < src->array.count; i++)
      merge_value(a, &dst->array.items[i], &src->array.items[i], oom);
  } else {
    *dst = *src;
  }
}

/* Merges the members of src into dst (both objects), appending new ones. */
static void deep_merge(gql_arena *a, gql_json_value *dst,
                       const gql_json_value *src, bool *oom) {
  size_t missing = 0;
  for (size_t i = 0; i < src->object.count; i++)
    if (!obj_get(dst, src->object.members[i].key))
      missing++;
  if (missing) {
    size_t n = dst->object.count;
    gql_json_member *m =
        gql_arena_alloc(a, (n + missing) * sizeof(gql_json_member));
    if (!m) {
      *oom = true;
      return;
    }
    if (n)
      memcpy(m, dst->object.members, n * sizeof *m);
    dst->object.members = m;
    dst->object.index = NULL; /* lookups scan from now on */
  }
  for (size_t i = 0; i < src->object.count; i++) {
    const gql_json_member *sm = &src->object.members[i];
    gql_json_value *d = obj_get(dst, sm->key);
    if (d) {
      merge_value(a, d, &sm->value, oom);
      continue;
    }
    gql_json_member *nm = &dst->object.members[dst->object.count++];
    nm->key = sm->key;
    nm->value = sm->value;
  }
}

static gql_json_value *errors_push(gql_gw_request *r) {
  if (!GQL_ARRAY_RESERVE(r->arena, r->errors, r->errors_cap, r->nerrors + 1))
    return NULL;
  return &r->errors[r->nerrors++];
}

/* An error object {"message":m} plus "path" and "extensions" when given. */
static void add_error_ext(gql_gw_request *r, gql_str message,
                          const gql_json_value *path,
                          const gql_json_value *ext) {
  gql_json_value *e = errors_push(r);
  if (!e)
    return;
  gql_json_member *m = gql_arena_alloc(r->arena, 3 * sizeof *m);
  if (!m) {
    r->nerrors--;
    return;
  }
  m[0].key = GQL_STR("message");
  memset(&m[0].value, 0, sizeof m[0].value);
  m[0].value.kind = GQL_JSON_STRING;
  m[0].value.string = message;
  size_t n = 1;
  if (path) {
    m[n].key = GQL_STR("path");
    m[n++].value = *path;
  }
  if (ext && ext->kind == GQL_JSON_OBJECT && ext->object.count) {
    m[n].key = GQL_STR("extensions");
    m[n++].value = *ext;
  }
  memset(e, 0, sizeof *e);
  e->kind = GQL_JSON_OBJECT;
  e->object.members = m;
  e->object.count = n;
}

void gql_gw_add_error(gql_gw_request *r, gql_str message,
                      const gql_json_value *path) {
  add_error_ext(r, message, path, NULL);
}

/* {"service":..,"reason":..,"code":..} as Apollo Router words its own
 * subrequest errors. */
static gql_json_value *router_ext(gql_gw_request *r, gql_str service,
                                  const char *reason, const char *code) {
  gql_json_value *v = gql_arena_alloc(r->arena, sizeof *v);
  gql_json_member *m = gql_arena_alloc(r->arena, 3 * sizeof *m);
  if (!v || !m)
    return NULL;
  memset(m, 0, 3 * sizeof *m);
  m[0].key = GQL_STR("service");
  m[0].value.kind = GQL_JSON_STRING;
  m[0].value.string = service;
  m[1].key = GQL_STR("reason");
  m[1].value.kind = GQL_JSON_STRING;
  m[1].value.string = gql_cstr(reason);
  m[2].key = GQL_STR("code");
  m[2].value.kind = GQL_JSON_STRING;
  m[2].value.string = gql_cstr(code);
  memset(v, 0, sizeof *v);
  v->kind = GQL_JSON_OBJECT;
  v->object.members = m;
  v->object.count = 3;
  return v;
}

/* ------------------------------------------------------------ requests */

void gql_gw_request_set_access(gql_gw_request *r, const gql_gw_who *who) {
  r->who = *who;
}

/* An unauthorized field's error, as Apollo Router words it. */
void gql_gw_add_unauthorized(gql_gw_request *r, const gql_json_value *path) {
  gql_json_value *ext = gql_arena_alloc(r->arena, sizeof *ext);
  gql_json_member *m = gql_arena_alloc(r->arena, sizeof *m);
  if (!ext || !m) {
    gql_gw_add_error(r, GQL_STR("Unauthorized field or type"), path);
    return;
  }
  memset(m, 0, sizeof *m);
  m->key = GQL_STR("code");
  m->value.kind = GQL_JSON_STRING;
  m->value.string = GQL_STR("UNAUTHORIZED_FIELD_OR_TYPE");
  memset(ext, 0, sizeof *ext);
  ext->kind = GQL_JSON_OBJECT;
  ext->object.members = m;
  ext->object.count = 1;
  add_error_ext(r, GQL_STR("Unauthorized field or type"), path, ext);
}

int gql_gw_request_new(const gql_gw_plan *plan, const gql_value *variables,
                       gql_arena *arena, gql_gw_request **out) {
  gql_gw_request *r = gql_arena_alloc(arena, sizeof *r);
  if (!r)
    return GQL_ENOMEM;
  memset(r, 0, sizeof *r);
  r->plan = plan;
  r->arena = arena;
  r->variables = variables;
  r->data = gql_arena_alloc(arena, sizeof *r->data);
  r->fs = gql_arena_alloc(arena, (plan->nfetches + 1) * sizeof *r->fs);
  if (!r->data || !r->fs)
    return GQL_ENOMEM;
  memset(r->data, 0, sizeof *r->data);
  r->data->kind = GQL_JSON_OBJECT;
  memset(r->fs, 0, (plan->nfetches + 1) * sizeof *r->fs);
  *out = r;
  return 0;
}

static int add_target(gql_gw_request *r, fetch_state *fs, gql_json_value *obj,
                      const seg *path) {
  if (!GQL_ARRAY_RESERVE_FIRST(r->arena, fs->targets, fs->cap, fs->ntargets + 1,
                               16))
    return GQL_ENOMEM;
  target *t = &fs->targets[fs->ntargets++];
  t->obj = obj;
  t->rep = 0;
  t->path = NULL; /* only an error needs it: see target_paths */
  return 0;
}

/* Whether object v is of type t (its __typename is t or a type that is a
 * t); without a __typename, it is (the plan put it where a t is). */
static bool of_type(const gql_supergraph *sg, const gql_json_value *v,
                    const gql_gw_type *t) {
  const gql_json_value *tn = obj_get(v, GQL_STR("__typename"));
  if (!tn || tn->kind != GQL_JSON_STRING || gql_str_eq(tn->string, t->name))
    return true;
  const gql_gw_type *vt = gql_supergraph_type(sg, tn->string);
  return vt && gql_supergraph_satisfies(vt, t);
}

/* Finds the objects at f->path[i..] below v. With `next`, the walk is the
 * one that found the targets, redone to give each its path: the k-th
 * object found is target *next when it is still the same object. */
static int collect_targets(gql_gw_request *r, const gql_gw_fetch *f,
                           fetch_state *fs, gql_json_value *v, uint32_t i,
                           const seg *path, uint32_t *next) {
  if (!v || v->kind == GQL_JSON_NULL)
    return 0;
  if (i == f->path_len) {
    if (v->kind != GQL_JSON_OBJECT)
      return 0;
    /* below an abstract type, only the objects of the fetch's type */
    if (f->filter && !of_type(r->plan->sg, v, f->filter))
      return 0;
    if (!next)
      return add_target(r, fs, v, path);
    if (*next < fs->ntargets && fs->targets[*next].obj == v)
      fs->targets[*next].path = gw_path_json(r->arena, path, NULL, 0);
    ++*next;
    return 0;
  }
  if (gql_str_eq_cstr(f->path[i], "@")) {
    if (v->kind != GQL_JSON_ARRAY)
      return 0;
    for (size_t k = 0; k < v->array.count; k++) {
      seg s = {path, {NULL, 0}, k};
      int rc = collect_targets(r, f, fs, &v->array.items[k], i + 1, &s, next);
      if (rc)
        return rc;
    }
    return 0;
  }
  seg s = {path, f->path[i], 0};
  return collect_targets(r, f, fs, obj_get(v, f->path[i]), i + 1, &s, next);
}

/* Gives the targets of fetch f their response paths (once). A target the
 * tree no longer holds where it was found keeps a NULL path. */
static void target_paths(gql_gw_request *r, const gql_gw_fetch *f,
                         fetch_state *fs) {
  if (fs->paths)
    return;
  fs->paths = true;
  uint32_t next = 0;
  collect_targets(r, f, fs, r->data, 0, NULL, &next);
}

/* Whether the representation node s applies to object obj (its
 * conditions, by the object's __typename). */
static bool rep_applies(const gql_supergraph *sg, const gql_json_value *obj,
                        const gql_gw_sel *s) {
  if (!s->cond && !s->cond2)
    return true;
  const gql_json_value *tn = obj_get(obj, GQL_STR("__typename"));
  const gql_gw_type *t = tn && tn->kind == GQL_JSON_STRING
                             ? gql_supergraph_type(sg, tn->string)
                             : NULL;
  return t && (!s->cond || gql_supergraph_satisfies(t, s->cond)) &&
         (!s->cond2 || gql_supergraph_satisfies(t, s->cond2));
}

static bool write_rep(gql_buf *out, const gql_supergraph *sg,
                      const gql_json_value *obj, const gql_gw_sel *sel,
                      gql_str typename_const);

/* A value of a representation: objects along the selection, lists item by
 * item. False when a key field in it is null or missing. */
static bool write_rep_value(gql_buf *out, const gql_supergraph *sg,
                            const gql_json_value *v, const gql_gw_sel *s) {
  if (v->kind == GQL_JSON_OBJECT && s->has_children)
    return write_rep(out, sg, v, s, (gql_str){NULL, 0});
  if (v->kind == GQL_JSON_ARRAY && s->has_children) {
    gql_buf_putc(out, '[');
    for (size_t i = 0; i < v->array.count; i++) {
      if (i)
        gql_buf_putc(out, ',');
      const gql_json_value *it = &v->array.items[i];
      if (it->kind == GQL_JSON_NULL) {
        if (s->key_field)
          return false;
        gql_buf_puts(out, "null");
      } else if (!write_rep_value(out, sg, it, s)) {
        return false;
      }
    }
    gql_buf_putc(out, ']');
    return true;
  }
  gql_json_write_value(out, v);
  return true;
}

/* The representation: the object's fields along the selection, each read
 * at its tree key and written under its name; __typename the constant of
 * an @interfaceObject fetch when given. False when a key field is null or
 * missing: no entity to ask for. */
static bool write_rep(gql_buf *out, const gql_supergraph *sg,
                      const gql_json_value *obj, const gql_gw_sel *sel,
                      gql_str typename_const) {
  gql_buf_putc(out, '{');
  bool first = true;
  for (const gql_gw_sel *s = sel->first; s; s = s->next) {
    if (sel->has_cond && !rep_applies(sg, obj, s))
      continue;
    if (sel->has_cond) { /* a field under two conditions: once */
      bool dup = false;
      for (const gql_gw_sel *e = sel->first; e != s && !dup; e = e->next)
        dup = gql_str_eq(e->name, s->name) && rep_applies(sg, obj, e);
      if (dup)
        continue;
    }
    if (!first)
      gql_buf_putc(out, ',');
    first = false;
    write_key(out, s);
    if (typename_const.len && gql_str_eq_cstr(s->name, "__typename")) {
      gql_json_write_string(out, typename_const);
      continue;
    }
    const gql_json_value *v =
        obj_get(obj, s->tree_key.len ? s->tree_key : s->key);
    if (!v || v->kind == GQL_JSON_NULL) {
      if (s->key_field)
        return false;
      gql_buf_puts(out, "null");
      continue;
    }
    if (!write_rep_value(out, sg, v, s))
      return false;
  }
  gql_buf_putc(out, '}');
  return true;
}

/* The fetch whose state holds the representations of field `k`. */
static const gql_gw_fetch *field_leader(const gql_gw_batch *b, uint32_t k) {
  for (uint32_t i = 0; i < b->nfetches; i++)
    if (b->field[i] == k)
      return b->fetches[i];
  return NULL;
}

/* Collects the objects of every fetch sharing field `k` and their distinct
 * representations (kept in the leader's state). */
static int build_reps(gql_gw_request *r, const gql_gw_batch *b, uint32_t k) {
  fetch_state *lead = &r->fs[field_leader(b, k)->id];
  lead->nreps = 0;
  gql_strmap seen;
  gql_strmap_init(&seen, NULL);
  gql_buf tmp;
  gql_buf_init(&tmp, NULL);
  int rc = 0;
  for (uint32_t fi = 0; fi < b->nfetches && !rc; fi++) {
    if (b->field[fi] != k)
      continue;
    const gql_gw_fetch *f = b->fetches[fi];
    fetch_state *fs = &r->fs[f->id];
    fs->ntargets = 0;
    fs->paths = false;
    rc = collect_targets(r, f, fs, r->data, 0, NULL, NULL);
    for (uint32_t i = 0; i < fs->ntargets && !rc; i++) {
      tmp.len = 0;
      if (!write_rep(&tmp, r->plan->sg, fs->targets[i].obj, f->requires,
                     f->rep_typename)) {
        fs->targets[i].rep = NO_REP; /* a null key: no entity */
        continue;
      }
      if (tmp.failed) {
        rc = GQL_ENOMEM;
        break;
      }
      uint32_t idx;
      if (gql_strmap_get(&seen, (gql_str){tmp.data, tmp.len}, &idx)) {
        fs->targets[i].rep = idx;
        continue;
      }
      char *text = gql_arena_strndup(r->arena, tmp.data, tmp.len);
      if (!text) {
        rc = GQL_ENOMEM;
        break;
      }
      if (!GQL_ARRAY_RESERVE(r->arena, lead->reps, lead->reps_cap,
                             lead->nreps + 1)) {
        rc = GQL_ENOMEM;
        break;
      }
      lead->reps[lead->nreps] = (gql_str){text, tmp.len};
      if (gql_strmap_put(&seen, lead->reps[lead->nreps], lead->nreps) < 0) {
        rc = GQL_ENOMEM;
        break;
      }
      fs->targets[i].rep = lead->nreps++;
    }
    r->reps_seen += fs->ntargets;
  }
  r->reps_sent += lead->nreps;
  gql_buf_free(&tmp);
  gql_strmap_free(&seen);
  return rc;
}

/* The response key of field `k` of a batch. */
static gql_str field_alias(const gql_gw_batch *b, uint32_t k, char buf[16]) {
  if (b->nfields == 1)
    return GQL_STR("_entities");
  int n = snprintf(buf, 16, "_%u", k);
  return (gql_str){buf, (size_t)n};
}

int gql_gw_request_body(gql_gw_request *r, uint32_t bi, gql_buf *body) {
  const gql_gw_batch *b = &r->plan->batches[bi];
  bool has_root = false;
  uint32_t total = 0;
  for (uint32_t i = 0; i < b->nfetches; i++)
    has_root |= b->field[i] == UINT32_MAX;
  for (uint32_t k = 0; k < b->nfields; k++) {
    int rc = build_reps(r, b, k);
    if (rc)
      return rc;
    total += r->fs[field_leader(b, k)->id].nreps;
  }
  if (!has_root && total == 0)
    return 1;
  gql_buf_puts(body, "{\"query\":");
  gql_json_write_string(body, b->operation);
  gql_buf_puts(body, ",\"variables\":{");
  bool first = true;
  for (uint32_t k = 0; k < b->nfields; k++) {
    if (!first)
      gql_buf_putc(body, ',');
    first = false;
    if (b->nfields == 1)
      gql_buf_puts(body, "\"representations\":[");
    else
      gql_buf_printf(body, "\"r%u\":[", k);
    const fetch_state *fs = &r->fs[field_leader(b, k)->id];
    for (uint32_t j = 0; j < fs->nreps; j++) {
      if (j)
        gql_buf_putc(body, ',');
      gql_buf_put_str(body, fs->reps[j]);
    }
    gql_buf_putc(body, ']');
  }
  /* only the client variables this operation declares */
  for (uint32_t i = 0; i < b->nvariables; i++) {
    const gql_json_value *v = obj_get(r->variables, b->variables[i]);
    if (!v)
      continue; /* absent: the subgraph applies the default */
    if (!first)
      gql_buf_putc(body, ',');
    first = false;
    gql_json_write_string(body, b->variables[i]);
    gql_buf_putc(body, ':');
    gql_json_write_value(body, v);
  }
  gql_buf_puts(body, "}}");
  r->requests++;
  return body->failed ? GQL_ENOMEM : 0;
}

/* A failed subrequest as Apollo Router reports it. */
static void fail_code(gql_gw_request *r, uint32_t bi, bool malformed,
                      const char *why) {
  const gql_gw_batch *b = &r->plan->batches[bi];
  gql_str name = r->plan->sg->graphs[b->graph].name;
  char *msg =
      malformed
          ? gql_arena_sprintf(r->arena,
                              "service '%.*s' response was malformed: %s",
                              (int)name.len, name.ptr, why)
          : gql_arena_sprintf(r->arena, "HTTP fetch failed from '%.*s': %s",
                              (int)name.len, name.ptr, why);
  char *reason = gql_arena_strndup(r->arena, why, strlen(why));
  if (msg && reason)
    add_error_ext(r, gql_cstr(msg), NULL,
                  router_ext(r, name, reason,
                             malformed ? "SUBREQUEST_MALFORMED_RESPONSE"
                                       : "SUBREQUEST_HTTP_ERROR"));
}

void gql_gw_request_fail(gql_gw_request *r, uint32_t bi, const char *why) {
  fail_code(r, bi, false, why);
}

/* A subgraph error: its path re-rooted at each object of representation
 * `rep` (entity fetch), or kept (root fetch). */
static void import_error(gql_gw_request *r, const gql_json_value *e,
                         const gql_gw_batch *b) {
  const gql_json_value *msg = obj_get(e, GQL_STR("message"));
  gql_str m = msg && msg->kind == GQL_JSON_STRING ? msg->string
                                                  : GQL_STR("Subgraph error");
  const gql_json_value *path = obj_get(e, GQL_STR("path"));
  const gql_json_value *ext = obj_get(e, GQL_STR("extensions"));
  if (!path || path->kind != GQL_JSON_ARRAY || path->array.count < 2 ||
      path->array.items[0].kind != GQL_JSON_STRING) {
    add_error_ext(r, m, path && path->kind == GQL_JSON_ARRAY ? path : NULL,
                  ext);
    return;
  }
  gql_str head = path->array.items[0].string;
  uint32_t field = UINT32_MAX;
  for (uint32_t k = 0; k < b->nfields && field == UINT32_MAX; k++) {
    char buf[16];
    if (gql_str_eq(head, field_alias(b, k, buf)))
      field = k;
  }
  const gql_json_value *idx = &path->array.items[1];
  if (field == UINT32_MAX || idx->kind != GQL_JSON_NUMBER || !idx->is_int) {
    add_error_ext(r, m, path, ext);
    return;
  }
  for (uint32_t fi = 0; fi < b->nfetches; fi++) {
    if (b->field[fi] != field)
      continue;
    fetch_state *fs = &r->fs[b->fetches[fi]->id];
    bool any = false;
    for (uint32_t t = 0; t < fs->ntargets && !any; t++)
      any = (int64_t)fs->targets[t].rep == idx->number.i;
    if (any)
      target_paths(r, b->fetches[fi], fs);
    for (uint32_t t = 0; t < fs->ntargets; t++) {
      if ((int64_t)fs->targets[t].rep != idx->number.i)
        continue;
      const gql_json_value *base = fs->targets[t].path;
      if (!base) {
        add_error_ext(r, m, NULL, ext);
        continue;
      }
      size_t n = base->array.count + path->array.count - 2;
      gql_json_value *p = gql_arena_alloc(r->arena, sizeof *p);
      gql_json_value *items = gql_arena_alloc(r->arena, n * sizeof *items);
      if (!p || !items)
        return;
      memcpy(items, base->array.items, base->array.count * sizeof *items);
      memcpy(items + base->array.count, path->array.items + 2,
             (path->array.count - 2) * sizeof *items);
      *p = *base;
      p->array.items = items;
      p->array.count = n;
      add_error_ext(r, m, p, ext);
    }
  }
}

/* What merging entity `rep` into a target made of an object equal to
 * `before`: its members. */
typedef struct merged {
  gql_json_value before, after;
  bool set;
} merged;

/* Whether objects a and b are equal, cheaply: their members' scalars are
 * equal and their containers the very same (false when unsure). */
static bool same_object(const gql_json_value *a, const gql_json_value *b) {
  if (a->kind != GQL_JSON_OBJECT || b->kind != GQL_JSON_OBJECT ||
      a->object.count != b->object.count)
    return false;
  if (a->object.members == b->object.members)
    return true;
  for (size_t i = 0; i < a->object.count; i++) {
    const gql_json_member *x = &a->object.members[i];
    const gql_json_member *y = &b->object.members[i];
    if (!gql_str_eq(x->key, y->key) || x->value.kind != y->value.kind)
      return false;
    const gql_json_value *u = &x->value, *v = &y->value;
    switch (u->kind) {
    case GQL_JSON_NULL:
      break;
    case GQL_JSON_BOOL:
      if (u->boolean != v->boolean)
        return false;
      break;
    case GQL_JSON_NUMBER:
      if (u->number.d != v->number.d || u->is_int != v->is_int ||
          (u->is_int && u->number.i != v->number.i))
        return false;
      break;
    case GQL_JSON_STRING:
      if (!gql_str_eq(u->string, v->string))
        return false;
      break;
    case GQL_JSON_ARRAY:
      if (u->array.items != v->array.items || u->array.count != v->array.count)
        return false;
      break;
    default:
      if (u->object.members != v->object.members ||
          u->object.count != v->object.count)
        return false;
    }
  }
  return true;
}

/* Merges each entity of `list` into the targets that asked for it. Targets
 * of one representation are mostly equal objects (the same product under
 * many reviews): the first one's merged members are shared with every
 * later target still equal to what the first was, instead of each getting
 * its own copy. Sharing is safe as the tree already shares the entities'
 * values: equal objects at one path get the same merges later on (merging
 * the same answer twice into a shared part changes nothing). */
static void merge_entities(gql_gw_request *r, const fetch_state *fs,
                           const gql_json_value *list, bool *oom) {
  size_t n = list->array.count;
  merged *memo = n ? gql_arena_alloc(r->arena, n * sizeof *memo) : NULL;
  if (memo)
    memset(memo, 0, n * sizeof *memo);
  for (uint32_t t = 0; t < fs->ntargets; t++) {
    uint32_t rep = fs->targets[t].rep;
    if (rep >= n || list->array.items[rep].kind != GQL_JSON_OBJECT)
      continue;
    gql_json_value *obj = fs->targets[t].obj;
    merged *m = memo ? &memo[rep] : NULL;
    if (m && m->set && same_object(obj, &m->before)) {
      obj->object = m->after.object;
      continue;
    }
    gql_json_value before = *obj;
    deep_merge(r->arena, obj, &list->array.items[rep], oom);
    /* only a merge that made new members leaves `before` as it was */
    if (m && !m->set && obj->kind == GQL_JSON_OBJECT &&
        before.kind == GQL_JSON_OBJECT &&
        obj->object.members != before.object.members)
      *m = (merged){before, *obj, true};
  }
}

/* A subgraph answer's keys sent under an alias of their own (a field whose
 * type in that subgraph differs from the API's) get their tree keys back. */
static void rename_keys(gql_json_value *v, const gql_gw_sel *sel) {
  if (!v)
    return;
  if (v->kind == GQL_JSON_ARRAY) {
    for (size_t i = 0; i < v->array.count; i++)
      rename_keys(&v->array.items[i], sel);
    return;
  }
  if (v->kind != GQL_JSON_OBJECT)
    return;
  for (const gql_gw_sel *s = sel->first; s; s = s->next) {
    if (s->fragment) {
      rename_keys(v, s);
      continue;
    }
    gql_json_value *child = obj_get(v, s->key);
    if (!child)
      continue;
    if (s->renamed)
      for (size_t i = 0; i < v->object.count; i++)
        if (&v->object.members[i].value == child) {
          v->object.members[i].key = s->tree_key;
          v->object.index = NULL;
        }
    if (s->has_children)
      rename_keys(child, s);
  }
}

int gql_gw_request_merge(gql_gw_request *r, uint32_t bi, const char *json,
                         size_t len) {
  const gql_gw_batch *b = &r->plan->batches[bi];
  gql_json_value *resp = NULL;
  gql_json_error jerr;
  int rc = gql_json_parse(r->arena, json, len, NULL, &resp, &jerr);
  if (rc == GQL_ENOMEM)
    return rc;
  if (rc || resp->kind != GQL_JSON_OBJECT) {
    const char *why = "the answer is not a JSON object";
    if (rc)
      why = gql_arena_sprintf(r->arena, "invalid JSON: %s", jerr.message);
    fail_code(r, bi, true, why ? why : "invalid JSON");
    return 0;
  }
  const gql_json_value *errors = obj_get(resp, GQL_STR("errors"));
  gql_json_value *data = obj_get(resp, GQL_STR("data"));
  /* a `data` or `errors` of another kind was dropped without a word */
  if (data && data->kind != GQL_JSON_OBJECT && data->kind != GQL_JSON_NULL) {
    fail_code(r, bi, true, "\"data\" is not an object or null");
    return 0;
  }
  if (errors && errors->kind != GQL_JSON_ARRAY &&
      errors->kind != GQL_JSON_NULL) {
    fail_code(r, bi, true, "\"errors\" is not a list");
    return 0;
  }
  bool oom = false, root_done = false;
  if (data && data->kind == GQL_JSON_OBJECT) {
    for (uint32_t i = 0; i < b->nfetches; i++) {
      if (b->field[i] == UINT32_MAX) {
        /* root fields (a batch has one root fetch per subgraph) */
        if (b->fetches[i]->renames)
          rename_keys(data, &b->fetches[i]->root);
        if (!root_done)
          deep_merge(r->arena, r->data, data, &oom);
        root_done = true;
        continue;
      }
      char buf[16];
      gql_json_value *list = obj_get(data, field_alias(b, b->field[i], buf));
      if (!list || list->kind != GQL_JSON_ARRAY)
        continue;
      if (b->fetches[i]->renames)
        rename_keys(list, &b->fetches[i]->root);
      merge_entities(r, &r->fs[b->fetches[i]->id], list, &oom);
    }
  }
  if (errors && errors->kind == GQL_JSON_ARRAY)
    for (size_t i = 0; i < errors->array.count; i++)
      import_error(r, &errors->array.items[i], b);
  return oom ? GQL_ENOMEM : 0;
}

void gql_gw_request_stats(const gql_gw_request *r, uint32_t *requests,
                          uint32_t *reps_sent, uint32_t *reps_seen) {
  *requests = r->requests;
  *reps_sent = r->reps_sent;
  *reps_seen = r->reps_seen;
}

void gw_deep_merge(gql_arena *a, gql_json_value *dst, const gql_json_value *src,
                   bool *oom) {
  deep_merge(a, dst, src, oom);
}

int gql_gw_request_merge_local(gql_gw_request *r, const char *json,
                               size_t len) {
  gql_json_value *resp = NULL;
  gql_json_error jerr;
  int rc = gql_json_parse(r->arena, json, len, NULL, &resp, &jerr);
  if (rc == GQL_ENOMEM)
    return rc;
  if (rc || resp->kind != GQL_JSON_OBJECT) {
    gql_gw_add_error(r, GQL_STR("introspection failed"), NULL);
    return 0;
  }
  const gql_json_value *errors = obj_get(resp, GQL_STR("errors"));
  const gql_json_value *data = obj_get(resp, GQL_STR("data"));
  bool oom = false;
  if (data && data->kind == GQL_JSON_OBJECT)
    deep_merge(r->arena, r->data, data, &oom);
  for (size_t i = 0;
       errors && errors->kind == GQL_JSON_ARRAY && i < errors->array.count;
       i++) {
    gql_json_value *e = errors_push(r);
    if (e)
      *e = errors->array.items[i];
  }
  return oom ? GQL_ENOMEM : 0;
}

int gql_gw_introspect(const gql_gw_plan *plan, const gql_value *variables,
                      gql_arena *arena, gql_str *json) {
  gql_buf vars;
  gql_buf_init(&vars, NULL);
  if (variables)
    gql_json_write_value(&vars, variables);
  int rc = vars.failed ? GQL_ENOMEM
                       : gql_graphql(plan->sg->api, plan->introspection.ptr,
                                     plan->introspection.len, NULL,
                                     vars.len ? vars.data : NULL, vars.len,
                                     NULL, NULL, arena, json);
  gql_buf_free(&vars);
  return rc < 0 ? rc : 0;
}
