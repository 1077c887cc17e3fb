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
  c->in_request = true;
  c->start_ns = gql_http_now_ns();
  return 0;
}

/* Counts request-line and header bytes against max_header_bytes (431). */
static int head_bytes(gql_http_conn *c, size_t n) {
  c->header_bytes += n;
  if (c->header_bytes > c->x->opt->max_header_bytes)
    return refuse(c, 431, "Request header fields too large.");
  return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  c->header_bytes += n;
  if (c->header_bytes > c->x->opt->max_header_bytes)
    return refuse(c, 414, "URI too long.");
  gql_buf_append(&c->url, at, n);
  return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (head_bytes(c, n))
    return HPE_USER;
  gql_buf_append(&c->hname, at, n);
  return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (head_bytes(c, n))
    return HPE_USER;
  gql_buf_append(&c->hval, at, n);
  return 0;
}

static bool name_is(const gql_buf *b, const char *name) {
  size_t n = strlen(name);
  return b->len == n && strncasecmp(b->data, name, n) == 0;
}

static void set_buf(gql_buf *dst, const gql_buf *src) {
  dst->len = 0;
  gql_buf_append(dst, src->data, src->len);
}

static int on_header_value_complete(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  if (++c->nheaders > c->x->opt->max_headers)
    return refuse(c, 431, "Too many request header fields.");
  if (c->hname.failed || c->hval.failed)
    return refuse(c, 503, "Out of memory.");
  if (name_is(&c->hname, "content-type")) {
    set_buf(&c->ctype, &c->hval);
  } else if (name_is(&c->hname, "accept")) {
    if (c->accept.len)
      gql_buf_putc(&c->accept, ',');
    gql_buf_append(&c->accept, c->hval.data, c->hval.len);
  } else if (name_is(&c->hname, "expect")) {
    if (name_is(&c->hval, "100-continue"))
      c->expect_continue = true;
    else
      c->expect_other = true;
  }
  c->hname.len = c->hval.len = 0;
  return 0;
}

static int on_headers_complete(llhttp_t *p) {
  gql_http_conn *c = conn_of(p);
  if (c->expect_other)
    return refuse(c, 417, "Unsupported expectation.");
  if ((p->flags & F_CONTENT_LENGTH) && p->content_length > c->x->opt->max_body)
    return refuse(c, 413, "Request body too large.");
  if (c->expect_continue && p->http_major == 1 && p->http_minor >= 1)
    gql_buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t n) {
  gql_http_conn *c = conn_of(p);
  if (c->body.len + n > c->x->opt->max_body)
    return refuse(c, 413, "Request body too large.");
  gql_buf_append(&c->body, at, n);
  if (c->body.failed)
    return refuse(c, 503, "Out of memory.");
  return 0;
}

static int on_message_complete(llhttp_t *p) {
  if (p->upgrade)
    conn_of(p)->upgrade = true;
  return HPE_PAUSED; /* handled by the loop in feed(), outside llhttp */
}

void gql_http_ctx_settings(llhttp_settings_t *s);
void gql_http_ctx_settings(llhttp_settings_t *s) {
  llhttp_settings_init(s);
  s->on_message_begin = on_message_begin;
  s->on_url = on_url;
  s->on_header_field = on_header_field;
  s->on_header_value = on_header_value;
  s->on_header_value_complete = on_header_value_complete;
  s->on_headers_complete = on_headers_complete;
  s->on_body = on_body;
  s->on_message_complete = on_message_complete;
}

void gql_http_conn_init(gql_http_conn *c, gql_http_ctx *x) {
  memset(c, 0, sizeof *c);
  c->x = x;
  llhttp_init(&c->parser, HTTP_REQUEST, &x->settings);
  c->parser.data = c;
}

void gql_http_conn_free(gql_http_conn *c) {
  gql_buf *bufs[] = {&c->url,    &c->hname, &c->hval, &c->ctype,
                     &c->accept, &c->body,  &c->out,  &c->in};
  for (size_t i = 0; i < GQL_ARRAY_LEN(bufs); i++)
    gql_buf_free(bufs[i]);
}

/* Keeps a buffer's memory across requests unless one request made it big. */
static void buf_clear(gql_buf *b) {
  b->len = 0;
  b->failed = false;
  if (b->cap > 64 * 1024)
    gql_buf_free(b);
}

static void request_reset(gql_http_conn *c) {
  gql_buf *bufs[] = {&c->url,   &c->hname,  &c->hval,
                     &c->ctype, &c->accept, &c->body};
  for (size_t i = 0; i < GQL_ARRAY_LEN(bufs); i++)
    buf_clear(bufs[i]);
  c->header_bytes = 0;
  c->nheaders = 0;
  c->expect_continue = c->expect_other = c->in_request = c->upgrade = false;
  c->error_status = 0;
  c->error_message = NULL;
}

