/* The tracer: a bounded queue of encoded spans, a background thread that
 * batches them into OTLP JSON requests for a pluggable transport, the clock
 * the spans are timed with, and the file and HTTP transports. A request
 * thread only takes the queue lock to link one chunk, its own buffer (no
 * copy), and takes back an exported chunk's buffer from the pool; when the
 * queue is full the spans are dropped and counted. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "otlp_batch.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

/* A queued trace's records: the request's buffer, handed over. */
typedef struct chunk {
  struct chunk *next;
  uint32_t nspans;
  size_t len, cap;
  char *json;
} chunk;

/* Exported chunks kept (with their buffers) for the next pushes: none
 * over 64 KiB, and in all at most 1 MiB or, when more, the records of a
 * full queue (CHUNK_SPAN_BYTES a span), memory the queue may hold anyway:
 * a steady state that fills the queue between exports then draws no new
 * pages. */
enum {
  CHUNK_POOL_BYTES = 1 << 20,
  CHUNK_KEEP_BYTES = 65536,
  CHUNK_SPAN_BYTES = 192
};

enum { SIG_CACHE = 64 };

typedef struct sig_entry {
  /* published last (release), read without the lock (acquire) */
  _Atomic(const gql_prepared *) p;
  char *text; /* the operation's text and name, to tell a reused address */
  size_t text_len;
  const char *op;
  char *sig;
  size_t sig_len;
} sig_entry;

/* Pinned bytes (gql_tracer_pin): per prepared operation, alive as long as
 * the tracer, at most PIN_BYTES in all. */
enum { PIN_CACHE = 64, PIN_BYTES = 1 << 20 };

typedef struct pin_entry {
  const gql_prepared *p; /* under sig_mu */
  char *text;
  size_t text_len;
  const char *op;
  char *bytes;
  size_t n;
} pin_entry;

enum { TRACE_POOL = 64 };

struct gql_tracer {
  gql_tracer_config c;
  /* one pooled trace taken and given back with an atomic exchange; the
   * mutex-guarded pool behind it */
  _Atomic(gql_trace *) slot;
  pthread_mutex_t pool_mu;
  gql_trace *pool[TRACE_POOL];
  uint32_t npool;
  pthread_mutex_t sig_mu;
  sig_entry sigs[SIG_CACHE];
  pin_entry pins[PIN_CACHE]; /* under sig_mu */
  size_t pinned_bytes;
  char service[256];
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  chunk *head, *tail;
  chunk *spare; /* the chunk pool */
  size_t spare_bytes, spare_max;
  uint32_t queued_spans;
  uint32_t sending_spans;        /* in the batch being sent */
  uint64_t pushed_seq, done_seq; /* chunks pushed / exported or dropped */
  uint32_t flushing;             /* callers waiting in gql_tracer_flush */
  bool gave_up; /* a flush timed out and no batch was exported since */
  bool stop, busy, thread_started;
  pthread_t thread;
  gql_tracer_stats stats;
  gql_buf wire; /* the request body being encoded (exporter thread) */
  /* clock: Unix ns = base_ns + (tick - base_tick) * ns_per_tick */
  bool tsc;
  uint64_t base_tick, base_ns;
  double ns_per_tick;
  uint64_t seed;
};

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t real_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t gql_tracer_now(const gql_tracer *t) {
#ifdef HAVE_TSC
  if (t && t->tsc)
    return __rdtsc();
#endif
  (void)t;
  return real_ns();
}

bool gql_tracer_tsc(const gql_tracer *t) {
  return t && t->tsc;
}

uint64_t gql_tracer_to_ns(const gql_tracer *t, uint64_t tick) {
  if (!t || !t->tsc)
    return tick;
  double d = (double)(int64_t)(tick - t->base_tick) * t->ns_per_tick;
  return t->base_ns + (uint64_t)(int64_t)d;
}

/* splitmix64 */
uint64_t gql_tracer_random(gql_tracer *t, uint64_t *state) {
  (void)t;
  uint64_t z;
  do {
    z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
  } while (!z);
  return z;
}

