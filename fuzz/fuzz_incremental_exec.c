/* libFuzzer target: incremental delivery (gql_execute_incremental). The
 * bytes are a query (with @defer and @stream: the schema has graphql-js
 * 17's directives), optionally followed by a NUL and variables as JSON. It
 * runs against a small schema and JSON data with the default resolvers,
 * plus a pending field and a list with a pending item, completed after the
 * walk (one with a value, one with an error). Every payload must be valid
 * JSON; every one but the last must say "hasNext":true, the last must not;
 * the execution must end once nothing is pending. Each input runs twice:
 * against that schema, and against one with no resolver of its own (every
 * type synchronous: the initial result in direct mode, incremental.c, or
 * the one-walk eager path, eager.c).
 *
 * The oracle: the payloads are merged as a client merges them, by the
 * rules of tests/incremental/merge.py (graphql-js 17's): each "pending"
 * entry maps its id to a path; an "incremental" entry with "data" is
 * deep-merged into the object at its id's path + "subPath", one with
 * "items" appends to the list at its id's path; a "completed" entry ends
 * its id. In every run, an entry for an id not pending (never announced,
 * or already completed), an id announced while it pends, a path that does
 * not lead to an object (data) or a list (items) of the merged data, and
 * an id still pending after the last payload abort. In the synchronous
 * run the same prepared operation also runs through plain gql_execute;
 * when neither its response nor any payload carries "errors" (top level,
 * incremental or completed entries), the merged data must equal its data
 * as JSON values (objects as unordered key sets, arrays in order, scalars
 * by value), or both are printed and the run aborts. */
#include <stdio.h>
#include <stdlib.h>

#include "execution/exec.h"
#include "schema/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "interface Node { id: ID! }\n"
    "type User implements Node { id: ID! name: String nonNull: String! "
    "friends: [User!] best: User tags: [[String]] }\n"
    "type Post implements Node { id: ID! title: String! author: User }\n"
    "union Item = User | Post\n"
    "type Query { me: User users: [User] items: [Item!]! later: User "
    "laterList: [User] node: Node list: [String!] }\n"
    "type Mutation { set(v: Int!): Int }\n";

/* users[0] and me.friends[0] have a best but no nonNull: an object
 * deferred whole below a parent that an error of the initial result nulls
 * (eager.c's settle drops its fragment). */
static const char json[] =
    "{\"me\":{\"id\":\"1\",\"name\":\"Ann\",\"nonNull\":\"x\","
    "\"tags\":[[\"a\",null],[]],\"friends\":[{\"id\":\"2\","
    "\"name\":\"Bo\",\"nonNull\":null,\"best\":{\"id\":\"8\"}},"
    "{\"id\":null}],\"best\":{\"id\":\"2\",\"nonNull\":\"y\"}},"
    "\"users\":[{\"id\":\"3\",\"best\":{\"id\":\"9\",\"name\":\"Cy\"}},"
    "null,{\"id\":\"4\",\"nonNull\":\"z\"}],"
    "\"items\":[{\"__typename\":\"User\",\"id\":\"1\"},"
    "{\"__typename\":\"Post\",\"id\":\"2\",\"title\":\"t\"},"
    "{\"__typename\":\"Post\",\"id\":\"3\"}],"
    "\"node\":{\"__typename\":\"User\",\"id\":\"5\"},\"list\":[\"a\",null,"
    "\"c\"],\"later\":{\"id\":\"7\",\"nonNull\":\"w\"},\"set\":5}";

typedef struct fuzz_ctx {
  gql_pending *p[16];
  int n;
} fuzz_ctx;

static fuzz_ctx *current;

static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  if (current->n < 16)
    current->p[current->n++] = gql_out_pending(out);
  else
    gql_out_error(out, "too many");
}

static gql_schema *schema, *schema_sync;
static gql_arena *data_arena;
static const gql_value *root;

static void item(const void *list, size_t i, gql_out *out) {
  const gql_value *users = list;
  if (i == 1 && current->n < 16) {
    current->p[current->n++] = gql_out_pending(out);
    return;
  }
  gql_out_json(out, gql_value_item(users, i));
}

static void later_list(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  (void)info;
  (void)parent;
  const gql_value *users = gql_value_get(root, "users", 5);
  gql_out_list(out, users, gql_value_count(users), item);
}

static void setup(void) {
  if (schema)
    return;
  gql_schema_build_options bo = {.defer_stream = true};
  if (gql_schema_build(sdl, sizeof sdl - 1, NULL, &bo, &schema, NULL) < 0)
    __builtin_trap();
  gql_schema_set_resolver(schema, "Query", "later", later, NULL, 0);
  gql_schema_set_resolver(schema, "Query", "laterList", later_list, NULL, 0);
  if (gql_schema_build(sdl, sizeof sdl - 1, NULL, &bo, &schema_sync, NULL) < 0)
    __builtin_trap();
  data_arena = gql_arena_new(NULL);
  if (gql_value_parse(data_arena, json, sizeof json - 1, &root) < 0)
    __builtin_trap();
}

