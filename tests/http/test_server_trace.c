/* Tracing in the HTTP server (gql_http_options.tracer): a pending field's
 * resolve span ends when its timer completes it, a client that leaves while
 * its field pends still gets its trace ended and exported, and the tracer
 * used from several threads at once (begin, hooks, end, flush, stats)
 * accounts for every span. */
#include "gql_http.h"
#include "later.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- a transport that keeps the batches */

typedef struct sink {
  pthread_mutex_t mu;
  char *data; /* batches, one a line */
  size_t len;
  unsigned batches;
  bool refuse; /* answer every batch with an error */
} sink;

static int sink_transport(void *ud, const char *json, size_t len) {
  sink *k = ud;
  pthread_mutex_lock(&k->mu);
  k->batches++;
  if (!k->refuse) {
    k->data = realloc(k->data, k->len + len + 2);
    cr_assert(k->data);
    memcpy(k->data + k->len, json, len);
    k->len += len;
    k->data[k->len++] = '\n';
    k->data[k->len] = 0;
  }
  pthread_mutex_unlock(&k->mu);
  return k->refuse ? GQL_EIO : 0;
}

/* The spans of every batch: calls fn(span) for each. */
static void each_span(sink *k, gql_arena *a,
                      void (*fn)(const gql_value *span, void *ud), void *ud) {
  char *p = k->data;
  while (p && *p) {
    char *nl = strchr(p, '\n');
    const gql_value *b;
    cr_assert_eq(gql_value_parse(a, p, (size_t)(nl - p), &b), 0);
    const gql_value *rs = gql_value_get(b, "resourceSpans", 13);
    for (size_t i = 0; i < gql_value_count(rs); i++) {
      const gql_value *ss =
          gql_value_get(gql_value_item(rs, i), "scopeSpans", 10);
      for (size_t j = 0; j < gql_value_count(ss); j++) {
        const gql_value *spans =
            gql_value_get(gql_value_item(ss, j), "spans", 5);
        for (size_t m = 0; m < gql_value_count(spans); m++)
          fn(gql_value_item(spans, m), ud);
      }
    }
    p = nl + 1;
  }
}

static gql_str str_of(const gql_value *obj, const char *key) {
  const gql_value *v = gql_value_get(obj, key, strlen(key));
  return v ? gql_value_string(v) : (gql_str){"", 0};
}

static gql_str attr_of(const gql_value *span, const char *key) {
  const gql_value *attrs = gql_value_get(span, "attributes", 10);
  for (size_t i = 0; i < gql_value_count(attrs); i++) {
    const gql_value *kv = gql_value_item(attrs, i);
    gql_str k = str_of(kv, "key");
    if (k.len == strlen(key) && memcmp(k.ptr, key, k.len) == 0)
      return str_of(gql_value_get(kv, "value", 5), "stringValue");
  }
  return (gql_str){"", 0};
}

static bool is(gql_str s, const char *c) {
  return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}

static uint64_t num_of(const gql_value *span, const char *key) {
  gql_str s = str_of(span, key);
  char buf[32] = {0};
  cr_assert(s.len > 0 && s.len < sizeof buf);
  memcpy(buf, s.ptr, s.len);
  return strtoull(buf, NULL, 10);
}

/* ---- the server */

static void now_field(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "now", 3);
}

typedef struct fixture {
  sink k;
  gql_tracer *tracer;
  gql_schema *schema;
  gql_http_server *srv;
} fixture;

static void start(fixture *f) {
  memset(f, 0, sizeof *f);
  pthread_mutex_init(&f->k.mu, NULL);
  gql_tracer_config tc = {.transport = sink_transport, .transport_ud = &f->k};
  cr_assert_eq(gql_tracer_new(&tc, &f->tracer), 0);
  static const char sdl[] =
      "type Query { later(ms: Int = 10): String now: String }";
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &f->schema, NULL),
               0);
  cr_assert_eq(
      gql_schema_set_resolver(f->schema, "Query", "later", later, NULL, 0), 0);
  cr_assert_eq(gql_schema_set_resolver(f->schema, "Query", "now", now_field,
                                       NULL, GQL_RESOLVER_SYNC),
               0);
  gql_http_options o = {.port = -1, .threads = 2, .tracer = f->tracer};
  cr_assert_eq(gql_http_server_new(f->schema, &o, &f->srv), 0);
  cr_assert_eq(gql_http_server_start(f->srv), 0);
}

/* Stops the server (every request ends), flushes, returns the stats. */
static gql_tracer_stats stop(fixture *f) {
  gql_http_server_stop(f->srv);
  gql_http_server_wait(f->srv);
  gql_tracer_flush(f->tracer);
  gql_tracer_stats st;
  gql_tracer_stats_get(f->tracer, &st);
  return st;
}

static void finish(fixture *f) {
  gql_http_server_free(f->srv);
  gql_tracer_free(f->tracer);
  gql_schema_free(f->schema);
  free(f->k.data);
  pthread_mutex_destroy(&f->k.mu);
}

