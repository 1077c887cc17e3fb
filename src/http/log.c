/* The http part's clock and log lines: below everything else in src/http
 * (the connection stamps a request's first byte, the handler logs it). */
#include "http.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

uint64_t gql_http_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gql_http_log(const gql_http_options *opt, gql_http_log_level level,
                  const char *fmt, ...) {
  if (level > HTTP_LIVE(opt, log_level))
    return;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  const gql_http_observer *ob = opt->observer;
  char line[1024];
  int n = ob && ob->log ? 0
                        : snprintf(line, sizeof line, "%s: %s: ",
                                   opt->log_name ? opt->log_name : "gql serve",
                                   names[level]);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (ob && ob->log)
    ob->log(ob->ud, level, line, NULL);
  else
    fprintf(opt->log, "%s\n", line); /* one call: lines do not interleave */
}

void gql_http_log_request(gql_http_conn *c, gql_http_request_info *info,
                          uint64_t start_ns) {
  const gql_http_options *opt = c->x->opt;
  const gql_http_observer *ob = opt->observer;
  bool access = HTTP_LIVE(opt, log_level) >= GQL_HTTP_LOG_INFO;
  if (!ob && !access)
    return;
  uint64_t now = gql_http_now_ns();
  info->duration_ns = start_ns && now > start_ns ? now - start_ns : 0;
  info->client = http_str(c->peer, strlen(c->peer));
  if (ob && ob->request)
    ob->request(c->x->obs_worker, info);
  if (!access)
    return;
  if (ob && ob->log) {
    ob->log(ob->ud, GQL_HTTP_LOG_INFO, "", info);
    return;
  }
  uint64_t us = info->duration_ns / 1000;
  gql_str path = info->path, op = info->operation_name;
  size_t plen = path.len > 200 ? 200 : path.len;
  size_t olen = op.len > 100 ? 100 : op.len;
  fprintf(opt->log, "%s %.*s %d %zu %lluus %.*s\n", info->method, (int)plen,
          path.ptr ? path.ptr : "", info->status, info->bytes,
          (unsigned long long)us, op.len ? (int)olen : 1,
          op.len ? op.ptr : "-");
}
