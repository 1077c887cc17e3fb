/* The tracer: span trees (collapse, depth), end times and parents with
 * pending resolvers, the subscriber contract and aborts, errors and events,
 * the operation signature, OTLP JSON, and the exporter queue. */
#include "trace/trace.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- a transport that keeps the batches */

typedef struct sink {
  char *data[64];
  size_t len[64];
  int n;
} sink;

static int sink_send(void *ud, const char *json, size_t len) {
  sink *s = ud;
  if (s->n < 64) {
    s->data[s->n] = malloc(len + 1);
    memcpy(s->data[s->n], json, len);
    s->data[s->n][len] = 0;
    s->len[s->n++] = len;
  }
  return 0;
}

static void sink_free(sink *s) {
  for (int i = 0; i < s->n; i++)
    free(s->data[i]);
}

/* ---- the reference schema (tracing.md §2.3) */

static const char ref_sdl[] =
    "type Query { hello(name: String, title: String): String friends: [Human]"
    " boom: String weird: String }\n"
    "type Human { name: String pets: [Pet!] }\n"
    "type Pet { name: String }\n";
static const char ref_data[] =
    "{\"hello\":\"hi\",\"friends\":[{\"name\":\"a\",\"pets\":[{\"name\":\"p\"}]"
    "},{\"name\":\"b\",\"pets\":[{\"name\":\"q\"},{\"name\":\"r\"}]}]}";
static const char ref_query[] =
    "query MyQuery($who: String, $t: String) { hello(name: $who, title: $t) "
    "friends { name pets { name } } }";

static void boom(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  gql_out_error(out, "kaboom");
}

static void weird(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_error(out, "say \"hi\"\n\xff");
}

static gql_schema *ref_schema(void) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(ref_sdl, sizeof ref_sdl - 1, NULL, &s, NULL),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "boom", boom, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "weird", weird, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  return s;
}

typedef struct done {
  char json[4096];
} done;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  done *d = ud;
  snprintf(d->json, sizeof d->json, "%.*s", (int)len, json);
}

/* Runs q traced with options o; the response goes to d, the spans to the
 * tracer's sink (flushed). */
static void run_traced(gql_tracer *t, gql_schema *s, const char *q,
                       const char *data, const char *vars,
                       const gql_trace_options *o, done *d) {
  gql_trace *tr = gql_trace_begin(t, o);
  cr_assert(tr);
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p = NULL;
  gql_errors errs = {.arena = a};
  gql_prepare_options po = {.trace = tr};
  int rc = gql_prepare(s, q, strlen(q), NULL, &po, &p, &errs);
  gql_str err = {0};
  if (errs.count)
    cr_assert_eq(gql_errors_response(&errs, NULL, a, &err), 0);
  if (rc == 0) {
    const gql_value *root = NULL;
    if (data)
      cr_assert_eq(gql_value_parse(a, data, strlen(data), &root), 0);
    gql_trace_set_operation(tr, p, vars, vars ? strlen(vars) : 0);
    gql_execute_params params = {.root_value = root,
                                 .variables_json = vars,
                                 .variables_len = vars ? strlen(vars) : 0,
                                 .trace = tr,
                                 .arena = a,
                                 .on_done = on_done,
                                 .ud = d};
    cr_assert_eq(gql_execute(p, &params), 0);
  } else {
    snprintf(d->json, sizeof d->json, "%.*s", (int)err.len, err.ptr);
  }
  gql_trace_end(tr);
  gql_prepared_free(p);
  gql_arena_free(a);
  if (t)
    gql_tracer_flush(t);
}

/* ---- reading the OTLP JSON back */

typedef struct spans {
  gql_arena *arena;
  const gql_json_value *items[400];
  int n;
} spans;

/* Parsed strings are slices of the batch text: NUL-terminated copies for
 * the asserts (kept until exit). */
static gql_arena *copies;
static const char *cs(gql_str s) {
  if (!copies)
    copies = gql_arena_new(NULL);
  return gql_arena_strndup(copies, s.ptr, s.len);
}

static const gql_json_value *get(const gql_json_value *o, const char *k) {
  const gql_json_value *v = gql_json_get(o, gql_cstr(k));
  cr_assert(v, "missing %s", k);
  return v;
}

static bool is_hex(gql_str s, size_t n) {
  if (s.len != n)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789abcdef", s.ptr[i]))
      return false;
  return true;
}

static bool is_decimal(gql_str s) {
  if (!s.len)
    return false;
  for (size_t i = 0; i < s.len; i++)
    if (s.ptr[i] < '0' || s.ptr[i] > '9')
      return false;
  return true;
}

/* Parses every batch and checks the OTLP shape of each span. */
static void read_spans(sink *k, spans *out) {
  out->arena = gql_arena_new(NULL);
  out->n = 0;
  for (int b = 0; b < k->n; b++) {
    gql_json_value *root;
    gql_json_error je;
    cr_assert_eq(
        gql_json_parse(out->arena, k->data[b], k->len[b], NULL, &root, &je), 0,
        "batch %d is not JSON: %s", b, je.message);
    const gql_json_value *rs = get(root, "resourceSpans");
    cr_assert_eq(rs->kind, GQL_JSON_ARRAY);
    for (size_t i = 0; i < rs->array.count; i++) {
      const gql_json_value *r = &rs->array.items[i];
      const gql_json_value *attrs = get(get(r, "resource"), "attributes");
      cr_assert_str_eq(cs(get(&attrs->array.items[0], "key")->string),
                       "service.name");
      const gql_json_value *ss = get(r, "scopeSpans");
      for (size_t j = 0; j < ss->array.count; j++) {
        const gql_json_value *sc = &ss->array.items[j];
        cr_assert_str_eq(cs(get(get(sc, "scope"), "name")->string), "gql");
        const gql_json_value *sp = get(sc, "spans");
        cr_assert(sp->array.count > 0);
        for (size_t m = 0; m < sp->array.count; m++) {
          const gql_json_value *s = &sp->array.items[m];
          cr_assert(is_hex(get(s, "traceId")->string, 32));
          cr_assert(is_hex(get(s, "spanId")->string, 16));
          const gql_json_value *pa = gql_json_get(s, GQL_STR("parentSpanId"));
          cr_assert(!pa || is_hex(pa->string, 16));
          cr_assert(is_decimal(get(s, "startTimeUnixNano")->string));
          cr_assert(is_decimal(get(s, "endTimeUnixNano")->string));
          cr_assert_eq(get(s, "kind")->kind, GQL_JSON_NUMBER);
          cr_assert_eq(get(s, "attributes")->kind, GQL_JSON_ARRAY);
          cr_assert_lt(out->n, 400);
          out->items[out->n++] = s;
        }
      }
    }
  }
}

static const char *attr(const gql_json_value *s, const char *key) {
  const gql_json_value *a = get(s, "attributes");
  for (size_t i = 0; i < a->array.count; i++) {
    const gql_json_value *kv = &a->array.items[i];
    if (strcmp(cs(get(kv, "key")->string), key) == 0) {
      const gql_json_value *v =
          gql_json_get(get(kv, "value"), GQL_STR("stringValue"));
      return v ? cs(v->string) : "";
    }
  }
  return NULL;
}

static const char *str(const gql_json_value *s, const char *key) {
  const gql_json_value *v = gql_json_get(s, gql_cstr(key));
  return v ? cs(v->string) : NULL;
}

/* The span whose graphql.field.path (or name, for the other spans) is
 * `what`; NULL when none. */
static const gql_json_value *find(spans *sp, const char *what) {
  for (int i = 0; i < sp->n; i++) {
    const char *p = attr(sp->items[i], "graphql.field.path");
    if (p && strcmp(p, what) == 0)
      return sp->items[i];
    if (!p && strcmp(str(sp->items[i], "name"), what) == 0)
      return sp->items[i];
  }
  return NULL;
}

static int count_resolve(spans *sp) {
  int n = 0;
  for (int i = 0; i < sp->n; i++)
    n += strcmp(str(sp->items[i], "name"), "graphql.resolve") == 0;
  return n;
}

static void assert_parent(spans *sp, const char *child, const char *parent) {
  const gql_json_value *c = find(sp, child), *p = find(sp, parent);
  cr_assert(c, "no span %s", child);
  cr_assert(p, "no span %s", parent);
  cr_assert_str_eq(str(c, "parentSpanId"), str(p, "spanId"),
                   "%s is not under %s", child, parent);
}

static gql_tracer *test_tracer(sink *k) {
  gql_tracer *t;
  gql_tracer_config c = {.service_name = "gql-test",
                         .transport = sink_send,
                         .transport_ud = k,
                         .no_thread = true};
  cr_assert_eq(gql_tracer_new(&c, &t), 0);
  return t;
}

/* ---- span trees */

