/* libFuzzer target: raw bytes from a client into a connection's input
 * handling (llhttp, limits, GraphQL over HTTP, the document cache), without
 * a socket. The first byte picks the size of the pieces the rest is fed in
 * (low 6 bits), so that every split of a request is tried, and the schema
 * (bit 6): Star Wars, or one whose `wait` field pends until the harness
 * completes it between pieces, as a transport would from its loop. Every
 * response written must be a well-formed HTTP/1.1 status line followed by
 * exactly the body its Content-Length announces, or by none when it has no
 * Content-Length (a HEAD request's answer). Every request is traced (the
 * client's traceparent / tracestate read) and told to an observer that
 * reads every byte it is given. Request hooks read every header (also from
 * a pending field, later), echo one into the response, refuse a request
 * that has X-Reject and answer one that has X-Answer. */
#include "http/http.h"

#include "../examples/starwars/starwars.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct harness {
  gql_schema *schema;
  gql_http_options opt;
  gql_http_ctx x;
  gql_pending *pending[64];
  int npending;
} harness;

static void wait_resolver(const gql_resolve_info *info, const void *parent,
                          gql_out *out) {
  (void)parent;
  harness *h = gql_http_context(info);
  if (h->npending == 64) {
    gql_out_error(out, "too many");
    return;
  }
  gql_pending *p = gql_out_pending(out);
  if (p)
    h->pending[h->npending++] = p;
}

static void now_resolver(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "now", 3);
}

static gql_schema *waiting_schema(void) {
  static const char sdl[] =
      "type Query { wait: String now: String item: Item }\n"
      "type Item { wait: String now: String }\n"
      "type Mutation { wait: String }";
  gql_schema *s = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL) < 0)
    abort();
  gql_schema_set_resolver(s, "Query", "wait", wait_resolver, NULL, 0);
  gql_schema_set_resolver(s, "Item", "wait", wait_resolver, NULL, 0);
  gql_schema_set_resolver(s, "Mutation", "wait", wait_resolver, NULL, 0);
  gql_schema_set_resolver(s, "Query", "now", now_resolver, NULL, 0);
  return s;
}

/* The observer: reads what it is told (ASan sees a bad pointer or
 * length), checks the status, and asks for the trace id. */
static volatile unsigned sink;
static void read_str(gql_str s) {
  for (size_t i = 0; i < s.len; i++)
    sink += (unsigned char)s.ptr[i];
}
static void observe_request(void *worker, const gql_http_request_info *i) {
  (void)worker;
  if (i->status < 100 || i->status > 599 || i->operation_type < -1 ||
      i->operation_type > 2 || i->document_cache < -1 ||
      i->document_cache > 1 || !i->method)
    abort();
  read_str(i->path);
  read_str(i->client);
  read_str(i->operation_name);
  read_str((gql_str){i->body, i->bytes});
  char id[33];
  gql_trace_id(i->trace, id);
  if (i->trace && strlen(id) != 32)
    abort();
}
static void observe_log(void *ud, gql_http_log_level level, const char *msg,
                        const gql_http_request_info *access) {
  (void)ud;
  (void)level;
  sink += (unsigned)strlen(msg);
  if (access)
    observe_request(NULL, access);
}
static const gql_http_observer observer = {.request = observe_request,
                                           .log = observe_log};

/* Reads every header as a hook or a resolver would. */
static void read_headers(gql_http_request *r) {
  uint32_t n = gql_http_request_header_count(r);
  if (n > 16)
    abort(); /* over max_headers: refused before */
  for (uint32_t i = 0; i < n; i++) {
    gql_str k, v;
    /* llhttp lets an empty name through (": v"): allowed, but never a
     * line break in a name or a value */
    if (!gql_http_request_header_at(r, i, &k, &v) || !k.ptr || !v.ptr ||
        memchr(k.ptr, '\n', k.len) || memchr(v.ptr, '\n', v.len))
      abort();
  }
  if (gql_http_request_header_at(r, n, &(gql_str){0}, &(gql_str){0}))
    abort();
  (void)gql_http_request_method(r);
  (void)gql_http_request_path(r);
  if (*gql_http_request_peer(r)) /* no socket here */
    abort();
}

