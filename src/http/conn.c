/* One HTTP/1.1 connection's input: llhttp parses it, the callbacks collect
 * the request line, the few headers we use and the body (all bounded), and
 * every complete request is handled in order. llhttp pauses at each
 * request's end so that a request whose execution pends holds back the
 * ones pipelined after it: responses always go out in request order. */
#include "http.h"

#include <stdlib.h>
#include <strings.h>

static gql_http_conn *conn_of(llhttp_t *p) {
  return p->data;
}

static int refuse(gql_http_conn *c, int status, const char *message) {
  if (!c->error_status) {
    c->error_status = status;
    c->error_message = message;
  }
  return HPE_USER;
}

static int on_message_begin(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  /* The previous request's URL and headers were kept until now: a request
   * answered later (pending) reads them until it ends, and nothing is
   * parsed before it has. */
  http_buf *bufs[] = {&c->url, &c->hdrs, &c->hidx};
  for (size_t i = 0; i < HTTP_ARRAY_LEN(bufs); i++)
    http_buf_clear(bufs[i], 64 * 1024);
  c->in_request = true;
  c->start_ns = gql_http_now_ns();
  return 0;
}

/* Counts request-line and header bytes against max_header_bytes (431). */
static int head_bytes(gql_http_conn *c, size_t n) {
  c->header_bytes += n;
  if (c->header_bytes > HTTP_LIVE(c->x->opt, max_header_bytes))
    return refuse(c, 431, "Request header fields too large.");
  return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  c->header_bytes += n;
  if (c->header_bytes > HTTP_LIVE(c->x->opt, max_header_bytes))
    return refuse(c, 414, "URI too long.");
  http_buf_append(&c->url, at, n);
  return 0;
}

/* Every header's name and value go one after the other into c->hdrs (the
 * bytes of one may come in several calls), and its place into c->hidx once
 * the value is complete: the request's headers, kept for the request hooks
 * and resolvers (gql_http_request_header) at the cost of the copy the
 * parser needed anyway. */
static int on_header_field(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (head_bytes(c, n))
    return HPE_USER;
  http_buf_append(&c->hdrs, at, n);
  return 0;
}

static int on_header_field_complete(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  c->hname_end = (uint32_t)c->hdrs.o.len;
  return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (head_bytes(c, n))
    return HPE_USER;
  http_buf_append(&c->hdrs, at, n);
  return 0;
}

static bool slice_is(gql_str s, const char *name, size_t n) {
  return s.len == n && strncasecmp(s.ptr, name, n) == 0;
}
#define SLICE_IS(s, lit) slice_is((s), (lit), sizeof(lit) - 1)

static int on_header_value_complete(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  if (++c->nheaders > HTTP_LIVE(c->x->opt, max_headers))
    return refuse(c, 431, "Too many request header fields.");
  gql_http_header_at at = {c->hname_start, c->hname_end - c->hname_start,
                           c->hname_end,
                           (uint32_t)c->hdrs.o.len - c->hname_end};
  http_buf_append(&c->hidx, &at, sizeof at);
  c->hname_start = (uint32_t)c->hdrs.o.len;
  if (c->hdrs.failed || c->hidx.failed)
    return refuse(c, 503, "Out of memory.");
  const char *base = c->hdrs.o.data ? c->hdrs.o.data : ""; /* ": " */
  gql_str name = http_str(base + at.name, at.name_len);
  gql_str value = http_str(base + at.value, at.value_len);
  if (SLICE_IS(name, "content-type")) {
    c->ctype_off = at.value;
    c->ctype_len = at.value_len;
  } else if (SLICE_IS(name, "accept")) {
    if (c->accept.o.len)
      http_buf_putc(&c->accept, ',');
    http_buf_append(&c->accept, value.ptr, value.len);
  } else if (c->x->opt->tracer && SLICE_IS(name, "traceparent")) {
    c->traceparent.o.len = 0; /* the last one */
    http_buf_append(&c->traceparent, value.ptr, value.len);
  } else if (c->x->opt->tracer && SLICE_IS(name, "tracestate")) {
    /* the field's lines joined by ',' (W3C Trace Context 3.3.1.1) */
    if (c->tracestate.o.len)
      http_buf_putc(&c->tracestate, ',');
    http_buf_append(&c->tracestate, value.ptr, value.len);
  } else if (SLICE_IS(name, "expect")) {
    if (SLICE_IS(value, "100-continue"))
      c->expect_continue = true;
    else
      c->expect_other = true;
  }
  return 0;
}

static int on_headers_complete(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  if (c->expect_other)
    return refuse(c, 417, "Unsupported expectation.");
  if ((p->flags & F_CONTENT_LENGTH) &&
      p->content_length > HTTP_LIVE(c->x->opt, max_body))
    return refuse(c, 413, "Request body too large.");
  if (c->expect_continue && p->http_major == 1 && p->http_minor >= 1)
    http_buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (c->body.o.len + n > HTTP_LIVE(c->x->opt, max_body))
    return refuse(c, 413, "Request body too large.");
  http_buf_append(&c->body, at, n);
  if (c->body.failed)
    return refuse(c, 503, "Out of memory.");
  return 0;
}

static int on_message_complete(llhttp_t *p) {
  if (p->upgrade)
    conn_of(p)->upgrade = true;
  return HPE_PAUSED; /* handled by the loop in feed(), outside llhttp */
}

/* The callbacks, shared by every connection (llhttp reads them only). */
static const llhttp_settings_t settings = {
    .on_message_begin = on_message_begin,
    .on_url = on_url,
    .on_header_field = on_header_field,
    .on_header_field_complete = on_header_field_complete,
    .on_header_value = on_header_value,
    .on_header_value_complete = on_header_value_complete,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete};

