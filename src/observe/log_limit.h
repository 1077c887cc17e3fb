/* Rate-limited log lines: at most one line per key (a channel and a
 * reason, say) per interval, and the count of the lines held back since
 * that key's previous one, so that a flood of the same complaint costs one
 * line per interval and still says how big it was (log_limit.c).
 *
 * Any thread: one lock, taken only on the path of a would-be line. It
 * remembers GQL_LOG_LIMIT_KEYS keys; a new key past them takes the place
 * of the one written least recently (whose held-back count is forgotten:
 * a counter elsewhere should keep the totals). */
#ifndef GQL_OBSERVE_LOG_LIMIT_H
#define GQL_OBSERVE_LOG_LIMIT_H

#include "core/core.h"

#include <pthread.h>

enum { GQL_LOG_LIMIT_KEYS = 64 };

typedef struct gql_log_limit {
  pthread_mutex_t mu;
  uint64_t interval_ns;
  uint32_t n; /* keys in use */
  struct {
    uint64_t key;
    uint64_t last_ns; /* of its last line written */
    uint64_t held;    /* lines held back since */
  } keys[GQL_LOG_LIMIT_KEYS];
} gql_log_limit;

void gql_log_limit_init(gql_log_limit *l, uint64_t interval_ns);
void gql_log_limit_free(gql_log_limit *l);

/* Whether key's line at now_ns (a monotonic clock) is written: true, with
 * *held the lines of that key held back since its previous line (0 for a
 * key's first line); false when one was written less than the interval
 * ago (this one is counted as held back). */
bool gql_log_limit_take(gql_log_limit *l, uint64_t key, uint64_t now_ns,
                        uint64_t *held);

/* The monotonic clock in ns, for gql_log_limit_take's now_ns. */
uint64_t gql_log_limit_now(void);

#endif
