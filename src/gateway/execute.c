/*
 * Executing a plan: subgraph answers are parsed into arena JSON and merged
 * into one data tree; each entity fetch walks its path over that tree to
 * find the objects it completes, projects each onto its representation
 * selection (__typename, key, @requires fields, in that fixed order, so
 * equal entities give equal text) and sends each distinct representation
 * once. The response is the client's normalised selection projected over
 * the tree, with graphql-js's null propagation.
 */
#include "gateway.h"
#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct target {
  gql_json_value *obj;
  gql_json_value *path; /* response path, a JSON array; made on demand */
  uint32_t rep;
} target;

typedef struct fetch_state {
  bool filter; /* the entity type is an object type: match __typename */
  bool paths;  /* the targets' paths have been made (for errors) */
  target *targets;
  uint32_t ntargets, cap;
  gql_str *reps; /* distinct representations, JSON text */
  uint32_t nreps, reps_cap;
} fetch_state;

struct gql_gw_request {
  const gql_gw_plan *plan;
  gql_arena *arena;
  const gql_value *variables;
  gql_json_value *data; /* the root object */
  fetch_state *fs;      /* per fetch id */
  gql_json_value *errors;
  uint32_t nerrors, errors_cap;
  uint32_t requests, reps_sent, reps_seen;
};

/* -------------------------------------------------------- JSON helpers */

/* gql_str_eq, but keys of equal length mostly differ in their first byte:
 * no memcmp call for those. */
static inline bool key_eq(gql_str a, gql_str b) {
  return a.len == b.len && (a.len == 0 || (a.ptr[0] == b.ptr[0] &&
                                           memcmp(a.ptr, b.ptr, a.len) == 0));
}

static gql_json_value *obj_get(const gql_json_value *obj, gql_str key) {
  if (!obj || obj->kind != GQL_JSON_OBJECT)
    return NULL;
  for (size_t i = obj->object.count; i-- > 0;)
    if (key_eq(obj->object.members[i].key, key))
      return &obj->object.members[i].value;
  return NULL;
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
  if (r->nerrors == r->errors_cap) {
    uint32_t cap = r->errors_cap ? r->errors_cap * 2 : 8;
    gql_json_value *e =
        gql_arena_grow(r->arena, r->errors, r->errors_cap, cap, sizeof *e);
    if (!e)
      return NULL;
    r->errors = e;
    r->errors_cap = cap;
  }
  return &r->errors[r->nerrors++];
}

/* An error object {"message":m} plus "path" when given. */
static void add_error(gql_gw_request *r, gql_str message,
                      const gql_json_value *path) {
  gql_json_value *e = errors_push(r);
  if (!e)
    return;
  gql_json_member *m = gql_arena_alloc(r->arena, 2 * sizeof *m);
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
    m[1].key = GQL_STR("path");
    m[1].value = *path;
    n = 2;
  }
  memset(e, 0, sizeof *e);
  e->kind = GQL_JSON_OBJECT;
  e->object.members = m;
  e->object.count = n;
}

/* ------------------------------------------------------------ requests */

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

typedef struct seg {
  const struct seg *parent;
  gql_str key; /* or an index when key.ptr is NULL */
  size_t index;
} seg;

