/* Streamed responses over real sockets (src/http/stream.c): incremental
 * delivery of gql's executor (a deferred fragment waiting on a pending
 * resolver: the first payload comes before it), an executor hook's
 * payloads (gql_http_exec_payload) each flushed as it comes, the 406
 * refusal, and a client leaving mid-stream (the executor's cancel runs,
 * nothing leaks, the server goes on). */
#include "gql_http.h"
#include "later.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char sdl[] =
    "directive @defer(if: Boolean! = true, label: String) on "
    "FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "directive @stream(if: Boolean! = true, label: String, initialCount: "
    "Int! = 0) on FIELD\n"
    "type Query { later(ms: Int = 10): String fast: String }";

static void fast(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "fast", 4);
}

/* ---- an executor hook that streams: `count` payloads `ms` apart (count
 * 0: until cancelled), from a timer on the worker's loop */

typedef struct hook_req {
  uv_timer_t timer;
  gql_http_exec *req;
  int sent, count;
  bool cancelled;
} hook_req;

static atomic_int cancels, ended;
static int hook_count = 3, hook_ms = 60;

static void hook_closed(uv_handle_t *h) {
  free(h->data);
}

static void hook_tick(uv_timer_t *t) {
  hook_req *h = t->data;
  if (h->cancelled) { /* the client left: end the request, nothing sent */
    gql_http_exec_payload(h->req, NULL, 0, false);
    atomic_fetch_add(&ended, 1);
    uv_close((uv_handle_t *)&h->timer, hook_closed);
    return;
  }
  char json[64];
  int n = snprintf(json, sizeof json, "{\"n\":%d}", h->sent);
  h->sent++;
  bool more = h->count == 0 || h->sent < h->count;
  gql_http_exec_payload(h->req, json, (size_t)n, more);
  if (!more) {
    atomic_fetch_add(&ended, 1);
    uv_close((uv_handle_t *)&h->timer, hook_closed);
  }
}

static void hook_cancel(void *ud) {
  hook_req *h = ud;
  h->cancelled = true;
  atomic_fetch_add(&cancels, 1);
}

static void *hook_start(void *ud, uv_loop_t *loop) {
  (void)ud;
  return loop;
}

static int hook_execute(void *worker, gql_http_exec *req) {
  hook_req *h = calloc(1, sizeof *h);
  h->req = req;
  h->count = hook_count;
  uv_timer_init(worker, &h->timer);
  h->timer.data = h;
  gql_http_exec_on_cancel(req, hook_cancel, h);
  uv_timer_start(&h->timer, hook_tick, 0, (uint64_t)hook_ms);
  return 0;
}

static const gql_http_executor hook = {.worker_start = hook_start,
                                       .execute = hook_execute};

/* ---- the server and a raw client */

static gql_http_server *start(gql_schema **schema_out, bool with_hook) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "later", later, NULL, 0), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "fast", fast, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  gql_http_options o = {
      .port = -1, .threads = 1, .executor = with_hook ? &hook : NULL};
  gql_http_server *srv = NULL;
  cr_assert_eq(gql_http_server_new(s, &o, &srv), 0);
  cr_assert_eq(gql_http_server_start(srv), 0);
  *schema_out = s;
  return srv;
}

static void stop(gql_http_server *srv, gql_schema *s) {
  gql_http_server_stop(srv);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(s);
}

