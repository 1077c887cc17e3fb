/* graphql-sse's single connection mode across workers (sse_single.c) over
 * real sockets, through the C API: a server of two workers, one
 * reservation's stream on one connection and its operations POSTed on
 * fresh connections (SO_REUSEPORT spreads them: some run on the other
 * worker, their events cross to the stream's); the stream closing drops
 * the reservation; a stream open at the stop ends with the chunked end.
 * Run under the sanitizer, it checks that nothing crossing threads is
 * used after its owner freed it. */
#include "gql_http.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void hello(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "world", 5);
}

static FILE *server_log; /* the debug log: where each operation ran */

static gql_http_server *start(gql_schema **schema_out) {
  static const char sdl[] = "type Query { hello: String }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "hello", hello, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  server_log = tmpfile();
  cr_assert_not_null(server_log);
  gql_http_options o = {.port = -1,
                        .threads = 2,
                        .log = server_log,
                        .log_level = GQL_HTTP_LOG_DEBUG,
                        .log_level_set = true};
  gql_http_server *srv = NULL;
  cr_assert_eq(gql_http_server_new(s, &o, &srv), 0);
  cr_assert_eq(gql_http_server_start(srv), 0);
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

/* One request on a fresh connection (Connection: close): the whole
 * response, NUL-terminated (static). */
static const char *exchange(int port, const char *request) {
  static char buf[8192];
  int fd = dial(port);
  send_all(fd, request);
  size_t len = 0;
  ssize_t r;
  while (len < sizeof buf - 1 &&
         (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)r;
  buf[len] = 0;
  close(fd);
  return buf;
}

static const char *body_of(const char *response) {
  const char *b = strstr(response, "\r\n\r\n");
  return b ? b + 4 : "";
}

static int status_of(const char *response) {
  int st = 0;
  sscanf(response, "HTTP/1.1 %d", &st);
  return st;
}

static void reserve(int port, char *token, size_t cap) {
  const char *res = exchange(port, "PUT /graphql HTTP/1.1\r\nHost: x\r\n"
                                   "Content-Length: 0\r\nConnection: close"
                                   "\r\n\r\n");
  cr_assert_eq(status_of(res), 201, "%s", res);
  snprintf(token, cap, "%s", body_of(res));
  cr_assert_eq(strlen(token), 36, "a UUID: %s", token);
}

static int open_stream(int port, const char *token) {
  int fd = dial(port);
  char req[256];
  snprintf(req, sizeof req,
           "GET /graphql HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
           "X-GraphQL-Event-Stream-Token: %s\r\n\r\n",
           token);
  send_all(fd, req);
  return fd;
}

static int post_op(int port, const char *token, const char *id) {
  char body[128], req[512];
  snprintf(body, sizeof body,
           "{\"query\":\"{ hello }\",\"extensions\":{\"operationId\":\"%s\"}}",
           id);
  snprintf(req, sizeof req,
           "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: "
           "application/json\r\nX-GraphQL-Event-Stream-Token: %s\r\n"
           "Connection: close\r\nContent-Length: %zu\r\n\r\n%s",
           token, strlen(body), body);
  return status_of(exchange(port, req));
}

/* Reads the stream until `want` is in it (or it ends): what came. */
static char *read_until(int fd, const char *want, bool *ended) {
  static char buf[1 << 16];
  size_t len = 0;
  *ended = false;
  buf[0] = 0;
  while (!strstr(buf, want)) {
    ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
    if (r <= 0) {
      *ended = true;
      break;
    }
    len += (size_t)r;
    buf[len] = 0;
  }
  return buf;
}

#define OPS 16

Test(sse_single, operations_on_any_worker_reach_the_stream) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  int port = gql_http_server_port(srv);
  char token[64];
  reserve(port, token, sizeof token);
  int s = open_stream(port, token);
  bool ended;
  read_until(s, "\r\n\r\n", &ended); /* the head: the stream is open */
  cr_assert(!ended);
  for (int i = 0; i < OPS; i++) {
    char id[16];
    snprintf(id, sizeof id, "op%d", i);
    cr_assert_eq(post_op(port, token, id), 202, "%s", id);
  }
  /* every operation's result, then its complete, on the one stream */
  char *got = read_until(s, "{\"id\":\"op15\"}\n", &ended);
  for (int i = 0; i < OPS; i++) {
    char want[128];
    snprintf(want, sizeof want,
             "event: next\ndata: {\"id\":\"op%d\",\"payload\":{\"data\":"
             "{\"hello\":\"world\"}}}\n\n",
             i);
    /* the rest may still come: read on until each is there */
    if (!strstr(got, want))
      got = read_until(s, want, &ended);
    cr_assert(strstr(got, want), "op%d's next in: %s", i, got);
  }
  /* some ran on the other worker than the stream's (16 connections
   * spread by the kernel: all on one worker is a chance in 30,000) */
  fflush(server_log);
  rewind(server_log);
  char line[512];
  int crossed = 0, ran = 0;
  while (fgets(line, sizeof line, server_log)) {
    int runs, stream;
    const char *at = strstr(line, "runs on worker ");
    if (at && sscanf(at, "runs on worker %d, its stream on worker %d", &runs,
                     &stream) == 2) {
      ran++;
      crossed += runs != stream;
    }
  }
  cr_assert_eq(ran, OPS);
  cr_assert_gt(crossed, 0, "no operation ran on the other worker");
  /* an id in use by a finished operation is free again */
  cr_assert_eq(post_op(port, token, "op0"), 202);
  /* the client leaves: the reservation goes with its stream */
  close(s);
  int st = 0;
  for (int i = 0; i < 200 && st != 404; i++) {
    usleep(10000);
    st = post_op(port, token, "late");
  }
  cr_assert_eq(st, 404, "the reservation of a closed stream");
  gql_http_server_free(srv);
  gql_schema_free(schema);
  fclose(server_log);
}

Test(sse_single, a_stream_open_at_the_stop_ends_cleanly) {
  gql_schema *schema;
  gql_http_server *srv = start(&schema);
  int port = gql_http_server_port(srv);
  char token[64], other[64];
  reserve(port, token, sizeof token);
  reserve(port, other, sizeof other); /* never opened */
  int s = open_stream(port, token);
  bool ended;
  read_until(s, "\r\n\r\n", &ended);
  cr_assert_eq(post_op(port, other, "before"), 202,
               "an operation may come before its stream");
  gql_http_server_stop(srv);
  char *got = read_until(s, "0\r\n\r\n", &ended);
  cr_assert(strstr(got, "0\r\n\r\n"), "the chunked end: %s", got);
  close(s);
  gql_http_server_free(srv);
  gql_schema_free(schema);
  fclose(server_log);
}
