/*
 * INTERIM, until the `stream` branch (stream-api.md) is merged, which
 * implements these for real and replaces this file: no transport streams
 * yet, so an executor that would send several payloads (the gateway's
 * @defer) gets graphql-http's refusal as its one response.
 */
#include "gql_http.h"
#include "incremental.h"

#include <stdio.h>

bool gql_http_exec_streams(const gql_http_exec *req) {
  (void)req;
  return false;
}

void gql_http_exec_payload(gql_http_exec *req, const char *json, size_t len,
                           bool has_next) {
  (void)json;
  (void)len;
  (void)has_next;
  char body[1024];
  int n = snprintf(body, sizeof body, "{\"errors\":[{\"message\":\"%s\"}]}",
                   gql_http_stream_refusal_message);
  gql_http_exec_done(req, body,
                     n > 0 && (size_t)n < sizeof body ? (size_t)n : 0);
}

void gql_http_exec_on_cancel(gql_http_exec *req, void (*cancel)(void *ud),
                             void *ud) {
  (void)req;
  (void)cancel;
  (void)ud;
}
