/* The gateway's graphql-transport-ws client (see ws_client.h). */
#include "gateway/ws_client.h"

#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>

/* A subgraph message is parsed into the connection's arena, reset per
 * message; deeper than this is refused (the frame layer bounds its size). */
#define WSC_MAX_DEPTH 256

static void end(gql_gw_wsc *c, const char *why, const char *errors,
                size_t len) {
  if (c->state == GQL_GW_WSC_ENDED)
    return;
  c->state = GQL_GW_WSC_ENDED;
  if (why && why != c->why)
    snprintf(c->why, sizeof c->why, "%s", why);
  c->h->end(c->ud, why ? c->why : NULL, errors, len);
}

/* Ends it for a fault of the subgraph's, closing with `code`. */
static void fault(gql_gw_wsc *c, uint16_t code, const char *why) {
  gql_ws_close(&c->ws, code, "Invalid message received");
  end(c, why, NULL, 0);
}

static void send_text(gql_gw_wsc *c, const char *text, size_t len) {
  gql_ws_send(&c->ws, false, text, len);
}

static void send_subscribe(gql_gw_wsc *c) {
  static const char pre[] = "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":";
  size_t n = sizeof pre - 1 + c->payload_len + 1;
  char *m = malloc(n);
  if (!m) {
    fault(c, GQL_WS_CLOSE_INTERNAL, "out of memory");
    return;
  }
  memcpy(m, pre, sizeof pre - 1);
  memcpy(m + sizeof pre - 1, c->payload, c->payload_len);
  m[n - 1] = '}';
  send_text(c, m, n);
  free(m);
}

static const gql_json_value *member(const gql_json_value *o, const char *k) {
  return gql_json_get(o, gql_cstr(k));
}

static bool is_str(const gql_json_value *v, const char *s) {
  return v && v->kind == GQL_JSON_STRING && gql_str_eq_cstr(v->string, s);
}

/* The message's id is ours ("1"). */
static bool ours(const gql_json_value *msg) {
  return is_str(member(msg, "id"), "1");
}

/* A subgraph's message: the protocol's steps. */
static void on_text(gql_gw_wsc *c, const char *d, size_t n) {
  gql_arena_reset(c->arena);
  gql_json_value *msg = NULL;
  gql_json_options jo = {.max_depth = WSC_MAX_DEPTH};
  int rc = gql_json_parse(c->arena, d, n, &jo, &msg, NULL);
  if (rc == GQL_ENOMEM) {
    fault(c, GQL_WS_CLOSE_INTERNAL, "out of memory");
    return;
  }
  const gql_json_value *type = rc ? NULL : member(msg, "type");
  if (!type || type->kind != GQL_JSON_STRING) {
    fault(c, 4400, "the subgraph sent a message that is not graphql-ws");
    return;
  }
  gql_str t = type->string;
  if (gql_str_eq_cstr(t, "ping")) {
    send_text(c, "{\"type\":\"pong\"}", 15);
    return;
  }
  if (gql_str_eq_cstr(t, "pong"))
    return;
  if (gql_str_eq_cstr(t, "connection_ack") && c->state == GQL_GW_WSC_INIT) {
    c->state = GQL_GW_WSC_RUNNING;
    send_subscribe(c);
    return;
  }
  if (c->state != GQL_GW_WSC_RUNNING || !ours(msg)) {
    fault(c, 4400, "the subgraph sent an unexpected graphql-ws message");
    return;
  }
  const gql_json_value *payload = member(msg, "payload");
  if (gql_str_eq_cstr(t, "next") && payload &&
      payload->kind == GQL_JSON_OBJECT) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    if (gql_json_write_value(&b, payload) < 0)
      fault(c, GQL_WS_CLOSE_INTERNAL, "out of memory");
    else
      c->h->event(c->ud, b.data, b.len);
    gql_buf_free(&b);
    return;
  }
  if (gql_str_eq_cstr(t, "complete")) {
    gql_ws_close(&c->ws, GQL_WS_CLOSE_NORMAL, "Normal Closure");
    end(c, NULL, NULL, 0);
    return;
  }
  if (gql_str_eq_cstr(t, "error") && payload &&
      payload->kind == GQL_JSON_ARRAY) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    gql_json_write_value(&b, payload);
    gql_ws_close(&c->ws, GQL_WS_CLOSE_NORMAL, "Normal Closure");
    end(c, "the subgraph refused the subscription", b.failed ? NULL : b.data,
        b.failed ? 0 : b.len);
    gql_buf_free(&b);
    return;
  }
  fault(c, 4400, "the subgraph sent an invalid graphql-ws message");
}

static void w_message(void *ud, bool binary, const char *d, size_t n) {
  (void)binary;
  gql_gw_wsc *c = ud;
  if (c->state != GQL_GW_WSC_ENDED)
    on_text(c, d, n);
}

static void w_close(void *ud, uint16_t code, gql_str reason) {
  gql_gw_wsc *c = ud;
  char why[160];
  snprintf(why, sizeof why, "the subgraph closed the connection (%u%s%.*s)",
           code, reason.len ? ": " : "",
           (int)(reason.len > 100 ? 100 : reason.len), reason.ptr);
  end(c, why, NULL, 0);
}

