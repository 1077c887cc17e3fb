/* Prometheus metrics: the registry, the shards' pages and the text
 * exposition format (see metrics.h for the counting side). */
#include "metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Upper bounds in seconds when a histogram names none: from 100 µs (a
 * cached GraphQL request is tens of µs) to 10 s. */
static const double default_buckets[] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};

typedef struct series {
  gql_str *values; /* nlabels, valid UTF-8, in the registry's arena */
  uint32_t cell;
} series;

typedef struct family {
  gql_metric_def def;
  uint64_t *bounds; /* histograms: in ns */
  uint32_t width;   /* cells a series takes */
  series *series;
  uint32_t nseries, cap;
  bool overflowed; /* the "other" series exists (the last one) */
  gql_metric_collect_fn collect;
  void *ud;
} family;

struct gql_metrics {
  pthread_mutex_t mu; /* registration, shards, scrapes */
  gql_arena *arena;
  family *fams;
  uint32_t nfams, cap;
  uint32_t ncells;
  gql_metrics_shard *shards;
};

gql_metrics *gql_metrics_new(void) {
  gql_metrics *m = calloc(1, sizeof *m);
  if (!m || !(m->arena = gql_arena_new(NULL))) {
    free(m);
    return NULL;
  }
  pthread_mutex_init(&m->mu, NULL);
  return m;
}

void gql_metrics_free(gql_metrics *m) {
  if (!m)
    return;
  for (gql_metrics_shard *sh = m->shards; sh;) {
    gql_metrics_shard *next = sh->next;
    for (uint32_t i = 0; i < GQL_METRIC_PAGES; i++)
      free(atomic_load_explicit(&sh->pages[i], memory_order_relaxed));
    free(sh);
    sh = next;
  }
  for (uint32_t i = 0; i < m->nfams; i++) {
    free(m->fams[i].series);
    free(m->fams[i].bounds);
  }
  free(m->fams);
  gql_arena_free(m->arena);
  pthread_mutex_destroy(&m->mu);
  free(m);
}

static bool name_ok(const char *s, bool colon) {
  if (!s || !*s)
    return false;
  for (const char *p = s; *p; p++) {
    char c = *p;
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                 (colon && c == ':');
    if (!alpha && !(p > s && c >= '0' && c <= '9'))
      return false;
  }
  return true;
}

static int add_family(gql_metrics *m, const gql_metric_def *def,
                      gql_metric_collect_fn collect, void *ud) {
  bool hist =
      def->kind == GQL_METRIC_HISTOGRAM || def->kind == GQL_METRIC_VALUES;
  if (!name_ok(def->name, true) || !def->help ||
      def->kind > GQL_METRIC_VALUES || (def->nlabels && !def->labels) ||
      (collect && hist))
    return -1;
  for (uint32_t i = 0; i < def->nlabels; i++)
    if (!name_ok(def->labels[i], false) ||
        strncmp(def->labels[i], "__", 2) == 0 ||
        (hist && strcmp(def->labels[i], "le") == 0))
      return -1;
  family f = {.def = *def, .collect = collect, .ud = ud, .width = 1};
  if (!f.def.max_series)
    f.def.max_series = 256;
  if (def->kind == GQL_METRIC_HISTOGRAM) {
    if (!f.def.buckets) {
      f.def.buckets = default_buckets;
      f.def.nbuckets = sizeof default_buckets / sizeof default_buckets[0];
    }
    if (!f.def.nbuckets ||
        !(f.bounds = malloc(sizeof *f.bounds * f.def.nbuckets)))
      return -1;
    for (uint32_t i = 0; i < f.def.nbuckets; i++) {
      double b = f.def.buckets[i];
      if (!(b > 0 && b < 1e9) || (i && !(b > f.def.buckets[i - 1]))) {
        free(f.bounds);
        return -1;
      }
      f.bounds[i] = (uint64_t)llround(b * 1e9);
    }
    f.width = f.def.nbuckets + 2; /* the buckets, +Inf, the sum */
  } else if (def->kind == GQL_METRIC_VALUES) {
    if (!def->buckets || !def->nbuckets)
      return -1;
    for (uint32_t i = 0; i < def->nbuckets; i++)
      if (!isfinite(def->buckets[i]) ||
          (i && !(def->buckets[i] > def->buckets[i - 1])))
        return -1;
    f.width = f.def.nbuckets + 2; /* the buckets, +Inf, the sum's bits */
  }
  pthread_mutex_lock(&m->mu);
  int idx = -1;
  for (uint32_t i = 0; i < m->nfams; i++)
    if (strcmp(m->fams[i].def.name, def->name) == 0)
      goto out; /* a name once */
  if (m->nfams == m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 16;
    family *n = realloc(m->fams, sizeof *n * nc);
    if (!n)
      goto out;
    m->fams = n;
    m->cap = nc;
  }
  m->fams[m->nfams] = f;
  f.bounds = NULL; /* the registry's now */
  idx = (int)m->nfams++;
out:
  pthread_mutex_unlock(&m->mu);
  free(f.bounds);
  return idx;
}

