/* A request's one answer, as every part writes it: the response with the
 * hooks' and resolvers' headers, the observer and the access log
 * (gql_http_request_finish), and gql_execute's on_done for a plain
 * response (gql_http_request_done). Below handler.c and stream.c, which
 * both end requests with these. */
#include "http.h"

#define CT_GQL_RESPONSE "application/graphql-response+json; charset=utf-8"
#define CT_JSON "application/json; charset=utf-8"

void gql_http_request_finish(gql_http_request *r, int status, const char *ctype,
                             const char *headers, const char *body,
                             size_t len) {
  gql_http_conn *c = r->conn;
  if (r->socket) { /* a WebSocket's hooks: the verdict, no bytes */
    r->answered = true;
    r->socket_status = status;
    return;
  }
  const gql_http_hooks *h = c->x->opt->hooks;
  if (h && h->response && r->slot && !r->answered)
    h->response(c->x->hook_worker, r, status);
  r->answered = true;
  if (r->headers.len) { /* the hooks' and resolvers' headers after ours */
    size_t hl = headers ? strlen(headers) : 0;
    char *all = gql_arena_alloc(r->slot->arena, hl + r->headers.len + 1);
    if (all) {
      if (hl)
        memcpy(all, headers, hl);
      memcpy(all + hl, r->headers.data, r->headers.len);
      all[hl + r->headers.len] = 0;
      headers = all;
    }
  }
  gql_http_respond(c, status, ctype, headers, body, len, r->head);
  gql_http_request_info info = {.method = r->method,
                                .path = r->path,
                                .status = status,
                                .bytes = len,
                                .operation_name = r->op_name,
                                .operation_type = r->op_type,
                                .document_cache = r->cache,
                                .body = body,
                                .errors = r->errors,
                                .trace = r->trace};
  gql_http_log_request(c, &info, r->start_ns);
}

/* A response without "data" is a request error (spec: 4xx with
 * graphql-response+json). The executor writes "errors" before or after
 * "data" depending on its mode, so look for a top-level "data" key. */
static bool has_data(const char *json, size_t len) {
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char ch = json[i];
    if (ch == '"') {
      size_t start = i + 1;
      for (i = start; i < len && json[i] != '"'; i++)
        if (json[i] == '\\')
          i++;
      if (depth == 1 && i - start == 4 &&
          memcmp(json + start, "data", 4) == 0 && i + 1 < len &&
          json[i + 1] == ':')
        return true;
    } else if (ch == '{' || ch == '[') {
      depth++;
    } else if (ch == '}' || ch == ']') {
      depth--;
    }
  }
  return false;
}

void gql_http_request_done(void *ud, const char *json, size_t len,
                           bool has_errors) {
  gql_http_request *r = ud;
  r->errors = r->errors || has_errors;
  int status = r->graphql_response && !has_data(json, len) ? 400 : 200;
  gql_http_request_finish(r, status,
                          r->graphql_response ? CT_GQL_RESPONSE : CT_JSON, NULL,
                          json, len);
  r->done = true;
  /* Completed later from the loop: the transport ends the request once the
   * executor has returned (it still uses the request's memory now). */
  if (r->conn->inflight == r && r->conn->x->resumed)
    r->conn->x->resumed(r->conn);
}
