/* The transports of OTLP batches: a file (one batch per line) and a
 * blocking HTTP/1.1 POST over a plain socket, with the OpenTelemetry
 * SDK's environment variables and retries. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/core.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int gql_trace_file_transport(void *ud, const char *json, size_t len) {
  FILE *f = ud;
  if (fwrite(json, 1, len, f) != len || fputc('\n', f) == EOF || fflush(f) != 0)
    return GQL_EIO;
  return 0;
}

int gql_trace_http_init(gql_trace_http *h, const char *url) {
  memset(h, 0, sizeof *h);
  const char *p = url;
  if (!url || strncmp(p, "http://", 7) != 0)
    return GQL_EINVAL;
  p += 7;
  size_t hl = strcspn(p, ":/");
  if (!hl || hl >= sizeof h->host)
    return GQL_EINVAL;
  memcpy(h->host, p, hl);
  p += hl;
  snprintf(h->port, sizeof h->port, "4318");
  if (*p == ':') {
    p++;
    size_t pl = strspn(p, "0123456789");
    if (!pl || pl >= sizeof h->port)
      return GQL_EINVAL;
    memcpy(h->port, p, pl);
    h->port[pl] = 0;
    p += pl;
  }
  if (*p && *p != '/')
    return GQL_EINVAL;
  if (strlen(p) >= sizeof h->path)
    return GQL_EINVAL;
  snprintf(h->path, sizeof h->path, "%s", *p ? p : "/v1/traces");
  return 0;
}

int gql_trace_http_from_env(gql_trace_http *h) {
  const char *full = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const char *base = getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  int rc;
  if (full && *full) {
    rc = gql_trace_http_init(h, full);
  } else if (base && *base) {
    char url[1024];
    size_t n = strlen(base);
    while (n && base[n - 1] == '/')
      n--;
    if (n + sizeof "/v1/traces" > sizeof url)
      return GQL_EINVAL;
    snprintf(url, sizeof url, "%.*s/v1/traces", (int)n, base);
    rc = gql_trace_http_init(h, url);
  } else {
    rc = gql_trace_http_init(h, "http://localhost:4318/v1/traces");
  }
  const char *t = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
  if (rc == 0 && t && *t) {
    char *end;
    unsigned long ms = strtoul(t, &end, 10);
    if (!*end && ms > 0 && ms <= 600000)
      h->timeout_ms = (uint32_t)ms;
  }
  h->retries = 3;
  return rc;
}

static bool send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w < 0 && errno == EINTR)
        continue;
      return false;
    }
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* One POST; the HTTP status, or -1 without a response. */
static int http_post(const gql_trace_http *h, const char *json, size_t len) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *ai = NULL;
  if (getaddrinfo(h->host, h->port, &hints, &ai) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = ai; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    uint32_t ms = h->timeout_ms ? h->timeout_ms : 10000;
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
      break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(ai);
  if (fd < 0)
    return -1;
  char head[1024];
  int hn =
      snprintf(head, sizeof head,
               "POST %s HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: "
               "%s\r\nContent-Length: %zu\r\nUser-Agent: "
               "gql/%s\r\nConnection: close\r\n\r\n",
               h->path, h->host, h->port,
               h->protocol == GQL_OTLP_HTTP_PROTOBUF ? "application/x-protobuf"
                                                     : "application/json",
               len, gql_version());
  int status = -1;
  if (hn > 0 && (size_t)hn < sizeof head && send_all(fd, head, (size_t)hn) &&
      send_all(fd, json, len)) {
    char resp[512];
    size_t got = 0;
    while (got < sizeof resp - 1) {
      ssize_t r = recv(fd, resp + got, sizeof resp - 1 - got, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t)r;
      if (memchr(resp, '\n', got))
        break;
    }
    resp[got] = 0;
    int code;
    if (sscanf(resp, "HTTP/1.%*d %d", &code) == 1)
      status = code;
  }
  close(fd);
  return status;
}

int gql_trace_http_transport(void *ud, const char *json, size_t len) {
  const gql_trace_http *h = ud;
  unsigned delay_ms = 100;
  for (uint32_t attempt = 0;; attempt++) {
    int status = http_post(h, json, len);
    if (status >= 200 && status < 300)
      return 0;
    bool retry = status == -1 || status == 429 || status == 502 ||
                 status == 503 || status == 504;
    if (!retry || attempt >= h->retries)
      return GQL_EIO;
    struct timespec ts = {(time_t)(delay_ms / 1000),
                          (long)(delay_ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
    delay_ms *= 2;
  }
}
