/* The gateway's subscription relay on libuv (see subscribe.h). */
#include "gateway/subscribe.h"
#include "gateway/client.h"

#include "gateway/sse_client.h"
#include "gateway/ws_client.h"
#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct gw_event {
  struct gw_event *next;
  size_t len;
  char json[];
} gw_event;

typedef struct gw_sub {
  gql_gw_sub_params p;
  uv_loop_t *loop;
  bool sse;         /* the subgraph's protocol: graphql-sse, else graphql-ws */
  gql_gw_wsc wsc;   /* with !sse */
  gql_gw_ssec ssec; /* with sse */
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_connect_t creq;
  uv_write_t wreq;
  uv_getaddrinfo_t gai;
  struct sockaddr_storage addr;
  http_buf wbuf; /* the bytes being written */
  gql_str graph; /* the subgraph's name, for errors */
  char host[280], port[8];
  char *path;
  gw_event *qhead, *qtail;
  uint32_t nqueued;
  uint64_t dropped;
  gql_arena *ev_arena; /* the event being resolved */
  char *final;         /* the client's last payload (an error), or NULL */
  size_t final_len;
  unsigned handles; /* open: tcp, timer */
  bool resolving, tcp_open, writing, busy, pumping;
  bool cancelled;      /* the client went */
  bool upstream_ended; /* the subgraph's side is over */
  bool answered;       /* the client's request was ended */
  bool lingered;       /* the last write is given a second */
  bool freed;
} gw_sub;

static void sub_check(gw_sub *s);
static void pump(gw_sub *s);
static void on_linger(uv_timer_t *t);

/* ------------------------------------------------- the protocol machine */

/* The subgraph's side is one of two pure machines (ws_client.c,
 * sse_client.c) with the same shape: bytes in, bytes out, event and end
 * through the same handler functions; these pick the one in use. */

static bool up_ended(const gw_sub *s) {
  return s->sse ? s->ssec.state == GQL_GW_SSEC_ENDED
                : s->wsc.state == GQL_GW_WSC_ENDED;
}

static bool up_running(const gw_sub *s) {
  return s->sse ? s->ssec.state == GQL_GW_SSEC_RUNNING
                : s->wsc.state == GQL_GW_WSC_RUNNING;
}

static void up_fail(gw_sub *s, const char *why) {
  if (s->sse)
    gql_gw_ssec_fail(&s->ssec, why);
  else
    gql_gw_wsc_fail(&s->wsc, why);
}

static http_buf *up_out(gw_sub *s) {
  return s->sse ? &s->ssec.out : &s->wsc.out;
}

static void up_free(gw_sub *s) {
  if (s->sse)
    gql_gw_ssec_free(&s->ssec);
  else
    gql_gw_wsc_free(&s->wsc);
}

/* ------------------------------------------------------------ the end */

static void sub_free(gw_sub *s) {
  s->freed = true;
  while (s->qhead) {
    gw_event *e = s->qhead;
    s->qhead = e->next;
    free(e);
  }
  up_free(s);
  http_buf_free(&s->wbuf);
  gql_gw_plan_cache_release(s->p.plan_ref);
  s->p.host.release(s->p.host.ud);
  free(s->final);
  free(s->path);
  free(s);
}

static void on_closed(uv_handle_t *h) {
  gw_sub *s = h->data;
  s->handles--;
  sub_check(s);
}

static void close_socket(gw_sub *s) {
  if (s->tcp_open && !uv_is_closing((uv_handle_t *)&s->tcp))
    uv_close((uv_handle_t *)&s->tcp, on_closed);
}

/* Frees the relay once nothing refers to it: the client's request ended,
 * no event resolving, the handles closed. */
static void sub_check(gw_sub *s) {
  if (s->freed || !s->answered || s->busy)
    return;
  if (s->writing && !s->lingered) { /* `complete` and the close frame */
    s->lingered = true;
    uv_timer_start(&s->timer, on_linger, 1000, 0);
    return;
  }
  if (!uv_is_closing((uv_handle_t *)&s->timer))
    uv_close((uv_handle_t *)&s->timer, on_closed);
  close_socket(s);
  if (!s->handles && !s->resolving)
    sub_free(s);
}

