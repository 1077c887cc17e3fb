/* The Redis client (see redis.h): hiredis's async context on libuv through
 * hiredis's own adapter, with the deadlines, backoff and bounds hiredis
 * leaves to its user.
 *
 * hiredis 0.14 has no command timeout and no way to take back a command
 * once written, so a command is a record that outlives its answer: the
 * deadline timer answers TIMEOUT and marks it; the record goes when Redis
 * replies or the connection is freed (hiredis then calls every pending
 * callback with a NULL reply). Records still waiting count against
 * max_inflight, which is what bounds memory against a server that stopped
 * reading; stall_ms then drops that connection. */
#include "redis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- statuses */

const char *gql_redis_status_name(gql_redis_status st) {
  switch (st) {
#define GQL_REDIS_STATUS_NAME_(n, m)                                           \
  case GQL_REDIS_##n:                                                          \
    return #n;
    GQL_REDIS_STATUSES(GQL_REDIS_STATUS_NAME_)
#undef GQL_REDIS_STATUS_NAME_
  }
  return "?";
}

/* ------------------------------------------------------------------ URLs */

static int url_fail(char *err, size_t n, const char *msg) {
  if (err && n)
    snprintf(err, n, "%s", msg);
  return GQL_EINVAL;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Percent-decodes s[0..n) into out (cap bytes with the NUL). */
static bool decode_into(const char *s, size_t n, char *out, size_t cap) {
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '%') {
      int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
      int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return false;
      c = (char)(hi * 16 + lo);
      i += 2;
    }
    if (c == 0 || j + 1 >= cap)
      return false;
    out[j++] = c;
  }
  out[j] = 0;
  return true;
}

/* Digits only, in [lo, hi]. */
static bool parse_num(const char *s, size_t n, long lo, long hi, int *out) {
  if (n == 0 || n > 10)
    return false;
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (s[i] - '0');
  }
  if (v < lo || v > hi)
    return false;
  *out = (int)v;
  return true;
}

static int parse_unix(const char *p, gql_redis_url *u, char *err, size_t n) {
  const char *q = strchr(p, '?');
  size_t plen = q ? (size_t)(q - p) : strlen(p);
  if (plen == 0 || p[0] != '/')
    return url_fail(err, n, "a unix socket path must be absolute");
  if (plen >= sizeof u->path)
    return url_fail(err, n, "the unix socket path is too long");
  memcpy(u->path, p, plen);
  u->path[plen] = 0;
  if (memchr(u->path, 0, plen))
    return url_fail(err, n, "the unix socket path holds a NUL byte");
  if (q) {
    if (strncmp(q, "?db=", 4) != 0 ||
        !parse_num(q + 4, strlen(q + 4), 0, INT32_MAX, &u->db))
      return url_fail(err, n, "expected ?db=N after the socket path");
  }
  return 0;
}

int gql_redis_url_parse(const char *url, gql_redis_url *u, char *err,
                        size_t n) {
  memset(u, 0, sizeof *u);
  u->port = 6379;
  if (!url)
    return url_fail(err, n, "no Redis URL");
  if (strncmp(url, "unix://", 7) == 0)
    return parse_unix(url + 7, u, err, n);
  if (strncmp(url, "redis+unix://", 13) == 0)
    return parse_unix(url + 13, u, err, n);
  if (strncmp(url, "unix:", 5) == 0)
    return parse_unix(url + 5, u, err, n);
  if (strncmp(url, "rediss://", 9) == 0)
    return url_fail(err, n, "TLS (rediss://) is not supported");
  if (strncmp(url, "redis://", 8) != 0)
    return url_fail(err, n,
                    "a Redis URL starts with redis:// or unix: (e.g. "
                    "redis://127.0.0.1:6379/0)");
  const char *p = url + 8;
  const char *end = p + strcspn(p, "/?#");
  const char *at = NULL;
  for (const char *s = p; s < end; s++)
    if (*s == '@')
      at = s; /* the last one: a password may hold '@' only escaped, but be
               * lenient */
  if (at) {
    const char *colon = memchr(p, ':', (size_t)(at - p));
    if (colon) {
      if (!decode_into(p, (size_t)(colon - p), u->user, sizeof u->user) ||
          !decode_into(colon + 1, (size_t)(at - colon - 1), u->password,
                       sizeof u->password))
        return url_fail(err, n, "bad user or password in the Redis URL");
    } else if (!decode_into(p, (size_t)(at - p), u->password,
                            sizeof u->password)) {
      return url_fail(err, n, "bad password in the Redis URL");
    }
    u->has_password = true;
    p = at + 1;
  }
  const char *hend;
  const char *port_at = NULL;
  if (*p == '[') {
    const char *rb = memchr(p, ']', (size_t)(end - p));
    if (!rb)
      return url_fail(err, n, "unclosed '[' in the Redis URL host");
    if ((size_t)(rb - p - 1) >= sizeof u->host || rb == p + 1)
      return url_fail(err, n, "bad IPv6 host in the Redis URL");
    memcpy(u->host, p + 1, (size_t)(rb - p - 1));
    hend = rb + 1;
    if (hend < end && *hend != ':')
      return url_fail(err, n, "unexpected text after the IPv6 host");
    port_at = hend < end ? hend : NULL;
  } else {
    const char *colon = memchr(p, ':', (size_t)(end - p));
    hend = colon ? colon : end;
    if (hend == p)
      return url_fail(err, n, "the Redis URL has no host");
    if ((size_t)(hend - p) >= sizeof u->host)
      return url_fail(err, n, "the Redis URL host is too long");
    memcpy(u->host, p, (size_t)(hend - p));
    port_at = colon;
  }
  for (const char *h = u->host; *h; h++)
    if ((unsigned char)*h <= ' ' || *h == '@')
      return url_fail(err, n, "bad character in the Redis URL host");
  if (port_at &&
      !parse_num(port_at + 1, (size_t)(end - port_at - 1), 1, 65535, &u->port))
    return url_fail(err, n, "bad port in the Redis URL");
  if (*end == '/') {
    const char *d = end + 1;
    size_t dl = strcspn(d, "?#");
    if (dl && !parse_num(d, dl, 0, INT32_MAX, &u->db))
      return url_fail(err, n, "bad database number in the Redis URL");
    end = d + dl;
  }
  if (*end)
    return url_fail(err, n, "unexpected text at the end of the Redis URL");
  return 0;
}