Test(trace, default_tree_collapses_lists_and_parents_by_nearest_field) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  done d;
  run_traced(t, s, ref_query, ref_data, NULL, NULL, &d);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(sp.n, 3 + 5);
  const gql_json_value *ex = find(&sp, "query");
  cr_assert(ex);
  cr_assert_str_eq(attr(ex, "resource.name"),
                   "query MyQuery($t:String,$who:String){friends{name "
                   "pets{name}}hello(name:$who,title:$t)}");
  cr_assert_str_eq(attr(ex, "graphql.operation.type"), "query");
  cr_assert_str_eq(attr(ex, "graphql.operation.name"), "MyQuery");
  cr_assert_eq(get(ex, "kind")->number.i, 2);
  cr_assert(find(&sp, "graphql.parse"));
  cr_assert(find(&sp, "graphql.validate"));
  assert_parent(&sp, "hello", "query");
  assert_parent(&sp, "friends", "query");
  assert_parent(&sp, "friends.*.name", "friends");
  assert_parent(&sp, "friends.*.pets", "friends");
  assert_parent(&sp, "friends.*.pets.*.name", "friends.*.pets");
  const gql_json_value *pets = find(&sp, "friends.*.pets");
  cr_assert_str_eq(attr(pets, "resource.name"), "pets:[Pet!]");
  cr_assert_str_eq(attr(pets, "graphql.field.type"), "Pet");
  cr_assert_str_eq(attr(find(&sp, "hello"), "resource.name"), "hello:String");
  /* one trace for the request */
  for (int i = 1; i < sp.n; i++)
    cr_assert_str_eq(str(sp.items[i], "traceId"), str(sp.items[0], "traceId"));
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, collapse_off_with_depth_2_gives_one_span_per_item_two_deep) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.no_collapse = true;
  o.depth = 2;
  done d;
  run_traced(t, s, ref_query, ref_data, NULL, &o, &d);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), 6);
  const char *want[] = {"hello",          "friends",        "friends.0.name",
                        "friends.0.pets", "friends.1.name", "friends.1.pets"};
  for (int i = 0; i < 6; i++)
    cr_assert(find(&sp, want[i]), "no span %s", want[i]);
  assert_parent(&sp, "friends.1.pets", "friends");
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, depth_counts_named_fields_only_when_collapsing) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.depth = 2;
  done d;
  run_traced(t, s, ref_query, ref_data, NULL, &o, &d);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), 4);
  cr_assert(find(&sp, "friends.*.name"));
  cr_assert(find(&sp, "friends.*.pets"));
  cr_assert_null(find(&sp, "friends.*.pets.*.name"));
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- the deep 5x5x4 query: event counts per configuration */

static char *deep_data(void) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"authors\":[");
  for (int a = 0; a < 5; a++) {
    gql_buf_printf(&b, "%s{\"id\":\"a%d\",\"name\":\"Author %d\",\"posts\":[",
                   a ? "," : "", a, a);
    for (int p = 0; p < 5; p++) {
      gql_buf_printf(&b, "%s{\"id\":\"p%d\",\"title\":\"T\",\"comments\":[",
                     p ? "," : "", p);
      for (int c = 0; c < 4; c++)
        gql_buf_printf(&b, "%s{\"id\":\"c%d\",\"body\":\"B\"}", c ? "," : "",
                       c);
      gql_buf_puts(&b, "]}");
    }
    gql_buf_puts(&b, "]}");
  }
  gql_buf_puts(&b, "]}");
  char *s = strdup(gql_buf_cstr(&b));
  gql_buf_free(&b);
  return s;
}

static const char deep_sdl[] =
    "type Query { authors: [Author!]! }\n"
    "type Author { id: ID! name: String! posts: [Post!]! }\n"
    "type Post { id: ID! title: String! comments: [Comment!]! }\n"
    "type Comment { id: ID! body: String! }\n";
static const char deep_query[] =
    "query Deep { authors { id name posts { id title comments { id body } } } "
    "}";

typedef struct counts {
  int exec_start, exec_finish, start, update, finish;
  int abort_after_updates; /* abort from the n-th update (0: never) */
  bool abort_at_start;
  char paths[16384]; /* resolve_finish's paths, each followed by '|' */
} counts;

static int c_exec_start(void *ud, gql_trace *tr) {
  counts *c = ud;
  c->exec_start++;
  return c->abort_at_start;
}
static void c_exec_finish(void *ud, gql_trace *tr, bool errors) {
  ((counts *)ud)->exec_finish++;
}
static int c_start(void *ud, gql_trace *tr, const gql_resolve_info *info) {
  ((counts *)ud)->start++;
  return 0;
}
static void c_update(void *ud, gql_trace *tr, const gql_resolve_info *info,
                     const char *error) {
  counts *c = ud;
  if (++c->update == c->abort_after_updates)
    gql_trace_abort(tr);
}
static void c_finish(void *ud, gql_trace *tr, const char *path,
                     const char *error) {
  counts *c = ud;
  c->finish++;
  size_t n = strlen(c->paths);
  snprintf(c->paths + n, sizeof c->paths - n, "%s|", path);
}

static void deep_counts(bool collapse, int depth, int want_spans) {
  gql_schema *s = NULL;
  cr_assert_eq(
      gql_schema_from_sdl(deep_sdl, sizeof deep_sdl - 1, NULL, &s, NULL), 0);
  char *data = deep_data();
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  counts c = {0};
  gql_trace_subscriber sub = {.execute_start = c_exec_start,
                              .execute_finish = c_exec_finish,
                              .resolve_start = c_start,
                              .resolve_update = c_update,
                              .resolve_finish = c_finish,
                              .ud = &c};
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.no_collapse = !collapse;
  o.depth = depth;
  o.subscriber = &sub;
  done d;
  run_traced(t, s, deep_query, data, NULL, &o, &d);
  cr_assert_eq(c.start, 291);
  cr_assert_eq(c.update, 291);
  cr_assert_eq(c.finish, want_spans);
  cr_assert_eq(c.exec_start, 1);
  cr_assert_eq(c.exec_finish, 1);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), want_spans);
  /* the subscriber is told each span's path, the one exported */
  int seen = 0;
  for (int i = 0; i < sp.n; i++) {
    const char *path = attr(sp.items[i], "graphql.field.path");
    if (!path)
      continue;
    char want[256];
    snprintf(want, sizeof want, "|%s|", path);
    char all[sizeof c.paths + 1];
    snprintf(all, sizeof all, "|%s", c.paths);
    cr_assert(strstr(all, want), "%s not in %s", path, c.paths);
    seen++;
  }
  cr_assert_eq(seen, want_spans);
  if (collapse && depth < 0)
    cr_assert(strstr(c.paths, "|authors.*.posts.*.comments.*.body|"), "%s",
              c.paths);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  free(data);
  gql_schema_free(s);
}

Test(trace, deep_query_fires_start_and_update_per_call_and_9_spans) {
  deep_counts(true, -1, 9);
}
Test(trace, deep_query_collapse_off_makes_a_span_per_call) {
  deep_counts(false, -1, 291);
}
Test(trace, deep_query_depth_2_keeps_the_first_two_field_levels) {
  deep_counts(true, 2, 4); /* authors, .id, .name, .posts */
}
Test(trace, deep_query_depth_0_has_no_resolve_spans_but_every_event) {
  deep_counts(true, 0, 0);
}

/* ---- pending resolvers */

typedef struct pend {
  gql_pending *p[8];
  int n;
} pend;

static void pend_field(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  pend *c = gql_info_data(info);
  c->p[c->n++] = gql_out_pending(out);
}

static void two_humans(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, (const void *)(uintptr_t)(i + 1), GQL_TYPE_AUTO);
}
static void friends_res(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  gql_out_list(out, "x", 2, two_humans);
}
static void one_pet(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, "pet", GQL_TYPE_AUTO);
}
static void pet_name(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  gql_out_string(out, "rex", 3);
}

static gql_schema *pend_schema(pend *c, bool pend_names) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(ref_sdl, sizeof ref_sdl - 1, NULL, &s, NULL),
               0);
  gql_schema_set_resolver(s, "Query", "friends", friends_res, NULL, 0);
  if (pend_names)
    gql_schema_set_resolver(s, "Human", "name", pend_field, c, 0);
  else
    gql_schema_set_resolver(s, "Human", "pets", pend_field, c, 0);
  gql_schema_set_resolver(s, "Pet", "name", pet_name, NULL, 0);
  return s;
}

static uint64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

typedef struct async_run {
  gql_trace *tr;
  gql_arena *a;
  gql_prepared *p;
  done d;
} async_run;

static void async_start(async_run *r, gql_tracer *t, gql_schema *s,
                        const char *q) {
  r->tr = gql_trace_begin(t, NULL);
  r->a = gql_arena_new(NULL);
  gql_prepare_options po = {.trace = r->tr};
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, &po, &r->p, NULL), 0);
  gql_trace_set_operation(r->tr, r->p, NULL, 0);
  gql_execute_params params = {
      .trace = r->tr, .arena = r->a, .on_done = on_done, .ud = &r->d};
  cr_assert_eq(gql_execute(r->p, &params), 0);
  cr_assert_eq(r->d.json[0], 0, "fields pend: no response yet");
}

static void async_end(async_run *r, gql_tracer *t) {
  gql_trace_end(r->tr);
  gql_prepared_free(r->p);
  gql_arena_free(r->a);
  gql_tracer_flush(t);
}

static uint64_t ns_of(const gql_json_value *s, const char *key) {
  return strtoull(str(s, key), NULL, 10);
}

