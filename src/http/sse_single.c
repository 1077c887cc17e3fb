/* graphql-sse's single connection mode across workers (sse_single.h). */
#include "sse_single.h"

#include "fanout.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#define CT_JSON "application/json; charset=utf-8"

/* Output a stream may have waiting for its client (its hub's queue and
 * the connection's buffers); past it the stream ends (a client that does
 * not read). */
#define HUB_MAX_BYTES ((size_t)8 << 20)
/* What all the hubs' queues may hold together before a hub whose stream
 * is not open overflows (its stream ends once it takes what was kept).
 * Without it, reservations no stream opens (up to max_connections of
 * them, each for its time-to-live) could each keep HUB_MAX_BYTES. An open
 * stream's hub is drained on its owner's next turn: a burst (an event
 * fanned out to many streams) may pass it and is kept. */
#define QUEUED_MAX_BYTES ((size_t)32 << 20)
/* graphql-sse pings every 12 s; the workers' tick is 1 s. */
#define TICK_MS 1000
#define PING_TICKS 12

typedef struct gql_http_sse_hub hub;
typedef struct gql_http_sse_op op;

/* A stop for the operations a worker runs: one (STOP: token and id) or
 * all of a reservation (CLOSE: token). */
enum { CMD_STOP, CMD_CLOSE };
typedef struct cmd {
  struct cmd *next;
  int kind;
  uint32_t token_len, id_len;
  char data[]; /* token, then id */
} cmd;

struct gql_http_sse {
  gql_sse_registry *reg;
  unsigned n;
  gql_http_sse_worker **workers;
  const gql_http_options *opt;
  atomic_size_t queued; /* bytes in all the hubs' queues */
  bool freeing;
};

struct gql_http_sse_worker {
  gql_http_sse *s;
  unsigned index;
  gql_http_ctx *x;
  uv_async_t async;
  uv_timer_t tick;
  bool handles;
  unsigned ticks;
  uv_mutex_t mu;
  hub *ready; /* hubs with events for streams here (each a reference) */
  cmd *cmds;  /* stops for operations run here */
  /* this thread's only: */
  op *ops;     /* operations run here */
  op *dead;    /* ended, freed on the next turn */
  hub *opened; /* streams open here */
  bool stopping;
};

/* A reservation: its stream's queue of framed events. Referenced by the
 * registry (until the reservation goes), by the stream, by each operation
 * and by the owner's ready list. */
struct gql_http_sse_hub {
  atomic_uint refs;
  gql_http_sse *s;
  uv_mutex_t mu;
  /* under mu: */
  gql_http_sse_worker *owner; /* the worker holding the stream */
  http_buf queue;             /* SSE chunks not yet on the stream */
  bool kicked;                /* in owner->ready */
  bool closed;                /* the reservation is gone */
  bool overflow;
  bool overflow_unopened; /* it overflowed before its stream opened */
  hub *next_ready;        /* under owner->mu */
  /* the owner's thread only: */
  gql_http_request *stream;
  hub *prev, *next; /* in owner->opened */
  uint32_t token_len;
  char token[];
};

/* An operation, on the worker that received its POST. */
struct gql_http_sse_op {
  gql_http_sse_worker *w;
  op *prev, *next, *next_dead;
  hub *h;
  gql_http_request *r; /* the operation's request (its arena) */
  gql_http_conn conn;  /* detached: the POST's headers */
  gql_http_slot *slot;
  gql_http_cache_entry *entry;
  gql_http_pin *pin;
  gql_trace *trace;
  gql_subscription *sub;
  bool busy;     /* an execution will still call back */
  bool finished; /* `complete` sent or due never: nothing more goes out */
  bool dead;
  bool counted;  /* in x->open_subscriptions */
  bool observed; /* in the observer's open subscriptions */
  bool cancelled;
  void (*cancel)(void *ud); /* the executor's */
  void *cancel_ud;
  uint32_t token_len, id_len;
  char data[]; /* token, then id */
};

static gql_str op_token(const op *o) {
  return (gql_str){o->data, o->token_len};
}

static gql_str op_id(const op *o) {
  return (gql_str){o->data + o->token_len, o->id_len};
}

/* ------------------------------------------------------------ hubs */

static void hub_retain(void *p) {
  atomic_fetch_add(&((hub *)p)->refs, 1);
}

/* The hub's queue was emptied of n bytes (under h->mu). */
static void hub_unqueued(hub *h, size_t n) {
  if (n)
    atomic_fetch_sub(&h->s->queued, n);
}

static void hub_release(hub *h) {
  if (h && atomic_fetch_sub(&h->refs, 1) == 1) {
    hub_unqueued(h, h->queue.o.len);
    uv_mutex_destroy(&h->mu);
    http_buf_free(&h->queue);
    free(h);
  }
}

