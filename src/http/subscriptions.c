/* GraphQL over WebSocket on the server's connections: a GET on the GraphQL
 * path asking for `Upgrade: websocket` is answered with the handshake
 * (ws.c) and the connection then speaks graphql-transport-ws
 * (graphql_ws.c) until it closes. Every operation of the socket runs on
 * gql's executor: subscriptions with gql_subscribe (one `next` per
 * event), queries and mutations with gql_execute (one `next`, then
 * `complete`), prepared through the worker's document cache as HTTP
 * requests are. A server with an executor hook (gql_http_options.executor,
 * the gateway's) hands them to it instead (ws_exec.c).
 *
 * The request hooks see the socket as one request: the upgrade's headers,
 * and at connection_init its payload as the body (gql_http_request_body)
 * whose string members also read as headers (a browser cannot set
 * headers on a WebSocket, so clients put `Authorization` there). An
 * execute hook that answers (gql_http_request_reject) refuses the
 * connection: 4403 Forbidden. The context it sets is every resolver's
 * gql_http_request_context for the socket's life.
 *
 * Output goes to the connection's buffer; the transport (server.c) is
 * woken to write it on the next loop turn (x->ws_wake), never from inside
 * an executor's or event source's callback, so a write error cannot free
 * anything under them. */
#include "fanout.h"
#include "graphql_ws.h"
#include "http.h"
#include "ws.h"
#include "ws_session.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>

/* Keep-alive by default: a ping every this often; a peer silent since the
 * previous one is dropped. */
#define WS_KEEPALIVE_MS 12000

static const gql_http_fan_calls fan_calls;

static gql_http_ws_worker *worker_of(gql_http_ctx *x) {
  if (x->ws_worker)
    return x->ws_worker;
  gql_http_ws_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  const gql_http_subscription_limits *l = &x->opt->subscription;
  w->pool = gql_ws_pool_new(&(gql_ws_limits){.max_message = l->max_message});
  w->env = gql_gws_env_new(
      &(gql_gws_limits){.init_timeout_ms = l->init_timeout_ms,
                        .max_operations = l->max_per_connection});
  w->fans = gql_http_fans_new(x, &fan_calls);
  if (!w->pool || !w->env || !w->fans) {
    gql_http_fans_free(w->fans);
    gql_ws_pool_free(w->pool);
    gql_gws_env_free(w->env);
    free(w);
    return NULL;
  }
  return x->ws_worker = w;
}

void gql_http_ws_worker_free(gql_http_ws_worker *w) {
  if (!w)
    return;
  gql_ws_pool_free(w->pool);
  gql_gws_env_free(w->env);
  gql_http_fans_free(w->fans);
  free(w);
}

static uint64_t ping_interval(const gql_http_ctx *x) {
  uint32_t ms = x->opt->subscription.ping_interval_ms;
  return ms ? ms : WS_KEEPALIVE_MS;
}

static void wake(gql_http_ws_session *s) {
  if (!s->gone && s->c->x->ws_wake)
    s->c->x->ws_wake(s->c);
}

/* ------------------------------------------------------------ operations */

static void op_release(ws_op *o) {
  gql_http_ctx *x = o->s->c->x;
  if (o->counted)
    atomic_fetch_sub(x->open_subscriptions, 1);
  if (o->observed)
    gql_http_ws_counted(x, GQL_HTTP_WS_SUBSCRIPTIONS, -1);
  gql_http_ws_counted(x, GQL_HTTP_WS_DROPPED,
                      (int64_t)gql_subscription_dropped(o->sub));
  gql_http_fan_leave(&o->member);
  gql_subscription_free(o->sub);
  gql_http_cache_release(o->entry);
  gql_http_pin_release(o->pin); /* after the entry: the pin owns its cache */
  if (o->slot)
    gql_http_slot_give(x, o->slot);
  free(o);
}

/* An errors array from {"errors":[...]} (the wrapper removed). */
static gql_str errors_array(gql_str json) {
  static const char pre[] = "{\"errors\":";
  if (json.len > sizeof pre && memcmp(json.ptr, pre, sizeof pre - 1) == 0 &&
      json.ptr[json.len - 1] == '}')
    return http_str(json.ptr + sizeof pre - 1, json.len - sizeof pre);
  return json;
}

