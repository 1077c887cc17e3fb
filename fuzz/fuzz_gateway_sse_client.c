/* libFuzzer target: what a subgraph sends the gateway's graphql-sse client
 * (src/gateway/sse_client.c), without a socket. The first byte picks the
 * mode and the size of the pieces the input is fed in (bits 1-5):
 *  - bit 0 clear: the rest is the whole response, raw (head, body);
 *  - bit 0 set: a valid 200 text/event-stream head, then the rest as the
 *    event stream: in chunks of the chunked coding (bit 6 set, the last
 *    chunk after it when bit 7 is set) or as a body that ends with the
 *    connection (bit 6 clear).
 * The last byte's low bit picks how it stops: the owner completes, or the
 * connection ends (EOF).
 * Whatever the input: end is called at most once and no event follows it;
 * each event is a JSON object no larger than the limit; the line and data
 * buffers stay within the limit. */
#include "gateway/sse_client.h"
#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

#define MAX_EVENT 4096

typedef struct state {
  unsigned ends, events;
  gql_arena *arena;
} state;

static void on_event(void *ud, const char *json, size_t len) {
  state *s = ud;
  CHECK(!s->ends);
  CHECK(len <= MAX_EVENT);
  s->events++;
  gql_arena_reset(s->arena);
  gql_json_value *v = NULL;
  CHECK(gql_json_parse(s->arena, json, len, NULL, &v, NULL) == 0);
  CHECK(v->kind == GQL_JSON_OBJECT);
}

static void on_end(void *ud, const char *why, const char *errors, size_t len) {
  (void)why;
  (void)len;
  state *s = ud;
  s->ends++;
  CHECK(s->ends == 1);
  CHECK(errors == NULL);
}

static const gql_gw_ssec_handler handler = {on_event, on_end};

static void feed(gql_gw_ssec *c, const char *d, size_t n, size_t piece) {
  for (size_t i = 0; i < n; i += piece) {
    size_t k = n - i < piece ? n - i : piece;
    gql_gw_ssec_feed(c, d + i, k);
    CHECK(c->line.len <= MAX_EVENT);
    CHECK(c->data.len <= MAX_EVENT + MAX_EVENT + 1);
    CHECK(c->refusal.len <= GQL_GW_SSEC_ERROR_BODY_MAX);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  uint8_t mode = data[0];
  size_t piece = 1 + ((mode >> 1) & 31) * 7;
  const char *rest = (const char *)data + 1;
  size_t n = size - 1;
  state st = {.arena = gql_arena_new(NULL)};
  gql_gw_ssec c;
  static const char body[] = "{\"query\":\"subscription{a}\"}";
  CHECK(gql_gw_ssec_init(&c, &handler, &st, "127.0.0.1:1", "/graphql", NULL,
                         body, sizeof body - 1, MAX_EVENT) == 0);
  if (!(mode & 1)) {
    feed(&c, rest, n, piece);
  } else if (!(mode & 64)) {
    static const char head[] =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
    feed(&c, head, sizeof head - 1, piece);
    feed(&c, rest, n, piece);
  } else {
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                               "text/event-stream; charset=utf-8\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n";
    feed(&c, head, sizeof head - 1, piece);
    for (size_t i = 0; i < n; i += piece) {
      size_t k = n - i < piece ? n - i : piece;
      char size_line[24];
      int m = snprintf(size_line, sizeof size_line, "%zx\r\n", k);
      feed(&c, size_line, (size_t)m, piece);
      feed(&c, rest + i, k, piece);
      feed(&c, "\r\n", 2, piece);
    }
    if (mode & 128)
      feed(&c, "0\r\n\r\n", 5, piece);
  }
  if (data[size - 1] & 1)
    gql_gw_ssec_complete(&c);
  else
    gql_gw_ssec_eof(&c);
  CHECK(st.ends <= 1);
  CHECK(c.state == GQL_GW_SSEC_ENDED);
  gql_gw_ssec_free(&c);
  gql_arena_free(st.arena);
  return 0;
}
