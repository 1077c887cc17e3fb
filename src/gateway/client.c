/* The subgraph HTTP/1.1 client: keep-alive pools per subgraph on one libuv
 * loop, llhttp response parsing, completion at the JSON root end, then a
 * bounded drain so the connection can be reused (see client.h). */
#include "client.h"
#include "json/root_end.h"

#include <llhttp.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct creq creq;
typedef struct conn conn;

/* One request: the bytes to send (head and body) and whom to answer. */
struct creq {
  gql_gw_client_cb cb;
  void *ud;
  char *data;
  size_t len;
  bool retried; /* sent once on a reused connection that closed silently */
  creq *next;
};

typedef struct target {
  gql_gw_client *c;
  struct sockaddr_storage addr;
  char *path;
  char *host; /* Host header value */
  conn *idle; /* idle connections (a stack: the warmest first) */
  unsigned nconns;
  creq *qhead, *qtail; /* waiting for a connection */
} target;

enum conn_state { C_CONNECTING, C_BUSY, C_DRAIN, C_IDLE, C_CLOSING };

struct conn {
  gql_gw_client *c;
  target *t;
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_connect_t connect_req;
  uv_write_t write_req;
  llhttp_t parser;
  gql_buf wbuf, body;
  gql_root_end scan;
  creq *req;
  enum conn_state state;
  int status;      /* HTTP status of the response */
  bool complete;   /* the response message ended */
  bool got_bytes;  /* response bytes arrived for this request */
  bool writing;    /* a write is in flight */
  bool too_large;  /* the body passed max_response */
  bool retryable;  /* closed by the server before any response byte */
  unsigned uses;   /* requests sent on this connection */
  size_t drained;  /* bytes read after the answer */
  const char *why; /* why it closes (answered to req on close) */
  char why_buf[128];
  int open_handles;
  conn *next_idle;
  conn *prev, *next; /* in the client's list of every connection */
};

struct gql_gw_client {
  uv_loop_t *loop;
  gql_gw_client_options opt;
  llhttp_settings_t settings;
  target *targets;
  uint32_t ntargets;
  unsigned live; /* connections not yet freed */
  conn *conns;   /* every connection not yet freed (for abort) */
  uint64_t connects;
  bool closing;
  bool aborted;      /* gql_gw_client_abort: no more requests */
  conn *answering;   /* whose answer a callback is reading (status 0) */
  int answer_status; /* the HTTP status of the answer a callback reads */
  bool read_buf_busy;
  char read_buf[64 * 1024];
};

enum { IDLE_BODY_MAX = 32 * 1024 };

static void dispatch(target *t);
static void conn_close(conn *k, const char *why);

/* ------------------------------------------------------------ answers */

static void req_free(creq *r) {
  free(r->data);
  free(r);
}

/* Gives the current request its answer (the connection stays usable). */
static void answer(conn *k, int status, const char *why, const char *json,
                   size_t len) {
  creq *r = k->req;
  k->req = NULL;
  if (!r)
    return;
  k->c->answering = status == 0 ? k : NULL;
  k->c->answer_status = k->status;
  r->cb(r->ud, status, why, json, len);
  k->c->answering = NULL;
  k->c->answer_status = 0;
  req_free(r);
}

int gql_gw_client_answer_status(const gql_gw_client *c) {
  return c->answer_status;
}

char *gql_gw_client_take_answer(gql_gw_client *c) {
  conn *k = c->answering;
  if (!k || !k->body.data || k->body.failed)
    return NULL;
  char *p = k->body.data;
  /* the caller keeps it for the whole client request: no slack */
  if (k->body.cap - k->body.len > 4096) {
    char *q = realloc(p, k->body.len ? k->body.len : 1);
    if (q)
      p = q;
  }
  gql_buf_init(&k->body, NULL); /* a draining connection drops its bytes */
  c->answering = NULL;
  return p;
}

static bool only_whitespace(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
      return false;
  return true;
}

/* The connection is free again: pool it or close it. */
static void conn_release(conn *k) {
  /* an answer that came before the request was all written: the write
   * buffer is still in use, so the connection cannot take the next one */
  if (k->c->closing || k->writing || !llhttp_should_keep_alive(&k->parser)) {
    conn_close(k, NULL);
    return;
  }
  uv_timer_stop(&k->timer);
  /* an idle connection keeps a small body buffer only: pooled connections
   * holding the largest answer each would cost more memory than the
   * reallocations they save */
  if (k->body.cap > IDLE_BODY_MAX) {
    gql_buf_free(&k->body);
    gql_buf_init(&k->body, NULL);
  }
  k->state = C_IDLE;
  k->next_idle = k->t->idle;
  k->t->idle = k;
  dispatch(k->t);
}

