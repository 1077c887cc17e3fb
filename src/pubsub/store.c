/* The APQ store (see persisted.h): a local LRU with a byte budget in front
 * of Redis. Keys are the 64 hex digits of the query's SHA-256; Redis holds
 * PREFIX + key (Apollo's "apq:" by default). A value read from Redis is
 * hashed again before use, so a key written by anything else cannot make
 * a replica run a document that does not match its hash. */
#include "persisted.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct entry {
  uint64_t hash;
  char key[64];
  char *text;
  size_t len, bytes;
  struct entry *hnext, *prev, *next;
} entry;

typedef struct lookup {
  gql_pq_store *s; /* NULL once the store is gone */
  gql_pq_lookup_cb cb;
  void *ud;
  char key[64];
  struct lookup *prev, *next;
} lookup;

struct gql_pq_store {
  gql_redis *redis;
  gql_pq_store_options o;
  entry **buckets;
  size_t nbuckets; /* power of two */
  entry lru;       /* sentinel: lru.next is the most recent */
  uint64_t seed;
  lookup pending; /* sentinel */
  gql_pq_store_stats st;
};

/* ------------------------------------------------------------------ LRU */

static void lru_unlink(entry *e) {
  e->prev->next = e->next;
  e->next->prev = e->prev;
}

static void lru_front(gql_pq_store *s, entry *e) {
  e->prev = &s->lru;
  e->next = s->lru.next;
  s->lru.next->prev = e;
  s->lru.next = e;
}

static entry *find(gql_pq_store *s, const char *key, uint64_t h) {
  if (!s->nbuckets)
    return NULL;
  for (entry *e = s->buckets[h & (s->nbuckets - 1)]; e; e = e->hnext)
    if (e->hash == h && memcmp(e->key, key, 64) == 0)
      return e;
  return NULL;
}

static void evict(gql_pq_store *s, entry *e) {
  entry **pp = &s->buckets[e->hash & (s->nbuckets - 1)];
  while (*pp != e)
    pp = &(*pp)->hnext;
  *pp = e->hnext;
  lru_unlink(e);
  s->st.bytes -= e->bytes;
  s->st.entries--;
  free(e->text);
  free(e);
}

static bool grow(gql_pq_store *s) {
  size_t n = s->nbuckets ? s->nbuckets * 2 : 64;
  entry **b = calloc(n, sizeof *b);
  if (!b)
    return false;
  for (size_t i = 0; i < s->nbuckets; i++)
    for (entry *e = s->buckets[i], *next; e; e = next) {
      next = e->hnext;
      e->hnext = b[e->hash & (n - 1)];
      b[e->hash & (n - 1)] = e;
    }
  free(s->buckets);
  s->buckets = b;
  s->nbuckets = n;
  return true;
}

static void local_put(gql_pq_store *s, const char *key, gql_str text) {
  uint64_t h = gql_hash(key, 64, s->seed);
  entry *e = find(s, key, h);
  if (e) {
    lru_unlink(e);
    lru_front(s, e);
    return;
  }
  size_t bytes = sizeof *e + text.len + 1;
  if (bytes > s->o.local_bytes / 4)
    return; /* would flush a quarter of the cache for one query */
  if (s->st.entries + 1 > s->nbuckets && !grow(s))
    return;
  e = calloc(1, sizeof *e);
  char *copy = e ? malloc(text.len + 1) : NULL;
  if (!copy) {
    free(e);
    return;
  }
  memcpy(copy, text.ptr, text.len);
  copy[text.len] = 0;
  while (s->st.bytes + bytes > s->o.local_bytes && s->lru.prev != &s->lru) {
    evict(s, s->lru.prev);
    s->st.evictions++;
  }
  *e = (entry){.hash = h, .text = copy, .len = text.len, .bytes = bytes};
  memcpy(e->key, key, 64);
  size_t b = h & (s->nbuckets - 1);
  e->hnext = s->buckets[b];
  s->buckets[b] = e;
  lru_front(s, e);
  s->st.bytes += bytes;
  s->st.entries++;
}

/* ---------------------------------------------------------------- store */

int gql_pq_store_new(gql_redis *redis, const gql_pq_store_options *o,
                     gql_pq_store **out) {
  gql_pq_store *s = calloc(1, sizeof *s);
  if (!s)
    return GQL_ENOMEM;
  s->redis = redis;
  s->o = o ? *o : (gql_pq_store_options){0};
  if (!s->o.local_bytes)
    s->o.local_bytes = (size_t)8 << 20;
  if (!s->o.prefix)
    s->o.prefix = "apq:";
  if (strlen(s->o.prefix) > 64)
    s->o.prefix = "apq:";
  if (!s->o.lookup_timeout_ms)
    s->o.lookup_timeout_ms = 50;
  if (!s->o.max_query_bytes)
    s->o.max_query_bytes = (size_t)1 << 20;
  s->lru.next = s->lru.prev = &s->lru;
  s->pending.next = s->pending.prev = &s->pending;
  s->seed = gql_hash_seed();
  *out = s;
  return 0;
}

