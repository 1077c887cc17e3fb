/* The libuv transport: one loop per worker thread, each with its own
 * listening socket on the same address (SO_REUSEPORT: the kernel spreads
 * connections), one timer per connection for the idle and request timeouts
 * (a request's bytes must all arrive within request_timeout_ms of its first
 * byte: no slowloris), backpressure when a client does not read, and a
 * graceful stop. */
#include "http.h"
#include "sse_single.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct worker worker;

/* A connection's or a listener's handle: TCP, or a Unix socket
 * (gql_http_options.unix_path). Cast to uv_stream_t / uv_handle_t. */
typedef union sock {
  uv_tcp_t tcp;
  uv_pipe_t pipe;
  uv_handle_t handle;
} sock;

/* The document caches' hash seed, drawn per server, so that colliding
 * documents cannot be prepared in advance against a running server. */
static uint64_t random_seed(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)ts.tv_sec;
  }
  return s | 1;
}

struct gql_http_server {
  gql_schema *schema;
  gql_http_options opt;
  unsigned nworkers;
  worker *workers;
  int port;
  int unix_fd;     /* the first worker's Unix socket (the others dup it) */
  bool unix_bound; /* we made the socket file: removed at the end */
  bool started;
  atomic_bool stop_requested;
  atomic_uint nconns;
  _Atomic uint64_t generations; /* published by gql_http_server_swap */
  atomic_uint nsubs;            /* subscriptions open over WebSocket */
  gql_http_sse *sse;            /* graphql-sse's reservations */
};

struct worker {
  gql_http_server *srv;
  gql_http_ctx x;
  uv_loop_t loop;
  sock listener;
  uv_async_t stop_async;
  uv_async_t gen_async; /* a generation was published (unreferenced) */
  /* WebSocket connections woken (x->ws_wake), settled together on the next
   * loop turn by one timer (unreferenced): an event fanned out to 10,000
   * subscribers is one timer, not 10,000. */
  uv_timer_t wake_timer;
  struct tconn *woken;
  /* A stop's deadline (opt.shutdown_timeout_ms; unreferenced: the loop
   * ends before it once every connection is closed). */
  uv_timer_t stop_timer;
  uv_thread_t thread;
  bool thread_started;
  struct tconn *conns; /* every open connection, for the stop */
  char read_buf[64 * 1024];
  bool read_buf_busy;
};

enum timer_mode { T_NONE, T_IDLE, T_REQUEST, T_RESUME, T_DRAIN, T_WS };

typedef struct tconn {
  gql_http_conn c;
  worker *w;
  sock tcp;
  uv_timer_t timer;
  http_buf wbuf; /* bytes being written */
  bool writing, reading, tcp_closed, closing;
  bool eof;      /* the client has finished sending */
  bool counted;  /* told to the observer (connection +1) */
  bool draining; /* closing: write side shut, input read and dropped */
  size_t drained;
  int open_handles;
  enum timer_mode mode;
  uint64_t armed_for;   /* start_ns of the request the T_REQUEST timer is for */
  uint64_t last_active; /* uv_now of the last activity (T_IDLE) */
  uint64_t ws_due;      /* T_WS: when the timer fires (ms; 1: woken) */
  struct tconn *prev, *next;
  struct tconn *wprev, *wnext; /* in w->woken */
  bool woken;
} tconn;

#define OUT_HIGH_WATER (256 * 1024)
/* A lingering close reads and drops at most this much, for at most this long
 * (so that a client still sending, e.g. the body of a refused request, gets
 * our response instead of a reset). */
#define DRAIN_MAX_BYTES (1024 * 1024)
#define DRAIN_MAX_MS 2000

static void conn_close(tconn *t);
static void conn_flush(tconn *t);
static void conn_update(tconn *t);
static void ws_settle(tconn *t);

static void unwake(tconn *t) {
  if (!t->woken)
    return;
  t->woken = false;
  if (t->wprev)
    t->wprev->wnext = t->wnext;
  else
    t->w->woken = t->wnext;
  if (t->wnext)
    t->wnext->wprev = t->wprev;
  t->wprev = t->wnext = NULL;
}

static void conn_free(tconn *t) {
  worker *w = t->w;
  unwake(t);
  if (t->prev)
    t->prev->next = t->next;
  else
    w->conns = t->next;
  if (t->next)
    t->next->prev = t->prev;
  const gql_http_observer *ob = w->srv->opt.observer;
  if (t->counted && ob->connection)
    ob->connection(w->x.obs_worker, -1);
  gql_http_conn_free(&t->c);
  http_buf_free(&t->wbuf);
  atomic_fetch_sub(&w->srv->nconns, 1);
  free(t);
}

static void on_handle_closed(uv_handle_t *h) {
  tconn *t = h->data;
  if (--t->open_handles == 0)
    conn_free(t);
}

/* Closes the socket now; the timer (and so the memory) stays while a
 * pending request still runs, ended by its completion. */