/* ------------------------------------------------------------ oracle */

/* An id announced by a "pending" entry and not completed yet. */
typedef struct pend {
  gql_str id;
  const gql_json_value *path;
  struct pend *next;
} pend;

/* A payload's text, kept to print on a failure. */
typedef struct text {
  gql_str s;
  struct text *next;
} text;

typedef struct result {
  int payloads;
  bool last;    /* a payload without "hasNext":true came */
  gql_arena *a; /* the payloads' copies and the merged data */
  bool off;     /* out of the oracle's memory: no more checks */
  bool errors;  /* a payload carried "errors" */
  bool has_data;
  gql_json_value data; /* the merged data (when has_data) */
  pend *pending;
  text *texts, **ttail;
} result;

static void print_payloads(const result *r) {
  int i = 0;
  for (const text *t = r->texts; t; t = t->next)
    fprintf(stderr, "payload %d: %.*s\n", i++, (int)t->s.len, t->s.ptr);
}

/* A merge that does not hold together: the payloads and why. */
static _Noreturn void inconsistent(const result *r, const char *why,
                                   gql_str id) {
  print_payloads(r);
  fprintf(stderr, "incremental payloads inconsistent: %s (id \"%.*s\")\n", why,
          (int)id.len, id.ptr);
  abort();
}

/* The member `key` of object v, the last when it repeats (as JSON.parse),
 * or NULL (v not an object). */
static gql_json_value *member(gql_json_value *v, gql_str key) {
  /* (the values are the oracle arena's, to change: deep_merge drops the
   * index of an object it changes) */
  return (gql_json_value *)gql_json_get(v, key);
}

/* The value at `path` (a JSON array of keys and indices) from v, or NULL
 * when the path leads nowhere (merge.py's _at). */
static gql_json_value *value_at(gql_json_value *v, const gql_json_value *path) {
  if (!path || path->kind != GQL_JSON_ARRAY)
    return NULL;
  for (size_t i = 0; v && i < path->array.count; i++) {
    const gql_json_value *k = &path->array.items[i];
    if (k->kind == GQL_JSON_STRING && v->kind == GQL_JSON_OBJECT)
      v = member(v, k->string);
    else if (k->kind == GQL_JSON_NUMBER && k->is_int &&
             v->kind == GQL_JSON_ARRAY && k->number.i >= 0 &&
             (uint64_t)k->number.i < v->array.count)
      v = &v->array.items[k->number.i];
    else
      return NULL;
  }
  return v;
}

/* merge.py's _deep_merge of object src into object t (false: out of
 * memory): a member both hold as objects merges, as lists of one length
 * merges item by item (objects) or takes src's items; any other member of
 * src replaces t's or is added. */
static bool deep_merge(gql_arena *a, gql_json_value *t,
                       const gql_json_value *src) {
  size_t added = 0;
  for (size_t i = 0; i < src->object.count; i++)
    added += !member(t, src->object.members[i].key);
  if (added) {
    size_t n = t->object.count;
    gql_json_member *m = gql_arena_alloc(a, (n + added) * sizeof *m);
    if (!m)
      return false;
    if (n)
      memcpy(m, t->object.members, n * sizeof *m);
    t->object.members = m;
  }
  t->object.index = NULL; /* (lookups scan: member()) */
  for (size_t i = 0; i < src->object.count; i++) {
    const gql_json_member *sm = &src->object.members[i];
    const gql_json_value *v = &sm->value;
    gql_json_value *d = member(t, sm->key);
    if (!d) {
      t->object.members[t->object.count++] = *sm;
    } else if (d->kind == GQL_JSON_OBJECT && v->kind == GQL_JSON_OBJECT) {
      if (!deep_merge(a, d, v))
        return false;
    } else if (d->kind == GQL_JSON_ARRAY && v->kind == GQL_JSON_ARRAY &&
               d->array.count == v->array.count) {
      for (size_t k = 0; k < v->array.count; k++) {
        gql_json_value *di = &d->array.items[k];
        const gql_json_value *vi = &v->array.items[k];
        if (di->kind == GQL_JSON_OBJECT && vi->kind == GQL_JSON_OBJECT) {
          if (!deep_merge(a, di, vi))
            return false;
        } else {
          *di = *vi;
        }
      }
    } else {
      *d = *v;
    }
  }
  return true;
}

/* An entry's id: a string (graphql-js's are), else the merge fails. */
static gql_str entry_id(const result *r, const gql_json_value *e) {
  const gql_json_value *id = gql_json_get(e, GQL_STR("id"));
  if (!id || id->kind != GQL_JSON_STRING)
    inconsistent(r, "an entry without a string id", GQL_STR(""));
  return id->string;
}