/* The time-stamp counter is read per resolver call (a few ns, against tens
 * for clock_gettime); its rate is measured against the monotonic clock over
 * 2 ms at start. Each end of that interval is a tight pair: a clock read
 * between two counter reads, retried when they are far apart, so that being
 * descheduled between the reads (common on a loaded machine) cannot skew the
 * rate. */
#ifdef HAVE_TSC
typedef struct clock_pair {
  uint64_t tick, mono, real;
} clock_pair;

static clock_pair clock_sample(void) {
  clock_pair best = {0};
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 16; i++) {
    uint64_t a = __rdtsc();
    uint64_t m = mono_ns();
    uint64_t r = real_ns();
    uint64_t b = __rdtsc();
    if (b > a && b - a < best_gap) {
      best_gap = b - a;
      best = (clock_pair){a + (b - a) / 2, m, r};
    }
  }
  return best;
}
#endif

static void clock_init(gql_tracer *t) {
  t->base_ns = real_ns();
#ifdef HAVE_TSC
  clock_pair p0 = clock_sample();
  while (mono_ns() - p0.mono < 2000000)
    ;
  clock_pair p1 = clock_sample();
  if (p1.tick > p0.tick && p1.mono > p0.mono) {
    t->tsc = true;
    t->ns_per_tick = (double)(p1.mono - p0.mono) / (double)(p1.tick - p0.tick);
    t->base_tick = p1.tick;
    t->base_ns = p1.real;
  }
#endif
}

/* ---- queue */

static void chunk_free(chunk *c) {
  gql_buf b = {.data = c->json, .cap = c->cap};
  gql_buf_free(&b);
  free(c);
}

void gql_tracer_push(gql_tracer *t, gql_buf *b, uint32_t nspans) {
  pthread_mutex_lock(&t->mu);
  chunk *c = t->spare;
  if (c) {
    t->spare = c->next;
    t->spare_bytes -= c->cap;
  }
  if (b->failed || !b->data || t->queued_spans + nspans > t->c.queue_spans) {
    t->stats.dropped += nspans;
    if (c) {
      c->next = t->spare;
      t->spare = c;
      t->spare_bytes += c->cap;
    }
    pthread_mutex_unlock(&t->mu);
    b->len = 0;
    if (b->failed) {
      gql_buf_free(b);
      gql_buf_init(b, NULL);
    }
    return;
  }
  if (!c) { /* rare: a warm pool is never empty */
    pthread_mutex_unlock(&t->mu);
    c = malloc(sizeof *c);
    if (!c) {
      pthread_mutex_lock(&t->mu);
      t->stats.dropped += nspans;
      pthread_mutex_unlock(&t->mu);
      b->len = 0;
      return;
    }
    *c = (chunk){0};
    pthread_mutex_lock(&t->mu);
    if (t->queued_spans + nspans > t->c.queue_spans) {
      t->stats.dropped += nspans;
      pthread_mutex_unlock(&t->mu);
      free(c);
      b->len = 0;
      return;
    }
  }
  /* b's buffer goes with the chunk; the chunk's old one (if any) is b's */
  char *old = c->json;
  size_t old_cap = c->cap;
  c->next = NULL;
  c->nspans = nspans;
  c->json = b->data;
  c->len = b->len;
  c->cap = b->cap;
  b->data = old;
  b->cap = old_cap;
  b->len = 0;
  if (t->tail)
    t->tail->next = c;
  else
    t->head = c;
  t->tail = c;
  t->queued_spans += nspans;
  t->stats.queued += nspans;
  t->pushed_seq++;
  bool wake = t->queued_spans >= t->c.batch_spans;
  pthread_mutex_unlock(&t->mu);
  if (wake)
    pthread_cond_signal(&t->wake);
  if (!b->data) /* one allocation now, not a chain of growths later */
    gql_buf_reserve(b, c->cap);
}

/* Takes up to batch_spans spans' chunks off the queue (lock held). */
static chunk *take_batch(gql_tracer *t, uint32_t *nspans, uint32_t *nchunks) {
  chunk *first = t->head, *last = NULL;
  uint32_t n = 0, k = 0;
  for (chunk *c = t->head; c; c = c->next) {
    if (n && n + c->nspans > t->c.batch_spans)
      break;
    n += c->nspans;
    k++;
    last = c;
  }
  if (!last)
    return NULL;
  t->head = last->next;
  if (!t->head)
    t->tail = NULL;
  last->next = NULL;
  t->queued_spans -= n;
  *nspans = n;
  *nchunks = k;
  return first;
}