static void op_error(gql_gws_op *op, const char *message) {
  http_buf b = {0};
  http_buf_puts(&b, "[{\"message\":");
  http_buf_json_string(&b, http_str(message, strlen(message)));
  http_buf_puts(&b, "}]");
  if (!b.failed)
    gql_gws_error(op, b.o.data, b.o.len);
  http_buf_free(&b);
}

static void on_event(void *ud, const char *json, size_t len, bool has_errors) {
  (void)has_errors;
  ws_op *o = ud;
  gql_http_ctx *x = o->s->c->x;
  gql_http_ws_counted(x, GQL_HTTP_WS_EXECUTIONS, 1);
  if (!o->op)
    return;
  int rc = gql_gws_next(o->op, json, len);
  gql_http_ws_counted(x, rc == 0 ? GQL_HTTP_WS_EVENTS : GQL_HTTP_WS_DROPPED, 1);
  wake(o->s);
}

static void on_end(void *ud, const char *errors, size_t len) {
  ws_op *o = ud;
  if (o->op) {
    gql_gws_op *op = o->op;
    o->op = NULL;
    op->user = NULL;
    if (errors)
      gql_gws_error(op, errors, len);
    else
      gql_gws_complete(op);
    wake(o->s);
  }
  if (o->subscribing) { /* gql_subscribe has not returned yet */
    o->ended = true;
    return;
  }
  op_release(o); /* the subscription's free is deferred past this call */
}

/* A shared execution's event: this subscriber's prefix, then the tail
 * every member of its group gets (fanout.h). */
static int member_next(gql_http_fan_member *m, const gql_str *tail,
                       unsigned n) {
  ws_op *o = http_container_of(m, ws_op, member);
  gql_gws_op *op = o->op;
  if (!op || op->g->closed || op->cancelling || n > 3)
    return 0;
  gql_http_ws_session *s = o->s;
  gql_str parts[4] = {{op->bytes + op->id_len, op->prefix_len}};
  memcpy(parts + 1, tail, n * sizeof *tail);
  s->ws.inflight = s->c->out_inflight;
  int rc = gql_ws_send_text_parts(&s->ws, parts, n + 1);
  wake(s);
  return rc == 0 ? 1 : -1;
}

static void member_end(gql_http_fan_member *m, const char *errors, size_t len) {
  on_end(http_container_of(m, ws_op, member), errors, len);
}

static const gql_http_fan_calls fan_calls = {member_next, member_end};

/* A query's or mutation's response: `next`, then `complete`. */
static void on_done(void *ud, const char *json, size_t len, bool has_errors) {
  (void)has_errors;
  ws_op *o = ud;
  o->finished = true;
  if (o->op) {
    gql_gws_op *op = o->op;
    o->op = NULL;
    op->user = NULL;
    gql_gws_next(op, json, len);
    gql_gws_complete(op);
  }
  if (o->pends) { /* freed on the next turn: the executor still runs */
    gql_http_ws_session *s = o->s;
    o->next_done = s->done;
    s->done = o;
    if (s->c->x->ws_wake)
      s->c->x->ws_wake(s->c);
  }
}

