/* graphql-transport-ws (see graphql_ws.h). Messages are parsed into the
 * thread's scratch arena, reset per message; outgoing messages are written
 * into the thread's scratch buffer and handed to the transport, which
 * frames (copies) them at once. */
#include "graphql_ws.h"

#include <stdio.h>
#include <stdlib.h>

#define BAD_REQUEST_REASON "Invalid message received"

struct gql_gws_env {
  gql_gws_limits lim;
  gql_arena *arena;
  http_buf out;
};

gql_gws_env *gql_gws_env_new(const gql_gws_limits *limits) {
  gql_gws_env *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  if (limits)
    e->lim = *limits;
  if (!e->lim.init_timeout_ms)
    e->lim.init_timeout_ms = 3000;
  if (!e->lim.max_operations)
    e->lim.max_operations = 100;
  if (!e->lim.max_id)
    e->lim.max_id = 128;
  e->arena = gql_arena_new(NULL);
  if (!e->arena) {
    free(e);
    return NULL;
  }
  return e;
}

void gql_gws_env_free(gql_gws_env *e) {
  if (!e)
    return;
  gql_arena_free(e->arena);
  http_buf_free(&e->out);
  free(e);
}

/* ------------------------------------------------------------ helpers */

static http_buf *start(gql_gws *g) {
  http_buf *b = &g->env->out;
  http_buf_clear(b, 64 * 1024); /* one big message does not stay pinned */
  return b;
}

static void emit(gql_gws *g, http_buf *b) {
  if (!b->failed)
    g->h->send(g->ud, b->o.data, b->o.len);
}

static void unlink_op(gql_gws *g, gql_gws_op *op) {
  if (op->prev)
    op->prev->next = op->next;
  else
    g->ops = op->next;
  if (op->next)
    op->next->prev = op->prev;
  g->nops--;
  free(op);
}

/* The cancel callback, then the record goes. */
static void cancel(gql_gws *g, gql_gws_op *op) {
  op->cancelling = true;
  if (g->h->cancel)
    g->h->cancel(g->ud, op);
  unlink_op(g, op);
}

static void cancel_all(gql_gws *g) {
  while (g->ops)
    cancel(g, g->ops);
}

/* Closes the socket after cancelling every operation. */
static void shut(gql_gws *g, uint16_t code, const char *reason,
                 const char *why) {
  if (g->closed)
    return;
  g->closed = true;
  g->why = why;
  cancel_all(g);
  g->h->close(g->ud, code, reason);
}

static void bad(gql_gws *g, const char *why) {
  shut(g, GQL_GWS_BAD_REQUEST, BAD_REQUEST_REASON, why);
}

static bool is_object(const gql_value *v) {
  return gql_value_kind_of(v) == GQL_VALUE_OBJECT;
}

/* A string: true and *out set. */
static bool string_of(const gql_value *v, gql_str *out) {
  if (!v || gql_value_kind_of(v) != GQL_VALUE_STRING)
    return false;
  *out = gql_value_string(v);
  return true;
}

/* null, absent or an object. */
static bool optional_object(const gql_value *v) {
  gql_value_kind k = gql_value_kind_of(v); /* absent reads as null */
  return k == GQL_VALUE_NULL || k == GQL_VALUE_OBJECT;
}

static const gql_value *member(const gql_value *o, const char *k) {
  return gql_value_get(o, k, strlen(k));
}

static gql_gws_op *find_op(gql_gws *g, gql_str id) {
  for (gql_gws_op *op = g->ops; op; op = op->next)
    if (http_str_eq(gql_gws_op_id(op), id))
      return op;
  return NULL;
}

/* ------------------------------------------------------------ lifecycle */

void gql_gws_init(gql_gws *g, gql_gws_env *env, const gql_gws_handler *h,
                  void *ud, uint64_t now_ms) {
  memset(g, 0, sizeof *g);
  g->env = env;
  g->h = h;
  g->ud = ud;
  g->init_deadline = now_ms + env->lim.init_timeout_ms;
}

void gql_gws_free(gql_gws *g) {
  g->closed = true;
  cancel_all(g);
}

uint64_t gql_gws_deadline(const gql_gws *g) {
  return g->closed || g->init_received ? 0 : g->init_deadline;
}