void gql_http_conn_init(gql_http_conn *c, gql_http_ctx *x) {
  memset(c, 0, sizeof *c);
  c->x = x;
  llhttp_init(&c->parser, HTTP_REQUEST, &settings);
  c->parser.data = c;
}

void gql_http_conn_free(gql_http_conn *c) {
  gql_http_ws_free(c->ws);
  c->ws = NULL;
  http_buf *bufs[] = {&c->url,        &c->hdrs, &c->hidx,
                      &c->accept,     &c->body, &c->traceparent,
                      &c->tracestate, &c->out,  &c->in};
  for (size_t i = 0; i < HTTP_ARRAY_LEN(bufs); i++)
    http_buf_free(bufs[i]);
}

static void request_reset(gql_http_conn *c) {
  http_buf *bufs[] = {&c->accept, &c->body, &c->traceparent, &c->tracestate};
  /* a buffer's memory is kept across requests unless one made it big (the
   * URL and headers are emptied when the next request begins) */
  for (size_t i = 0; i < HTTP_ARRAY_LEN(bufs); i++)
    http_buf_clear(bufs[i], 64 * 1024);
  c->ctype_off = c->ctype_len = 0;
  c->hname_start = c->hname_end = 0;
  c->header_bytes = 0;
  c->nheaders = 0;
  c->expect_continue = c->expect_other = c->in_request = c->upgrade = false;
  c->error_status = 0;
  c->error_message = NULL;
}

/* A request refused before it reached the handler: a JSON error body, and
 * the connection closes (its remaining input cannot be trusted). */
static void respond_refused(gql_http_conn *c, int status, const char *msg) {
  char body[256];
  int n =
      snprintf(body, sizeof body, "{\"errors\":[{\"message\":\"%s\"}]}", msg);
  c->close_after = true;
  /* never head only: a request refused while its head was read may have
   * a method llhttp took for HEAD before the rest of the line failed */
  gql_http_respond(c, status, "application/json; charset=utf-8", NULL, body,
                   (size_t)n, false);
  gql_str url = http_str(c->url.o.data ? c->url.o.data : "", c->url.o.len);
  size_t q = 0;
  while (q < url.len && url.ptr[q] != '?')
    q++;
  gql_http_request_info info = {.method = llhttp_method_name(c->parser.method),
                                .path = http_str(url.ptr, q),
                                .status = status,
                                .bytes = (size_t)n,
                                .operation_type = -1,
                                .document_cache = -1,
                                .body = body,
                                .errors = true};
  gql_http_log_request(c, &info, c->start_ns);
}

static void parse_error(gql_http_conn *c, llhttp_errno_t e) {
  if (c->error_status) {
    respond_refused(c, c->error_status, c->error_message);
    return;
  }
  /* An unknown method, a bad request line, bad framing: the request cannot
   * be understood, and nothing after it on this connection can be trusted. */
  const char *msg = e == HPE_INVALID_VERSION ? "Unsupported HTTP version."
                                             : "Malformed HTTP request.";
  respond_refused(c, 400, msg);
}

/* Parsing pauses while this much output waits for the client (a client that
 * pipelines requests without reading the responses). */
#define OUT_PAUSE ((size_t)1 << 20)

static void parse(gql_http_conn *c, const char *data, size_t len) {
  while (!c->inflight && !c->close_after && c->out.o.len < OUT_PAUSE) {
    llhttp_errno_t e = llhttp_execute(&c->parser, data, len);
    if (e == HPE_OK)
      return;
    if (e != HPE_PAUSED && e != HPE_PAUSED_UPGRADE) {
      parse_error(c, e);
      return;
    }
    const char *pos = llhttp_get_error_pos(&c->parser);
    size_t used =
        pos && pos >= data && pos <= data + len ? (size_t)(pos - data) : len;
    data += used;
    len -= used;
    bool upgrade = e == HPE_PAUSED_UPGRADE || c->upgrade;
    if (upgrade) {
      /* Answered, then closed (the bytes after the head belong to another
       * protocol), unless the handler switched to a WebSocket. */
      c->close_after = true;
      if (!c->in_request)
        break;
    } else {
      llhttp_resume(&c->parser);
    }
    if (!llhttp_should_keep_alive(&c->parser))
      c->close_after = true;
    gql_http_handle(c);
    request_reset(c);
    if (upgrade) {
      if (c->ws && len)
        gql_http_ws_feed(c->ws, data, len);
      return;
    }
  }
  if (len && !c->close_after)
    http_buf_append(&c->in, data, len);
}

void gql_http_conn_feed(gql_http_conn *c, const char *data, size_t len) {
  if (c->close_after)
    return;
  if (c->inflight || c->in.o.len) { /* input waiting: keep the order */
    http_buf_append(&c->in, data, len);
    gql_http_conn_resume(c);
    return;
  }
  parse(c, data, len);
}

void gql_http_conn_resume(gql_http_conn *c) {
  if (c->inflight || !c->in.o.len || c->close_after ||
      c->out.o.len >= OUT_PAUSE)
    return;
  http_buf saved = c->in;
  c->in = (http_buf){0};
  parse(c, saved.o.data, saved.o.len);
  http_buf_free(&saved);
}

void gql_http_conn_eof(gql_http_conn *c) {
  if (c->inflight || c->close_after)
    return;
  llhttp_errno_t e = llhttp_finish(&c->parser);
  if (e == HPE_PAUSED) {
    c->close_after = true;
    gql_http_handle(c);
    request_reset(c);
  }
}