static void g_subscribe(void *ud, gql_gws_op *op, const gql_gws_request *rq) {
  gql_http_ws_session *s = ud;
  gql_http_ctx *x = s->c->x;
  ws_op *o = calloc(1, sizeof *o);
  gql_http_slot *slot = o ? gql_http_slot_take(x) : NULL;
  if (!slot) {
    free(o);
    op_error(op, "Out of memory.");
    return;
  }
  o->s = s;
  o->op = op;
  o->slot = slot;
  gql_http_gen_poll(x); /* a new generation since the last operation? */
  o->pin = x->pin;
  x->pin->refs++;
  op->user = o;
  const char *name = NULL;
  if (rq->has_operation_name) {
    char *n = gql_arena_alloc(slot->arena, rq->operation_name.len + 1);
    if (!n) {
      op->user = NULL;
      op_release(o);
      op_error(op, "Out of memory.");
      return;
    }
    memcpy(n, rq->operation_name.ptr, rq->operation_name.len);
    n[rq->operation_name.len] = 0;
    name = n;
  }
  size_t name_len = name ? rq->operation_name.len : 0;
  gql_http_cache_entry *e =
      gql_http_cache_get(&o->pin->cache, rq->query, name, name_len);
  if (!e) {
    gql_prepare_options po = {.parse = x->opt->parse,
                              .max_plan_size = x->opt->max_plan_size};
    gql_prepared *prep = NULL;
    gql_errors errors = {.arena = slot->arena};
    int rc = gql_prepare(o->pin->gen->g.schema, rq->query.ptr, rq->query.len,
                         name, &po, &prep, &errors);
    gql_str json;
    if (rc < 0) {
      /* graphql-ws: a document that does not validate is an `error` */
      op->user = NULL;
      o->op = NULL;
      if (errors.count &&
          gql_errors_response(&errors, NULL, slot->arena, &json) == 0) {
        gql_str arr = errors_array(json);
        gql_gws_error(op, arr.ptr, arr.len);
      } else {
        op_error(op, gql_strerror(rc));
      }
      op_release(o);
      return;
    }
    if (!(e = gql_http_cache_put(&o->pin->cache, rq->query, name, name_len,
                                 prep))) {
      op->user = NULL;
      op_release(o);
      op_error(op, "Out of memory.");
      return;
    }
    gql_http_judge_limits(&o->pin->gen->g, e);
  }
  o->entry = e;
  if (e->refusal) { /* over an operation limit */
    op->user = NULL;
    o->op = NULL;
    op_release(o);
    op_error(op, e->refusal);
    return;
  }
  if (gql_prepared_operation(e->prepared) == GQL_OP_SUBSCRIPTION) {
    if (!gql_http_subscription_count(x, &o->counted)) {
      op->user = NULL;
      o->op = NULL;
      op_release(o);
      op_error(op, GQL_HTTP_TOO_MANY_SUBSCRIPTIONS);
      return;
    }
    if (x->opt->executor) { /* the executor's (ws_exec.c) */
      o->observed = true;   /* till the executor ends it (op_release) */
      gql_http_ws_counted(x, GQL_HTTP_WS_SUBSCRIPTIONS, 1);
      gql_http_ws_exec_start(o, rq, name);
      return;
    }
    gql_http_slot_give(x, o->slot); /* the subscription has its own */
    o->slot = NULL;
    if (gql_http_fan_allowed(x, &s->req)) {
      o->subscribing = true;
      int rc = gql_http_fan_join(x->ws_worker->fans, e, o->pin, rq->variables,
                                 &o->member);
      o->subscribing = false;
      if (rc == 0) {
        if (o->ended) {
          op_release(o);
          return;
        }
        o->observed = true;
        gql_http_ws_counted(x, GQL_HTTP_WS_SUBSCRIPTIONS, 1);
        return;
      }
      op->user = NULL;
      o->op = NULL;
      op_error(op, gql_strerror(rc));
      op_release(o);
      return;
    }
    gql_subscribe_params sp = {.variables = rq->variables,
                               .root_value = o->pin->gen->g.root_value,
                               .context = &s->req,
                               .on_event = on_event,
                               .on_end = on_end,
                               .ud = o,
                               .max_queue = x->opt->subscription.queue_capacity,
                               .tracer = x->opt->tracer,
                               .trace_options = x->opt->trace_options};
    gql_subscription *sub = NULL;
    o->subscribing = true;
    int rc = gql_subscribe(e->prepared, &sp, &sub);
    o->subscribing = false;
    if (rc == 0) {
      o->sub = sub;
      if (o->ended) {
        op_release(o);
        return;
      }
      o->observed = true;
      gql_http_ws_counted(x, GQL_HTTP_WS_SUBSCRIPTIONS, 1);
      return;
    }
    /* 1: the errors went out as a `next` (graphql-ws sends a result that
     * is no stream, then completes) */
    op->user = NULL;
    o->op = NULL;
    if (rc == 1)
      gql_gws_complete(op);
    else
      op_error(op, gql_strerror(rc));
    op_release(o);
    return;
  }
  if (x->opt->executor) { /* the executor's (ws_exec.c) */
    gql_http_ws_exec_start(o, rq, name);
    return;
  }
  gql_execute_params ep = {.variables = rq->variables,
                           .root_value = o->pin->gen->g.root_value,
                           .context = &s->req,
                           .arena = slot->arena,
                           .output = &slot->output,
                           .on_done = on_done,
                           .ud = o};
  int rc = gql_execute(e->prepared, &ep);
  if (rc < 0 && !o->finished && o->op) {
    op->user = NULL;
    o->op = NULL;
    op_error(op, gql_strerror(rc));
  }
  if (o->finished || rc < 0) {
    op_release(o);
    return;
  }
  o->pends = true; /* on_done comes later, from the loop */
  s->pending++;
}

