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
 * that has X-Reject and answer one that has X-Answer. With bit 7, the
 * persisted-operation, admission and page hooks are on: a documentId
 * picks what the decision does (its first byte: run a stored document,
 * answer an error, or decide later, completed between pieces as a store's
 * answer would come from the loop), an extensions object is read whole,
 * an operation naming `expensive` is refused by admission, and a browser's
 * GET of the endpoint or of /asset.js gets a page. */
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
  gql_http_document *doc; /* a decision to complete later */
  int doc_action;
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
  /* NULL for a streamed response: its bytes are several payloads' */
  if (i->body)
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

/* ---- the persisted-operation, admission and page hooks (bit 7) */

static void read_value(const gql_value *v, int depth) {
  if (depth > 64)
    return;
  switch (gql_value_kind_of(v)) {
  case GQL_VALUE_STRING:
    read_str(gql_value_string(v));
    break;
  case GQL_VALUE_OBJECT:
  case GQL_VALUE_LIST:
    for (size_t i = 0; i < gql_value_count(v); i++) {
      read_str(gql_value_key(v, i));
      read_value(gql_value_item(v, i), depth + 1);
    }
    break;
  default:
    break;
  }
}

static int decide(void *w, gql_http_request *r, gql_http_document *d) {
  (void)w;
  harness *h = r->conn->x->opt->context;
  if (d->has_query)
    read_str(d->query);
  if (d->extensions)
    read_value(d->extensions, 0);
  if (!d->has_document_id)
    return GQL_HTTP_DOC_RUN;
  read_str(d->document_id);
  unsigned char k =
      d->document_id.len ? (unsigned char)d->document_id.ptr[0] : 0;
  int action = k % 3 == 0   ? GQL_HTTP_DOC_RUN
               : k % 3 == 1 ? GQL_HTTP_DOC_ERROR
                            : GQL_HTTP_DOC_PENDING;
  d->has_query = k & 8;
  const char *q = k & 16 ? "{ now wait }" : "{ hero { name } }";
  d->query = (gql_str){q, strlen(q)};
  d->status = k & 32 ? 404 : 200;
  d->no_cache = k & 64;
  d->body = "{\"errors\":[{\"message\":\"no\"}]}";
  d->body_len = strlen(d->body);
  if (action == GQL_HTTP_DOC_PENDING) {
    if (h->doc)
      abort(); /* one request in flight per connection */
    h->doc = d;
    h->doc_action = k & 128 ? GQL_HTTP_DOC_ERROR : GQL_HTTP_DOC_RUN;
  }
  return action;
}

static int validated_count;
static void validated(void *w, gql_http_request *r, gql_http_document *d) {
  (void)w;
  (void)r;
  if (d->has_query)
    read_str(d->query);
  validated_count++;
}

static const gql_http_documents documents = {.decide = decide,
                                             .validated = validated};

static const char *admit(void *ud, gql_http_request *r, const gql_prepared *p,
                         const gql_value *variables, size_t *len) {
  (void)ud;
  (void)p;
  read_value(variables, 0);
  const gql_value *body = gql_http_request_body(r);
  const gql_value *q = body ? gql_value_get(body, "query", 5) : NULL;
  gql_str t = gql_value_kind_of(q) == GQL_VALUE_STRING ? gql_value_string(q)
                                                       : (gql_str){0};
  if (t.ptr && memmem(t.ptr, t.len, "expensive", 9)) {
    static const char no[] = "{\"errors\":[{\"message\":\"too much\"}]}";
    *len = sizeof no - 1;
    return no;
  }
  return NULL;
}

static const gql_http_admission admission = {.admit = admit};

static const gql_http_page pages[] = {
    {.path = "/asset.js",
     .content_type = "text/javascript",
     .body = "1;",
     .len = 2},
    {.content_type = "text/html", .body = "<p>hi</p>", .len = 9}};

static void harness_init(harness *h, gql_schema *schema, bool docs) {
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
  if (docs) {
    o.documents = &documents;
    o.admission = &admission;
    o.pages = pages;
    o.npages = 2;
  }
  gql_http_options_resolve(&o, &h->opt);
  gql_http_ctx_init(&h->x, schema, &h->opt, 1);
}

/* Completes the pending fields, then does what the transport does once
 * the executor has returned: ends the request and goes on with the input. */
static void complete_pending(harness *h, gql_http_conn *c) {
  while (c->inflight) {
    if (h->doc) { /* the store's answer, from the loop */
      gql_http_document *d = h->doc;
      h->doc = NULL;
      gql_http_document_done(d, h->doc_action);
      gql_http_request *r = c->inflight;
      if (r && h->npending == 0) { /* answered: the transport ends it */
        if (!r->answered)
          abort();
        c->inflight = NULL;
        gql_http_request_end(r);
        gql_http_conn_resume(c);
      }
      continue;
    }
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

static harness *harness_get(bool waiting, bool docs) {
  static harness hs[4]; /* built once: the schemas are immutable */
  harness *h = &hs[waiting + 2 * docs];
  if (!h->schema) {
    gql_schema *s = NULL;
    if (waiting)
      s = waiting_schema();
    else if (gql_starwars_schema(&s) < 0)
      abort();
    harness_init(h, s, docs);
  }
  return h;
}

static int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

/* A chunked body from p: past its last (empty) chunk, or `end` when the
 * connection's end cut the stream at a chunk's boundary. */
static const char *skip_chunks(const char *p, const char *end) {
  while (p < end) {
    size_t len = 0;
    const char *q = p;
    for (int d; q < end && (d = hex_digit(*q)) >= 0; q++) {
      len = len * 16 + (size_t)d;
      if (len > (size_t)(end - p))
        abort(); /* a chunk longer than what was written */
    }
    if (q == p || end - q < 2 || memcmp(q, "\r\n", 2) != 0)
      abort();
    q += 2;
    if ((size_t)(end - q) < len + 2 || memcmp(q + len, "\r\n", 2) != 0)
      abort();
    p = q + len + 2;
    if (len == 0)
      return p;
  }
  return end;
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
    if (memmem(p, (size_t)(head_end - p), "\r\nTransfer-Encoding: chunked",
               28)) { /* a streamed response (SSE, multipart) */
      p = skip_chunks(head_end + 4, end);
      continue;
    }
    if (!cl && (memmem(p, (size_t)(head_end - p), "text/event-stream", 17) ||
                memmem(p, (size_t)(head_end - p), "multipart/mixed", 15)))
      return; /* HTTP/1.0's streamed response: to the connection's end */
    size_t n = cl ? strtoul(cl + 18, NULL, 10) : 0; /* none: HEAD's, 204 */
    if ((size_t)(end - (head_end + 4)) < n)
      abort();
    p = head_end + 4 + n;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  harness *h = harness_get((data[0] & 0x40) != 0, (data[0] & 0x80) != 0);
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