static void conn_close(tconn *t) {
  if (!t->tcp_closed) {
    t->tcp_closed = true;
    t->c.gone = true;
    uv_close((uv_handle_t *)&t->tcp, on_handle_closed);
    if (t->c.streaming) /* mid-stream: the executor's cancel */
      gql_http_stream_gone(&t->c);
  }
  /* a WebSocket's pending executions keep the memory until they finish */
  if (!t->c.inflight && !t->closing &&
      (!t->c.ws || gql_http_ws_gone(t->c.ws))) {
    t->closing = true;
    uv_close((uv_handle_t *)&t->timer, on_handle_closed);
  }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  tconn *t = h->data;
  worker *w = t->w;
  /* One thread: a read gives the buffer back before the next allocation.
   * Release builds refuse the read rather than share the buffer. */
  assert(!w->read_buf_busy);
  if (w->read_buf_busy) {
    buf->base = NULL;
    buf->len = 0;
    return;
  }
  w->read_buf_busy = true;
  buf->base = w->read_buf;
  buf->len = sizeof w->read_buf;
}

static void set_reading(tconn *t, bool on);
static void on_timer(uv_timer_t *h);
static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static void on_shutdown(uv_shutdown_t *req, int status) {
  tconn *t = req->data;
  free(req);
  if (status < 0 && !t->tcp_closed)
    conn_close(t);
}

/* The last response is out and the connection is to close. */
static void conn_linger(tconn *t) {
  if (t->draining || t->tcp_closed)
    return;
  if (t->eof) {
    conn_close(t);
    return;
  }
  t->draining = true;
  /* the requests are made when needed (freed by their callbacks, which
   * libuv calls also when the handle closes): 270 bytes less per idle
   * connection */
  uv_shutdown_t *sr = malloc(sizeof *sr);
  if (sr)
    sr->data = t;
  if (!sr || uv_shutdown(sr, (uv_stream_t *)&t->tcp, on_shutdown) < 0) {
    free(sr);
    conn_close(t);
    return;
  }
  t->mode = T_DRAIN;
  uv_timer_start(&t->timer, on_timer, DRAIN_MAX_MS, 0);
  if (!t->reading &&
      uv_read_start((uv_stream_t *)&t->tcp, on_alloc, on_read) == 0)
    t->reading = true;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  tconn *t = s->data;
  if (buf->base == t->w->read_buf)
    t->w->read_buf_busy = false;
  if (n == 0)
    return;
  if (t->draining) {
    t->drained += n > 0 ? (size_t)n : 0;
    if (n < 0 || t->drained > DRAIN_MAX_BYTES)
      conn_close(t);
    return;
  }
  if (t->c.ws) {
    if (n < 0) {
      conn_close(t);
      return;
    }
    gql_http_ws_feed(t->c.ws, buf->base, (size_t)n);
    ws_settle(t);
    return;
  }
  if (n < 0 && t->c.streaming) { /* the client left a streamed response */
    conn_close(t);
    return;
  }
  if (n < 0) {
    set_reading(t, false);
    if (n == UV_EOF) {
      t->eof = true;
      gql_http_conn_eof(&t->c);
      t->c.close_after = true;
      if (!t->c.inflight && !t->writing && !t->c.out.o.len) {
        conn_close(t);
        return;
      }
      conn_flush(t);
      return;
    }
    conn_close(t);
    return;
  }
  gql_http_conn_feed(&t->c, buf->base, (size_t)n);
  if (t->c.ws) { /* upgraded */
    ws_settle(t);
    return;
  }
  conn_flush(t);
  conn_update(t);
}

static void set_reading(tconn *t, bool on) {
  if (t->tcp_closed || on == t->reading)
    return;
  if (on && uv_read_start((uv_stream_t *)&t->tcp, on_alloc, on_read) < 0) {
    conn_close(t);
    return;
  }
  if (!on)
    uv_read_stop((uv_stream_t *)&t->tcp);
  t->reading = on;
}

/* The write buffer is empty again. When no output waits, c.out takes it
 * back (the larger of the two): a connection answering one response at a
 * time then keeps one buffer the size of its responses, not two (50
 * keep-alive connections with 87 KB answers kept 2 x 128 KiB each), and
 * nothing is freed and regrown per response. */
static void wbuf_done(tconn *t) {
  t->wbuf.o.len = 0;
  if (!t->c.out.o.len && !t->c.out.failed && t->wbuf.o.cap > t->c.out.o.cap) {
    http_buf tmp = t->c.out;
    t->c.out = t->wbuf;
    t->wbuf = tmp;
  }
}

static void on_write(uv_write_t *req, int status) {
  tconn *t = req->data;
  free(req);
  t->writing = false;
  t->c.out_inflight = 0;
  wbuf_done(t);
  if (t->tcp_closed) {
    if (!t->c.inflight && !t->closing)
      conn_close(t);
    return;
  }
  if (status < 0) {
    conn_close(t);
    return;
  }
  gql_http_conn_resume(&t->c); /* input held back while output piled up */
  conn_flush(t);
  conn_update(t);
}