gql_arena *gql_metrics_arena(gql_metrics *m) {
  return m->arena;
}

int gql_metrics_family(gql_metrics *m, const gql_metric_def *def) {
  return add_family(m, def, NULL, NULL);
}

int gql_metrics_collected(gql_metrics *m, const gql_metric_def *def,
                          gql_metric_collect_fn fn, void *ud) {
  return fn ? add_family(m, def, fn, ud) : -1;
}

/* Room for cells [0, n) in a shard (lock held). */
static bool shard_pages(gql_metrics_shard *sh, uint32_t n) {
  for (uint32_t p = 0; p * GQL_METRIC_CELLS_PAGE < n; p++) {
    if (p >= GQL_METRIC_PAGES)
      return false;
    if (atomic_load_explicit(&sh->pages[p], memory_order_relaxed))
      continue;
    gql_metric_page *pg = calloc(1, sizeof *pg);
    if (!pg)
      return false;
    atomic_store_explicit(&sh->pages[p], pg, memory_order_release);
  }
  return true;
}

gql_metrics_shard *gql_metrics_shard_new(gql_metrics *m) {
  gql_metrics_shard *sh = calloc(1, sizeof *sh);
  if (!sh)
    return NULL;
  sh->m = m;
  pthread_mutex_lock(&m->mu);
  bool ok = shard_pages(sh, m->ncells);
  if (ok) {
    sh->next = m->shards;
    m->shards = sh;
  }
  pthread_mutex_unlock(&m->mu);
  if (!ok) {
    for (uint32_t i = 0; i < GQL_METRIC_PAGES; i++)
      free(atomic_load_explicit(&sh->pages[i], memory_order_relaxed));
    free(sh);
    return NULL;
  }
  return sh;
}

/* s as valid UTF-8 in the arena (a bad byte: U+FFFD). */
static gql_str utf8_copy(gql_arena *a, gql_str s) {
  char *d = gql_arena_alloc(a, s.len * 3 + 1);
  if (!d)
    return (gql_str){NULL, 0};
  size_t n = gql_utf8_fix(d, s);
  d[n] = 0;
  return (gql_str){d, n};
}

static bool same_values(const series *s, const gql_str *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!gql_str_eq(s->values[i], v[i]))
      return false;
  return true;
}

/* A new series of f with these (valid) values (lock held). */
static series *series_add(gql_metrics *m, family *f, const gql_str *v) {
  if (f->nseries == f->cap) {
    uint32_t nc = f->cap ? f->cap * 2 : 8;
    series *n = realloc(f->series, sizeof *n * nc);
    if (!n)
      return NULL;
    f->series = n;
    f->cap = nc;
  }
  uint32_t n = f->def.nlabels;
  series s = {.cell = m->ncells};
  if (!(s.values = gql_arena_alloc(m->arena, sizeof(gql_str) * (n + 1))))
    return NULL;
  for (uint32_t i = 0; i < n; i++)
    if (!(s.values[i] = utf8_copy(m->arena, v[i])).ptr)
      return NULL;
  uint32_t need = m->ncells + f->width;
  for (gql_metrics_shard *sh = m->shards; sh; sh = sh->next)
    if (!shard_pages(sh, need))
      return NULL;
  m->ncells = need;
  f->series[f->nseries++] = s;
  return &f->series[f->nseries - 1];
}