static void post_cmd(gql_http_sse_worker *w, int kind, gql_str token,
                     gql_str id) {
  cmd *c = w->handles ? malloc(sizeof *c + token.len + id.len) : NULL;
  if (!c) /* (no handles: the server is being freed, nothing runs) */
    return;
  c->kind = kind;
  c->token_len = (uint32_t)token.len;
  c->id_len = (uint32_t)id.len;
  memcpy(c->data, token.ptr, token.len);
  if (id.len)
    memcpy(c->data + token.len, id.ptr, id.len);
  uv_mutex_lock(&w->mu);
  c->next = w->cmds;
  w->cmds = c;
  uv_mutex_unlock(&w->mu);
  uv_async_send(&w->async);
}

/* The registry's drop: the reservation went (its stream closed, it
 * expired, the server stops). Under the registry's lock. Its operations,
 * wherever they run, stop. */
static void hub_drop(void *p) {
  hub *h = p;
  uv_mutex_lock(&h->mu);
  h->closed = true;
  hub_unqueued(h, h->queue.o.len);
  http_buf_free(&h->queue);
  uv_mutex_unlock(&h->mu);
  gql_http_sse *s = h->s;
  if (!s->freeing)
    for (unsigned i = 0; i < s->n; i++)
      if (s->workers[i])
        post_cmd(s->workers[i], CMD_CLOSE, (gql_str){h->token, h->token_len},
                 (gql_str){0});
  hub_release(h);
}

/* Puts `kick` (a hub with events) on its owner's ready list. */
static void kick_owner(hub *h, gql_http_sse_worker *w) {
  hub_retain(h);
  uv_mutex_lock(&w->mu);
  h->next_ready = w->ready;
  w->ready = h;
  uv_mutex_unlock(&w->mu);
  uv_async_send(&w->async);
}

/* Framed events for the stream (any thread). */
static void hub_send(hub *h, const http_buf *b) {
  if (b->failed)
    return;
  uv_mutex_lock(&h->mu);
  gql_http_sse_worker *kick = NULL;
  if (!h->closed) {
    /* after a lost event, what comes is lost too (the stream ends) */
    bool fits = !h->overflow && h->queue.o.len + b->o.len <= HUB_MAX_BYTES;
    if (fits &&
        atomic_fetch_add(&h->s->queued, b->o.len) + b->o.len >
            QUEUED_MAX_BYTES &&
        !h->owner) {
      hub_unqueued(h, b->o.len);
      fits = false;
    }
    if (fits) {
      http_buf_append(&h->queue, b->o.data, b->o.len);
      if (h->queue.failed) {
        hub_unqueued(h, b->o.len);
        fits = false;
      }
    }
    if (!fits) {
      h->overflow_unopened |= !h->owner && !h->overflow;
      h->overflow = true;
    }
    if (h->owner && !h->kicked) {
      h->kicked = true;
      kick = h->owner;
    }
  }
  uv_mutex_unlock(&h->mu);
  if (kick)
    kick_owner(h, kick);
}

/* ------------------------------------------------------------ the stream */

/* The stream ends (the owner's thread): the reservation goes, and with it
 * its operations; `end` writes the chunked body's end. */
static void stream_end(hub *h, bool end) {
  gql_http_request *r = h->stream;
  if (!r)
    return;
  gql_http_sse_worker *w = r->conn->x->sse;
  gql_http_conn *c = r->conn;
  h->stream = NULL;
  r->sse_hub = NULL;
  if (h->prev)
    h->prev->next = h->next;
  else
    w->opened = h->next;
  if (h->next)
    h->next->prev = h->prev;
  if (end && !c->gone) { /* what came before the end goes first */
    uv_mutex_lock(&h->mu);
    http_buf_append(&c->out, h->queue.o.data, h->queue.o.len);
    hub_unqueued(h, h->queue.o.len);
    h->queue.o.len = 0;
    uv_mutex_unlock(&h->mu);
  }
  gql_sse_registry_close(w->s->reg, (gql_str){h->token, h->token_len});
  if (end && !c->gone)
    gql_sse_write_end(&c->out);
  c->close_after = true;
  c->streaming = false;
  r->done = true;
  gql_http_request_info info = {.method = r->method,
                                .path = r->path,
                                .status = 200,
                                .operation_name = r->op_name,
                                .operation_type = -1,
                                .document_cache = -1};
  gql_http_log_request(c, &info, r->start_ns);
  hub_release(h); /* the stream's */
  if (c->inflight == r && c->x->resumed)
    c->x->resumed(c);
}

