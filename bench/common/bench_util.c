#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *cnt_malloc(void *ctx, size_t size) {
  bench_counter *c = ctx;
  c->calls++;
  c->bytes += size;
  return malloc(size);
}
static void *cnt_realloc(void *ctx, void *p, size_t old_size, size_t size) {
  bench_counter *c = ctx;
  c->calls++;
  c->bytes += size > old_size ? size - old_size : 0;
  return realloc(p, size);
}
static void cnt_free(void *ctx, void *p, size_t size) {
  bench_counter *c = ctx;
  c->frees++;
  free(p);
}

gql_allocator bench_counting_allocator(bench_counter *c) {
  return (gql_allocator){cnt_malloc, cnt_realloc, cnt_free, c};
}

char *bench_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "bench: cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "bench: cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
  buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

uint64_t bench_trial_clock_ns(bool wall) {
  struct timespec ts;
  clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double bench_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

double bench_median_ns(void (*fn)(void *), void *arg, int iters, int trials) {
  for (int i = 0; i < iters; i++)
    fn(arg);
  double *t = malloc(sizeof(double) * (size_t)trials);
  for (int k = 0; k < trials; k++) {
    uint64_t start = bench_now_ns();
    for (int i = 0; i < iters; i++)
      fn(arg);
    t[k] = (double)(bench_now_ns() - start) / iters;
  }
  qsort(t, (size_t)trials, sizeof(double), cmp_double);
  double m = t[trials / 2];
  free(t);
  return m;
}

int bench_iters_for(void (*fn)(void *), void *arg, uint64_t target_ns) {
  uint64_t t0 = bench_now_ns();
  fn(arg);
  uint64_t one = bench_now_ns() - t0 + 1;
  uint64_t iters = target_ns / one;
  return iters < 1 ? 1 : iters > INT32_MAX ? INT32_MAX : (int)iters;
}