/* Writes what c.out holds (one write at a time: the buffers swap). */
static void conn_flush(tconn *t) {
  if (t->tcp_closed)
    return;
  if (t->c.out.failed) {
    conn_close(t);
    return;
  }
  while (!t->writing && t->c.out.o.len) {
    http_buf tmp = t->wbuf;
    t->wbuf = t->c.out;
    t->c.out = tmp;
    t->c.out.o.len = 0;
    /* Usually the socket takes it all at once: no write request, so libuv
     * neither arms nor disarms the watcher (an epoll_ctl per response). */
    int n = uv_try_write(
        (uv_stream_t *)&t->tcp,
        &(uv_buf_t){.base = t->wbuf.o.data, .len = t->wbuf.o.len}, 1);
    if (n == UV_EAGAIN)
      n = 0;
    if (n < 0) {
      conn_close(t);
      return;
    }
    if ((size_t)n == t->wbuf.o.len) {
      wbuf_done(t);
      gql_http_conn_resume(&t->c); /* may answer held-back requests */
      if (t->c.out.failed) {
        conn_close(t);
        return;
      }
      continue;
    }
    uv_buf_t b = uv_buf_init(t->wbuf.o.data + n, (unsigned)(t->wbuf.o.len - n));
    uv_write_t *wr = malloc(sizeof *wr);
    if (wr)
      wr->data = t;
    if (!wr || uv_write(wr, (uv_stream_t *)&t->tcp, &b, 1, on_write) < 0) {
      free(wr);
      conn_close(t);
      return;
    }
    t->writing = true;
    t->c.out_inflight = b.len;
  }
  if (!t->writing && !t->c.out.o.len && t->c.close_after && !t->c.inflight)
    conn_linger(t);
}

static void on_timer(uv_timer_t *h) {
  tconn *t = h->data;
  if (t->mode == T_WS) {
    t->ws_due = 0;
    if (t->tcp_closed) { /* a pending execution finished */
      conn_close(t);
      return;
    }
    ws_settle(t);
    return;
  }
  if (t->mode == T_DRAIN) {
    conn_close(t);
    return;
  }
  if (t->mode == T_RESUME) {
    gql_http_request *r = t->c.inflight;
    t->c.inflight = NULL;
    t->mode = T_NONE;
    if (r)
      gql_http_request_end(r);
    if (t->tcp_closed) {
      conn_close(t);
      return;
    }
    gql_http_conn_resume(&t->c);
    conn_flush(t);
    conn_update(t);
    return;
  }
  if (t->mode == T_IDLE) {
    uint64_t idle = uv_now(&t->w->loop) - t->last_active;
    uint64_t limit = HTTP_LIVE(t->w->x.opt, idle_timeout_ms);
    if (idle < limit) {
      uv_timer_start(&t->timer, on_timer, limit - idle, 0);
      return;
    }
  }
  gql_http_log(t->w->x.opt, GQL_HTTP_LOG_DEBUG,
               "connection %s timed out (reading %d, writing %d, %zu bytes "
               "in, %zu out)",
               t->mode == T_IDLE ? "idle" : "request", t->reading, t->writing,
               t->c.in.o.len, t->c.out.o.len);
  conn_close(t);
}

/* A WebSocket connection (subscriptions.c): reading unless its output
 * piles up. */
static void ws_update(tconn *t) {
  gql_http_conn *c = &t->c;
  set_reading(t, !c->close_after &&
                     !(t->writing && c->out.o.len > OUT_HIGH_WATER));
}

/* Runs the connection's due work (the protocol's timeouts, keep-alive
 * pings, finished executions), writes what it produced, and sets the
 * timer at the next due work. */
static void ws_settle(tconn *t) {
  uint64_t now = uv_now(&t->w->loop);
  uint64_t due = gql_http_ws_tick(t->c.ws, now);
  int st = gql_http_ws_state(t->c.ws);
  if (st == 2) {
    conn_close(t);
    return;
  }
  if (st == 1)
    t->c.close_after = true; /* then lingers once the close frame is out */
  conn_flush(t);
  if (!t->writing && !t->c.out.o.len) {
    /* all written: an idle subscriber keeps no output buffer (the next
     * event's frames take one from the allocator's cache) */
    http_buf_free(&t->c.out);
    http_buf_free(&t->wbuf);
  }
  conn_update(t);
  if (t->tcp_closed || t->draining || t->closing)
    return;
  if (t->mode == T_WS && t->ws_due && t->ws_due <= due)
    return;
  t->mode = T_WS;
  t->ws_due = due;
  uv_timer_start(&t->timer, on_timer, due > now ? due - now : 0, 0);
}

/* The woken connections' turn: each settles (writes its output). */
static void on_wake(uv_timer_t *h) {
  worker *w = h->data;
  while (w->woken) {
    tconn *t = w->woken;
    unwake(t);
    if (t->closing)
      continue;
    if (t->tcp_closed) /* a pending execution finished */
      conn_close(t);
    else
      ws_settle(t);
  }
}

/* x->ws_wake: output or finished work, handled on the next loop turn. */
static void ws_wake(gql_http_conn *c) {
  tconn *t = http_container_of(c, tconn, c);
  worker *w = t->w;
  if (t->closing || t->woken)
    return;
  if (!w->woken)
    uv_timer_start(&w->wake_timer, on_wake, 0, 0);
  t->woken = true;
  t->wprev = NULL;
  t->wnext = w->woken;
  if (w->woken)
    w->woken->wprev = t;
  w->woken = t;
}

