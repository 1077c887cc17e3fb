/* The APQ store over a real redis-server: a registration on one replica is
 * found by another, the local LRU keeps its byte budget, a value that does
 * not match its hash is refused, and with Redis stopped or slow a lookup
 * answers "not found" at once or at its deadline. */
#include "pubsub/persisted.h"
#include "redis_server.h"

typedef struct replica {
  gql_redis *redis;
  gql_pq_store *store;
} replica;

typedef struct got {
  bool done, found;
  char text[256];
  uint64_t at_ms;
} got;

static void on_lookup(void *ud, bool found, gql_str text) {
  got *g = ud;
  cr_assert(!g->done, "a lookup was answered twice");
  g->done = true;
  g->found = found;
  g->at_ms = test_now_ms();
  snprintf(g->text, sizeof g->text, "%.*s", (int)text.len, text.ptr);
}

static uv_loop_t loop;
static test_redis srv;
static char url[128];

static void wait_ready(gql_redis *r) {
  uint64_t end = test_now_ms() + 3000;
  bool nf = false;
  while (gql_redis_get_state(r) != GQL_REDIS_STATE_READY && test_now_ms() < end)
    test_run_until(&loop, &nf, 10);
  cr_assert_eq(gql_redis_get_state(r), GQL_REDIS_STATE_READY);
}

static replica open_replica(const gql_pq_store_options *so,
                            const gql_redis_options *ro) {
  replica r = {0};
  gql_redis_options o = ro ? *ro : (gql_redis_options){0};
  o.url = url;
  char err[128];
  cr_assert_eq(gql_redis_new(&loop, &o, &r.redis, err, sizeof err), 0);
  cr_assert_eq(gql_pq_store_new(r.redis, so, &r.store), 0);
  wait_ready(r.redis);
  return r;
}

static void close_replica(replica *r) {
  bool closed = false;
  gql_redis_close(r->redis, NULL, NULL);
  test_run_until(&loop, &closed, 50);
  gql_pq_store_free(r->store);
}

static void setup(void) {
  uv_loop_init(&loop);
  memset(&srv, 0, sizeof srv);
  test_redis_start(&srv);
  snprintf(url, sizeof url, "redis://127.0.0.1:%d", srv.port);
}

static void teardown(void) {
  test_redis_stop(&srv);
  bool nf = false;
  test_run_until(&loop, &nf, 20);
  uv_run(&loop, UV_RUN_NOWAIT);
  uv_loop_close(&loop);
}

TestSuite(store, .init = setup, .fini = teardown);

static const char *key_of(const char *q, char out[65]) {
  gql_pq_sha256_hex(q, strlen(q), out);
  return out;
}

Test(store, a_registration_on_one_replica_is_found_by_another) {
  replica a = open_replica(NULL, NULL), b = open_replica(NULL, NULL);
  const char *q = "{ hero { name } }";
  char key[65];
  key_of(q, key);
  gql_arena *ar = gql_arena_new(NULL);
  gql_str text;
  got g0 = {0};
  /* Not registered anywhere yet: b asks Redis, which has nothing. */
  cr_assert_eq(gql_pq_store_get(b.store, key, ar, &text, on_lookup, &g0),
               GQL_PQ_PENDING);
  cr_assert(test_run_until(&loop, &g0.done, 1000));
  cr_assert(!g0.found);
  gql_pq_store_put(a.store, key, gql_cstr(q));
  /* a has it locally at once. */
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, NULL, NULL),
               GQL_PQ_HIT);
  cr_assert(gql_str_eq_cstr(text, q));
  /* b finds it through Redis, then locally. */
  bool nf = false;
  test_run_until(&loop, &nf, 50); /* let the SET reach Redis */
  got g = {0};
  cr_assert_eq(gql_pq_store_get(b.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_PENDING);
  cr_assert(test_run_until(&loop, &g.done, 1000));
  cr_assert(g.found);
  cr_assert_str_eq(g.text, q);
  cr_assert_eq(gql_pq_store_get(b.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_HIT);
  gql_pq_store_stats st;
  gql_pq_store_stats_get(b.store, &st);
  cr_assert_eq(st.redis_hits, 1);
  cr_assert_eq(st.local_hits, 1);
  /* Apollo's key layout in Redis: apq:<hash>. */
  redisContext *c = test_redis_sync(&srv);
  redisReply *r = redisCommand(c, "GET apq:%s", key);
  cr_assert_eq(r->type, REDIS_REPLY_STRING);
  cr_assert_str_eq(r->str, q);
  freeReplyObject(r);
  redisFree(c);
  gql_arena_free(ar);
  close_replica(&a);
  close_replica(&b);
}

Test(store, registrations_expire_after_the_ttl) {
  gql_pq_store_options so = {.ttl_s = 120, .prefix = "t:"};
  replica a = open_replica(&so, NULL);
  char key[65];
  gql_pq_store_put(a.store, key_of("{a}", key), GQL_STR("{a}"));
  bool nf = false;
  test_run_until(&loop, &nf, 50);
  redisContext *c = test_redis_sync(&srv);
  redisReply *r = redisCommand(c, "TTL t:%s", key);
  cr_assert_eq(r->type, REDIS_REPLY_INTEGER);
  cr_assert(r->integer > 100 && r->integer <= 120, "ttl %lld", r->integer);
  freeReplyObject(r);
  redisFree(c);
  close_replica(&a);
}

Test(store, a_value_that_does_not_match_its_hash_is_not_run) {
  replica a = open_replica(NULL, NULL);
  char key[65];
  key_of("{ hero { name } }", key);
  redisContext *c = test_redis_sync(&srv);
  redisReply *r =
      redisCommand(c, "SET apq:%s %s", key, "mutation { deleteEverything }");
  freeReplyObject(r);
  redisFree(c);
  gql_arena *ar = gql_arena_new(NULL);
  gql_str text;
  got g = {0};
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_PENDING);
  cr_assert(test_run_until(&loop, &g.done, 1000));
  cr_assert(!g.found);
  gql_pq_store_stats st;
  gql_pq_store_stats_get(a.store, &st);
  cr_assert_eq(st.corrupt, 1);
  gql_arena_free(ar);
  close_replica(&a);
}