/* The last bytes to the subgraph did not go out in time. */
static void on_linger(uv_timer_t *t) {
  gw_sub *s = t->data;
  s->writing = false; /* closing the socket cancels the write */
  sub_check(s);
}

/* Ends the client's request: with the last payload (an error), or none. */
static void answer(gw_sub *s) {
  if (s->answered)
    return;
  s->answered = true;
  gql_http_exec_payload(s->p.req, s->final, s->final_len, false);
  sub_check(s);
}

/* The end of the subgraph's side: `why` NULL when it completed; `errors`
 * its errors array when it sent one. */
static void set_final(gw_sub *s, const char *why, const char *errors,
                      size_t len) {
  s->upstream_ended = true;
  if (!why || s->final)
    return;
  gql_buf b;
  gql_buf_init(&b, NULL);
  if (errors) {
    gql_buf_puts(&b, "{\"errors\":");
    gql_buf_append(&b, errors, len);
    gql_buf_putc(&b, '}');
  } else {
    char m[300];
    snprintf(m, sizeof m, "Subscription from subgraph %.*s ended: %s",
             (int)s->graph.len, s->graph.ptr, why);
    gql_buf_puts(&b, "{\"errors\":[{\"message\":");
    gql_json_write_string(&b, gql_cstr(m));
    gql_buf_puts(&b, ",\"extensions\":{\"code\":\"SUBREQUEST_HTTP_ERROR\","
                     "\"service\":");
    gql_json_write_string(&b, s->graph);
    gql_buf_puts(&b, "}}]}");
  }
  if (!b.failed) {
    s->final = b.data; /* taken */
    s->final_len = b.len;
  } else {
    gql_buf_free(&b);
  }
}

/* ------------------------------------------------------------ the socket */

static void flush(gw_sub *s);

static void on_write(uv_write_t *w, int status) {
  gw_sub *s = w->data;
  s->writing = false;
  s->wbuf.o.len = 0;
  if (status < 0) {
    up_fail(s, "the subgraph connection was lost");
    close_socket(s);
    sub_check(s);
    return;
  }
  flush(s);
  if (!s->writing)
    sub_check(s);
}

/* Writes what the client machine produced; once it has ended and all is
 * out, the socket closes. */
static void flush(gw_sub *s) {
  if (!s->tcp_open || uv_is_closing((uv_handle_t *)&s->tcp) || s->writing)
    return;
  http_buf *out = up_out(s);
  if (out->o.len) {
    http_buf t = s->wbuf; /* swap: the machine appends to an empty one */
    s->wbuf = *out;
    *out = t;
    out->o.len = 0;
    if (!s->sse)
      s->wsc.ws.inflight = s->wbuf.o.len;
    uv_buf_t b = uv_buf_init(s->wbuf.o.data, (unsigned)s->wbuf.o.len);
    s->wreq.data = s;
    if (uv_write(&s->wreq, (uv_stream_t *)&s->tcp, &b, 1, on_write) == 0) {
      s->writing = true;
      return;
    }
    up_fail(s, "the subgraph connection was lost");
  }
  if (!s->sse)
    s->wsc.ws.inflight = 0;
  if (up_ended(s))
    close_socket(s);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)h;
  size_t n = suggested < 65536 ? suggested : 65536;
  buf->base = malloc(n);
  buf->len = buf->base ? n : 0;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf) {
  gw_sub *s = st->data;
  if (n > 0 && s->sse)
    gql_gw_ssec_feed(&s->ssec, buf->base, (size_t)n);
  else if (n > 0)
    gql_gw_wsc_feed(&s->wsc, buf->base, (size_t)n);
  free(buf->base);
  if (n < 0) {
    if (n == UV_EOF && s->sse)
      gql_gw_ssec_eof(&s->ssec); /* complete only at the stream's end */
    else
      up_fail(s, n == UV_EOF ? "the subgraph closed the connection"
                             : "the subgraph connection was lost");
    close_socket(s);
    return;
  }
  flush(s);
}

