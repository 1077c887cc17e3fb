/* libFuzzer target: WebSocket bytes from a peer, without a socket. The
 * first byte picks the role (bit 0: server or client), the size of the
 * pieces the rest is fed in (bits 1-5) and, with bit 7, the handshake
 * instead: the rest is the upgrade request's fields, one per line.
 * Whatever the input: the output never passes its bound, every message
 * delivered to a server's handler is UTF-8 when text and within the
 * message limit, and every frame context lent is given back. */
#include "http/ws.h"
#include "json/json.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

#define MAX_MESSAGE 4096
#define MAX_QUEUED 16384

typedef struct peer {
  gql_ws ws;
  http_buf out;
  unsigned messages;
} peer;

static void on_message(void *ud, bool binary, const char *d, size_t n) {
  peer *p = ud;
  CHECK(n <= MAX_MESSAGE);
  CHECK(binary || gql_ws_utf8_valid(d, n));
  p->messages++;
  if (p->messages % 3 == 0)
    gql_ws_send(&p->ws, binary, d, n); /* echo: the output bound works */
  if (n && d[0] == 'C')
    gql_ws_close(&p->ws, 4400, "Invalid message received");
  if (n && d[0] == 'P')
    gql_ws_ping(&p->ws, d, n > 125 ? 125 : n);
}

static void on_close(void *ud, uint16_t code, gql_str reason) {
  (void)ud;
  CHECK(code == GQL_WS_CLOSE_NO_STATUS || gql_ws_close_code_valid(code));
  CHECK(reason.len <= 123);
}

static const gql_ws_handler handler = {on_message, NULL, on_close};

static void handshake(const uint8_t *data, size_t size) {
  gql_str f[7] = {{0}};
  size_t k = 0, start = 0;
  for (size_t i = 0; i <= size && k < 7; i++)
    if (i == size || data[i] == '\n') {
      f[k++] = (gql_str){(const char *)data + start, i - start};
      start = i + 1;
    }
  gql_ws_upgrade rq = {.method = f[0],
                       .http_major = 1,
                       .http_minor = f[1].len ? f[1].ptr[0] & 1 : 1,
                       .upgrade = f[1],
                       .connection = f[2],
                       .key = f[3],
                       .version = f[4],
                       .protocols = f[5]};
  static const char *const supported[] = {GQL_WS_PROTOCOL_GRAPHQL, "b", NULL};
  gql_ws_handshake h;
  bool ok = gql_ws_handshake_check(&rq, supported, &h);
  CHECK(ok == (h.status == 101));
  CHECK(ok || h.status == 400 || h.status == 405 || h.status == 426);
  if (ok)
    CHECK(strlen(h.accept) == 28);
  http_buf out;
  out = (http_buf){0};
  gql_ws_handshake_write(&out, &h);
  CHECK(!ok || (out.o.len > 4 &&
                memcmp(out.o.data + out.o.len - 4, "\r\n\r\n", 4) == 0));
  const char *why;
  if (ok && f[3].len && f[3].len < 64) {
    char key[64];
    memcpy(key, f[3].ptr, f[3].len);
    key[f[3].len] = 0;
    CHECK(gql_ws_client_check(out.o.data, out.o.len, key, h.protocol, &why));
  }
  http_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t c = data[0];
  data++, size--;
  if (c & 0x80) {
    handshake(data, size);
    return 0;
  }
  static gql_ws_pool *pool;
  if (!pool) {
    gql_ws_limits lim = {.max_message = MAX_MESSAGE, .max_queued = MAX_QUEUED};
    pool = gql_ws_pool_new(&lim);
    CHECK(pool);
  }
  peer p = {0};
  p.out = (http_buf){0};
  gql_ws_init(&p.ws, pool, (c & 1) ? GQL_WS_CLIENT : GQL_WS_SERVER, &handler,
              &p, &p.out);
  size_t piece = ((c >> 1) & 31) + 1;
  if (piece == 32)
    piece = size ? size : 1;
  for (size_t i = 0; i < size; i += piece) {
    size_t n = size - i < piece ? size - i : piece;
    gql_ws_state st = gql_ws_feed(&p.ws, (const char *)data + i, n);
    CHECK(gql_ws_queued(&p.ws) <= MAX_QUEUED);
    if (st >= GQL_WS_CLOSED)
      break;
    if (p.out.o.len > MAX_QUEUED / 2)
      p.out.o.len = 0; /* the transport wrote it */
  }
  if (p.ws.state == GQL_WS_OPEN)
    gql_ws_close(&p.ws, GQL_WS_CLOSE_NORMAL, "bye");
  gql_ws_free(&p.ws);
  http_buf_free(&p.out);
  unsigned created, lent;
  gql_ws_pool_counts(pool, &created, &lent);
  CHECK(lent == 0);
  CHECK(created <= 1);
  return 0;
}