static uint64_t batch_ns(const void *t, uint64_t tick) {
  return gql_tracer_to_ns(t, tick);
}

/* Sends one batch (lock not held). Returns whether the transport took it.
 * The body's buffer is kept for the next batch (under 4 MiB). */
static bool send_batch(gql_tracer *t, chunk *list) {
  otlp_batch ob;
  gql_otlp_batch_begin(&ob, &t->wire, t->service, t->c.protocol, batch_ns, t);
  bool bad = false;
  for (chunk *c = list; c; c = c->next)
    bad |= gql_otlp_batch_add(&ob, c->json, c->len) < 0;
  gql_str body = gql_otlp_batch_end(&ob);
  /* A record that did not convert leaves the batch incomplete: not sent. */
  bool ok = !bad && body.ptr &&
            (!t->c.transport ||
             t->c.transport(t->c.transport_ud, body.ptr, body.len) == 0);
  if (t->wire.cap > (4u << 20) || t->wire.failed) {
    gql_buf_free(&t->wire);
    gql_buf_init(&t->wire, NULL);
  }
  return ok;
}

/* Exports one batch if any; false when the queue was empty. Lock held on
 * entry and exit. */
static bool export_one(gql_tracer *t) {
  uint32_t n, k;
  chunk *list = take_batch(t, &n, &k);
  if (!list)
    return false;
  t->busy = true;
  t->sending_spans = n;
  pthread_mutex_unlock(&t->mu);
  bool ok = send_batch(t, list);
  pthread_mutex_lock(&t->mu);
  while (list) { /* back to the pool, buffers and all */
    chunk *nx = list->next;
    if (list->cap <= CHUNK_KEEP_BYTES &&
        t->spare_bytes + list->cap <= t->spare_max) {
      list->next = t->spare;
      t->spare = list;
      t->spare_bytes += list->cap;
    } else {
      chunk_free(list);
    }
    list = nx;
  }
  t->busy = false;
  t->sending_spans = 0;
  if (ok) {
    t->stats.exported += n;
    t->gave_up = false;
  } else
    t->stats.failed += n;
  t->done_seq += k;
  pthread_cond_broadcast(&t->idle);
  return true;
}

/* Runs until gql_tracer_free stops it (after its bounded flush): what is
 * still queued then is dropped, never waited for. */