static const gql_ws_handler ws_handler = {w_message, NULL, w_close};

int gql_gw_wsc_init(gql_gw_wsc *c, gql_ws_pool *pool,
                    const gql_gw_wsc_handler *h, void *ud, const char *host,
                    const char *path, const char *headers, const char *payload,
                    size_t len) {
  memset(c, 0, sizeof *c);
  c->h = h;
  c->ud = ud;
  c->arena = gql_arena_new(NULL);
  c->payload = malloc(len ? len : 1);
  if (!c->arena || !c->payload) {
    gql_gw_wsc_free(c);
    return GQL_ENOMEM;
  }
  memcpy(c->payload, payload, len);
  c->payload_len = len;
  gql_ws_client_key(c->key);
  gql_ws_init(&c->ws, pool, GQL_WS_CLIENT, &ws_handler, c, &c->out);
  http_buf *o = &c->out;
  http_buf_puts(o, "GET ");
  http_buf_puts(o, path);
  http_buf_puts(o, " HTTP/1.1\r\nHost: ");
  http_buf_puts(o, host);
  http_buf_puts(o, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: ");
  http_buf_puts(o, c->key);
  http_buf_puts(o, "\r\nSec-WebSocket-Version: "
                   "13\r\nSec-WebSocket-Protocol: " GQL_WS_PROTOCOL_GRAPHQL
                   "\r\n");
  if (headers)
    http_buf_puts(o, headers);
  http_buf_puts(o, "\r\n");
  c->state = GQL_GW_WSC_UPGRADING;
  return c->out.failed ? GQL_ENOMEM : 0;
}

void gql_gw_wsc_free(gql_gw_wsc *c) {
  if (c->h) /* initialised (its ws too) */
    gql_ws_free(&c->ws);
  http_buf_free(&c->out);
  gql_arena_free(c->arena);
  free(c->payload);
  c->arena = NULL;
  c->payload = NULL;
  c->h = NULL;
}

/* The upgrade's answer: its head (bounded), then frames. Returns the bytes
 * of `d` taken by the head, or -1 once ended. */
static long take_head(gql_gw_wsc *c, const char *d, size_t len) {
  size_t room = sizeof c->head - c->head_len;
  size_t take = len < room ? len : room;
  memcpy(c->head + c->head_len, d, take);
  size_t have = c->head_len + take;
  /* the blank line may straddle two reads: search from 3 bytes back */
  size_t from = c->head_len > 3 ? c->head_len - 3 : 0;
  const char *end_at = NULL;
  for (size_t i = from; i + 4 <= have; i++)
    if (memcmp(c->head + i, "\r\n\r\n", 4) == 0) {
      end_at = c->head + i + 4;
      break;
    }
  if (!end_at) {
    c->head_len = have;
    if (have < sizeof c->head)
      return (long)take;
    end(c, "the subgraph's upgrade answer is too long", NULL, 0);
    return -1;
  }
  size_t head = (size_t)(end_at - c->head);
  const char *why = NULL;
  if (!gql_ws_client_check(c->head, head, c->key, GQL_WS_PROTOCOL_GRAPHQL,
                           &why)) {
    char m[120];
    snprintf(m, sizeof m, "the subgraph refused the WebSocket upgrade (%s)",
             why);
    end(c, m, NULL, 0);
    return -1;
  }
  size_t used = head - c->head_len;
  c->head_len = head;
  c->state = GQL_GW_WSC_INIT;
  send_text(c, "{\"type\":\"connection_init\"}", 26);
  return (long)used;
}

gql_gw_wsc_state gql_gw_wsc_feed(gql_gw_wsc *c, const char *d, size_t len) {
  if (c->state == GQL_GW_WSC_ENDED)
    return GQL_GW_WSC_ENDED;
  if (c->state == GQL_GW_WSC_UPGRADING) {
    long used = take_head(c, d, len);
    if (used < 0)
      return GQL_GW_WSC_ENDED;
    d += used;
    len -= (size_t)used;
  }
  if (len && c->state != GQL_GW_WSC_UPGRADING &&
      gql_ws_feed(&c->ws, d, len) >= GQL_WS_CLOSED)
    end(c, c->ws.error ? c->ws.error : "the subgraph closed the connection",
        NULL, 0);
  return (gql_gw_wsc_state)c->state;
}

void gql_gw_wsc_complete(gql_gw_wsc *c) {
  if (c->state == GQL_GW_WSC_RUNNING)
    send_text(c, "{\"id\":\"1\",\"type\":\"complete\"}", 28);
  if (c->state != GQL_GW_WSC_UPGRADING)
    gql_ws_close(&c->ws, GQL_WS_CLOSE_NORMAL, "Normal Closure");
  c->state = GQL_GW_WSC_ENDED;
}

void gql_gw_wsc_fail(gql_gw_wsc *c, const char *why) {
  end(c, why, NULL, 0);
}

bool gql_gw_wsc_keepalive(gql_gw_wsc *c) {
  if (c->state == GQL_GW_WSC_ENDED || c->state == GQL_GW_WSC_UPGRADING)
    return true;
  if (gql_ws_keepalive(&c->ws))
    return true;
  end(c, "the subgraph stopped answering pings", NULL, 0);
  return false;
}
