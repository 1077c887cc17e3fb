/* The tracer's clock: the time-stamp counter where there is one (read per
 * resolver call, inline), converted to Unix nanoseconds on the exporter
 * thread; else CLOCK_REALTIME nanoseconds. And the ids' random numbers. */
#ifndef GQL_TRACE_CLOCK_H
#define GQL_TRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gql_trace_clock {
  /* Unix ns = base_ns + (tick - base_tick) * ns_per_tick */
  bool tsc; /* ticks are the time-stamp counter's (__rdtsc()) */
  uint64_t base_tick, base_ns;
  double ns_per_tick;
} gql_trace_clock;

/* Measures the counter's rate against the monotonic clock (2 ms). */
void gql_trace_clock_init(gql_trace_clock *c);
/* The current tick (c NULL: CLOCK_REALTIME nanoseconds). */
uint64_t gql_trace_clock_now(const gql_trace_clock *c);
/* Ticks to Unix nanoseconds (c NULL or no counter: the tick as it is). */
uint64_t gql_trace_clock_to_ns(const gql_trace_clock *c, uint64_t tick);
/* A random non-zero 64-bit number from *state (splitmix64). */
uint64_t gql_trace_random(uint64_t *state);

#endif
