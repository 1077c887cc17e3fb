/* Rate-limited log lines (src/observe/log_limit.c): one line per key per
 * interval, the count of those held back told with the next one, keys
 * apart, the stalest key forgotten past the table, and a count that stays
 * exact under threads. */
#include "observe/log_limit.h"

#include <criterion/criterion.h>

#define SEC ((uint64_t)1000000000)

Test(log_limit, one_line_per_key_per_interval_then_the_held_back_count) {
  gql_log_limit l;
  gql_log_limit_init(&l, 10 * SEC);
  uint64_t held = 99;
  uint64_t t0 = 1000 * SEC;
  cr_assert(gql_log_limit_take(&l, 7, t0, &held));
  cr_assert_eq(held, 0, "a key's first line");
  for (int i = 1; i <= 50; i++)
    cr_assert_not(gql_log_limit_take(&l, 7, t0 + (uint64_t)i * SEC / 10, &held),
                  "line %d within the interval", i);
  cr_assert(gql_log_limit_take(&l, 8, t0 + SEC, &held), "another key");
  cr_assert_eq(held, 0);
  cr_assert_not(gql_log_limit_take(&l, 7, t0 + 10 * SEC - 1, &held));
  cr_assert(gql_log_limit_take(&l, 7, t0 + 10 * SEC, &held));
  cr_assert_eq(held, 51, "the 51 held back since the first line");
  cr_assert(gql_log_limit_take(&l, 7, t0 + 30 * SEC, &held));
  cr_assert_eq(held, 0, "none since");
  gql_log_limit_free(&l);
}

Test(log_limit, past_the_table_the_stalest_key_is_forgotten) {
  gql_log_limit l;
  gql_log_limit_init(&l, 10 * SEC);
  uint64_t held, t0 = 5 * SEC;
  for (uint64_t k = 0; k < GQL_LOG_LIMIT_KEYS; k++)
    cr_assert(gql_log_limit_take(&l, k, t0 + k, &held));
  for (uint64_t k = 0; k < GQL_LOG_LIMIT_KEYS; k++)
    cr_assert_not(gql_log_limit_take(&l, k, t0 + SEC, &held));
  /* a new key takes key 0's place (written first)... */
  cr_assert(gql_log_limit_take(&l, 1000, t0 + 2 * SEC, &held));
  cr_assert_eq(held, 0);
  /* ...so key 0 writes again at once, key 1 (remembered) does not */
  cr_assert(gql_log_limit_take(&l, 0, t0 + 2 * SEC, &held));
  cr_assert_eq(held, 0, "its count went with it");
  cr_assert_not(gql_log_limit_take(&l, 2, t0 + 2 * SEC, &held));
  gql_log_limit_free(&l);
}

typedef struct shared {
  gql_log_limit l;
  _Atomic int written;
} shared;

static void *hammer(void *ud) {
  shared *s = ud;
  uint64_t held;
  for (int i = 0; i < 10000; i++)
    if (gql_log_limit_take(&s->l, 1, SEC, &held))
      s->written++;
  return NULL;
}

Test(log_limit, threads_share_one_line_and_one_count) {
  shared s = {.written = 0};
  gql_log_limit_init(&s.l, 10 * SEC);
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, hammer, &s);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  cr_assert_eq(s.written, 1);
  uint64_t held;
  cr_assert(gql_log_limit_take(&s.l, 1, 11 * SEC, &held));
  cr_assert_eq(held, 39999);
  gql_log_limit_free(&s.l);
}