Test(trace, collapsed_span_ends_at_the_last_sibling_completion) {
  pend c = {0};
  gql_schema *s = pend_schema(&c, true);
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  async_run r = {0};
  async_start(&r, t, s, "{ friends { name } }");
  cr_assert_eq(c.n, 2);
  gql_out_string(gql_pending_out(c.p[1]), "second", 6); /* out of order */
  sleep_ms(3);
  uint64_t mark = wall_ns();
  sleep_ms(3);
  gql_out_string(gql_pending_out(c.p[0]), "first", 5);
  cr_assert_str_eq(r.d.json,
                   "{\"data\":{\"friends\":[{\"name\":\"first\"},{\"name\":"
                   "\"second\"}]}}");
  async_end(&r, t);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *name = find(&sp, "friends.*.name");
  cr_assert(name);
  cr_assert_gt(ns_of(name, "endTimeUnixNano"), mark);
  cr_assert_lt(ns_of(name, "startTimeUnixNano"), mark);
  cr_assert_geq(ns_of(find(&sp, "query"), "endTimeUnixNano"),
                ns_of(name, "endTimeUnixNano"));
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(
    trace,
    collapsed_grandchild_first_reached_under_a_later_item_has_the_right_parent) {
  pend c = {0};
  gql_schema *s = pend_schema(&c, false);
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  async_run r = {0};
  async_start(&r, t, s, "{ friends { pets { name } } }");
  cr_assert_eq(c.n, 2);
  /* human #1's pets settle first: pets.*.name is first reached under it */
  gql_out_list(gql_pending_out(c.p[1]), "x", 1, one_pet);
  gql_out_list(gql_pending_out(c.p[0]), "x", 1, one_pet);
  async_end(&r, t);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), 3);
  assert_parent(&sp, "friends.*.pets.*.name", "friends.*.pets");
  assert_parent(&sp, "friends.*.pets", "friends");
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- aborts */

Test(trace, abort_at_execute_start_runs_no_resolver_and_flags_no_error) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  counts c = {.abort_at_start = true};
  gql_trace_subscriber sub = {.execute_start = c_exec_start,
                              .execute_finish = c_exec_finish,
                              .resolve_start = c_start,
                              .ud = &c};
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.subscriber = &sub;
  done d;
  run_traced(t, s, "{ hello friends { name } }", ref_data, NULL, &o, &d);
  cr_assert_str_eq(d.json,
                   "{\"errors\":[{\"message\":\"Execution aborted.\"}]}");
  cr_assert_eq(c.start, 0);
  cr_assert_eq(c.exec_finish, 1);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *ex = find(&sp, "query");
  cr_assert(ex);
  cr_assert_null(gql_json_get(ex, GQL_STR("status")));
  cr_assert_null(attr(ex, "error.type"));
  cr_assert_eq(count_resolve(&sp), 0);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, abort_during_execution_fails_later_resolvers) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  counts c = {.abort_after_updates = 1};
  gql_trace_subscriber sub = {
      .resolve_start = c_start, .resolve_update = c_update, .ud = &c};
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.subscriber = &sub;
  done d;
  run_traced(t, s, "{ hello friends { name } }", ref_data, NULL, &o, &d);
  cr_assert_str_eq(d.json, "{\"errors\":[{\"message\":\"Execution aborted.\","
                           "\"locations\":[{\"line\":1,\"column\":9}],"
                           "\"path\":[\"friends\"]}],\"data\":{\"hello\":"
                           "\"hi\",\"friends\":null}}");
  cr_assert_eq(c.start, 2);
  cr_assert_eq(c.update, 2);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *fr = find(&sp, "friends");
  cr_assert(fr);
  cr_assert_null(gql_json_get(fr, GQL_STR("status"))); /* no error */
  const gql_json_value *ex = find(&sp, "query");
  cr_assert_str_eq(attr(ex, "error.type"), "GraphQLError");
  cr_assert_eq(get(ex, "events")->array.count, 1);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- without a subscriber: collapsed siblings skip the hooks (the
 * tracer answers once per planned field), with the same spans */

typedef struct sib {
  gql_trace *tr;
  uint64_t at[8]; /* wall time at each call's entry */
  int n;
  int sleep_first; /* ms the first call takes */
  int error_from;  /* calls from this one (1-based) fail; 0: none */
  int abort_at;    /* the call (1-based) that aborts the trace; 0: none */
} sib;

static void sib_name(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  sib *c = gql_info_data(info);
  int call = ++c->n;
  if (call <= 8)
    c->at[call - 1] = wall_ns();
  if (call == 1 && c->sleep_first)
    sleep_ms(c->sleep_first);
  if (c->abort_at == call)
    gql_trace_abort(c->tr);
  if (c->error_from && call >= c->error_from) {
    char m[32];
    snprintf(m, sizeof m, "call %d failed", call);
    gql_out_error(out, m);
    return;
  }
  gql_out_string(out, "n", 1);
}

static const char three_friends[] =
    "{\"friends\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}";

/* Like run_traced, the trace handed to the resolvers' sib. */
static void run_sib_with(gql_tracer *t, gql_schema *s, const char *q, sib *c,
                         done *d, const gql_trace_options *o) {
  gql_trace *tr = gql_trace_begin(t, o);
  c->tr = tr;
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p = NULL;
  gql_prepare_options po = {.trace = tr};
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, &po, &p, NULL), 0);
  const gql_value *root = NULL;
  cr_assert_eq(
      gql_value_parse(a, three_friends, sizeof three_friends - 1, &root), 0);
  gql_trace_set_operation(tr, p, NULL, 0);
  gql_execute_params params = {
      .root_value = root, .trace = tr, .arena = a, .on_done = on_done, .ud = d};
  cr_assert_eq(gql_execute(p, &params), 0);
  gql_trace_end(tr);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_tracer_flush(t);
}

static void run_sib(gql_tracer *t, gql_schema *s, const char *q, sib *c,
                    done *d) {
  run_sib_with(t, s, q, c, d, NULL);
}

static gql_schema *sib_schema(sib *c) {
  gql_schema *s = ref_schema();
  cr_assert_eq(gql_schema_set_resolver(s, "Human", "name", sib_name, c,
                                       GQL_RESOLVER_SYNC),
               0);
  return s;
}

Test(trace, collapsed_sync_span_ends_after_the_last_sibling_call) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  sib c = {.sleep_first = 3};
  gql_schema *s = sib_schema(&c);
  done d;
  run_sib(t, s, "{ friends { name } }", &c, &d);
  cr_assert_eq(c.n, 3);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), 2);
  const gql_json_value *name = find(&sp, "friends.*.name");
  cr_assert(name);
  assert_parent(&sp, "friends.*.name", "friends");
  /* started by the first call, ended after the last one began (the first
   * call alone ends 3 ms before that). The tracer's clock is the calibrated
   * time-stamp counter, the test's CLOCK_REALTIME: allow 100 us between
   * them, far below the 3 ms that tell the two answers apart. */
  cr_assert_leq(ns_of(name, "startTimeUnixNano"), c.at[0] + 100000);
  cr_assert_geq(ns_of(name, "endTimeUnixNano") + 100000, c.at[2]);
  cr_assert_leq(ns_of(name, "endTimeUnixNano"),
                ns_of(find(&sp, "query"), "endTimeUnixNano"));
  cr_assert_null(gql_json_get(name, GQL_STR("status")));
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- a list of non-null items of one object type: only the last item's
 * completion of a composite field reads the clock (hooks.last_stamps) */

typedef struct last_run {
  uint64_t at[4];  /* wall time at each Item.id call's entry */
  uint64_t err_at; /* and just before the failing call's error */
  int n;
  int fail_at; /* the Item.id call (1-based) that fails after its sleep */
} last_run;

static void last_id(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  last_run *c = gql_info_data(info);
  int call = ++c->n;
  if (call <= 4)
    c->at[call - 1] = wall_ns();
  if (call == 3) /* the last item's: its sub completes 3 ms later */
    sleep_ms(3);
  if (call == c->fail_at) {
    c->err_at = wall_ns();
    gql_out_error(out, "bad id");
  } else
    gql_out_string(out, "x", 1);
}

/* Runs { items { id sub { v } } } over three items traced by default;
 * the spans of items.*.sub and the execute span into *sub and *ex. */
static void run_last(last_run *c, sink *k, spans *sp,
                     const gql_json_value **sub, const gql_json_value **ex) {
  static const char sdl[] = "type Query { items: [Item!]! }\n"
                            "type Item { id: ID! sub: Sub! }\n"
                            "type Sub { v: Int }\n";
  static const char data[] = "{\"items\":[{\"sub\":{\"v\":1}},{\"sub\":"
                             "{\"v\":2}},{\"sub\":{\"v\":3}}]}";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Item", "id", last_id, c, GQL_RESOLVER_SYNC),
      0);
  gql_tracer *t = test_tracer(k);
  done d;
  run_traced(t, s, "{ items { id sub { v } } }", data, NULL, NULL, &d);
  cr_assert_eq(c->n, c->fail_at ? c->fail_at : 3);
  if (!c->fail_at)
    cr_assert_str_eq(d.json, "{\"data\":{\"items\":[{\"id\":\"x\",\"sub\":{"
                             "\"v\":1}},{\"id\":\"x\",\"sub\":{\"v\":2}},{"
                             "\"id\":\"x\",\"sub\":{\"v\":3}}]}}");
  else
    cr_assert(strstr(d.json, "\"data\":null"), "%s", d.json);
  read_spans(k, sp);
  *sub = find(sp, "items.*.sub");
  *ex = find(sp, "query");
  cr_assert(*sub && *ex);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, collapsed_span_of_list_items_ends_at_the_last_items_completion) {
  last_run c = {0};
  sink k = {0};
  spans sp;
  const gql_json_value *sub, *ex;
  run_last(&c, &k, &sp, &sub, &ex);
  /* the last item's sub completed after its id's 3 ms: the span ends
   * after that, not at an earlier item's completion (100 us between the
   * tracer's clock and the test's, as above) */
  cr_assert_geq(ns_of(sub, "endTimeUnixNano") + 100000, c.at[2] + 3000000);
  cr_assert_leq(ns_of(sub, "endTimeUnixNano"), ns_of(ex, "endTimeUnixNano"));
  /* started under item 0, before item 1's id call */
  cr_assert_leq(ns_of(sub, "startTimeUnixNano"), c.at[1] + 100000);
  gql_arena_free(sp.arena);
  sink_free(&k);
}