void gql_gws_tick(gql_gws *g, uint64_t now_ms) {
  if (!g->closed && !g->init_received && now_ms >= g->init_deadline)
    shut(g, GQL_GWS_INIT_TIMEOUT, "Connection initialisation timeout",
         "no connection_init in time");
}

void gql_gws_close(gql_gws *g, uint16_t code, const char *reason) {
  shut(g, code, reason, "closed by the server");
}

/* ------------------------------------------------------------ messages */

static void send_ack(gql_gws *g, const char *payload, size_t len) {
  http_buf *b = start(g);
  http_buf_puts(b, "{\"type\":\"connection_ack\"");
  if (payload && len) {
    http_buf_puts(b, ",\"payload\":");
    http_buf_append(b, payload, len);
  }
  http_buf_putc(b, '}');
  g->acknowledged = true;
  emit(g, b);
}

static void on_init(gql_gws *g, const gql_value *payload) {
  if (g->init_received)
    return shut(g, GQL_GWS_TOO_MANY_INITS, "Too many initialisation requests",
                "a second connection_init");
  g->init_received = true;
  g->init_deadline = 0;
  gql_gws_verdict v =
      g->h->connect ? g->h->connect(g->ud, is_object(payload) ? payload : NULL)
                    : GQL_GWS_ACCEPT;
  if (g->closed)
    return;
  if (v == GQL_GWS_ACCEPT)
    send_ack(g, NULL, 0);
  else if (v == GQL_GWS_REJECT)
    shut(g, GQL_GWS_FORBIDDEN, "Forbidden", "connection refused");
}

void gql_gws_accept(gql_gws *g, const char *payload_json, size_t len) {
  if (g->closed || g->acknowledged || !g->init_received)
    return;
  send_ack(g, payload_json, len);
}

void gql_gws_reject(gql_gws *g) {
  if (g->closed || g->acknowledged || !g->init_received)
    return;
  shut(g, GQL_GWS_FORBIDDEN, "Forbidden", "connection refused");
}

static void on_ping(gql_gws *g, const gql_value *payload) {
  http_buf *b = start(g);
  http_buf_puts(b, "{\"type\":\"pong\"");
  if (is_object(payload)) { /* graphql-ws echoes a truthy payload */
    gql_str text;
    if (gql_value_print(g->env->arena, payload, &text) < 0)
      b->failed = true;
    http_buf_puts(b, ",\"payload\":");
    http_buf_append(b, text.ptr, text.len);
  }
  http_buf_putc(b, '}');
  emit(g, b);
}

/* The record of a new operation: its id and its messages' common start. */
static gql_gws_op *new_op(gql_gws *g, gql_str id) {
  http_buf *b = start(g);
  http_buf_puts(b, "{\"id\":");
  http_buf_json_string(b, id);
  http_buf_puts(b, ",\"type\":\"");
  if (b->failed)
    return NULL;
  gql_gws_op *op = malloc(sizeof *op + id.len + b->o.len);
  if (!op)
    return NULL;
  *op = (gql_gws_op){
      .g = g, .id_len = (uint32_t)id.len, .prefix_len = (uint32_t)b->o.len};
  memcpy(op->bytes, id.ptr, id.len);
  memcpy(op->bytes + id.len, b->o.data, b->o.len);
  op->next = g->ops;
  if (g->ops)
    g->ops->prev = op;
  g->ops = op;
  g->nops++;
  return op;
}

static void too_many(gql_gws *g, gql_str id) {
  http_buf *b = start(g);
  http_buf_puts(b, "{\"id\":");
  http_buf_json_string(b, id);
  http_buf_printf(b,
                  ",\"type\":\"error\",\"payload\":[{\"message\":\"Too many "
                  "operations in progress on this connection (the limit is "
                  "%u).\"}]}",
                  g->env->lim.max_operations);
  emit(g, b);
}

