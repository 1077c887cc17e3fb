/* The exporter: a bounded queue of encoded spans and a background thread
 * that batches them into OTLP/HTTP requests, JSON or protobuf
 * (otlp_batch.c), for a pluggable
 * transport (transport.c); and the caches shared by a tracer's traces (the
 * operation signatures, the pinned record images). A request thread only
 * takes the queue lock to link one chunk, its own buffer (no copy), and
 * takes back an exported chunk's buffer from the pool; when the queue is
 * full the spans are dropped and counted. */
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

/* ---- queue */

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

static uint64_t batch_ns(const void *clock, uint64_t tick) {
  return gql_trace_clock_to_ns(clock, tick);
}

/* Sends one batch (lock not held). Returns whether the transport took it.
 * The body's buffer is kept for the next batch (under 4 MiB). */
static bool send_batch(gql_tracer *t, chunk *list) {
  otlp_batch ob;
  gql_otlp_batch_begin(&ob, &t->wire, t->service, t->c.protocol, batch_ns,
                       &t->clock);
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

/* The exporter's part of gql_tracer_new: the configuration with its
 * defaults, the clock, the locks and the thread. */
int gql_tracer_start(gql_tracer *t, const gql_tracer_config *config) {
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
  gql_trace_clock_init(&t->clock);
  pthread_mutex_init(&t->mu, NULL);
  pthread_mutex_init(&t->sig_mu, NULL);
  pthread_mutex_init(&t->pool_mu, NULL);
  pthread_cond_init(&t->wake, NULL);
  pthread_cond_init(&t->idle, NULL);
  if (!t->c.no_thread) {
    if (pthread_create(&t->thread, NULL, exporter_main, t) != 0) {
      pthread_mutex_destroy(&t->mu);
      pthread_mutex_destroy(&t->sig_mu);
      pthread_mutex_destroy(&t->pool_mu);
      pthread_cond_destroy(&t->wake);
      pthread_cond_destroy(&t->idle);
      return GQL_ENOMEM;
    }
    t->thread_started = true;
  }
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

/* The exporter's part of gql_tracer_free: a last bounded flush, the thread
 * stopped, what is still queued dropped, the caches and locks freed (the
 * pool of traces is the caller's). */
void gql_tracer_stop(gql_tracer *t) {
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
  gql_buf_free(&t->wire);
  pthread_mutex_destroy(&t->pool_mu);
  pthread_mutex_destroy(&t->sig_mu);
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->wake);
  pthread_cond_destroy(&t->idle);
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