Test(trace, collapsed_span_whose_list_an_error_ends_early_ends_in_bounds) {
  /* the last item's id fails (after 3 ms) before its sub is called: the
   * error settled the stamp item 1 left owed, and the span ends no earlier
   * than item 1's sub completion and no later than the execute span (it
   * also takes its parent field's completion, which follows the error: no
   * tighter bound holds in wall time on a loaded machine) */
  last_run c = {.fail_at = 3};
  sink k = {0};
  spans sp;
  const gql_json_value *sub, *ex;
  run_last(&c, &k, &sp, &sub, &ex);
  uint64_t end = ns_of(sub, "endTimeUnixNano");
  cr_assert_geq(end + 100000, c.at[1]);
  cr_assert_geq(end + 100000, c.err_at); /* settled at the error */
  cr_assert_leq(end, ns_of(ex, "endTimeUnixNano"));
  cr_assert_geq(end, ns_of(sub, "startTimeUnixNano"));
  gql_arena_free(sp.arena);
  sink_free(&k);
}

static void sub_exec_finish(void *ud, gql_trace *tr, bool has_errors) {
  (void)tr;
  (void)has_errors;
  ++*(int *)ud;
}

/* The collapsed spans' ends are the same whether the execute finish takes
 * its one pass (no subscriber) or the general passes (an execute_finish
 * subscriber): name's span ends after its last sibling call began, and no
 * span ends after its parent. */
Test(trace, collapsed_ends_agree_on_the_one_pass_and_the_general_finish) {
  for (int general = 0; general < 2; general++) {
    sink k = {0};
    gql_tracer *t = test_tracer(&k);
    sib c = {.sleep_first = 3};
    gql_schema *s = sib_schema(&c);
    int finishes = 0;
    gql_trace_subscriber sub = {.execute_finish = sub_exec_finish,
                                .ud = &finishes};
    gql_trace_options o;
    gql_trace_options_init(&o);
    if (general)
      o.subscriber = &sub;
    done d;
    run_sib_with(t, s, "{ friends { name } }", &c, &d, &o);
    cr_assert_eq(c.n, 3);
    cr_assert_eq(finishes, general);
    spans sp;
    read_spans(&k, &sp);
    cr_assert_eq(count_resolve(&sp), 2);
    const gql_json_value *name = find(&sp, "friends.*.name"),
                         *friends = find(&sp, "friends"),
                         *query = find(&sp, "query");
    cr_assert(name && friends && query);
    cr_assert_leq(ns_of(name, "startTimeUnixNano"), c.at[0] + 100000);
    cr_assert_geq(ns_of(name, "endTimeUnixNano") + 100000, c.at[2],
                  "general %d", general);
    cr_assert_leq(ns_of(name, "endTimeUnixNano"),
                  ns_of(friends, "endTimeUnixNano"));
    cr_assert_leq(ns_of(friends, "endTimeUnixNano"),
                  ns_of(query, "endTimeUnixNano"));
    cr_assert_geq(ns_of(friends, "endTimeUnixNano"),
                  ns_of(friends, "startTimeUnixNano"));
    gql_arena_free(sp.arena);
    sink_free(&k);
    gql_tracer_free(t);
    gql_schema_free(s);
  }
}

Test(trace, a_later_sibling_error_flags_the_collapsed_span_first_wins) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  sib c = {.error_from = 2};
  gql_schema *s = sib_schema(&c);
  done d;
  run_sib(t, s, "{ friends { name } }", &c, &d);
  cr_assert_eq(c.n, 3);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *name = find(&sp, "friends.*.name");
  cr_assert(name);
  cr_assert_str_eq(attr(name, "error.type"), "Error");
  cr_assert_str_eq(cs(get(get(name, "status"), "message")->string),
                   "call 2 failed");
  cr_assert_null(gql_json_get(find(&sp, "friends"), GQL_STR("status")));
  cr_assert_eq(get(find(&sp, "query"), "events")->array.count, 2);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, gql_trace_abort_without_a_subscriber_fails_the_later_calls) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  sib c = {.abort_at = 1};
  gql_schema *s = sib_schema(&c);
  done d;
  run_sib(t, s, "{ friends { name } }", &c, &d);
  cr_assert_eq(c.n, 1); /* the later calls never ran */
  cr_assert(strstr(d.json, "\"friends\":[{\"name\":\"n\"},{\"name\":null},"
                           "{\"name\":null}]"),
            "%s", d.json);
  cr_assert(strstr(d.json, "\"message\":\"Execution aborted.\""), "%s", d.json);
  cr_assert(strstr(d.json, "\"path\":[\"friends\",2,\"name\"]"), "%s", d.json);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- errors and events */

Test(trace, resolver_error_flags_its_span_and_adds_one_event_on_execute) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  done d;
  run_traced(t, s, "{ boom }", NULL, NULL, NULL, &d);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *b = find(&sp, "boom");
  cr_assert(b);
  cr_assert_str_eq(attr(b, "error.type"), "Error");
  cr_assert_eq(get(get(b, "status"), "code")->number.i, 2);
  cr_assert_str_eq(cs(get(get(b, "status"), "message")->string), "kaboom");
  const gql_json_value *ex = find(&sp, "query");
  cr_assert_str_eq(attr(ex, "resource.name"), "{boom}");
  cr_assert_str_eq(attr(ex, "error.type"), "GraphQLError");
  const gql_json_value *ev = get(ex, "events");
  cr_assert_eq(ev->array.count, 1);
  const gql_json_value *e = &ev->array.items[0];
  cr_assert_str_eq(cs(get(e, "name")->string), "dd.graphql.query.error");
  cr_assert(is_decimal(get(e, "timeUnixNano")->string));
  cr_assert_str_eq(attr(e, "message"), "kaboom");
  const gql_json_value *ea = get(e, "attributes");
  bool saw_loc = false, saw_path = false;
  for (size_t i = 0; i < ea->array.count; i++) {
    const gql_json_value *kv = &ea->array.items[i];
    const char *key = cs(get(kv, "key")->string);
    const gql_json_value *arr =
        gql_json_get(get(kv, "value"), GQL_STR("arrayValue"));
    if (strcmp(key, "locations") == 0) {
      saw_loc = true;
      cr_assert_str_eq(
          cs(get(&get(arr, "values")->array.items[0], "stringValue")->string),
          "1:3");
    }
    if (strcmp(key, "path") == 0) {
      saw_path = true;
      cr_assert_str_eq(
          cs(get(&get(arr, "values")->array.items[0], "stringValue")->string),
          "boom");
    }
  }
  cr_assert(saw_loc && saw_path);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, validation_errors_flag_the_validate_span_with_one_event_each) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  done d;
  run_traced(t, s, "{ nope nada }", NULL, NULL, NULL, &d);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(sp.n, 2); /* parse, validate */
  const gql_json_value *v = find(&sp, "graphql.validate");
  cr_assert_str_eq(attr(v, "error.type"), "GraphQLError");
  cr_assert_eq(get(v, "events")->array.count, 2);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- tags */

Test(trace, variables_allow_list_and_source_slices) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  const char *allow[] = {"who"};
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.variables = allow;
  o.nvariables = 1;
  o.source = true;
  done d;
  run_traced(t, s, ref_query, ref_data, "{\"who\":\"world\",\"t\":\"dr\"}", &o,
             &d);
  spans sp;
  read_spans(&k, &sp);
  const gql_json_value *ex = find(&sp, "query"), *h = find(&sp, "hello");
  cr_assert_str_eq(attr(ex, "graphql.variables.who"), "world");
  cr_assert_null(attr(ex, "graphql.variables.t"));
  cr_assert_str_eq(attr(h, "graphql.variables.who"), "world");
  cr_assert_null(attr(h, "graphql.variables.t"));
  cr_assert_str_eq(attr(ex, "graphql.source"), ref_query);
  cr_assert_str_eq(attr(ex, "graphql.document"), ref_query);
  cr_assert_str_eq(attr(find(&sp, "graphql.parse"), "graphql.source"),
                   ref_query);
  cr_assert_str_eq(attr(h, "graphql.source"), "hello(name: $who, title: $t)");
  cr_assert_str_eq(attr(find(&sp, "friends"), "graphql.source"),
                   "friends { name pets { name } }");
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- signature (tracing.md §5) */

static void sig_is(const char *doc, const char *op, const char *want) {
  gql_arena *a = gql_arena_new(NULL);
  gql_document *d;
  gql_syntax_error se;
  cr_assert_eq(gql_parse_syntax(a, doc, strlen(doc), NULL, &d, &se), 0);
  gql_str got;
  cr_assert_eq(gql_trace_signature(a, d, op, &got), 0);
  cr_assert_str_eq(got.ptr, want);
  gql_arena_free(a);
}

