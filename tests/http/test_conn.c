/* A connection's input handling driven from buffers (no socket): framing,
 * request handling, the document cache, and pipelined requests held behind
 * one whose field pends. */
#include "core/core.h"
#include "http/http.h"

#include "../../examples/starwars/starwars.h"

#include <criterion/criterion.h>
#include <stdlib.h>

typedef struct fixture {
  gql_schema *schema;
  gql_http_options opt;
  gql_http_ctx x;
  gql_http_conn c;
  /* pending resolver state (options.context) */
  gql_pending *pending[8];
  int npending;
  int resumed;
} fixture;

static void resumed(gql_http_conn *c) {
  fixture *f = gql_container_of(c, fixture, c);
  f->resumed++;
}

static void setup(fixture *f, gql_schema *schema, size_t cache_bytes) {
  memset(f, 0, sizeof *f);
  f->schema = schema;
  gql_http_options o = {
      .cache_bytes = cache_bytes, .max_body = 4096, .context = f};
  gql_http_options_resolve(&o, &f->opt);
  cr_assert_eq(gql_http_ctx_init(&f->x, schema, &f->opt, 42), 0);
  f->x.resumed = resumed;
  gql_http_conn_init(&f->c, &f->x);
}

static void teardown(fixture *f) {
  gql_http_conn_free(&f->c);
  gql_http_ctx_free(&f->x);
  gql_schema_free(f->schema);
}

static gql_schema *starwars(void) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_starwars_schema(&s), 0);
  return s;
}

