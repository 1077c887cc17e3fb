/* Log lines as text or JSON (one object a line), for the server's access
 * log and its messages (log.c). Pure formatting into a buffer: the caller
 * writes the line with one call so that lines of several threads do not
 * interleave. */
#ifndef GQL_OBSERVE_LOG_H
#define GQL_OBSERVE_LOG_H

#include "core/core.h"

typedef enum gql_log_level {
  GQL_LOG_ERROR,
  GQL_LOG_WARN,
  GQL_LOG_INFO,
  GQL_LOG_DEBUG
} gql_log_level;

typedef enum gql_log_format { GQL_LOG_TEXT, GQL_LOG_JSON } gql_log_format;

/* What an access line says of a request. Strings may be empty (not
 * written); the request's own (path, operation name) are written safely
 * whatever their bytes: escaped, invalid UTF-8 replaced, path cut at 1,024
 * bytes and operation name at 256. */
typedef struct gql_log_access {
  gql_str client; /* the peer, "127.0.0.1:53211" or "[::1]:53211" */
  gql_str method, path;
  int status;
  uint64_t bytes;
  uint64_t duration_ns;
  gql_str operation; /* the operation name */
  gql_str trace_id;  /* 32 hex digits when traced */
} gql_log_access;

/* The RFC 3339 time of a Unix time in ns, UTC, to the millisecond:
 * "2026-12-01T10:08:33.123Z" (24 characters and a NUL). */
void gql_log_time(uint64_t unix_ns, char out[32]);

/* One line, '\n' included, appended to b:
 *   JSON: {"time":"...","level":"info","msg":"...","client":"...",
 *          "method":"POST","path":"/graphql","status":200,"bytes":123,
 *          "duration_ms":0.532,"operation":"Q","trace_id":"..."}
 *   text: TIME LEVEL NAME: MSG
 *         TIME CLIENT METHOD PATH STATUS BYTES DURATIONus OPERATION|-
 *         [trace=ID]       (an access line: a != NULL; msg unused)
 * `name` prefixes text messages ("gql serve") and is the JSON "logger". */
void gql_log_line(gql_buf *b, gql_log_format format, uint64_t unix_ns,
                  gql_log_level level, const char *name, gql_str msg,
                  const gql_log_access *a);

/* "error", "warn", "info", "debug". */
const char *gql_log_level_name(gql_log_level level);

#endif