/* ------------------------------------------------------------ closing */

static void on_handle_closed(uv_handle_t *h) {
  conn *k = h->data;
  if (--k->open_handles)
    return;
  gql_gw_client *c = k->c;
  target *t = k->t;
  creq *r = k->req;
  k->req = NULL;
  gql_buf_free(&k->wbuf);
  gql_buf_free(&k->body);
  t->nconns--;
  c->live--;
  if (k->prev)
    k->prev->next = k->next;
  else
    c->conns = k->next;
  if (k->next)
    k->next->prev = k->prev;
  if (r) {
    /* A kept-alive connection the server closed before answering: send
     * once more on a fresh one. */
    if (k->uses > 1 && k->retryable && !r->retried && !c->closing) {
      r->retried = true;
      r->next = t->qhead;
      t->qhead = r;
      if (!t->qtail)
        t->qtail = r;
    } else {
      char why[160];
      snprintf(why, sizeof why, "%s", k->why ? k->why : "connection closed");
      r->cb(r->ud, GQL_EIO, why, NULL, 0);
      req_free(r);
    }
  }
  free(k);
  dispatch(t);
}

static void conn_close(conn *k, const char *why) {
  if (k->state == C_CLOSING)
    return;
  if (k->state == C_IDLE) {
    conn **p = &k->t->idle;
    while (*p && *p != k)
      p = &(*p)->next_idle;
    if (*p)
      *p = k->next_idle;
  }
  k->state = C_CLOSING;
  if (why && !k->why)
    k->why = why;
  uv_close((uv_handle_t *)&k->tcp, on_handle_closed);
  uv_close((uv_handle_t *)&k->timer, on_handle_closed);
}

static void conn_fail(conn *k, const char *fmt, const char *detail) {
  snprintf(k->why_buf, sizeof k->why_buf, fmt, detail);
  conn_close(k, k->why_buf);
}

/* ------------------------------------------------------------ parsing */

static int on_headers_complete(llhttp_t *p) {
  conn *k = p->data;
  k->status = p->status_code;
  if (k->status >= 100 && k->status < 200)
    return 0; /* an interim answer (100 Continue): the real one follows */
  /* a declared length over the cap is refused before any byte of it is
   * read (it was read, and buffered, up to the cap) */
  if ((p->flags & F_CONTENT_LENGTH) &&
      p->content_length > k->c->opt.max_response) {
    k->too_large = true;
    return -1;
  }
  /* a declared length sizes the body buffer once (no regrowing) */
  if ((p->flags & F_CONTENT_LENGTH) && p->content_length > k->body.cap)
    gql_buf_reserve(&k->body, (size_t)p->content_length);
  return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t len) {
  conn *k = p->data;
  if (k->state != C_BUSY)
    return 0; /* draining: dropped */
  if (k->body.len + len > k->c->opt.max_response) {
    k->too_large = true;
    return -1;
  }
  gql_buf_append(&k->body, at, len);
  if (k->body.failed)
    return -1;
  if (k->status >= 200 && k->status < 300 &&
      k->scan.status == GQL_ROOT_END_MORE)
    gql_root_end_feed(&k->scan, at, len);
  return 0;
}

static int on_message_complete(llhttp_t *p) {
  conn *k = p->data;
  if (k->status >= 100 && k->status < 200 && k->status != 101) {
    k->status = 0; /* the interim answer's end: parse on */
    return 0;
  }
  k->complete = true;
  return HPE_PAUSED; /* no pipelining: anything after it is bogus */
}

/* The response to the current request ended (whole message). */
static void message_done(conn *k) {
  if (k->state == C_BUSY) {
    if (k->status < 200 || k->status > 299) {
      char why[64];
      snprintf(why, sizeof why, "HTTP status %d", k->status);
      answer(k, GQL_EIO, why, NULL, 0);
    } else {
      answer(k, 0, NULL, k->body.data ? k->body.data : "", k->body.len);
    }
  }
  conn_release(k);
}