static void *exporter_main(void *arg) {
  gql_tracer *t = arg;
  pthread_mutex_lock(&t->mu);
  while (!t->stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)t->c.interval_ms * 1000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    /* Sleep while there is nothing, or too little and no hurry. */
    while (!t->stop &&
           (!t->head || (!t->flushing && t->queued_spans < t->c.batch_spans)))
      if (pthread_cond_timedwait(&t->wake, &t->mu, &ts) == ETIMEDOUT)
        break;
    while (!t->stop && export_one(t))
      ;
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

int gql_tracer_new(const gql_tracer_config *config, gql_tracer **out) {
  *out = NULL;
  gql_tracer *t = calloc(1, sizeof *t);
  if (!t)
    return GQL_ENOMEM;
  if (config)
    t->c = *config;
  if (!t->c.queue_spans)
    t->c.queue_spans = 2048;
  if (!t->c.batch_spans)
    t->c.batch_spans = 512;
  if (!t->c.interval_ms)
    t->c.interval_ms = 5000;
  if (!t->c.flush_timeout_ms)
    t->c.flush_timeout_ms = 30000;
  t->spare_max = (size_t)t->c.queue_spans * CHUNK_SPAN_BYTES;
  if (t->spare_max < CHUNK_POOL_BYTES)
    t->spare_max = CHUNK_POOL_BYTES;
  snprintf(t->service, sizeof t->service, "%s",
           t->c.service_name ? t->c.service_name : "gql");
  t->c.service_name = t->service;
  gql_buf_init(&t->wire, NULL);
  clock_init(t);
  pthread_mutex_init(&t->mu, NULL);
  pthread_mutex_init(&t->sig_mu, NULL);
  pthread_mutex_init(&t->pool_mu, NULL);
  pthread_cond_init(&t->wake, NULL);
  pthread_cond_init(&t->idle, NULL);
  if (!t->c.no_thread) {
    if (pthread_create(&t->thread, NULL, exporter_main, t) != 0) {
      pthread_mutex_destroy(&t->mu);
      pthread_cond_destroy(&t->wake);
      pthread_cond_destroy(&t->idle);
      free(t);
      return GQL_ENOMEM;
    }
    t->thread_started = true;
  }
  *out = t;
  return 0;
}

/* The absolute CLOCK_REALTIME time `ms` from now. */
static struct timespec deadline_in(uint32_t ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000u;
  ts.tv_sec += (time_t)(ns / 1000000000u);
  ts.tv_nsec = (long)(ns % 1000000000u);
  return ts;
}

static bool past(const struct timespec *d) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return now.tv_sec > d->tv_sec ||
         (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

/* Several threads may flush at once (a counter, not a flag, keeps the
 * exporter hurrying until the last one is done); without an exporter
 * thread the flushers take turns, so the transport is never called from
 * two threads at once. */
void gql_tracer_flush(gql_tracer *t) {
  if (!t)
    return;
  struct timespec deadline = deadline_in(t->c.flush_timeout_ms);
  pthread_mutex_lock(&t->mu);
  if (!t->thread_started) {
    for (;;) {
      while (t->busy)
        if (pthread_cond_timedwait(&t->idle, &t->mu, &deadline) == ETIMEDOUT)
          break;
      if (t->busy || past(&deadline) || !export_one(t))
        break;
    }
    if (t->head)
      t->gave_up = true;
    pthread_mutex_unlock(&t->mu);
    return;
  }
  uint64_t target = t->pushed_seq;
  t->flushing++;
  pthread_cond_signal(&t->wake);
  while (t->done_seq < target)
    if (pthread_cond_timedwait(&t->idle, &t->mu, &deadline) == ETIMEDOUT) {
      t->gave_up = true;
      break;
    }
  t->flushing--;
  pthread_mutex_unlock(&t->mu);
}

void gql_tracer_free(gql_tracer *t) {
  if (!t)
    return;
  /* After a flush that timed out (the collector is unreachable) a second
   * wait would only delay the exit. */
  pthread_mutex_lock(&t->mu);
  bool gave_up = t->gave_up;
  pthread_mutex_unlock(&t->mu);
  if (!gave_up)
    gql_tracer_flush(t);
  if (t->thread_started) {
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
  }
  for (chunk *c = t->head; c;) { /* left by a flush that timed out */
    chunk *nx = c->next;
    chunk_free(c);
    c = nx;
  }
  for (chunk *c = t->spare; c;) {
    chunk *nx = c->next;
    chunk_free(c);
    c = nx;
  }
  for (int i = 0; i < SIG_CACHE; i++) {
    free(t->sigs[i].text);
    free(t->sigs[i].sig);
  }
  for (int i = 0; i < PIN_CACHE; i++) {
    free(t->pins[i].text);
    free(t->pins[i].bytes);
  }
  for (uint32_t i = 0; i < t->npool; i++)
    gql_trace_destroy(t->pool[i]);
  gql_buf_free(&t->wire);
  gql_trace *last = atomic_load(&t->slot);
  if (last)
    gql_trace_destroy(last);
  pthread_mutex_destroy(&t->pool_mu);
  pthread_mutex_destroy(&t->sig_mu);
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->wake);
  pthread_cond_destroy(&t->idle);
  free(t);
}

static sig_entry *sig_slot(gql_tracer *t, const gql_prepared *p) {
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 17;
  return &t->sigs[(h >> 4) % SIG_CACHE];
}

/* No lock: an entry is filled once, before its p is published. */
bool gql_tracer_cached_signature(gql_tracer *t, const gql_prepared *p,
                                 gql_str *out) {
  sig_entry *e = sig_slot(t, p);
  bool hit = atomic_load_explicit(&e->p, memory_order_acquire) == p &&
             e->text_len == p->text.len && e->op == (const char *)p->op &&
             memcmp(e->text, p->text.ptr, p->text.len) == 0;
  if (hit)
    *out = (gql_str){e->sig, e->sig_len};
  return hit;
}

/* A hit hands out the entry's string without the lock, so an entry is
 * never freed while the tracer lives: a new operation at a taken slot is
 * simply not cached. */
void gql_tracer_cache_signature(gql_tracer *t, const gql_prepared *p,
                                gql_str sig) {
  pthread_mutex_lock(&t->sig_mu);
  sig_entry *e = sig_slot(t, p);
  if (!atomic_load_explicit(&e->p, memory_order_relaxed)) {
    char *text = malloc(p->text.len + 1), *s = malloc(sig.len + 1);
    if (text && s) {
      memcpy(text, p->text.ptr, p->text.len);
      memcpy(s, sig.ptr, sig.len);
      s[sig.len] = 0;
      e->text = text;
      e->text_len = p->text.len;
      e->op = (const char *)p->op;
      e->sig = s;
      e->sig_len = sig.len;
      atomic_store_explicit(&e->p, p, memory_order_release);
    } else {
      free(text);
      free(s);
    }
  }
  pthread_mutex_unlock(&t->sig_mu);
}

/* Entries are never freed while the tracer lives (queued records point
 * into them): a new operation at a taken slot, or past PIN_BYTES, gets
 * NULL. */
const char *gql_tracer_pin(gql_tracer *t, const gql_prepared *p,
                           const char *bytes, size_t n) {
  const char *out = NULL;
  pthread_mutex_lock(&t->sig_mu);
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 17;
  pin_entry *e = &t->pins[(h >> 4) % PIN_CACHE];
  if (e->p == p && e->text_len == p->text.len && e->op == (const char *)p->op &&
      e->n == n && memcmp(e->text, p->text.ptr, p->text.len) == 0 &&
      memcmp(e->bytes, bytes, n) == 0) {
    out = e->bytes;
  } else if (!e->p && t->pinned_bytes + n + p->text.len <= PIN_BYTES) {
    char *text = malloc(p->text.len + 1), *copy = malloc(n + 16);
    if (text && copy) {
      memcpy(text, p->text.ptr, p->text.len);
      memcpy(copy, bytes, n);
      memset(copy + n, 0, 16);
      *e = (pin_entry){p, text, p->text.len, (const char *)p->op, copy, n};
      t->pinned_bytes += n + p->text.len;
      out = copy;
    } else {
      free(text);
      free(copy);
    }
  }
  pthread_mutex_unlock(&t->sig_mu);
  return out;
}

void gql_tracer_stats_get(gql_tracer *t, gql_tracer_stats *out) {
  pthread_mutex_lock(&t->mu);
  *out = t->stats;
  out->pending = (uint64_t)t->queued_spans + t->sending_spans;
  pthread_mutex_unlock(&t->mu);
}

/* ---- transports */

int gql_trace_file_transport(void *ud, const char *json, size_t len) {
  FILE *f = ud;
  if (fwrite(json, 1, len, f) != len || fputc('\n', f) == EOF || fflush(f) != 0)
    return GQL_EIO;
  return 0;
}

int gql_trace_http_init(gql_trace_http *h, const char *url) {
  memset(h, 0, sizeof *h);
  const char *p = url;
  if (!url || strncmp(p, "http://", 7) != 0)
    return GQL_EINVAL;
  p += 7;
  size_t hl = strcspn(p, ":/");
  if (!hl || hl >= sizeof h->host)
    return GQL_EINVAL;
  memcpy(h->host, p, hl);
  p += hl;
  snprintf(h->port, sizeof h->port, "4318");
  if (*p == ':') {
    p++;
    size_t pl = strspn(p, "0123456789");
    if (!pl || pl >= sizeof h->port)
      return GQL_EINVAL;
    memcpy(h->port, p, pl);
    h->port[pl] = 0;
    p += pl;
  }
  if (*p && *p != '/')
    return GQL_EINVAL;
  if (strlen(p) >= sizeof h->path)
    return GQL_EINVAL;
  snprintf(h->path, sizeof h->path, "%s", *p ? p : "/v1/traces");
  return 0;
}

int gql_trace_http_from_env(gql_trace_http *h) {
  const char *full = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const char *base = getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  int rc;
  if (full && *full) {
    rc = gql_trace_http_init(h, full);
  } else if (base && *base) {
    char url[1024];
    size_t n = strlen(base);
    while (n && base[n - 1] == '/')
      n--;
    if (n + sizeof "/v1/traces" > sizeof url)
      return GQL_EINVAL;
    snprintf(url, sizeof url, "%.*s/v1/traces", (int)n, base);
    rc = gql_trace_http_init(h, url);
  } else {
    rc = gql_trace_http_init(h, "http://localhost:4318/v1/traces");
  }
  const char *t = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
  if (rc == 0 && t && *t) {
    char *end;
    unsigned long ms = strtoul(t, &end, 10);
    if (!*end && ms > 0 && ms <= 600000)
      h->timeout_ms = (uint32_t)ms;
  }
  h->retries = 3;
  return rc;
}

static bool send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w < 0 && errno == EINTR)
        continue;
      return false;
    }
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* One POST; the HTTP status, or -1 without a response. */
static int http_post(const gql_trace_http *h, const char *json, size_t len) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *ai = NULL;
  if (getaddrinfo(h->host, h->port, &hints, &ai) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = ai; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    uint32_t ms = h->timeout_ms ? h->timeout_ms : 10000;
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
      break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(ai);
  if (fd < 0)
    return -1;
  char head[1024];
  int hn =
      snprintf(head, sizeof head,
               "POST %s HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: "
               "%s\r\nContent-Length: %zu\r\nUser-Agent: "
               "gql/%s\r\nConnection: close\r\n\r\n",
               h->path, h->host, h->port,
               h->protocol == GQL_OTLP_HTTP_PROTOBUF ? "application/x-protobuf"
                                                     : "application/json",
               len, gql_version());
  int status = -1;
  if (hn > 0 && (size_t)hn < sizeof head && send_all(fd, head, (size_t)hn) &&
      send_all(fd, json, len)) {
    char resp[512];
    size_t got = 0;
    while (got < sizeof resp - 1) {
      ssize_t r = recv(fd, resp + got, sizeof resp - 1 - got, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t)r;
      if (memchr(resp, '\n', got))
        break;
    }
    resp[got] = 0;
    int code;
    if (sscanf(resp, "HTTP/1.%*d %d", &code) == 1)
      status = code;
  }
  close(fd);
  return status;
}