/* --------------------------------------------------------------- client */

typedef struct cmd {
  gql_redis *r;
  gql_redis_cb cb;
  void *ud;
  uint64_t start, deadline; /* uv_now ms */
  bool answered;
  struct cmd *prev, *next;
} cmd;

/* One connection's state machine: resolve, connect, handshake, ready;
 * on failure or loss, back off and start again. */
typedef struct conn {
  gql_redis *r;
  redisAsyncContext *ac;
  /* The connect deadline, the backoff wait, or (subscriber, ready) the
   * heartbeat. */
  uv_timer_t timer;
  uv_getaddrinfo_t gai;
  bool resolving;
  bool sub;     /* the subscriber connection */
  bool beating; /* a heartbeat awaits its answer */
  gql_redis_state state;
  unsigned hs_pending; /* handshake replies still to come */
  bool hs_failed;
  uint32_t attempt; /* consecutive failed attempts */
  char detail[160];
} conn;

/* A channel of the subscriber connection. Unwanted ones stay listed
 * while their UNSUBSCRIBE is in flight: a channel wanted again meanwhile
 * is subscribed once the UNSUBSCRIBE is answered, never before (hiredis
 * drops its callback of the channel at that answer). */
typedef struct channel {
  bool wanted;        /* some caller subscribed and did not unsubscribe */
  bool unsubscribing; /* an UNSUBSCRIBE on this connection awaits its answer */
  size_t len;
  char name[];
} channel;

struct gql_redis {
  uv_loop_t *loop;
  gql_redis_options o;
  gql_redis_url url;
  conn c;
  conn s; /* the subscriber: started by the first gql_redis_subscribe */
  bool sub_started;
  bool cmd_started;   /* (lazy_commands: at gql_redis_start_commands) */
  channel **channels; /* wanted, and unwanted being unsubscribed */
  uint32_t nchannels, channels_cap;
  uint32_t nwanted;
  gql_redis_message_cb on_message;
  void *message_ud;
  uv_timer_t deadlines;
  uint64_t due; /* when `deadlines` fires (0: stopped) */
  cmd list;     /* sentinel: in submission order */
  uint64_t rng;
  gql_redis_stats st;
  bool closing;
  int open_handles;
  void (*on_closed)(void *ud);
  void *closed_ud;
};

static void start_connect(conn *c);
static void arm_deadlines(gql_redis *r);
static void subscribe_all(conn *c);

static void set_state(conn *c, gql_redis_state s, const char *detail) {
  c->state = s;
  if (detail && detail != c->detail)
    snprintf(c->detail, sizeof c->detail, "%s", detail);
  gql_redis *r = c->r;
  if (r->o.on_state && !c->sub)
    r->o.on_state(r->o.ud, s, detail ? c->detail : "");
}

