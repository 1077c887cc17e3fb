/* The hand-over of a response (deliver.c), inline into the two places a
 * response is finished: direct mode's gql_execute and deliver.c. */
#ifndef GQL_EXEC_DELIVER_H
#define GQL_EXEC_DELIVER_H

#include "executor.h"

/* Hands the response to on_done and the output buffer back to the caller;
 * then frees what the execution made for itself. With its own arena, the
 * context is freed here too (tree mode's is in the arena). Inline: every
 * request ends here, most of them from finish_direct. */
static inline __attribute__((always_inline)) void deliver(exec_ctx *ctx) {
  gql_buf *r = &ctx->resp;
  if (GQL_UNLIKELY(ctx->hooks != NULL))
    gql_exec_deliver_hooks(ctx, ctx->hooks);
  gql_output *go = ctx->output;
  if (GQL_LIKELY(!r->failed)) {
    ctx->on_done(ctx->ud, r->data, r->len, ctx->nerrs > 0);
    go->len = r->len;
  } else {
    static const char oom[] = "{\"errors\":[{\"message\":\"Out of memory.\"}]}";
    ctx->on_done(ctx->ud, oom, sizeof oom - 1, true);
    go->len = 0;
  }
  go->data = r->data;
  go->cap = r->cap;
  if (GQL_UNLIKELY(ctx->owns)) {
    if (ctx->owns & OWN_OUTPUT)
      gql_output_free(go);
    if (ctx->owns & OWN_ARENA)
      gql_arena_free(ctx->arena);
  }
}

#endif
