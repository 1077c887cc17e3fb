/* Persisted operations on the request path: the server asks
 * opt->documents what a GraphQL request runs before its operation is
 * parsed (its own query, a document found by id or hash, or an error), and
 * waits, with the connection held, for a decision that needs a store. The
 * rules themselves (APQ, manifests, safelists) are the embedder's: gql
 * serve and gql gateway take them from src/pubsub. */
#include "http.h"

typedef struct doc_wait {
  gql_http_request *r;
  gql_http_doc_run run;
  void *ud;
} doc_wait;

void gql_http_document_decide(gql_http_request *r, gql_http_document *d,
                              gql_http_doc_run run, void *ud) {
  gql_http_ctx *x = r->conn->x;
  doc_wait *w = gql_arena_alloc(r->slot->arena, sizeof *w);
  r->doc = d;
  if (!w) { /* no body: the server's out-of-memory answer */
    run(r, ud, GQL_HTTP_DOC_ERROR);
    return;
  }
  *w = (doc_wait){.r = r, .run = run, .ud = ud};
  d->internal_ = w;
  int action = x->opt->documents->decide(x->doc_worker, r, d);
  if (action == GQL_HTTP_DOC_PENDING) {
    r->conn->inflight = r; /* gql_http_document_done comes from the loop */
    return;
  }
  run(r, ud, action == GQL_HTTP_DOC_RUN ? action : GQL_HTTP_DOC_ERROR);
}

void gql_http_document_done(gql_http_document *d, int action) {
  doc_wait *w = d->internal_;
  gql_http_request *r = w->r;
  gql_http_conn *c = r->conn;
  w->run(r, w->ud, action == GQL_HTTP_DOC_RUN ? action : GQL_HTTP_DOC_ERROR);
  /* Answered now (an error, a refusal, a synchronous execution that did
   * not end it itself): end it on the next turn, as a pending execution
   * ends. A pending execution ends through gql_http_exec_done. */
  if (r->answered && !r->done && c->inflight == r && c->x->resumed)
    c->x->resumed(c);
}

void gql_http_document_validated(gql_http_request *r) {
  gql_http_ctx *x = r->conn->x;
  const gql_http_documents *ds = x->opt->documents;
  if (ds->validated)
    ds->validated(x->doc_worker, r, r->doc);
}

bool gql_http_documents_start(gql_http_ctx *x) {
  const gql_http_documents *ds = x->opt->documents;
  x->doc_worker = ds ? ds->ud : NULL;
  if (ds && ds->worker_start &&
      !(x->doc_worker = ds->worker_start(ds->ud, x->loop)))
    return false;
  return true;
}

void gql_http_documents_stop(gql_http_ctx *x) {
  const gql_http_documents *ds = x->opt->documents;
  if (ds && ds->worker_stop && x->doc_worker)
    ds->worker_stop(x->doc_worker);
}

void gql_http_documents_free(gql_http_ctx *x) {
  const gql_http_documents *ds = x->opt->documents;
  if (ds && ds->worker_start && ds->worker_free && x->doc_worker)
    ds->worker_free(x->doc_worker);
  x->doc_worker = NULL;
}
