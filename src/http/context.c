/* A worker's state shared by its connections: the options with their
 * defaults, the current generation with its document cache, and the pool
 * of request memory. */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>

void gql_http_options_resolve(const gql_http_options *opt,
                              gql_http_options *out) {
  *out = opt ? *opt : (gql_http_options){0};
  if (!out->host)
    out->host = "127.0.0.1";
  if (!out->port)
    out->port = 4000;
  if (!out->path)
    out->path = "/graphql";
  if (!out->max_body)
    out->max_body = (size_t)1 << 20;
  if (!out->max_header_bytes)
    out->max_header_bytes = 16 * 1024;
  if (!out->max_headers)
    out->max_headers = 100;
  if (!out->max_connections)
    out->max_connections = 10000;
  if (!out->idle_timeout_ms)
    out->idle_timeout_ms = 30000;
  if (!out->request_timeout_ms)
    out->request_timeout_ms = 10000;
  if (!out->shutdown_timeout_ms)
    out->shutdown_timeout_ms = 10000;
  if (!out->cache_bytes)
    out->cache_bytes = (size_t)16 << 20;
  if (!out->log_level_set)
    out->log_level = GQL_HTTP_LOG_WARN;
  out->log_level_set = true;
  if (!out->log)
    out->log = stderr;
}

int gql_http_ctx_init(gql_http_ctx *x, gql_schema *schema,
                      const gql_http_options *resolved, uint64_t seed) {
  memset(x, 0, sizeof *x);
  x->opt = resolved;
  x->seed = seed;
  atomic_init(&x->next, NULL);
  /* The first generation: the schema and options the server was made
   * with (a worker's own; nothing to release). */
  gql_http_generation g = {.schema = schema,
                           .root_value = resolved->root_value,
                           .max_depth = resolved->max_depth,
                           .max_height = resolved->max_height,
                           .max_aliases = resolved->max_aliases,
                           .max_root_fields = resolved->max_root_fields,
                           .no_introspection = resolved->no_introspection};
  gql_http_pin *p = calloc(1, sizeof *p);
  if (!p || !(p->gen = gql_http_gen_new(&g, 1, 0))) {
    free(p);
    return GQL_ENOMEM;
  }
  p->refs = 1;
  gql_http_cache_init(&p->cache, resolved->cache_bytes, seed);
  x->pin = p;
  return 0;
}

static void slot_free(gql_http_slot *s) {
  gql_arena_free(s->arena);
  gql_output_free(&s->output);
  free(s);
}

void gql_http_ctx_free(gql_http_ctx *x) {
  gql_http_pin_release(x->pin);
  x->pin = NULL;
  gql_http_gen_release(atomic_exchange(&x->next, NULL));
  while (x->free_slots) {
    gql_http_slot *s = x->free_slots;
    x->free_slots = s->next;
    slot_free(s);
  }
  x->nfree_slots = 0;
}

gql_http_slot *gql_http_slot_take(gql_http_ctx *x) {
  gql_http_slot *s = x->free_slots;
  if (s) {
    x->free_slots = s->next;
    x->nfree_slots--;
  } else {
    s = calloc(1, sizeof *s);
    if (!s)
      return NULL;
    if (!(s->arena = gql_arena_new(NULL))) {
      free(s);
      return NULL;
    }
  }
  /* A request may use memory in proportion to its input, within reason
   * (set again on each take: gql_http_server_update changes max_body). */
  gql_arena_set_limit(s->arena,
                      64 * HTTP_LIVE(x->opt, max_body) + ((size_t)64 << 20));
  return s;
}

void gql_http_slot_give(gql_http_ctx *x, gql_http_slot *s) {
  if (x->nfree_slots >= 16) {
    slot_free(s);
    return;
  }
  gql_arena_reset(s->arena);
  if (s->output.cap > ((size_t)1 << 20))
    gql_output_free(&s->output);
  s->next = x->free_slots;
  x->free_slots = s;
  x->nfree_slots++;
}
