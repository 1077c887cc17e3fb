/* The hand-over of a response (deliver.c), inline into the places a
 * response is finished: direct mode's gql_execute, incremental.c's direct
 * initial result and deliver.c. */
#ifndef GQL_EXEC_DELIVER_H
#define GQL_EXEC_DELIVER_H

#include "executor.h"

/* The response buffer back to the caller's output `go` (ctx's); then what the
 * execution made for itself freed (ctx too, when it is the arena's). */
static inline __attribute__((always_inline)) void
gql_exec_hand_back(exec_ctx *ctx, gql_output *go) {
  go->data = ctx->resp.data;
  go->cap = ctx->resp.cap;
  if (GQL_UNLIKELY(ctx->owns)) {
    if (ctx->owns & OWN_OUTPUT)
      gql_output_free(go);
    if (ctx->owns & OWN_ARENA)
      gql_arena_free(ctx->arena);
  }
}

/* Hands the response to on_done and the output buffer back to the caller;
 * then frees what the execution made for itself. With its own arena, the
 * context is freed here too (tree mode's is in the arena). Inline: every
 * request ends here, most of them from gql_exec_finish_direct. */
static inline __attribute__((always_inline)) void deliver(exec_ctx *ctx) {
  gql_buf *r = &ctx->resp;
  if (GQL_UNLIKELY(ctx->hooks != NULL))
    gql_exec_deliver_hooks(ctx, ctx->hooks);
  gql_output *go = ctx->output;
  if (GQL_LIKELY(!r->failed)) {
    ctx->on_done(ctx->ud, r->data, r->len, ctx->nerrs > 0);
    go->len = r->len;
  } else {
    gql_str oom = GQL_EXEC_OOM_RESPONSE;
    ctx->on_done(ctx->ud, oom.ptr, oom.len, true);
    go->len = 0;
  }
  gql_exec_hand_back(ctx, go);
}

/* Direct mode: the data is in place after `{"data":` (null when
 * `data_null`); closes the response, with the errors in front when there
 * are some. */
static inline void gql_exec_close_direct(exec_ctx *ctx, bool data_null) {
  gql_buf *r = &ctx->resp;
  const size_t head = 8; /* {"data": */
  if (data_null) {
    r->len = head;
    gql_buf_puts(r, "null");
  }
  gql_buf_putc(r, '}');
  if (ctx->nerrs && !r->failed) {
    size_t data_len = r->len - head;
    size_t before = r->len;
    gql_buf_putc(r, '{');
    gql_exec_write_errors(ctx, r);
    gql_buf_putc(r, ',');
    if (!r->failed) {
      size_t elen = r->len - before;
      /* room to copy `"data":DATA}` (data_len + head - 1 bytes) after the
       * errors */
      if (gql_buf_reserve(r, data_len + head - 1)) {
        /* [{"data":DATA}][{ERRORS,] → [{ERRORS,"data":DATA}] */
        memmove(r->data + before + elen, r->data + 1, data_len + head - 1);
        memmove(r->data, r->data + before, elen);
        memmove(r->data + elen, r->data + before + elen, data_len + head - 1);
        r->len = elen + data_len + head - 1;
      }
    }
  }
}

/* gql_exec_close_direct, then deliver. Inline: gql_execute's direct mode
 * and incremental.c's direct initial result end here. */
static inline void gql_exec_finish_direct(exec_ctx *ctx, bool data_null) {
  gql_exec_close_direct(ctx, data_null);
  deliver(ctx);
}

#endif
