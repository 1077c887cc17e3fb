/* Streamed responses: one HTTP response carrying several GraphQL payloads
 * (incremental delivery's @defer / @stream, and an executor hook's
 * payloads, gql_http_exec_payload), each framed as incremental.c says
 * (a multipart/mixed part or a text/event-stream event), sent as one
 * chunk of the chunked transfer coding and handed to the transport as it
 * comes (x->flush), not buffered to the end.
 *
 * The stream starts with the first payload that says more follow: a
 * response whose first payload is also its last (an operation that defers
 * nothing) is the plain response handler.c writes, unless the client
 * accepts nothing else. A client that accepts neither framing gets
 * graphql-http's refusal (406) in place of the stream; the execution still
 * runs to its end (its memory is the request's), writing nothing more.
 *
 * The client going away mid-stream (the transport reads on while a
 * response streams, and tells gql_http_stream_gone) stops the writing and
 * runs the executor's cancel; the request still ends with its last
 * payload, as every request does, which frees it. */
#include "fanout.h"
#include "http.h"
#include "incremental.h"
#include "incremental_legacy.h"
#include "sse_single.h"

#include <stdatomic.h>

#define S_LIT(lit) ((gql_str){(lit), sizeof(lit) - 1})

typedef struct gql_http_stream {
  unsigned payloads; /* written or counted */
  size_t bytes;      /* body bytes written */
  bool started;      /* the head is written */
  bool refused;      /* answered 406 instead */
  bool gone;         /* the client went away */
  bool chunked;      /* HTTP/1.1 (HTTP/1.0: the body ends with the socket) */
  bool in_emit;      /* inside a payload's writing (gone waits for its end) */
  bool cancel_due;   /* gone while in_emit: cancel once it returns */
  void (*cancel)(void *ud);
  void *cancel_ud;
  gql_subscription *sub; /* a subscription's (freed with the request) */
  bool subscribing;      /* inside gql_subscribe */
  bool counted;          /* in x->open_subscriptions */
  bool observed;         /* in the observer's open subscriptions */
  bool paused;           /* its output waits for the client */

  gql_http_legacy legacy; /* deferSpec=20220824: the payloads converted */
} gql_http_stream;

/* A subscription's events pause while this much output waits for the
 * client (then its queue, bounded, takes them), and resume below the
 * low mark. */
#define STREAM_PAUSE_BYTES ((size_t)1 << 20)
#define STREAM_RESUME_BYTES ((size_t)256 << 10)

void gql_http_stream_negotiate_request(gql_http_request *r) {
  if (r->stream_negotiated)
    return;
  const http_buf *a = &r->conn->accept;
  r->stream_fmt = (int8_t)gql_http_stream_negotiate(a->o.data, a->o.len);
  r->stream_negotiated = true;
}

static gql_http_stream *stream_of(gql_http_request *r) {
  if (!r->stream && r->slot) {
    r->stream = gql_arena_alloc(r->slot->arena, sizeof *r->stream);
    if (r->stream)
      *r->stream =
          (gql_http_stream){.chunked = !(r->conn->parser.http_major == 1 &&
                                         r->conn->parser.http_minor == 0)};
  }
  return r->stream;
}

/* Whether a payload of gql_execute_incremental says more follow: the
 * initial result ends with it, a subsequent payload starts with it (a
 * plain result has no hasNext). */
static bool says_has_next(const char *json, size_t len) {
  static const char tail[] = ",\"hasNext\":true}", head[] = "{\"hasNext\":true";
  return (len >= sizeof tail - 1 &&
          memcmp(json + len - (sizeof tail - 1), tail, sizeof tail - 1) == 0) ||
         (len >= sizeof head - 1 && memcmp(json, head, sizeof head - 1) == 0);
}

/* The bytes that end a stream whose last payload was already framed as
 * one more would follow (an end without a payload). */
