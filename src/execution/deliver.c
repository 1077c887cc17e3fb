/* The response: the errors, tree mode's tree written out in selection
 * order, an early answer made of errors, and the hooks' execute_error and
 * execute_finish before on_done (deliver.h). */
#include "deliver.h"

void gql_exec_write_errors(exec_ctx *ctx, gql_buf *b) {
  gql_buf_puts(b, "\"errors\":[");
  for (uint32_t i = 0; i < ctx->nerrs; i++) {
    const exec_error *e = &ctx->errs[i];
    if (i)
      gql_buf_putc(b, ',');
    gql_buf_puts(b, "{\"message\":");
    gql_json_write_string(b, gql_cstr(e->message));
    gql_json_write_locations(b, e->locs, e->nlocs);
    if (e->path) {
      gql_buf_puts(b, ",\"path\":");
      gql_buf_puts(b, e->path);
    }
    gql_buf_putc(b, '}');
  }
  gql_buf_putc(b, ']');
}

static void write_tree(exec_ctx *ctx, gql_buf *b, const rnode *n) {
  switch (n->kind) {
  case R_BYTES:
    gql_buf_append(b, ctx->bytes.data + n->start, n->end - n->start);
    return;
  case R_OBJECT:
    gql_buf_putc(b, '{');
    for (uint32_t i = 0; i < n->nkids; i++) {
      if (i)
        gql_buf_putc(b, ',');
      gql_buf_append(b, n->keys[i].ptr, n->keys[i].len);
      write_tree(ctx, b, &n->kids[i]);
    }
    gql_buf_putc(b, '}');
    return;
  case R_LIST:
    gql_buf_putc(b, '[');
    for (uint32_t i = 0; i < n->nkids; i++) {
      if (i)
        gql_buf_putc(b, ',');
      write_tree(ctx, b, &n->kids[i]);
    }
    gql_buf_putc(b, ']');
    return;
  default:
    gql_buf_puts(b, "null");
  }
}

/* The hooks' part of deliver. */
__attribute__((noinline)) void gql_exec_deliver_hooks(exec_ctx *ctx,
                                                      const gql_exec_hooks *h) {
  /* Stamps may still be owed here: the traced runs of the benchmark
   * documents and the last-stamps tests reach delivery with some owed (an
   * assertion that none is fails them), so they are settled first. */
  if (ctx->owed)
    gql_exec_stamps_settle(ctx);
  if (h->pub.execute_error)
    for (uint32_t i = 0; i < ctx->nerrs; i++) {
      const exec_error *e = &ctx->errs[i];
      h->pub.execute_error(h->pub.ctx, e->message, e->locs, e->nlocs, e->path);
    }
  if (h->pub.execute_finish)
    h->pub.execute_finish(h->pub.ctx, ctx->nerrs > 0);
}

/* Tree mode: everything has completed; write the response. */
void gql_exec_finish(exec_ctx *ctx) {
  if (ctx->done)
    return;
  gql_buf *r = &ctx->resp;
  r->len = 0;
  gql_buf_putc(r, '{');
  if (ctx->nerrs) {
    gql_exec_write_errors(ctx, r);
    gql_buf_putc(r, ',');
  }
  gql_buf_puts(r, "\"data\":");
  write_tree(ctx, r, ctx->root);
  gql_buf_putc(r, '}');
  /* (an incremental execution's contexts keep theirs: incremental.c
   * reuses and frees them) */
  if (GQL_LIKELY(!ctx->inc))
    gql_buf_free(&ctx->bytes);
  ctx->done = true;
  deliver(ctx);
}

void gql_exec_errors_only(exec_ctx *ctx, bool with_null_data) {
  gql_buf *r = &ctx->resp;
  r->len = 0;
  gql_buf_putc(r, '{');
  gql_exec_write_errors(ctx, r);
  if (with_null_data)
    gql_buf_puts(r, ",\"data\":null");
  gql_buf_putc(r, '}');
  deliver(ctx);
}

gql_str gql_exec_errors_array(exec_ctx *c) {
  gql_buf e;
  gql_buf_init(&e, NULL);
  gql_exec_write_errors(c, &e);
  char *copy =
      e.failed ? NULL : gql_arena_strndup(c->arena, e.data + 9, e.len - 9);
  gql_str r = copy ? (gql_str){copy, e.len - 9} : GQL_EXEC_OOM_ERRORS;
  gql_buf_free(&e);
  return r;
}

const gql_json_value *gql_exec_value_at(const gql_json_value *data,
                                        const gql_json_value *segs) {
  const gql_json_value *v = data;
  for (size_t i = 0; v && i < segs->array.count; i++) {
    const gql_json_value *s = &segs->array.items[i];
    if (s->kind == GQL_JSON_STRING)
      v = gql_json_get(v, s->string);
    else if (v->kind == GQL_JSON_ARRAY && s->kind == GQL_JSON_NUMBER &&
             s->number.i >= 0 && (uint64_t)s->number.i < v->array.count)
      v = &v->array.items[s->number.i];
    else
      v = NULL;
  }
  return v;
}

bool gql_exec_object_at(gql_arena *a, const gql_json_value *data,
                        const char *path) {
  gql_json_value *segs;
  const gql_json_options o = {.max_depth = 2};
  if (gql_json_parse(a, path, strlen(path), &o, &segs, NULL) != 0)
    return false;
  const gql_json_value *v = gql_exec_value_at(data, segs);
  return v && v->kind == GQL_JSON_OBJECT;
}