static uint64_t next_rand(gql_redis *r) {
  uint64_t x = r->rng; /* xorshift64* */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* Exponential backoff with "equal jitter": half the doubled delay, plus a
 * random part of the other half, so replicas that lost Redis together do
 * not come back in step. */
static uint32_t backoff_delay(gql_redis *r, uint32_t attempt) {
  uint32_t a = attempt < 20 ? attempt : 20;
  uint64_t d = (uint64_t)r->o.backoff_min_ms << a;
  if (d > r->o.backoff_max_ms)
    d = r->o.backoff_max_ms;
  uint64_t half = d / 2;
  return (uint32_t)(half + next_rand(r) % (d - half + 1));
}

static void on_backoff(uv_timer_t *t) {
  conn *c = t->data;
  if (!c->r->closing)
    start_connect(c);
}

static void schedule_reconnect(conn *c, const char *detail) {
  gql_redis *r = c->r;
  if (r->closing)
    return;
  uint32_t delay = backoff_delay(r, c->attempt);
  if (!c->sub)
    r->st.next_delay_ms = delay;
  c->attempt++;
  set_state(c, GQL_REDIS_STATE_DOWN, detail);
  uv_timer_start(&c->timer, on_backoff, delay, 0);
}

/* Frees the hiredis context now (outside hiredis callbacks, or deferred by
 * hiredis when inside one): pending callbacks run with a NULL reply. */
static void drop_context(conn *c) {
  redisAsyncContext *ac = c->ac;
  c->ac = NULL; /* on_disconnect tells a dropped context by this */
  if (ac)
    redisAsyncFree(ac);
}

static void connect_failed(conn *c, const char *detail) {
  if (!c->sub)
    c->r->st.failures++;
  schedule_reconnect(c, detail);
}

static void on_handshake_reply(redisAsyncContext *ac, void *reply, void *pd) {
  conn *c = pd;
  if (!reply || c->ac != ac)
    return; /* freed or dropped: the drop path has moved on */
  redisReply *rep = reply;
  if (rep->type == REDIS_REPLY_ERROR && !c->hs_failed) {
    c->hs_failed = true;
    snprintf(c->detail, sizeof c->detail, "handshake refused: %.*s",
             (int)(rep->len < 120 ? rep->len : 120), rep->str);
  }
  if (--c->hs_pending > 0)
    return;
  if (c->hs_failed) {
    /* Disconnect after this callback; on_disconnect reconnects. */
    redisAsyncDisconnect(ac);
    return;
  }
  gql_redis *r = c->r;
  uv_timer_stop(&c->timer);
  c->attempt = 0;
  if (c->sub) {
    r->st.sub_connects++;
    set_state(c, GQL_REDIS_STATE_READY, "connected");
    subscribe_all(c);
    return;
  }
  r->st.connects++;
  set_state(c, GQL_REDIS_STATE_READY, "connected");
}

static void on_connect(const redisAsyncContext *cac, int status) {
  redisAsyncContext *ac = (redisAsyncContext *)cac;
  conn *c = ac->data;
  if (c->ac != ac)
    return;
  if (status != REDIS_OK) {
    char detail[160];
    snprintf(detail, sizeof detail, "connect failed: %s",
             ac->errstr[0] ? ac->errstr : "error");
    c->ac = NULL; /* hiredis frees it after this callback */
    connect_failed(c, detail);
    return;
  }
  /* AUTH and SELECT when asked, then PING: READY only once Redis has
   * answered, so a server that accepts connections but does not run
   * (stopped, loading) never counts as up. */
  gql_redis *r = c->r;
  c->hs_failed = false;
  c->hs_pending = 0;
  char db[16];
  if (r->url.has_password) {
    const char *argv[3] = {"AUTH", r->url.user, r->url.password};
    size_t lens[3] = {4, strlen(r->url.user), strlen(r->url.password)};
    if (r->url.user[0])
      redisAsyncCommandArgv(ac, on_handshake_reply, c, 3, argv, lens);
    else
      redisAsyncCommandArgv(ac, on_handshake_reply, c, 2,
                            (const char *[]){"AUTH", r->url.password},
                            (size_t[]){4, lens[2]});
    c->hs_pending++;
  }
  if (r->url.db) {
    int n = snprintf(db, sizeof db, "%d", r->url.db);
    redisAsyncCommandArgv(ac, on_handshake_reply, c, 2,
                          (const char *[]){"SELECT", db},
                          (size_t[]){6, (size_t)n});
    c->hs_pending++;
  }
  redisAsyncCommandArgv(ac, on_handshake_reply, c, 1, (const char *[]){"PING"},
                        (size_t[]){4});
  c->hs_pending++;
}

static void on_disconnect(const redisAsyncContext *cac, int status) {
  (void)status;
  redisAsyncContext *ac = (redisAsyncContext *)cac;
  conn *c = ac->data;
  if (c->ac != ac)
    return; /* we dropped it ourselves and have moved on */
  c->ac = NULL;
  gql_redis *r = c->r;
  if (r->closing)
    return;
  if (c->state == GQL_REDIS_STATE_READY) {
    if (c->sub)
      r->st.sub_disconnects++;
    else
      r->st.disconnects++;
    schedule_reconnect(c, ac->errstr[0] ? ac->errstr : "connection lost");
  } else {
    connect_failed(c, c->hs_failed ? c->detail
                                   : "connection lost during the "
                                     "handshake");
  }
}

/* hiredis 0.14's libuv adapter ignores a poll error: libuv reports
 * POLLERR (a refused connect, a reset) as status UV_EBADF and stops the
 * handle, and the adapter returns, so hiredis would never learn of it (a
 * refused connect would wait for the connect timeout, a reset connection
 * would look alive). The adapter's handle and cleanup are kept; only its
 * poll callback is wrapped, to hand an error to hiredis as readiness so
 * that hiredis finds the socket error itself (SO_ERROR while connecting,
 * read() once connected). */
static void poll_cb(uv_poll_t *h, int status, int events) {
  redisLibuvEvents *p = h->data;
  if (status < 0) {
    redisAsyncContext *ac = p->context;
    if (!ac)
      return;
    if (!(ac->c.flags & REDIS_CONNECTED))
      redisAsyncHandleWrite(ac);
    else
      redisAsyncHandleRead(ac);
    return;
  }
  redisLibuvPoll(h, status, events);
}

static void poll_events(void *pd, int flag, bool on) {
  redisLibuvEvents *p = pd;
  if (on)
    p->events |= flag;
  else
    p->events &= ~flag;
  if (p->events)
    uv_poll_start(&p->handle, p->events, poll_cb);
  else
    uv_poll_stop(&p->handle);
}

static void ev_add_read(void *pd) {
  poll_events(pd, UV_READABLE, true);
}
static void ev_del_read(void *pd) {
  poll_events(pd, UV_READABLE, false);
}
static void ev_add_write(void *pd) {
  poll_events(pd, UV_WRITABLE, true);
}
static void ev_del_write(void *pd) {
  poll_events(pd, UV_WRITABLE, false);
}

static void connect_to(conn *c, const char *ip) {
  gql_redis *r = c->r;
  redisAsyncContext *ac = r->url.path[0] ? redisAsyncConnectUnix(r->url.path)
                                         : redisAsyncConnect(ip, r->url.port);
  if (!ac) {
    connect_failed(c, "out of memory");
    return;
  }
  if (ac->err) {
    char detail[160];
    snprintf(detail, sizeof detail, "connect failed: %s", ac->errstr);
    redisAsyncFree(ac);
    connect_failed(c, detail);
    return;
  }
  if (redisLibuvAttach(ac, r->loop) != REDIS_OK) {
    redisAsyncFree(ac);
    connect_failed(c, "cannot attach to the loop");
    return;
  }
  ac->ev.addRead = ev_add_read;
  ac->ev.delRead = ev_del_read;
  ac->ev.addWrite = ev_add_write;
  ac->ev.delWrite = ev_del_write;
  ac->data = c;
  c->ac = ac;
  redisAsyncSetConnectCallback(ac, on_connect);
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
}

static void on_resolved(uv_getaddrinfo_t *req, int status,
                        struct addrinfo *res) {
  conn *c = req->data;
  gql_redis *r = c->r;
  c->resolving = false;
  char ip[INET6_ADDRSTRLEN] = "";
  if (status == 0 && res) {
    const void *a =
        res->ai_family == AF_INET6
            ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
            : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, a, ip, sizeof ip);
  }
  uv_freeaddrinfo(res);
  if (r->closing) {
    if (--r->open_handles == 0) {
      void (*cb)(void *) = r->on_closed;
      void *ud = r->closed_ud;
      free(r);
      if (cb)
        cb(ud);
    }
    return;
  }
  r->open_handles--;
  if (status == UV_ECANCELED) {
    connect_failed(c, "connect timed out (resolving)");
    return;
  }
  if (status != 0 || !ip[0]) {
    char detail[160];
    snprintf(detail, sizeof detail, "cannot resolve %.100s: %s", r->url.host,
             uv_strerror(status ? status : UV_EAI_NONAME));
    connect_failed(c, detail);
    return;
  }
  connect_to(c, ip);
}

