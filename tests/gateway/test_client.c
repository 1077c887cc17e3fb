/*
 * The subgraph client over real sockets on 127.0.0.1, against a scripted
 * server on the same libuv loop: completion at the JSON root end before
 * the chunk terminator arrives, the connection reused after the drain, a
 * drain past its byte bound closing the connection, connect refused and
 * an oversized body as errors, and every handle closed at the end.
 */
#include "gateway/client.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct fake {
  uv_tcp_t listener;
  int port;
  int accepted, requests;
  const char *head; /* written once a request has arrived */
  const char *tail; /* written delay_ms later (NULL: nothing) */
  unsigned delay_ms;
  bool tail_sent;
  int open; /* connections not closed */
} fake;

typedef struct fconn {
  fake *f;
  uv_tcp_t tcp;
  uv_timer_t timer;
  gql_buf in;
  int handles;
} fconn;

typedef struct answer {
  int calls;
  int status;
  char why[200];
  char json[256];
  bool tail_sent; /* the server had sent the tail when the answer came */
  fake *f;
} answer;

static void on_fconn_closed(uv_handle_t *h) {
  fconn *k = h->data;
  if (--k->handles)
    return;
  k->f->open--;
  gql_buf_free(&k->in);
  free(k);
}

static void fconn_close(fconn *k) {
  if (uv_is_closing((uv_handle_t *)&k->tcp))
    return;
  uv_close((uv_handle_t *)&k->tcp, on_fconn_closed);
  uv_close((uv_handle_t *)&k->timer, on_fconn_closed);
}

static void on_written(uv_write_t *w, int status) {
  (void)status;
  free(w);
}

static void write_str(fconn *k, const char *s) {
  uv_write_t *w = malloc(sizeof *w);
  uv_buf_t b = uv_buf_init((char *)s, (unsigned)strlen(s));
  if (uv_write(w, (uv_stream_t *)&k->tcp, &b, 1, on_written) < 0)
    free(w);
}

static void on_tail(uv_timer_t *t) {
  fconn *k = t->data;
  k->f->tail_sent = true;
  write_str(k, k->f->tail);
}

static void fake_alloc(uv_handle_t *h, size_t n, uv_buf_t *b) {
  (void)h;
  *b = uv_buf_init(malloc(n), (unsigned)n);
}

static void fake_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  fconn *k = s->data;
  if (n < 0) {
    fconn_close(k);
  } else if (n > 0) {
    gql_buf_append(&k->in, b->base, (size_t)n);
    const char *end = memmem(k->in.data, k->in.len, "\r\n\r\n", 4);
    const char *cl = memmem(k->in.data, k->in.len, "Content-Length: ", 16);
    if (end && cl) {
      size_t want = (size_t)(end + 4 - k->in.data) + strtoul(cl + 16, NULL, 10);
      if (k->in.len >= want) {
        k->in.len = 0;
        k->f->requests++;
        k->f->tail_sent = false;
        write_str(k, k->f->head);
        if (k->f->tail)
          uv_timer_start(&k->timer, on_tail, k->f->delay_ms, 0);
      }
    }
  }
  free(b->base);
}

static void on_fake_conn(uv_stream_t *server, int status) {
  fake *f = server->data;
  cr_assert_eq(status, 0);
  fconn *k = calloc(1, sizeof *k);
  k->f = f;
  gql_buf_init(&k->in, NULL);
  uv_tcp_init(server->loop, &k->tcp);
  uv_timer_init(server->loop, &k->timer);
  k->tcp.data = k->timer.data = k;
  k->handles = 2;
  f->open++;
  cr_assert_eq(uv_accept(server, (uv_stream_t *)&k->tcp), 0);
  f->accepted++;
  uv_read_start((uv_stream_t *)&k->tcp, fake_alloc, fake_read);
}

