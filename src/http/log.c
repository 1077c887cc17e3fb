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
  if (level > opt->log_level)
    return;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  char line[1024];
  int n = snprintf(line, sizeof line,
                   "%s: %s: ", opt->log_name ? opt->log_name : "gql serve",
                   names[level]);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  fprintf(opt->log, "%s\n", line); /* one call: lines do not interleave */
}

void gql_http_log_access(const gql_http_options *opt, const char *method,
                         gql_str path, int status, size_t bytes,
                         uint64_t start_ns, gql_str op) {
  if (opt->log_level < GQL_HTTP_LOG_INFO)
    return;
  uint64_t us = (gql_http_now_ns() - start_ns) / 1000;
  size_t plen = path.len > 200 ? 200 : path.len;
  size_t olen = op.len > 100 ? 100 : op.len;
  fprintf(opt->log, "%s %.*s %d %zu %lluus %.*s\n", method, (int)plen,
          path.ptr ? path.ptr : "", status, bytes, (unsigned long long)us,
          op.len ? (int)olen : 1, op.len ? op.ptr : "-");
}