static void on_timer(uv_timer_t *h) {
  conn *k = h->data;
  switch (k->state) {
  case C_CONNECTING:
    conn_close(k, "connect timed out");
    break;
  case C_BUSY:
    conn_close(k, "timed out waiting for the response");
    break;
  default:
    conn_close(k, NULL); /* a drain that takes too long */
    break;
  }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  conn *k = h->data;
  gql_gw_client *c = k->c;
  if (!c->read_buf_busy) {
    c->read_buf_busy = true;
    *buf = uv_buf_init(c->read_buf, sizeof c->read_buf);
    return;
  }
  char *m = malloc(16 * 1024);
  *buf = uv_buf_init(m, m ? 16 * 1024 : 0);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  conn *k = s->data;
  gql_gw_client *c = k->c;
  if (n > 0 && k->state == C_IDLE) {
    conn_close(k, NULL); /* bytes nobody asked for */
  } else if (n > 0 && (k->state == C_BUSY || k->state == C_DRAIN)) {
    k->got_bytes = true;
    if (k->state == C_DRAIN) {
      k->drained += (size_t)n;
      if (k->drained > c->opt.drain_max_bytes) {
        conn_close(k, NULL);
        goto out;
      }
    }
    llhttp_errno_t e = llhttp_execute(&k->parser, buf->base, (size_t)n);
    if (e == HPE_PAUSED && k->complete) {
      const char *stop = llhttp_get_error_pos(&k->parser);
      if (stop && stop < buf->base + n) {
        /* bytes after the response: the server is not speaking HTTP/1.1
         * as we do; answer, then do not reuse */
        k->parser.flags |= F_CONNECTION_CLOSE;
      }
      message_done(k);
    } else if (e != HPE_OK) {
      if (k->state == C_BUSY)
        conn_fail(k, "%s",
                  k->too_large ? "the response is too large"
                               : "invalid HTTP response");
      else
        conn_close(k, NULL);
    } else if (k->state == C_BUSY && k->scan.status == GQL_ROOT_END_ENDED &&
               only_whitespace(k->body.data + k->scan.length,
                               k->body.len - k->scan.length)) {
      /* The JSON root closed: answer now, drain the rest. */
      k->state = C_DRAIN;
      k->drained = 0;
      uv_timer_start(&k->timer, on_timer, c->opt.drain_timeout_ms, 0);
      size_t len = (size_t)k->scan.length;
      answer(k, 0, NULL, k->body.data, len);
    }
  } else if (n < 0) {
    if (k->state == C_BUSY && n == UV_EOF &&
        llhttp_finish(&k->parser) == HPE_OK && k->complete) {
      k->parser.flags |= F_CONNECTION_CLOSE;
      message_done(k); /* a body delimited by the end of the connection */
    } else if (k->state == C_BUSY) {
      k->retryable = !k->got_bytes;
      conn_fail(k, "connection closed before the response ended (%s)",
                n == UV_EOF ? "EOF" : uv_err_name((int)n));
    } else {
      conn_close(k, NULL);
    }
  }
out:
  if (buf->base == c->read_buf)
    c->read_buf_busy = false;
  else
    free(buf->base);
}

/* ------------------------------------------------------------ sending */

static void on_write(uv_write_t *w, int status) {
  conn *k = w->data;
  k->writing = false;
  if (status < 0 && k->state == C_BUSY) {
    k->retryable = !k->got_bytes;
    conn_fail(k, "cannot send the request (%s)", uv_err_name(status));
  }
}

static void conn_send(conn *k, creq *r) {
  gql_gw_client *c = k->c;
  k->req = r;
  k->state = C_BUSY;
  k->uses++;
  k->status = 0;
  k->complete = k->got_bytes = k->too_large = k->retryable = false;
  k->body.len = 0;
  llhttp_init(&k->parser, HTTP_RESPONSE, &c->settings);
  k->parser.data = k;
  gql_root_end_init(&k->scan);
  uv_timer_start(&k->timer, on_timer, c->opt.request_timeout_ms, 0);
  k->wbuf.len = 0;
  gql_buf_append(&k->wbuf, r->data, r->len);
  if (k->wbuf.failed) {
    conn_close(k, "out of memory");
    return;
  }
  uv_buf_t b = uv_buf_init(k->wbuf.data, (unsigned)k->wbuf.len);
  k->write_req.data = k;
  int e = uv_write(&k->write_req, (uv_stream_t *)&k->tcp, &b, 1, on_write);
  if (e < 0) {
    conn_fail(k, "cannot send the request (%s)", uv_err_name(e));
    return;
  }
  k->writing = true;
}