/* Reading and the timer follow the connection's state. */
static void conn_update(tconn *t) {
  if (t->tcp_closed || t->closing || t->draining)
    return;
  gql_http_conn *c = &t->c;
  if (c->ws) {
    ws_update(t);
    return;
  }
  if (c->streaming)
    gql_http_stream_writable(c);
  bool backlog = (t->writing && c->out.o.len > OUT_HIGH_WATER) || c->in.o.len;
  /* a streamed response reads on: its client leaving cancels it */
  set_reading(t, (!c->inflight || c->streaming) && !c->close_after && !backlog);
  if (t->tcp_closed || t->mode == T_RESUME)
    return;
  const gql_http_options *o = t->w->x.opt;
  if (c->inflight) {
    uv_timer_stop(&t->timer);
    t->mode = T_NONE;
  } else if (c->in_request) {
    if (t->mode != T_REQUEST || t->armed_for != c->start_ns) {
      uint64_t elapsed = (gql_http_now_ns() - c->start_ns) / 1000000;
      uint64_t limit = HTTP_LIVE(o, request_timeout_ms);
      uint64_t left = elapsed >= limit ? 1 : limit - elapsed;
      uv_timer_start(&t->timer, on_timer, left, 0);
      t->mode = T_REQUEST;
      t->armed_for = c->start_ns;
    }
  } else {
    /* Busy connections touch a timestamp; the timer, armed once, checks it
     * when it fires (no timer-heap work per request). */
    t->last_active = uv_now(&t->w->loop);
    if (t->mode != T_IDLE) {
      uv_timer_start(&t->timer, on_timer, HTTP_LIVE(o, idle_timeout_ms), 0);
      t->mode = T_IDLE;
    }
  }
}

/* x->peer: the connection's client as "IP:PORT" (a call per use). */
static bool conn_peer(gql_http_conn *c, char *buf, size_t n) {
  tconn *t = http_container_of(c, tconn, c);
  struct sockaddr_storage ss;
  int len = sizeof ss;
  if (t->tcp_closed || t->w->srv->opt.unix_path ||
      uv_tcp_getpeername(&t->tcp.tcp, (struct sockaddr *)&ss, &len) < 0)
    return false;
  char ip[INET6_ADDRSTRLEN];
  if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
    uv_ip6_name(a, ip, sizeof ip);
    snprintf(buf, n, "[%s]:%u", ip, ntohs(a->sin6_port));
  } else if (ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
    uv_ip4_name(a, ip, sizeof ip);
    snprintf(buf, n, "%s:%u", ip, ntohs(a->sin_port));
  } else {
    return false;
  }
  return true;
}

/* x->flush: a streamed response's payload, out now. */
static void conn_stream_flush(gql_http_conn *c) {
  tconn *t = http_container_of(c, tconn, c);
  conn_flush(t);
  conn_update(t);
}

/* x->resumed: a pending request wrote its response; end it on the next
 * loop turn, once the executor has returned. */
static void conn_resumed(gql_http_conn *c) {
  tconn *t = http_container_of(c, tconn, c);
  t->mode = T_RESUME;
  uv_timer_start(&t->timer, on_timer, 0, 0);
}

/* The client's address for the observer: "1.2.3.4:5" or "[::1]:5" (""
 * on a unix socket). */
static void peer_name(tconn *t) {
  if (!conn_peer(&t->c, t->c.peer, sizeof t->c.peer))
    t->c.peer[0] = 0;
}

static void on_connection(uv_stream_t *server, int status) {
  worker *w = server->data;
  if (status < 0)
    return;
  tconn *t = calloc(1, sizeof *t);
  if (!t) {
    uv_tcp_t tmp; /* accept and drop: nothing else to do */
    (void)tmp;
    return;
  }
  t->w = w;
  gql_http_conn_init(&t->c, &w->x);
  if (w->srv->opt.unix_path)
    uv_pipe_init(&w->loop, &t->tcp.pipe, 0);
  else
    uv_tcp_init(&w->loop, &t->tcp.tcp);
  uv_timer_init(&w->loop, &t->timer);
  t->tcp.handle.data = t->timer.data = t;
  t->open_handles = 2;
  t->next = w->conns;
  if (w->conns)
    w->conns->prev = t;
  w->conns = t;
  unsigned n = atomic_fetch_add(&w->srv->nconns, 1) + 1;
  if (uv_accept(server, (uv_stream_t *)&t->tcp) < 0) {
    conn_close(t);
    return;
  }
  if (n > w->srv->opt.max_connections || w->x.stopping) {
    gql_http_log(w->x.opt, GQL_HTTP_LOG_WARN,
                 "connection refused: %u connections open", n - 1);
    conn_close(t);
    return;
  }
  if (!w->srv->opt.unix_path)
    uv_tcp_nodelay(&t->tcp.tcp, 1);
  const gql_http_observer *ob = w->srv->opt.observer;
  if (ob) {
    peer_name(t);
    t->counted = true;
    if (ob->connection)
      ob->connection(w->x.obs_worker, +1);
  }
  gql_http_log(w->x.opt, GQL_HTTP_LOG_DEBUG, "connection accepted (%u open)",
               n);
  conn_update(t);
}

/* The stop's deadline: the connections still open (a response still
 * running or not read, a stream, a WebSocket peer that did not answer its
 * close) are closed now; their executions end as a client's going does. */