static void on_subscribe(gql_gws *g, const gql_value *m) {
  const gql_value *p = member(m, "payload");
  gql_str id, query, opname = {0};
  if (!string_of(member(m, "id"), &id) || !id.len)
    return bad(g, "subscribe without a non-empty string id");
  if (!is_object(p))
    return bad(g, "subscribe without an object payload");
  const gql_value *vars = member(p, "variables");
  const gql_value *name = member(p, "operationName");
  const gql_value *ext = member(p, "extensions");
  if (!string_of(member(p, "query"), &query))
    return bad(g, "subscribe payload without a string query");
  if (!optional_object(vars))
    return bad(g, "subscribe variables not an object");
  bool has_name = string_of(name, &opname);
  if (!has_name && gql_value_kind_of(name) != GQL_VALUE_NULL)
    return bad(g, "subscribe operationName not a string");
  if (!optional_object(ext))
    return bad(g, "subscribe extensions not an object");
  if (!g->acknowledged)
    return shut(g, GQL_GWS_UNAUTHORIZED, "Unauthorized",
                "subscribe before connection_ack");
  if (id.len > g->env->lim.max_id)
    return bad(g, "operation id too long");
  if (find_op(g, id)) {
    char reason[123];
    snprintf(reason, sizeof reason, "Subscriber for %.*s already exists",
             (int)id.len, id.ptr);
    return shut(g, GQL_GWS_SUBSCRIBER_EXISTS, reason, "duplicate id");
  }
  if (g->nops >= g->env->lim.max_operations)
    return too_many(g, id);
  gql_gws_op *op = new_op(g, id);
  if (!op)
    return shut(g, GQL_GWS_INTERNAL, "Internal server error", "out of memory");
  gql_gws_request rq = {.query = query,
                        .operation_name = opname,
                        .has_operation_name = has_name,
                        .variables = is_object(vars) ? vars : NULL,
                        .extensions = is_object(ext) ? ext : NULL};
  g->h->subscribe(g->ud, op, &rq); /* op may be gone after this */
}

static void on_complete(gql_gws *g, const gql_value *m) {
  gql_str id;
  if (!string_of(member(m, "id"), &id) || !id.len)
    return bad(g, "complete without a non-empty string id");
  gql_gws_op *op = find_op(g, id);
  if (op) /* else already over: nothing to stop */
    cancel(g, op);
}

void gql_gws_on_message(gql_gws *g, const char *data, size_t len) {
  if (g->closed)
    return;
  gql_gws_env *e = g->env;
  gql_arena_reset(e->arena);
  const gql_value *m = NULL;
  if (gql_value_parse(e->arena, data, len, &m) != 0 || !is_object(m))
    return bad(g, "not a JSON object");
  gql_str type;
  if (!string_of(member(m, "type"), &type) || !type.len)
    return bad(g, "no string type");
  const gql_value *payload = member(m, "payload");
  bool init = http_str_is(type, "connection_init");
  bool ping = http_str_is(type, "ping");
  if (http_str_is(type, "subscribe"))
    on_subscribe(g, m);
  else if (http_str_is(type, "complete"))
    on_complete(g, m);
  else if (!init && !ping && !http_str_is(type, "pong"))
    /* connection_ack, next and error go from server to client only. */
    bad(g, "unexpected message type");
  else if (!optional_object(payload))
    bad(g, "payload not an object");
  else if (init)
    on_init(g, payload);
  else if (ping)
    on_ping(g, payload);
  gql_arena_reset(e->arena);
}

/* ------------------------------------------------------------ results */

static int op_message(gql_gws_op *op, const char *kind, const char *json,
                      size_t len) {
  gql_gws *g = op->g;
  if (g->closed || op->cancelling)
    return GQL_EINVAL;
  http_buf *b = start(g);
  http_buf_append(b, op->bytes + op->id_len, op->prefix_len);
  http_buf_puts(b, kind);
  if (json) {
    http_buf_puts(b, "\",\"payload\":");
    http_buf_append(b, json, len);
    http_buf_putc(b, '}');
  } else {
    http_buf_puts(b, "\"}");
  }
  if (b->failed)
    return GQL_ENOMEM;
  g->h->send(g->ud, b->o.data, b->o.len);
  return 0;
}

int gql_gws_next(gql_gws_op *op, const char *json, size_t len) {
  return op_message(op, "next", json, len);
}

/* Sends the last message of `op` and forgets it (unless it is being
 * cancelled: its canceller frees it). */
static int op_end(gql_gws_op *op, const char *kind, const char *json,
                  size_t len) {
  int rc = op_message(op, kind, json, len);
  if (!op->cancelling && !op->g->closed)
    unlink_op(op->g, op);
  return rc;
}

int gql_gws_error(gql_gws_op *op, const char *json, size_t len) {
  return op_end(op, "error", json, len);
}

int gql_gws_complete(gql_gws_op *op) {
  return op_end(op, "complete", NULL, 0);
}
