/* A test server for the npm graphql-sse client: gql's graphql-sse routing,
 * reservation registry and event stream on a libuv socket (llhttp for the
 * requests), with a fake executor, until the real server serves
 * subscriptions. It prints "PORT n" once it listens on 127.0.0.1.
 *
 * The fake executor, by the query's text: `count` streams {"count":1..3}
 * 20 ms apart then completes; `tick` streams every 20 ms until stopped;
 * `stops` answers how many operations DELETE stopped; anything else
 * answers {"hello":"world"} once. */
#include "http/sse.h"

#include <llhttp.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <uv.h>

#include "peer_server.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static gql_str cstr(const char *s) {
  return http_str(s, strlen(s));
}

typedef struct conn conn;

typedef struct op {
  conn *stream; /* where its events go (NULL: not open yet) */
  char token[GQL_SSE_MAX_TOKEN + 1];
  char id[GQL_SSE_MAX_ID + 1];
  bool with_id; /* single connection mode */
  int n, limit;
  bool once, stopped;
  uv_timer_t timer;
  struct op *next;
} op;

struct conn {
  uv_tcp_t tcp;
  uv_write_t wreq;
  llhttp_t parser;
  http_buf url, hname, hval, accept, token, ctype, body, out, wbuf;
  bool writing, closing, stream, keep;
  char stream_token[GQL_SSE_MAX_TOKEN + 1];
};

static uv_loop_t *loop;
static gql_sse_registry *reg;
static llhttp_settings_t settings;
static op *ops; /* every operation in progress */
static int stops;

static void flush(conn *c);

static void op_free(uv_handle_t *h) {
  free(h->data);
}

static void op_end(op *o) {
  op **pp = &ops;
  while (*pp && *pp != o)
    pp = &(*pp)->next;
  if (*pp)
    *pp = o->next;
  uv_timer_stop(&o->timer);
  uv_close((uv_handle_t *)&o->timer, op_free);
}

static void conn_freed(uv_handle_t *h) {
  conn *c = h->data;
  http_buf *bufs[] = {&c->url,   &c->hname, &c->hval, &c->accept, &c->token,
                      &c->ctype, &c->body,  &c->out,  &c->wbuf};
  for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
    http_buf_free(bufs[i]);
  free(c);
}

static void conn_close(conn *c) {
  if (c->closing)
    return;
  c->closing = true;
  if (c->stream) { /* the client went away: its reservation goes */
    gql_sse_registry_close(reg, cstr(c->stream_token));
    for (op *o = ops, *next; o; o = next) {
      next = o->next;
      if (o->stream == c)
        op_end(o);
    }
  }
  uv_close((uv_handle_t *)&c->tcp, conn_freed);
}

static void on_write(uv_write_t *w, int status) {
  conn *c = w->data;
  c->writing = false;
  c->wbuf.o.len = 0;
  if (status < 0)
    conn_close(c);
  else
    flush(c);
}

static void flush(conn *c) {
  if (c->closing || c->writing || !c->out.o.len) {
    if (!c->closing && !c->writing && !c->out.o.len && !c->keep && !c->stream)
      conn_close(c);
    return;
  }
  http_buf t = c->wbuf;
  c->wbuf = c->out;
  c->out = t;
  c->out.o.len = 0;
  uv_buf_t b = uv_buf_init(c->wbuf.o.data, (unsigned)c->wbuf.o.len);
  c->wreq.data = c;
  if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_write) == 0)
    c->writing = true;
}

static void respond(conn *c, int status, const char *text, const char *ctype,
                    const char *extra, const char *body) {
  size_t n = body ? strlen(body) : 0;
  http_buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n", status,
                  text, n);
  if (ctype)
    http_buf_printf(&c->out, "Content-Type: %s\r\n", ctype);
  if (extra)
    http_buf_puts(&c->out, extra);
  http_buf_puts(&c->out, "\r\n");
  http_buf_append(&c->out, body, n);
}

static void refuse(conn *c, int status, const char *message,
                   const char *allow) {
  char body[256], extra[96] = "";
  if (allow)
    snprintf(extra, sizeof extra, "Allow: %s\r\n", allow);
  if (message)
    snprintf(body, sizeof body, "{\"errors\":[{\"message\":\"%s\"}]}", message);
  respond(c, status, "Refused", message ? "application/json" : NULL,
          allow ? extra : NULL, message ? body : NULL);
}

/* ------------------------------------------------------------ operations */

static void emit(op *o, const char *json) {
  conn *s = o->stream;
  if (!s)
    return;
  gql_sse_write_next(&s->out, http_str(o->id, strlen(o->id)), o->with_id, json,
                     strlen(json));
  flush(s);
}

