/* The per-thread document cache: (query text, operation name) → prepared
 * operation. One per worker thread, so no locks; entries are reference
 * counted so that eviction never frees an operation a pending request still
 * runs. */
#include "http.h"

#include <stdlib.h>
#include <xxhash.h>

static void lru_unlink(gql_http_cache_entry *e) {
  e->prev->next = e->next;
  e->next->prev = e->prev;
  e->prev = e->next = NULL;
}

static void lru_push_front(gql_http_cache *c, gql_http_cache_entry *e) {
  e->prev = &c->lru;
  e->next = c->lru.next;
  c->lru.next->prev = e;
  c->lru.next = e;
}

void gql_http_cache_init(gql_http_cache *c, size_t budget, uint64_t seed) {
  *c = (gql_http_cache){.budget = budget, .seed = seed};
  c->lru.next = c->lru.prev = &c->lru;
}

static void entry_free(gql_http_cache_entry *e) {
  gql_prepared_free(e->prepared);
  free(e->key);
  free(e);
}

void gql_http_cache_release(gql_http_cache_entry *e) {
  if (e && --e->refs == 0)
    entry_free(e);
}

static uint64_t key_hash(const gql_http_cache *c, gql_str query, const char *op,
                         size_t op_len) {
  uint64_t h = XXH3_64bits_withSeed(query.ptr, query.len, c->seed);
  if (op)
    h ^=
        XXH3_64bits_withSeed(op, op_len, c->seed ^ 0x9e3779b97f4a7c15ull) * 31 +
        1;
  return h;
}

static bool entry_matches(const gql_http_cache_entry *e, gql_str query,
                          const char *op, size_t op_len) {
  if (e->query_len != query.len || e->has_op != (op != NULL))
    return false;
  if (memcmp(e->key, query.ptr, query.len) != 0)
    return false;
  if (!op)
    return true;
  return e->key_len - e->query_len - 1 == op_len &&
         memcmp(e->key + e->query_len + 1, op, op_len) == 0;
}

gql_http_cache_entry *gql_http_cache_get(gql_http_cache *c, gql_str query,
                                         const char *op, size_t op_len) {
  if (!c->nbuckets) {
    c->misses++;
    return NULL;
  }
  uint64_t h = key_hash(c, query, op, op_len);
  for (gql_http_cache_entry *e = c->buckets[h & (c->nbuckets - 1)]; e;
       e = e->hnext) {
    if (e->hash == h && entry_matches(e, query, op, op_len)) {
      lru_unlink(e);
      lru_push_front(c, e);
      e->refs++;
      c->hits++;
      return e;
    }
  }
  c->misses++;
  return NULL;
}

static void bucket_remove(gql_http_cache *c, gql_http_cache_entry *e) {
  gql_http_cache_entry **pp = &c->buckets[e->hash & (c->nbuckets - 1)];
  while (*pp != e)
    pp = &(*pp)->hnext;
  *pp = e->hnext;
  e->hnext = NULL;
}

static void evict(gql_http_cache *c, gql_http_cache_entry *e) {
  bucket_remove(c, e);
  lru_unlink(e);
  e->cached = false;
  c->count--;
  c->bytes -= e->bytes;
  c->evictions++;
  gql_http_cache_release(e);
}

static bool grow(gql_http_cache *c) {
  size_t n = c->nbuckets ? c->nbuckets * 2 : 64;
  gql_http_cache_entry **b = calloc(n, sizeof *b);
  if (!b)
    return false;
  for (size_t i = 0; i < c->nbuckets; i++) {
    for (gql_http_cache_entry *e = c->buckets[i], *next; e; e = next) {
      next = e->hnext;
      e->hnext = b[e->hash & (n - 1)];
      b[e->hash & (n - 1)] = e;
    }
  }
  free(c->buckets);
  c->buckets = b;
  c->nbuckets = n;
  return true;
}

gql_http_cache_entry *gql_http_cache_put(gql_http_cache *c, gql_str query,
                                         const char *op, size_t op_len,
                                         gql_prepared *p) {
  gql_http_cache_entry *e = calloc(1, sizeof *e);
  size_t key_len = query.len + 1 + (op ? op_len : 0);
  char *key = e ? malloc(key_len + 1) : NULL;
  if (!key) {
    free(e);
    gql_prepared_free(p);
    return NULL;
  }
  memcpy(key, query.ptr, query.len);
  key[query.len] = 0;
  if (op)
    memcpy(key + query.len + 1, op, op_len);
  key[key_len] = 0;
  *e = (gql_http_cache_entry){.hash = key_hash(c, query, op, op_len),
                              .key = key,
                              .query_len = query.len,
                              .key_len = key_len,
                              .has_op = op != NULL,
                              .prepared = p,
                              .refs = 1};
  e->bytes = sizeof *e + key_len + gql_prepared_bytes(p);
  if (e->bytes > c->budget / 4)
    return e; /* too large to keep: used once */
  if (c->count + 1 > c->nbuckets && !grow(c))
    return e;
  while (c->bytes + e->bytes > c->budget && c->lru.prev != &c->lru)
    evict(c, c->lru.prev);
  size_t b = e->hash & (c->nbuckets - 1);
  e->hnext = c->buckets[b];
  c->buckets[b] = e;
  lru_push_front(c, e);
  e->cached = true;
  e->refs++;
  c->count++;
  c->bytes += e->bytes;
  return e;
}

void gql_http_cache_free(gql_http_cache *c) {
  while (c->lru.next != &c->lru)
    evict(c, c->lru.next);
  free(c->buckets);
  c->buckets = NULL;
  c->nbuckets = 0;
}