/* The hub's events onto its stream (the owner's thread). */
static void stream_drain(hub *h) {
  http_buf q = {0};
  uv_mutex_lock(&h->mu);
  h->kicked = false;
  q = h->queue;
  h->queue = (http_buf){0};
  hub_unqueued(h, q.o.len);
  bool overflow = h->overflow, unopened = h->overflow_unopened;
  uv_mutex_unlock(&h->mu);
  gql_http_request *r = h->stream;
  if (r && q.o.len) {
    gql_http_conn *c = r->conn;
    if (c->out.o.len + c->out_inflight + q.o.len > HUB_MAX_BYTES)
      overflow = true;
    else
      http_buf_append(&c->out, q.o.data, q.o.len);
    if (c->inflight == r && c->x->flush && !overflow)
      c->x->flush(c);
  }
  http_buf_free(&q);
  if (r && overflow) {
    gql_http_log(r->conn->x->opt, GQL_HTTP_LOG_WARN, "%s",
                 unopened ? "graphql-sse: events came for a stream not yet "
                            "open past the queues' limit (8 MiB a stream, "
                            "32 MiB in all): the rest were dropped, it ends"
                          : "graphql-sse: a stream's client does not read: "
                            "it ends");
    stream_end(h, true);
  }
}

void gql_http_sse_stream_gone(gql_http_request *r) {
  if (r->sse_hub)
    stream_end(r->sse_hub, false);
}

void gql_http_sse_stream_going_away(gql_http_request *r) {
  if (r->sse_hub)
    stream_end(r->sse_hub, true);
}

/* ------------------------------------------------------------ operations */

static void op_send_next(op *o, const char *json, size_t len) {
  http_buf b = {0};
  gql_sse_write_next(&b, op_id(o), true, json, len);
  hub_send(o->h, &b);
  http_buf_free(&b);
}

/* Freed on the next turn, never under an execution's callback. */
static void op_maybe_dead(op *o) {
  if (!o->finished || o->busy || o->dead)
    return;
  gql_http_sse_worker *w = o->w;
  o->dead = true;
  if (o->prev)
    o->prev->next = o->next;
  else
    w->ops = o->next;
  if (o->next)
    o->next->prev = o->prev;
  o->prev = o->next = NULL;
  o->next_dead = w->dead;
  w->dead = o;
  if (w->handles)
    uv_async_send(&w->async);
}

/* gql_subscriptions_open: a subscription counts from its start until
 * nothing more goes out. */
static void op_observe(op *o, int delta) {
  if (o->observed == (delta > 0))
    return;
  o->observed = delta > 0;
  gql_http_ws_counted(o->w->x, GQL_HTTP_WS_SUBSCRIPTIONS, delta);
}

/* Nothing more goes out; `complete` when asked (graphql-sse sends it
 * also after a DELETE). */
static void op_finish(op *o, bool complete) {
  if (o->finished) {
    op_maybe_dead(o); /* an execution that ran on unheard ended */
    return;
  }
  o->finished = true;
  op_observe(o, -1);
  if (complete) {
    http_buf b = {0};
    gql_sse_write_complete(&b, op_id(o), true);
    hub_send(o->h, &b);
    http_buf_free(&b);
  }
  gql_sse_registry_done(o->w->s->reg, op_token(o), op_id(o));
  op_maybe_dead(o);
}

static void op_uncount(op *o) {
  if (o->counted)
    atomic_fetch_sub(o->w->x->open_subscriptions, 1);
  o->counted = false;
}

/* The detached connection's buffers (a connection of no transport). */
static void conn_free(gql_http_conn *c) {
  http_buf_free(&c->hdrs);
  http_buf_free(&c->hidx);
  http_buf_free(&c->accept);
}

static void op_free(op *o) {
  gql_http_ctx *x = o->w->x;
  gql_http_log(x->opt, GQL_HTTP_LOG_DEBUG,
               "graphql-sse: operation %.*s ended on worker %u%s",
               (int)o->id_len, o->data + o->token_len, o->w->index,
               o->cancelled ? " (stopped)" : "");
  gql_subscription_free(o->sub);
  o->sub = NULL;
  op_uncount(o);
  op_observe(o, -1);
  gql_trace_end(o->trace);
  gql_http_cache_release(o->entry);
  gql_http_pin_release(o->pin);
  if (o->slot)
    gql_http_slot_give(x, o->slot);
  conn_free(&o->conn);
  hub_release(o->h);
  free(o);
}

/* A stop: the subscription goes, the executor's cancel runs; a query
 * running on is let finish unheard. */