static void complete(op *o) {
  conn *s = o->stream;
  if (s) {
    gql_sse_write_complete(&s->out, http_str(o->id, strlen(o->id)), o->with_id);
    if (!o->with_id) { /* a distinct stream ends with its operation */
      gql_sse_write_end(&s->out);
      s->stream = false;
    }
    flush(s);
  }
  if (o->with_id)
    gql_sse_registry_done(reg, cstr(o->token), http_str(o->id, strlen(o->id)));
  op_end(o);
}

static void op_tick(uv_timer_t *t) {
  op *o = t->data;
  char ev[96];
  if (o->once) {
    snprintf(ev, sizeof ev, "{\"data\":{\"stops\":%d,\"hello\":\"world\"}}",
             stops);
    emit(o, ev);
    complete(o);
    return;
  }
  snprintf(ev, sizeof ev, "{\"data\":{\"%s\":%d}}", o->limit ? "count" : "tick",
           ++o->n);
  emit(o, ev);
  if (o->limit && o->n == o->limit)
    complete(o);
}

static op *op_start(conn *stream, const char *query, size_t qlen, gql_str token,
                    gql_str id, bool with_id) {
  op *o = calloc(1, sizeof *o);
  o->stream = stream;
  memcpy(o->token, token.ptr, token.len);
  memcpy(o->id, id.ptr, id.len);
  o->with_id = with_id;
  gql_str q = {query, qlen};
  bool count = memmem(q.ptr, q.len, "count", 5) != NULL;
  bool tick = memmem(q.ptr, q.len, "tick", 4) != NULL;
  o->limit = count ? 3 : 0;
  o->once = !count && !tick;
  uv_timer_init(loop, &o->timer);
  o->timer.data = o;
  if (stream) /* else it starts when the stream opens */
    uv_timer_start(&o->timer, op_tick, o->once ? 0 : 20, 20);
  o->next = ops;
  ops = o;
  return o;
}

/* The query of a GET (?query=) or a JSON POST, and extensions.operationId. */
static bool params(conn *c, gql_arena *a, gql_str *query, gql_str *id) {
  *id = (gql_str){"", 0};
  if (llhttp_get_method(&c->parser) == HTTP_GET) {
    const char *q = memmem(c->url.o.data, c->url.o.len, "query=", 6);
    *query =
        q ? (gql_str){q + 6, c->url.o.len - (size_t)(q + 6 - c->url.o.data)}
          : (gql_str){"", 0};
    return true;
  }
  const gql_value *body;
  if (gql_value_parse(a, c->body.o.data, c->body.o.len, &body) != 0 ||
      gql_value_kind_of(body) != GQL_VALUE_OBJECT)
    return false;
  const gql_value *q = gql_value_get(body, "query", 5);
  const gql_value *ext = gql_value_get(body, "extensions", 10);
  const gql_value *oid = gql_value_get(ext, "operationId", 11);
  if (gql_value_kind_of(q) != GQL_VALUE_STRING)
    return false;
  *query = gql_value_string(q);
  *id = gql_value_string(oid); /* empty when not a string */
  return true;
}

static void open_stream(conn *c, gql_sse_route *rt) {
  c->stream = true;
  snprintf(c->stream_token, sizeof c->stream_token, "%s", rt->token);
  gql_sse_write_head(&c->out);
  for (op *o = ops; o; o = o->next) /* operations that waited for it */
    if (!o->stream && o->with_id && !strcmp(o->token, rt->token)) {
      o->stream = c;
      uv_timer_start(&o->timer, op_tick, o->once ? 0 : 20, 20);
    }
}

/* One operation, one stream: results, complete, the end of the body. */
static void distinct(conn *c, gql_arena *a) {
  gql_str query, id;
  if (!params(c, a, &query, &id)) {
    refuse(c, 400, "Missing query", NULL);
    return;
  }
  gql_sse_write_head(&c->out);
  c->stream = true;
  c->stream_token[0] = 0;
  op_start(c, query.ptr, query.len, (gql_str){"", 0}, (gql_str){"", 0}, false);
}

