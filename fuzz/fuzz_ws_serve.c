/* libFuzzer target: a client's bytes into a server connection that
 * upgrades to GraphQL over WebSocket (conn.c -> handler.c ->
 * subscriptions.c -> ws.c, graphql_ws.c, gql's executor), without a
 * socket. Each input starts with a valid upgrade; then, per the first
 * byte's top bit, either raw bytes (bad framing, unmasked frames) or
 * records [flags][len][payload] that the harness turns into masked
 * frames (opcode and FIN from flags), so the fuzzer reaches the
 * graphql-transport-ws messages and the operations they run. Between
 * pieces the clock moves (init timeout, pings) and every open
 * subscription's source pushes an event or ends. The server's output
 * after the 101 must be frames a WebSocket client accepts; an execute
 * hook refuses `"authorization":"bad"` and reads every header. */
#include "http/http.h"
#include "http/ws.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_STREAMS 64
static gql_stream *streams[MAX_STREAMS];
static int nstreams;

static void on_cancel(void *ud) {
  gql_stream **slot = ud;
  *slot = NULL;
}

static void ticks(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  int i = 0;
  while (i < MAX_STREAMS && streams[i])
    i++;
  if (i == MAX_STREAMS) {
    gql_out_error(out, "too many");
    return;
  }
  streams[i] =
      gql_out_stream(out, &(gql_stream_source){on_cancel, &streams[i]});
  if (i >= nstreams)
    nstreams = i + 1;
}

static void ok(const gql_resolve_info *info, const void *parent, gql_out *out) {
  (void)parent;
  gql_http_request *r = gql_http_request_of(info);
  const char *who = r ? gql_http_request_context(r) : NULL;
  gql_out_string(out, who ? who : "anonymous", who ? strlen(who) : 9);
}

static void on_execute(void *w, gql_http_request *r) {
  (void)w;
  uint32_t n = gql_http_request_header_count(r);
  for (uint32_t i = 0; i < n; i++) {
    gql_str k, v;
    if (!gql_http_request_header_at(r, i, &k, &v))
      abort();
  }
  gql_str a = gql_http_request_header(r, "authorization");
  if (a.ptr && http_str_is(a, "bad"))
    gql_http_request_reject(r, 401, "bad", "UNAUTHENTICATED");
  else if (a.ptr)
    gql_http_request_set_context(r, "someone");
}

static const gql_http_hooks hooks = {.execute = on_execute};

typedef struct harness {
  gql_http_options opt;
  gql_http_ctx x;
  uv_loop_t loop;
} harness;

static harness *harness_get(void) {
  static harness h;
  static bool made;
  if (made)
    return &h;
  static const char sdl[] = "type Query { ok: String }\n"
                            "type Mutation { ok: String }\n"
                            "type Tick { n: Int, s: String }\n"
                            "type Subscription { ticks(a: Int): Tick }\n";
  gql_schema *s = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL) < 0 ||
      gql_schema_set_resolver(s, "Subscription", "ticks", ticks, NULL, 0) ||
      gql_schema_set_resolver(s, "Query", "ok", ok, NULL, 0) ||
      gql_schema_set_resolver(s, "Mutation", "ok", ok, NULL, 0) ||
      gql_schema_finalize(s) < 0)
    abort();
  gql_http_options o = {.max_body = 8192,
                        .max_header_bytes = 2048,
                        .max_headers = 16,
                        .cache_bytes = 64 * 1024,
                        .hooks = &hooks,
                        .subscription = {.max_per_connection = 8,
                                         .max_opened = 16,
                                         .queue_capacity = 4,
                                         .max_message = 4096,
                                         .init_timeout_ms = 5000,
                                         .ping_interval_ms = 3000}};
  gql_http_options_resolve(&o, &h.opt);
  gql_http_ctx_init(&h.x, s, &h.opt, 1);
  uv_loop_init(&h.loop);
  h.x.loop = &h.loop; /* never run: uv_now is its start */
  static _Atomic unsigned open_subs;
  h.x.open_subscriptions = &open_subs;
  made = true;
  return &h;
}

static const char upgrade[] =
    "GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n";