static void on_stop_deadline(uv_timer_t *h) {
  worker *w = h->data;
  unsigned n = 0;
  for (tconn *t = w->conns; t; t = t->next)
    n += !t->tcp_closed;
  if (n)
    gql_http_log(w->x.opt, GQL_HTTP_LOG_WARN,
                 "stop: closing %u connection%s still open after %u ms "
                 "(server.shutdown_timeout)",
                 n, n == 1 ? "" : "s",
                 HTTP_LIVE(&w->srv->opt, shutdown_timeout_ms));
  for (tconn *t = w->conns, *next; t; t = next) {
    next = t->next;
    if (!t->tcp_closed)
      conn_close(t);
  }
  const gql_http_executor *ex = w->srv->opt.executor;
  if (ex && ex->worker_deadline && w->x.exec_worker)
    ex->worker_deadline(w->x.exec_worker);
}

static void on_stop(uv_async_t *a) {
  worker *w = a->data;
  w->x.stopping = true;
  uv_timer_start(&w->stop_timer, on_stop_deadline,
                 HTTP_LIVE(&w->srv->opt, shutdown_timeout_ms), 0);
  const gql_http_executor *ex = w->srv->opt.executor;
  if (ex && ex->worker_stop && w->x.exec_worker)
    ex->worker_stop(w->x.exec_worker);
  gql_http_documents_stop(&w->x);
  if (!uv_is_closing((uv_handle_t *)&w->listener))
    uv_close((uv_handle_t *)&w->listener, NULL);
  uv_close((uv_handle_t *)&w->stop_async, NULL);
  /* the graphql-sse operations run here (`complete` for a stream here
   * goes out with its end) */
  gql_http_sse_worker_stop(&w->x);
  /* Idle connections close now; the others once their response is out
   * (it says Connection: close), and a request still arriving gets
   * request_timeout_ms to finish. */
  for (tconn *t = w->conns, *next; t; t = next) {
    next = t->next;
    if (t->c.ws && !t->tcp_closed) { /* close frame 1001 */
      gql_http_ws_going_away(t->c.ws);
      ws_settle(t);
      continue;
    }
    if (t->c.streaming && !t->tcp_closed) /* a subscription completes */
      gql_http_stream_going_away(&t->c);
    if (t->c.inflight || t->c.in_request || t->tcp_closed)
      continue;
    t->c.close_after = true;
    if (!t->writing && !t->c.out.o.len)
      conn_close(t);
  }
  /* after the sockets: closing them cancelled their subscriptions */
  const gql_http_service *sv = w->srv->opt.service;
  if (sv && sv->worker_stop && w->x.svc_worker)
    sv->worker_stop(w->x.svc_worker);
}

/* A generation was published: an idle worker takes it up now (a busy one
 * does at its next request). */
static void on_generation(uv_async_t *a) {
  worker *w = a->data;
  gql_http_gen_poll(&w->x);
}

static void worker_main(void *arg) {
  worker *w = arg;
  uv_run(&w->loop, UV_RUN_DEFAULT);
}

/* host:port as a socket address: a numeric address, else a name resolved
 * once at start (getaddrinfo). */
static int resolve(const char *host, int port, struct sockaddr_storage *ss,
                   socklen_t *sl) {
  memset(ss, 0, sizeof *ss);
  if (uv_ip4_addr(host, port, (struct sockaddr_in *)ss) == 0) {
    *sl = sizeof(struct sockaddr_in);
    return 0;
  }
  if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)ss) == 0) {
    *sl = sizeof(struct sockaddr_in6);
    return 0;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE};
  struct addrinfo *ai = NULL;
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  if (getaddrinfo(host, ps, &hints, &ai) != 0 || !ai)
    return -EINVAL;
  memcpy(ss, ai->ai_addr, ai->ai_addrlen);
  *sl = ai->ai_addrlen;
  freeaddrinfo(ai);
  return 0;
}

/* A listening socket with SO_REUSEPORT (libuv 1.44 has no UV_TCP_REUSEPORT:
 * we make the socket and hand it to uv_tcp_open). With `probe`, a socket
 * without SO_REUSEPORT, bound and closed: it fails when another process
 * already listens there, which SO_REUSEPORT alone would silently share. */
static int listen_socket(const char *host, int port, int *bound_port,
                         bool probe) {
  struct sockaddr_storage ss;
  socklen_t sl;
  int rc = resolve(host, port, &ss, &sl);
  if (rc < 0)
    return rc;
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if ((!probe &&
       setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) ||
      bind(fd, (struct sockaddr *)&ss, sl) < 0) {
    int e = -errno;
    close(fd);
    return e;
  }
  if (probe) {
    close(fd);
    return 0;
  }
  if (bound_port) {
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &gl);
    *bound_port = got.ss_family == AF_INET6
                      ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
                      : ntohs(((struct sockaddr_in *)&got)->sin_port);
  }
  return fd;
}

static void free_hook_worker(gql_http_server *s, worker *w) {
  const gql_http_hooks *hk = s->opt.hooks;
  if (hk && hk->worker_start && hk->worker_free && w->x.hook_worker)
    hk->worker_free(hk->ud, w->x.hook_worker);
  w->x.hook_worker = NULL;
}

