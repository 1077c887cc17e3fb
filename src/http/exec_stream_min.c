/* MINIMAL HTTP SIDE, REPLACED AT THE MERGE OF BRANCH `stream`: the
 * streaming answers of an executor (gql_http_exec_streams, _payload,
 * _on_cancel; include/gql_http.h) for WebSocket operations, which go to
 * ws_exec.c, and a stand-in for plain HTTP requests: they do not stream,
 * a streamed answer ends as one error response, and cancelling is not
 * reported. Branch `stream` implements the HTTP transports (multipart,
 * SSE); at its merge, delete this file and keep in its three functions
 * the `r->ws_exec` dispatch lines below. */
#include "http.h"

bool gql_http_exec_streams(const gql_http_exec *req) {
  const gql_http_request *r = req->internal_;
  return r && r->ws_exec; /* HTTP: branch stream */
}

void gql_http_exec_payload(gql_http_exec *req, const char *json, size_t len,
                           bool has_next) {
  gql_http_request *r = req->internal_;
  if (r && r->ws_exec) {
    gql_http_ws_exec_payload(r, json, len, has_next);
    return;
  }
  (void)json, (void)len;
  static const char refusal[] =
      "{\"errors\":[{\"message\":\"This response needs a streaming "
      "transport (GraphQL over WebSocket).\"}]}";
  if (!has_next) /* HTTP: branch stream */
    gql_http_exec_done(req, refusal, sizeof refusal - 1);
}

void gql_http_exec_on_cancel(gql_http_exec *req, void (*cancel)(void *ud),
                             void *ud) {
  gql_http_request *r = req->internal_;
  if (r && r->ws_exec)
    gql_http_ws_exec_on_cancel(r, cancel, ud);
}