int gql_trace_http_transport(void *ud, const char *json, size_t len) {
  const gql_trace_http *h = ud;
  unsigned delay_ms = 100;
  for (uint32_t attempt = 0;; attempt++) {
    int status = http_post(h, json, len);
    if (status >= 200 && status < 300)
      return 0;
    bool retry = status == -1 || status == 429 || status == 502 ||
                 status == 503 || status == 504;
    if (!retry || attempt >= h->retries)
      return GQL_EIO;
    struct timespec ts = {(time_t)(delay_ms / 1000),
                          (long)(delay_ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
    delay_ms *= 2;
  }
}

/* One thread serving requests one after the other takes and gives back
 * the same trace through the slot: an atomic exchange each, no lock. */
gql_trace *gql_tracer_pool_get(gql_tracer *t) {
  gql_trace *tr =
      atomic_exchange_explicit(&t->slot, NULL, memory_order_acquire);
  if (tr)
    return tr;
  pthread_mutex_lock(&t->pool_mu);
  tr = t->npool ? t->pool[--t->npool] : NULL;
  pthread_mutex_unlock(&t->pool_mu);
  return tr;
}

void gql_tracer_pool_put(gql_tracer *t, gql_trace *tr) {
  tr = atomic_exchange_explicit(&t->slot, tr, memory_order_acq_rel);
  if (!tr)
    return;
  pthread_mutex_lock(&t->pool_mu); /* the one it displaced */
  bool ok = t->npool < TRACE_POOL;
  if (ok)
    t->pool[t->npool++] = tr;
  pthread_mutex_unlock(&t->pool_mu);
  if (!ok)
    gql_trace_destroy(tr);
}
