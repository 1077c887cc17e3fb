/* The corpus's markers as C resolvers (see markers.h). */
#include "markers.h"

#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inc_due {
  gql_pending *p;
  const gql_value *v;
  long tick;
  inc_ctx x;
} inc_due;

/* A list's items are written by gql_out_list's item function, possibly
 * after the resolver returned (@stream): the list and its context live in
 * the execution's arena. */
typedef struct list_ref {
  inc_ctx x;
  const gql_value *list;
} list_ref;

static void write_item(const void *list, size_t i, gql_out *out) {
  const list_ref *ref = list;
  inc_markers_write(ref->x, out, gql_value_item(ref->list, i));
}

static const gql_value *member(const gql_value *v, const char *name) {
  return gql_value_kind_of(v) == GQL_VALUE_OBJECT
             ? gql_value_get(v, name, strlen(name))
             : NULL;
}

/* inc_markers.bulk: list v through gql_out_object_ptrs when its items are
 * objects (or null) that need no marker and name no type; false (nothing
 * written) when they are not. */
static bool bulk_objects(inc_ctx x, gql_out *out, const gql_value *v) {
  size_t n = gql_value_count(v);
  if (!n)
    return false;
  for (size_t i = 0; i < n; i++) {
    const gql_value *it = gql_value_item(v, i);
    gql_value_kind k = gql_value_kind_of(it);
    if (k == GQL_VALUE_NULL)
      continue;
    if (k != GQL_VALUE_OBJECT || member(it, "$error") || member(it, "$async") ||
        member(it, "__typename"))
      return false;
  }
  const void **items = gql_arena_alloc(x.arena, sizeof *items * n);
  if (!items)
    return false;
  for (size_t i = 0; i < n; i++) {
    const gql_value *it = gql_value_item(v, i);
    items[i] = gql_value_kind_of(it) == GQL_VALUE_NULL ? NULL : it;
  }
  gql_out_object_ptrs(out, items, n, GQL_TYPE_AUTO);
  return true;
}

void inc_markers_write(inc_ctx x, gql_out *out, const gql_value *v) {
  if (!v || gql_value_kind_of(v) == GQL_VALUE_NULL) {
    gql_out_null(out);
    return;
  }
  const gql_value *m;
  if ((m = member(v, "$error"))) {
    gql_str s = gql_value_string(m);
    char *msg = strndup(s.ptr ? s.ptr : "", s.len);
    gql_out_error(out, msg ? msg : "error");
    free(msg);
    return;
  }
  if ((m = member(v, "$async")) && x.m->at_once) {
    inc_markers_write(x, out, m);
    return;
  }
  if (m) {
    const gql_value *d = member(v, "$delay");
    int64_t delay = 1;
    if (d)
      gql_value_int(d, &delay);
    gql_pending *p = gql_out_pending(out);
    if (!p)
      return;
    inc_markers *q = x.m;
    if (q->n == q->cap) {
      q->cap = q->cap ? q->cap * 2 : 16;
      q->queue = realloc(q->queue, q->cap * sizeof *q->queue);
      if (!q->queue)
        abort();
    }
    q->queue[q->n++] = (inc_due){p, m, q->now + delay, x};
    if (q->wake)
      q->wake(q->wake_ud);
    return;
  }
  if (gql_value_kind_of(v) == GQL_VALUE_LIST && x.m->bulk &&
      bulk_objects(x, out, v))
    return;
  if (gql_value_kind_of(v) == GQL_VALUE_LIST) {
    list_ref *ref = gql_arena_alloc(x.arena, sizeof *ref);
    if (!ref) {
      gql_out_error(out, "out of memory");
      return;
    }
    *ref = (list_ref){x, v};
    gql_out_list(out, ref, gql_value_count(v), write_item);
    return;
  }
  gql_out_json(out, v);
}

void inc_markers_resolve(inc_ctx x, const gql_resolve_info *info,
                         const void *parent, gql_out *out) {
  gql_str name = gql_info_field_name(info);
  const gql_value *pv = parent;
  inc_markers_write(x, out,
                    gql_value_kind_of(pv) == GQL_VALUE_OBJECT
                        ? gql_value_get(pv, name.ptr, name.len)
                        : NULL);
}

bool inc_markers_tick(inc_markers *m) {
  m->now++;
  size_t n = m->n;
  for (size_t i = 0; i < n && i < m->n; i++) {
    if (m->queue[i].tick > m->now)
      continue;
    inc_due d = m->queue[i];
    memmove(m->queue + i, m->queue + i + 1, (m->n - i - 1) * sizeof *m->queue);
    m->n--;
    n--;
    i--;
    inc_markers_write(d.x, gql_pending_out(d.p), d.v);
  }
  return m->n > 0;
}

void inc_markers_free(inc_markers *m) {
  free(m->queue);
  *m = (inc_markers){0};
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) {
    b[n] = 0;
    *len = (size_t)n;
  }
  return b;
}

int inc_case_load(const char *path, gql_arena *arena, char **text, inc_case *c,
                  gql_resolver_fn resolve, void *data, unsigned flags) {
  size_t len;
  *c = (inc_case){0};
  if (!(*text = read_file(path, &len)) ||
      gql_value_parse(arena, *text, len, &c->json) < 0) {
    fprintf(stderr, "cannot read %s\n", path);
    return -1;
  }
  c->name = gql_value_string(member(c->json, "name"));
  c->document = gql_value_string(member(c->json, "document"));
  gql_str sdl = gql_value_string(member(c->json, "schema"));
  const gql_value *ds = member(c->json, "deferStreamDirectives");
  const gql_value *opv = member(c->json, "operationName");
  gql_schema_build_options bo = {.defer_stream = ds && gql_value_bool(ds)};
  gql_error_list el;
  gql_error_list_init(&el, arena, 10);
  if (gql_schema_build(sdl.ptr, sdl.len, NULL, &bo, &c->schema, &el) < 0) {
    fprintf(stderr, "%s: schema: %s\n", path,
            el.count ? el.items[0].message : "?");
    return -1;
  }
  gql_schema *s = c->schema;
  for (uint32_t t = 0; t < s->ntypes; t++) {
    const gql_type *ty = &s->types[t];
    if (ty->kind != GQL_TYPE_OBJECT ||
        (ty->name.len > 1 && ty->name.ptr[0] == '_' && ty->name.ptr[1] == '_'))
      continue;
    char tn[256];
    snprintf(tn, sizeof tn, "%.*s", (int)ty->name.len, ty->name.ptr);
    for (uint32_t f = 0; f < ty->nfields; f++) {
      char fn[256];
      snprintf(fn, sizeof fn, "%.*s", (int)ty->fields[f].name.len,
               ty->fields[f].name.ptr);
      gql_schema_set_resolver(s, tn, fn, resolve, data, flags);
    }
  }
  gql_schema_finalize(s);
  if (opv && gql_value_kind_of(opv) == GQL_VALUE_STRING) {
    gql_str o = gql_value_string(opv);
    snprintf(c->operation, sizeof c->operation, "%.*s", (int)o.len, o.ptr);
  }
  const gql_value *vv = member(c->json, "variables");
  if (vv)
    gql_value_print(arena, vv, &c->variables);
  c->root_value = member(c->json, "rootValue");
  return 0;
}
