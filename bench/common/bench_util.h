/* Shared helpers for the benchmark programs: timing, counting allocator,
 * file reading. */
#ifndef GQL_BENCH_UTIL_H
#define GQL_BENCH_UTIL_H

#include "gql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Monotonic time in nanoseconds. */
uint64_t bench_now_ns(void);

/* An allocator that counts calls and bytes and forwards to libc. */
typedef struct bench_counter {
  uint64_t calls; /* malloc + realloc */
  uint64_t frees;
  uint64_t bytes;
} bench_counter;
gql_allocator bench_counting_allocator(bench_counter *c);

/* Reads a whole file (malloc'ed, NUL-terminated); exits on failure. */
char *bench_read_file(const char *path, size_t *len);

/* How many calls of fn(arg) take about `target_ns` (at least 1), from one
 * timed call. */
int bench_iters_for(void (*fn)(void *), void *arg, uint64_t target_ns);

/* The clock a timed trial reads: the thread's CPU time, or the wall clock
 * when `wall` (BENCH_CLOCK=wall), in nanoseconds. */
uint64_t bench_trial_clock_ns(bool wall);

/* The median of t[0..n) (sorts t). */
double bench_median(double *t, int n);

/* Runs fn(arg) `iters` times per trial for `trials` trials after a warm-up
 * and returns the median nanoseconds per call. */
double bench_median_ns(void (*fn)(void *), void *arg, int iters, int trials);

#endif