static void on_connect(uv_connect_t *c, int status) {
  gw_sub *s = c->data;
  if (status < 0) {
    char m[120];
    snprintf(m, sizeof m, "cannot connect (%s)", uv_strerror(status));
    up_fail(s, m);
    close_socket(s);
    return;
  }
  if (up_ended(s)) { /* cancelled meanwhile */
    close_socket(s);
    return;
  }
  if (s->sse) { /* no pings over SSE: TCP's keep-alive notices a dead peer */
    uint32_t ms = s->p.ping_interval_ms ? s->p.ping_interval_ms : 12000;
    uv_tcp_keepalive(&s->tcp, 1, ms < 1000 ? 1 : ms / 1000);
  }
  uv_read_start((uv_stream_t *)&s->tcp, on_alloc, on_read);
  flush(s); /* the upgrade request, or the SSE request */
}

static void connect_to(gw_sub *s, const struct sockaddr *addr) {
  if (uv_tcp_init(s->loop, &s->tcp) < 0) {
    up_fail(s, "cannot make a socket");
    return;
  }
  s->tcp.data = s;
  s->tcp_open = true;
  s->handles++;
  s->creq.data = s;
  int rc = uv_tcp_connect(&s->creq, &s->tcp, addr, on_connect);
  if (rc < 0) {
    char m[120];
    snprintf(m, sizeof m, "cannot connect (%s)", uv_strerror(rc));
    up_fail(s, m);
    close_socket(s);
  }
}

static void on_resolved(uv_getaddrinfo_t *g, int status, struct addrinfo *ai) {
  gw_sub *s = g->data;
  s->resolving = false;
  if (up_ended(s)) {
    uv_freeaddrinfo(ai);
    sub_check(s);
    return;
  }
  if (status < 0 || !ai)
    up_fail(s, "cannot resolve its host");
  else
    connect_to(s, ai->ai_addr);
  uv_freeaddrinfo(ai);
}

/* Deadlines: the upgrade to connection_ack (SSE: the request to the
 * event stream's head) within ack_timeout_ms after connect_timeout_ms to
 * connect; then over WebSocket keep-alive pings. An SSE stream may be
 * quiet for any time (gql serve sends nothing between events): TCP's
 * keep-alive (on_connect) notices a peer that is gone. */
static void on_timer(uv_timer_t *t) {
  gw_sub *s = t->data;
  if (up_ended(s))
    return;
  if (!up_running(s)) {
    up_fail(s,
            s->sse ? "no event stream in time" : "no connection_ack in time");
    close_socket(s);
    return;
  }
  if (s->sse)
    return;
  if (!gql_gw_wsc_keepalive(&s->wsc)) {
    close_socket(s);
    return;
  }
  flush(s);
  uint32_t ms = s->p.ping_interval_ms ? s->p.ping_interval_ms : 12000;
  uv_timer_start(&s->timer, on_timer, ms, 0);
}

/* ------------------------------------------------------------ events */

/* One event's response is ready. */
static void event_done(void *ud, const char *json, size_t len) {
  gw_sub *s = ud;
  if (!s->cancelled && !s->answered) {
    static const char oom[] = "{\"errors\":[{\"message\":\"Out of memory.\"}]}";
    if (json)
      gql_http_exec_payload(s->p.req, json, len, true);
    else
      gql_http_exec_payload(s->p.req, oom, sizeof oom - 1, true);
  }
  gql_arena_free(s->ev_arena);
  s->ev_arena = NULL;
  s->busy = false;
  if (!s->pumping)
    pump(s);
}