static void on_connect_timeout(uv_timer_t *t) {
  conn *c = t->data;
  if (c->resolving) {
    uv_cancel((uv_req_t *)&c->gai); /* on_resolved reports it */
    return;
  }
  drop_context(c);
  connect_failed(c, "connect timed out");
}

static void start_connect(conn *c) {
  gql_redis *r = c->r;
  set_state(c, GQL_REDIS_STATE_CONNECTING, "connecting");
  uv_timer_start(&c->timer, on_connect_timeout, r->o.connect_timeout_ms, 0);
  if (r->url.path[0]) {
    connect_to(c, NULL);
    return;
  }
  unsigned char buf[sizeof(struct in6_addr)];
  if (inet_pton(AF_INET, r->url.host, buf) == 1 ||
      inet_pton(AF_INET6, r->url.host, buf) == 1) {
    connect_to(c, r->url.host);
    return;
  }
  /* A name: resolved off the loop (hiredis would block in getaddrinfo). */
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  c->gai.data = c;
  if (uv_getaddrinfo(r->loop, &c->gai, on_resolved, r->url.host, NULL,
                     &hints) != 0) {
    connect_failed(c, "cannot start resolving the host");
    return;
  }
  c->resolving = true;
  r->open_handles++; /* the request, counted like a handle */
}