static void on_connect(uv_connect_t *cr, int status) {
  conn *k = cr->data;
  if (k->state != C_CONNECTING)
    return;
  if (status < 0) {
    conn_fail(k, "cannot connect to the subgraph (%s)", uv_err_name(status));
    return;
  }
  uv_tcp_nodelay(&k->tcp, 1);
  int e = uv_read_start((uv_stream_t *)&k->tcp, on_alloc, on_read);
  if (e < 0) {
    conn_fail(k, "cannot read (%s)", uv_err_name(e));
    return;
  }
  creq *r = k->req;
  k->req = NULL;
  conn_send(k, r);
}

/* A new connection for `r` (which it answers, whatever happens). */
static void conn_open(gql_gw_client *c, target *t, creq *r) {
  conn *k = calloc(1, sizeof *k);
  if (!k) {
    r->cb(r->ud, GQL_ENOMEM, "out of memory", NULL, 0);
    req_free(r);
    return;
  }
  k->c = c;
  k->t = t;
  k->req = r;
  k->state = C_CONNECTING;
  gql_buf_init(&k->wbuf, NULL);
  gql_buf_init(&k->body, NULL);
  uv_tcp_init(c->loop, &k->tcp);
  uv_timer_init(c->loop, &k->timer);
  k->tcp.data = k->timer.data = k;
  k->connect_req.data = k;
  k->open_handles = 2;
  t->nconns++;
  c->live++;
  k->next = c->conns;
  if (c->conns)
    c->conns->prev = k;
  c->conns = k;
  c->connects++;
  uv_timer_start(&k->timer, on_timer, c->opt.connect_timeout_ms, 0);
  int e = uv_tcp_connect(&k->connect_req, &k->tcp,
                         (const struct sockaddr *)&t->addr, on_connect);
  if (e < 0)
    conn_fail(k, "cannot connect to the subgraph (%s)", uv_err_name(e));
}

/* Gives waiting requests to idle connections, then opens connections
 * while the pool has room. */
static void dispatch(target *t) {
  gql_gw_client *c = t->c;
  while (t->qhead && (t->idle || t->nconns < c->opt.max_connections)) {
    creq *r = t->qhead;
    t->qhead = r->next;
    if (!t->qhead)
      t->qtail = NULL;
    r->next = NULL;
    conn *k = t->idle;
    if (k) {
      t->idle = k->next_idle;
      conn_send(k, r);
    } else {
      conn_open(c, t, r);
    }
  }
}

/* ------------------------------------------------------------ public */

int gql_gw_url_split(gql_str url, bool ws, gql_gw_url *out) {
  const char *p = url.ptr, *end = url.ptr + url.len;
  if (url.len > 7 && strncmp(p, "http://", 7) == 0)
    p += 7;
  else if (ws && url.len > 5 && strncmp(p, "ws://", 5) == 0)
    p += 5;
  else
    return GQL_EINVAL;
  const char *hs = p;
  while (p < end && *p != '/' && *p != ':')
    p++;
  size_t hlen = (size_t)(p - hs);
  if (!hlen || hlen > 255)
    return GQL_EINVAL;
  int port = 80;
  if (p < end && *p == ':') {
    p++;
    port = 0;
    const char *ps = p;
    while (p < end && *p >= '0' && *p <= '9' && port <= 65535)
      port = port * 10 + (*p++ - '0');
    if (p == ps || port < 1 || port > 65535)
      return GQL_EINVAL;
  }
  if (p < end && *p != '/')
    return GQL_EINVAL;
  *out = (gql_gw_url){.host = {hs, hlen},
                      .host_port = {hs, (size_t)(p - hs)},
                      .port = port,
                      .path = {p, (size_t)(end - p)}};
  return 0;
}

static int parse_url(gql_str url, target *t) {
  gql_gw_url u;
  if (gql_gw_url_split(url, false, &u) < 0)
    return GQL_EINVAL;
  char host[256];
  memcpy(host, u.host.ptr, u.host.len);
  host[u.host.len] = 0;
  int port = u.port;
  size_t plen = u.path.len;
  t->path = malloc(plen + 2);
  t->host = malloc(u.host_port.len + 1);
  if (!t->path || !t->host)
    return GQL_ENOMEM;
  if (plen)
    memcpy(t->path, u.path.ptr, plen);
  else
    t->path[plen++] = '/';
  t->path[plen] = 0;
  memcpy(t->host, u.host_port.ptr, u.host_port.len);
  t->host[u.host_port.len] = 0;
  if (uv_ip4_addr(host, port, (struct sockaddr_in *)&t->addr) == 0)
    return 0;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  char ports[8];
  snprintf(ports, sizeof ports, "%d", port);
  if (getaddrinfo(host, ports, &hints, &res) || !res)
    return GQL_EINVAL;
  memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  return 0;
}