/* A worker's state for each hook that keeps one (observer, executor,
 * persisted documents, service), started in that order on its loop; on a
 * failure the ones started are freed and false is returned. */
static bool start_parts(gql_http_server *s, worker *w) {
  const gql_http_observer *ob = s->opt.observer;
  const gql_http_executor *ex = s->opt.executor;
  const gql_http_service *sv = s->opt.service;
  if (ob && ob->worker_start && !(w->x.obs_worker = ob->worker_start(ob->ud)))
    return false;
  if (ex && ex->worker_start &&
      !(w->x.exec_worker = ex->worker_start(ex->ud, &w->loop)))
    goto no_exec;
  if (!gql_http_documents_start(&w->x))
    goto no_documents;
  if (sv && sv->worker_start &&
      !(w->x.svc_worker = sv->worker_start(sv->ud, &w->loop)))
    goto no_service;
  return true;
no_service:
  gql_http_documents_free(&w->x);
no_documents:
  if (ex && ex->worker_free && w->x.exec_worker)
    ex->worker_free(w->x.exec_worker);
  w->x.exec_worker = NULL;
no_exec:
  if (ob && ob->worker_free && w->x.obs_worker)
    ob->worker_free(w->x.obs_worker);
  w->x.obs_worker = NULL;
  return false;
}

/* A Unix stream socket bound at `path`, not yet listening. A socket file
 * left there by a process that is gone is replaced; one a live process
 * answers on, or a file that is no socket, is not. */
static int unix_socket(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof sa.sun_path)
    return -ENAMETOOLONG;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return -EEXIST;
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live =
        probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (probe >= 0)
      close(probe);
    if (live)
      return -EADDRINUSE;
    unlink(path);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    int e = -errno;
    close(fd);
    return e;
  }
  return fd;
}

int gql_http_server_new(gql_schema *schema, const gql_http_options *options,
                        gql_http_server **out) {
  *out = NULL;
  if (!schema)
    return GQL_EINVAL;
  int rc = gql_schema_finalize(schema);
  if (rc < 0)
    return rc;
  gql_http_server *s = calloc(1, sizeof *s);
  if (!s)
    return GQL_ENOMEM;
  s->schema = schema;
  gql_http_options_resolve(options, &s->opt);
  s->nworkers = s->opt.threads ? s->opt.threads : uv_available_parallelism();
  if (s->nworkers == 0)
    s->nworkers = 1;
  if (s->nworkers > 256)
    s->nworkers = 256;
  atomic_init(&s->stop_requested, false);
  atomic_init(&s->nconns, 0);
  atomic_init(&s->generations, 0);
  atomic_init(&s->nsubs, 0);
  *out = s;
  return 0;
}

int gql_http_server_port(const gql_http_server *s) {
  return s->port;
}