static void fake_start(uv_loop_t *loop, fake *f) {
  struct sockaddr_in a;
  uv_ip4_addr("127.0.0.1", 0, &a);
  uv_tcp_init(loop, &f->listener);
  f->listener.data = f;
  cr_assert_eq(uv_tcp_bind(&f->listener, (const struct sockaddr *)&a, 0), 0);
  cr_assert_eq(uv_listen((uv_stream_t *)&f->listener, 64, on_fake_conn), 0);
  struct sockaddr_storage ss;
  int len = sizeof ss;
  uv_tcp_getsockname(&f->listener, (struct sockaddr *)&ss, &len);
  f->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void on_answer(void *ud, int status, const char *why, const char *json,
                      size_t len) {
  answer *a = ud;
  a->calls++;
  a->status = status;
  snprintf(a->why, sizeof a->why, "%s", why ? why : "");
  snprintf(a->json, sizeof a->json, "%.*s", (int)len, json ? json : "");
  a->tail_sent = a->f ? a->f->tail_sent : false;
}

/* Runs the loop until *calls reaches n (at most 5 s). */
static void run_until(uv_loop_t *loop, const int *calls, int n) {
  uint64_t deadline = uv_hrtime() + 5000000000ull;
  while (*calls < n && uv_hrtime() < deadline)
    uv_run(loop, UV_RUN_ONCE);
  cr_assert_eq(*calls, n, "no answer in time");
}

static void on_wake(uv_timer_t *t) {
  *(int *)t->data = 1;
}

/* Runs the loop for `ms`. */
static void sleep_loop(uv_loop_t *loop, unsigned ms) {
  uv_timer_t t;
  int fired = 0;
  uv_timer_init(loop, &t);
  t.data = &fired;
  uv_timer_start(&t, on_wake, ms, 0);
  while (!fired)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
}

static void print_handle(uv_handle_t *h, void *arg) {
  (void)arg;
  fprintf(stderr, "open handle: %s closing=%d\n", uv_handle_type_name(h->type),
          uv_is_closing(h));
}

static int close_loop(uv_loop_t *loop) {
  uv_walk(loop, print_handle, NULL);
  return uv_loop_close(loop);
}

static gql_gw_client *client_for(uv_loop_t *loop, int port,
                                 const gql_gw_client_options *o) {
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/graphql", port);
  gql_str u = gql_cstr(url);
  gql_gw_client *c = NULL;
  cr_assert_eq(gql_gw_client_new(loop, &u, 1, o, &c, NULL), 0);
  return c;
}

#define CHUNKED_HEAD                                                           \
  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"                          \
  "Content-Type: application/json\r\n\r\n"

Test(gateway_client, answers_at_root_end_before_the_terminator_then_reuses) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  fake f = {.head = CHUNKED_HEAD "d\r\n{\"data\":{}}\r\n\r\n",
            .tail = "0\r\n\r\n",
            .delay_ms = 600}; /* long: a loaded machine must not reach it */
  fake_start(&loop, &f);
  gql_gw_client *c = client_for(&loop, f.port, NULL);
  answer a = {.f = &f};
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  cr_assert_eq(a.calls, 0, "the callback never runs inside post");
  run_until(&loop, &a.calls, 1);
  cr_expect_eq(a.status, 0, "%s", a.why);
  cr_expect_str_eq(a.json, "{\"data\":{}}");
  cr_expect_not(a.tail_sent, "answered before the chunk terminator");
  sleep_loop(&loop, 900); /* the terminator arrives: drained, pooled */
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  run_until(&loop, &a.calls, 2);
  cr_expect_eq(a.status, 0, "%s", a.why);
  cr_expect_eq(f.requests, 2);
  cr_expect_eq(f.accepted, 1, "the connection was reused");
  cr_expect_eq(gql_gw_client_connects(c), 1);
  gql_gw_client_close(c); /* the draining connection closes after it */
  uv_close((uv_handle_t *)&f.listener, NULL);
  sleep_loop(&loop, 1500); /* past the second terminator, with room */
  gql_gw_client_free(c);
  cr_expect_eq(close_loop(&loop), 0, "every handle closed");
}