/* One masked frame of `op` (FIN per `fin`) around payload p[0..n). */
static size_t frame(uint8_t *out, uint8_t op, bool fin, const uint8_t *p,
                    size_t n) {
  static const uint8_t key[4] = {0x12, 0x34, 0x56, 0x78};
  size_t k = 0;
  out[k++] = (uint8_t)((fin ? 0x80 : 0) | (op & 0x0f));
  if (n < 126) {
    out[k++] = (uint8_t)(0x80 | n);
  } else {
    out[k++] = 0x80 | 126;
    out[k++] = (uint8_t)(n >> 8);
    out[k++] = (uint8_t)n;
  }
  memcpy(out + k, key, 4);
  k += 4;
  for (size_t i = 0; i < n; i++)
    out[k + i] = p[i] ^ key[i % 4];
  return k + n;
}

static void events(int round) {
  for (int i = 0; i < nstreams; i++) {
    if (!streams[i])
      continue;
    char ev[64];
    int n = snprintf(ev, sizeof ev, "{\"n\":%d,\"s\":\"x\"}", round);
    gql_stream *st = streams[i];
    if (round % 7 == 6) {
      streams[i] = NULL; /* ended by itself: no cancel comes */
      gql_stream_end(st);
    } else if (round % 11 == 10) {
      streams[i] = NULL;
      gql_stream_fail(st, "broken");
    } else
      gql_stream_push_json(streams[i], ev, (size_t)n);
  }
}

/* The server's frames after its 101 head, read by a client. */
static void client_message(void *ud, bool b, const char *d, size_t n) {
  (void)ud;
  (void)b;
  if (n && d[0] != '{')
    abort(); /* graphql-transport-ws sends JSON objects only */
}
static const gql_ws_handler client_handler = {client_message, NULL, NULL};

static void check_output(http_buf *out) {
  const char *p = out->o.data, *end = p + out->o.len;
  if (!p)
    return;
  const char *head = memmem(p, out->o.len, "\r\n\r\n", 4);
  if (!head)
    abort();
  if (memcmp(p, "HTTP/1.1 101 ", 13) != 0)
    return;
  static gql_ws_pool *pool;
  if (!pool)
    pool = gql_ws_pool_new(&(gql_ws_limits){.max_message = 1 << 22});
  http_buf cout = {0};
  gql_ws cl;
  gql_ws_init(&cl, pool, GQL_WS_CLIENT, &client_handler, NULL, &cout);
  gql_ws_feed(&cl, head + 4, (size_t)(end - (head + 4)));
  /* (a client echoes the code of the server's close frame) */
  if ((cl.close_sent == GQL_WS_CLOSE_PROTOCOL ||
       cl.close_sent == GQL_WS_CLOSE_BAD_DATA) &&
      cl.close_sent != cl.close_received)
    abort(); /* the server sent a frame a client must refuse */
  gql_ws_free(&cl);
  http_buf_free(&cout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  harness *h = harness_get();
  bool raw = data[0] & 0x80;
  size_t piece = (size_t)(data[0] % 64) + 1;
  data++;
  size--;
  /* the bytes after the upgrade head */
  uint8_t *in = malloc(size * 4 + 16);
  size_t len = 0;
  if (raw) {
    memcpy(in, data, size);
    len = size;
  } else {
    for (size_t i = 0; i + 2 <= size;) {
      uint8_t flags = data[i], n = data[i + 1];
      i += 2;
      if (n > size - i)
        n = (uint8_t)(size - i);
      len += frame(in + len, flags & 0x0f, !(flags & 0x10), data + i, n);
      i += n;
    }
  }
  gql_http_conn c;
  gql_http_conn_init(&c, &h->x);
  /* the head and the first piece arrive together */
  size_t first = len < piece ? len : piece;
  uint8_t *head = malloc(sizeof upgrade - 1 + first);
  memcpy(head, upgrade, sizeof upgrade - 1);
  memcpy(head + sizeof upgrade - 1, in, first);
  gql_http_conn_feed(&c, (const char *)head, sizeof upgrade - 1 + first);
  free(head);
  if (!c.ws)
    abort(); /* a valid upgrade */
  uint64_t now = uv_now(&h->loop);
  int round = 0;
  for (size_t i = first; i < len && gql_http_ws_state(c.ws) == 0; i += piece) {
    size_t n = len - i < piece ? len - i : piece;
    gql_http_ws_feed(c.ws, (const char *)in + i, n);
    events(++round);
    now += 700;
    gql_http_ws_tick(c.ws, now);
  }
  events(++round);
  gql_http_ws_tick(c.ws, now + 10000);
  check_output(&c.out);
  gql_http_conn_free(&c); /* cancels what is open */
  for (int i = 0; i < nstreams; i++)
    if (streams[i])
      abort(); /* a subscription outlived its socket */
  nstreams = 0;
  free(in);
  return 0;
}
