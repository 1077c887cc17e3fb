/* libFuzzer target: what a subgraph sends the gateway's graphql-ws client
 * (src/gateway/ws_client.c), without a socket. The first byte picks the
 * mode and the size of the pieces the input is fed in (bits 1-5):
 *  - bit 0 clear: the rest is the upgrade's answer and what follows, raw;
 *  - bit 0 set: a valid 101 answer for the client's key, then the rest as
 *    frames (bit 6 clear) or as text messages one per line, each framed
 *    by a server (bit 6 set): connection_ack, next, error, ping...
 * Whatever the input: end is called at most once and no event follows it;
 * each event is a JSON object; the output stays bounded; every frame
 * context lent is given back. */
#include "gateway/ws_client.h"
#include "json/json.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

typedef struct state {
  unsigned ends, events;
  gql_arena *arena;
} state;

static void on_event(void *ud, const char *json, size_t len) {
  state *s = ud;
  CHECK(!s->ends);
  s->events++;
  gql_arena_reset(s->arena);
  gql_json_value *v = NULL;
  CHECK(gql_json_parse(s->arena, json, len, NULL, &v, NULL) == 0);
  CHECK(v->kind == GQL_JSON_OBJECT);
}

static void on_end(void *ud, const char *why, const char *errors, size_t len) {
  state *s = ud;
  s->ends++;
  CHECK(s->ends == 1);
  if (errors) {
    gql_arena_reset(s->arena);
    gql_json_value *v = NULL;
    CHECK(gql_json_parse(s->arena, errors, len, NULL, &v, NULL) == 0);
    CHECK(v->kind == GQL_JSON_ARRAY);
    CHECK(why != NULL);
  }
}

static const gql_gw_wsc_handler handler = {on_event, on_end};

static void feed(gql_gw_wsc *c, const char *d, size_t n, size_t piece) {
  for (size_t i = 0; i < n; i += piece) {
    size_t k = n - i < piece ? n - i : piece;
    gql_gw_wsc_feed(c, d + i, k);
    CHECK(gql_ws_queued(&c->ws) <= (1u << 20) + 4096);
    c->out.o.len = 0; /* written */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  uint8_t mode = data[0];
  size_t piece = 1 + ((mode >> 1) & 31) * 7;
  const char *rest = (const char *)data + 1;
  size_t n = size - 1;
  gql_ws_pool *pool = gql_ws_pool_new(&(gql_ws_limits){.max_message = 4096});
  state st = {.arena = gql_arena_new(NULL)};
  gql_gw_wsc c;
  static const char body[] = "{\"query\":\"subscription{a}\"}";
  CHECK(gql_gw_wsc_init(&c, pool, &handler, &st, "127.0.0.1:1", "/graphql",
                        NULL, body, sizeof body - 1) == 0);
  c.out.o.len = 0;
  if (!(mode & 1)) {
    feed(&c, rest, n, piece);
  } else {
    char accept[29];
    gql_ws_accept_key(gql_cstr(c.key), accept);
    http_buf head = {0};
    http_buf_printf(&head,
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n"
                    "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n",
                    accept);
    feed(&c, head.o.data, head.o.len, piece);
    http_buf_free(&head);
    if (!(mode & 64)) {
      feed(&c, rest, n, piece);
    } else { /* messages, framed by a server */
      gql_ws server;
      http_buf frames = {0};
      gql_ws_init(&server, pool, GQL_WS_SERVER,
                  &(gql_ws_handler){NULL, NULL, NULL}, NULL, &frames);
      size_t start = 0;
      for (size_t i = 0; i <= n; i++)
        if (i == n || rest[i] == '\n') {
          gql_ws_send(&server, false, rest + start, i - start);
          start = i + 1;
        }
      feed(&c, frames.o.data, frames.o.len, piece);
      gql_ws_free(&server);
      http_buf_free(&frames);
    }
  }
  if (data[size - 1] & 1)
    gql_gw_wsc_complete(&c);
  else
    gql_gw_wsc_fail(&c, "the end of the input");
  CHECK(st.ends <= 1);
  gql_gw_wsc_free(&c);
  unsigned created, lent;
  gql_ws_pool_counts(pool, &created, &lent);
  CHECK(lent == 0);
  gql_ws_pool_free(pool);
  gql_arena_free(st.arena);
  return 0;
}