static gql_str bare_end(gql_http_stream_format f) {
  if (f == GQL_HTTP_STREAM_SSE)
    return S_LIT("event: complete\ndata:\n\n");
  return S_LIT("--\r\n"); /* after "\r\n---": the close delimiter */
}

/* Body bytes out as one chunk (several pieces, one chunk-size line). */
static void put_chunk(gql_http_request *r, gql_http_stream *s,
                      const gql_str *pieces, size_t n, bool last) {
  http_buf *o = &r->conn->out;
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += pieces[i].len;
  if (!r->head && total) {
    if (s->chunked) {
      char line[24];
      size_t ll = gql_http_chunk_head(line, total);
      http_buf_append(o, line, ll);
    }
    for (size_t i = 0; i < n; i++)
      http_buf_append(o, pieces[i].ptr, pieces[i].len);
    if (s->chunked)
      http_buf_append(o, "\r\n", 2);
  }
  if (last && s->chunked && !r->head)
    http_buf_puts(o, GQL_HTTP_LAST_CHUNK);
  s->bytes += total;
}

/* The response's head: 200, the framing's media type, chunked. */
static void put_head(gql_http_request *r, gql_http_stream *s) {
  gql_http_conn *c = r->conn;
  const gql_http_hooks *h = c->x->opt->hooks;
  if (h && h->response && r->slot && !r->answered)
    h->response(c->x->hook_worker, r, 200);
  r->answered = true;
  if (c->x->stopping || !s->chunked)
    c->close_after = true;
  http_buf *o = &c->out;
  http_buf_puts(o, "HTTP/1.1 200 OK\r\nContent-Type: ");
  http_buf_puts(o, gql_http_stream_content_type(r->stream_fmt));
  http_buf_puts(o, "\r\nCache-Control: no-cache\r\n");
  if (s->chunked)
    http_buf_puts(o, "Transfer-Encoding: chunked\r\n");
  if (r->headers.len) /* the hooks' and resolvers' headers */
    http_buf_append(o, r->headers.data, r->headers.len);
  http_buf_puts(o, c->close_after ? "Connection: close\r\n\r\n" : "\r\n");
  s->started = true;
  c->streaming = true;
}

/* Whether the stream can go out in the negotiated framing. */
static bool servable(const gql_http_request *r) {
  return r->stream_negotiated && r->stream_fmt != GQL_HTTP_STREAM_NONE;
}

/* The client accepts no framing gql writes: graphql-http's 406, with the
 * Accept header that would do. */
static void refuse(gql_http_request *r, gql_http_stream *s) {
  http_buf b = {0}, hdr = {0};
  const char *msg = gql_http_stream_refusal_message;
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  http_buf_json_string(&b, http_str(msg, strlen(msg)));
  http_buf_puts(&b, "}]}");
  http_buf_puts(&hdr, "Accept: ");
  http_buf_puts(&hdr, gql_http_stream_accept);
  http_buf_puts(&hdr, "\r\n");
  r->errors = true;
  s->refused = true;
  gql_http_request_finish(
      r, b.failed || hdr.failed ? 503 : GQL_HTTP_STREAM_REFUSAL_STATUS,
      r->graphql_response ? "application/graphql-response+json; charset=utf-8"
                          : "application/json; charset=utf-8",
      hdr.failed ? NULL : http_buf_cstr(&hdr), b.failed ? "" : b.o.data,
      b.failed ? 0 : b.o.len);
  http_buf_free(&b);
  http_buf_free(&hdr);
}

/* gql_subscriptions_open: a subscription's stream counts from its start
 * to its end (or the request's, if the end never came). */
static void unobserve(gql_http_request *r, gql_http_stream *s) {
  if (s->observed)
    gql_http_ws_counted(r->conn->x, GQL_HTTP_WS_SUBSCRIPTIONS, -1);
  s->observed = false;
}

void gql_http_stream_observe(gql_http_request *r) {
  gql_http_stream *s = stream_of(r);
  if (s && !s->observed && !r->done) {
    s->observed = true;
    gql_http_ws_counted(r->conn->x, GQL_HTTP_WS_SUBSCRIPTIONS, 1);
  }
}

