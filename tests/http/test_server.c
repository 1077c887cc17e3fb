/* The C API over real sockets: an embedder's schema with a resolver that
 * completes from a uv_timer on the worker's loop, responses in request order
 * behind it, and a graceful stop that finishes the request in flight. */
#include "gql_http.h"
#include "later.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void ctx_field(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  (void)parent;
  const char *s = gql_http_context(info);
  gql_out_string(out, s, strlen(s));
}

static gql_http_server *start(gql_schema **schema_out) {
  static const char sdl[] =
      "type Query { later(ms: Int = 10): String ctx: String }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "later", later, NULL, 0), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "ctx", ctx_field, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  gql_http_options o = {.port = -1, .threads = 2, .context = "mine"};
  gql_http_server *srv = NULL;
  cr_assert_eq(gql_http_server_new(s, &o, &srv), 0);
  cr_assert_eq(gql_http_server_start(srv), 0);
  cr_assert_gt(gql_http_server_port(srv), 0);
  *schema_out = s;
  return srv;
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

static void send_all(int fd, const char *s) {
  size_t n = strlen(s);
  while (n) {
    ssize_t w = write(fd, s, n);
    cr_assert_gt(w, 0);
    s += w;
    n -= (size_t)w;
  }
}

static char *post(const char *body) {
  char *r = NULL;
  cr_assert(asprintf(&r,
                     "POST /graphql HTTP/1.1\r\nContent-Type: application/json"
                     "\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body) > 0);
  return r;
}

/* Reads until `count` response bodies arrived (or EOF); returns them joined
 * with '|' and *closed when the server closed the connection. */
static char *read_bodies(int fd, int count, bool *closed) {
  static char buf[65536];
  size_t len = 0;
  char *out = calloc(1, 65536);
  int got = 0;
  *closed = false;
  size_t pos = 0;
  while (got < count) {
    char *head_end = memmem(buf + pos, len - pos, "\r\n\r\n", 4);
    char *cl = head_end ? memmem(buf + pos, (size_t)(head_end - buf) - pos,
                                 "Content-Length: ", 16)
                        : NULL;
    if (cl) {
      size_t n = strtoul(cl + 16, NULL, 10);
      if ((size_t)(head_end + 4 - buf) + n <= len) {
        if (got)
          strcat(out, "|");
        strncat(out, head_end + 4, n);
        pos = (size_t)(head_end + 4 - buf) + n;
        got++;
        continue;
      }
    }
    ssize_t r = read(fd, buf + len, sizeof buf - len);
    if (r <= 0) {
      *closed = true;
      break;
    }
    len += (size_t)r;
  }
  return out;
}

Test(http_server, pending_field_completes_from_a_timer_on_the_loop) {
  gql_schema *s;
  gql_http_server *srv = start(&s);
  int fd = dial(gql_http_server_port(srv));
  char *r = post("{\"query\":\"{ later(ms: 20) ctx }\"}");
  send_all(fd, r);
  bool closed;
  char *got = read_bodies(fd, 1, &closed);
  cr_assert_str_eq(got, "{\"data\":{\"later\":\"later\",\"ctx\":\"mine\"}}");
  free(got);
  free(r);
  close(fd);
  gql_http_server_stop(srv);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(s);
}

Test(http_server, pipelined_responses_keep_request_order_behind_a_slow_one) {
  gql_schema *s;
  gql_http_server *srv = start(&s);
  int fd = dial(gql_http_server_port(srv));
  char *slow = post("{\"query\":\"{ later(ms: 100) }\"}");
  char *fast = post("{\"query\":\"{ ctx }\"}");
  char *mid = post("{\"query\":\"{ later(ms: 1) }\"}");
  char all[1024];
  snprintf(all, sizeof all, "%s%s%s%s", slow, fast, mid, fast);
  send_all(fd, all);
  bool closed;
  char *got = read_bodies(fd, 4, &closed);
  cr_assert_str_eq(got, "{\"data\":{\"later\":\"later\"}}|"
                        "{\"data\":{\"ctx\":\"mine\"}}|"
                        "{\"data\":{\"later\":\"later\"}}|"
                        "{\"data\":{\"ctx\":\"mine\"}}");
  free(got);
  free(slow);
  free(fast);
  free(mid);
  close(fd);
  gql_http_server_stop(srv);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(s);
}

Test(http_server, stop_finishes_the_request_in_flight_then_closes) {
  gql_schema *s;
  gql_http_server *srv = start(&s);
  int port = gql_http_server_port(srv);
  int fd = dial(port);
  char *r = post("{\"query\":\"{ later(ms: 200) }\"}");
  send_all(fd, r);
  usleep(50 * 1000);
  gql_http_server_stop(srv);
  bool closed;
  char *got = read_bodies(fd, 2, &closed);
  cr_assert_str_eq(got, "{\"data\":{\"later\":\"later\"}}");
  cr_assert(closed, "the connection closes after the last response");
  gql_http_server_wait(srv);
  /* nothing listens any more */
  int fd2 = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  cr_assert_neq(connect(fd2, (struct sockaddr *)&a, sizeof a), 0);
  close(fd2);
  free(got);
  free(r);
  close(fd);
  gql_http_server_free(srv);
  gql_schema_free(s);
}

Test(http_server, client_leaving_while_its_field_pends_is_cleaned_up) {
  gql_schema *s;
  gql_http_server *srv = start(&s);
  int port = gql_http_server_port(srv);
  for (int i = 0; i < 20; i++) {
    int fd = dial(port);
    char *r = post("{\"query\":\"{ later(ms: 30) }\"}");
    send_all(fd, r);
    free(r);
    close(fd);
  }
  usleep(100 * 1000);
  int fd = dial(port);
  char *r = post("{\"query\":\"{ ctx }\"}");
  send_all(fd, r);
  bool closed;
  char *got = read_bodies(fd, 1, &closed);
  cr_assert_str_eq(got, "{\"data\":{\"ctx\":\"mine\"}}");
  free(got);
  free(r);
  close(fd);
  gql_http_server_stop(srv);
  gql_http_server_wait(srv);
  gql_http_server_free(srv);
  gql_schema_free(s);
}
