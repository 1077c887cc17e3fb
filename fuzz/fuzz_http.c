/* libFuzzer target: raw bytes from a client into a connection's input
 * handling (llhttp, limits, GraphQL over HTTP, the document cache), without
 * a socket. The first byte picks the size of the pieces the rest is fed in,
 * so that every split of a request is tried. Every response written must be
 * a well-formed HTTP/1.1 status line with a Content-Length that matches. */
#include "http/http.h"

#include "../examples/starwars/starwars.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct harness {
  gql_schema *schema;
  gql_http_options opt;
  gql_http_ctx x;
} harness;

static harness *harness_get(void) {
  static harness h; /* built once: the schema is immutable */
  if (!h.schema) {
    if (gql_starwars_schema(&h.schema) < 0)
      abort();
    gql_http_options o = {.max_body = 8192,
                          .max_header_bytes = 2048,
                          .max_headers = 16,
                          .cache_bytes = 64 * 1024};
    gql_http_options_resolve(&o, &h.opt);
    gql_http_ctx_init(&h.x, h.schema, &h.opt, 1);
  }
  return &h;
}

static void check_responses(const gql_buf *out) {
  if (!out->data)
    return;
  const char *p = out->data, *end = p + out->len;
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
    const char *cl = memmem(p, (size_t)(head_end - p), "Content-Length: ", 16);
    if (!cl)
      abort();
    size_t n = strtoul(cl + 16, NULL, 10);
    if ((size_t)(end - (head_end + 4)) < n)
      abort();
    p = head_end + 4 + n;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  harness *h = harness_get();
  size_t piece = (size_t)(data[0] % 64) + 1;
  data++;
  size--;
  gql_http_conn c;
  gql_http_conn_init(&c, &h->x);
  for (size_t i = 0; i < size; i += piece) {
    size_t n = size - i < piece ? size - i : piece;
    gql_http_conn_feed(&c, (const char *)data + i, n);
  }
  gql_http_conn_eof(&c);
  if (c.inflight) /* the Star Wars resolvers never pend */
    abort();
  check_responses(&c.out);
  gql_http_conn_free(&c);
  return 0;
}