/* The stream's end: the access log and the observer, and the request
 * done (ended by the transport once the executor returned). */
static void end(gql_http_request *r, gql_http_stream *s) {
  gql_http_conn *c = r->conn;
  r->done = true;
  unobserve(r, s);
  if (s->started) {
    c->streaming = false;
    if (!s->chunked)
      c->close_after = true;
    gql_http_request_info info = {
        .method = r->method,
        .path = r->path,
        .status = 200,
        .bytes = s->bytes,
        .operation_name = r->op_name,
        .operation_type = r->op_type,
        .document_cache = r->cache,
        .body = NULL, /* several payloads: none is the body */
        .errors = r->errors,
        .trace = r->trace};
    gql_http_log_request(c, &info, r->start_ns);
  }
  if (c->inflight == r && c->x->resumed)
    c->x->resumed(c);
}

/* One payload (json NULL: none, the end only). */
static void emit(gql_http_request *r, const char *json, size_t len,
                 bool has_next, bool has_errors) {
  if (r->done)
    return;
  gql_http_stream *s = stream_of(r);
  if (!s) { /* out of memory: one answer, then nothing */
    if (!r->answered)
      gql_http_request_finish(r, 503, "application/json; charset=utf-8", NULL,
                              "{\"errors\":[{\"message\":\"Out of memory.\"}]}",
                              41);
    if (!has_next) {
      r->done = true;
      if (r->conn->inflight == r && r->conn->x->resumed)
        r->conn->x->resumed(r->conn);
    }
    return;
  }
  r->errors = r->errors || has_errors;
  bool first = s->payloads == 0;
  if (first && !has_next && json && !r->stream_only) {
    gql_http_request_done(r, json, len, has_errors); /* as today */
    return;
  }
  s->payloads++;
  s->in_emit = true;
  if (!s->started && !s->refused && !s->gone) {
    if (!servable(r) && !(first && !has_next && r->stream_only))
      refuse(r, s);
    else
      put_head(r, s);
  }
  if (s->started && !s->gone) {
    gql_http_stream_format f = r->stream_fmt;
    if (json) {
      if (f == GQL_HTTP_STREAM_MULTIPART_LEGACY) /* Apollo's format */
        gql_http_legacy_convert(&s->legacy, json, len, has_next, &json, &len);
      gql_http_frame fr = gql_http_stream_frame(f, first, !has_next);
      gql_str pieces[] = {
          {fr.head, fr.head_len}, {json, len}, {fr.tail, fr.tail_len}};
      put_chunk(r, s, pieces, 3, !has_next);
    } else if (!has_next) {
      gql_str bytes = !first                     ? bare_end(f)
                      : f == GQL_HTTP_STREAM_SSE ? bare_end(f)
                                                 : S_LIT("\r\n-----\r\n");
      put_chunk(r, s, &bytes, 1, true);
    }
  }
  /* from the loop: out now (in the handler, its caller writes; the last
   * goes with the request's end) */
  if (has_next && !s->gone && r->conn->inflight == r && r->conn->x->flush)
    r->conn->x->flush(r->conn);
  if (has_next && s->sub && !s->paused && !s->gone &&
      r->conn->out.o.len + r->conn->out_inflight > STREAM_PAUSE_BYTES) {
    s->paused = true;
    gql_subscription_pause(s->sub);
  }
  s->in_emit = false;
  if (s->cancel_due) {
    void (*cancel)(void *) = s->cancel;
    s->cancel_due = false;
    s->cancel = NULL; /* once */
    if (cancel)
      cancel(s->cancel_ud);
  }
  if (!has_next)
    end(r, s);
}

void gql_http_stream_on_payload(void *ud, const char *json, size_t len,
                                bool has_errors) {
  emit(ud, json, len, says_has_next(json, len), has_errors);
}