int gql_http_server_start(gql_http_server *s) {
  if (s->started)
    return GQL_EINVAL;
  s->workers = calloc(s->nworkers, sizeof *s->workers);
  if (!s->workers)
    return GQL_ENOMEM;
  if (!(s->sse = gql_http_sse_new(&s->opt, s->nworkers, NULL))) {
    free(s->workers);
    s->workers = NULL;
    return GQL_ENOMEM;
  }
  /* Where a client writes to a closed socket we want EPIPE, not death. */
  signal(SIGPIPE, SIG_IGN);
  uint64_t seed = random_seed();
  int port = s->opt.port < 0 ? 0 : s->opt.port;
  unsigned ready = 0;
  int rc = 0;
  if (port && !s->opt.unix_path) {
    int e = listen_socket(s->opt.host, port, NULL, true);
    if (e < 0) {
      gql_http_log(&s->opt, GQL_HTTP_LOG_ERROR, "cannot listen on %s:%d: %s",
                   s->opt.host, port, strerror(-e));
      s->started = true;
      s->nworkers = 0;
      return GQL_EIO;
    }
  }
  for (unsigned i = 0; i < s->nworkers; i++) {
    worker *w = &s->workers[i];
    w->srv = s;
    int bound = 0;
    int fd;
    if (s->opt.unix_path) {
      fd = i == 0 ? unix_socket(s->opt.unix_path) : dup(s->unix_fd);
      if (fd < 0 && i > 0)
        fd = -errno;
      if (i == 0 && fd >= 0) {
        s->unix_fd = fd;
        s->unix_bound = true;
      }
    } else {
      fd = listen_socket(s->opt.host, port, &bound, false);
    }
    if (fd < 0) {
      if (s->opt.unix_path)
        gql_http_log(&s->opt, GQL_HTTP_LOG_ERROR,
                     "cannot listen on unix:%s: %s", s->opt.unix_path,
                     strerror(-fd));
      else
        gql_http_log(&s->opt, GQL_HTTP_LOG_ERROR, "cannot listen on %s:%d: %s",
                     s->opt.host, port, strerror(-fd));
      rc = GQL_EIO;
      break;
    }
    port = bound;
    if (gql_http_ctx_init(&w->x, s->schema, &s->opt, seed) < 0) {
      close(fd);
      rc = GQL_ENOMEM;
      break;
    }
    w->x.resumed = conn_resumed;
    w->x.peer = conn_peer;
    w->x.ws_wake = ws_wake;
    w->x.flush = conn_stream_flush;
    w->x.open_subscriptions = &s->nsubs;
    const gql_http_hooks *hk = s->opt.hooks;
    w->x.hook_worker = hk ? hk->ud : NULL;
    if (hk && hk->worker_start &&
        !(w->x.hook_worker = hk->worker_start(hk->ud))) {
      gql_http_log(w->x.opt, GQL_HTTP_LOG_ERROR, "cannot start worker %u", i);
      close(fd);
      gql_http_ctx_free(&w->x);
      rc = GQL_ENOMEM;
      break;
    }
    if (uv_loop_init(&w->loop) < 0) {
      close(fd);
      free_hook_worker(s, w);
      gql_http_ctx_free(&w->x);
      rc = GQL_EIO;
      break;
    }
    w->x.loop = &w->loop;
    if (!start_parts(s, w)) {
      gql_http_log(w->x.opt, GQL_HTTP_LOG_ERROR, "cannot start worker %u", i);
      close(fd);
      uv_run(&w->loop, UV_RUN_NOWAIT); /* the closed parts' handles */
      uv_loop_close(&w->loop);
      free_hook_worker(s, w);
      gql_http_ctx_free(&w->x);
      rc = GQL_ENOMEM;
      break;
    }
    if (s->opt.unix_path)
      uv_pipe_init(&w->loop, &w->listener.pipe, 0);
    else
      uv_tcp_init(&w->loop, &w->listener.tcp);
    w->listener.handle.data = w;
    uv_async_init(&w->loop, &w->stop_async, on_stop);
    w->stop_async.data = w;
    /* Not referenced: the loop ends without it; closed by server_free. */
    uv_async_init(&w->loop, &w->gen_async, on_generation);
    w->gen_async.data = w;
    uv_unref((uv_handle_t *)&w->gen_async);
    uv_timer_init(&w->loop, &w->wake_timer);
    w->wake_timer.data = w;
    uv_unref((uv_handle_t *)&w->wake_timer);
    uv_timer_init(&w->loop, &w->stop_timer);
    w->stop_timer.data = w;
    uv_unref((uv_handle_t *)&w->stop_timer);
    gql_http_sse_worker_start(s->sse, i, &w->x, &w->loop);
    int e = s->opt.unix_path ? uv_pipe_open(&w->listener.pipe, fd)
                             : uv_tcp_open(&w->listener.tcp, fd);
    if (e == 0)
      e = uv_listen((uv_stream_t *)&w->listener, 1024, on_connection);
    ready++;
    if (e < 0) {
      gql_http_log(w->x.opt, GQL_HTTP_LOG_ERROR, "cannot listen on %s:%d: %s",
                   s->opt.host, port, uv_strerror(e));
      rc = GQL_EIO;
      break;
    }
  }
  s->port = port;
  s->started = true;
  s->nworkers = ready;
  if (rc < 0) {
    for (unsigned i = 0; i < ready; i++)
      on_stop(&s->workers[i].stop_async);
    for (unsigned i = 0; i < ready; i++)
      uv_run(&s->workers[i].loop, UV_RUN_DEFAULT);
    return rc;
  }
  for (unsigned i = 0; i < s->nworkers; i++) {
    worker *w = &s->workers[i];
    if (uv_thread_create(&w->thread, worker_main, w) == 0)
      w->thread_started = true;
    else
      uv_async_send(&w->stop_async), uv_run(&w->loop, UV_RUN_DEFAULT);
  }
  return 0;
}

void gql_http_server_stop(gql_http_server *s) {
  if (!s || !s->started || atomic_exchange(&s->stop_requested, true))
    return;
  for (unsigned i = 0; i < s->nworkers; i++)
    if (s->workers[i].thread_started)
      uv_async_send(&s->workers[i].stop_async);
}

void gql_http_server_wait(gql_http_server *s) {
  if (!s || !s->started)
    return;
  for (unsigned i = 0; i < s->nworkers; i++) {
    worker *w = &s->workers[i];
    if (w->thread_started) {
      uv_thread_join(&w->thread);
      w->thread_started = false;
    }
  }
}

typedef struct run_state {
  gql_http_server *srv;
  uv_signal_t sigint, sigterm;
  uv_timer_t poll;
  gql_http_reloader *reloader; /* SIGHUP and file watches (opt.reload) */
} run_state;

static void on_signal(uv_signal_t *h, int signum) {
  run_state *st = h->data;
  gql_http_log(&st->srv->opt, GQL_HTTP_LOG_WARN,
               "%s: stopping (finishing requests in flight)",
               signum == SIGINT ? "SIGINT" : "SIGTERM");
  gql_http_server_stop(st->srv);
}

/* The signal loop ends once a stop was asked for, by a signal or by
 * gql_http_server_stop from elsewhere. */
static void on_poll(uv_timer_t *h) {
  run_state *st = h->data;
  if (!atomic_load(&st->srv->stop_requested))
    return;
  uv_close((uv_handle_t *)&st->sigint, NULL);
  uv_close((uv_handle_t *)&st->sigterm, NULL);
  uv_close((uv_handle_t *)&st->poll, NULL);
  gql_http_reloader_stop(st->reloader);
}

/* The reloader's way to the server (it does not call server.c). */
static int swap_into(void *ud, const gql_http_generation *g) {
  return gql_http_server_swap(ud, g);
}