static void on_request(void *w, gql_http_request *r) {
  (void)w;
  read_headers(r);
  gql_str v = gql_http_request_header(r, "x-echo");
  if (v.ptr && v.len < 200) {
    char buf[256];
    memcpy(buf, v.ptr, v.len);
    buf[v.len] = 0;
    gql_http_request_add_header(r, "X-Echo", buf); /* may refuse: EINVAL */
  }
  if (gql_http_request_header(r, "x-answer").ptr)
    gql_http_request_answer(r, 204, NULL, NULL, 0);
}

static void on_execute(void *w, gql_http_request *r) {
  (void)w;
  if (gql_http_request_header(r, "x-reject").ptr) {
    gql_http_request_add_header(r, "WWW-Authenticate", "Bearer");
    gql_http_request_reject(r, 401, "No \"entry\".\n", "UNAUTHENTICATED");
  }
}

static void on_response(void *w, gql_http_request *r, int status) {
  (void)w;
  (void)status;
  read_headers(r);
  gql_http_request_add_header(r, "X-Seen", "1");
}

static const gql_http_hooks hooks = {
    .request = on_request, .execute = on_execute, .response = on_response};

static void harness_init(harness *h, gql_schema *schema) {
  h->schema = schema;
  static gql_tracer *tracer;
  gql_tracer_config tc = {.no_thread = true};
  if (!tracer && gql_tracer_new(&tc, &tracer) < 0)
    abort();
  gql_http_options o = {.max_body = 8192,
                        .tracer = tracer,
                        .observer = &observer,
                        .log_level = GQL_HTTP_LOG_INFO,
                        .log_level_set = true,
                        .max_header_bytes = 2048,
                        .max_headers = 16,
                        .cache_bytes = 64 * 1024,
                        .root_value = NULL,
                        .context = h,
                        .hooks = &hooks};
  gql_http_options_resolve(&o, &h->opt);
  gql_http_ctx_init(&h->x, schema, &h->opt, 1);
}

/* Completes the pending fields, then does what the transport does once
 * the executor has returned: ends the request and goes on with the input. */
static void complete_pending(harness *h, gql_http_conn *c) {
  while (c->inflight) {
    int n = h->npending;
    h->npending = 0;
    if (n == 0)
      abort();                 /* in flight with nothing to complete */
    read_headers(c->inflight); /* still readable while pending */
    for (int i = 0; i < n; i++)
      gql_out_string(gql_pending_out(h->pending[i]), "late", 4);
    if (c->inflight && h->npending == 0) {
      gql_http_request *r = c->inflight;
      if (!r->done)
        abort();
      c->inflight = NULL;
      gql_http_request_end(r);
      gql_http_conn_resume(c);
    }
  }
}

static harness *harness_get(bool waiting) {
  static harness hs[2]; /* built once: the schemas are immutable */
  harness *h = &hs[waiting];
  if (!h->schema) {
    gql_schema *s = NULL;
    if (waiting)
      s = waiting_schema();
    else if (gql_starwars_schema(&s) < 0)
      abort();
    harness_init(h, s);
  }
  return h;
}

static void check_responses(const http_buf *out) {
  if (!out->o.data)
    return;
  const char *p = out->o.data, *end = p + out->o.len;
  while (p && p < end) {
    if ((size_t)(end - p) < 12 || memcmp(p, "HTTP/1.1 ", 9) != 0)
      abort();
    const char *head_end = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
    if (!head_end)
      abort();
    if (memcmp(p + 9, "100 ", 4) == 0) {
      p = head_end + 4;
      continue;
    }
    /* at a line's start: an echoed header value may hold the words */
    const char *cl =
        memmem(p, (size_t)(head_end - p), "\r\nContent-Length: ", 18);
    size_t n = cl ? strtoul(cl + 18, NULL, 10) : 0; /* none: HEAD's, 204 */
    if ((size_t)(end - (head_end + 4)) < n)
      abort();
    p = head_end + 4 + n;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  harness *h = harness_get((data[0] & 0x40) != 0);
  size_t piece = (size_t)(data[0] % 64) + 1;
  data++;
  size--;
  gql_http_conn c;
  gql_http_conn_init(&c, &h->x);
  for (size_t i = 0; i < size; i += piece) {
    size_t n = size - i < piece ? size - i : piece;
    gql_http_conn_feed(&c, (const char *)data + i, n);
    complete_pending(h, &c);
  }
  gql_http_conn_eof(&c);
  complete_pending(h, &c);
  check_responses(&c.out);
  gql_http_conn_free(&c);
  return 0;
}