/* ------------------------------------------------------------- commands */

static void unlink_cmd(cmd *k) {
  k->prev->next = k->next;
  k->next->prev = k->prev;
  k->prev = k->next = NULL;
}

static void on_reply(redisAsyncContext *ac, void *reply, void *pd) {
  (void)ac;
  cmd *k = pd;
  gql_redis *r = k->r;
  unlink_cmd(k);
  r->st.inflight--;
  if (!k->answered) {
    k->answered = true;
    if (reply) {
      r->st.replies++;
      k->cb(k->ud, GQL_REDIS_OK, (const gql_redis_reply *)reply);
    } else {
      k->cb(k->ud, r->closing ? GQL_REDIS_CLOSED : GQL_REDIS_DOWN, NULL);
    }
  }
  free(k);
}

static void on_deadlines(uv_timer_t *t) {
  gql_redis *r = t->data;
  r->due = 0;
  uint64_t now = uv_now(r->loop);
  /* Answer what is past its deadline. A callback may submit (appended,
   * later deadlines) or close the client (then stop here). */
  for (cmd *k = r->list.next; k != &r->list;) {
    cmd *next = k->next;
    if (!k->answered && k->deadline <= now) {
      k->answered = true;
      r->st.timeouts++;
      k->cb(k->ud, GQL_REDIS_TIMEOUT, NULL);
      if (r->closing)
        return;
    }
    k = next;
  }
  cmd *oldest = r->list.next;
  if (oldest != &r->list && oldest->start + r->o.stall_ms <= now &&
      r->c.state == GQL_REDIS_STATE_READY) {
    r->st.disconnects++;
    drop_context(&r->c); /* every record goes, answered DOWN if not yet */
    schedule_reconnect(&r->c, "no reply within stall_ms: dropped");
  }
  arm_deadlines(r);
}

/* Points the deadline timer at the earliest unanswered deadline or the
 * oldest record's stall time. */
static void arm_deadlines(gql_redis *r) {
  if (r->closing)
    return;
  uint64_t first = 0;
  for (cmd *k = r->list.next; k != &r->list; k = k->next) {
    uint64_t when = k->answered ? 0 : k->deadline;
    if (k == r->list.next) {
      uint64_t stall = k->start + r->o.stall_ms;
      if (!when || stall < when)
        when = stall;
    }
    if (when && (!first || when < first))
      first = when;
  }
  if (!first) {
    uv_timer_stop(&r->deadlines);
    r->due = 0;
    return;
  }
  uint64_t now = uv_now(r->loop);
  r->due = first;
  uv_timer_start(&r->deadlines, on_deadlines, first > now ? first - now : 0, 0);
}

gql_redis_status gql_redis_command(gql_redis *r, int argc, const char **argv,
                                   const size_t *lens, uint32_t timeout_ms,
                                   gql_redis_cb cb, void *ud) {
  if (r->closing)
    return GQL_REDIS_CLOSED;
  if (argc <= 0 || !argv || !lens || !cb)
    return GQL_REDIS_INVAL;
  conn *c = &r->c;
  if (c->state != GQL_REDIS_STATE_READY || !c->ac) {
    r->st.refused_down++;
    return GQL_REDIS_DOWN;
  }
  if (r->st.inflight >= r->o.max_inflight) {
    r->st.refused_busy++;
    return GQL_REDIS_BUSY;
  }
  cmd *k = calloc(1, sizeof *k);
  if (!k)
    return GQL_REDIS_NOMEM;
  uint64_t now = uv_now(r->loop);
  *k = (cmd){.r = r,
             .cb = cb,
             .ud = ud,
             .start = now,
             .deadline =
                 now + (timeout_ms ? timeout_ms : r->o.command_timeout_ms)};
  if (redisAsyncCommandArgv(c->ac, on_reply, k, argc, argv, lens) != REDIS_OK) {
    free(k);
    r->st.refused_down++;
    return GQL_REDIS_DOWN;
  }
  k->prev = r->list.prev;
  k->next = &r->list;
  r->list.prev->next = k;
  r->list.prev = k;
  r->st.inflight++;
  r->st.commands++;
  if (!r->due || k->deadline < r->due)
    arm_deadlines(r);
  return GQL_REDIS_OK;
}

/* --------------------------------------------------------------- pub/sub */

#define HEARTBEAT_CHANNEL "__gql_heartbeat__"
#define MAX_CHANNEL 1024
/* Channels per SUBSCRIBE command when resubscribing. */
#define SUBSCRIBE_BATCH 256

static bool is_channel(const redisReply *e, const char *name, size_t n) {
  return e->type == REDIS_REPLY_STRING && (size_t)e->len == n &&
         memcmp(e->str, name, n) == 0;
}

