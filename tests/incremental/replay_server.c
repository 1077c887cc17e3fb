/*
 * A test server that answers with recorded payloads, framed by
 * src/http/incremental.c: so that the npm clients (meros, Apollo Client 4,
 * graphql-sse) read gql's multipart and SSE framing, Accept negotiation,
 * chunked coding and per-payload flushing before the executor produces
 * payloads itself (issue 20; the same clients then point at gql serve).
 *
 * Usage: incremental_replay DIR [DELAY_MS]
 * Listens on a free loopback port and prints "port N". A request to /NAME
 * (any method; the body is read and ignored) is answered from
 * DIR/NAME.payloads (DIR/NAME.legacy when the Accept header asks for
 * deferSpec=20220824): one compact JSON payload a line, each sent and
 * flushed as its own chunk DELAY_MS apart. A client accepting neither
 * framing gets the 406 refusal, unless the case is one payload and the
 * client accepts JSON: then one JSON response (as gql serve answers an
 * operation without @defer or @stream). /quit ends the server. One connection
 * at a time, Connection: close.
 */
#include "http/incremental.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { HEAD_MAX = 65536, BODY_MAX = 1 << 20 };

static bool send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* The value of header `name` in the request head, or NULL (len set). */
static const char *header(const char *head, const char *name, size_t *len) {
  size_t nl = strlen(name);
  for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
    const char *line = p + 2;
    if (strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
      const char *v = line + nl + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      const char *end = strstr(v, "\r\n");
      *len = end ? (size_t)(end - v) : strlen(v);
      return v;
    }
  }
  return NULL;
}

static void respond(int fd, const char *status, const char *ctype,
                    const char *extra, const char *body) {
  char buf[2048];
  int n = snprintf(buf, sizeof buf,
                   "HTTP/1.1 %s\r\nContent-Type: %s\r\n%sContent-Length: "
                   "%zu\r\nConnection: close\r\n\r\n%s",
                   status, ctype, extra, strlen(body), body);
  send_all(fd, buf, (size_t)n);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR)
    ;
}

/* Sends each line of `path` as one framed payload in its own chunk. */
/* Whether the `len` bytes at h contain `what`. */
static bool has(const char *h, size_t len, const char *what) {
  size_t n = strlen(what);
  for (size_t i = 0; h && i + n <= len; i++)
    if (strncasecmp(h + i, what, n) == 0)
      return true;
  return false;
}

static void replay(int fd, FILE *f, gql_http_stream_format fmt, int delay) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nTransfer-Encoding: "
                   "chunked\r\nCache-Control: no-cache\r\nConnection: "
                   "close\r\n\r\n",
                   gql_http_stream_content_type(fmt));
  if (!send_all(fd, head, (size_t)n))
    return;
  char *line = NULL, *next = NULL;
  size_t cap = 0, ncap = 0;
  ssize_t len = getline(&line, &cap, f);
  for (int i = 0; len > 0; i++) {
    ssize_t nlen = getline(&next, &ncap, f);
    if (line[len - 1] == '\n')
      line[--len] = 0;
    gql_http_frame fr = gql_http_stream_frame(fmt, i == 0, nlen <= 0);
    size_t total = fr.head_len + (size_t)len + fr.tail_len;
    char size_line[20];
    size_t sl = gql_http_chunk_head(size_line, total);
    if (!send_all(fd, size_line, sl) || !send_all(fd, fr.head, fr.head_len) ||
        !send_all(fd, line, (size_t)len) ||
        !send_all(fd, fr.tail, fr.tail_len) || !send_all(fd, "\r\n", 2))
      break;
    if (nlen > 0)
      sleep_ms(delay);
    char *t = line;
    line = next, next = t;
    size_t tc = cap;
    cap = ncap, ncap = tc;
    len = nlen;
  }
  send_all(fd, GQL_HTTP_LAST_CHUNK, sizeof GQL_HTTP_LAST_CHUNK - 1);
  free(line);
  free(next);
}

