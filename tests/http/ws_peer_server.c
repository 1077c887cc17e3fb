/* A test server for the npm graphql-ws client: gql's WebSocket framing and
 * graphql-transport-ws machine on a libuv socket, with a fake executor,
 * until the real server serves subscriptions. It prints "PORT n" once it
 * listens on 127.0.0.1 and runs until killed.
 *
 * The fake executor: a query naming `count` streams {"count":1..3} 20 ms
 * apart, then completes; `tick` streams every 20 ms until cancelled;
 * `fail` answers an error message; `cancels` answers how many operations
 * the clients cancelled; anything else answers {"hello":"world"} once.
 * connection_init with {"token":"bad"} is refused (4403), with
 * {"token":"later"} acknowledged 50 ms later with a payload.
 * Limits: init timeout 300 ms, messages up to 64 KiB. */
#include "http/graphql_ws.h"
#include "http/ws.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <uv.h>

#include "peer_server.h"

typedef struct conn conn;

typedef struct op_state {
  conn *c;
  gql_gws_op *op;
  uv_timer_t timer;
  int n, limit;
  struct op_state *next;
} op_state;

struct conn {
  uv_tcp_t tcp;
  uv_timer_t timer; /* the machine's clock; the later ack */
  uv_write_t wreq;
  http_buf head;
  bool upgraded, writing, closing, ack_later;
  gql_ws ws;
  gql_gws g;
  http_buf out, wbuf;
  int handles;
};

static uv_loop_t *loop;
static gql_ws_pool *pool;
static gql_gws_env *env;
static int cancels;

static void flush(conn *c);

static void on_handle_closed(uv_handle_t *h) {
  conn *c = h->data;
  if (--c->handles == 0) {
    http_buf_free(&c->head);
    http_buf_free(&c->out);
    http_buf_free(&c->wbuf);
    free(c);
  }
}

static void conn_close(conn *c) {
  if (c->closing)
    return;
  c->closing = true;
  if (c->upgraded) {
    gql_gws_free(&c->g);
    gql_ws_free(&c->ws);
  }
  uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&c->timer, on_handle_closed);
}

/* After a flush: a finished WebSocket closes its socket. */
static void settle(conn *c) {
  if (c->closing || c->writing || c->out.o.len)
    return;
  if (!c->upgraded || c->ws.state >= GQL_WS_CLOSED)
    conn_close(c);
}

static void on_write(uv_write_t *req, int status) {
  conn *c = req->data;
  c->writing = false;
  c->ws.inflight = 0;
  c->wbuf.o.len = 0;
  if (status < 0) {
    conn_close(c);
    return;
  }
  flush(c);
}

static void flush(conn *c) {
  if (c->closing)
    return;
  if (c->upgraded && c->ws.state == GQL_WS_TERMINATED) {
    conn_close(c);
    return;
  }
  if (!c->writing && c->out.o.len) {
    http_buf t = c->wbuf;
    c->wbuf = c->out;
    c->out = t;
    c->out.o.len = 0;
    c->ws.inflight = c->wbuf.o.len;
    uv_buf_t b = uv_buf_init(c->wbuf.o.data, (unsigned)c->wbuf.o.len);
    c->wreq.data = c;
    if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_write) != 0) {
      conn_close(c);
      return;
    }
    c->writing = true;
  }
  settle(c);
}

/* ------------------------------------------------------------ executor */

static void op_closed(uv_handle_t *h) {
  free(h->data);
}

static void op_stop(op_state *s) {
  uv_timer_stop(&s->timer);
  uv_close((uv_handle_t *)&s->timer, op_closed);
}

static void op_tick(uv_timer_t *t) {
  op_state *s = t->data;
  char ev[64];
  int n = snprintf(ev, sizeof ev, "{\"data\":{\"%s\":%d}}",
                   s->limit ? "count" : "tick", ++s->n);
  gql_gws_next(s->op, ev, (size_t)n);
  if (s->limit && s->n == s->limit) {
    gql_gws_complete(s->op);
    op_stop(s);
  }
  flush(s->c);
}

static void g_send(void *ud, const char *text, size_t len) {
  conn *c = ud;
  gql_ws_send(&c->ws, false, text, len);
}

static void g_close(void *ud, uint16_t code, const char *reason) {
  conn *c = ud;
  gql_ws_close(&c->ws, code, reason);
}

static void ack_later(uv_timer_t *t) {
  conn *c = t->data;
  gql_gws_accept(&c->g, "{\"later\":true}", 14);
  flush(c);
}

static gql_gws_verdict g_connect(void *ud, const gql_value *payload) {
  conn *c = ud;
  /* (a token that is not a string reads as "") */
  gql_str tok = gql_value_string(gql_value_get(payload, "token", 5));
  if (http_str_is(tok, "bad"))
    return GQL_GWS_REJECT;
  if (http_str_is(tok, "later")) {
    c->ack_later = true;
    uv_timer_start(&c->timer, ack_later, 50, 0);
    return GQL_GWS_LATER;
  }
  return GQL_GWS_ACCEPT;
}

static bool has(gql_str q, const char *word) {
  return memmem(q.ptr, q.len, word, strlen(word)) != NULL;
}

