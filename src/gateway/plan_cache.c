/*
 * Plans cached by operation text and name. Cached plans (and the parsed
 * documents they point into) live in the cache's arena until the cache is
 * freed; once the byte budget is spent, misses are planned in the
 * caller's arena and not kept, so no returned plan is ever freed under a
 * request that still uses it.
 */
#include "gateway.h"

#include <stdlib.h>

#define DEFAULT_BUDGET ((size_t)64 << 20)

struct gql_gw_plan_cache {
  const gql_supergraph *sg;
  gql_arena *arena;
  gql_strmap index; /* key (text + NUL + name) -> plans[i] */
  const gql_gw_plan **plans;
  uint32_t nplans, cap;
  size_t budget;
  uint64_t hits, misses;
};

gql_gw_plan_cache *gql_gw_plan_cache_new(const gql_supergraph *sg,
                                         size_t max_bytes) {
  gql_gw_plan_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->sg = sg;
  c->budget = max_bytes ? max_bytes : DEFAULT_BUDGET;
  c->arena = gql_arena_new(NULL);
  gql_strmap_init(&c->index, NULL);
  if (!c->arena) {
    gql_gw_plan_cache_free(c);
    return NULL;
  }
  return c;
}

void gql_gw_plan_cache_free(gql_gw_plan_cache *c) {
  if (!c)
    return;
  gql_strmap_free(&c->index);
  gql_arena_free(c->arena);
  free(c->plans);
  free(c);
}

void gql_gw_plan_cache_stats(const gql_gw_plan_cache *c, uint64_t *hits,
                             uint64_t *misses) {
  *hits = c->hits;
  *misses = c->misses;
}

static int plan_into(const gql_supergraph *sg, gql_arena *arena,
                     const char *text, size_t len, const char *op_name,
                     gql_gw_plan **out, const char **err) {
  gql_document *doc;
  gql_syntax_error se;
  int rc = gql_parse_syntax(arena, text, len, NULL, &doc, &se);
  if (rc) {
    *err = se.message;
    return rc;
  }
  return gql_gw_plan_build(sg, doc, op_name, arena, out, err);
}

int gql_gw_plan_cache_get(gql_gw_plan_cache *c, const char *query, size_t len,
                          const char *operation_name, gql_arena *arena,
                          const gql_gw_plan **out, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  size_t nlen = operation_name ? strlen(operation_name) : 0;
  /* the key: text, NUL, name (a NUL cannot occur in a GraphQL source) */
  char *key = malloc(len + 1 + nlen);
  if (!key)
    return GQL_ENOMEM;
  memcpy(key, query, len);
  key[len] = 0;
  if (nlen)
    memcpy(key + len + 1, operation_name, nlen);
  uint32_t i;
  bool hit = gql_strmap_get(&c->index, (gql_str){key, len + 1 + nlen}, &i);
  free(key);
  if (hit) {
    c->hits++;
    *out = c->plans[i];
    return 0;
  }
  c->misses++;
  gql_gw_plan *plan;
  if (gql_arena_used(c->arena) >= c->budget || c->nplans == UINT32_MAX) {
    int rc = plan_into(c->sg, arena, query, len, operation_name, &plan, err);
    if (!rc)
      *out = plan;
    return rc;
  }
  /* the text is copied into the cache: the AST points into it */
  char *copy = gql_arena_alloc(c->arena, len + 1 + nlen);
  if (!copy)
    return GQL_ENOMEM;
  memcpy(copy, query, len);
  copy[len] = 0;
  if (nlen)
    memcpy(copy + len + 1, operation_name, nlen);
  int rc = plan_into(c->sg, c->arena, copy, len, operation_name, &plan, err);
  if (rc)
    return rc;
  if (c->nplans == c->cap) {
    uint32_t cap = c->cap ? c->cap * 2 : 16;
    const gql_gw_plan **plans = realloc(c->plans, cap * sizeof *plans);
    if (!plans)
      return GQL_ENOMEM;
    c->plans = plans;
    c->cap = cap;
  }
  if (gql_strmap_put(&c->index, (gql_str){copy, len + 1 + nlen}, c->nplans) < 0)
    return GQL_ENOMEM;
  c->plans[c->nplans++] = plan;
  *out = plan;
  return 0;
}