/* Reads one request; false to stop the server. */
static bool serve(int fd, const char *dir, int delay) {
  static char buf[HEAD_MAX + 1];
  size_t got = 0;
  char *end = NULL;
  while (!end && got < HEAD_MAX) {
    ssize_t r = recv(fd, buf + got, HEAD_MAX - got, 0);
    if (r <= 0)
      return true;
    got += (size_t)r;
    buf[got] = 0;
    end = strstr(buf, "\r\n\r\n");
  }
  if (!end)
    return true;
  end[2] = 0; /* the head, with its last CRLF */
  size_t clen_len, accept_len = 0;
  const char *clen = header(buf, "Content-Length", &clen_len);
  size_t body = clen ? strtoul(clen, NULL, 10) : 0;
  size_t have = got - (size_t)(end + 4 - buf);
  for (char sink[4096]; have < body && body <= BODY_MAX;) {
    ssize_t r = recv(fd, sink, sizeof sink, 0);
    if (r <= 0)
      return true;
    have += (size_t)r;
  }
  const char *accept = header(buf, "Accept", &accept_len);
  const char *path = strchr(buf, ' ');
  char name[128];
  size_t k = 0;
  for (path = path ? path + 2 : "";
       k + 1 < sizeof name && (isalnum((unsigned char)*path) || *path == '-');
       path++)
    name[k++] = *path;
  name[k] = 0;
  if (strcmp(name, "quit") == 0) {
    respond(fd, "200 OK", "text/plain", "", "bye\n");
    return false;
  }
  gql_http_stream_format fmt = gql_http_stream_negotiate(accept, accept_len);
  char file[4096];
  if (fmt == GQL_HTTP_STREAM_NONE) {
    /* a case of one payload (its document defers and streams nothing, as
     * Apollo Client tells by asking for no stream) to a client that accepts
     * JSON: the JSON response gql serve gives such an operation */
    snprintf(file, sizeof file, "%s/%s.payloads", dir, name);
    static char one[BODY_MAX];
    FILE *f = k ? fopen(file, "r") : NULL;
    size_t n = f ? fread(one, 1, sizeof one - 1, f) : 0;
    if (f)
      fclose(f);
    one[n] = 0;
    char *nl = memchr(one, '\n', n);
    bool gql_json =
        has(accept, accept_len, "application/graphql-response+json");
    if (n < sizeof one - 1 && nl && nl == one + n - 1 &&
        (gql_json || has(accept, accept_len, "application/json"))) {
      *nl = 0;
      respond(fd, "200 OK",
              gql_json ? "application/graphql-response+json; charset=utf-8"
                       : "application/json; charset=utf-8",
              "", one);
      return true;
    }
    char body_json[1024], extra[256];
    snprintf(body_json, sizeof body_json, "{\"errors\":[{\"message\":\"%s\"}]}",
             gql_http_stream_refusal_message);
    snprintf(extra, sizeof extra, "Accept: %s\r\n", gql_http_stream_accept);
    respond(fd, "406 Not Acceptable", "application/json; charset=utf-8", extra,
            body_json);
    return true;
  }
  snprintf(file, sizeof file, "%s/%s.%s", dir, name,
           fmt == GQL_HTTP_STREAM_MULTIPART_LEGACY ? "legacy" : "payloads");
  FILE *f = k ? fopen(file, "r") : NULL;
  if (!f) {
    respond(fd, "404 Not Found", "text/plain", "", "no such case\n");
    return true;
  }
  replay(fd, f, fmt, delay);
  fclose(f);
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: incremental_replay DIR [DELAY_MS]\n");
    return 2;
  }
  int delay = argc > 2 ? atoi(argv[2]) : 0;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 16) ||
      getsockname(s, (struct sockaddr *)&a, &al)) {
    perror("incremental_replay");
    return 1;
  }
  printf("port %u\n", ntohs(a.sin_port));
  fflush(stdout);
  for (bool more = true; more;) {
    int c = accept(s, NULL, NULL);
    if (c < 0) {
      if (errno == EINTR)
        continue;
      perror("accept");
      return 1;
    }
    /* each chunk leaves at once: what the clients see is each payload as
     * it is written */
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    more = serve(c, argv[1], delay);
    shutdown(c, SHUT_WR);
    close(c);
  }
  close(s);
  return 0;
}