static void g_cancel(void *ud, gql_gws_op *op) {
  (void)ud;
  ws_op *o = op->user;
  if (!o)
    return;
  o->op = NULL;
  op->user = NULL;
  if (o->exec) /* the executor's: told, then it ends the operation */
    gql_http_ws_exec_cancel(o);
  if (o->pends) /* the execution goes on; its result is dropped */
    return;
  op_release(o); /* a subscription: its source's cancel is called */
}

static void g_send(void *ud, const char *text, size_t len) {
  gql_http_ws_session *s = ud;
  s->ws.inflight = s->c->out_inflight;
  gql_ws_send(&s->ws, false, text, len);
}

static void g_close(void *ud, uint16_t code, const char *reason) {
  gql_http_ws_session *s = ud;
  gql_ws_close(&s->ws, code, reason);
}

/* connection_init: the execute hook decides, as for an HTTP request. */
/* After connection_init, a socket whose operations may all share
 * executions (fanout.h) has no reader of its upgrade's headers left: they
 * go, and an idle subscriber holds no HTTP buffer. */
static gql_gws_verdict accepted(gql_http_ws_session *s) {
  gql_http_conn *c = s->c;
  if (gql_http_fan_allowed(c->x, &s->req)) {
    http_buf_free(&c->hdrs);
    http_buf_free(&c->hidx);
  }
  return GQL_GWS_ACCEPT;
}

static gql_gws_verdict g_connect(void *ud, const gql_value *payload) {
  gql_http_ws_session *s = ud;
  gql_http_ctx *x = s->c->x;
  const gql_http_hooks *hooks = x->opt->hooks;
  if (!hooks || !hooks->execute)
    return accepted(s);
  if (!s->slot.arena && !(s->slot.arena = gql_arena_new(NULL)))
    return GQL_GWS_REJECT;
  s->req.body = payload;
  s->req.init_payload = payload;
  hooks->execute(x->hook_worker, &s->req);
  s->req.body = NULL;
  s->req.init_payload = NULL;
  if (s->req.answered) {
    gql_http_log(x->opt, GQL_HTTP_LOG_DEBUG,
                 "websocket connection refused by a hook (%d)",
                 s->req.socket_status);
    return GQL_GWS_REJECT;
  }
  return accepted(s);
}

static const gql_gws_handler gws_handler = {g_send, g_close, g_connect,
                                            g_subscribe, g_cancel};

/* ------------------------------------------------------------ frames */

static void w_message(void *ud, bool binary, const char *d, size_t n) {
  (void)binary;
  gql_http_ws_session *s = ud;
  gql_gws_on_message(&s->g, d, n);
}

static void w_close(void *ud, uint16_t code, gql_str reason) {
  (void)code;
  (void)reason;
  gql_http_ws_session *s = ud;
  gql_gws_free(&s->g); /* the client is leaving: cancel what runs */
}

static const gql_ws_handler ws_handler = {w_message, NULL, w_close};

/* ------------------------------------------------------------ the socket */

/* The value of header `name` of the request c holds. */
static gql_str header(const gql_http_conn *c, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i + sizeof(gql_http_header_at) <= c->hidx.o.len;
       i += sizeof(gql_http_header_at)) {
    gql_http_header_at at;
    memcpy(&at, c->hidx.o.data + i, sizeof at);
    if (at.name_len == n && strncasecmp(c->hdrs.o.data + at.name, name, n) == 0)
      return http_str(c->hdrs.o.data + at.value, at.value_len);
  }
  return http_str("", 0);
}