void gql_pq_store_free(gql_pq_store *s) {
  if (!s)
    return;
  while (s->lru.next != &s->lru)
    evict(s, s->lru.next);
  free(s->buckets);
  /* Lookups still waiting for Redis: their record stays for the Redis
   * callback, which then answers "not found" without the store. */
  for (lookup *l = s->pending.next; l != &s->pending;) {
    lookup *next = l->next;
    l->s = NULL;
    l->prev = l->next = NULL;
    l = next;
  }
  free(s);
}

static size_t redis_key(const gql_pq_store *s, const char *key, char *out) {
  size_t p = strlen(s->o.prefix);
  memcpy(out, s->o.prefix, p);
  memcpy(out + p, key, 64);
  return p + 64;
}

static void on_get(void *ud, gql_redis_status st,
                   const gql_redis_reply *reply) {
  lookup *l = ud;
  gql_pq_store *s = l->s;
  bool found = false;
  gql_str text = {"", 0};
  if (s) {
    l->prev->next = l->next;
    l->next->prev = l->prev;
    if (st == GQL_REDIS_OK &&
        gql_redis_reply_type(reply) == GQL_REDIS_REPLY_STRING) {
      text = gql_redis_reply_str(reply);
      char computed[65];
      gql_pq_sha256_hex(text.ptr, text.len, computed);
      if (memcmp(computed, l->key, 64) == 0) {
        found = true;
        s->st.redis_hits++;
        local_put(s, l->key, text);
      } else {
        s->st.corrupt++;
        s->st.misses++;
      }
    } else if (st == GQL_REDIS_OK &&
               gql_redis_reply_type(reply) == GQL_REDIS_REPLY_NIL) {
      s->st.misses++;
    } else {
      s->st.redis_failed++;
      s->st.misses++;
    }
  }
  gql_pq_lookup_cb cb = l->cb;
  void *cud = l->ud;
  free(l);
  cb(cud, found, found ? text : (gql_str){"", 0});
}

int gql_pq_store_get(gql_pq_store *s, const char *key, gql_arena *arena,
                     gql_str *text, gql_pq_lookup_cb cb, void *ud) {
  uint64_t h = gql_hash(key, 64, s->seed);
  entry *e = find(s, key, h);
  if (e) {
    char *copy = gql_arena_strndup(arena, e->text, e->len);
    if (!copy)
      return GQL_PQ_MISS;
    lru_unlink(e);
    lru_front(s, e);
    s->st.local_hits++;
    *text = (gql_str){copy, e->len};
    return GQL_PQ_HIT;
  }
  if (!s->redis || !cb) {
    s->st.misses++;
    return GQL_PQ_MISS;
  }
  lookup *l = calloc(1, sizeof *l);
  if (!l) {
    s->st.misses++;
    return GQL_PQ_MISS;
  }
  *l = (lookup){.s = s, .cb = cb, .ud = ud};
  memcpy(l->key, key, 64);
  char rk[160];
  const char *argv[2] = {"GET", rk};
  size_t lens[2] = {3, redis_key(s, key, rk)};
  gql_redis_status st = gql_redis_command(s->redis, 2, argv, lens,
                                          s->o.lookup_timeout_ms, on_get, l);
  if (st != GQL_REDIS_OK) {
    /* Down, full or closing: "not found" now; the client resends the
     * query, which then runs without Redis. */
    free(l);
    s->st.redis_refused++;
    s->st.misses++;
    return GQL_PQ_MISS;
  }
  l->prev = s->pending.prev;
  l->next = &s->pending;
  s->pending.prev->next = l;
  s->pending.prev = l;
  return GQL_PQ_PENDING;
}

static void on_set(void *ud, gql_redis_status st,
                   const gql_redis_reply *reply) {
  /* ud: a heap counter of failures would outlive the store; the store's
   * stats are not touched here (the store may be gone). */
  (void)ud;
  (void)st;
  (void)reply;
}

void gql_pq_store_put(gql_pq_store *s, const char *key, gql_str text) {
  if (text.len > s->o.max_query_bytes)
    return;
  s->st.puts++;
  local_put(s, key, text);
  if (!s->redis)
    return;
  char rk[160], ttl[24];
  const char *argv[5] = {"SET", rk, text.ptr, "EX", ttl};
  size_t lens[5] = {3, redis_key(s, key, rk), text.len, 2, 0};
  int argc = 3;
  if (s->o.ttl_s) {
    lens[4] = (size_t)snprintf(ttl, sizeof ttl, "%u", s->o.ttl_s);
    argc = 5;
  }
  /* The write waits for nothing: its own deadline is generous. */
  if (gql_redis_command(s->redis, argc, argv, lens, 1000, on_set, NULL) !=
      GQL_REDIS_OK)
    s->st.put_failed++;
}

void gql_pq_store_stats_get(const gql_pq_store *s, gql_pq_store_stats *out) {
  *out = s->st;
}