Test(trace, signature_examples_of_the_reference) {
  sig_is("query MyQuery { hello(name: \"world\") }", NULL,
         "query MyQuery{hello(name:\"\")}");
  sig_is("query WithFragments { human { ...firstFields } } fragment "
         "firstFields on Human { name }",
         NULL,
         "query WithFragments{human{...firstFields}}fragment firstFields on "
         "Human{name}");
  sig_is("{ boom }", NULL, "{boom}");
  sig_is(ref_query, NULL,
         "query MyQuery($t:String,$who:String){friends{name "
         "pets{name}}hello(name:$who,title:$t)}");
  sig_is("fragment F on Human { name } query Q { human { ...F } } query R { "
         "x }",
         "Q", "fragment F on Human{name}query Q{human{...F}}");
  sig_is("query Q { human { ... on Droid { a } id ...F b: name @skip(if: "
         "true) @include(if: false) } } fragment F on Human { name } fragment "
         "Unused on Human { id }",
         "Q",
         "query Q{human{id name@skip(if:true)@include(if:false)...F...on "
         "Droid{a}}}fragment F on Human{name}");
  sig_is("query ($x: Int = 5, $a: [Int]) { f(list: [1,2], obj: {a: 1}, e: "
         "RED, b: true, n: null, fl: 1.5, s: \"\"\"block\"\"\") }",
         NULL,
         "query($a:[Int],$x:Int=0){f(b:true,e:RED,fl:0,list:[],n:null,obj:{},"
         "s:\"\")}");
}

Test(trace, signature_off_falls_back_to_type_and_name) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.no_signature = true;
  done d;
  run_traced(t, s, "query WithoutSignature { hello }", ref_data, NULL, &o, &d);
  run_traced(t, s, "{ hello }", ref_data, NULL, &o, &d);
  spans sp;
  read_spans(&k, &sp);
  int seen = 0;
  for (int i = 0; i < sp.n; i++)
    if (strcmp(str(sp.items[i], "name"), "query") == 0) {
      const char *r = attr(sp.items[i], "resource.name");
      cr_assert(strcmp(r, "query WithoutSignature") == 0 ||
                strcmp(r, "query") == 0);
      seen++;
    }
  cr_assert_eq(seen, 2);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- the exporter queue */

Test(trace, a_full_queue_drops_and_counts) {
  sink k = {0};
  gql_tracer *t;
  gql_tracer_config c = {.transport = sink_send,
                         .transport_ud = &k,
                         .no_thread = true,
                         .queue_spans = 10};
  cr_assert_eq(gql_tracer_new(&c, &t), 0);
  gql_schema *s = ref_schema();
  done d;
  for (int i = 0; i < 3; i++) { /* 8 spans each; nothing exports between */
    gql_trace *tr = gql_trace_begin(t, NULL);
    gql_arena *a = gql_arena_new(NULL);
    gql_prepared *p;
    gql_prepare_options po = {.trace = tr};
    cr_assert_eq(
        gql_prepare(s, ref_query, strlen(ref_query), NULL, &po, &p, NULL), 0);
    const gql_value *root;
    gql_value_parse(a, ref_data, strlen(ref_data), &root);
    gql_trace_set_operation(tr, p, NULL, 0);
    gql_execute_params params = {.root_value = root,
                                 .trace = tr,
                                 .arena = a,
                                 .on_done = on_done,
                                 .ud = &d};
    gql_execute(p, &params);
    gql_trace_end(tr);
    gql_prepared_free(p);
    gql_arena_free(a);
  }
  gql_tracer_stats st;
  gql_tracer_stats_get(t, &st);
  cr_assert_eq(st.queued, 8);
  cr_assert_eq(st.dropped, 16);
  gql_tracer_flush(t);
  gql_tracer_stats_get(t, &st);
  cr_assert_eq(st.exported, 8);
  cr_assert_eq(k.n, 1);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

typedef struct slow {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool release;
  int calls;
} slow;

static int slow_send(void *ud, const char *json, size_t len) {
  slow *s = ud;
  pthread_mutex_lock(&s->mu);
  s->calls++;
  while (!s->release)
    pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

Test(trace, a_stuck_transport_never_blocks_requests) {
  slow sl = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
  gql_tracer *t;
  gql_tracer_config c = {.transport = slow_send,
                         .transport_ud = &sl,
                         .queue_spans = 16,
                         .batch_spans = 8,
                         .interval_ms = 1};
  cr_assert_eq(gql_tracer_new(&c, &t), 0);
  gql_schema *s = ref_schema();
  done d;
  uint64_t t0 = wall_ns();
  for (int i = 0; i < 50; i++)
    run_traced(NULL, s, "{ hello }", ref_data, NULL, NULL, &d);
  for (int i = 0; i < 50; i++) {
    gql_trace *tr = gql_trace_begin(t, NULL);
    gql_arena *a = gql_arena_new(NULL);
    gql_prepared *p;
    gql_prepare_options po = {.trace = tr};
    cr_assert_eq(gql_prepare(s, "{ hello }", 9, NULL, &po, &p, NULL), 0);
    gql_trace_set_operation(tr, p, NULL, 0);
    gql_execute_params params = {
        .trace = tr, .arena = a, .on_done = on_done, .ud = &d};
    gql_execute(p, &params);
    gql_trace_end(tr);
    gql_prepared_free(p);
    gql_arena_free(a);
  }
  uint64_t took = wall_ns() - t0;
  cr_assert_lt(took, 2000000000u, "requests waited for the exporter");
  gql_tracer_stats st;
  gql_tracer_stats_get(t, &st);
  cr_assert_gt(st.dropped, 0);
  cr_assert_leq(st.queued, 50 * 4);
  cr_assert_eq(st.queued + st.dropped, 50 * 4);
  pthread_mutex_lock(&sl.mu);
  sl.release = true;
  pthread_cond_broadcast(&sl.cv);
  pthread_mutex_unlock(&sl.mu);
  gql_tracer_free(t); /* flushes what was queued */
  gql_schema_free(s);
}

/* ---- the HTTP transport against a local collector stand-in */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct collector {
  int fd;
  int port;
  const int *statuses; /* one per connection */
  int nstatuses;
  int served;
  char last[4096];
} collector;

static void *collector_main(void *arg) {
  collector *c = arg;
  for (int i = 0; i < c->nstatuses; i++) {
    int cfd = accept(c->fd, NULL, NULL);
    if (cfd < 0)
      return NULL;
    size_t got = 0;
    for (;;) { /* headers, then Content-Length bytes */
      ssize_t r = recv(cfd, c->last + got, sizeof c->last - 1 - got, 0);
      if (r <= 0)
        break;
      got += (size_t)r;
      c->last[got] = 0;
      char *end = strstr(c->last, "\r\n\r\n");
      char *cl = strstr(c->last, "Content-Length: ");
      if (end && cl &&
          got >= (size_t)(end + 4 - c->last) + strtoul(cl + 16, NULL, 10))
        break;
    }
    char resp[128];
    int n = snprintf(resp, sizeof resp,
                     "HTTP/1.1 %d X\r\nContent-Length: 2\r\n\r\n{}",
                     c->statuses[i]);
    c->served++; /* before the answer: the client checks it on return */
    send(cfd, resp, (size_t)n, 0);
    close(cfd);
  }
  return NULL;
}

static void collector_start(collector *c, pthread_t *th) {
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  cr_assert_eq(bind(c->fd, (struct sockaddr *)&a, sizeof a), 0);
  cr_assert_eq(listen(c->fd, 8), 0);
  socklen_t len = sizeof a;
  getsockname(c->fd, (struct sockaddr *)&a, &len);
  c->port = ntohs(a.sin_port);
  pthread_create(th, NULL, collector_main, c);
}

Test(trace, http_transport_posts_json_and_retries_only_retryable_statuses) {
  static const int st[] = {503, 200, 400};
  collector c = {.statuses = st, .nstatuses = 3};
  pthread_t th;
  collector_start(&c, &th);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/traces", c.port);
  gql_trace_http h;
  cr_assert_eq(gql_trace_http_init(&h, url), 0);
  h.retries = 2;
  const char body[] = "{\"resourceSpans\":[]}";
  /* 503 is retried, then 200 */
  cr_assert_eq(gql_trace_http_transport(&h, body, sizeof body - 1), 0);
  cr_assert_eq(c.served, 2);
  cr_assert(strncmp(c.last, "POST /v1/traces HTTP/1.1\r\n", 26) == 0);
  cr_assert(strstr(c.last, "Content-Type: application/json\r\n"));
  cr_assert(strstr(c.last, "User-Agent: gql/"));
  cr_assert(strstr(c.last, body));
  /* 400 is not */
  cr_assert_lt(gql_trace_http_transport(&h, body, sizeof body - 1), 0);
  pthread_join(th, NULL);
  cr_assert_eq(c.served, 3);
  close(c.fd);
}

Test(trace, http_url_must_be_plain_http) {
  gql_trace_http h;
  cr_assert_eq(gql_trace_http_init(&h, "http://collector"), 0);
  cr_assert_str_eq(h.port, "4318");
  cr_assert_str_eq(h.path, "/v1/traces");
  cr_assert_eq(gql_trace_http_init(&h, "https://collector"), GQL_EINVAL);
  cr_assert_eq(gql_trace_http_init(&h, "http://:80/x"), GQL_EINVAL);
  cr_assert_eq(gql_trace_http_init(&h, "http://h:80x"), GQL_EINVAL);
}

Test(trace, otlp_strings_are_escaped_and_invalid_utf8_replaced) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  done d;
  run_traced(t, s, "{ weird }", NULL, NULL, NULL, &d);
  spans sp;
  read_spans(&k, &sp); /* parses: the JSON is valid */
  const gql_json_value *w = find(&sp, "weird");
  cr_assert(w);
  cr_assert_str_eq(cs(get(get(w, "status"), "message")->string),
                   "say \"hi\"\n\xef\xbf\xbd");
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, http_endpoint_from_the_otel_variables) {
  gql_trace_http h;
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4000/", 1);
  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "250", 1);
  cr_assert_eq(gql_trace_http_from_env(&h), 0);
  cr_assert_str_eq(h.host, "collector");
  cr_assert_str_eq(h.port, "4000");
  cr_assert_str_eq(h.path, "/v1/traces");
  cr_assert_eq(h.timeout_ms, 250);
  setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:9/t", 1);
  cr_assert_eq(gql_trace_http_from_env(&h), 0);
  cr_assert_str_eq(h.port, "9");
  cr_assert_str_eq(h.path, "/t");
}

