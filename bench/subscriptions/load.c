/* The subscription fan-out load client: N WebSocket subscribers speaking
 * graphql-transport-ws to one server, then events published one at a time
 * (an HTTP POST to the peer's publish endpoint, or a Redis PUBLISH), each
 * waited for at every subscriber. It prints, for the server process given
 * by --pid:
 *   - delivery latency per subscriber (publish sent -> its next message
 *     read), p50 / p99 / max over every round;
 *   - memory per idle subscriber: the server's RSS with the N subscribers
 *     connected and idle, minus its RSS before, over N;
 *   - CPU per delivered event: the server's CPU time (utime + stime from
 *     /proc/PID/stat, and the threads' run time from schedstat, ns) during
 *     a round, over the subscribers that received it.
 * One libuv loop, one process; the framing is gql's own WebSocket code in
 * client mode (masked frames). Everything is bounded in time (--timeout).
 *
 * Usage: bench_subscriptions_load --port P [--host 127.0.0.1] [--path
 *   /graphql] --pid PID --n 10000 --rounds 5 (--publish-http PORT
 *   [--publish-path /publish] | --publish-redis PORT [--channel gql:events])
 *   [--query 'subscription { events { id text } }'] [--timeout 120]
 *   [--label NAME] */
#include "http/ws.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

enum { C_CONNECTING, C_UPGRADING, C_INIT, C_SUBSCRIBED, C_DONE };

typedef struct client {
  uv_tcp_t tcp;
  uv_connect_t creq;
  uv_write_t wreq;
  gql_ws ws;
  http_buf out, wbuf;
  char key[25];
  char head[1024];
  size_t head_len;
  int state;
  bool writing, closed;
  uint32_t last_round;
} client;

static struct {
  const char *host, *path, *publish_path, *channel, *query, *label;
  int port, publish_port, n, rounds, timeout_s, concurrency;
  bool redis;
  pid_t pid;
} opt = {.host = "127.0.0.1",
         .path = "/graphql",
         .publish_path = "/publish",
         .channel = "gql:events",
         .query = "subscription { events { id text } }",
         .label = "server",
         .n = 10000,
         .rounds = 5,
         .timeout_s = 120,
         .concurrency = 200};

static uv_loop_t *loop;
static gql_ws_pool *pool;
static client *clients;
static int started, acked, failed, closed_early;
static int round_no;   /* the round being delivered (0: warm-up) */
static bool finishing; /* the figures are out */
static int received;   /* subscribers that got this round's event */
static uint64_t round_start_ns;
static uint64_t *lat; /* ns, every measured delivery */
static size_t nlat;
static char read_buf[65536];
static bool read_busy;

static uint64_t now_ns(void) {
  return uv_hrtime();
}

/* ------------------------------------------------------------ /proc */

static long rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return kb;
}

/* utime and stime in clock ticks (fields 14 and 15 of /proc/PID/stat):
 * *user, and the sum returned. */
static long long cpu_ticks_split(pid_t pid, long long *user) {
  char path[64], buf[2048];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command name may hold spaces */
  if (!p)
    return -1;
  long long ut = 0, st = 0;
  /* after ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt
   * majflt cmajflt utime(14) stime(15) */
  if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld",
             &ut, &st) != 2)
    return -1;
  if (user)
    *user = ut;
  return ut + st;
}

static long long cpu_ticks(pid_t pid) {
  return cpu_ticks_split(pid, NULL);
}

/* The run time of every thread of the process, ns (schedstat field 1). */
static long long cpu_ns(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (!d)
    return -1;
  long long sum = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char p2[320];
    snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
    FILE *f = fopen(p2, "r");
    long long ns = 0;
    if (f && fscanf(f, "%lld", &ns) == 1)
      sum += ns;
    if (f)
      fclose(f);
  }
  closedir(d);
  return sum;
}

/* ------------------------------------------------------------ clients */

static void on_write(uv_write_t *req, int status);

static void flush(client *c) {
  if (c->closed || c->writing || !c->out.o.len)
    return;
  http_buf tmp = c->wbuf;
  c->wbuf = c->out;
  c->out = tmp;
  c->out.o.len = 0;
  uv_buf_t b = uv_buf_init(c->wbuf.o.data, (unsigned)c->wbuf.o.len);
  c->wreq.data = c;
  if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_write) == 0)
    c->writing = true;
}