static void op_stop(op *o, bool complete) {
  if (o->finished)
    return;
  o->cancelled = true;
  if (o->sub) {
    gql_subscription_free(o->sub);
    o->sub = NULL;
    op_uncount(o);
    o->busy = false;
  }
  if (o->cancel) {
    void (*cancel)(void *) = o->cancel;
    o->cancel = NULL; /* once */
    cancel(o->cancel_ud);
  }
  op_finish(o, complete);
}

/* An error before any result: a `next` with it, then `complete`. */
static void op_error(op *o, const char *message) {
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  http_buf_json_string(&b, http_str(message, strlen(message)));
  http_buf_puts(&b, "}]}");
  if (!b.failed)
    op_send_next(o, b.o.data, b.o.len);
  http_buf_free(&b);
  op_finish(o, true);
}

/* gql_execute's on_done: one result. */
static void on_result(void *ud, const char *json, size_t len, bool errs) {
  (void)errs;
  op *o = ud;
  o->busy = false;
  if (!o->finished)
    op_send_next(o, json, len);
  op_finish(o, true);
}

/* gql_execute_incremental's on_done: a payload, the last without
 * "hasNext":true. */
static void on_payload(void *ud, const char *json, size_t len, bool errs) {
  (void)errs;
  op *o = ud;
  static const char tail[] = ",\"hasNext\":true}", head[] = "{\"hasNext\":true";
  bool more =
      (len >= sizeof tail - 1 &&
       memcmp(json + len - (sizeof tail - 1), tail, sizeof tail - 1) == 0) ||
      (len >= sizeof head - 1 && memcmp(json, head, sizeof head - 1) == 0);
  if (!o->finished)
    op_send_next(o, json, len);
  if (!more) {
    o->busy = false;
    op_finish(o, true);
  }
}

static void on_event(void *ud, const char *json, size_t len, bool errs) {
  (void)errs;
  op *o = ud;
  if (!o->finished)
    op_send_next(o, json, len);
}

/* The source ended or failed: the errors as a `next`, then `complete`. */
static void on_end(void *ud, const char *errors, size_t len) {
  op *o = ud;
  o->busy = false;
  if (errors && !o->finished) {
    http_buf b = {0};
    http_buf_puts(&b, "{\"errors\":");
    http_buf_append(&b, errors, len);
    http_buf_putc(&b, '}');
    if (!b.failed)
      op_send_next(o, b.o.data, b.o.len);
    http_buf_free(&b);
  }
  op_finish(o, true);
}

static void op_subscribe(op *o, const gql_value *variables) {
  gql_http_ctx *x = o->w->x;
  if (!gql_http_subscription_count(x, &o->counted)) {
    op_error(o, GQL_HTTP_TOO_MANY_SUBSCRIPTIONS);
    return;
  }
  gql_subscribe_params sp = {.variables = variables,
                             .root_value = o->pin->gen->g.root_value,
                             .context = o->r,
                             .on_event = on_event,
                             .on_end = on_end,
                             .ud = o,
                             .max_queue = x->opt->subscription.queue_capacity};
  o->busy = true;
  gql_subscription *sub = NULL;
  int rc = gql_subscribe(o->entry->prepared, &sp, &sub);
  if (rc == 1) { /* its errors went out as a `next` */
    o->busy = false;
    op_finish(o, true);
    return;
  }
  if (rc < 0) {
    o->busy = false;
    op_error(o, gql_strerror(rc));
    return;
  }
  if (o->finished || !o->busy) { /* ended at once, or stopped */
    gql_subscription_free(sub);
    return;
  }
  o->sub = sub;
  op_observe(o, 1);
}

void gql_http_sse_exec_payload(gql_http_request *r, const char *json,
                               size_t len, bool has_next) {
  op *o = r->sse_op;
  if (json && !o->finished)
    op_send_next(o, json, len);
  if (!has_next) {
    o->busy = false;
    o->cancel = NULL;
    op_finish(o, true);
  }
}

void gql_http_sse_exec_on_cancel(gql_http_request *r, void (*cancel)(void *),
                                 void *ud) {
  op *o = r->sse_op;
  if (!o->busy)
    return;
  if (o->cancelled) { /* stopped before the executor asked */
    if (cancel)
      cancel(ud);
    return;
  }
  o->cancel = cancel;
  o->cancel_ud = ud;
}

/* ------------------------------------------------------------ requests */

static void answer(gql_http_request *r, int status, const char *headers,
                   const char *message) {
  if (!message) {
    gql_http_request_finish(r, status, "text/plain; charset=utf-8", headers, "",
                            0);
    return;
  }
  http_buf b = {0};
  http_buf_puts(&b, "{\"errors\":[{\"message\":");
  http_buf_json_string(&b, http_str(message, strlen(message)));
  http_buf_puts(&b, "}]}");
  r->errors = true;
  gql_http_request_finish(r, b.failed ? 503 : status, CT_JSON, headers,
                          b.failed ? "" : b.o.data, b.failed ? 0 : b.o.len);
  http_buf_free(&b);
}