static void handle(conn *c) {
  gql_sse_request rq = {
      .method = cstr(llhttp_method_name(llhttp_get_method(&c->parser))),
      .target = {c->url.o.data, c->url.o.len},
      .accept = {c->accept.o.data, c->accept.o.len},
      .token = {c->token.o.data, c->token.o.len}};
  gql_sse_route rt;
  gql_sse_route_request(&rq, &rt);
  gql_sse_result r = {0, NULL};
  void *owner;
  gql_arena *a = gql_arena_new(NULL);
  gql_str query, id;
  gql_str token = {rt.token, rt.token_len};
  switch (rt.kind) {
  case GQL_SSE_REFUSE:
    refuse(c, rt.status, rt.message, rt.allow);
    break;
  case GQL_SSE_RESERVE:
    r = gql_sse_registry_reserve(reg, &rt, uv_now(loop));
    if (!r.status)
      respond(c, 201, "Created", "text/plain; charset=utf-8", NULL, rt.token);
    break;
  case GQL_SSE_CONNECT:
    r = gql_sse_registry_open(reg, &rt, c);
    if (!r.status && rt.kind == GQL_SSE_CONNECT)
      open_stream(c, &rt);
    else if (!r.status) /* no reservation: a distinct stream */
      distinct(c, a);
    break;
  case GQL_SSE_DISTINCT:
    distinct(c, a);
    break;
  case GQL_SSE_EXECUTE:
    if (!params(c, a, &query, &id)) {
      refuse(c, 400, "Missing query", NULL);
      break;
    }
    r = gql_sse_registry_add(reg, &rt, id, &owner);
    if (!r.status) {
      op_start(owner, query.ptr, query.len, token, id, true);
      respond(c, 202, "Accepted", NULL, NULL, NULL);
    }
    break;
  case GQL_SSE_STOP:
    r = gql_sse_registry_stop(reg, &rt, &owner);
    if (!r.status) {
      for (op *o = ops; o; o = o->next)
        if (o->with_id && !strcmp(o->token, rt.token) &&
            !strcmp(o->id, rt.operation_id)) {
          stops++;
          op_end(o);
          break;
        }
      respond(c, 200, "OK", NULL, NULL, NULL);
    }
    break;
  default:
    respond(c, 200, "OK", "application/json", NULL,
            "{\"data\":{\"hello\":\"world\"}}");
  }
  if (r.status)
    refuse(c, r.status, r.message, NULL);
  gql_arena_free(a);
}

/* ------------------------------------------------------------ HTTP */

static int on_url(llhttp_t *p, const char *at, size_t n) {
  http_buf_append(&((conn *)p->data)->url, at, n);
  return 0;
}

static int on_hname(llhttp_t *p, const char *at, size_t n) {
  http_buf_append(&((conn *)p->data)->hname, at, n);
  return 0;
}

static int on_hval(llhttp_t *p, const char *at, size_t n) {
  http_buf_append(&((conn *)p->data)->hval, at, n);
  return 0;
}

static bool named(const http_buf *b, const char *name) {
  return b->o.len == strlen(name) &&
         strncasecmp(b->o.data, name, b->o.len) == 0;
}

static int on_hval_done(llhttp_t *p) {
  conn *c = p->data;
  http_buf *dst = named(&c->hname, "accept")               ? &c->accept
                  : named(&c->hname, GQL_SSE_TOKEN_HEADER) ? &c->token
                  : named(&c->hname, "content-type")       ? &c->ctype
                                                           : NULL;
  if (dst)
    http_buf_append(dst, c->hval.o.data, c->hval.o.len);
  c->hname.o.len = c->hval.o.len = 0;
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t n) {
  http_buf_append(&((conn *)p->data)->body, at, n);
  return 0;
}

static int on_done(llhttp_t *p) {
  conn *c = p->data;
  c->keep = llhttp_should_keep_alive(p);
  handle(c);
  http_buf *bufs[] = {&c->url, &c->accept, &c->token, &c->ctype, &c->body};
  for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
    bufs[i]->o.len = 0;
  return 0;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  conn *c = s->data;
  if (n < 0) {
    conn_close(c);
    return;
  }
  if (!n || c->closing)
    return;
  if (llhttp_execute(&c->parser, b->base, (size_t)n) != HPE_OK) {
    conn_close(c);
    return;
  }
  flush(c);
}

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0)
    return;
  conn *c = calloc(1, sizeof *c);
  http_buf *bufs[] = {&c->url,   &c->hname, &c->hval, &c->accept, &c->token,
                      &c->ctype, &c->body,  &c->out,  &c->wbuf};
  for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
    *bufs[i] = (http_buf){0};
  llhttp_init(&c->parser, HTTP_REQUEST, &settings);
  c->parser.data = c;
  c->keep = true;
  uv_tcp_init(loop, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
    conn_close(c);
    return;
  }
  uv_read_start((uv_stream_t *)&c->tcp, peer_alloc, on_read);
}

int main(void) {
  loop = uv_default_loop();
  reg = gql_sse_registry_new(NULL);
  llhttp_settings_init(&settings);
  settings.on_url = on_url;
  settings.on_header_field = on_hname;
  settings.on_header_value = on_hval;
  settings.on_header_value_complete = on_hval_done;
  settings.on_body = on_body;
  settings.on_message_complete = on_done;
  return peer_serve(loop, on_connection);
}