void gql_http_stream_gone(gql_http_conn *c) {
  gql_http_request *r = c->inflight;
  c->streaming = false;
  if (r && r->sse_hub) { /* graphql-sse's single connection stream */
    gql_http_sse_stream_gone(r);
    return;
  }
  if (!r || !r->stream || r->stream->gone || r->done)
    return;
  gql_http_stream *s = r->stream;
  s->gone = true;
  if (!s->cancel)
    return;
  if (s->in_emit) {
    s->cancel_due = true;
    return;
  }
  void (*cancel)(void *) = s->cancel;
  s->cancel = NULL; /* once */
  cancel(s->cancel_ud);
}

void gql_http_stream_writable(gql_http_conn *c) {
  gql_http_request *r = c->inflight;
  gql_http_stream *s = r ? r->stream : NULL;
  if (s && s->paused && s->sub &&
      c->out.o.len + c->out_inflight < STREAM_RESUME_BYTES) {
    s->paused = false;
    gql_subscription_resume(s->sub);
  }
}

void gql_http_stream_release(gql_http_request *r) {
  gql_http_stream *s = r->stream;
  if (s->counted)
    atomic_fetch_sub(r->conn->x->open_subscriptions, 1);
  s->counted = false;
  unobserve(r, s);
  gql_subscription_free(s->sub); /* its source's cancel, if still open */
  s->sub = NULL;
  gql_http_legacy_free(&s->legacy);
}

void gql_http_stream_going_away(gql_http_conn *c) {
  gql_http_request *r = c->inflight;
  if (r && r->sse_hub) {
    gql_http_sse_stream_going_away(r);
    return;
  }
  gql_http_stream *s = r ? r->stream : NULL;
  if (s && !s->sub && !r->done && r->op_type == GQL_OP_SUBSCRIPTION &&
      s->cancel) {
    /* an executor's subscription (the gateway's relay; before, the stop
     * waited for it, for ever while the subgraph kept sending): its cancel
     * ends it, and it ends the request with `complete` */
    void (*cancel)(void *) = s->cancel;
    s->cancel = NULL; /* once */
    c->close_after = true;
    cancel(s->cancel_ud);
    return;
  }
  if (!s || !s->sub || r->done)
    return;
  c->close_after = true;
  s->cancel = NULL;
  gql_http_stream_release(r);
  emit(r, NULL, 0, false, false); /* `complete` */
}

/* ------------------------------------------------ subscriptions (SSE) */

static void sub_event(void *ud, const char *json, size_t len, bool errs) {
  emit(ud, json, len, true, errs);
}

/* The source ended (errors NULL) or failed: graphql-sse sends the errors
 * as a `next` ({"errors":[...]}), then `complete`. */
static void sub_end(void *ud, const char *errors, size_t len) {
  gql_http_request *r = ud;
  if (!errors) {
    emit(r, NULL, 0, false, false);
    return;
  }
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":");
  http_buf_append(&b, errors, len);
  http_buf_putc(&b, '}');
  if (b.failed)
    emit(r, NULL, 0, false, true);
  else
    emit(r, b.o.data, b.o.len, false, true);
  http_buf_free(&b);
}

/* The client left: the subscription goes, and with it the request. */
static void sub_cancel(void *ud) {
  gql_http_request *r = ud;
  gql_http_stream_release(r);
  emit(r, NULL, 0, false, false);
}

static void sub_refuse(gql_http_request *r, const char *message) {
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  http_buf_json_string(&b, http_str(message, strlen(message)));
  http_buf_puts(&b, "}]}");
  emit(r, b.failed ? "{}" : b.o.data, b.failed ? 2 : b.o.len, false, true);
  http_buf_free(&b);
}

bool gql_http_stream_admit(gql_http_request *r) {
  gql_http_stream *s = stream_of(r);
  if (!s || gql_http_subscription_count(r->conn->x, &s->counted))
    return true;
  sub_refuse(r, GQL_HTTP_TOO_MANY_SUBSCRIPTIONS);
  return false;
}