static uint64_t now_ms(void) {
  return gql_http_now_ns() / 1000000;
}

/* PUT: a reservation, with a hub from the start (operations may come
 * before the stream). */
static void reserve(gql_http_request *r, gql_sse_route *rt) {
  gql_http_ctx *x = r->conn->x;
  gql_http_sse_worker *w = x->sse;
  const gql_http_hooks *hk = x->opt->hooks;
  if (hk && hk->execute) { /* the reservation is judged as an operation */
    hk->execute(x->hook_worker, r);
    if (r->answered)
      return;
  }
  hub *h = calloc(1, sizeof *h + GQL_SSE_MAX_TOKEN + 1);
  if (!h || uv_mutex_init(&h->mu) != 0) {
    free(h);
    answer(r, 503, NULL, "Out of memory.");
    return;
  }
  atomic_init(&h->refs, 1); /* the registry's, on success */
  h->s = w->s;
  gql_sse_result res = gql_sse_registry_reserve_for(w->s->reg, rt, now_ms(), h);
  if (res.status) {
    uv_mutex_destroy(&h->mu);
    free(h);
    answer(r, res.status, NULL, res.message);
    return;
  }
  /* the token (made by the registry when none came): fixed from now on */
  memcpy(h->token, rt->token, rt->token_len);
  h->token_len = (uint32_t)rt->token_len;
  gql_http_request_finish(r, 201, "text/plain; charset=utf-8", NULL, rt->token,
                          rt->token_len);
}

/* GET or POST accepting text/event-stream with the token: the stream. */
static bool connect_stream(gql_http_request *r, gql_sse_route *rt) {
  gql_http_conn *c = r->conn;
  gql_http_sse_worker *w = c->x->sse;
  if (c->x->stopping) { /* no stream would end: the stop has passed */
    answer(r, 503, NULL, "The server is stopping.");
    return true;
  }
  void *owner = NULL;
  gql_sse_result res = gql_sse_registry_open_owned(w->s->reg, rt, &owner);
  if (rt->kind == GQL_SSE_DISTINCT)
    return false; /* no such reservation: one operation, one stream */
  if (res.status) {
    answer(r, res.status, NULL, res.message);
    return true;
  }
  hub *h = owner; /* retained: the stream's reference */
  const gql_http_hooks *hk = c->x->opt->hooks;
  if (hk && hk->response && r->slot)
    hk->response(c->x->hook_worker, r, 200);
  r->answered = true;
  gql_sse_write_head(&c->out);
  if (c->x->stopping)
    c->close_after = true;
  c->streaming = true;
  c->inflight = r;
  r->sse_hub = h;
  h->stream = r;
  h->prev = NULL;
  h->next = w->opened;
  if (w->opened)
    w->opened->prev = h;
  w->opened = h;
  uv_mutex_lock(&h->mu);
  h->owner = w;
  /* (an overflow with nothing kept: the stream ends at once) */
  bool kick = (h->queue.o.len || h->overflow) && !h->kicked;
  if (kick)
    h->kicked = true;
  uv_mutex_unlock(&h->mu);
  if (kick) /* operations posted before the stream opened */
    kick_owner(h, w);
  gql_http_log(c->x->opt, GQL_HTTP_LOG_DEBUG,
               "graphql-sse: stream %.*s open on worker %u", (int)rt->token_len,
               rt->token, w->index);
  return true;
}

/* DELETE ?operationId=: the operation stops where it runs. */
static void stop(gql_http_request *r, gql_sse_route *rt) {
  gql_http_sse_worker *w = r->conn->x->sse;
  void *owner = NULL, *runner = NULL;
  gql_sse_result res =
      gql_sse_registry_stop_run(w->s->reg, rt, &owner, &runner);
  hub_release(owner);
  if (res.status) {
    answer(r, res.status, NULL, res.message);
    return;
  }
  if (runner)
    post_cmd(runner, CMD_STOP, (gql_str){rt->token, rt->token_len},
             (gql_str){rt->operation_id, rt->operation_id_len});
  gql_http_request_finish(r, 200, "text/plain; charset=utf-8", NULL, "", 0);
}