int gql_gw_client_new(uv_loop_t *loop, const gql_str *urls, uint32_t nurls,
                      const gql_gw_client_options *options, gql_gw_client **out,
                      uint32_t *bad) {
  gql_gw_client *c = calloc(1, sizeof *c);
  if (!c)
    return GQL_ENOMEM;
  c->loop = loop;
  if (options)
    c->opt = *options;
  if (!c->opt.connect_timeout_ms)
    c->opt.connect_timeout_ms = 2000;
  if (!c->opt.request_timeout_ms)
    c->opt.request_timeout_ms = 10000;
  if (!c->opt.max_connections)
    c->opt.max_connections = 128;
  if (!c->opt.max_response)
    c->opt.max_response = (size_t)64 << 20;
  if (!c->opt.drain_max_bytes)
    c->opt.drain_max_bytes = 64 * 1024;
  if (!c->opt.drain_timeout_ms)
    c->opt.drain_timeout_ms = 1000;
  llhttp_settings_init(&c->settings);
  c->settings.on_headers_complete = on_headers_complete;
  c->settings.on_body = on_body;
  c->settings.on_message_complete = on_message_complete;
  c->targets = calloc(nurls ? nurls : 1, sizeof *c->targets);
  if (!c->targets) {
    free(c);
    return GQL_ENOMEM;
  }
  c->ntargets = nurls;
  for (uint32_t i = 0; i < nurls; i++) {
    c->targets[i].c = c;
    int rc = parse_url(urls[i], &c->targets[i]);
    if (rc) {
      if (bad)
        *bad = i;
      gql_gw_client_free(c);
      return rc;
    }
  }
  *out = c;
  return 0;
}

int gql_gw_client_post(gql_gw_client *c, uint32_t graph, const char *headers,
                       const char *body, size_t len, gql_gw_client_cb cb,
                       void *ud) {
  if (graph >= c->ntargets)
    return GQL_EINVAL;
  if (c->aborted)
    return GQL_EIO;
  target *t = &c->targets[graph];
  creq *r = calloc(1, sizeof *r);
  if (!r)
    return GQL_ENOMEM;
  r->cb = cb;
  r->ud = ud;
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_printf(&b,
                 "POST %s HTTP/1.1\r\nHost: %s\r\n"
                 "Content-Type: application/json\r\n"
                 "Accept: application/json\r\n"
                 "%s"
                 "Content-Length: %zu\r\n\r\n",
                 t->path, t->host, headers ? headers : "", len);
  gql_buf_append(&b, body, len);
  if (b.failed) {
    gql_buf_free(&b);
    free(r);
    return GQL_ENOMEM;
  }
  r->data = b.data;
  r->len = b.len;
  if (t->qtail)
    t->qtail->next = r;
  else
    t->qhead = r;
  t->qtail = r;
  dispatch(t);
  return 0;
}

void gql_gw_client_close(gql_gw_client *c) {
  c->closing = true;
  for (uint32_t i = 0; i < c->ntargets; i++)
    while (c->targets[i].idle)
      conn_close(c->targets[i].idle, NULL);
}

void gql_gw_client_abort(gql_gw_client *c, const char *why) {
  c->closing = c->aborted = true;
  for (uint32_t i = 0; i < c->ntargets; i++) {
    target *t = &c->targets[i];
    while (t->qhead) { /* not sent yet (their callbacks may post more) */
      creq *r = t->qhead;
      t->qhead = r->next;
      if (!t->qhead)
        t->qtail = NULL;
      r->cb(r->ud, GQL_EIO, why, NULL, 0);
      req_free(r);
    }
  }
  /* closing frees nothing before the loop's next turn: the list holds */
  for (conn *k = c->conns; k; k = k->next)
    conn_close(k, why);
}

bool gql_gw_client_closed(const gql_gw_client *c) {
  if (!c->closing || c->live)
    return false;
  for (uint32_t i = 0; i < c->ntargets; i++)
    if (c->targets[i].qhead)
      return false;
  return true;
}

void gql_gw_client_free(gql_gw_client *c) {
  if (!c)
    return;
  for (uint32_t i = 0; i < c->ntargets; i++) {
    free(c->targets[i].path);
    free(c->targets[i].host);
  }
  free(c->targets);
  free(c);
}

uint64_t gql_gw_client_connects(const gql_gw_client *c) {
  return c->connects;
}