static int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  struct timeval tv = {.tv_sec = 5};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static void send_post(int fd, const char *accept, const char *body) {
  char req[2048];
  int n = snprintf(req, sizeof req,
                   "POST /graphql HTTP/1.1\r\nContent-Type: application/json"
                   "\r\nAccept: %s\r\nContent-Length: %zu\r\n\r\n%s",
                   accept, strlen(body), body);
  cr_assert_eq(write(fd, req, (size_t)n), n);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* What came in: the bytes, and when `marks[i]` first appeared in them. */
typedef struct got {
  char buf[65536];
  size_t len;
  double at[8];
} got;

/* Reads until `until` appears (or EOF / timeout), timing the marks. */
static bool read_until(int fd, got *g, const char *until, const char **marks,
                       int nmarks) {
  for (;;) {
    for (int i = 0; i < nmarks; i++)
      if (!g->at[i] && memmem(g->buf, g->len, marks[i], strlen(marks[i])))
        g->at[i] = now_ms();
    if (until && memmem(g->buf, g->len, until, strlen(until)))
      return true;
    ssize_t r = read(fd, g->buf + g->len, sizeof g->buf - 1 - g->len);
    if (r <= 0)
      return false;
    g->len += (size_t)r;
    g->buf[g->len] = 0;
  }
}

/* The body of a chunked response (the head skipped), chunks joined. */
static char *dechunk(const char *resp) {
  const char *p = strstr(resp, "\r\n\r\n");
  cr_assert(p, "no head end in %s", resp);
  p += 4;
  char *out = calloc(1, strlen(p) + 1);
  size_t n = 0;
  for (;;) {
    char *end;
    unsigned long size = strtoul(p, &end, 16);
    cr_assert(end != p && end[0] == '\r' && end[1] == '\n', "bad chunk at %s",
              p);
    p = end + 2;
    if (!size)
      break;
    memcpy(out + n, p, size);
    n += size;
    p += size;
    cr_assert(p[0] == '\r' && p[1] == '\n', "chunk without CRLF");
    p += 2;
  }
  return out;
}

#define PART "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
#define NEXT_PART "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"

/* ---- the executor hook */

Test(http_stream, executor_hook_payloads_arrive_one_by_one_as_multipart) {
  hook_count = 3;
  hook_ms = 80;
  gql_schema *s;
  gql_http_server *srv = start(&s, true);
  int fd = dial(gql_http_server_port(srv));
  send_post(fd, "multipart/mixed", "{\"query\":\"{ fast }\"}");
  static got g;
  memset(&g, 0, sizeof g);
  const char *marks[] = {"{\"n\":0}", "{\"n\":1}", "{\"n\":2}"};
  double t0 = now_ms();
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", marks, 3), "got %s", g.buf);
  cr_assert(strstr(g.buf, "Transfer-Encoding: chunked\r\n"));
  cr_assert(strstr(g.buf, "Content-Type: multipart/mixed; boundary=\"-\""));
  char *body = dechunk(g.buf);
  cr_assert_str_eq(body,
                   PART "{\"n\":0}\r\n---" NEXT_PART
                        "{\"n\":1}\r\n---" NEXT_PART "{\"n\":2}\r\n-----\r\n");
  free(body);
  /* flushed as they come: 80 ms apart, not all at the end (then the first
   * would come with the last, at 160 ms; the bound leaves room for a
   * loaded machine under the sanitizers) */
  cr_assert_lt(g.at[0] - t0, 150, "first after %.0f ms", g.at[0] - t0);
  cr_assert_gt(g.at[2] - g.at[0], 120, "spread %.0f ms", g.at[2] - g.at[0]);
  /* the connection serves the next request */
  memset(&g, 0, sizeof g);
  send_post(fd, "text/event-stream", "{\"query\":\"{ fast }\"}");
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", NULL, 0), "got %s", g.buf);
  body = dechunk(g.buf);
  cr_assert_str_eq(body, "event: next\ndata: {\"n\":0}\n\n"
                         "event: next\ndata: {\"n\":1}\n\n"
                         "event: next\ndata: {\"n\":2}\n\n"
                         "event: complete\ndata:\n\n");
  free(body);
  close(fd);
  stop(srv, s);
}

Test(http_stream, executor_hook_on_a_client_accepting_no_stream_gets_406) {
  hook_count = 3;
  hook_ms = 10;
  gql_schema *s;
  gql_http_server *srv = start(&s, true);
  int fd = dial(gql_http_server_port(srv));
  send_post(fd, "application/json", "{\"query\":\"{ fast }\"}");
  static got g;
  memset(&g, 0, sizeof g);
  cr_assert(read_until(fd, &g, "}]}", NULL, 0), "got %s", g.buf);
  cr_assert(strncmp(g.buf, "HTTP/1.1 406 ", 13) == 0, "got %s", g.buf);
  cr_assert(strstr(g.buf, "@defer or @stream"));
  cr_assert(strstr(g.buf, "\r\nAccept: multipart/mixed"));
  /* the later payloads wrote nothing; the connection goes on */
  memset(&g, 0, sizeof g);
  send_post(fd, "multipart/mixed", "{\"query\":\"{ fast }\"}");
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", NULL, 0), "got %s", g.buf);
  cr_assert(strncmp(g.buf, "HTTP/1.1 200 ", 13) == 0, "got %s", g.buf);
  close(fd);
  stop(srv, s);
}

Test(http_stream, client_closing_mid_stream_cancels_the_executor_hook) {
  hook_count = 0; /* until cancelled */
  hook_ms = 20;
  atomic_store(&cancels, 0);
  atomic_store(&ended, 0);
  gql_schema *s;
  gql_http_server *srv = start(&s, true);
  int port = gql_http_server_port(srv);
  int fd = dial(port);
  send_post(fd, "multipart/mixed", "{\"query\":\"{ fast }\"}");
  static got g;
  memset(&g, 0, sizeof g);
  const char *marks[] = {"{\"n\":2}"};
  cr_assert(read_until(fd, &g, "{\"n\":2}", marks, 1), "got %s", g.buf);
  close(fd);
  for (int i = 0; i < 200 && atomic_load(&ended) == 0; i++)
    usleep(10 * 1000);
  cr_assert_eq(atomic_load(&cancels), 1);
  cr_assert_eq(atomic_load(&ended), 1);
  /* the server goes on */
  hook_count = 1;
  fd = dial(port);
  memset(&g, 0, sizeof g);
  send_post(fd, "multipart/mixed", "{\"query\":\"{ fast }\"}");
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", NULL, 0), "got %s", g.buf);
  close(fd);
  stop(srv, s);
}

/* ---- gql's executor: @defer over a pending resolver */

Test(http_stream, first_payload_arrives_before_a_slow_deferred_field) {
  gql_schema *s;
  gql_http_server *srv = start(&s, false);
  int fd = dial(gql_http_server_port(srv));
  double t0 = now_ms();
  send_post(fd, "multipart/mixed",
            "{\"query\":\"{ fast ... @defer { later(ms: 300) } }\"}");
  static got g;
  memset(&g, 0, sizeof g);
  const char *marks[] = {"\"hasNext\":true}", "\"later\":\"later\""};
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", marks, 2), "got %s", g.buf);
  double first = g.at[0] - t0, last = g.at[1] - t0;
  fprintf(stderr,
          "time to first payload %.1f ms, to the deferred one %.1f ms\n", first,
          last);
  cr_assert_lt(first, 150, "first payload after %.0f ms", first);
  cr_assert_geq(last, 290, "deferred payload after %.0f ms", last);
  char *body = dechunk(g.buf);
  cr_assert_str_eq(
      body, PART
      "{\"data\":{\"fast\":\"fast\"},\"pending\":[{\"id\":\"0\",\"path\":"
      "[]}],\"hasNext\":true}\r\n---" NEXT_PART
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{"
      "\"later\":\"later\"}}],\"completed\":[{\"id\":\"0\"}]}\r\n-----\r\n");
  free(body);
  /* an operation that defers nothing answers as always */
  memset(&g, 0, sizeof g);
  send_post(fd, "application/json",
            "{\"query\":\"{ fast ... @defer(if: false) { later(ms: 1) } }\"}");
  cr_assert(read_until(fd, &g, "}}", NULL, 0), "got %s", g.buf);
  cr_assert(strstr(g.buf, "Content-Length: "), "got %s", g.buf);
  cr_assert(strstr(g.buf, "\r\n\r\n{\"data\":{\"fast\":\"fast\",\"later\":"
                          "\"later\"}}"),
            "got %s", g.buf);
  close(fd);
  stop(srv, s);
}

Test(http_stream, pending_stream_items_come_in_order_over_sse) {
  gql_schema *s;
  gql_http_server *srv = start(&s, false);
  int fd = dial(gql_http_server_port(srv));
  send_post(fd, "text/event-stream",
            "{\"query\":\"{ ... @defer(label: \\\"a\\\") { later(ms: 50) } "
            "... @defer(label: \\\"b\\\") { fast } }\"}");
  static got g;
  memset(&g, 0, sizeof g);
  cr_assert(read_until(fd, &g, "\r\n0\r\n\r\n", NULL, 0), "got %s", g.buf);
  cr_assert(strstr(g.buf, "Content-Type: text/event-stream"));
  char *body = dechunk(g.buf);
  cr_assert(strncmp(body, "event: next\ndata: {\"data\":{},\"pending\":", 39) ==
                0,
            "got %s", body);
  cr_assert(strstr(body, "\"later\":\"later\""), "got %s", body);
  cr_assert(strstr(body, "\"fast\":\"fast\""), "got %s", body);
  size_t bl = strlen(body);
  static const char end[] = "event: complete\ndata:\n\n";
  cr_assert(bl > sizeof end && strcmp(body + bl - (sizeof end - 1), end) == 0,
            "got %s", body);
  free(body);
  close(fd);
  stop(srv, s);
}

Test(http_stream, client_closing_before_the_deferred_part_is_cleaned_up) {
  gql_schema *s;
  gql_http_server *srv = start(&s, false);
  int port = gql_http_server_port(srv);
  for (int i = 0; i < 10; i++) {
    int fd = dial(port);
    send_post(fd, "multipart/mixed",
              "{\"query\":\"{ fast ... @defer { later(ms: 100) } }\"}");
    static got g;
    memset(&g, 0, sizeof g);
    cr_assert(read_until(fd, &g, "\"hasNext\":true}", NULL, 0), "got %s",
              g.buf);
    close(fd);
  }
  usleep(200 * 1000); /* the deferred fields complete, written nowhere */
  int fd = dial(port);
  static got g;
  memset(&g, 0, sizeof g);
  send_post(fd, "application/json", "{\"query\":\"{ fast }\"}");
  cr_assert(read_until(fd, &g, "}}", NULL, 0), "got %s", g.buf);
  cr_assert(strstr(g.buf, "{\"data\":{\"fast\":\"fast\"}}"), "got %s", g.buf);
  close(fd);
  stop(srv, s);
}
