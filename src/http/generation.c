/* Generations: the schema, root value and operation limits requests run on,
 * replaced at run time without a lock on the request path and without
 * dropping a request (hot reload).
 *
 * The swapping thread puts a new generation, with one reference per
 * worker, in each worker's slot (x->next, atomic) and wakes the worker.
 * Between two requests the worker takes it out of its slot (an exchange:
 * the reference is its own from then on), prepares on it the operations it
 * used most recently (so that the first requests after the switch do not
 * pay for parsing and validation, which is what makes latency spike in
 * Apollo Router's issue #2308), and makes it current. Each request holds
 * the pin of the generation it started on until its response is written;
 * the old pin goes once its last request has, and with it the worker's
 * reference to the old generation: the last one runs its release. */
#include "http.h"

#include <stdlib.h>

gql_http_gen *gql_http_gen_new(const gql_http_generation *g, unsigned refs,
                               uint64_t id) {
  gql_http_gen *gen = malloc(sizeof *gen);
  if (!gen)
    return NULL;
  gen->g = *g;
  gen->id = id;
  atomic_init(&gen->refs, refs);
  return gen;
}

void gql_http_gen_release(gql_http_gen *gen) {
  if (!gen || atomic_fetch_sub(&gen->refs, 1) != 1)
    return;
  if (gen->g.release)
    gen->g.release(gen->g.ud);
  free(gen);
}

void gql_http_pin_release(gql_http_pin *p) {
  if (!p || --p->refs)
    return;
  gql_http_cache_free(&p->cache);
  gql_http_gen_release(p->gen);
  free(p);
}

void gql_http_judge_limits(const gql_http_generation *o,
                           gql_http_cache_entry *e) {
  if (!o->max_depth && !o->max_height && !o->max_aliases &&
      !o->max_root_fields && !o->no_introspection)
    return;
  gql_operation_shape sh;
  if (gql_prepared_shape(e->prepared, &sh) < 0)
    return;
  /* Apollo Router's words and codes */
  if (o->max_depth && sh.depth > o->max_depth) {
    e->refusal = "Maximum depth limit exceeded in this operation";
    e->refusal_code = "MAX_DEPTH_LIMIT";
  } else if (o->max_height && sh.height > o->max_height) {
    e->refusal =
        "Maximum height (field count) limit exceeded in this operation";
    e->refusal_code = "MAX_HEIGHT_LIMIT";
  } else if (o->max_root_fields && sh.root_fields > o->max_root_fields) {
    e->refusal = "Maximum root fields limit exceeded in this operation";
    e->refusal_code = "MAX_ROOT_FIELDS_LIMIT";
  } else if (o->max_aliases && sh.aliases > o->max_aliases) {
    e->refusal = "Maximum aliases limit exceeded in this operation";
    e->refusal_code = "MAX_ALIASES_LIMIT";
  } else if (o->no_introspection && sh.introspection) {
    e->refusal = "GraphQL introspection is not allowed, but the query "
                 "contained __schema or __type";
    e->refusal_code = "INTROSPECTION_DISABLED";
  }
}

/* Prepares the `n` most recently used operations of `from` on `to`'s
 * schema into its cache, least recent first so that the order stays. An
 * operation that no longer validates is left out (its next request gets
 * the errors). */
static void warm(gql_http_ctx *x, gql_http_pin *from, gql_http_pin *to,
                 unsigned n) {
  gql_http_cache_entry *e = &from->cache.lru;
  unsigned k = 0;
  while (k < n && e->next != &from->cache.lru)
    e = e->next, k++;
  if (!k)
    return;
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return;
  gql_prepare_options po = {.parse = x->opt->parse,
                            .max_plan_size = x->opt->max_plan_size};
  for (; e != &from->cache.lru; e = e->prev) {
    const char *op = e->has_op ? e->key + e->query_len + 1 : NULL;
    gql_prepared *prep = NULL;
    gql_errors errors = {.arena = arena};
    if (gql_prepare(to->gen->g.schema, e->key, e->query_len, op, &po, &prep,
                    &errors) == 0) {
      gql_http_cache_entry *ne =
          gql_http_cache_put(&to->cache, (gql_str){e->key, e->query_len}, op,
                             op ? e->key_len - e->query_len - 1 : 0, prep);
      if (ne)
        gql_http_judge_limits(&to->gen->g, ne);
      gql_http_cache_release(ne);
    }
    gql_arena_reset(arena);
  }
  gql_arena_free(arena);
}

void gql_http_gen_poll(gql_http_ctx *x) {
  if (!atomic_load_explicit(&x->next, memory_order_relaxed))
    return;
  gql_http_gen *gen = atomic_exchange(&x->next, NULL);
  if (!gen)
    return;
  gql_http_pin *p = calloc(1, sizeof *p);
  if (!p) {
    gql_http_log(x->opt, GQL_HTTP_LOG_ERROR,
                 "out of memory: generation %llu not taken up",
                 (unsigned long long)gen->id);
    gql_http_gen_release(gen);
    return;
  }
  p->gen = gen;
  p->refs = 1;
  gql_http_cache_init(&p->cache, x->opt->cache_bytes, x->seed);
  if (x->pin)
    warm(x, x->pin, p, x->opt->warm_operations ? x->opt->warm_operations : 64);
  gql_http_pin *old = x->pin;
  x->pin = p;
  /* the executor moves while the old generation is still held, so that
   * nothing of it is freed (and its memory reused) before it has */
  const gql_http_executor *ex = x->opt->executor;
  if (ex && ex->generation)
    ex->generation(x->exec_worker, gen->g.ud);
  gql_http_pin_release(old);
}