Test(trace, without_the_operation_only_the_execute_span_is_made) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  gql_trace_options o;
  gql_trace_options_init(&o);
  o.no_collapse = true;
  gql_trace *tr = gql_trace_begin(t, &o);
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, "{ hello }", 9, NULL, NULL, &p, NULL), 0);
  done d;
  gql_execute_params params = {
      .trace = tr, .arena = a, .on_done = on_done, .ud = &d};
  cr_assert_eq(gql_execute(p, &params), 0);
  gql_trace_end(tr);
  gql_tracer_flush(t);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(sp.n, 1);
  cr_assert_eq(count_resolve(&sp), 0);
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* ---- the executor's stamp entries (gql_hooks.stamps), without the tracer */

typedef struct stamp_hooks {
  int starts, finishes;
  uint64_t clock;
} stamp_hooks;

static int sh_start(void *ctx, const gql_resolve_info *info) {
  ((stamp_hooks *)ctx)->starts++;
  return 0;
}
static void sh_finish(void *ctx, const gql_resolve_info *info) {
  ((stamp_hooks *)ctx)->finishes++;
}
static uint64_t sh_now(void *ctx) {
  return ++((stamp_hooks *)ctx)->clock;
}

/* Runs "{ friends { name } boom }" on the reference schema with the
 * stamp_hooks above and `ncalls` entries of `calls` and `stamps`; checks
 * the response's friends. */
static void run_stamped(uint8_t *calls, uint32_t ncalls, uint64_t *stamps,
                        uint64_t *starts, stamp_hooks *c) {
  gql_schema *s = ref_schema();
  gql_arena *a = gql_arena_new(NULL);
  const char q[] = "{ friends { name } boom }";
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, sizeof q - 1, NULL, NULL, &p, NULL), 0);
  cr_assert_eq(p->nplanned, 3);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, ref_data, strlen(ref_data), &root), 0);
  gql_exec_hooks h = {
      .pub = {.resolve_start = sh_start, .resolve_finish = sh_finish, .ctx = c},
      .calls = calls,
      .ncalls = ncalls,
      .stamps = stamps,
      .now = sh_now,
      .starts = starts};
  done d;
  gql_execute_params params = {
      .root_value = root, .arena = a, .on_done = on_done, .ud = &d};
  cr_assert_eq(gql_exec_run(p, &params, &h), 0);
  cr_assert(strstr(d.json, "\"friends\":[{\"name\":\"a\"},{\"name\":\"b\"}]"),
            "%s", d.json);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(trace, stamp_entries_take_a_clock_read_instead_of_resolve_finish) {
  uint8_t calls[3];
  memset(calls, GQL_HOOK_STAMP, sizeof calls);
  uint64_t stamps[3] = {0};
  stamp_hooks c = {0};
  run_stamped(calls, 3, stamps, NULL, &c);
  /* completions: name (1), name (2), friends (3); boom fails: its
   * resolve_finish, no stamp */
  cr_assert_eq(c.starts, 0);
  cr_assert_eq(c.finishes, 1);
  cr_assert_eq(c.clock, 3);
  int zero = 0;
  uint64_t sum = 0;
  for (int i = 0; i < 3; i++) {
    zero += stamps[i] == 0;
    sum += stamps[i];
  }
  cr_assert_eq(zero, 1);
  cr_assert_eq(sum, 2 + 3); /* the last name completion, then friends' */
}

Test(trace, answers_fewer_than_the_planned_fields_are_not_read) {
  /* two entries saying "no hook" for three planned fields: ignored, as if
   * there were none (every call gets both hooks) */
  uint8_t calls[2] = {0, 0};
  uint64_t stamps[2] = {0};
  stamp_hooks c = {0};
  run_stamped(calls, 2, stamps, NULL, &c);
  /* friends, name twice, boom */
  cr_assert_eq(c.starts, 4);
  cr_assert_eq(c.finishes, 4);
  cr_assert_eq(c.clock, 0);
}

Test(trace, entry_entries_stamp_the_first_call_instead_of_resolve_start) {
  /* friends, name and boom (ordinals in planning order: friends, its
   * name, boom) each stamp their first call's entry and then need: a
   * completion stamp (friends), nothing (name, boom) */
  uint8_t calls[3] = {GQL_HOOK_ENTRY | GQL_HOOK_STAMP, GQL_HOOK_ENTRY,
                      GQL_HOOK_ENTRY};
  uint64_t stamps[3] = {0}, starts[3] = {0};
  stamp_hooks c = {0};
  run_stamped(calls, 3, stamps, starts, &c);
  /* friends' entry (1), the first name's entry (2), friends' completion
   * (3), boom's entry (4); the second name: nothing; boom fails: its
   * resolve_finish */
  cr_assert_eq(c.starts, 0);
  cr_assert_eq(c.finishes, 1);
  cr_assert_eq(c.clock, 4);
  cr_assert_eq(starts[0], 1);
  cr_assert_eq(starts[1], 2);
  cr_assert_eq(starts[2], 4);
  cr_assert_eq(stamps[0], 3);
  cr_assert_eq(stamps[1], 0);
  cr_assert_eq(stamps[2], 0);
  /* the entry bits are cleared: once per planned field */
  cr_assert_eq(calls[0], GQL_HOOK_STAMP);
  cr_assert_eq(calls[1], 0);
  cr_assert_eq(calls[2], 0);
}

/* resolve_finish recording each call's error (NULL: none). */
typedef struct error_hooks {
  int starts, finishes;
  uint64_t clock;
  const char *errors[8];
} error_hooks;

static int eh_start(void *ctx, const gql_resolve_info *info) {
  ((error_hooks *)ctx)->starts++;
  return 0;
}
static uint64_t eh_now(void *ctx) {
  return ++((error_hooks *)ctx)->clock;
}

static void eh_finish(void *ctx, const gql_resolve_info *info) {
  error_hooks *e = ctx;
  if (e->finishes < 8)
    e->errors[e->finishes] = gql_exec_info_error(info);
  e->finishes++;
}

Test(trace, an_error_in_a_hook_free_call_after_clean_siblings_gets_finish) {
  /* every call hook-free: only the two that fail get resolve_finish, each
   * with its own error, and not the clean calls before and after them */
  gql_schema *s = ref_schema();
  gql_arena *a = gql_arena_new(NULL);
  const char q[] = "{ hello boom h2: hello weird h3: hello }";
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, sizeof q - 1, NULL, NULL, &p, NULL), 0);
  cr_assert_eq(p->nplanned, 5);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, ref_data, strlen(ref_data), &root), 0);
  uint8_t calls[5] = {0};
  uint64_t stamps[5] = {0};
  error_hooks e = {0};
  gql_exec_hooks h = {.pub = {.resolve_start = eh_start,
                              .resolve_finish = eh_finish,
                              .ctx = &e},
                      .calls = calls,
                      .ncalls = 5,
                      .stamps = stamps,
                      .now = eh_now};
  done d;
  gql_execute_params params = {
      .root_value = root, .arena = a, .on_done = on_done, .ud = &d};
  cr_assert_eq(gql_exec_run(p, &params, &h), 0);
  cr_assert(strstr(d.json, "\"data\":{\"hello\":\"hi\",\"boom\":null,"
                           "\"h2\":\"hi\",\"weird\":null,\"h3\":\"hi\"}"),
            "%s", d.json);
  cr_assert_eq(e.starts, 0);
  cr_assert_eq(e.clock, 0);
  cr_assert_eq(e.finishes, 2);
  cr_assert_str_eq(e.errors[0], "kaboom");
  cr_assert_str_eq(e.errors[1], "say \"hi\"\n\xff");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(trace, stamp_answers_without_stamps_read_no_clock) {
  /* GQL_HOOK_STAMP entries with no stamps to write: no clock read and no
   * store through a NULL stamps array; the calls are hook-free but for
   * their errors */
  uint8_t calls[3];
  memset(calls, GQL_HOOK_STAMP, sizeof calls);
  stamp_hooks c = {0};
  run_stamped(calls, 3, NULL, NULL, &c);
  cr_assert_eq(c.starts, 0);
  cr_assert_eq(c.finishes, 1); /* boom's error still reaches the tracer */
  cr_assert_eq(c.clock, 0);
}