static gql_json_value *path_json(gql_arena *a, const seg *s,
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

static int add_target(gql_gw_request *r, fetch_state *fs, gql_json_value *obj,
                      const seg *path) {
  if (fs->ntargets == fs->cap) {
    uint32_t cap = fs->cap ? fs->cap * 2 : 16;
    target *t = gql_arena_grow(r->arena, fs->targets, fs->cap, cap, sizeof *t);
    if (!t)
      return GQL_ENOMEM;
    fs->targets = t;
    fs->cap = cap;
  }
  target *t = &fs->targets[fs->ntargets++];
  t->obj = obj;
  t->rep = 0;
  t->path = NULL; /* only an error needs it: see target_paths */
  return 0;
}

/* Finds the objects at f->path[i..] below v. With `next`, the walk is the
 * one that found the targets, redone to give each its path: the k-th
 * object found is target *next when it is still the same object. */
static int collect(gql_gw_request *r, const gql_gw_fetch *f, fetch_state *fs,
                   gql_json_value *v, uint32_t i, const seg *path,
                   uint32_t *next) {
  if (!v || v->kind == GQL_JSON_NULL)
    return 0;
  if (i == f->path_len) {
    if (v->kind != GQL_JSON_OBJECT)
      return 0;
    /* below an abstract type, only the objects of the fetch's type */
    const gql_json_value *tn = obj_get(v, GQL_STR("__typename"));
    if (fs->filter && tn && tn->kind == GQL_JSON_STRING &&
        !gql_str_eq(tn->string, f->type_name))
      return 0;
    if (!next)
      return add_target(r, fs, v, path);
    if (*next < fs->ntargets && fs->targets[*next].obj == v)
      fs->targets[*next].path = path_json(r->arena, path, NULL, 0);
    ++*next;
    return 0;
  }
  if (gql_str_eq_cstr(f->path[i], "@")) {
    if (v->kind != GQL_JSON_ARRAY)
      return 0;
    for (size_t k = 0; k < v->array.count; k++) {
      seg s = {path, {NULL, 0}, k};
      int rc = collect(r, f, fs, &v->array.items[k], i + 1, &s, next);
      if (rc)
        return rc;
    }
    return 0;
  }
  seg s = {path, f->path[i], 0};
  return collect(r, f, fs, obj_get(v, f->path[i]), i + 1, &s, next);
}

/* Gives the targets of fetch f their response paths (once). A target the
 * tree no longer holds where it was found keeps a NULL path. */
static void target_paths(gql_gw_request *r, const gql_gw_fetch *f,
                         fetch_state *fs) {
  if (fs->paths)
    return;
  fs->paths = true;
  uint32_t next = 0;
  collect(r, f, fs, r->data, 0, NULL, &next);
}

/* Appends n bytes: gql_buf_append inlined for the short, frequent pieces
 * of the response (its buffer is sized up front, so rarely grows). */
static inline void put(gql_buf *out, const char *p, size_t n) {
  if (GQL_UNLIKELY(out->cap - out->len < n) && !gql_buf_reserve(out, n))
    return;
  memcpy(out->data + out->len, p, n);
  out->len += n;
}

/* Writes `"key":` for selection s. */
static void write_key(gql_buf *out, const gql_gw_sel *s) {
  if (s->key_json.len) {
    put(out, s->key_json.ptr, s->key_json.len);
    return;
  }
  gql_json_write_string(out, s->key);
  gql_buf_putc(out, ':');
}

/* The representation: the object's fields along the selection. */
static void write_rep(gql_buf *out, const gql_json_value *obj,
                      const gql_gw_sel *sel) {
  gql_buf_putc(out, '{');
  for (const gql_gw_sel *s = sel->first; s; s = s->next) {
    if (s != sel->first)
      gql_buf_putc(out, ',');
    write_key(out, s);
    const gql_json_value *v = obj_get(obj, s->key);
    if (s->has_children && v && v->kind == GQL_JSON_OBJECT)
      write_rep(out, v, s);
    else if (v)
      gql_json_write_value(out, v);
    else
      gql_buf_puts(out, "null");
  }
  gql_buf_putc(out, '}');
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
    const gql_gw_type *et = gql_supergraph_type(r->plan->sg, f->type_name);
    fs->filter = et && et->kind == GQL_AST_OBJECT_TYPE_DEFINITION;
    fs->paths = false;
    rc = collect(r, f, fs, r->data, 0, NULL, NULL);
    for (uint32_t i = 0; i < fs->ntargets && !rc; i++) {
      tmp.len = 0;
      write_rep(&tmp, fs->targets[i].obj, f->requires);
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
      if (lead->nreps == lead->reps_cap) {
        uint32_t cap = lead->reps_cap ? lead->reps_cap * 2 : 8;
        gql_str *reps = gql_arena_grow(r->arena, lead->reps, lead->reps_cap,
                                       cap, sizeof *reps);
        if (!reps) {
          rc = GQL_ENOMEM;
          break;
        }
        lead->reps = reps;
        lead->reps_cap = cap;
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

void gql_gw_request_fail(gql_gw_request *r, uint32_t bi, const char *why) {
  const gql_gw_batch *b = &r->plan->batches[bi];
  gql_str name = r->plan->sg->graphs[b->graph].name;
  char *msg = gql_arena_sprintf(r->arena, "Subgraph %.*s: %s", (int)name.len,
                                name.ptr, why);
  if (msg)
    add_error(r, gql_cstr(msg), NULL);
}

/* A subgraph error: its path re-rooted at each object of representation
 * `rep` (entity fetch), or kept (root fetch). */
static void import_error(gql_gw_request *r, const gql_json_value *e,
                         const gql_gw_batch *b) {
  const gql_json_value *msg = obj_get(e, GQL_STR("message"));
  gql_str m = msg && msg->kind == GQL_JSON_STRING ? msg->string
                                                  : GQL_STR("Subgraph error");
  const gql_json_value *path = obj_get(e, GQL_STR("path"));
  if (!path || path->kind != GQL_JSON_ARRAY || path->array.count < 2 ||
      path->array.items[0].kind != GQL_JSON_STRING) {
    add_error(r, m, path && path->kind == GQL_JSON_ARRAY ? path : NULL);
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
    add_error(r, m, path);
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
        add_error(r, m, NULL);
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
      add_error(r, m, p);
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

int gql_gw_request_merge(gql_gw_request *r, uint32_t bi, const char *json,
                         size_t len) {
  const gql_gw_batch *b = &r->plan->batches[bi];
  gql_json_value *resp = NULL;
  gql_json_error jerr;
  int rc = gql_json_parse(r->arena, json, len, NULL, &resp, &jerr);
  if (rc == GQL_ENOMEM)
    return rc;
  if (rc || resp->kind != GQL_JSON_OBJECT) {
    gql_gw_request_fail(r, bi, "the response is not a JSON object");
    return 0;
  }
  const gql_json_value *errors = obj_get(resp, GQL_STR("errors"));
  gql_json_value *data = obj_get(resp, GQL_STR("data"));
  bool oom = false, root_done = false;
  if (data && data->kind == GQL_JSON_OBJECT) {
    for (uint32_t i = 0; i < b->nfetches; i++) {
      if (b->field[i] == UINT32_MAX) {
        /* root fields (a batch has one root fetch per subgraph) */
        if (!root_done)
          deep_merge(r->arena, r->data, data, &oom);
        root_done = true;
        continue;
      }
      char buf[16];
      const gql_json_value *list =
          obj_get(data, field_alias(b, b->field[i], buf));
      if (!list || list->kind != GQL_JSON_ARRAY)
        continue;
      merge_entities(r, &r->fs[b->fetches[i]->id], list, &oom);
    }
  }
  if (errors && errors->kind == GQL_JSON_ARRAY)
    for (size_t i = 0; i < errors->array.count; i++)
      import_error(r, &errors->array.items[i], b);
  return oom ? GQL_ENOMEM : 0;
}

/* ---------------------------------------------------------- projection */

typedef enum proj { PROJ_OK, PROJ_NULL, PROJ_BUBBLED } proj;

typedef struct projector {
  gql_gw_request *r;
  gql_buf *out;
} projector;

static bool is_leaf(const gql_gw_type *t) {
  return !t || t->kind == GQL_AST_SCALAR_TYPE_DEFINITION ||
         t->kind == GQL_AST_ENUM_TYPE_DEFINITION;
}

static proj project(projector *p, const gql_json_value *v,
                    const gql_ast_type *t, const gql_gw_type *named,
                    const gql_gw_sel *sel, const seg *path, gql_str parent_type,
                    gql_str field);

/* Whether client field c (with a type condition) is selected on an object
 * of type t: its condition holds and no earlier field that applies has
 * the same response key (those come first, as CollectFields orders). */
static bool applies(const gql_gw_type *t, const gql_gw_sel *c,
                    const gql_gw_sel *sel) {
  if (c->cond && !gql_supergraph_satisfies(t, c->cond))
    return false;
  for (const gql_gw_sel *e = sel->first; e != c; e = e->next)
    if (gql_str_eq(e->key, c->key) &&
        (!e->cond || gql_supergraph_satisfies(t, e->cond)))
      return false;
  return true;
}

/* `named` is the field's type; the object's __typename may name a
 * concrete type below it. */
static proj project_object(projector *p, const gql_json_value *v,
                           const gql_gw_type *named, const gql_gw_sel *sel,
                           const seg *path) {
  if (!v || v->kind != GQL_JSON_OBJECT)
    return PROJ_NULL;
  const gql_json_value *tn = obj_get(v, GQL_STR("__typename"));
  const gql_gw_type *t = named;
  if (tn && tn->kind == GQL_JSON_STRING && !gql_str_eq(tn->string, t->name)) {
    t = gql_supergraph_type(p->r->plan->sg, tn->string);
    if (!t)
      t = named;
  }
  gql_buf_putc(p->out, '{');
  bool first = true;
  for (const gql_gw_sel *c = sel->first; c; c = c->next) {
    if (sel->has_cond && !applies(t, c, sel))
      continue;
    if (!first)
      gql_buf_putc(p->out, ',');
    first = false;
    write_key(p->out, c);
    if (!c->def && gql_str_eq_cstr(c->name, "__typename")) {
      gql_json_write_string(p->out, t->name);
      continue;
    }
    const gql_gw_field *f =
        t == named && c->def ? c->def : gql_supergraph_field(t, c->name);
    if (!f) {
      gql_buf_puts(p->out, "null");
      continue;
    }
    seg s = {path, c->key, 0};
    proj res = project(p, obj_get(v, c->key), f->type, f->named, c, &s, t->name,
                       c->name);
    if (res == PROJ_BUBBLED)
      return PROJ_BUBBLED;
  }
  gql_buf_putc(p->out, '}');
  return PROJ_OK;
}

static proj project_inner(projector *p, const gql_json_value *v,
                          const gql_ast_type *t, const gql_gw_type *named,
                          const gql_gw_sel *sel, const seg *path,
                          gql_str parent_type, gql_str field) {
  if (!v || v->kind == GQL_JSON_NULL)
    return PROJ_NULL;
  if (t->h.kind == GQL_AST_LIST_TYPE) {
    if (v->kind != GQL_JSON_ARRAY)
      return PROJ_NULL;
    gql_buf_putc(p->out, '[');
    for (size_t i = 0; i < v->array.count; i++) {
      if (i)
        gql_buf_putc(p->out, ',');
      seg s = {path, {NULL, 0}, i};
      proj res = project(p, &v->array.items[i], t->of, named, sel, &s,
                         parent_type, field);
      if (res == PROJ_BUBBLED)
        return PROJ_BUBBLED;
    }
    gql_buf_putc(p->out, ']');
    return PROJ_OK;
  }
  if (is_leaf(named)) {
    if (v->kind == GQL_JSON_STRING && v->verbatim) {
      /* as gql_json_write_string would write it, without the scan */
      if (gql_buf_reserve(p->out, v->string.len + 2)) {
        char *o = p->out->data + p->out->len;
        o[0] = '"';
        if (v->string.len)
          memcpy(o + 1, v->string.ptr, v->string.len);
        o[v->string.len + 1] = '"';
        p->out->len += v->string.len + 2;
      }
    } else {
      gql_json_write_value(p->out, v);
    }
    return PROJ_OK;
  }
  return project_object(p, v, named, sel, path);
}

static proj project(projector *p, const gql_json_value *v,
                    const gql_ast_type *t, const gql_gw_type *named,
                    const gql_gw_sel *sel, const seg *path, gql_str parent_type,
                    gql_str field) {
  size_t mark = p->out->len;
  bool non_null = t->h.kind == GQL_AST_NON_NULL_TYPE;
  proj res = project_inner(p, v, non_null ? t->of : t, named, sel, path,
                           parent_type, field);
  if (res == PROJ_OK)
    return PROJ_OK;
  p->out->len = mark;
  if (non_null) {
    if (res == PROJ_NULL) {
      char *msg = gql_arena_sprintf(
          p->r->arena, "Cannot return null for non-nullable field %.*s.%.*s.",
          (int)parent_type.len, parent_type.ptr, (int)field.len, field.ptr);
      if (msg)
        add_error(p->r, gql_cstr(msg), path_json(p->r->arena, path, NULL, 0));
    }
    return PROJ_BUBBLED;
  }
  gql_buf_puts(p->out, "null");
  return PROJ_OK;
}

/* Writes `"errors":[...],` for the errors so far. */
static void write_errors(const gql_gw_request *r, gql_buf *out) {
  gql_buf_puts(out, "\"errors\":[");
  for (uint32_t i = 0; i < r->nerrors; i++) {
    if (i)
      gql_buf_putc(out, ',');
    gql_json_write_value(out, &r->errors[i]);
  }
  gql_buf_puts(out, "],");
}

int gql_gw_request_response(gql_gw_request *r, gql_buf *out) {
  /* The data is projected straight into `out`; errors go first (as
   * graphql-js orders them), so those that projection finds (null
   * propagation) are inserted in front afterwards. */
  size_t start = out->len;
  uint32_t nerrors = r->nerrors;
  gql_buf_putc(out, '{');
  if (nerrors)
    write_errors(r, out);
  gql_buf_puts(out, "\"data\":");
  size_t data_at = out->len;
  projector p = {r, out};
  const gql_gw_type *root = r->plan->root;
  proj res = root ? project_object(&p, r->data, root, &r->plan->client, NULL)
                  : PROJ_NULL;
  if (res != PROJ_OK) {
    out->len = data_at;
    gql_buf_puts(out, "null");
  }
  gql_buf_putc(out, '}');
  if (r->nerrors != nerrors && !out->failed) {
    /* rewrite the head: `{` + all the errors, then the data as written */
    gql_buf head;
    gql_buf_init(&head, NULL);
    gql_buf_putc(&head, '{');
    write_errors(r, &head);
    gql_buf_puts(&head, "\"data\":");
    size_t old = data_at - start;
    if (!head.failed && head.len > old &&
        gql_buf_reserve(out, head.len - old)) {
      char *base = out->data + start;
      memmove(base + head.len, base + old, out->len - data_at);
      memcpy(base, head.data, head.len);
      out->len += head.len - old;
    } else {
      out->failed = true;
    }
    gql_buf_free(&head);
  }
  return out->failed ? GQL_ENOMEM : 0;
}

void gql_gw_request_stats(const gql_gw_request *r, uint32_t *requests,
                          uint32_t *reps_sent, uint32_t *reps_seen) {
  *requests = r->requests;
  *reps_sent = r->reps_sent;
  *reps_seen = r->reps_seen;
}

int gql_gw_execute(const gql_gw_plan *plan, const gql_value *variables,
                   gql_arena *arena, gql_gw_send_fn send, void *ud,
                   gql_buf *out, gql_gw_request **req_out) {
  gql_gw_request *r;
  int rc = gql_gw_request_new(plan, variables, arena, &r);
  if (rc)
    return rc;
  gql_buf body;
  gql_buf_init(&body, NULL);
  /* batches are ordered by wave; within a wave the order is free */
  for (uint32_t i = 0; i < plan->nbatches && !rc; i++) {
    body.len = 0;
    rc = gql_gw_request_body(r, i, &body);
    if (rc == 1) {
      rc = 0;
      continue;
    }
    if (rc)
      break;
    gql_str resp = {NULL, 0};
    if (send(ud, &plan->batches[i], body.data, body.len, &resp)) {
      gql_gw_request_fail(r, i, "the request failed");
      continue;
    }
    rc = gql_gw_request_merge(r, i, resp.ptr, resp.len);
  }
  gql_buf_free(&body);
  if (!rc)
    rc = gql_gw_request_response(r, out);
  if (req_out)
    *req_out = r;
  return rc;
}
