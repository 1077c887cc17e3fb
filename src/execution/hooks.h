/*
 * The tracer's private protocol with the executor.
 *
 * An embedder's gql_hooks (include/gql.h) are callbacks and a context: every
 * resolver call gets resolve_start and resolve_finish. The tracer
 * (src/trace) needs far fewer hook calls than that, and says so per planned
 * field through the members below; no embedder needs them, so they are not
 * part of the public API. A gql_trace begins with a gql_exec_hooks (its
 * first member: gql_execute_params.trace and gql_prepare_options.trace are
 * read through it), and tests drive the protocol directly through
 * gql_exec_run.
 */
#ifndef GQL_EXEC_HOOKS_H
#define GQL_EXEC_HOOKS_H

#include "gql.h"

typedef struct gql_exec_hooks {
  gql_hooks pub; /* the callbacks and their ctx, as an embedder's */
  /* calls: optional (ncalls 0: every resolver call gets resolve_start and
   * resolve_finish). Indexed by the planned field's ordinal (ncalls
   * entries, at least gql_prepared.nplanned: with fewer the entries are not
   * read at all), read at each call of that field: which hooks the call
   * needs, GQL_HOOK_START and/or GQL_HOOK_FINISH (read again after
   * resolve_start, which may answer for its own call's resolve_finish). A
   * call that errors, and a pending field's completion, get resolve_finish
   * whatever the entry says. The owner may change the entries at any time
   * (the tracer answers once per planned field from its first call). Once
   * a resolve_start has aborted, the entries are no longer read: every
   * later call gets resolve_start (and fails). */
  const uint8_t *calls;
  uint32_t ncalls;
  /* stamps and now: optional, with calls. A call whose entry is
   * GQL_HOOK_STAMP (no START, no FINISH) that completes synchronously
   * without an error gets no hook: the executor stores now(ctx) at its
   * completion into stamps[ordinal] (ncalls entries), the cost of a clock
   * read instead of a resolve_finish. An error still gets resolve_finish. */
  uint64_t *stamps;
  uint64_t (*now)(void *ctx);
  /* now_tsc: now(ctx) returns the time-stamp counter (x86 __rdtsc()): the
   * executor may read it inline instead of calling now. */
  bool now_tsc;
  /* starts: optional, with calls and now (ncalls entries). A call whose
   * entry has GQL_HOOK_ENTRY stores now(ctx) at its entry into
   * starts[ordinal] and clears that bit of its entry (so calls then points
   * to writable memory); the rest of the entry then applies to the call
   * (with no GQL_HOOK_START: no resolve_start). The tracer's answer for the
   * first call of a planned field whose span it makes at the finish. */
  uint64_t *starts;
  /* last_stamps: with stamps, only the last completion of a planned field
   * needs its time (a running maximum: the tracer's collapsed spans). A
   * STAMP call of a field of a list item that is not its list's last then
   * reads no clock, when the list's items are non-null and of one object
   * type and the execution is synchronous: the next item calls the same
   * field, and that completion comes later. Its stamp is owed meanwhile
   * (GQL_STAMP_OWED). Where the next item may not get that far, the
   * executor stores now(ctx) into every owed stamp: at each error of the
   * response (an error or an abort can end the list early) and before
   * execute_error and execute_finish, which see no owed stamp. */
  bool last_stamps;
} gql_exec_hooks;

#define GQL_STAMP_OWED UINT64_MAX
enum {
  GQL_HOOK_START = 1,
  GQL_HOOK_FINISH = 2,
  GQL_HOOK_STAMP = 4,
  GQL_HOOK_ENTRY = 8
};

/* The protocol of a trace (gql_execute_params.trace and
 * gql_prepare_options.trace): the gql_exec_hooks a gql_trace begins with. */
static inline const gql_exec_hooks *gql_exec_trace_hooks(const gql_trace *tr) {
  return (const gql_exec_hooks *)(const void *)tr;
}

/* A tracer's protocol with subscriptions (gql_subscribe_params.tracer): a
 * gql_tracer begins with this (its first member), so that each event's
 * execution begins and ends a trace of its own through the tracer's
 * functions, never by calling into src/trace. */
typedef struct gql_exec_tracer {
  /* A trace of `p` for one execution (NULL: none, out of memory). */
  gql_trace *(*begin)(gql_tracer *t, const gql_trace_options *o,
                      const gql_prepared *p);
  void (*end)(gql_trace *tr); /* queues its spans; NULL is allowed */
} gql_exec_tracer;

static inline const gql_exec_tracer *gql_exec_tracer_of(const gql_tracer *t) {
  return (const gql_exec_tracer *)(const void *)t;
}

/* gql_execute with the protocol given directly (params->hooks and
 * params->trace are not read): what the tracer's tests use. */
int gql_exec_run(const gql_prepared *p, const gql_execute_params *params,
                 const gql_exec_hooks *hooks);

#endif