static char *post(const char *body) {
  char *r = NULL;
  cr_assert(asprintf(&r,
                     "POST /graphql HTTP/1.1\r\nContent-Type: application/json"
                     "\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body) > 0);
  return r;
}

static void feed(fixture *f, const char *s) {
  gql_http_conn_feed(&f->c, s, strlen(s));
}

/* The bodies of the responses in c.out, in order, separated by '|', each
 * after its status ("HEAD" for a response without Content-Length, which
 * only a HEAD request gets, and which has no body). */
static char *bodies(fixture *f) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  const char *p = f->c.out.o.data, *end = p + f->c.out.o.len;
  while (p && p < end) {
    const char *head_end = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
    cr_assert(head_end);
    const char *cl = memmem(p, (size_t)(head_end - p), "Content-Length: ", 16);
    size_t n = cl ? strtoul(cl + 16, NULL, 10) : 0;
    cr_assert_leq(n, (size_t)(end - head_end - 4), "a body cut short");
    if (b.len)
      gql_buf_putc(&b, '|');
    gql_buf_printf(&b, "%.3s ", p + 9);
    if (cl)
      gql_buf_append(&b, head_end + 4, n);
    else
      gql_buf_puts(&b, "HEAD");
    p = head_end + 4 + n;
  }
  char *r = strdup(gql_buf_cstr(&b) ? gql_buf_cstr(&b) : "");
  gql_buf_free(&b);
  f->c.out.o.len = 0;
  return r;
}

Test(http_conn, request_fed_byte_by_byte_is_answered_once) {
  fixture f;
  setup(&f, starwars(), 0);
  char *req = post("{\"query\":\"{ hero { name } }\"}");
  for (size_t i = 0; req[i]; i++)
    gql_http_conn_feed(&f.c, req + i, 1);
  char *got = bodies(&f);
  cr_assert_str_eq(got, "200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}");
  free(got);
  free(req);
  teardown(&f);
}

Test(http_conn, repeated_query_hits_the_document_cache) {
  fixture f;
  setup(&f, starwars(), 0);
  char *a = post("{\"query\":\"{ hero { name } }\"}");
  char *b = post("{\"query\":\"query A { hero { id } } query B { hero { name } "
                 "}\",\"operationName\":\"B\"}");
  char *c = post("{\"query\":\"query A { hero { id } } query B { hero { name } "
                 "}\",\"operationName\":\"A\"}");
  feed(&f, a);
  feed(&f, a);
  cr_assert_eq(f.x.pin->cache.misses, 1);
  cr_assert_eq(f.x.pin->cache.hits, 1);
  feed(&f, b);
  feed(&f, c);
  feed(&f, b);
  /* the operation name is part of the key: A and B are two entries */
  cr_assert_eq(f.x.pin->cache.misses, 3);
  cr_assert_eq(f.x.pin->cache.hits, 2);
  cr_assert_eq(f.x.pin->cache.count, 3);
  char *got = bodies(&f);
  cr_assert_str_eq(got, "200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}|"
                        "200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}|"
                        "200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}|"
                        "200 {\"data\":{\"hero\":{\"id\":\"2001\"}}}|"
                        "200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}");
  free(got);
  free(a);
  free(b);
  free(c);
  teardown(&f);
}

Test(http_conn, cache_evicts_least_recently_used_within_its_budget) {
  fixture f;
  setup(&f, starwars(), 200 * 1024);
  char q[128];
  for (int i = 0; i < 200; i++) {
    snprintf(q, sizeof q, "{\"query\":\"{ a%d: hero { name } }\"}", i);
    char *r = post(q);
    feed(&f, r);
    free(r);
    cr_assert_leq(f.x.pin->cache.bytes, f.x.pin->cache.budget);
  }
  cr_assert_gt(f.x.pin->cache.evictions, 0);
  cr_assert_lt(f.x.pin->cache.count, 200);
  /* the most recent one is still there */
  char *r = post(q);
  uint64_t hits = f.x.pin->cache.hits;
  feed(&f, r);
  cr_assert_eq(f.x.pin->cache.hits, hits + 1);
  free(r);
  f.c.out.o.len = 0;
  teardown(&f);
}

Test(http_conn, errors_are_not_cached_and_keep_graphql_status) {
  fixture f;
  setup(&f, starwars(), 0);
  char *r = post("{\"query\":\"{ nope }\"}");
  feed(&f, r);
  feed(&f, r);
  cr_assert_eq(f.x.pin->cache.count, 0);
  char *got = bodies(&f);
  cr_assert(strncmp(got, "200 {\"errors\":[{\"message\":\"Cannot query field",
                    44) == 0,
            "%s", got);
  free(got);
  free(r);
  teardown(&f);
}

Test(http_conn, body_over_limit_is_413_and_stops_the_connection) {
  fixture f;
  setup(&f, starwars(), 0);
  feed(&f, "POST /graphql HTTP/1.1\r\nContent-Type: application/json\r\n"
           "Content-Length: 5000\r\n\r\n");
  cr_assert(f.c.close_after);
  char *got = bodies(&f);
  cr_assert(strncmp(got, "413 ", 4) == 0, "%s", got);
  free(got);
  feed(&f, "GET /health HTTP/1.1\r\n\r\n"); /* ignored: closing */
  cr_assert_eq(f.c.out.o.len, 0);
  teardown(&f);
}

/* A schema whose `wait` field pends until the test completes it. */
static void wait_resolver(const gql_resolve_info *info, const void *parent,
                          gql_out *out) {
  (void)parent;
  fixture *f = gql_http_context(info);
  f->pending[f->npending++] = gql_out_pending(out);
}

static void now_resolver(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "now", 3);
}

static void boom_resolver(const gql_resolve_info *info, const void *parent,
                          gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_error(out, "boom");
}

static gql_schema *waiting_schema(void) {
  static const char sdl[] = "type Query { wait: String now: String boom: "
                            "String }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "wait", wait_resolver, NULL, 0), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "now", now_resolver, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "boom", boom_resolver, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  return s;
}

