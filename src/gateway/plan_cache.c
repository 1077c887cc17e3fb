/*
 * Plans cached by operation text and name, least recently used first out
 * once their bytes pass the budget. Each plan lives in its own arena with
 * the copy of the text its AST points into, so evicting one frees exactly
 * its memory: a stream of distinct operations keeps the cache at its
 * budget instead of growing. A plan is reference counted: a request holds
 * it from get to release, so eviction never frees a plan that a request
 * waiting on its subgraphs still walks.
 */
#include "gateway.h"

#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_BUDGET ((size_t)64 << 20)

struct gql_gw_plan_ref {
  uint64_t hash;
  const char *key; /* text, NUL, operation name: in the arena */
  size_t key_len;
  gql_arena *arena;
  gql_gw_plan *plan;
  size_t bytes;
  unsigned refs; /* the cache's own (while cached) + holders */
  bool cached;
  gql_gw_plan_ref *hnext, *prev, *next;
};

struct gql_gw_plan_cache {
  const gql_supergraph *sg;
  gql_gw_plan_ref **buckets;
  size_t nbuckets; /* power of two */
  size_t count, bytes, budget;
  uint64_t seed;
  gql_gw_plan_ref lru; /* sentinel: lru.next is the most recent */
  uint64_t hits, misses, evictions;
  char err[256]; /* the last error's message (its arena is gone) */
};

gql_gw_plan_cache *gql_gw_plan_cache_new(const gql_supergraph *sg,
                                         size_t max_bytes) {
  gql_gw_plan_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->sg = sg;
  c->budget = max_bytes ? max_bytes : DEFAULT_BUDGET;
  /* the seed keeps a client from choosing colliding texts */
  c->seed = (uint64_t)(uintptr_t)c * 0x9e3779b97f4a7c15ull ^
            (uint64_t)(uintptr_t)&c->lru;
  c->lru.next = c->lru.prev = &c->lru;
  return c;
}

void gql_gw_plan_cache_release(gql_gw_plan_ref *r) {
  if (r && --r->refs == 0)
    gql_arena_free(r->arena); /* r lives in it */
}

static void lru_unlink(gql_gw_plan_ref *r) {
  r->prev->next = r->next;
  r->next->prev = r->prev;
  r->prev = r->next = NULL;
}

static void lru_push_front(gql_gw_plan_cache *c, gql_gw_plan_ref *r) {
  r->prev = &c->lru;
  r->next = c->lru.next;
  c->lru.next->prev = r;
  c->lru.next = r;
}

static void evict(gql_gw_plan_cache *c, gql_gw_plan_ref *r) {
  gql_gw_plan_ref **pp = &c->buckets[r->hash & (c->nbuckets - 1)];
  while (*pp != r)
    pp = &(*pp)->hnext;
  *pp = r->hnext;
  lru_unlink(r);
  r->cached = false;
  c->count--;
  c->bytes -= r->bytes;
  c->evictions++;
  gql_gw_plan_cache_release(r);
}

void gql_gw_plan_cache_free(gql_gw_plan_cache *c) {
  if (!c)
    return;
  while (c->lru.next != &c->lru)
    evict(c, c->lru.next);
  free(c->buckets);
  free(c);
}

void gql_gw_plan_cache_stats(const gql_gw_plan_cache *c,
                             gql_gw_plan_cache_info *out) {
  *out = (gql_gw_plan_cache_info){.hits = c->hits,
                                  .misses = c->misses,
                                  .evictions = c->evictions,
                                  .plans = c->count,
                                  .bytes = c->bytes,
                                  .budget = c->budget};
}

static bool grow(gql_gw_plan_cache *c) {
  size_t n = c->nbuckets ? c->nbuckets * 2 : 64;
  gql_gw_plan_ref **b = calloc(n, sizeof *b);
  if (!b)
    return false;
  for (size_t i = 0; i < c->nbuckets; i++)
    for (gql_gw_plan_ref *r = c->buckets[i], *next; r; r = next) {
      next = r->hnext;
      r->hnext = b[r->hash & (n - 1)];
      b[r->hash & (n - 1)] = r;
    }
  free(c->buckets);
  c->buckets = b;
  c->nbuckets = n;
  return true;
}

/* Parses and plans the key's text into a new reference (refs 1: the
 * caller's). */
