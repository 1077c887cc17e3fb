/* GraphQL over WebSocket on a server with an executor hook (ws_exec.c):
 * the executor's streamed payloads become `next` messages and the last one
 * `complete`, gql_http_exec_done one `next` and `complete`, the client's
 * `complete` or a closed socket run its cancel callback, an executor that
 * refuses gives an `error` message. Over a real socket, with the frame
 * layer (ws.c) as the client. */
#include "gql_http.h"
#include "http/ws.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static atomic_int cancels, streamed;

/* ------------------------------------------------------------ executor */

typedef struct stream {
  uv_timer_t timer;
  gql_http_exec *req;
  int n, last; /* payloads sent; the last one's number (0: until cancel) */
} stream;

static void stream_closed(uv_handle_t *h) {
  free(h->data);
}

static void tick(uv_timer_t *t) {
  stream *s = t->data;
  char json[64];
  int len = snprintf(json, sizeof json, "{\"data\":{\"s\":%d}}", ++s->n);
  bool more = s->n != s->last;
  gql_http_exec_payload(s->req, json, (size_t)len, more);
  if (!more) {
    uv_timer_stop(&s->timer);
    uv_close((uv_handle_t *)&s->timer, stream_closed);
  }
}

static void on_cancel(void *ud) {
  stream *s = ud;
  atomic_fetch_add(&cancels, 1);
  uv_timer_stop(&s->timer);
  gql_http_exec_payload(s->req, NULL, 0, false); /* ends it: sends nothing */
  uv_close((uv_handle_t *)&s->timer, stream_closed);
}

static int execute(void *worker, gql_http_exec *req) {
  (void)worker;
  const char *q = req->query.ptr;
  if (strstr(q, "refuse"))
    return GQL_EINVAL;
  if (gql_http_exec_streams(req))
    atomic_fetch_add(&streamed, 1);
  if (!strstr(q, "subscription")) {
    static const char r[] = "{\"data\":{\"a\":1}}";
    gql_http_exec_done(req, r, sizeof r - 1);
    return 0;
  }
  stream *s = calloc(1, sizeof *s);
  s->req = req;
  s->last = strstr(q, "three") ? 3 : 0;
  uv_timer_init(req->loop, &s->timer);
  s->timer.data = s;
  gql_http_exec_on_cancel(req, on_cancel, s);
  tick(&s->timer); /* the first payload from inside execute */
  uv_timer_start(&s->timer, tick, 10, 10);
  return 0;
}

static void *worker_start(void *ud, uv_loop_t *loop) {
  (void)loop;
  return ud;
}

static const gql_http_executor executor = {
    .ud = "w", .worker_start = worker_start, .execute = execute};

static gql_http_server *start(gql_schema **schema_out) {
  static const char sdl[] = "type Query { a: Int } "
                            "type Subscription { s: Int three: Int }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  gql_http_options o = {.port = -1, .threads = 1, .executor = &executor};
  gql_http_server *srv = NULL;
  cr_assert_eq(gql_http_server_new(s, &o, &srv), 0);
  cr_assert_eq(gql_http_server_start(srv), 0);
  *schema_out = s;
  return srv;
}

static void stop(gql_http_server *srv, gql_schema *schema) {
  gql_http_server_stop(srv);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(schema);
}

/* ------------------------------------------------------------ client */

typedef struct client {
  int fd;
  gql_ws_pool *pool;
  gql_ws ws;
  http_buf out;
  char msgs[16][256];
  unsigned nmsgs, taken;
} client;

static void c_message(void *ud, bool binary, const char *d, size_t n) {
  (void)binary;
  client *c = ud;
  if (c->nmsgs < 16)
    snprintf(c->msgs[c->nmsgs++], 256, "%.*s", (int)n, d);
}

static const gql_ws_handler c_handler = {c_message, NULL, NULL};

static void flush(client *c) {
  size_t off = 0;
  while (off < c->out.o.len) {
    ssize_t w = write(c->fd, c->out.o.data + off, c->out.o.len - off);
    cr_assert_gt(w, 0);
    off += (size_t)w;
  }
  c->out.o.len = 0;
}

static void say(client *c, const char *m) {
  gql_ws_send(&c->ws, false, m, strlen(m));
  flush(c);
}

/* The next message (asserted within the socket's 5 s timeout). */
static const char *next(client *c) {
  while (c->taken == c->nmsgs) {
    char buf[4096];
    ssize_t r = read(c->fd, buf, sizeof buf);
    cr_assert_gt(r, 0, "no message (%u so far)", c->nmsgs);
    gql_ws_feed(&c->ws, buf, (size_t)r);
    flush(c); /* pongs */
  }
  return c->msgs[c->taken++];
}