bool gql_http_ws_upgrade(gql_http_request *r) {
  gql_http_conn *c = r->conn;
  gql_http_ctx *x = c->x;
  gql_str up = header(c, "upgrade");
  if (x->opt->subscription.disabled || !x->loop || up.len != 9 ||
      strncasecmp(up.ptr, "websocket", 9) != 0)
    return false;
  gql_ws_upgrade rq = {.method = http_str(r->method, strlen(r->method)),
                       .http_major = c->parser.http_major,
                       .http_minor = c->parser.http_minor,
                       .upgrade = up,
                       .connection = header(c, "connection"),
                       .key = header(c, "sec-websocket-key"),
                       .version = header(c, "sec-websocket-version"),
                       .protocols = header(c, "sec-websocket-protocol")};
  static const char *const supported[] = {GQL_WS_PROTOCOL_GRAPHQL, NULL};
  gql_ws_handshake h;
  bool ok = gql_ws_handshake_check(&rq, supported, &h);
  gql_http_ws_worker *w = ok ? worker_of(x) : NULL;
  gql_http_ws_session *s = w ? calloc(1, sizeof *s) : NULL;
  if (ok && !s) {
    h.status = 503;
    h.message = "Out of memory.";
  }
  r->answered = true;
  gql_ws_handshake_write(&c->out, &h);
  gql_http_request_info info = {.method = r->method,
                                .path = r->path,
                                .status = h.status,
                                .operation_type = -1,
                                .document_cache = -1};
  gql_http_log_request(c, &info, r->start_ns);
  if (h.status != 101)
    return true; /* the connection closes after the refusal */
  s->c = c;
  /* the path is the server's GraphQL path (else no upgrade): the URL's
   * buffer goes, with the parser's others but the headers */
  s->req =
      (gql_http_request){.conn = c,
                         .slot = &s->slot,
                         .start_ns = r->start_ns,
                         .method = r->method,
                         .path = http_str(x->opt->path, strlen(x->opt->path)),
                         .socket = true,
                         .op_type = -1,
                         .cache = -1};
  uint64_t now = uv_now(x->loop);
  gql_ws_init(&s->ws, w->pool, GQL_WS_SERVER, &ws_handler, s, &c->out);
  gql_gws_init(&s->g, w->env, &gws_handler, s, now);
  s->next_ping = now + ping_interval(x);
  c->ws = s;
  c->close_after = false;
  s->observed = true;
  gql_http_ws_counted(x, GQL_HTTP_WS_CONNECTIONS, 1);
  http_buf *unused[] = {&c->url, &c->accept, &c->body, &c->traceparent,
                        &c->tracestate};
  for (size_t i = 0; i < HTTP_ARRAY_LEN(unused); i++)
    http_buf_free(unused[i]);
  if (!h.protocol) /* graphql-ws: accepted, then closed */
    gql_gws_close(&s->g, GQL_GWS_SUBPROTOCOL, "Subprotocol not acceptable");
  return true;
}

void gql_http_ws_feed(gql_http_ws_session *s, const char *data, size_t len) {
  s->ws.inflight = s->c->out_inflight;
  gql_ws_feed(&s->ws, data, len);
}

static void reap(gql_http_ws_session *s) {
  while (s->done) {
    ws_op *o = s->done;
    s->done = o->next_done;
    s->pending--;
    op_release(o);
  }
}

uint64_t gql_http_ws_tick(gql_http_ws_session *s, uint64_t now_ms) {
  reap(s);
  if (s->gone)
    return 0;
  gql_gws_tick(&s->g, now_ms);
  if (now_ms >= s->next_ping && s->ws.state == GQL_WS_OPEN) {
    s->ws.inflight = s->c->out_inflight;
    gql_ws_keepalive(&s->ws);
    s->next_ping = now_ms + ping_interval(s->c->x);
  }
  uint64_t d = gql_gws_deadline(&s->g);
  return d && d < s->next_ping ? d : s->next_ping;
}

int gql_http_ws_state(const gql_http_ws_session *s) {
  if (s->ws.state == GQL_WS_TERMINATED)
    return 2;
  return s->ws.state == GQL_WS_CLOSED ? 1 : 0;
}

void gql_http_ws_going_away(gql_http_ws_session *s) {
  gql_gws_close(&s->g, GQL_WS_CLOSE_GOING_AWAY, "Server shutting down");
}

bool gql_http_ws_gone(gql_http_ws_session *s) {
  if (!s->gone) {
    s->gone = true;
    gql_gws_free(&s->g);
  }
  reap(s);
  return s->pending == 0;
}

void gql_http_ws_free(gql_http_ws_session *s) {
  if (!s)
    return;
  gql_http_ws_gone(s);
  if (s->observed)
    gql_http_ws_counted(s->c->x, GQL_HTTP_WS_CONNECTIONS, -1);
  gql_ws_free(&s->ws);
  gql_arena_free(s->slot.arena);
  free(s);
}

void *gql_http_service_worker(const gql_resolve_info *info) {
  gql_http_request *r = gql_info_context(info);
  return r ? r->conn->x->svc_worker : NULL;
}