/* The index of the span of `what` in the export order. */
static int span_index(spans *sp, const char *what) {
  const gql_json_value *v = find(sp, what);
  cr_assert(v, "no span %s", what);
  for (int i = 0; i < sp->n; i++)
    if (sp->items[i] == v)
      return i;
  return -1;
}

Test(trace, spans_keep_the_order_of_first_calls_not_of_the_plan) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  /* the first human has no pets: pets.*.name (planned before name) is
   * first called under the second human, after name */
  const char data[] = "{\"friends\":[{\"name\":\"a\",\"pets\":[]},{\"name\":"
                      "\"b\",\"pets\":[{\"name\":\"q\"}]}]}";
  for (int run = 0; run < 2; run++) { /* the second with the memo */
    done d;
    run_traced(t, s, "{ friends { pets { name } name } }", data, NULL, NULL,
               &d);
    cr_assert_str_eq(d.json,
                     "{\"data\":{\"friends\":[{\"pets\":[],\"name\":\"a\"},{"
                     "\"pets\":[{\"name\":\"q\"}],\"name\":\"b\"}]}}");
    spans sp;
    read_spans(&k, &sp);
    cr_assert_eq(count_resolve(&sp), 3 + 1);
    assert_parent(&sp, "friends.*.pets.*.name", "friends.*.pets");
    assert_parent(&sp, "friends.*.pets", "friends");
    assert_parent(&sp, "friends.*.name", "friends");
    assert_parent(&sp, "friends", "query");
    int q = span_index(&sp, "query"), f = span_index(&sp, "friends"),
        pe = span_index(&sp, "friends.*.pets"),
        na = span_index(&sp, "friends.*.name"),
        pn = span_index(&sp, "friends.*.pets.*.name");
    cr_assert(q < f && f < pe && pe < na && na < pn,
              "order %d %d %d %d %d (run %d)", q, f, pe, na, pn, run);
    cr_assert_lt(ns_of(sp.items[na], "startTimeUnixNano"),
                 ns_of(sp.items[pn], "startTimeUnixNano"));
    gql_arena_free(sp.arena);
    sink_free(&k);
    k.n = 0;
  }
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, a_field_under_an_abstract_type_joins_the_spans_made_before_it) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  const char sdl[] = "type Query { hello: String items: [Node] }\n"
                     "interface Node { id: String }\n"
                     "type A implements Node { id: String x: String }\n"
                     "type B implements Node { id: String y: String }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  const char data[] =
      "{\"hello\":\"hi\",\"items\":[{\"__typename\":\"B\",\"id\":\"1\","
      "\"y\":\"u\"},{\"__typename\":\"A\",\"id\":\"2\",\"x\":\"v\"}]}";
  for (int run = 0; run < 2; run++) {
    done d;
    run_traced(t, s, "{ hello items { id ... on A { x } ... on B { y } } }",
               data, NULL, NULL, &d);
    cr_assert_str_eq(d.json,
                     "{\"data\":{\"hello\":\"hi\",\"items\":[{\"id\":\"1\","
                     "\"y\":\"u\"},{\"id\":\"2\",\"x\":\"v\"}]}}");
    spans sp;
    read_spans(&k, &sp);
    /* hello, items, items.*.id (one for both types), items.*.y, items.*.x */
    cr_assert_eq(count_resolve(&sp), 5, "run %d", run);
    assert_parent(&sp, "hello", "query");
    assert_parent(&sp, "items", "query");
    assert_parent(&sp, "items.*.id", "items");
    assert_parent(&sp, "items.*.x", "items");
    assert_parent(&sp, "items.*.y", "items");
    int h = span_index(&sp, "hello"), it = span_index(&sp, "items"),
        id = span_index(&sp, "items.*.id"), y = span_index(&sp, "items.*.y"),
        x = span_index(&sp, "items.*.x");
    cr_assert(h < it && it < id && id < y && y < x, "order %d %d %d %d %d", h,
              it, id, y, x);
    /* items ends at its call's completion, after its children's */
    const gql_json_value *isp = sp.items[it], *xsp = sp.items[x];
    cr_assert_geq(ns_of(isp, "endTimeUnixNano"), ns_of(xsp, "endTimeUnixNano"));
    cr_assert_geq(ns_of(xsp, "endTimeUnixNano"),
                  ns_of(xsp, "startTimeUnixNano"));
    gql_arena_free(sp.arena);
    sink_free(&k);
    k.n = 0;
  }
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, a_pooled_trace_answers_per_depth_for_the_same_operation) {
  /* one tracer (one pooled trace), one prepared operation, the depth
   * changing between requests: the answers remembered for the operation
   * must not outlive the depth they were made for */
  gql_schema *s = NULL;
  cr_assert_eq(
      gql_schema_from_sdl(deep_sdl, sizeof deep_sdl - 1, NULL, &s, NULL), 0);
  char *data = deep_data();
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p = NULL;
  cr_assert_eq(
      gql_prepare(s, deep_query, sizeof deep_query - 1, NULL, NULL, &p, NULL),
      0);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, data, strlen(data), &root), 0);
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  const int depths[] = {-1, 2, -1, 1, 3, -1, 0, -1};
  const int want[] = {9, 4, 9, 1, 7, 9, 0, 9};
  for (int i = 0; i < 8; i++) {
    gql_trace_options o;
    gql_trace_options_init(&o);
    o.depth = depths[i];
    gql_trace *tr = gql_trace_begin(t, &o);
    gql_trace_set_operation(tr, p, NULL, 0);
    done d;
    gql_execute_params params = {
        .root_value = root, .trace = tr, .on_done = on_done, .ud = &d};
    cr_assert_eq(gql_execute(p, &params), 0);
    gql_trace_end(tr);
    gql_tracer_flush(t);
    cr_assert(strncmp(d.json, "{\"data\":{\"authors\":[{\"id\":\"a0\"", 30) ==
                  0,
              "%.80s", d.json);
    spans sp;
    read_spans(&k, &sp);
    cr_assert_eq(count_resolve(&sp), want[i], "request %d (depth %d)", i,
                 depths[i]);
    if (want[i] >= 7) {
      assert_parent(&sp, "authors.*.posts.*.comments", "authors.*.posts");
      assert_parent(&sp, "authors.*.posts", "authors");
    }
    if (want[i] == 9)
      assert_parent(&sp, "authors.*.posts.*.comments.*.body",
                    "authors.*.posts.*.comments");
    gql_arena_free(sp.arena);
    sink_free(&k);
    k.n = 0;
  }
  gql_tracer_free(t);
  gql_prepared_free(p);
  gql_arena_free(a);
  free(data);
  gql_schema_free(s);
}

/* ---- a pooled trace remembers its last operation's plan facts */

/* Runs the prepared p traced with options o (NULL: the defaults) on
 * ref_data. */
static void run_prepared_with(gql_tracer *t, gql_prepared *p,
                              const gql_trace_options *o) {
  gql_trace *tr = gql_trace_begin(t, o);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, ref_data, strlen(ref_data), &root), 0);
  gql_trace_set_operation(tr, p, NULL, 0);
  done d;
  gql_execute_params params = {.root_value = root,
                               .trace = tr,
                               .arena = a,
                               .on_done = on_done,
                               .ud = &d};
  cr_assert_eq(gql_execute(p, &params), 0);
  gql_trace_end(tr);
  gql_arena_free(a);
  gql_tracer_flush(t);
}

static void run_prepared(gql_tracer *t, gql_prepared *p) {
  run_prepared_with(t, p, NULL);
}

Test(trace, one_trace_reused_for_another_operation_makes_its_own_tree) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  /* the same plan size, another order: the planned fields' ordinals mean
   * other fields */
  const char qa[] = "{ friends { name pets { name } } }";
  const char qb[] = "{ friends { pets { name } name } }";
  gql_prepared *pa, *pb;
  cr_assert_eq(gql_prepare(s, qa, sizeof qa - 1, NULL, NULL, &pa, NULL), 0);
  cr_assert_eq(gql_prepare(s, qb, sizeof qb - 1, NULL, NULL, &pb, NULL), 0);
  gql_prepared *order[] = {pa, pa, pb, pa, pa, pb, pb};
  for (int i = 0; i < 7; i++) {
    run_prepared(t, order[i]);
    spans sp;
    read_spans(&k, &sp);
    cr_assert_eq(count_resolve(&sp), 4, "run %d", i);
    assert_parent(&sp, "friends.*.pets.*.name", "friends.*.pets");
    assert_parent(&sp, "friends.*.pets", "friends");
    assert_parent(&sp, "friends.*.name", "friends");
    assert_parent(&sp, "friends", "query");
    /* (selections sorted: one signature for both) */
    cr_assert_str_eq(attr(find(&sp, "query"), "resource.name"),
                     "{friends{name pets{name}}}");
    gql_arena_free(sp.arena);
    sink_free(&k);
    k.n = 0;
  }
  gql_prepared_free(pa);
  gql_prepared_free(pb);
  gql_tracer_free(t);
  gql_schema_free(s);
}

static int sh_abort(void *ctx, const gql_resolve_info *info) {
  ((stamp_hooks *)ctx)->starts++;
  return 1;
}

