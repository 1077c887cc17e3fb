/* The entries an eager_only execution's walk writes (eager.c): walk.c's
 * gql_exec_fast_defer and fast_array, bulk.c's fast_item. Inline, in the
 * files that write them only (they call deliver.c's error writers). */
#ifndef GQL_EXEC_FAST_H
#define GQL_EXEC_FAST_H

#include "executor.h"

/* [,]{"id":"N","path":P[,"label":L]}: the pending entry of fragment `id`
 * (f->id's text) of usage `u` at `path`; with `item`, a list item's path
 * from its list's prefix (f->pfx). The id and its quote are copied as 16
 * bytes, the prefix 32 at a time: room for them is reserved. */
static inline void gql_exec_fast_pending(inc_fast *f, uint32_t id,
                                         const plan_defer *u,
                                         const path_frame *path, bool item) {
  gql_buf *b = &f->pend;
  uint32_t nd = f->idlen;
  uint32_t plen = item ? f->pfx_len + inc_digits((uint64_t)path->index) + 1
                       : gql_exec_path_json_len(path);
  size_t need = 34 + plen + (item ? sizeof f->pfx : 0);
  if (GQL_UNLIKELY(b->cap - b->len < need) && !gql_buf_reserve(b, need))
    return;
  char *w = b->data + b->len;
  memcpy(w, ",{\"id\":\"", 8);
  w[0] = id ? ',' : '[';
  memcpy(w + 8, f->id, 16);
  memcpy(w + 9 + nd, ",\"path\":", 8);
  if (item) {
    char *pw = w + 17 + nd;
    for (uint32_t i = 0; i < f->pfx_len; i += 32)
      memcpy(pw + i, f->pfx + i, 32);
    inc_put_digits(pw + plen - 1, (uint64_t)path->index);
    pw[plen - 1] = ']';
  } else {
    gql_exec_path_json_put(w + 17 + nd, plen, path);
  }
  b->len += 17 + nd + plen;
  if (GQL_UNLIKELY(u->label.ptr != NULL)) {
    PUT_LIT(b, ",\"label\":");
    gql_json_write_string(b, u->label);
  }
  gql_buf_putc(b, '}');
}

/* [,]{"id":"N","data": (the next fragment's incremental entry, its fields
 * to follow); returns where it starts. */
static inline size_t gql_exec_fast_entry_open(inc_fast *f) {
  gql_buf *b = &f->eager;
  size_t start = b->len;
  if (GQL_LIKELY(b->cap - b->len >= 40) || gql_buf_reserve(b, 40)) {
    char *w = b->data + b->len;
    *w = ',';
    w += start != f->head;
    memcpy(w, "{\"id\":\"", 7);
    memcpy(w + 7, f->id, 16);
    memcpy(w + 8 + f->idlen, ",\"data\":", 8);
    b->len = (size_t)(w + 16 + f->idlen - b->data);
  }
  return start;
}

/* The entry of fragment `id` opened at `start`, its fields written (the
 * context's errors are the fragment's): closed with its errors, or, when
 * its object became null (`failed`), dropped, the fragment failed. */
static inline void gql_exec_fast_entry_close(exec_ctx *ctx, inc_fast *f,
                                             size_t start, uint32_t id,
                                             bool failed) {
  gql_buf *b = &f->eager;
  if (GQL_LIKELY(!failed && !ctx->nerrs)) {
    gql_buf_putc(b, '}');
    return;
  }
  f->errs = true;
  if (!failed) {
    gql_buf_putc(b, ',');
    gql_exec_write_errors(ctx, b);
    gql_buf_putc(b, '}');
    return;
  }
  b->len = start;
  inc_fast_fail *x = gql_arena_alloc(ctx->arena, sizeof *x);
  if (!x) {
    b->failed = true; /* (eager.c answers out of memory) */
    return;
  }
  *x = (inc_fast_fail){.id = id, .errors = gql_exec_errors_array(ctx)};
  *f->ftail = x;
  f->ftail = &x->next;
}

#endif