/* The X-GraphQL-Event-Stream-Token header's value ("" when absent). */
static gql_str token_header(const gql_http_conn *c) {
  static const char name[] = GQL_SSE_TOKEN_HEADER;
  size_t n = c->hidx.o.len / sizeof(gql_http_header_at);
  for (size_t i = 0; i < n; i++) {
    gql_http_header_at at;
    memcpy(&at, c->hidx.o.data + i * sizeof at, sizeof at);
    if (at.name_len == sizeof name - 1 &&
        strncasecmp(c->hdrs.o.data + at.name, name, sizeof name - 1) == 0)
      return http_str(at.value_len ? c->hdrs.o.data + at.value : "",
                      at.value_len);
  }
  return (gql_str){"", 0};
}

bool gql_http_sse_route(gql_http_request *r) {
  gql_http_conn *c = r->conn;
  gql_http_sse_worker *w = c->x->sse;
  gql_sse_request rq = {
      .method = http_str(r->method, strlen(r->method)),
      .target = http_str(c->url.o.data ? c->url.o.data : "", c->url.o.len),
      .accept =
          http_str(c->accept.o.data ? c->accept.o.data : "", c->accept.o.len),
      .token = token_header(c)};
  gql_sse_route *rt = gql_arena_alloc(r->slot->arena, sizeof *rt);
  if (!rt) {
    answer(r, 503, NULL, "Out of memory.");
    return true;
  }
  gql_sse_route_request(&rq, rt);
  switch (rt->kind) {
  case GQL_SSE_NONE:
  case GQL_SSE_DISTINCT:
    return false;
  case GQL_SSE_REFUSE:
    if (rt->allow) {
      char hdr[64];
      snprintf(hdr, sizeof hdr, "Allow: %s\r\n", rt->allow);
      answer(r, rt->status, hdr, rt->message);
    } else {
      answer(r, rt->status, NULL, rt->message);
    }
    return true;
  case GQL_SSE_RESERVE:
    reserve(r, rt);
    return true;
  case GQL_SSE_CONNECT:
    return connect_stream(r, rt);
  case GQL_SSE_STOP:
    stop(r, rt);
    return true;
  case GQL_SSE_EXECUTE:
    if (!gql_sse_registry_has(w->s->reg, (gql_str){rt->token, rt->token_len})) {
      answer(r, 404, NULL, "Stream not found");
      return true;
    }
    r->sse_route = rt;
    return false;
  }
  return false;
}

/* extensions.operationId (graphql-sse: String(...); a number too). */
static gql_str operation_id(gql_http_request *r, const gql_value *ext,
                            char *buf, size_t cap) {
  if (!ext && r->body)
    ext = gql_value_get(r->body, "extensions", 10);
  const gql_value *id = gql_value_kind_of(ext) == GQL_VALUE_OBJECT
                            ? gql_value_get(ext, "operationId", 11)
                            : NULL;
  if (gql_value_kind_of(id) == GQL_VALUE_STRING)
    return gql_value_string(id);
  if (gql_value_kind_of(id) == GQL_VALUE_NUMBER) {
    gql_str t;
    if (gql_value_print(r->slot->arena, id, &t) == 0 && t.len < cap) {
      memcpy(buf, t.ptr, t.len);
      return (gql_str){buf, t.len};
    }
  }
  return (gql_str){"", 0};
}