bool gql_metrics_series(gql_metrics *m, int fi, const gql_str *values,
                        gql_metric_series *out) {
  if (fi < 0)
    return false;
  pthread_mutex_lock(&m->mu);
  family *f = &m->fams[fi];
  uint32_t n = f->def.nlabels;
  /* compare as stored: valid UTF-8 */
  gql_str *v = NULL;
  series *s = NULL;
  gql_arena *tmp = gql_arena_new(NULL);
  if (tmp && (v = gql_arena_alloc(tmp, sizeof *v * (n + 1)))) {
    for (uint32_t i = 0; i < n && v; i++)
      if (!(v[i] = utf8_copy(tmp, values[i])).ptr)
        v = NULL;
  }
  if (v && !f->collect) {
    uint32_t plain = f->nseries - (f->overflowed ? 1 : 0);
    for (uint32_t i = 0; i < plain && !s; i++)
      if (same_values(&f->series[i], v, n))
        s = &f->series[i];
    if (!s && plain < f->def.max_series) {
      s = series_add(m, f, v);
    } else if (!s && f->overflowed) {
      s = &f->series[f->nseries - 1];
    } else if (!s) { /* past the bound: one series for the rest */
      for (uint32_t i = 0; i < n; i++)
        v[i] = GQL_STR("other");
      if ((s = series_add(m, f, v)))
        f->overflowed = true;
    }
  }
  if (s)
    *out = (gql_metric_series){
        .cell = s->cell,
        .nbounds = f->width > 1 ? f->def.nbuckets : 0,
        .bounds = f->bounds,
        .values = f->def.kind == GQL_METRIC_VALUES ? f->def.buckets : NULL};
  pthread_mutex_unlock(&m->mu);
  gql_arena_free(tmp);
  return s != NULL;
}

/* ---- the exposition format */

static void put_escaped(gql_buf *b, gql_str s, bool quote) {
  for (size_t i = 0; i < s.len; i++) {
    char c = s.ptr[i];
    if (c == '\\')
      gql_buf_put(b, "\\\\", 2);
    else if (c == '\n')
      gql_buf_put(b, "\\n", 2);
    else if (quote && c == '"')
      gql_buf_put(b, "\\\"", 2);
    else
      gql_buf_putc(b, c);
  }
}

/* A float as Prometheus reads it: the shortest decimal that reads back,
 * an integer as an integer, NaN and the infinities by name. */
static void put_double(gql_buf *b, double v) {
  if (isnan(v)) {
    gql_buf_puts(b, "NaN");
    return;
  }
  if (isinf(v)) {
    gql_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
    return;
  }
  char d[40];
  if (v == floor(v) && fabs(v) < 9007199254740992.0) {
    snprintf(d, sizeof d, "%.0f", v);
  } else {
    for (int prec = 1; prec <= 17; prec++) {
      snprintf(d, sizeof d, "%.*g", prec, v);
      if (strtod(d, NULL) == v)
        break;
    }
  }
  gql_buf_puts(b, d);
}

/* ns as seconds, exactly: "S" or "S.fffffffff" without trailing zeros. */
static void put_seconds(gql_buf *b, uint64_t ns) {
  char d[40];
  int n = snprintf(d, sizeof d, "%llu.%09llu",
                   (unsigned long long)(ns / 1000000000u),
                   (unsigned long long)(ns % 1000000000u));
  while (n > 0 && d[n - 1] == '0')
    n--;
  if (d[n - 1] == '.')
    n--;
  gql_buf_append(b, d, (size_t)n);
}

/* name{l1="v1",...[,le="x"]} (no braces without labels) */
static void put_series(gql_buf *b, const family *f, const char *suffix,
                       const gql_str *values, const char *le) {
  gql_buf_puts(b, f->def.name);
  gql_buf_puts(b, suffix);
  if (!f->def.nlabels && !le) {
    gql_buf_putc(b, ' ');
    return;
  }
  gql_buf_putc(b, '{');
  for (uint32_t i = 0; i < f->def.nlabels; i++) {
    if (i)
      gql_buf_putc(b, ',');
    gql_buf_puts(b, f->def.labels[i]);
    gql_buf_put(b, "=\"", 2);
    put_escaped(b, values[i], true);
    gql_buf_putc(b, '"');
  }
  if (le) {
    gql_buf_puts(b, f->def.nlabels ? ",le=\"" : "le=\"");
    gql_buf_puts(b, le);
    gql_buf_putc(b, '"');
  }
  gql_buf_put(b, "} ", 2);
}