/* Resolves one event: its fields of other subgraphs along the plan. */
static void resolve(gw_sub *s, gw_event *ev) {
  s->ev_arena = gql_arena_new(NULL);
  gql_http_exec *x =
      s->ev_arena ? gql_arena_alloc(s->ev_arena, sizeof *x) : NULL;
  char *json = x ? gql_arena_alloc(s->ev_arena, ev->len + 1) : NULL;
  s->busy = true;
  if (!json) {
    event_done(s, NULL, 0);
    return;
  }
  memcpy(json, ev->json, ev->len);
  json[ev->len] = 0;
  *x = *s->p.req; /* the client's request, for its headers and claims */
  x->arena = s->ev_arena;
  x->trace = NULL;
  int rc = s->p.host.run_event(s->p.host.ud, x, s->p.plan, s->p.variables, json,
                               ev->len, event_done, s);
  if (rc < 0)
    event_done(s, NULL, 0);
}

/* Delivers the queued events in order, one at a time; once the subgraph
 * has ended and all are out (or the client went), ends the request. */
static void pump(gw_sub *s) {
  s->pumping = true;
  while (!s->busy && s->qhead && !s->cancelled) {
    gw_event *ev = s->qhead;
    s->qhead = ev->next;
    if (!s->qhead)
      s->qtail = NULL;
    s->nqueued--;
    resolve(s, ev);
    free(ev);
  }
  s->pumping = false;
  if (!s->busy && (s->cancelled || (s->upstream_ended && !s->qhead)))
    answer(s);
}

static void w_event(void *ud, const char *json, size_t len) {
  gw_sub *s = ud;
  if (s->cancelled)
    return;
  uint32_t cap = s->p.queue_capacity ? s->p.queue_capacity : 64;
  if (s->nqueued >= cap) { /* a slow client: the oldest goes */
    gw_event *old = s->qhead;
    s->qhead = old->next;
    if (!s->qhead)
      s->qtail = NULL;
    s->nqueued--;
    s->dropped++;
    free(old);
  }
  gw_event *ev = malloc(sizeof *ev + len);
  if (!ev) {
    s->dropped++;
    return;
  }
  ev->next = NULL;
  ev->len = len;
  memcpy(ev->json, json, len);
  if (s->qtail)
    s->qtail->next = ev;
  else
    s->qhead = ev;
  s->qtail = ev;
  s->nqueued++;
  if (!s->pumping)
    pump(s);
}

static void w_end(void *ud, const char *why, const char *errors, size_t len) {
  gw_sub *s = ud;
  set_final(s, why, errors, len);
  uv_timer_stop(&s->timer);
  if (!s->pumping)
    pump(s);
}

static const gql_gw_wsc_handler wsc_handler = {w_event, w_end};
static const gql_gw_ssec_handler ssec_handler = {w_event, w_end};

/* The client's `complete`, or its socket closed. */
static void on_cancel(void *ud) {
  gw_sub *s = ud;
  s->cancelled = true;
  while (s->qhead) {
    gw_event *e = s->qhead;
    s->qhead = e->next;
    free(e);
  }
  s->qtail = NULL;
  s->nqueued = 0;
  if (s->sse) { /* closing the connection aborts the request */
    gql_gw_ssec_complete(&s->ssec);
    s->writing = false; /* nothing of the request is worth finishing */
  } else {
    gql_gw_wsc_complete(&s->wsc); /* `complete` and a close frame */
  }
  flush(s);
  if (!s->pumping)
    pump(s);
}

/* ------------------------------------------------------------ start */

/* ws://HOST[:PORT]/PATH from the subgraph's http://HOST[:PORT]/PATH (the
 * path replaced by `path` when set). */