static void on_write(uv_write_t *req, int status) {
  client *c = req->data;
  c->writing = false;
  c->wbuf.o.len = 0;
  (void)status;
  flush(c);
}

static void on_closed(uv_handle_t *h) {
  (void)h;
}

static void connect_next(void);

/* A client lost before the end: failed to subscribe (another one takes
 * its place) or closed by the server. */
static void count_loss(client *c, const char *why) {
  if (c->state < C_SUBSCRIBED) {
    failed++;
    if (failed <= 5)
      fprintf(stderr, "load: a client failed: %s\n", why);
    connect_next();
  } else if (c->state == C_SUBSCRIBED) {
    closed_early++;
    if (closed_early <= 5)
      fprintf(stderr, "load: a subscriber was closed: %s\n", why);
  }
}

static void drop(client *c, const char *why) {
  if (c->closed)
    return;
  if (!finishing) /* after the figures, the closes are ours */
    count_loss(c, why);
  c->closed = true;
  c->state = C_DONE;
  uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void send_text(client *c, const char *s) {
  gql_ws_send(&c->ws, false, s, strlen(s));
  flush(c);
}

/* The round number in {"...":{"data":{"events":{"id":N,...}}}}. */
static long event_round(const char *d, size_t n) {
  static const char key[] = "\"id\":";
  const char *p = d, *end = d + n;
  const char *payload = memmem(d, n, "\"payload\"", 9);
  if (!payload)
    return -1;
  p = memmem(payload, (size_t)(end - payload), key, sizeof key - 1);
  if (!p)
    return -1;
  return strtol(p + sizeof key - 1, NULL, 10);
}

static void on_message(void *ud, bool binary, const char *d, size_t n) {
  client *c = ud;
  (void)binary;
  if (memmem(d, n, "\"type\":\"next\"", 13)) {
    long r = event_round(d, n);
    if (r == round_no && c->last_round < (uint32_t)r + 1) {
      c->last_round = (uint32_t)r + 1;
      received++;
      if (round_no > 0)
        lat[nlat++] = now_ns() - round_start_ns;
    }
  } else if (memmem(d, n, "\"type\":\"connection_ack\"", 23)) {
    char msg[1024];
    snprintf(msg, sizeof msg,
             "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":"
             "\"%s\"}}",
             opt.query);
    send_text(c, msg);
    c->state = C_SUBSCRIBED;
    acked++;
    connect_next();
  } else if (memmem(d, n, "\"type\":\"ping\"", 13)) {
    send_text(c, "{\"type\":\"pong\"}");
  } else if (memmem(d, n, "\"type\":\"error\"", 14) ||
             memmem(d, n, "\"type\":\"complete\"", 17)) {
    fprintf(stderr, "load: unexpected %.*s\n", (int)(n < 200 ? n : 200), d);
    drop(c, "error or complete");
  }
}

static void on_ws_close(void *ud, uint16_t code, gql_str reason) {
  client *c = ud;
  char why[160];
  snprintf(why, sizeof why, "closed %u %.*s", code, (int)reason.len,
           reason.ptr);
  drop(c, why);
}

static const gql_ws_handler handler = {on_message, NULL, on_ws_close};

static void on_alloc(uv_handle_t *h, size_t s, uv_buf_t *b) {
  (void)h;
  (void)s;
  if (read_busy) {
    *b = uv_buf_init(NULL, 0);
    return;
  }
  read_busy = true;
  *b = uv_buf_init(read_buf, sizeof read_buf);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  client *c = s->data;
  if (buf->base == read_buf)
    read_busy = false;
  if (n <= 0) {
    if (n < 0)
      drop(c, n == UV_EOF ? "EOF" : uv_strerror((int)n));
    return;
  }
  const char *d = buf->base;
  size_t len = (size_t)n;
  if (c->state == C_UPGRADING) {
    size_t room = sizeof c->head - c->head_len;
    size_t take = len < room ? len : room;
    memcpy(c->head + c->head_len, d, take);
    char *end = memmem(c->head, c->head_len + take, "\r\n\r\n", 4);
    if (!end) {
      c->head_len += take;
      if (c->head_len == sizeof c->head)
        drop(c, "response head too long");
      return;
    }
    size_t head = (size_t)(end + 4 - c->head);
    const char *why;
    if (!gql_ws_client_check(c->head, head, c->key, GQL_WS_PROTOCOL_GRAPHQL,
                             &why)) {
      drop(c, why);
      return;
    }
    size_t used = head - c->head_len;
    d += used;
    len -= used;
    c->state = C_INIT;
    send_text(c, "{\"type\":\"connection_init\"}");
  }
  if (len && gql_ws_feed(&c->ws, d, len) >= GQL_WS_CLOSED)
    drop(c, c->ws.error ? c->ws.error : "closed");
  flush(c);
}

static void on_connect(uv_connect_t *req, int status) {
  client *c = req->data;
  if (status < 0) {
    drop(c, uv_strerror(status));
    return;
  }
  c->state = C_UPGRADING;
  char host[128];
  snprintf(host, sizeof host, "%s:%d", opt.host, opt.port);
  gql_ws_client_request(&c->out, host, opt.path, c->key,
                        GQL_WS_PROTOCOL_GRAPHQL);
  flush(c);
  uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static struct sockaddr_in server_addr;

static void connect_next(void) {
  while (started < opt.n && started - acked - failed < opt.concurrency) {
    client *c = &clients[started++];
    c->out = (http_buf){0};
    c->wbuf = (http_buf){0};
    gql_ws_client_key(c->key);
    gql_ws_init(&c->ws, pool, GQL_WS_CLIENT, &handler, c, &c->out);
    uv_tcp_init(loop, &c->tcp);
    c->tcp.data = c;
    c->creq.data = c;
    if (uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&server_addr,
                       on_connect) != 0) {
      drop(c, "cannot connect");
      return;
    }
  }
}

/* ------------------------------------------------------------ publishing */

typedef struct publisher {
  uv_tcp_t tcp;
  uv_connect_t creq;
  uv_write_t wreq;
  char msg[1024];
  size_t len;
} publisher;

static void pub_closed(uv_handle_t *h) {
  free(h->data);
}

static void pub_alloc(uv_handle_t *h, size_t s, uv_buf_t *b) {
  (void)h;
  static char sink[4096];
  *b = uv_buf_init(sink, (unsigned)(s < sizeof sink ? s : sizeof sink));
}

static void pub_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b) {
  (void)b;
  if (n < 0)
    uv_close((uv_handle_t *)s, pub_closed);
}

