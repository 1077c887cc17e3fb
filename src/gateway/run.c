/*
 * gql_gw_execute: one request driven to its response synchronously, each
 * batch sent through `send` in wave order (tests, fuzzing). Above both the
 * request (execute.c) and the projection of its response (project.c); the
 * server drives the same calls from its event loop (serve.c).
 */
#include "gateway.h"

int gql_gw_execute(const gql_gw_plan *plan, const gql_value *variables,
                   gql_arena *arena, gql_gw_send_fn send, void *ud,
                   gql_buf *out, gql_gw_request **req_out) {
  gql_gw_request *r;
  int rc = gql_gw_request_new(plan, variables, arena, &r);
  if (rc)
    return rc;
  if (plan->introspection.len) {
    gql_str json;
    rc = gql_gw_introspect(plan, variables, arena, &json);
    if (!rc)
      rc = gql_gw_request_merge_local(r, json.ptr, json.len);
    if (rc)
      return rc;
  }
  gql_buf body;
  gql_buf_init(&body, NULL);
  /* batches are ordered by wave; within a wave the order is free */
  for (uint32_t i = 0; i < plan->nbatches && !rc; i++) {
    body.len = 0;
    rc = gql_gw_request_body(r, i, &body);
    if (rc == 1) {
      rc = 0;
      continue;
    }
    if (rc)
      break;
    gql_str resp = {NULL, 0};
    if (send(ud, &plan->batches[i], body.data, body.len, &resp)) {
      gql_gw_request_fail(r, i, "the request failed");
      continue;
    }
    rc = gql_gw_request_merge(r, i, resp.ptr, resp.len);
  }
  gql_buf_free(&body);
  if (!rc)
    rc = gql_gw_request_response(r, out);
  if (req_out)
    *req_out = r;
  return rc;
}