void gql_http_sse_execute(gql_http_request *r, gql_str query,
                          const char *operation_name,
                          const gql_value *variables,
                          const gql_value *extensions) {
  gql_http_conn *c = r->conn;
  gql_http_ctx *x = c->x;
  gql_http_sse_worker *w = x->sse;
  gql_sse_route *rt = r->sse_route;
  char num[64];
  gql_str id = operation_id(r, extensions, num, sizeof num);
  op *o = NULL;
  if (id.len && id.len <= GQL_SSE_MAX_ID &&
      !(o = calloc(1, sizeof *o + rt->token_len + id.len))) {
    answer(r, 503, NULL, "Out of memory.");
    return;
  }
  void *owner = NULL;
  gql_sse_result res = gql_sse_registry_add_run(w->s->reg, rt, id, w, &owner);
  if (res.status) {
    free(o);
    answer(r, res.status, NULL, res.message);
    return;
  }
  o->w = w;
  o->h = owner; /* retained: the operation's reference */
  o->token_len = (uint32_t)rt->token_len;
  o->id_len = (uint32_t)id.len;
  memcpy(o->data, rt->token, rt->token_len);
  memcpy(o->data + rt->token_len, id.ptr, id.len);
  /* the operation's request: the POST's, on a detached connection that
   * keeps its headers (the POST's connection goes on) */
  gql_http_request *q = gql_arena_alloc(r->slot->arena, sizeof *q);
  o->conn.x = x; /* (calloc: the rest empty; no parser, no transport) */
  http_buf_append(&o->conn.hdrs, c->hdrs.o.data, c->hdrs.o.len);
  http_buf_append(&o->conn.hidx, c->hidx.o.data, c->hidx.o.len);
  http_buf_append(&o->conn.accept, c->accept.o.data, c->accept.o.len);
  if (!q || o->conn.hdrs.failed || o->conn.hidx.failed ||
      o->conn.accept.failed) {
    gql_sse_registry_done(w->s->reg, op_token(o), id);
    conn_free(&o->conn);
    hub_release(o->h);
    free(o);
    answer(r, 503, NULL, "Out of memory.");
    return;
  }
  char peer[80]; /* kept: the connection goes on without the operation */
  if (!r->peer && x->peer && x->peer(c, peer, sizeof peer)) {
    size_t n = strlen(peer);
    char *p = gql_arena_alloc(r->slot->arena, n + 1);
    if (p)
      memcpy(p, peer, n + 1);
    r->peer = p;
  }
  gql_http_request_finish(r, 202, "text/plain; charset=utf-8", NULL, "", 0);
  *q = *r;
  q->conn = &o->conn;
  q->sse_route = NULL;
  q->sse_op = o;
  o->r = q;
  o->slot = r->slot;
  o->entry = r->entry;
  o->pin = r->pin;
  o->trace = r->trace;
  r->slot = NULL; /* the operation's now (r is in its arena) */
  r->entry = NULL;
  r->pin = NULL;
  r->trace = NULL;
  o->next = w->ops;
  if (w->ops)
    w->ops->prev = o;
  w->ops = o;
  hub *h = o->h;
  uv_mutex_lock(&h->mu);
  int owner_index = h->owner ? (int)h->owner->index : -1;
  uv_mutex_unlock(&h->mu);
  gql_http_log(x->opt, GQL_HTTP_LOG_DEBUG,
               "graphql-sse: operation %.*s runs on worker %u, its stream "
               "on worker %d",
               (int)id.len, id.ptr, w->index, owner_index);
  const gql_prepared *p = o->entry->prepared;
  if (x->opt->executor) {
    q->exec = (gql_http_exec){.arena = o->slot->arena,
                              .loop = x->loop,
                              .query = query,
                              .operation_name = operation_name,
                              .variables = variables,
                              .prepared = p,
                              .trace = q->trace,
                              .internal_ = q,
                              .request = q,
                              .generation = o->pin->gen->g.ud};
    if (gql_prepared_operation(p) == GQL_OP_SUBSCRIPTION) {
      if (!gql_http_subscription_count(x, &o->counted)) {
        op_error(o, GQL_HTTP_TOO_MANY_SUBSCRIPTIONS);
        return;
      }
      op_observe(o, 1);
    }
    o->busy = true;
    int rc = x->opt->executor->execute(x->exec_worker, &q->exec);
    if (rc < 0 && o->busy) {
      o->busy = false;
      op_error(o, gql_strerror(rc));
    }
    return;
  }
  /* (subscription.enabled false: as in distinct mode, executed once) */
  if (gql_prepared_operation(p) == GQL_OP_SUBSCRIPTION &&
      !x->opt->subscription.disabled) {
    op_subscribe(o, variables);
    return;
  }
  gql_execute_params ep = {.variables = variables,
                           .root_value = o->pin->gen->g.root_value,
                           .context = q,
                           .arena = o->slot->arena,
                           .output = &o->slot->output,
                           .trace = o->trace,
                           .ud = o};
  o->busy = true;
  int rc;
  if (gql_prepared_incremental(p)) {
    ep.on_done = on_payload;
    rc = gql_execute_incremental(p, &ep);
  } else {
    ep.on_done = on_result;
    rc = gql_execute(p, &ep);
  }
  if (rc < 0 && o->busy) {
    o->busy = false;
    op_error(o, gql_strerror(rc));
  }
}

/* ------------------------------------------------------------ workers */

static bool cmd_matches(const cmd *c, const op *o) {
  return c->token_len == o->token_len &&
         memcmp(c->data, o->data, c->token_len) == 0 &&
         (c->kind == CMD_CLOSE ||
          (c->id_len == o->id_len &&
           memcmp(c->data + c->token_len, o->data + o->token_len, c->id_len) ==
               0));
}

static void reap(gql_http_sse_worker *w) {
  while (w->dead) {
    op *o = w->dead;
    w->dead = o->next_dead;
    op_free(o);
  }
}