static int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  struct timeval tv = {.tv_sec = 5};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static void send_post(int fd, const char *body) {
  char req[512];
  int n = snprintf(req, sizeof req,
                   "POST /graphql HTTP/1.1\r\nContent-Type: application/json"
                   "\r\nContent-Length: %zu\r\n\r\n%s",
                   strlen(body), body);
  cr_assert_eq(write(fd, req, (size_t)n), n);
}

/* Reads one response (headers and body) into buf; its length. */
static size_t read_response(int fd, char *buf, size_t cap) {
  size_t len = 0;
  for (;;) {
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    cr_assert_gt(r, 0, "no response");
    len += (size_t)r;
    buf[len] = 0;
    char *end = strstr(buf, "\r\n\r\n");
    char *cl = strstr(buf, "Content-Length: ");
    if (end && cl &&
        (size_t)(end + 4 - buf) + strtoul(cl + 16, NULL, 10) <= len)
      return len;
  }
}

typedef struct seen {
  unsigned parse, validate, execute, resolve;
  uint64_t later_ns, exec_ns;
  gql_str trace_id;
  bool one_trace;
} seen;

static void count_span(const gql_value *s, void *ud) {
  seen *n = ud;
  gql_str name = str_of(s, "name"), tid = str_of(s, "traceId");
  if (!n->trace_id.len)
    n->trace_id = tid, n->one_trace = true;
  else if (tid.len != n->trace_id.len ||
           memcmp(tid.ptr, n->trace_id.ptr, tid.len) != 0)
    n->one_trace = false;
  uint64_t d = num_of(s, "endTimeUnixNano") - num_of(s, "startTimeUnixNano");
  if (is(name, "graphql.parse"))
    n->parse++;
  else if (is(name, "graphql.validate"))
    n->validate++;
  else if (is(name, "graphql.resolve")) {
    n->resolve++;
    if (is(attr_of(s, "graphql.field.path"), "later"))
      n->later_ns = d;
  } else {
    n->execute++;
    n->exec_ns = d;
  }
}

Test(http_server_trace, pending_field_span_lasts_until_its_timer_completes) {
  fixture f;
  start(&f);
  int fd = dial(gql_http_server_port(f.srv));
  send_post(fd, "{\"query\":\"{ later(ms: 60) now }\"}");
  char buf[4096];
  read_response(fd, buf, sizeof buf);
  cr_assert(strstr(buf, "{\"data\":{\"later\":\"later\",\"now\":\"now\"}}"),
            "%s", buf);
  close(fd);
  gql_tracer_stats st = stop(&f);
  cr_assert_eq(st.queued, 5); /* parse, validate, execute, later, now */
  cr_assert_eq(st.exported, 5);
  cr_assert_eq(st.pending, 0);
  gql_arena *a = gql_arena_new(NULL);
  seen n = {0};
  each_span(&f.k, a, count_span, &n);
  cr_assert(n.one_trace);
  cr_assert_eq(n.parse, 1);
  cr_assert_eq(n.validate, 1);
  cr_assert_eq(n.execute, 1);
  cr_assert_eq(n.resolve, 2);
  cr_assert_geq(n.later_ns, 50000000u, "later's span: %llu ns",
                (unsigned long long)n.later_ns);
  cr_assert_geq(n.exec_ns, n.later_ns);
  gql_arena_free(a);
  finish(&f);
}

Test(http_server_trace, client_leaving_while_its_field_pends_still_ends_trace) {
  fixture f;
  start(&f);
  int fd = dial(gql_http_server_port(f.srv));
  send_post(fd, "{\"query\":\"{ later(ms: 80) }\"}");
  usleep(20000);
  close(fd); /* gone before the field completes */
  /* A second request on the same document: a cache hit on that worker, or
   * a miss on the other one. */
  fd = dial(gql_http_server_port(f.srv));
  send_post(fd, "{\"query\":\"{ later(ms: 1) }\"}");
  char buf[4096];
  read_response(fd, buf, sizeof buf);
  close(fd);
  /* The first one completes on its timer: its 4 spans and the second's 2
   * or 4 make at least 6 queued, whatever the machine's load. */
  for (int i = 0; i < 500; i++) {
    gql_tracer_stats now;
    gql_tracer_stats_get(f.tracer, &now);
    if (now.queued >= 6)
      break;
    usleep(10000);
  }
  gql_tracer_stats st = stop(&f);
  gql_arena *a = gql_arena_new(NULL);
  seen n = {0};
  each_span(&f.k, a, count_span, &n);
  cr_assert_eq(n.execute, 2, "both requests traced");
  cr_assert_eq(n.resolve, 2);
  cr_assert(n.parse == 1 || n.parse == 2);
  cr_assert_eq(n.validate, n.parse);
  cr_assert_eq(st.queued, 4 + 2 * n.parse);
  cr_assert_eq(st.exported, st.queued);
  cr_assert_eq(st.pending, 0);
  gql_arena_free(a);
  finish(&f); /* a trace not ended would leak (LeakSanitizer) */
}

/* ---- the tracer from several threads */

typedef struct counter {
  atomic_ulong accepted, refused, calls;
} counter;