static void connect_client(client *c, int port) {
  memset(c, 0, sizeof *c);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_eq(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0);
  struct timeval tv = {.tv_sec = 5};
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char key[25];
  gql_ws_client_key(key);
  gql_ws_client_request(&c->out, "127.0.0.1", "/graphql", key,
                        GQL_WS_PROTOCOL_GRAPHQL);
  flush(c);
  char head[1024];
  size_t len = 0;
  char *end = NULL;
  while (!end) {
    ssize_t r = read(c->fd, head + len, sizeof head - len - 1);
    cr_assert_gt(r, 0);
    len += (size_t)r;
    end = memmem(head, len, "\r\n\r\n", 4);
  }
  const char *why = NULL;
  cr_assert(gql_ws_client_check(head, (size_t)(end + 4 - head), key,
                                GQL_WS_PROTOCOL_GRAPHQL, &why),
            "%s", why);
  c->pool = gql_ws_pool_new(NULL);
  gql_ws_init(&c->ws, c->pool, GQL_WS_CLIENT, &c_handler, c, &c->out);
  size_t rest = len - (size_t)(end + 4 - head);
  if (rest)
    gql_ws_feed(&c->ws, end + 4, rest);
  say(c, "{\"type\":\"connection_init\"}");
  cr_assert_str_eq(next(c), "{\"type\":\"connection_ack\"}");
}

static void close_client(client *c) {
  close(c->fd);
  gql_ws_free(&c->ws);
  http_buf_free(&c->out);
  gql_ws_pool_free(c->pool);
}

static void wait_cancels(int n) {
  for (int i = 0; i < 200 && atomic_load(&cancels) < n; i++)
    usleep(10000);
  cr_expect_eq(atomic_load(&cancels), n);
}

Test(ws_exec, streamed_payloads_are_next_messages_then_complete) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  client c;
  connect_client(&c, gql_http_server_port(srv));
  say(&c, "{\"id\":\"a\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"subscription { three }\"}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"a\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"s\":1}}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"a\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"s\":2}}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"a\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"s\":3}}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"a\",\"type\":\"complete\"}");
  /* a query: gql_http_exec_done is one next and complete */
  say(&c, "{\"id\":\"q\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"{ a }\"}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"q\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"a\":1}}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"q\",\"type\":\"complete\"}");
  cr_expect_eq(atomic_load(&streamed), 2);
  cr_expect_eq(atomic_load(&cancels), 0);
  close_client(&c);
  stop(srv, schema);
}

Test(ws_exec, the_clients_complete_runs_the_cancel_and_sends_nothing_more) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  client c;
  connect_client(&c, gql_http_server_port(srv));
  say(&c, "{\"id\":\"s\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"subscription { s }\"}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"s\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"s\":1}}}");
  next(&c);
  say(&c, "{\"id\":\"s\",\"type\":\"complete\"}");
  wait_cancels(1);
  /* the socket goes on: the same id again, then a query */
  say(&c, "{\"id\":\"s\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"{ a }\"}}");
  const char *m;
  while (strstr(m = next(&c), "\"s\":")) /* ticks sent before the cancel */
    ;
  cr_expect_str_eq(m, "{\"id\":\"s\",\"type\":\"next\",\"payload\":"
                      "{\"data\":{\"a\":1}}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"s\",\"type\":\"complete\"}");
  /* the socket closing cancels what runs */
  say(&c, "{\"id\":\"t\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"subscription { s }\"}}");
  cr_expect_str_eq(next(&c), "{\"id\":\"t\",\"type\":\"next\",\"payload\":"
                             "{\"data\":{\"s\":1}}}");
  close_client(&c);
  wait_cancels(2);
  stop(srv, schema);
}

Test(ws_exec, an_executor_that_refuses_gives_an_error_message) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  client c;
  connect_client(&c, gql_http_server_port(srv));
  say(&c, "{\"id\":\"r\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"query refuse { a }\"}}");
  const char *m = next(&c);
  static const char refused[] = "{\"id\":\"r\",\"type\":\"error\","
                                "\"payload\":[{\"message\":";
  cr_expect(strncmp(m, refused, sizeof refused - 1) == 0, "%s", m);
  /* an operation that does not validate: the protocol's error, no call */
  say(&c, "{\"id\":\"v\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"{ nope }\"}}");
  m = next(&c);
  cr_expect_not_null(strstr(m, "\"type\":\"error\""), "%s", m);
  cr_expect_not_null(strstr(m, "nope"), "%s", m);
  close_client(&c);
  stop(srv, schema);
}

Test(ws_exec, stopping_the_server_cancels_open_operations) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  client c;
  connect_client(&c, gql_http_server_port(srv));
  say(&c, "{\"id\":\"s\",\"type\":\"subscribe\",\"payload\":{\"query\":"
          "\"subscription { s }\"}}");
  next(&c);
  gql_http_server_stop(srv);
  wait_cancels(1);
  /* the server waits for the client's close frame or its socket closing */
  close_client(&c);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(schema);
}