static const char *status_text(int status) {
  switch (status) {
  case 100:
    return "Continue";
  case 200:
    return "OK";
  case 204:
    return "No Content";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 406:
    return "Not Acceptable";
  case 408:
    return "Request Timeout";
  case 413:
    return "Content Too Large";
  case 414:
    return "URI Too Long";
  case 415:
    return "Unsupported Media Type";
  case 417:
    return "Expectation Failed";
  case 431:
    return "Request Header Fields Too Large";
  case 500:
    return "Internal Server Error";
  case 503:
    return "Service Unavailable";
  default:
    return "Unknown";
  }
}

static char *put(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* The head is assembled with memcpy (no printf on the hot path). */
void gql_http_respond(gql_http_conn *c, int status, const char *ctype,
                      const char *headers, const char *body, size_t len) {
  if (c->x->stopping)
    c->close_after = true;
  const char *text = status_text(status);
  size_t ctl = ctype ? strlen(ctype) : 0, hl = headers ? strlen(headers) : 0;
  size_t tl = strlen(text);
  gql_buf *o = &c->out;
  if (!gql_buf_reserve(o, 128 + tl + ctl + hl + len))
    return;
  char *p = o->data + o->len;
  p = PUT_LIT(p, "HTTP/1.1 ");
  *p++ = (char)('0' + status / 100 % 10);
  *p++ = (char)('0' + status / 10 % 10);
  *p++ = (char)('0' + status % 10);
  *p++ = ' ';
  p = put(p, text, tl);
  p = PUT_LIT(p, "\r\n");
  if (ctype) {
    p = PUT_LIT(p, "Content-Type: ");
    p = put(p, ctype, ctl);
    p = PUT_LIT(p, "\r\n");
  }
  p = PUT_LIT(p, "Content-Length: ");
  char digits[24];
  int nd = 0;
  size_t v = len;
  do {
    digits[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (nd)
    *p++ = digits[--nd];
  p = PUT_LIT(p, "\r\n");
  if (headers)
    p = put(p, headers, hl);
  if (c->close_after)
    p = PUT_LIT(p, "Connection: close\r\n");
  else if (c->parser.http_major == 1 && c->parser.http_minor == 0)
    p = PUT_LIT(p, "Connection: keep-alive\r\n"); /* HTTP/1.0 asked */
  p = PUT_LIT(p, "\r\n");
  if (len && c->parser.method != HTTP_HEAD) /* HEAD: the head alone */
    p = put(p, body, len);
  o->len = (size_t)(p - o->data);
}

/* A request refused before it reached the handler: a JSON error body, and
 * the connection closes (its remaining input cannot be trusted). */
static void respond_refused(gql_http_conn *c, int status, const char *msg) {
  char body[256];
  int n =
      snprintf(body, sizeof body, "{\"errors\":[{\"message\":\"%s\"}]}", msg);
  c->close_after = true;
  const char *extra = status == 405 ? "Allow: GET, POST\r\n" : NULL;
  gql_http_respond(c, status, "application/json; charset=utf-8", extra, body,
                   (size_t)n);
  gql_http_log_access(c->x, llhttp_method_name(c->parser.method),
                      gql_str_from(c->url.data ? c->url.data : "", c->url.len),
                      status, (size_t)n, c->start_ns, (gql_str){0});
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
  while (!c->inflight && !c->close_after && c->out.len < OUT_PAUSE) {
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
    if (e == HPE_PAUSED_UPGRADE || c->upgrade) {
      /* No protocol switch here: answer, then close (the bytes after the
       * head belong to another protocol). */
      c->close_after = true;
      len = 0;
      if (!c->in_request)
        break;
    } else {
      llhttp_resume(&c->parser);
    }
    if (!llhttp_should_keep_alive(&c->parser))
      c->close_after = true;
    gql_http_handle(c);
    request_reset(c);
  }
  if (len && !c->close_after)
    gql_buf_append(&c->in, data, len);
}

void gql_http_conn_feed(gql_http_conn *c, const char *data, size_t len) {
  if (c->close_after)
    return;
  if (c->inflight || c->in.len) { /* input waiting: keep the order */
    gql_buf_append(&c->in, data, len);
    gql_http_conn_resume(c);
    return;
  }
  parse(c, data, len);
}

void gql_http_conn_resume(gql_http_conn *c) {
  if (c->inflight || !c->in.len || c->close_after || c->out.len >= OUT_PAUSE)
    return;
  gql_buf saved = c->in;
  gql_buf_init(&c->in, NULL);
  parse(c, saved.data, saved.len);
  gql_buf_free(&saved);
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