Test(gateway_client, a_drain_past_its_byte_bound_closes_the_connection) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  static char tail[8192];
  memset(tail, 0, sizeof tail);
  strcpy(tail, "1000\r\n");
  memset(tail + 6, ' ', 4096);
  strcpy(tail + 6 + 4096, "\r\n0\r\n\r\n");
  fake f = {.head = CHUNKED_HEAD "d\r\n{\"data\":{}}\r\n\r\n",
            .tail = tail,
            .delay_ms = 20};
  fake_start(&loop, &f);
  gql_gw_client_options o = {.drain_max_bytes = 1024};
  gql_gw_client *c = client_for(&loop, f.port, &o);
  answer a = {.f = &f};
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  run_until(&loop, &a.calls, 1);
  cr_expect_eq(a.status, 0, "%s", a.why);
  sleep_loop(&loop, 200);
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  run_until(&loop, &a.calls, 2);
  cr_expect_eq(a.status, 0, "%s", a.why);
  cr_expect_eq(f.accepted, 2, "the over-long drain closed the first one");
  gql_gw_client_close(c);
  uv_close((uv_handle_t *)&f.listener, NULL);
  sleep_loop(&loop, 50);
  gql_gw_client_free(c);
  cr_expect_eq(close_loop(&loop), 0, "every handle closed");
}

Test(gateway_client, connect_refused_is_an_error_after_post_returns) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  fake f = {0};
  fake_start(&loop, &f); /* a port that was free... */
  int port = f.port;
  uv_close((uv_handle_t *)&f.listener, NULL); /* ...and is closed now */
  uv_run(&loop, UV_RUN_NOWAIT);
  gql_gw_client *c = client_for(&loop, port, NULL);
  answer a = {0};
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  cr_assert_eq(a.calls, 0);
  run_until(&loop, &a.calls, 1);
  cr_expect_lt(a.status, 0);
  cr_expect(strstr(a.why, "ECONNREFUSED") != NULL, "%s", a.why);
  gql_gw_client_close(c);
  sleep_loop(&loop, 20);
  gql_gw_client_free(c);
  cr_expect_eq(close_loop(&loop), 0, "every handle closed");
}

Test(gateway_client, a_body_over_max_response_is_an_error) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  fake f = {.head = "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n"
                    "{\"data\":{\"a\":\"0123456789012345678\"}}  "};
  fake_start(&loop, &f);
  gql_gw_client_options o = {.max_response = 16};
  gql_gw_client *c = client_for(&loop, f.port, &o);
  answer a = {0};
  cr_assert_eq(gql_gw_client_post(c, 0, NULL, "{}", 2, on_answer, &a), 0);
  run_until(&loop, &a.calls, 1);
  cr_expect_lt(a.status, 0);
  cr_expect(strstr(a.why, "too large") != NULL, "%s", a.why);
  gql_gw_client_close(c);
  uv_close((uv_handle_t *)&f.listener, NULL);
  sleep_loop(&loop, 50);
  gql_gw_client_free(c);
  cr_expect_eq(close_loop(&loop), 0, "every handle closed");
}

Test(gateway_client, unusable_urls_are_refused) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  gql_str urls[] = {gql_cstr("http://127.0.0.1:4001/a"),
                    gql_cstr("https://127.0.0.1/b")};
  gql_gw_client *c = NULL;
  uint32_t bad = 99;
  cr_expect_eq(gql_gw_client_new(&loop, urls, 2, NULL, &c, &bad), GQL_EINVAL);
  cr_expect_eq(bad, 1);
  gql_str port[] = {gql_cstr("http://127.0.0.1:99999/")};
  cr_expect_eq(gql_gw_client_new(&loop, port, 1, NULL, &c, &bad), GQL_EINVAL);
  cr_expect_eq(uv_loop_close(&loop), 0);
}