Test(trace, an_abort_from_resolve_start_fails_later_calls_the_entries_skip) {
  gql_schema *s = ref_schema();
  gql_arena *a = gql_arena_new(NULL);
  const char q[] = "{ hello friends { name } }";
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, sizeof q - 1, NULL, NULL, &p, NULL), 0);
  cr_assert_eq(p->nplanned, 3);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, ref_data, strlen(ref_data), &root), 0);
  /* hello's call asks (and aborts); friends and name need no hook */
  uint8_t calls[3] = {0};
  calls[p->root->fields[0].ordinal] = GQL_HOOK_START | GQL_HOOK_FINISH;
  stamp_hooks c = {0};
  gql_exec_hooks h = {.pub = {.resolve_start = sh_abort,
                              .resolve_finish = sh_finish,
                              .ctx = &c},
                      .calls = calls,
                      .ncalls = 3};
  done d;
  gql_execute_params params = {
      .root_value = root, .arena = a, .on_done = on_done, .ud = &d};
  cr_assert_eq(gql_exec_run(p, &params, &h), 0);
  /* hello aborted; friends, whose entry says "no hook", still fails */
  cr_assert_str_eq(
      d.json, "{\"errors\":[{\"message\":\"Execution aborted.\","
              "\"locations\":[{\"line\":1,\"column\":3}],\"path\":["
              "\"hello\"]},{\"message\":\"Execution aborted.\","
              "\"locations\":[{\"line\":1,\"column\":9}],\"path\":["
              "\"friends\"]}],\"data\":{\"hello\":null,\"friends\":null}}");
  /* both calls reported, the later one through resolve_start too */
  cr_assert_eq(c.starts, 2);
  cr_assert_eq(c.finishes, 2);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(trace, aliased_fields_have_their_key_in_the_path_and_their_name_as_field) {
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  done d;
  run_traced(t, s, "{ pals: friends { nick: name name } }", ref_data, NULL,
             NULL, &d);
  spans sp;
  read_spans(&k, &sp);
  cr_assert_eq(count_resolve(&sp), 3);
  const gql_json_value *nick = find(&sp, "pals.*.nick");
  cr_assert(nick);
  cr_assert_str_eq(attr(nick, "graphql.field.name"), "name");
  cr_assert_str_eq(attr(nick, "resource.name"), "name:String");
  assert_parent(&sp, "pals.*.nick", "pals");
  assert_parent(&sp, "pals.*.name", "pals");
  cr_assert_str_eq(attr(find(&sp, "pals"), "graphql.field.name"), "friends");
  cr_assert_str_eq(attr(find(&sp, "pals"), "resource.name"), "friends:[Human]");
  gql_arena_free(sp.arena);
  sink_free(&k);
  gql_tracer_free(t);
  gql_schema_free(s);
}

Test(trace, records_by_reference_and_inline_agree_across_many_operations) {
  /* more operations than the tracer pins (a fixed number of slots): some
   * requests' records refer to pinned bytes, others carry them; each
   * request's spans must be its own operation's (the alias is the key) */
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root = NULL;
  cr_assert_eq(gql_value_parse(a, ref_data, strlen(ref_data), &root), 0);
  enum { NOPS = 160 };
  gql_prepared *ps[NOPS];
  for (int i = 0; i < NOPS; i++) {
    char q[128];
    snprintf(q, sizeof q, "{ f%d: friends { n%d: name pets { name } } }", i, i);
    ps[i] = NULL;
    cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &ps[i], NULL), 0);
  }
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < NOPS; i++) {
      run_prepared(t, ps[i]);
      spans sp;
      read_spans(&k, &sp);
      char f[32], n[48], pn[64], pnn[80];
      snprintf(f, sizeof f, "f%d", i);
      snprintf(n, sizeof n, "f%d.*.n%d", i, i);
      snprintf(pn, sizeof pn, "f%d.*.pets", i);
      snprintf(pnn, sizeof pnn, "f%d.*.pets.*.name", i);
      cr_assert_eq(count_resolve(&sp), 4, "op %d", i);
      assert_parent(&sp, f, "query");
      assert_parent(&sp, n, f);
      assert_parent(&sp, pn, f);
      assert_parent(&sp, pnn, pn);
      cr_assert_str_eq(attr(find(&sp, n), "graphql.field.name"), "name");
      cr_assert_str_eq(attr(find(&sp, pn), "graphql.field.type"), "Pet");
      cr_assert_str_eq(str(find(&sp, pn), "name"), "graphql.resolve");
      gql_arena_free(sp.arena);
      sink_free(&k);
      k.n = 0;
    }
  for (int i = 0; i < NOPS; i++)
    gql_prepared_free(ps[i]);
  gql_tracer_free(t);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(trace, execute_span_from_the_operations_image_is_each_requests_own) {
  /* a pooled trace keeps the execute span's record (name, resource, tags)
   * per operation and signature setting: requests that alternate
   * operations and no_signature must each get their own, with their own
   * times */
  sink k = {0};
  gql_tracer *t = test_tracer(&k);
  gql_schema *s = ref_schema();
  static const char *const qs[] = {
      "query Alpha { friends { name pets { name } } }",
      "query Beta { friends { pets { name } name } }", "{ friends { name } }"};
  gql_prepared *ps[3];
  for (int i = 0; i < 3; i++) {
    ps[i] = NULL;
    cr_assert_eq(gql_prepare(s, qs[i], strlen(qs[i]), NULL, NULL, &ps[i], NULL),
                 0);
  }
  static const char *const names[] = {"Alpha", "Beta", NULL};
  char sig[3][256] = {{0}};
  /* op, no_signature */
  static const int seq[][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 1}, {0, 1},
                               {1, 0}, {1, 0}, {1, 0}, {0, 0}, {0, 0},
                               {0, 1}, {2, 0}, {2, 0}, {2, 0}, {2, 1},
                               {2, 1}, {0, 0}, {0, 1}, {0, 0}};
  uint64_t last_start = 0;
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
    int op = seq[i][0];
    gql_trace_options o;
    gql_trace_options_init(&o);
    o.no_signature = seq[i][1];
    run_prepared_with(t, ps[op], &o);
    spans sp;
    read_spans(&k, &sp);
    const gql_json_value *ex = find(&sp, "query");
    cr_assert(ex, "request %zu: no execute span", i);
    if (names[op])
      cr_assert_str_eq(attr(ex, "graphql.operation.name"), names[op]);
    else
      cr_assert_null(attr(ex, "graphql.operation.name"));
    cr_assert_str_eq(attr(ex, "graphql.operation.type"), "query");
    const char *res = attr(ex, "resource.name");
    cr_assert(res, "request %zu", i);
    if (seq[i][1]) {
      char want[64];
      snprintf(want, sizeof want, names[op] ? "query %s" : "query", names[op]);
      cr_assert_str_eq(res, want, "request %zu", i);
    } else {
      cr_assert(strchr(res, '{'), "request %zu: %s", i, res);
      cr_assert(!names[op] || strstr(res, names[op]), "request %zu: %s", i,
                res);
      if (!sig[op][0])
        snprintf(sig[op], sizeof sig[op], "%s", res);
      cr_assert_str_eq(res, sig[op], "request %zu", i);
    }
    /* its own times: after the last request's, around its resolve spans */
    uint64_t st = ns_of(ex, "startTimeUnixNano");
    uint64_t en = ns_of(ex, "endTimeUnixNano");
    cr_assert_gt(st, last_start, "request %zu", i);
    cr_assert_geq(en, st);
    last_start = st;
    for (int j = 0; j < sp.n; j++) {
      if (strcmp(str(sp.items[j], "name"), "graphql.resolve") != 0)
        continue;
      cr_assert_geq(ns_of(sp.items[j], "startTimeUnixNano"), st);
      cr_assert_leq(ns_of(sp.items[j], "endTimeUnixNano"), en);
    }
    assert_parent(&sp, "friends", "query");
    gql_arena_free(sp.arena);
    sink_free(&k);
    k.n = 0;
  }
  cr_assert_str_neq(sig[0], sig[1]);
  for (int i = 0; i < 3; i++)
    gql_prepared_free(ps[i]);
  gql_tracer_free(t);
  gql_schema_free(s);
}

/* A trace and an embedder's hooks are one or the other: the executor
 * speaks the tracer's protocol through the trace, the public callbacks
 * through the hooks. */
Test(trace, a_trace_and_hooks_together_are_refused) {
  gql_schema *s = ref_schema();
  gql_trace *tr = gql_trace_begin(NULL, NULL);
  cr_assert(tr);
  gql_arena *a = gql_arena_new(NULL);
  stamp_hooks c = {0};
  gql_hooks h = {.resolve_start = sh_start, .ctx = &c};
  gql_prepared *p = NULL;
  gql_prepare_options both = {.hooks = &h, .trace = tr};
  cr_assert_eq(gql_prepare(s, "{ boom }", 8, NULL, &both, &p, NULL),
               GQL_EINVAL);
  cr_assert_null(p);
  cr_assert_eq(gql_prepare(s, "{ boom }", 8, NULL, NULL, &p, NULL), 0);
  done d = {0};
  gql_execute_params params = {
      .hooks = &h, .trace = tr, .arena = a, .on_done = on_done, .ud = &d};
  cr_assert_eq(gql_execute(p, &params), GQL_EINVAL);
  cr_assert_eq(c.starts, 0);
  params.trace = NULL; /* the hooks alone: every call gets resolve_start */
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(c.starts, 1);
  gql_trace_end(tr);
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}