static int find_channel(const gql_redis *r, gql_str ch) {
  for (uint32_t i = 0; i < r->nchannels; i++)
    if (r->channels[i]->len == ch.len &&
        memcmp(r->channels[i]->name, ch.ptr, ch.len) == 0)
      return (int)i;
  return -1;
}

/* (the order of the channels does not matter) */
static void remove_channel(gql_redis *r, uint32_t i) {
  free(r->channels[i]);
  r->channels[i] = r->channels[--r->nchannels];
}

static bool send_subscribe(conn *c, channel **chs, uint32_t n, bool heartbeat);
static void drop_subscriber(conn *c, const char *why);

/* Redis answered an UNSUBSCRIBE: hiredis has forgotten the channel, so a
 * channel wanted again meanwhile is subscribed now; else it goes. */
static void unsubscribed(conn *c, gql_str name) {
  gql_redis *r = c->r;
  int i = find_channel(r, name);
  if (i < 0 || !r->channels[i]->unsubscribing)
    return;
  channel *ch = r->channels[i];
  ch->unsubscribing = false;
  if (!ch->wanted)
    remove_channel(r, (uint32_t)i);
  else if (!send_subscribe(c, &ch, 1, false))
    drop_subscriber(c, "cannot subscribe");
}

/* Every reply on a subscribed channel comes here (hiredis keeps one
 * callback per channel): messages, and the confirmations of SUBSCRIBE
 * (the heartbeat's among them) and UNSUBSCRIBE. NULL when the context goes. */
static void on_sub_reply(redisAsyncContext *ac, void *reply, void *pd) {
  conn *c = pd;
  redisReply *rep = reply;
  if (!rep || c->ac != ac || rep->type != REDIS_REPLY_ARRAY ||
      rep->elements < 3)
    return;
  redisReply *kind = rep->element[0], *ch = rep->element[1];
  if (kind->type != REDIS_REPLY_STRING || ch->type != REDIS_REPLY_STRING)
    return;
  gql_redis *r = c->r;
  if (kind->len == 7 && memcmp(kind->str, "message", 7) == 0) {
    redisReply *msg = rep->element[2];
    if (msg->type != REDIS_REPLY_STRING ||
        is_channel(ch, HEARTBEAT_CHANNEL, sizeof HEARTBEAT_CHANNEL - 1))
      return;
    r->st.messages++;
    if (r->on_message)
      r->on_message(r->message_ud, (gql_str){ch->str, (size_t)ch->len},
                    (gql_str){msg->str, (size_t)msg->len});
  } else if (kind->len == 9 && memcmp(kind->str, "subscribe", 9) == 0 &&
             is_channel(ch, HEARTBEAT_CHANNEL, sizeof HEARTBEAT_CHANNEL - 1)) {
    c->beating = false;
  } else if (kind->len == 11 && memcmp(kind->str, "unsubscribe", 11) == 0) {
    unsubscribed(c, (gql_str){ch->str, (size_t)ch->len});
  }
}

/* SUBSCRIBE with up to SUBSCRIBE_BATCH channels; false when hiredis
 * refused it (the connection is going). */
static bool send_subscribe(conn *c, channel **chs, uint32_t n, bool heartbeat) {
  const char *argv[SUBSCRIBE_BATCH + 2];
  size_t lens[SUBSCRIBE_BATCH + 2];
  int argc = 0;
  argv[argc] = "SUBSCRIBE";
  lens[argc++] = 9;
  if (heartbeat) {
    argv[argc] = HEARTBEAT_CHANNEL;
    lens[argc++] = sizeof HEARTBEAT_CHANNEL - 1;
  }
  for (uint32_t i = 0; i < n; i++) {
    argv[argc] = chs[i]->name;
    lens[argc++] = chs[i]->len;
  }
  return redisAsyncCommandArgv(c->ac, on_sub_reply, c, argc, argv, lens) ==
         REDIS_OK;
}

static void drop_subscriber(conn *c, const char *why) {
  gql_redis *r = c->r;
  r->st.sub_disconnects++;
  drop_context(c);
  schedule_reconnect(c, why);
}

/* Each period: the previous heartbeat must have been answered, then the
 * next goes out. */
static void on_heartbeat(uv_timer_t *t) {
  conn *c = t->data;
  if (c->r->closing || c->state != GQL_REDIS_STATE_READY)
    return;
  if (c->beating) {
    drop_subscriber(c, "no answer to the heartbeat: dropped");
    return;
  }
  c->beating = true;
  if (!send_subscribe(c, NULL, 0, true))
    drop_subscriber(c, "cannot send the heartbeat");
}

/* Ready: every wanted channel again (after a reconnect Redis knows none
 * of them; the unwanted ones go, their UNSUBSCRIBE went with the old
 * connection), and the heartbeat starts. */