static char *post_gqlr(const char *body) {
  char *r = NULL;
  cr_assert(asprintf(&r,
                     "POST /graphql HTTP/1.1\r\nContent-Type: application/json"
                     "\r\nAccept: application/graphql-response+json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     strlen(body), body) > 0);
  return r;
}

Test(http_conn, partial_success_is_200_with_graphql_response_json) {
  fixture f;
  setup(&f, waiting_schema(), 0);
  char *sync = post_gqlr("{\"query\":\"{ now boom }\"}");
  char *async = post_gqlr("{\"query\":\"{ wait boom }\"}");
  char *bad = post_gqlr("{\"query\":\"{ nope }\"}");
  feed(&f, sync);
  feed(&f, async);
  cr_assert_eq(f.npending, 1);
  gql_out_string(gql_pending_out(f.pending[0]), "late", 4);
  gql_http_request *r = f.c.inflight;
  f.c.inflight = NULL;
  gql_http_request_end(r);
  feed(&f, bad);
  char *got = bodies(&f);
  /* field errors with data: 200, whichever order the keys come in; no
   * data (a validation error): 400 */
  cr_assert(strncmp(got, "200 ", 4) == 0, "%s", got);
  char *second = strchr(got, '|');
  cr_assert(second && strncmp(second + 1, "200 ", 4) == 0, "%s", got);
  cr_assert(strstr(second, "\"late\"") && strstr(second, "boom"), "%s", got);
  char *third = strchr(second + 1, '|');
  cr_assert(third && strncmp(third + 1, "400 ", 4) == 0, "%s", got);
  free(got);
  free(sync);
  free(async);
  free(bad);
  teardown(&f);
}

Test(http_conn, pipelined_request_waits_for_the_pending_one_before_it) {
  fixture f;
  setup(&f, waiting_schema(), 0);
  char *slow = post("{\"query\":\"{ wait }\"}");
  char *fast = post("{\"query\":\"{ now }\"}");
  char both[512];
  snprintf(both, sizeof both, "%s%s", slow, fast);
  feed(&f, both);
  cr_assert_eq(f.npending, 1);
  cr_assert(f.c.inflight);
  cr_assert_eq(f.c.out.o.len, 0, "nothing may be answered before the first");
  gql_out_string(gql_pending_out(f.pending[0]), "late", 4);
  cr_assert_eq(f.resumed, 1);
  /* what the transport does on the next loop turn */
  gql_http_request *r = f.c.inflight;
  f.c.inflight = NULL;
  gql_http_request_end(r);
  gql_http_conn_resume(&f.c);
  char *got = bodies(&f);
  cr_assert_str_eq(got, "200 {\"data\":{\"wait\":\"late\"}}|"
                        "200 {\"data\":{\"now\":\"now\"}}");
  free(got);
  free(slow);
  free(fast);
  teardown(&f);
}

/* RFC 9110: HEAD is GET without the body; the response leaves out
 * Content-Length (8.6 allows it), so that only a HEAD response lacks one. */
Test(http_conn, head_is_answered_as_get_without_body_or_length) {
  fixture f;
  setup(&f, starwars(), 0);
  feed(&f, "HEAD /graphql?query=%7Bhero%7Bname%7D%7D HTTP/1.1\r\n\r\n"
           "GET /graphql?query=%7Bhero%7Bname%7D%7D HTTP/1.1\r\n\r\n"
           "HEAD /graphql?query=mutation%7Bx%7D HTTP/1.1\r\n\r\n"
           "HEAD /health HTTP/1.1\r\n\r\n");
  char *got = bodies(&f);
  cr_assert_str_eq(got,
                   "200 HEAD|200 {\"data\":{\"hero\":{\"name\":\"R2-D2\"}}}"
                   "|405 HEAD|200 HEAD");
  free(got);
  teardown(&f);
}

/* The fuzz finding: llhttp takes "HEADA..." for HEAD before the request
 * line fails; the refusal is not a HEAD response and carries its body. */
Test(http_conn, a_refused_request_that_began_like_head_gets_its_body) {
  fixture f;
  setup(&f, starwars(), 0);
  feed(&f, "HEADAero { name } }\"}GET /graphql?query=%7Bhero%7D HTTP/1.1\r\n"
           "\r\n");
  char *got = bodies(&f);
  cr_assert_str_eq(
      got, "400 {\"errors\":[{\"message\":\"Malformed HTTP request.\"}]}");
  free(got);
  teardown(&f);
}
