/* Prometheus metrics: a registry of families (counters, gauges, duration
 * histograms) with labels, counted per worker thread and summed when
 * scraped, in the text exposition format 0.0.4 (metrics.c).
 *
 * Counting is a plain add by the thread that owns a shard (relaxed atomic
 * loads and stores: no lock, no locked instruction, no allocation, no
 * string hashing): a series is found once (gql_metrics_series, locked,
 * hashed; done when a server starts or the first time a label value is
 * seen) and counted by its id. Registering a series gives every shard room
 * for it, so the counting path never checks or grows anything. A scrape
 * (any thread) reads every shard's cells; a cell read in the middle of an
 * add sees the value before or after it.
 *
 * Cardinality is bounded: a family takes at most max_series label
 * combinations (default 256); later ones count in one series whose label
 * values are all "other". Label values are stored as valid UTF-8 (a bad
 * byte becomes U+FFFD) and escaped when written. */
#ifndef GQL_OBSERVE_METRICS_H
#define GQL_OBSERVE_METRICS_H

#include "core/core.h"

#include <stdatomic.h>

typedef struct gql_metrics gql_metrics;
typedef struct gql_metrics_shard gql_metrics_shard;

typedef enum gql_metric_kind {
  GQL_METRIC_COUNTER,   /* adds (uint64) */
  GQL_METRIC_GAUGE,     /* adds and subtracts (int64), summed over shards */
  GQL_METRIC_HISTOGRAM, /* durations in ns, buckets in seconds */
  /* values (a cost, a size) observed as doubles, buckets in the same unit
   * (any finite ascending bounds); the sum is a double */
  GQL_METRIC_VALUES,
} gql_metric_kind;

/* A family's definition; the strings must outlive the registry. */
typedef struct gql_metric_def {
  const char *name; /* [a-zA-Z_:][a-zA-Z0-9_:]* */
  const char *help;
  gql_metric_kind kind;
  const char *const *labels; /* label names, nlabels of them */
  uint32_t nlabels;
  const double *buckets; /* histogram upper bounds in seconds, ascending
                          * (+Inf is added); NULL: the default set (of
                          * durations; GQL_METRIC_VALUES needs its own) */
  uint32_t nbuckets;
  uint32_t max_series; /* 0: 256 */
} gql_metric_def;

/* A value read at scrape time (the tracer's counters, a queue's length):
 * fills `value` for the series with label values `values`; return false to
 * end. Called with i = 0, 1, ... */
typedef bool (*gql_metric_collect_fn)(void *ud, uint32_t i, gql_str *values,
                                      double *value);

enum { GQL_METRIC_CELLS_PAGE = 256, GQL_METRIC_PAGES = 1024 };

typedef _Atomic uint64_t gql_metric_cell;
typedef struct gql_metric_page {
  gql_metric_cell c[GQL_METRIC_CELLS_PAGE];
} gql_metric_page;

/* One worker's cells: written by its thread only. */
struct gql_metrics_shard {
  _Atomic(gql_metric_page *) pages[GQL_METRIC_PAGES];
  gql_metrics *m;
  struct gql_metrics_shard *next;
};

/* A series: where its cells start (a histogram's: its buckets, then +Inf,
 * then the sum, in ns or a double's bits for GQL_METRIC_VALUES; the count
 * is the buckets' sum) and, for a histogram, its family's bounds. */
typedef struct gql_metric_series {
  uint32_t cell;
  uint32_t nbounds;       /* histograms: bounds[0..nbounds) */
  const uint64_t *bounds; /* in ns (GQL_METRIC_HISTOGRAM) */
  const double *values;   /* GQL_METRIC_VALUES' bounds */
} gql_metric_series;

gql_metrics *gql_metrics_new(void);
void gql_metrics_free(gql_metrics *m);
/* A family: its index, or -1 (a bad name or definition, no memory). */
int gql_metrics_family(gql_metrics *m, const gql_metric_def *def);
/* A family whose one series is read at scrape time (kind counter or
 * gauge, no cells). */
int gql_metrics_collected(gql_metrics *m, const gql_metric_def *def,
                          gql_metric_collect_fn fn, void *ud);
/* The series of family f with these label values (def.nlabels of them):
 * false only when out of memory. Locked and hashed: find a series once and
 * keep it. */
bool gql_metrics_series(gql_metrics *m, int f, const gql_str *values,
                        gql_metric_series *out);
/* Memory that lives as long as the registry (for collectors' data). */
gql_arena *gql_metrics_arena(gql_metrics *m);
/* A worker's shard (kept by the registry, freed with it). NULL: out of
 * memory. */
gql_metrics_shard *gql_metrics_shard_new(gql_metrics *m);

/* ---- counting: the owning thread, no lock */

static inline gql_metric_cell *gql_metric_at(gql_metrics_shard *sh,
                                             uint32_t cell) {
  gql_metric_page *p = atomic_load_explicit(
      &sh->pages[cell / GQL_METRIC_CELLS_PAGE], memory_order_relaxed);
  return &p->c[cell % GQL_METRIC_CELLS_PAGE];
}

static inline void gql_metric_cell_add(gql_metric_cell *c, uint64_t v) {
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                        memory_order_relaxed);
}

/* A counter's or gauge's add (a gauge's negative: (uint64_t)-n). */
static inline void gql_metrics_add(gql_metrics_shard *sh,
                                   const gql_metric_series *s, uint64_t v) {
  gql_metric_cell_add(gql_metric_at(sh, s->cell), v);
}

/* A duration into a histogram. */
static inline void gql_metrics_observe_ns(gql_metrics_shard *sh,
                                          const gql_metric_series *s,
                                          uint64_t ns) {
  uint32_t i = 0;
  while (i < s->nbounds && ns > s->bounds[i])
    i++;
  gql_metric_cell_add(gql_metric_at(sh, s->cell + i), 1);
  gql_metric_cell_add(gql_metric_at(sh, s->cell + s->nbounds + 1), ns);
}

/* A value into a GQL_METRIC_VALUES histogram (NaN counts in +Inf and
 * makes the sum NaN). */
static inline void gql_metrics_observe(gql_metrics_shard *sh,
                                       const gql_metric_series *s, double v) {
  uint32_t i = 0;
  while (i < s->nbounds && !(v <= s->values[i]))
    i++;
  gql_metric_cell_add(gql_metric_at(sh, s->cell + i), 1);
  gql_metric_cell *c = gql_metric_at(sh, s->cell + s->nbounds + 1);
  uint64_t bits = atomic_load_explicit(c, memory_order_relaxed);
  double sum;
  memcpy(&sum, &bits, sizeof sum); /* a zeroed cell is 0.0 */
  sum += v;
  memcpy(&bits, &sum, sizeof bits);
  atomic_store_explicit(c, bits, memory_order_relaxed);
}

/* ---- scraping: any thread */

/* The text exposition format 0.0.4 of every family, appended to b (the
 * Content-Type: text/plain; version=0.0.4; charset=utf-8). */
void gql_metrics_write(gql_metrics *m, gql_buf *b);

#endif