/* The pending record of `id` (its link, to unlink it), or NULL. */
static pend **find_pending(result *r, gql_str id) {
  for (pend **q = &r->pending; *q; q = &(*q)->next)
    if (gql_str_eq((*q)->id, id))
      return q;
  return NULL;
}

static bool has_errors(const gql_json_value *v) {
  return gql_json_get(v, GQL_STR("errors")) != NULL;
}

/* The array member `key` of payload v (absent: none; else not an array:
 * the merge fails). */
static const gql_json_value *entries(const result *r, const gql_json_value *v,
                                     gql_str key) {
  const gql_json_value *l = gql_json_get(v, key);
  if (l && l->kind != GQL_JSON_ARRAY)
    inconsistent(r, "a payload member that is not a list", key);
  return l;
}

/* Applies one payload to the merged result, as merge.py's merge: its
 * pending entries, then its incremental ones, then its completed ones. */
static void apply(result *r, const gql_json_value *v) {
  r->errors |= has_errors(v);
  if (r->payloads == 1) {
    const gql_json_value *d = gql_json_get(v, GQL_STR("data"));
    r->has_data = d != NULL;
    if (d)
      r->data = *d;
  }
  const gql_json_value *l = entries(r, v, GQL_STR("pending"));
  for (size_t i = 0; l && i < l->array.count; i++) {
    const gql_json_value *e = &l->array.items[i];
    gql_str id = entry_id(r, e);
    if (find_pending(r, id))
      inconsistent(r, "an id announced while it pends", id);
    pend *p = gql_arena_alloc(r->a, sizeof *p);
    if (!p) {
      r->off = true;
      return;
    }
    *p = (pend){id, gql_json_get(e, GQL_STR("path")), r->pending};
    r->pending = p;
  }
  l = entries(r, v, GQL_STR("incremental"));
  for (size_t i = 0; l && i < l->array.count; i++) {
    const gql_json_value *e = &l->array.items[i];
    gql_str id = entry_id(r, e);
    pend **q = find_pending(r, id);
    if (!q)
      inconsistent(r, "an incremental entry for an id not pending", id);
    r->errors |= has_errors(e);
    gql_json_value *at = r->has_data ? value_at(&r->data, (*q)->path) : NULL;
    const gql_json_value *items = gql_json_get(e, GQL_STR("items"));
    if (items) {
      if (!at || at->kind != GQL_JSON_ARRAY || items->kind != GQL_JSON_ARRAY)
        inconsistent(r, "items for what is not a list", id);
      size_t n = at->array.count, m = items->array.count;
      gql_json_value *all = gql_arena_alloc(r->a, (n + m + 1) * sizeof *all);
      if (!all) {
        r->off = true;
        return;
      }
      if (n)
        memcpy(all, at->array.items, n * sizeof *all);
      if (m)
        memcpy(all + n, items->array.items, m * sizeof *all);
      at->array.items = all;
      at->array.count = n + m;
      continue;
    }
    const gql_json_value *sub = gql_json_get(e, GQL_STR("subPath"));
    if (at && sub)
      at = value_at(at, sub);
    const gql_json_value *d = gql_json_get(e, GQL_STR("data"));
    if (!d || d->kind != GQL_JSON_OBJECT || !at || at->kind != GQL_JSON_OBJECT)
      inconsistent(r, "data for what is not an object", id);
    if (!deep_merge(r->a, at, d)) {
      r->off = true;
      return;
    }
  }
  l = entries(r, v, GQL_STR("completed"));
  for (size_t i = 0; l && i < l->array.count; i++) {
    const gql_json_value *e = &l->array.items[i];
    gql_str id = entry_id(r, e);
    pend **q = find_pending(r, id);
    if (!q)
      inconsistent(r, "a completed entry for an id not pending", id);
    *q = (*q)->next;
    r->errors |= has_errors(e);
  }
}

/* The text copied to the oracle's arena (the values keep slices of it)
 * and parsed, or NULL when its memory ran out. */
static gql_json_value *keep(result *r, const char *out, size_t len) {
  char *s = gql_arena_strndup(r->a, out, len);
  text *t = gql_arena_alloc(r->a, sizeof *t);
  if (!s || !t)
    return NULL;
  *t = (text){{s, len}, NULL};
  *r->ttail = t;
  r->ttail = &t->next;
  gql_json_value *v;
  int rc = gql_json_parse(r->a, s, len, NULL, &v, NULL);
  if (rc == GQL_ENOMEM)
    return NULL;
  if (rc < 0)
    __builtin_trap();
  return v;
}