static void on_async(uv_async_t *a) {
  gql_http_sse_worker *w = a->data;
  uv_mutex_lock(&w->mu);
  hub *ready = w->ready;
  cmd *cmds = w->cmds;
  w->ready = NULL;
  w->cmds = NULL;
  uv_mutex_unlock(&w->mu);
  while (ready) {
    hub *h = ready;
    ready = h->next_ready;
    stream_drain(h);
    hub_release(h); /* the ready list's */
  }
  while (cmds) {
    cmd *c = cmds;
    cmds = c->next;
    for (op *o = w->ops, *next; o; o = next) {
      next = o->next;
      if (cmd_matches(c, o))
        op_stop(o, c->kind == CMD_STOP);
    }
    free(c);
  }
  reap(w);
}

/* Each second: worker 0 drops the reservations no stream took in time;
 * every 12th, the streams here get a ping (graphql-sse's keep-alive). */
static void on_tick(uv_timer_t *t) {
  gql_http_sse_worker *w = t->data;
  if (w->index == 0)
    gql_sse_registry_expire(w->s->reg, now_ms());
  if (++w->ticks % PING_TICKS)
    return;
  for (hub *h = w->opened, *next; h; h = next) {
    next = h->next; /* a failed write ends h's stream */
    gql_http_conn *c = h->stream->conn;
    gql_sse_write_ping(&c->out);
    if (c->inflight == h->stream && c->x->flush)
      c->x->flush(c);
  }
}

gql_http_sse *gql_http_sse_new(const gql_http_options *opt, unsigned nworkers,
                               const gql_sse_limits *limits) {
  gql_http_sse *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  gql_sse_limits lim = limits ? *limits : (gql_sse_limits){0};
  if (!limits) {
    lim.max_streams = opt->max_connections;
    lim.max_operations = opt->subscription.max_per_connection;
    lim.ttl_ms = opt->subscription.sse_reservation_ttl_ms;
  }
  lim.retain = hub_retain;
  lim.drop = hub_drop;
  s->opt = opt;
  atomic_init(&s->queued, 0);
  s->n = nworkers;
  s->workers = calloc(nworkers ? nworkers : 1, sizeof *s->workers);
  s->reg = gql_sse_registry_new(&lim);
  if (!s->workers || !s->reg) {
    gql_sse_registry_free(s->reg);
    free(s->workers);
    free(s);
    return NULL;
  }
  return s;
}

void gql_http_sse_free(gql_http_sse *s) {
  if (!s)
    return;
  s->freeing = true;
  gql_sse_registry_free(s->reg);
  free(s->workers);
  free(s);
}

unsigned gql_http_sse_reservations(gql_http_sse *s) {
  return gql_sse_registry_count(s->reg);
}

int gql_http_sse_worker_start(gql_http_sse *s, unsigned index, gql_http_ctx *x,
                              uv_loop_t *loop) {
  gql_http_sse_worker *w = calloc(1, sizeof *w);
  if (!w || uv_mutex_init(&w->mu) != 0) {
    free(w);
    return GQL_ENOMEM;
  }
  w->s = s;
  w->index = index;
  w->x = x;
  uv_async_init(loop, &w->async, on_async);
  w->async.data = w;
  uv_unref((uv_handle_t *)&w->async);
  uv_timer_init(loop, &w->tick);
  w->tick.data = w;
  uv_timer_start(&w->tick, on_tick, TICK_MS, TICK_MS);
  uv_unref((uv_handle_t *)&w->tick);
  w->handles = true;
  s->workers[index] = w;
  x->sse = w;
  return 0;
}

void gql_http_sse_worker_stop(gql_http_ctx *x) {
  gql_http_sse_worker *w = x->sse;
  if (!w)
    return;
  w->stopping = true;
  for (op *o = w->ops, *next; o; o = next) {
    next = o->next;
    op_stop(o, true);
  }
}

void gql_http_sse_worker_close(gql_http_ctx *x) {
  gql_http_sse_worker *w = x->sse;
  if (!w || !w->handles)
    return;
  w->handles = false;
  uv_close((uv_handle_t *)&w->async, NULL);
  uv_close((uv_handle_t *)&w->tick, NULL);
}

void gql_http_sse_worker_free(gql_http_ctx *x) {
  gql_http_sse_worker *w = x->sse;
  if (!w)
    return;
  /* what the other workers sent after this loop ended */
  while (w->ready) {
    hub *h = w->ready;
    w->ready = h->next_ready;
    hub_release(h);
  }
  while (w->cmds) {
    cmd *c = w->cmds;
    w->cmds = c->next;
    free(c);
  }
  while (w->ops) { /* an executor that never ended its request */
    op *o = w->ops;
    o->finished = true;
    o->busy = false;
    op_maybe_dead(o);
  }
  reap(w);
  uv_mutex_destroy(&w->mu);
  w->s->workers[w->index] = NULL;
  x->sse = NULL;
  free(w);
}