static int plan_new(gql_gw_plan_cache *c, const char *query, size_t len,
                    const char *op_name, size_t op_len, uint64_t hash,
                    gql_gw_plan_ref **out, const char **err) {
  /* one block for a small plan: the text plus a few KiB of nodes */
  gql_arena *arena = gql_arena_new_sized(NULL, 4096 + 8 * len);
  if (!arena)
    return GQL_ENOMEM;
  gql_gw_plan_ref *r = gql_arena_alloc(arena, sizeof *r);
  char *key = gql_arena_alloc(arena, len + 1 + op_len + 1);
  if (!r || !key) {
    gql_arena_free(arena);
    return GQL_ENOMEM;
  }
  memcpy(key, query, len);
  key[len] = 0;
  if (op_len)
    memcpy(key + len + 1, op_name, op_len);
  key[len + 1 + op_len] = 0;
  *r = (gql_gw_plan_ref){
      .hash = hash, .key = key, .key_len = len + 1 + op_len, .arena = arena};
  gql_document *doc;
  gql_syntax_error se;
  int rc = gql_parse_syntax(arena, key, len, NULL, &doc, &se);
  if (rc)
    *err = se.message;
  else
    rc = gql_gw_plan_build(c->sg, doc, op_name ? key + len + 1 : NULL, arena,
                           &r->plan, err);
  if (rc) {
    /* the message may live in the arena that goes now */
    if (*err) {
      snprintf(c->err, sizeof c->err, "%s", *err);
      *err = c->err;
    }
    gql_arena_free(arena);
    return rc;
  }
  r->bytes = gql_arena_reserved(arena);
  r->refs = 1;
  *out = r;
  return 0;
}

int gql_gw_plan_cache_get(gql_gw_plan_cache *c, const char *query, size_t len,
                          const char *operation_name, const gql_gw_plan **out,
                          gql_gw_plan_ref **ref, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  *err = NULL;
  *ref = NULL;
  size_t op_len = operation_name ? strlen(operation_name) + 1 : 0;
  uint64_t hash = gql_hash(query, len, c->seed);
  if (operation_name)
    hash ^= gql_hash(operation_name, op_len - 1, ~c->seed) * 31 + 1;
  if (c->nbuckets)
    for (gql_gw_plan_ref *r = c->buckets[hash & (c->nbuckets - 1)]; r;
         r = r->hnext) {
      if (r->hash != hash || r->key_len != len + 1 + op_len ||
          memcmp(r->key, query, len) != 0 || r->key[len] != 0 ||
          (op_len && memcmp(r->key + len + 1, operation_name, op_len) != 0))
        continue;
      lru_unlink(r);
      lru_push_front(c, r);
      r->refs++;
      c->hits++;
      *out = r->plan;
      *ref = r;
      return 0;
    }
  c->misses++;
  gql_gw_plan_ref *r;
  /* the name is kept with its NUL (op_len counts it) */
  int rc = plan_new(c, query, len, operation_name, op_len, hash, &r, err);
  if (rc)
    return rc;
  *out = r->plan;
  *ref = r;
  /* a plan over a quarter of the budget is used once, not kept */
  if (r->bytes > c->budget / 4 ||
      (c->count + 1 > c->nbuckets / 2 * 3 && !grow(c)))
    return 0;
  while (c->bytes + r->bytes > c->budget && c->lru.prev != &c->lru)
    evict(c, c->lru.prev);
  size_t b = hash & (c->nbuckets - 1);
  r->hnext = c->buckets[b];
  c->buckets[b] = r;
  lru_push_front(c, r);
  r->cached = true;
  r->refs++;
  c->count++;
  c->bytes += r->bytes;
  return 0;
}

unsigned gql_gw_plan_cache_warm(gql_gw_plan_cache *to,
                                const gql_gw_plan_cache *from, unsigned n,
                                bool (*valid)(void *ud, const char *query,
                                              size_t len, const char *op),
                                void *ud) {
  const gql_gw_plan_ref *r = &from->lru;
  unsigned k = 0, planned = 0;
  while (k < n && r->next != &from->lru)
    r = r->next, k++;
  for (; r != &from->lru; r = r->prev) {
    /* the key: text, NUL, name with its NUL (none without a name); a
     * cached text is valid GraphQL, so it has no NUL of its own */
    size_t len = strlen(r->key);
    const char *op = r->key_len > len + 1 ? r->key + len + 1 : NULL;
    const gql_gw_plan *plan;
    gql_gw_plan_ref *ref = NULL;
    if (valid && !valid(ud, r->key, len, op))
      continue;
    if (gql_gw_plan_cache_get(to, r->key, len, op, &plan, &ref, NULL) == 0)
      planned++;
    gql_gw_plan_cache_release(ref);
  }
  return planned;
}
