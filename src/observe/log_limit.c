/* Rate-limited log lines (log_limit.h): a small table under a lock, scanned
 * (64 keys at most, and only when a line is due to be written). */
#include "log_limit.h"

#include <time.h>

uint64_t gql_log_limit_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gql_log_limit_init(gql_log_limit *l, uint64_t interval_ns) {
  memset(l, 0, sizeof *l);
  pthread_mutex_init(&l->mu, NULL);
  l->interval_ns = interval_ns;
}

void gql_log_limit_free(gql_log_limit *l) {
  pthread_mutex_destroy(&l->mu);
}

bool gql_log_limit_take(gql_log_limit *l, uint64_t key, uint64_t now_ns,
                        uint64_t *held) {
  *held = 0;
  pthread_mutex_lock(&l->mu);
  uint32_t i = 0, oldest = 0;
  while (i < l->n && l->keys[i].key != key) {
    if (l->keys[i].last_ns < l->keys[oldest].last_ns)
      oldest = i;
    i++;
  }
  bool write = true;
  if (i == l->n) { /* a new key: a free slot, else the stalest one's */
    if (l->n < GQL_LOG_LIMIT_KEYS)
      l->n++;
    else
      i = oldest;
    l->keys[i].key = key;
    l->keys[i].held = 0;
  } else if (now_ns - l->keys[i].last_ns < l->interval_ns) {
    l->keys[i].held++;
    write = false;
  }
  if (write) {
    *held = l->keys[i].held;
    l->keys[i].held = 0;
    l->keys[i].last_ns = now_ns;
  }
  pthread_mutex_unlock(&l->mu);
  return write;
}