static void subscribe_all(conn *c) {
  gql_redis *r = c->r;
  for (uint32_t i = r->nchannels; i-- > 0;) {
    r->channels[i]->unsubscribing = false;
    if (!r->channels[i]->wanted)
      remove_channel(r, i);
  }
  bool ok = send_subscribe(c, NULL, 0, true);
  for (uint32_t i = 0; ok && i < r->nchannels; i += SUBSCRIBE_BATCH) {
    uint32_t n = r->nchannels - i;
    ok = send_subscribe(c, r->channels + i,
                        n < SUBSCRIBE_BATCH ? n : SUBSCRIBE_BATCH, false);
  }
  if (!ok) {
    drop_subscriber(c, "cannot subscribe");
    return;
  }
  c->beating = true; /* the first SUBSCRIBE carries the heartbeat */
  uv_timer_start(&c->timer, on_heartbeat, r->o.heartbeat_ms, r->o.heartbeat_ms);
}

void gql_redis_on_message(gql_redis *r, gql_redis_message_cb cb, void *ud) {
  r->on_message = cb;
  r->message_ud = ud;
}

static bool subscriber_ready(const gql_redis *r) {
  return r->s.state == GQL_REDIS_STATE_READY && r->s.ac;
}

int gql_redis_subscribe(gql_redis *r, gql_str ch) {
  if (r->closing || !ch.len || ch.len > MAX_CHANNEL)
    return GQL_EINVAL;
  int i = find_channel(r, ch);
  if (i >= 0) {
    channel *c = r->channels[i];
    if (c->wanted)
      return GQL_EINVAL;
    /* Being unsubscribed: subscribed again once that is answered (when
     * not ready, by subscribe_all). */
    c->wanted = true;
    r->nwanted++;
    if (!c->unsubscribing && subscriber_ready(r) &&
        !send_subscribe(&r->s, &c, 1, false))
      drop_subscriber(&r->s, "cannot subscribe");
    return 0;
  }
  if (r->nchannels >= r->o.max_channels)
    return GQL_ELIMIT;
  if (r->nchannels == r->channels_cap) {
    uint32_t cap = r->channels_cap ? r->channels_cap * 2 : 16;
    channel **chs = realloc(r->channels, cap * sizeof *chs);
    if (!chs)
      return GQL_ENOMEM;
    r->channels = chs;
    r->channels_cap = cap;
  }
  channel *c = malloc(sizeof *c + ch.len + 1);
  if (!c)
    return GQL_ENOMEM;
  *c = (channel){.wanted = true, .len = ch.len};
  memcpy(c->name, ch.ptr, ch.len);
  c->name[ch.len] = 0;
  r->channels[r->nchannels++] = c;
  r->nwanted++;
  if (!r->sub_started) {
    r->sub_started = true;
    start_connect(&r->s);
  } else if (subscriber_ready(r) && !send_subscribe(&r->s, &c, 1, false)) {
    drop_subscriber(&r->s, "cannot subscribe");
  }
  return 0;
}

int gql_redis_unsubscribe(gql_redis *r, gql_str ch) {
  int i = r->closing ? -1 : find_channel(r, ch);
  if (i < 0 || !r->channels[i]->wanted)
    return GQL_EINVAL;
  channel *c = r->channels[i];
  c->wanted = false;
  r->nwanted--;
  r->st.unsubscribes++;
  if (!subscriber_ready(r)) {
    /* Not subscribed on any connection now; an UNSUBSCRIBE in flight
     * went with the old one. */
    remove_channel(r, (uint32_t)i);
    return 0;
  }
  if (c->unsubscribing)
    return 0;
  if (redisAsyncCommandArgv(r->s.ac, NULL, NULL, 2,
                            (const char *[]){"UNSUBSCRIBE", c->name},
                            (size_t[]){11, c->len}) != REDIS_OK) {
    drop_subscriber(&r->s, "cannot unsubscribe");
    return 0;
  }
  c->unsubscribing = true;
  return 0;
}

gql_redis_state gql_redis_subscriber_state(const gql_redis *r) {
  return r->s.state;
}

/* --------------------------------------------------------------- replies */

gql_redis_reply_kind gql_redis_reply_type(const gql_redis_reply *x) {
  const redisReply *r = (const redisReply *)x;
  switch (r ? r->type : REDIS_REPLY_NIL) {
  case REDIS_REPLY_STRING:
    return GQL_REDIS_REPLY_STRING;
  case REDIS_REPLY_STATUS:
    return GQL_REDIS_REPLY_STATUS;
  case REDIS_REPLY_INTEGER:
    return GQL_REDIS_REPLY_INTEGER;
  case REDIS_REPLY_ARRAY:
    return GQL_REDIS_REPLY_ARRAY;
  case REDIS_REPLY_ERROR:
    return GQL_REDIS_REPLY_ERROR;
  default:
    return GQL_REDIS_REPLY_NIL;
  }
}

gql_str gql_redis_reply_str(const gql_redis_reply *x) {
  const redisReply *r = (const redisReply *)x;
  if (r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
            r->type == REDIS_REPLY_ERROR))
    return (gql_str){r->str, r->len};
  return (gql_str){"", 0};
}