static void on_done(void *ud, const char *out, size_t len, bool errors) {
  (void)errors;
  result *r = ud;
  if (r->last) /* nothing after the last payload */
    __builtin_trap();
  r->payloads++;
  gql_arena *a = gql_arena_new(NULL);
  gql_json_value *v;
  if (gql_json_parse(a, out, len, NULL, &v, NULL) < 0)
    __builtin_trap();
  const gql_json_value *next = gql_json_get(v, GQL_STR("hasNext"));
  if (r->payloads > 1 && !next) /* a later payload always says */
    __builtin_trap();
  r->last = !next || next->kind != GQL_JSON_BOOL || !next->boolean;
  gql_arena_free(a);
  if (r->off)
    return;
  if (!(v = keep(r, out, len)))
    r->off = true;
  else
    apply(r, v);
}

/* The plain response (gql_execute's), kept in the oracle's arena. */
typedef struct plain {
  result *r;
  const gql_json_value *v;
  bool done;
} plain;

static void on_plain(void *ud, const char *out, size_t len, bool errors) {
  (void)errors;
  plain *pl = ud;
  if (pl->done)
    __builtin_trap();
  pl->done = true;
  gql_arena *a = pl->r->a;
  char *s = gql_arena_strndup(a, out, len);
  gql_json_value *v;
  int rc = s ? gql_json_parse(a, s, len, NULL, &v, NULL) : GQL_ENOMEM;
  if (rc < 0 && rc != GQL_ENOMEM)
    __builtin_trap();
  pl->v = rc == 0 ? v : NULL;
}

static void print_value(const char *what, const gql_json_value *v) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  if (v)
    gql_json_write_value(&b, v);
  fprintf(stderr, "%s: %.*s\n", what, (int)b.len, b.data ? b.data : "");
  gql_buf_free(&b);
}

/* The same operation through plain gql_execute: without errors on either
 * side, its data must be the merged payloads'. */
static void compare_plain(result *r, const gql_prepared *p,
                          const gql_execute_params *ip) {
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return;
  gql_arena_set_limit(arena, 64u << 20);
  plain pl = {.r = r};
  gql_execute_params params = *ip;
  params.arena = arena;
  params.on_done = on_plain;
  params.ud = &pl;
  int rc = gql_execute(p, &params);
  if (rc == 0 && !pl.done) /* nothing pends in the synchronous schema */
    __builtin_trap();
  if (pl.v && !has_errors(pl.v)) {
    const gql_json_value *d = gql_json_get(pl.v, GQL_STR("data"));
    bool ok =
        d && r->has_data ? gql_json_same(&r->data, d) : !d && !r->has_data;
    if (!ok) {
      print_payloads(r);
      print_value("merged data", r->has_data ? &r->data : NULL);
      print_value("gql_execute data", d);
      fprintf(stderr, "incremental payloads merge to other data than "
                      "gql_execute's\n");
      abort();
    }
  }
  gql_arena_free(arena);
}

static void run(gql_schema *s, const uint8_t *data, size_t size) {
  const char *src = (const char *)data;
  size_t qlen = strnlen(src, size);
  const char *vars = qlen < size ? src + qlen + 1 : NULL;
  size_t vlen = vars ? size - qlen - 1 : 0;
  gql_prepare_options po = {.parse = {.max_tokens = 2000, .max_depth = 64},
                            .max_plan_size = 5000};
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return;
  gql_arena_set_limit(arena, 64u << 20);
  gql_prepared *p;
  gql_errors errors = {.arena = arena};
  if (gql_prepare(s, src, qlen, NULL, &po, &p, &errors) < 0) {
    gql_arena_free(arena);
    return;
  }
  fuzz_ctx c = {0};
  current = &c;
  result r = {.a = gql_arena_new(NULL)};
  r.ttail = &r.texts;
  r.off = !r.a;
  if (r.a)
    gql_arena_set_limit(r.a, 256u << 20);
  gql_execute_params params = {.root_value = root,
                               .variables_json = vars,
                               .variables_len = vlen,
                               .arena = arena,
                               .on_done = on_done,
                               .ud = &r};
  int rc = gql_execute_incremental(p, &params);
  /* complete what pends, in turns (a completion may make more pend) */
  for (int i = 0; rc == 1 && i < c.n; i++) {
    if (i % 2)
      gql_out_error(gql_pending_out(c.p[i]), "later failed");
    else
      gql_out_json(gql_pending_out(c.p[i]), gql_value_get(root, "later", 5));
  }
  if (rc >= 0 && !r.last)
    __builtin_trap();
  current = NULL;
  if (r.last && !r.off) {
    if (r.pending)
      inconsistent(&r, "an id never completed", r.pending->id);
    if (s == schema_sync && !r.errors)
      compare_plain(&r, p, &params);
  }
  gql_prepared_free(p);
  gql_arena_free(arena);
  if (r.a)
    gql_arena_free(r.a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  run(schema, data, size);
  run(schema_sync, data, size);
  return 0;
}
