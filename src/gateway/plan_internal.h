/*
 * Shared by the planner's files: normalize.c (the client operation into a
 * selection tree, @skip / @include decided), planner.c (the search over
 * subgraphs that places every field into fetches), batch.c (waves,
 * requests, subgraph operation text), plan_print.c and plan_variants.c.
 */
#ifndef GQL_GATEWAY_PLAN_INTERNAL_H
#define GQL_GATEWAY_PLAN_INTERNAL_H

#include "gateway.h"

#define GW_MAX_PATH 256
#define GW_MAX_FETCHES 4096
/* Fields of the normalised operation: fragments spread at every level can
 * make it exponentially larger than the text, so it is bounded (as
 * gql_prepare bounds its plans). */
#define GW_MAX_CLIENT_FIELDS 100000

typedef struct gw_memo gw_memo;
typedef struct gw_tkey gw_tkey;

/* A key or requires being estimated: (type or field entry, subgraph). */
typedef struct gw_guard {
  const void *what;
  uint32_t graph;
} gw_guard;
#define GW_MAX_GUARDS 48

typedef struct gw_planner {
  const gql_supergraph *sg;
  const gql_document *doc;
  const gql_ast_operation *op;
  gql_arena *arena;
  const char **err;
  gql_gw_plan *plan;
  /* the request this plan is for (NULL: defaults) and its labels; what
   * was consulted goes to plan->key */
  const gql_value *variables;
  uint64_t labels;
  const gql_gw_who *who; /* NULL: anonymous */
  uint32_t fetch_cap;
  gql_str path[GW_MAX_PATH];
  uint32_t path_len;
  uint32_t client_fields;
  uint32_t alias_seq;
  uint32_t nodes; /* client nodes numbered */
  gw_memo **memo; /* per client node id (planner.c) */
  uint32_t memo_cap;
  gw_tkey *tkeys; /* the gateway's fields' tree keys, by path */
  gw_guard guards[GW_MAX_GUARDS];
  uint32_t guard_depth; /* nested estimates of keys and requires */
  uint64_t budget;      /* estimate steps left (bounds planning time) */
  bool exhaustive;      /* estimates not cut at a known cheaper way (the
                           search that explains a failure) */
  uint32_t mark;        /* dependency walks */
  bool defer_relaxed;   /* @defer: a deferred field that has no fetch of
                           its own placed as if not deferred */
  /* the first field found that no subgraph gives (error messages) */
  const gql_gw_type *fail_type;
  gql_str fail_field;
} gw_planner;

#define GW_FAIL(p, code, ...)                                                  \
  do {                                                                         \
    *(p)->err = gql_arena_sprintf((p)->arena, __VA_ARGS__);                    \
    return (code);                                                             \
  } while (0)

/* normalize.c */
int gw_normalise(gw_planner *p, const gql_gw_type *root);
/* Whether an object of type t gets selection s (its conditions hold). */
static inline bool gw_applies(const gql_gw_type *t, const gql_gw_sel *s) {
  return (!s->cond || gql_supergraph_satisfies(t, s->cond)) &&
         (!s->cond2 || gql_supergraph_satisfies(t, s->cond2));
}

/* normalize.c: a fragment's @defer (if: true) into *dl: a deferred fragment
 * on the objects of `at`, delivered after `parent`'s payload. */
int gw_defer_fragment(gw_planner *p, const gql_ast_selection *frag,
                      const gql_gw_sel *at, const gql_gw_type *cond,
                      const gql_gw_type *cond2, const gql_gw_defer *parent,
                      const gql_gw_defer **dl);
/* The payload of a field selected in payloads a and b: the one that
 * encloses the other, or the innermost enclosing both (NULL: the initial
 * result). */
const gql_gw_defer *gw_defer_earlier(const gql_gw_defer *a,
                                     const gql_gw_defer *b);
/* defer.c. After placement: the fetches the initial result needs (primary), the
 * others' waves moved after theirs (plan->primary_levels). */
void gw_defer_mark(gw_planner *p);
int gw_defer_levels(gw_planner *p);
/* Field of fragment dl placed in fetch f; after the waves are final, each
 * fragment's last wave. */
int gw_defer_note(gw_planner *p, const gql_gw_defer *dl, gql_gw_fetch *f);
void gw_defer_ready_levels(gw_planner *p);

/* planner.c */
int gw_plan_fetches(gw_planner *p);

/* batch.c */
int gw_make_batches(gw_planner *p);
void gw_print_sels(gql_buf *out, const gql_gw_sel *parent, bool spaced);

/* Plans (normalise, place, batch) into p->plan, which the caller made. */
int gw_plan_run(gw_planner *p);

#endif