static uint64_t generation_of(void *ud) {
  return gql_http_server_generation(ud);
}

int gql_http_server_run(gql_http_server *s) {
  uv_loop_t loop;
  if (uv_loop_init(&loop) < 0)
    return GQL_EIO;
  run_state st = {.srv = s};
  uv_signal_init(&loop, &st.sigint);
  uv_signal_init(&loop, &st.sigterm);
  uv_timer_init(&loop, &st.poll);
  st.sigint.data = st.sigterm.data = st.poll.data = &st;
  uv_signal_start(&st.sigint, on_signal, SIGINT);
  uv_signal_start(&st.sigterm, on_signal, SIGTERM);
  int rc = gql_http_server_start(s);
  if (rc < 0) {
    atomic_store(&s->stop_requested, true);
  } else if (s->opt.banner && s->opt.unix_path) {
    printf("%s on unix:%s%s\n", s->opt.banner, s->opt.unix_path, s->opt.path);
    fflush(stdout);
  } else if (s->opt.banner) {
    bool v6 = strchr(s->opt.host, ':') != NULL;
    printf("%s on http://%s%s%s:%d%s\n", s->opt.banner, v6 ? "[" : "",
           s->opt.host, v6 ? "]" : "", s->port, s->opt.path);
    fflush(stdout);
  }
  gql_http_swap_target target = {s, swap_into, generation_of};
  if (rc >= 0)
    st.reloader = gql_http_reloader_start(&loop, &target, &s->opt);
  uv_timer_start(&st.poll, on_poll, 0, 50);
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  if (rc < 0)
    return rc;
  gql_http_server_wait(s);
  /* Every request has ended and queued its spans: export them before the
   * process goes (a SIGTERM loses no finished span). */
  gql_tracer_flush(s->opt.tracer);
  return 0;
}

int gql_http_server_swap(gql_http_server *s, const gql_http_generation *g) {
  if (!s || !s->started || !s->nworkers || !g || !g->schema ||
      atomic_load(&s->stop_requested))
    return GQL_EINVAL;
  int rc = gql_schema_finalize(g->schema);
  if (rc < 0)
    return rc;
  uint64_t id = atomic_fetch_add(&s->generations, 1) + 1;
  gql_http_gen *gen = gql_http_gen_new(g, s->nworkers, id);
  if (!gen)
    return GQL_ENOMEM;
  for (unsigned i = 0; i < s->nworkers; i++) {
    worker *w = &s->workers[i];
    /* one that the worker has not picked up yet is passed over */
    gql_http_gen_release(atomic_exchange(&w->x.next, gen));
    uv_async_send(&w->gen_async);
  }
  return 0;
}

uint64_t gql_http_server_generation(const gql_http_server *s) {
  return s ? atomic_load(&((gql_http_server *)s)->generations) : 0;
}

void gql_http_server_update(gql_http_server *s,
                            const gql_http_options *options) {
  if (!s || !options)
    return;
  gql_http_options r;
  gql_http_options_resolve(options, &r);
  gql_http_options *o = &s->opt;
#define SET_LIVE(field) __atomic_store_n(&o->field, r.field, __ATOMIC_RELAXED)
  if ((unsigned)r.log_level <= GQL_HTTP_LOG_DEBUG)
    SET_LIVE(log_level);
  SET_LIVE(max_body);
  SET_LIVE(max_header_bytes);
  SET_LIVE(max_headers);
  SET_LIVE(idle_timeout_ms);
  SET_LIVE(request_timeout_ms);
  SET_LIVE(shutdown_timeout_ms);
#undef SET_LIVE
}

void gql_http_server_free(gql_http_server *s) {
  if (!s)
    return;
  if (s->workers) {
    gql_http_server_stop(s);
    gql_http_server_wait(s);
    for (unsigned i = 0; i < s->nworkers; i++) {
      worker *w = &s->workers[i];
      uv_close((uv_handle_t *)&w->gen_async, NULL);
      uv_close((uv_handle_t *)&w->wake_timer, NULL);
      uv_close((uv_handle_t *)&w->stop_timer, NULL);
      gql_http_sse_worker_close(&w->x);
      uv_run(&w->loop, UV_RUN_NOWAIT);
      const gql_http_executor *ex = s->opt.executor;
      if (ex && ex->worker_free && w->x.exec_worker)
        ex->worker_free(w->x.exec_worker);
      gql_http_documents_free(&w->x);
      const gql_http_service *sv = s->opt.service;
      if (sv && sv->worker_free && w->x.svc_worker)
        sv->worker_free(w->x.svc_worker);
      const gql_http_observer *ob = s->opt.observer;
      if (ob && ob->worker_free && w->x.obs_worker)
        ob->worker_free(w->x.obs_worker);
      gql_http_sse_worker_free(&w->x); /* before the pins' context */
      uv_loop_close(&w->loop);
      free_hook_worker(s, w);
      gql_http_ws_worker_free(w->x.ws_worker);
      gql_http_ctx_free(&w->x);
    }
    free(s->workers);
  }
  gql_http_sse_free(s->sse);
  if (s->unix_bound)
    unlink(s->opt.unix_path);
  free(s);
}