void gql_http_stream_subscribe(gql_http_request *r, const gql_prepared *p,
                               const gql_value *variables,
                               const void *root_value) {
  gql_http_ctx *x = r->conn->x;
  gql_http_stream *s = stream_of(r);
  r->stream_only = true; /* an event stream, also of one result */
  if (!s) {
    emit(r, NULL, 0, false, true);
    return;
  }
  if (!gql_http_stream_admit(r))
    return;
  gql_subscribe_params sp = {.variables = variables,
                             .root_value = root_value,
                             .context = r,
                             .on_event = sub_event,
                             .on_end = sub_end,
                             .ud = r,
                             .max_queue = x->opt->subscription.queue_capacity};
  s->subscribing = true;
  int rc = gql_subscribe(p, &sp, &s->sub);
  s->subscribing = false;
  if (rc == 1) { /* its errors went out as a `next` */
    emit(r, NULL, 0, false, true);
    return;
  }
  if (rc < 0) {
    sub_refuse(r, gql_strerror(rc));
    return;
  }
  if (!r->done) { /* the head now: the client sees the stream open */
    gql_http_stream_observe(r);
    s->cancel = sub_cancel;
    s->cancel_ud = r;
    if (!s->started && !s->gone)
      put_head(r, s);
  }
}

int gql_http_stream_execute(gql_http_request *r, const gql_prepared *p,
                            gql_execute_params *ep) {
  gql_http_stream_negotiate_request(r);
  if (gql_prepared_operation(p) == GQL_OP_SUBSCRIPTION &&
      r->stream_fmt == GQL_HTTP_STREAM_SSE &&
      !r->conn->x->opt->subscription.disabled) {
    gql_http_stream_subscribe(r, p, ep->variables, ep->root_value);
    return 0;
  }
  ep->on_done = gql_http_stream_on_payload;
  return gql_execute_incremental(p, ep);
}

/* ------------------------------------------------ the executor hook's */

bool gql_http_exec_streams(const gql_http_exec *req) {
  const gql_http_request *r = req->internal_;
  if (r && (r->ws_exec || r->sse_op)) /* graphql-ws, graphql-sse single */
    return true;
  return r && servable(r);
}

void gql_http_exec_payload(gql_http_exec *req, const char *json, size_t len,
                           bool has_next) {
  gql_http_request *r = req->internal_;
  if (!r)
    return;
  if (r->ws_exec) {
    gql_http_ws_exec_payload(r, json, len, has_next);
    return;
  }
  if (r->sse_op) {
    gql_http_sse_exec_payload(r, json, len, has_next);
    return;
  }
  /* A subscription's event (the gateway's relay) for a client whose output
   * already piles up: dropped, not buffered, as gql serve's own
   * subscriptions drop past their queue (a subgraph flooding events to a
   * client that does not read grew the gateway by 35 MB a second). */
  gql_http_stream *s = r->stream;
  if (has_next && json && s && s->started && !s->sub &&
      r->op_type == GQL_OP_SUBSCRIPTION &&
      r->conn->out.o.len + r->conn->out_inflight > STREAM_PAUSE_BYTES)
    return;
  emit(r, json, json ? len : 0, has_next, true); /* errors: not known */
}

void gql_http_exec_on_cancel(gql_http_exec *req, void (*cancel)(void *ud),
                             void *ud) {
  gql_http_request *r = req->internal_;
  if (r && r->ws_exec) {
    gql_http_ws_exec_on_cancel(r, cancel, ud);
    return;
  }
  if (r && r->sse_op) {
    gql_http_sse_exec_on_cancel(r, cancel, ud);
    return;
  }
  gql_http_stream *s = r && !r->done ? stream_of(r) : NULL;
  if (!s)
    return;
  s->cancel = cancel;
  s->cancel_ud = ud;
  if (s->gone && cancel) { /* already gone: at once */
    s->cancel = NULL;
    cancel(ud);
  }
}
