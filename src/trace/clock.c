/* The tracer's clock (clock.h). */
#include "clock.h"

#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

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

uint64_t gql_trace_clock_now(const gql_trace_clock *c) {
#ifdef HAVE_TSC
  if (c && c->tsc)
    return __rdtsc();
#endif
  (void)c;
  return real_ns();
}

uint64_t gql_trace_clock_to_ns(const gql_trace_clock *c, uint64_t tick) {
  if (!c || !c->tsc)
    return tick;
  double d = (double)(int64_t)(tick - c->base_tick) * c->ns_per_tick;
  return c->base_ns + (uint64_t)(int64_t)d;
}

/* splitmix64 */
uint64_t gql_trace_random(uint64_t *state) {
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

void gql_trace_clock_init(gql_trace_clock *t) {
  *t = (gql_trace_clock){.base_ns = real_ns()};
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