static void pub_written(uv_write_t *w, int status) {
  publisher *p = w->data;
  if (status < 0)
    fprintf(stderr, "load: publish failed: %s\n", uv_strerror(status));
  uv_read_start((uv_stream_t *)&p->tcp, pub_alloc, pub_read);
}

static void pub_connected(uv_connect_t *req, int status) {
  publisher *p = req->data;
  if (status < 0) {
    fprintf(stderr, "load: cannot reach the publisher: %s\n",
            uv_strerror(status));
    uv_close((uv_handle_t *)&p->tcp, pub_closed);
    return;
  }
  round_start_ns = now_ns(); /* the clock starts as the event leaves */
  uv_buf_t b = uv_buf_init(p->msg, (unsigned)p->len);
  p->wreq.data = p;
  uv_write(&p->wreq, (uv_stream_t *)&p->tcp, &b, 1, pub_written);
}

/* Publishes event `round` (an HTTP POST of the event, or a Redis
 * PUBLISH), on a connection of its own that closes afterwards. */
static void publish(int round) {
  publisher *p = calloc(1, sizeof *p);
  char ev[128];
  int en = snprintf(ev, sizeof ev, "{\"id\":%d,\"text\":\"event %d\"}", round,
                    round);
  if (opt.redis)
    p->len = (size_t)snprintf(p->msg, sizeof p->msg,
                              "*3\r\n$7\r\nPUBLISH\r\n$%zu\r\n%s\r\n$%d\r\n%s"
                              "\r\n*1\r\n$4\r\nQUIT\r\n",
                              strlen(opt.channel), opt.channel, en, ev);
  else
    p->len = (size_t)snprintf(p->msg, sizeof p->msg,
                              "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: "
                              "application/json\r\nContent-Length: %d\r\n"
                              "Connection: close\r\n\r\n%s",
                              opt.publish_path, opt.host, en, ev);
  struct sockaddr_in a;
  uv_ip4_addr(opt.host, opt.publish_port, &a);
  uv_tcp_init(loop, &p->tcp);
  p->tcp.data = p;
  p->creq.data = p;
  uv_tcp_connect(&p->creq, &p->tcp, (const struct sockaddr *)&a, pub_connected);
}

/* ------------------------------------------------------------ driving */

static void tick(uv_timer_t *t) {
  (void)t;
}

