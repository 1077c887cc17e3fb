/*
 * gql_gw_execute: one request driven to its response synchronously, each
 * batch sent through `send` in wave order (tests, fuzzing). Above both the
 * request (execute.c) and the projection of its response (project.c); the
 * server drives the same calls from its event loop (serve.c).
 */
#include "gateway.h"

static int send_batch(gql_gw_request *r, const gql_gw_plan *plan, uint32_t i,
                      gql_buf *body, gql_gw_send_fn send, void *ud) {
  body->len = 0;
  int rc = gql_gw_request_body(r, i, body);
  if (rc == 1)
    return 0;
  if (rc)
    return rc;
  gql_str resp = {NULL, 0};
  if (send(ud, &plan->batches[i], body->data, body->len, &resp)) {
    gql_gw_request_fail(r, i, "the request failed");
    return 0;
  }
  return gql_gw_request_merge(r, i, resp.ptr, resp.len);
}

int gql_gw_execute_incremental(const gql_gw_plan *plan,
                               const gql_value *variables, gql_arena *arena,
                               gql_gw_send_fn send, void *ud, gql_buf *out) {
  if (!plan->ndefers) {
    int rc = gql_gw_execute(plan, variables, arena, send, ud, out, NULL);
    gql_buf_putc(out, '\n');
    return rc ? rc : out->failed ? GQL_ENOMEM : 0;
  }
  gql_gw_request *r;
  int rc = gql_gw_request_new(plan, variables, arena, &r);
  if (!rc && plan->introspection.len) {
    gql_str json;
    rc = gql_gw_introspect(plan, variables, arena, &json);
    if (!rc)
      rc = gql_gw_request_merge_local(r, json.ptr, json.len);
  }
  gql_buf body;
  gql_buf_init(&body, NULL);
  uint32_t i = 0;
  for (; !rc && i < plan->nbatches &&
         plan->batches[i].level <= plan->primary_levels;
       i++)
    rc = send_batch(r, plan, i, &body, send, ud);
  bool plain = false;
  if (!rc)
    rc = gql_gw_defer_initial(r, out, &plain);
  gql_buf_putc(out, '\n');
  bool more = !plain;
  while (!rc && more && i < plan->nbatches) { /* a wave, then its payload */
    uint32_t level = plan->batches[i].level;
    for (; !rc && i < plan->nbatches && plan->batches[i].level == level; i++)
      rc = send_batch(r, plan, i, &body, send, ud);
    size_t len = out->len;
    if (!rc)
      rc = gql_gw_defer_next(r, i < plan->nbatches ? level : UINT32_MAX, out,
                             &more);
    if (!rc && out->len != len)
      gql_buf_putc(out, '\n');
  }
  if (!rc && more) { /* no wave left: what remains */
    rc = gql_gw_defer_next(r, UINT32_MAX, out, &more);
    gql_buf_putc(out, '\n');
  }
  gql_buf_free(&body);
  return rc ? rc : out->failed ? GQL_ENOMEM : 0;
}

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
