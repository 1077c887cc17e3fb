/* graphql-ws operations through an executor hook (gql_http_options.executor,
 * the gateway's): subscriptions.c prepares an operation as for gql's own
 * executor (document cache, validation, limits), then hands it here as a
 * gql_http_exec. The executor answers with the streaming API of gql_http.h:
 * each gql_http_exec_payload is a `next`, the last one (has_next false) is
 * followed by `complete`; gql_http_exec_done is one `next` and `complete`.
 * The client's `complete`, or the socket closing, runs the executor's
 * cancel callback (gql_http_exec_on_cancel); the executor still ends the
 * request once, which then sends nothing.
 *
 * The operation stays counted in the session's pending executions until the
 * executor has ended it, so the connection's memory (the request the
 * executor holds) outlives a socket that closed under it; it is freed on the
 * next loop turn (the session's `done` list), never under the executor. */
#include "ws_session.h"

#include <stdlib.h>

struct gql_http_ws_exec {
  /* The socket's request as this operation's executor sees it (headers,
   * context and claims of the connection; its arena is the operation's);
   * gql_http_exec.internal_ points here. */
  gql_http_request req;
  gql_http_exec exec;
  ws_op *o;
  void (*cancel)(void *ud);
  void *cancel_ud;
  bool cancelled; /* the client went: cancel ran (or runs at on_cancel) */
  bool ended;     /* the executor ended the request */
};

/* Output to write, or an operation to free: the transport's next turn. */
static void wake(gql_http_ws_session *s) {
  if (s->c->x->ws_wake)
    s->c->x->ws_wake(s->c);
}

/* The executor is done with the operation: its memory goes with the next
 * turn's reap (subscriptions.c). */
static void end(gql_http_ws_exec *ex) {
  ws_op *o = ex->o;
  ex->ended = true;
  if (o->op) {
    gql_gws_op *op = o->op;
    o->op = NULL;
    op->user = NULL;
    gql_gws_complete(op);
  }
  gql_http_ws_session *s = o->s;
  o->next_done = s->done;
  s->done = o;
  wake(s);
}

/* An operation the executor refused (execute returned an error). */
static void refuse(gql_http_ws_exec *ex, int rc) {
  ws_op *o = ex->o;
  if (o->op) {
    gql_gws_op *op = o->op;
    o->op = NULL;
    op->user = NULL;
    http_buf b = {0};
    http_buf_puts(&b, "[{\"message\":");
    const char *m = gql_strerror(rc);
    http_buf_json_string(&b, http_str(m, strlen(m)));
    http_buf_puts(&b, "}]");
    if (!b.failed)
      gql_gws_error(op, b.o.data, b.o.len);
    else
      gql_gws_complete(op);
    http_buf_free(&b);
  }
  end(ex);
}

/* A copy of the subscribe message's variables in the operation's arena
 * (the message's own memory is the protocol's scratch). */
static int copy_variables(gql_arena *arena, const gql_value *v,
                          const gql_value **out) {
  *out = NULL;
  if (!v)
    return 0;
  gql_str text;
  int rc = gql_value_print(arena, v, &text);
  return rc ? rc : gql_value_parse(arena, text.ptr, text.len, out);
}

void gql_http_ws_exec_start(ws_op *o, const gql_gws_request *rq,
                            const char *operation_name) {
  gql_http_ws_session *s = o->s;
  gql_http_ctx *x = s->c->x;
  gql_arena *arena = o->slot->arena;
  gql_http_ws_exec *ex = gql_arena_alloc(arena, sizeof *ex);
  char *query = gql_arena_alloc(arena, rq->query.len + 1);
  const gql_value *variables = NULL;
  int rc = ex && query ? copy_variables(arena, rq->variables, &variables)
                       : GQL_ENOMEM;
  o->pends = true; /* freed through s->done once ended */
  s->pending++;
  if (!ex) { /* no request to answer through: end it here */
    gql_gws_op *op = o->op;
    o->op = NULL;
    op->user = NULL;
    gql_gws_error(op, "[{\"message\":\"Out of memory.\"}]", 29);
    o->next_done = s->done;
    s->done = o;
    wake(s);
    return;
  }
  memset(ex, 0, sizeof *ex);
  ex->o = o;
  o->exec = ex;
  if (rc) {
    refuse(ex, rc);
    return;
  }
  memcpy(query, rq->query.ptr, rq->query.len);
  query[rq->query.len] = 0;
  ex->req = s->req;
  ex->req.slot = o->slot;
  ex->req.peer = NULL;
  ex->req.ws_exec = ex;
  ex->exec = (gql_http_exec){.arena = arena,
                             .loop = x->loop,
                             .query = {query, rq->query.len},
                             .operation_name = operation_name,
                             .variables = variables,
                             .prepared = o->entry->prepared,
                             .internal_ = &ex->req,
                             .request = &ex->req,
                             .generation = o->pin->gen->g.ud};
  rc = x->opt->executor->execute(x->exec_worker, &ex->exec);
  if (rc < 0 && !ex->ended)
    refuse(ex, rc);
}

void gql_http_ws_exec_cancel(ws_op *o) {
  gql_http_ws_exec *ex = o->exec;
  if (ex->ended || ex->cancelled)
    return;
  ex->cancelled = true;
  if (ex->cancel)
    ex->cancel(ex->cancel_ud);
}

void gql_http_ws_exec_payload(gql_http_request *r, const char *json, size_t len,
                              bool has_next) {
  gql_http_ws_exec *ex = r->ws_exec;
  if (ex->ended)
    return;
  ws_op *o = ex->o;
  if (json && o->op) {
    gql_gws_next(o->op, json, len);
    if (has_next)
      wake(o->s);
  }
  if (!has_next)
    end(ex);
}

void gql_http_ws_exec_on_cancel(gql_http_request *r, void (*cancel)(void *),
                                void *ud) {
  gql_http_ws_exec *ex = r->ws_exec;
  ex->cancel = cancel;
  ex->cancel_ud = ud;
  /* the client went before the executor asked: it learns it now */
  if (ex->cancelled && !ex->ended && cancel)
    cancel(ud);
}