static int parse_url(gw_sub *s, gql_str url, const char *path) {
  gql_gw_url u;
  if (gql_gw_url_split(url, true, &u) < 0)
    return GQL_EINVAL;
  char name[256];
  memcpy(name, u.host.ptr, u.host.len);
  name[u.host.len] = 0;
  int port = u.port;
  snprintf(s->host, sizeof s->host, "%.*s", (int)u.host_port.len,
           u.host_port.ptr);
  snprintf(s->port, sizeof s->port, "%d", port);
  const char *p = path ? path : u.path.ptr;
  size_t plen = path ? strlen(path) : u.path.len;
  s->path = malloc(plen + 2);
  if (!s->path)
    return GQL_ENOMEM;
  memcpy(s->path, plen ? p : "/", plen ? plen : 1);
  s->path[plen ? plen : 1] = 0;
  if (memchr(s->path, '\r', plen) || memchr(s->path, '\n', plen) ||
      strchr(s->path, ' '))
    return GQL_EINVAL;
  if (uv_ip4_addr(name, port, (struct sockaddr_in *)&s->addr) == 0 ||
      uv_ip6_addr(name, port, (struct sockaddr_in6 *)&s->addr) == 0)
    return 0;
  s->addr.ss_family = AF_UNSPEC; /* a name: resolved */
  return 0;
}

/* The plan's first batch is the subscription: one root fetch alone in the
 * first wave; the rest are entity fetches after it. */
static bool plan_fits(const gql_gw_plan *plan) {
  if (!plan->nbatches || plan->introspection.len)
    return false;
  const gql_gw_batch *b = &plan->batches[0];
  if (b->level != 1 || b->nfetches != 1 || b->fetches[0]->parent ||
      b->fetches[0]->type_name.len)
    return false;
  return plan->nbatches == 1 || plan->batches[1].level > 1;
}

int gql_gw_subscribe(const gql_gw_sub_params *p, const char **why) {
  *why = NULL;
  if (!plan_fits(p->plan)) {
    *why = "the subscription's root field is not one subgraph's root fetch";
    return GQL_EUNSUPPORTED;
  }
  gql_gw_request *gr;
  int rc = gql_gw_request_new(p->plan, p->variables, p->req->arena, &gr);
  gql_buf body;
  gql_buf_init(&body, NULL);
  if (!rc)
    rc = gql_gw_request_body(gr, 0, &body) < 0 || body.failed ? GQL_ENOMEM : 0;
  gw_sub *s = rc ? NULL : calloc(1, sizeof *s);
  if (!s) {
    gql_buf_free(&body);
    return GQL_ENOMEM;
  }
  s->p = *p;
  s->loop = p->req->loop;
  uint32_t graph = p->plan->batches[0].graph;
  s->graph = p->sg->graphs[graph].name;
  s->sse = p->sse;
  rc = parse_url(s, p->sg->graphs[graph].url, p->path);
  if (!rc && s->sse)
    rc = gql_gw_ssec_init(&s->ssec, &ssec_handler, s, s->host, s->path,
                          p->headers, body.data, body.len, p->max_event);
  else if (!rc)
    rc = gql_gw_wsc_init(&s->wsc, p->pool, &wsc_handler, s, s->host, s->path,
                         p->headers, body.data, body.len);
  gql_buf_free(&body);
  if (rc) {
    *why = rc == GQL_EINVAL
               ? "the subgraph's URL is not http://HOST[:PORT]/PATH"
               : NULL;
    up_free(s);
    free(s->path);
    free(s);
    return rc;
  }
  uv_timer_init(s->loop, &s->timer);
  s->timer.data = s;
  s->handles++;
  uint32_t ct = p->connect_timeout_ms ? p->connect_timeout_ms : 2000;
  uint32_t at = p->ack_timeout_ms ? p->ack_timeout_ms : 10000;
  uv_timer_start(&s->timer, on_timer, (uint64_t)ct + at, 0);
  gql_http_exec_on_cancel(p->req, on_cancel, s);
  if (s->addr.ss_family != AF_UNSPEC) {
    connect_to(s, (const struct sockaddr *)&s->addr);
  } else {
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM};
    char name[256];
    const char *colon = strchr(s->host, ':');
    snprintf(name, sizeof name, "%.*s",
             (int)(colon ? (size_t)(colon - s->host) : strlen(s->host)),
             s->host);
    s->gai.data = s;
    s->resolving = true;
    if (uv_getaddrinfo(s->loop, &s->gai, on_resolved, name, s->port, &hints) <
        0) {
      s->resolving = false;
      up_fail(s, "cannot resolve its host");
    }
  }
  return 0;
}