long long gql_redis_reply_int(const gql_redis_reply *x) {
  const redisReply *r = (const redisReply *)x;
  return r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
}

size_t gql_redis_reply_count(const gql_redis_reply *x) {
  const redisReply *r = (const redisReply *)x;
  return r && r->type == REDIS_REPLY_ARRAY ? r->elements : 0;
}

const gql_redis_reply *gql_redis_reply_item(const gql_redis_reply *x,
                                            size_t i) {
  const redisReply *r = (const redisReply *)x;
  if (!r || r->type != REDIS_REPLY_ARRAY || i >= r->elements)
    return NULL;
  return (const gql_redis_reply *)r->element[i];
}

/* ------------------------------------------------------------ lifecycle */

int gql_redis_new(uv_loop_t *loop, const gql_redis_options *o, gql_redis **out,
                  char *err, size_t err_len) {
  *out = NULL;
  gql_redis *r = calloc(1, sizeof *r);
  if (!r)
    return GQL_ENOMEM;
  int rc = gql_redis_url_parse(o ? o->url : NULL, &r->url, err, err_len);
  if (rc < 0) {
    free(r);
    return rc;
  }
  r->loop = loop;
  r->o = *o;
  if (!r->o.connect_timeout_ms)
    r->o.connect_timeout_ms = 1000;
  if (!r->o.command_timeout_ms)
    r->o.command_timeout_ms = 100;
  if (!r->o.backoff_min_ms)
    r->o.backoff_min_ms = 50;
  if (!r->o.backoff_max_ms)
    r->o.backoff_max_ms = 5000;
  if (r->o.backoff_max_ms < r->o.backoff_min_ms)
    r->o.backoff_max_ms = r->o.backoff_min_ms;
  if (!r->o.max_inflight)
    r->o.max_inflight = 1024;
  if (!r->o.stall_ms)
    r->o.stall_ms = 2000;
  if (!r->o.heartbeat_ms)
    r->o.heartbeat_ms = 5000;
  if (!r->o.max_channels)
    r->o.max_channels = 4096;
  r->rng = r->o.seed ? r->o.seed : gql_hash_seed();
  if (!r->rng)
    r->rng = 0x9e3779b97f4a7c15ull;
  r->list.next = r->list.prev = &r->list;
  r->c.r = r;
  uv_timer_init(loop, &r->deadlines);
  r->deadlines.data = r;
  uv_timer_init(loop, &r->c.timer);
  r->c.timer.data = &r->c;
  r->s.r = r;
  r->s.sub = true;
  uv_timer_init(loop, &r->s.timer);
  r->s.timer.data = &r->s;
  r->open_handles = 3;
  *out = r;
  if (!r->o.lazy_commands)
    gql_redis_start_commands(r);
  return 0;
}

void gql_redis_start_commands(gql_redis *r) {
  if (r->cmd_started || r->closing)
    return;
  r->cmd_started = true;
  start_connect(&r->c);
}

gql_redis_state gql_redis_get_state(const gql_redis *r) {
  return r->c.state;
}

void gql_redis_stats_get(const gql_redis *r, gql_redis_stats *out) {
  *out = r->st;
  out->attempt = r->c.attempt;
  out->sub_attempt = r->s.attempt;
  out->channels = r->nwanted;
}

static void on_handle_closed(uv_handle_t *h) {
  gql_redis *r = h->data;
  if (--r->open_handles == 0) {
    void (*cb)(void *) = r->on_closed;
    void *ud = r->closed_ud;
    free(r);
    if (cb)
      cb(ud);
  }
}

void gql_redis_close(gql_redis *r, void (*on_closed)(void *ud), void *ud) {
  if (r->closing)
    return;
  r->closing = true;
  r->on_closed = on_closed;
  r->closed_ud = ud;
  set_state(&r->c, GQL_REDIS_STATE_CLOSING, "closing");
  r->s.state = GQL_REDIS_STATE_CLOSING;
  /* Answer first (callbacks may not submit: closing refuses), then free
   * the context, which releases the records. */
  for (cmd *k = r->list.next; k != &r->list; k = k->next) {
    if (!k->answered) {
      k->answered = true;
      k->cb(k->ud, GQL_REDIS_CLOSED, NULL);
    }
  }
  conn *cs[2] = {&r->c, &r->s};
  for (int i = 0; i < 2; i++) {
    drop_context(cs[i]);
    if (cs[i]->resolving)
      uv_cancel((uv_req_t *)&cs[i]->gai);
    cs[i]->timer.data = r; /* no more timer callbacks: the close's data */
    uv_close((uv_handle_t *)&cs[i]->timer, on_handle_closed);
  }
  for (uint32_t i = 0; i < r->nchannels; i++)
    free(r->channels[i]);
  free(r->channels);
  r->channels = NULL;
  r->nchannels = 0;
  uv_close((uv_handle_t *)&r->deadlines, on_handle_closed);
}