/* Counts the spans of each batch; refuses every third batch. */
static int count_transport(void *ud, const char *json, size_t len) {
  counter *c = ud;
  unsigned long n = 0;
  for (const char *p = json;
       (p = memmem(p, len - (size_t)(p - json), "\"spanId\":", 9)); p += 9)
    n++;
  if (atomic_fetch_add(&c->calls, 1) % 3 == 2) {
    atomic_fetch_add(&c->refused, n);
    return GQL_EIO;
  }
  atomic_fetch_add(&c->accepted, n);
  return 0;
}

typedef struct worker_arg {
  gql_tracer *t;
  gql_schema *s;
  const gql_value *root;
  unsigned n;
  unsigned long spans; /* made */
} worker_arg;

static void on_done(void *ud, const char *json, size_t len, bool has_errors) {
  (void)has_errors;
  cr_assert(len > 0 && strstr(json, "\"name\":\"c\""), "%.*s", (int)len, json);
  *(bool *)ud = true;
}

static void *trace_worker(void *p) {
  worker_arg *w = p;
  static const char q[] = "query Q { items { id name } }";
  gql_arena *a = gql_arena_new(NULL);
  for (unsigned i = 0; i < w->n; i++) {
    gql_trace_options o;
    gql_trace_options_init(&o);
    o.no_collapse = i % 2;
    gql_trace *tr = gql_trace_begin(w->t, &o);
    cr_assert(tr);
    gql_prepare_options po = {.trace = tr};
    gql_prepared *prep = NULL;
    cr_assert_eq(gql_prepare(w->s, q, sizeof q - 1, NULL, &po, &prep, NULL), 0);
    gql_trace_set_operation(tr, prep, NULL, 0);
    bool done = false;
    gql_execute_params ep = {.trace = tr,
                             .root_value = w->root,
                             .arena = a,
                             .on_done = on_done,
                             .ud = &done};
    cr_assert_eq(gql_execute(prep, &ep), 0);
    cr_assert(done);
    gql_trace_end(tr);
    /* parse, validate, execute + items and its items' id and name: one
     * span per path collapsed, one per item not */
    w->spans += 3 + (o.no_collapse ? 7 : 3);
    gql_prepared_free(prep);
    gql_arena_reset(a);
  }
  gql_arena_free(a);
  return NULL;
}

typedef struct flusher_arg {
  gql_tracer *t;
  atomic_bool done;
  unsigned flushes;
} flusher_arg;

static void *flusher(void *p) {
  flusher_arg *f = p;
  while (!atomic_load(&f->done)) {
    gql_tracer_flush(f->t);
    gql_tracer_stats st;
    gql_tracer_stats_get(f->t, &st);
    cr_assert_leq(st.pending, 256 + 64);
    f->flushes++;
  }
  return NULL;
}

Test(http_server_trace, tracer_shared_by_threads_accounts_for_every_span) {
  static const char sdl[] =
      "type Query { items: [Item] } type Item { id: Int name: String }";
  static const char data[] =
      "{\"items\":[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"},"
      "{\"id\":3,\"name\":\"c\"}]}";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_finalize(s), 0);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(a, data, sizeof data - 1, &root), 0);
  counter c = {0};
  /* a small queue: some spans are dropped while the flusher and the
   * exporter thread race the workers */
  gql_tracer_config tc = {.transport = count_transport,
                          .transport_ud = &c,
                          .queue_spans = 256,
                          .batch_spans = 64,
                          .interval_ms = 1};
  gql_tracer *t;
  cr_assert_eq(gql_tracer_new(&tc, &t), 0);
  enum { NW = 4 };
  worker_arg w[NW];
  pthread_t th[NW], fth;
  flusher_arg fa = {.t = t};
  atomic_init(&fa.done, false);
  cr_assert_eq(pthread_create(&fth, NULL, flusher, &fa), 0);
  for (int i = 0; i < NW; i++) {
    w[i] = (worker_arg){.t = t, .s = s, .root = root, .n = 400};
    cr_assert_eq(pthread_create(&th[i], NULL, trace_worker, &w[i]), 0);
  }
  unsigned long made = 0;
  for (int i = 0; i < NW; i++) {
    pthread_join(th[i], NULL);
    made += w[i].spans;
  }
  atomic_store(&fa.done, true);
  pthread_join(fth, NULL);
  gql_tracer_flush(t);
  gql_tracer_stats st;
  gql_tracer_stats_get(t, &st);
  cr_assert_eq(st.queued + st.dropped, made, "%llu + %llu != %lu",
               (unsigned long long)st.queued, (unsigned long long)st.dropped,
               made);
  cr_assert_eq(st.pending, 0);
  cr_assert_eq(st.exported + st.failed, st.queued);
  cr_assert_eq(st.exported, atomic_load(&c.accepted));
  cr_assert_eq(st.failed, atomic_load(&c.refused));
  cr_assert_gt(st.failed, 0);
  cr_assert_gt(fa.flushes, 0);
  gql_tracer_free(t);
  gql_arena_free(a);
  gql_schema_free(s);
}