/* A cell summed over the shards (lock held). */
static uint64_t sum_cell(const gql_metrics *m, uint32_t cell) {
  uint64_t v = 0;
  for (gql_metrics_shard *sh = m->shards; sh; sh = sh->next) {
    gql_metric_page *p = atomic_load_explicit(
        &sh->pages[cell / GQL_METRIC_CELLS_PAGE], memory_order_acquire);
    if (p)
      v += atomic_load_explicit(&p->c[cell % GQL_METRIC_CELLS_PAGE],
                                memory_order_relaxed);
  }
  return v;
}

/* A GQL_METRIC_VALUES sum (a double's bits in each shard) over the
 * shards (lock held). */
static double sum_values(const gql_metrics *m, uint32_t cell) {
  double v = 0;
  for (gql_metrics_shard *sh = m->shards; sh; sh = sh->next) {
    gql_metric_page *p = atomic_load_explicit(
        &sh->pages[cell / GQL_METRIC_CELLS_PAGE], memory_order_acquire);
    if (!p)
      continue;
    uint64_t bits = atomic_load_explicit(&p->c[cell % GQL_METRIC_CELLS_PAGE],
                                         memory_order_relaxed);
    double d;
    memcpy(&d, &bits, sizeof d);
    v += d;
  }
  return v;
}

static void put_u64(gql_buf *b, uint64_t v) {
  char d[24];
  int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
  gql_buf_append(b, d, (size_t)n);
}

static void write_family(gql_metrics *m, const family *f, gql_buf *b) {
  static const char *const types[] = {"counter", "gauge", "histogram",
                                      "histogram"};
  gql_buf_puts(b, "# HELP ");
  gql_buf_puts(b, f->def.name);
  gql_buf_putc(b, ' ');
  put_escaped(b, gql_cstr(f->def.help), false);
  gql_buf_puts(b, "\n# TYPE ");
  gql_buf_puts(b, f->def.name);
  gql_buf_putc(b, ' ');
  gql_buf_puts(b, types[f->def.kind]);
  gql_buf_putc(b, '\n');
  if (f->collect) {
    gql_str vals[16];
    double v;
    for (uint32_t i = 0; f->def.nlabels <= 16 && f->collect(f->ud, i, vals, &v);
         i++) {
      put_series(b, f, "", vals, NULL);
      put_double(b, v);
      gql_buf_putc(b, '\n');
    }
    return;
  }
  for (uint32_t i = 0; i < f->nseries; i++) {
    const series *s = &f->series[i];
    if (f->def.kind == GQL_METRIC_COUNTER) {
      put_series(b, f, "", s->values, NULL);
      put_u64(b, sum_cell(m, s->cell));
    } else if (f->def.kind == GQL_METRIC_GAUGE) {
      put_series(b, f, "", s->values, NULL);
      char d[24];
      int n = snprintf(d, sizeof d, "%lld",
                       (long long)(int64_t)sum_cell(m, s->cell));
      gql_buf_append(b, d, (size_t)n);
    } else {
      uint64_t cum = 0;
      for (uint32_t k = 0; k <= f->def.nbuckets; k++) {
        cum += sum_cell(m, s->cell + k);
        char le[40];
        if (k < f->def.nbuckets) {
          gql_buf tmp;
          gql_buf_init(&tmp, NULL);
          put_double(&tmp, f->def.buckets[k]);
          snprintf(le, sizeof le, "%.*s", (int)tmp.len, tmp.data);
          gql_buf_free(&tmp);
        } else {
          snprintf(le, sizeof le, "+Inf");
        }
        put_series(b, f, "_bucket", s->values, le);
        put_u64(b, cum);
        gql_buf_putc(b, '\n');
      }
      put_series(b, f, "_sum", s->values, NULL);
      if (f->def.kind == GQL_METRIC_VALUES)
        put_double(b, sum_values(m, s->cell + f->def.nbuckets + 1));
      else
        put_seconds(b, sum_cell(m, s->cell + f->def.nbuckets + 1));
      gql_buf_putc(b, '\n');
      put_series(b, f, "_count", s->values, NULL);
      put_u64(b, cum);
    }
    gql_buf_putc(b, '\n');
  }
}

void gql_metrics_write(gql_metrics *m, gql_buf *b) {
  pthread_mutex_lock(&m->mu);
  for (uint32_t i = 0; i < m->nfams; i++)
    write_family(m, &m->fams[i], b);
  pthread_mutex_unlock(&m->mu);
}