Test(store, the_local_lru_keeps_its_byte_budget) {
  gql_pq_store *s = NULL;
  gql_pq_store_options so = {.local_bytes = 4096};
  cr_assert_eq(gql_pq_store_new(NULL, &so, &s), 0);
  char q[64], key[65], first[65];
  for (int i = 0; i < 200; i++) {
    snprintf(q, sizeof q, "{ f%d }", i);
    gql_pq_store_put(s, key_of(q, key), gql_cstr(q));
    if (i == 0)
      memcpy(first, key, 65);
  }
  gql_pq_store_stats st;
  gql_pq_store_stats_get(s, &st);
  cr_assert_leq(st.bytes, 4096);
  cr_assert_gt(st.evictions, 100);
  gql_arena *ar = gql_arena_new(NULL);
  gql_str text;
  cr_assert_eq(gql_pq_store_get(s, first, ar, &text, NULL, NULL), GQL_PQ_MISS,
               "the oldest was evicted");
  cr_assert_eq(gql_pq_store_get(s, key, ar, &text, NULL, NULL), GQL_PQ_HIT);
  cr_assert(gql_str_eq_cstr(text, "{ f199 }"));
  gql_arena_free(ar);
  gql_pq_store_free(s);
}

Test(store, with_redis_stopped_a_lookup_misses_at_once_and_comes_back) {
  gql_redis_options ro = {.stall_ms = 200,
                          .connect_timeout_ms = 150,
                          .backoff_min_ms = 20,
                          .backoff_max_ms = 80};
  gql_pq_store_options so = {.lookup_timeout_ms = 40};
  replica a = open_replica(&so, &ro);
  char key[65];
  key_of("{ x }", key);
  gql_arena *ar = gql_arena_new(NULL);
  gql_str text;
  kill(srv.pid, SIGSTOP);
  /* Slow: the first lookups wait their 40 ms deadline, then miss. */
  got g = {0};
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_PENDING);
  uint64_t t0 = test_now_ms();
  cr_assert(test_run_until(&loop, &g.done, 1000));
  cr_assert(!g.found);
  cr_assert_lt(g.at_ms - t0, 150);
  /* Once the connection is dropped, lookups miss without waiting. */
  bool nf = false;
  test_run_until(&loop, &nf, 400);
  cr_assert_neq(gql_redis_get_state(a.redis), GQL_REDIS_STATE_READY);
  uint64_t t1 = test_now_ms();
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_MISS);
  cr_assert_lt(test_now_ms() - t1, 5);
  /* A registration meanwhile is kept locally. */
  gql_pq_store_put(a.store, key, GQL_STR("{ x }"));
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, NULL, NULL),
               GQL_PQ_HIT);
  kill(srv.pid, SIGCONT);
  wait_ready(a.redis);
  char k2[65];
  key_of("{ y }", k2);
  gql_pq_store_put(a.store, k2, GQL_STR("{ y }"));
  test_run_until(&loop, &nf, 50);
  redisContext *c = test_redis_sync(&srv);
  redisReply *r = redisCommand(c, "EXISTS apq:%s", k2);
  cr_assert_eq(r->integer, 1, "writes reach Redis again");
  freeReplyObject(r);
  redisFree(c);
  gql_arena_free(ar);
  close_replica(&a);
}

Test(store, freeing_the_store_with_a_lookup_in_flight_is_safe) {
  replica a = open_replica(NULL, NULL);
  char key[65];
  key_of("{ z }", key);
  gql_arena *ar = gql_arena_new(NULL);
  gql_str text;
  got g = {0};
  cr_assert_eq(gql_pq_store_get(a.store, key, ar, &text, on_lookup, &g),
               GQL_PQ_PENDING);
  gql_pq_store_free(a.store);
  cr_assert(test_run_until(&loop, &g.done, 1000));
  cr_assert(!g.found);
  bool closed = false;
  gql_redis_close(a.redis, NULL, NULL);
  test_run_until(&loop, &closed, 50);
  gql_arena_free(ar);
}