/* Runs the loop until *done() or `ms` passed; false on timeout. */
static bool run_until(bool (*done)(void), uint64_t ms) {
  uv_timer_t t;
  uv_timer_init(loop, &t);
  uv_timer_start(&t, tick, 5, 5);
  uint64_t end = now_ns() + ms * 1000000ull;
  while (!done() && now_ns() < end)
    uv_run(loop, UV_RUN_ONCE);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
  return done();
}

static bool all_acked(void) {
  return acked + failed >= opt.n;
}

static bool never(void) {
  return false;
}

static int subscribers(void) {
  return acked - closed_early;
}

static bool all_received(void) {
  return received >= subscribers();
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void settle(uint64_t ms) {
  run_until(never, ms);
}

static void usage(void) {
  fprintf(stderr, "usage: bench_subscriptions_load --port P --pid PID "
                  "(--publish-http PORT | --publish-redis PORT) [--n N] "
                  "[--rounds R] [--host H] [--path P] [--query Q] "
                  "[--channel C] [--timeout S] [--label L]\n");
  exit(2);
}

static void parse_args(int argc, char **argv) {
  static const struct option longs[] = {{"host", 1, 0, 'h'},
                                        {"port", 1, 0, 'p'},
                                        {"path", 1, 0, 'P'},
                                        {"pid", 1, 0, 'i'},
                                        {"n", 1, 0, 'n'},
                                        {"rounds", 1, 0, 'r'},
                                        {"publish-http", 1, 0, 'H'},
                                        {"publish-redis", 1, 0, 'R'},
                                        {"publish-path", 1, 0, 'u'},
                                        {"channel", 1, 0, 'c'},
                                        {"query", 1, 0, 'q'},
                                        {"timeout", 1, 0, 't'},
                                        {"label", 1, 0, 'l'},
                                        {"concurrency", 1, 0, 'C'},
                                        {0, 0, 0, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    switch (ch) {
    case 'h':
      opt.host = optarg;
      break;
    case 'p':
      opt.port = atoi(optarg);
      break;
    case 'P':
      opt.path = optarg;
      break;
    case 'i':
      opt.pid = (pid_t)atoi(optarg);
      break;
    case 'n':
      opt.n = atoi(optarg);
      break;
    case 'r':
      opt.rounds = atoi(optarg);
      break;
    case 'H':
      opt.publish_port = atoi(optarg);
      opt.redis = false;
      break;
    case 'R':
      opt.publish_port = atoi(optarg);
      opt.redis = true;
      break;
    case 'u':
      opt.publish_path = optarg;
      break;
    case 'c':
      opt.channel = optarg;
      break;
    case 'q':
      opt.query = optarg;
      break;
    case 't':
      opt.timeout_s = atoi(optarg);
      break;
    case 'l':
      opt.label = optarg;
      break;
    case 'C':
      opt.concurrency = atoi(optarg);
      break;
    default:
      usage();
    }
  }
  if (!opt.port || !opt.pid || !opt.publish_port || opt.n <= 0 ||
      opt.rounds <= 0)
    usage();
}

int main(int argc, char **argv) {
  parse_args(argc, argv);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  if ((rlim_t)opt.n + 64 > rl.rlim_cur) {
    fprintf(stderr, "load: %d connections need more file descriptors (%ld)\n",
            opt.n, (long)rl.rlim_cur);
    return 1;
  }
  loop = uv_default_loop();
  pool = gql_ws_pool_new(&(gql_ws_limits){.max_queued = 1 << 20});
  clients = calloc((size_t)opt.n, sizeof *clients);
  lat = calloc((size_t)opt.n * (size_t)opt.rounds, sizeof *lat);
  uv_ip4_addr(opt.host, opt.port, &server_addr);

  settle(500);
  long rss0 = rss_kb(opt.pid);
  uint64_t t0 = now_ns();
  connect_next();
  if (!run_until(all_acked, (uint64_t)opt.timeout_s * 1000)) {
    fprintf(stderr, "load: %d of %d acknowledged in %d s\n", acked, opt.n,
            opt.timeout_s);
    return 1;
  }
  double connect_s = (double)(now_ns() - t0) / 1e9;
  /* Warm-up round: every subscription is live once it is delivered. */
  round_no = 0;
  received = 0;
  uint64_t warm_end = now_ns() + (uint64_t)opt.timeout_s * 1000000000ull;
  while (!all_received() && now_ns() < warm_end) {
    publish(0);
    run_until(all_received, 2000);
  }
  if (!all_received()) {
    fprintf(stderr, "load: the warm-up event reached %d of %d\n", received,
            subscribers());
    return 1;
  }
  settle(2000); /* idle */
  long rss1 = rss_kb(opt.pid);
  long long ticks0 = cpu_ticks(opt.pid), ns0 = cpu_ns(opt.pid);
  long long round_ns = 0, round_ticks = 0, round_user = 0;
  long delivered = 0, expected = 0;
  for (int r = 1; r <= opt.rounds; r++) {
    round_no = r;
    received = 0;
    long long a_user = 0, b_user = 0;
    long long a_ns = cpu_ns(opt.pid),
              a_ticks = cpu_ticks_split(opt.pid, &a_user);
    publish(r);
    bool ok = run_until(all_received, (uint64_t)opt.timeout_s * 1000);
    settle(50); /* what the server still does after the last write */
    round_ns += cpu_ns(opt.pid) - a_ns;
    round_ticks += cpu_ticks_split(opt.pid, &b_user) - a_ticks;
    round_user += b_user - a_user;
    delivered += received;
    expected += subscribers();
    if (!ok)
      fprintf(stderr, "load: round %d reached %d of %d\n", r, received,
              subscribers());
    settle(300);
  }
  (void)ticks0;
  (void)ns0;
  qsort(lat, nlat, sizeof *lat, cmp_u64);
  double p50 = nlat ? (double)lat[nlat / 2] / 1e6 : -1;
  double p99 = nlat ? (double)lat[(size_t)((double)nlat * 0.99)] / 1e6 : -1;
  double pmax = nlat ? (double)lat[nlat - 1] / 1e6 : -1;
  long tick_hz = sysconf(_SC_CLK_TCK);
  double cpu_us_ev =
      delivered ? (double)round_ns / 1e3 / (double)delivered : -1;
  double cpu_us_ev_ticks = delivered ? (double)round_ticks * 1e6 /
                                           (double)tick_hz / (double)delivered
                                     : -1;
  /* the split of the ticks: the server's own code (user) and the kernel's
   * (system: on loopback, the sends and the receiver's TCP input run in
   * the sender's system calls) */
  double user_us_ev =
      delivered ? (double)round_user * 1e6 / (double)tick_hz / (double)delivered
                : -1;
  double sys_us_ev = delivered ? cpu_us_ev_ticks - user_us_ev : -1;
  double kb_sub = (double)(rss1 - rss0) / (double)subscribers();
  printf("%s: %d subscribers (%d failed, %d closed) connected in %.1f s\n",
         opt.label, subscribers(), failed, closed_early, connect_s);
  printf("%s: %d rounds, %ld of %ld deliveries\n", opt.label, opt.rounds,
         delivered, expected);
  printf("%s: latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", opt.label, p50,
         p99, pmax);
  printf("%s: RSS %ld kB idle, %ld kB with subscribers: %.2f kB per "
         "subscriber\n",
         opt.label, rss0, rss1, kb_sub);
  printf("%s: CPU %.2f us per delivered event (schedstat; %.2f us from "
         "utime+stime ticks: user %.2f, system %.2f)\n",
         opt.label, cpu_us_ev, cpu_us_ev_ticks, user_us_ev, sys_us_ev);
  printf("RESULT label=%s n=%d delivered=%ld expected=%ld p50_ms=%.2f "
         "p99_ms=%.2f max_ms=%.2f kb_per_sub=%.2f cpu_us_per_event=%.3f "
         "cpu_us_per_event_ticks=%.3f user_us_per_event=%.3f "
         "sys_us_per_event=%.3f\n",
         opt.label, subscribers(), delivered, expected, p50, p99, pmax, kb_sub,
         cpu_us_ev, cpu_us_ev_ticks, user_us_ev, sys_us_ev);
  fflush(stdout);
  finishing = true;
  for (int i = 0; i < started; i++)
    if (!clients[i].closed) {
      gql_ws_close(&clients[i].ws, GQL_WS_CLOSE_NORMAL, "done");
      flush(&clients[i]);
    }
  settle(500);
  for (int i = 0; i < started; i++)
    if (!clients[i].closed) {
      clients[i].closed = true;
      uv_close((uv_handle_t *)&clients[i].tcp, on_closed);
    }
  uv_run(loop, UV_RUN_NOWAIT);
  return delivered == expected && delivered > 0 ? 0 : 1;
}
