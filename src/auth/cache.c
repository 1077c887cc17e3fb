/* The cache of verified tokens: a hash table keyed by the whole token
 * (hashed with seeded XXH3, then compared byte for byte, so a collision
 * can never admit another token), entries in least-recently-used order,
 * a byte budget. Per thread: no locks. */
#include "internal.h"

#include <stdlib.h>

typedef struct entry {
  struct entry *next;          /* in its bucket */
  struct entry *newer, *older; /* LRU list */
  uint64_t hash;
  uint64_t verifier;
  int64_t expires;
  uint32_t token_len, claims_len;
  char data[]; /* token, then claims */
} entry;

struct gql_jwt_cache {
  entry **buckets;
  uint32_t nbuckets; /* power of two */
  uint32_t count;
  size_t bytes, max_bytes;
  uint64_t seed;
  entry *newest, *oldest;
};

gql_jwt_cache *gql_jwt_cache_new(size_t max_bytes) {
  gql_jwt_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->max_bytes = max_bytes ? max_bytes : (size_t)1 << 20;
  c->nbuckets = 1024;
  c->seed = gql_hash_seed();
  if (!(c->buckets = calloc(c->nbuckets, sizeof(entry *)))) {
    free(c);
    return NULL;
  }
  return c;
}

void gql_jwt_cache_free(gql_jwt_cache *c) {
  if (!c)
    return;
  for (entry *e = c->newest, *next; e; e = next) {
    next = e->older;
    free(e);
  }
  free(c->buckets);
  free(c);
}

uint32_t gql_jwt_cache_count(const gql_jwt_cache *c) {
  return c->count;
}

static size_t entry_size(const entry *e) {
  return sizeof(entry) + e->token_len + e->claims_len;
}

static void lru_unlink(gql_jwt_cache *c, entry *e) {
  if (e->newer)
    e->newer->older = e->older;
  else
    c->newest = e->older;
  if (e->older)
    e->older->newer = e->newer;
  else
    c->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void lru_front(gql_jwt_cache *c, entry *e) {
  e->older = c->newest;
  e->newer = NULL;
  if (c->newest)
    c->newest->newer = e;
  c->newest = e;
  if (!c->oldest)
    c->oldest = e;
}

static void drop(gql_jwt_cache *c, entry *e) {
  entry **p = &c->buckets[e->hash & (c->nbuckets - 1)];
  while (*p != e)
    p = &(*p)->next;
  *p = e->next;
  lru_unlink(c, e);
  c->bytes -= entry_size(e);
  c->count--;
  free(e);
}

static entry *find(gql_jwt_cache *c, uint64_t h, const char *token,
                   size_t len) {
  for (entry *e = c->buckets[h & (c->nbuckets - 1)]; e; e = e->next)
    if (e->hash == h && e->token_len == len && memcmp(e->data, token, len) == 0)
      return e;
  return NULL;
}

bool gql_jwt_cache_get(gql_jwt_cache *c, uint64_t verifier, const char *token,
                       size_t len, int64_t now, gql_arena *arena,
                       gql_str *claims_json) {
  uint64_t h = gql_hash(token, len, c->seed);
  entry *e = find(c, h, token, len);
  if (!e)
    return false;
  if (e->verifier != verifier || now > e->expires) {
    drop(c, e); /* expired, or verified against other keys */
    return false;
  }
  if (c->newest != e) {
    lru_unlink(c, e);
    lru_front(c, e);
  }
  char *copy = gql_arena_alloc(arena, e->claims_len + 1);
  if (!copy)
    return false;
  memcpy(copy, e->data + e->token_len, e->claims_len);
  copy[e->claims_len] = 0;
  *claims_json = (gql_str){copy, e->claims_len};
  return true;
}

void gql_jwt_cache_put(gql_jwt_cache *c, uint64_t verifier, const char *token,
                       size_t len, gql_str claims_json, int64_t expires) {
  size_t size = sizeof(entry) + len + claims_json.len;
  if (size > c->max_bytes / 4)
    return; /* one token never takes a quarter of the budget */
  uint64_t h = gql_hash(token, len, c->seed);
  entry *old = find(c, h, token, len);
  if (old)
    drop(c, old);
  while (c->oldest && c->bytes + size > c->max_bytes)
    drop(c, c->oldest);
  entry *e = malloc(size);
  if (!e)
    return;
  *e = (entry){.hash = h,
               .verifier = verifier,
               .expires = expires,
               .token_len = (uint32_t)len,
               .claims_len = (uint32_t)claims_json.len};
  memcpy(e->data, token, len);
  memcpy(e->data + len, claims_json.ptr, claims_json.len);
  entry **b = &c->buckets[h & (c->nbuckets - 1)];
  e->next = *b;
  *b = e;
  lru_front(c, e);
  c->bytes += size;
  c->count++;
}