static void g_subscribe(void *ud, gql_gws_op *op, const gql_gws_request *rq) {
  conn *c = ud;
  if (has(rq->query, "count") || has(rq->query, "tick")) {
    op_state *s = calloc(1, sizeof *s);
    s->c = c;
    s->op = op;
    s->limit = has(rq->query, "count") ? 3 : 0;
    op->user = s;
    uv_timer_init(loop, &s->timer);
    s->timer.data = s;
    uv_timer_start(&s->timer, op_tick, 20, 20);
    return;
  }
  if (has(rq->query, "fail")) {
    static const char errs[] = "[{\"message\":\"boom\"}]";
    gql_gws_error(op, errs, sizeof errs - 1);
    return;
  }
  char res[96];
  int n =
      has(rq->query, "cancels")
          ? snprintf(res, sizeof res, "{\"data\":{\"cancels\":%d}}", cancels)
          : snprintf(res, sizeof res, "{\"data\":{\"hello\":\"world\"}}");
  gql_gws_next(op, res, (size_t)n);
  gql_gws_complete(op);
}

static void g_cancel(void *ud, gql_gws_op *op) {
  (void)ud;
  cancels++;
  if (op->user)
    op_stop(op->user);
}

static const gql_gws_handler gws_handler = {g_send, g_close, g_connect,
                                            g_subscribe, g_cancel};

/* ------------------------------------------------------------ WebSocket */

static void w_message(void *ud, bool binary, const char *d, size_t n) {
  (void)binary;
  conn *c = ud;
  gql_gws_on_message(&c->g, d, n);
}

static void w_close(void *ud, uint16_t code, gql_str reason) {
  (void)code;
  (void)reason;
  conn *c = ud;
  gql_gws_free(&c->g); /* the client is gone: cancel what runs */
}

static const gql_ws_handler ws_handler = {w_message, NULL, w_close};

static void clock_tick(uv_timer_t *t) {
  conn *c = t->data;
  gql_gws_tick(&c->g, uv_now(loop));
  flush(c);
}

/* The value of header `name` in the request head (first line excluded). */
static gql_str header(const http_buf *h, const char *name) {
  size_t nl = strlen(name);
  const char *p = memchr(h->o.data, '\n', h->o.len),
             *end = h->o.data + h->o.len;
  while (p && p + 1 < end) {
    const char *line = p + 1;
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol)
      break;
    if ((size_t)(eol - line) > nl && line[nl] == ':' &&
        strncasecmp(line, name, nl) == 0) {
      const char *a = line + nl + 1, *b = eol;
      while (a < b && *a == ' ')
        a++;
      while (b > a && (b[-1] == '\r' || b[-1] == ' '))
        b--;
      return (gql_str){a, (size_t)(b - a)};
    }
    p = eol;
  }
  return (gql_str){"", 0};
}

static void upgrade(conn *c, size_t head_len) {
  const char *sp = memchr(c->head.o.data, ' ', c->head.o.len);
  gql_ws_upgrade rq = {
      .method = {c->head.o.data, sp ? (size_t)(sp - c->head.o.data) : 0},
      .http_major = 1,
      .http_minor = 1,
      .upgrade = header(&c->head, "Upgrade"),
      .connection = header(&c->head, "Connection"),
      .key = header(&c->head, "Sec-WebSocket-Key"),
      .version = header(&c->head, "Sec-WebSocket-Version"),
      .protocols = header(&c->head, "Sec-WebSocket-Protocol")};
  static const char *const supported[] = {GQL_WS_PROTOCOL_GRAPHQL, NULL};
  gql_ws_handshake h;
  bool ok = gql_ws_handshake_check(&rq, supported, &h);
  gql_ws_handshake_write(&c->out, &h);
  if (!ok) {
    c->upgraded = false;
    flush(c); /* then closes */
    return;
  }
  c->upgraded = true;
  gql_ws_init(&c->ws, pool, GQL_WS_SERVER, &ws_handler, c, &c->out);
  gql_gws_init(&c->g, env, &gws_handler, c, uv_now(loop));
  uv_timer_start(&c->timer, clock_tick, 50, 50);
  if (!h.protocol) /* graphql-ws: accepted, then closed */
    gql_gws_close(&c->g, GQL_GWS_SUBPROTOCOL, "Subprotocol not acceptable");
  size_t rest = c->head.o.len - head_len;
  if (rest)
    gql_ws_feed(&c->ws, c->head.o.data + head_len, rest);
  c->head.o.len = 0;
  flush(c);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  conn *c = s->data;
  if (n < 0) {
    conn_close(c);
    return;
  }
  if (!n || c->closing)
    return;
  if (c->upgraded) {
    gql_ws_feed(&c->ws, b->base, (size_t)n);
    flush(c);
    return;
  }
  http_buf_append(&c->head, b->base, (size_t)n);
  const char *end = memmem(c->head.o.data, c->head.o.len, "\r\n\r\n", 4);
  if (end)
    upgrade(c, (size_t)(end + 4 - c->head.o.data));
  else if (c->head.o.len > 16384)
    conn_close(c);
}

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0)
    return;
  conn *c = calloc(1, sizeof *c);
  c->head = (http_buf){0};
  c->out = (http_buf){0};
  c->wbuf = (http_buf){0};
  uv_tcp_init(loop, &c->tcp);
  uv_timer_init(loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  c->handles = 2;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
    conn_close(c);
    return;
  }
  uv_read_start((uv_stream_t *)&c->tcp, peer_alloc, on_read);
}

int main(void) {
  loop = uv_default_loop();
  pool = gql_ws_pool_new(&(gql_ws_limits){.max_message = 65536});
  env = gql_gws_env_new(&(gql_gws_limits){.init_timeout_ms = 300});
  return peer_serve(loop, on_connection);
}
