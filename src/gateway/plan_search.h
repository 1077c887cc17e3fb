/*
 * Shared by the planner's search (planner.c) and its parts (plan_parts.c):
 * positions, groups and options, and the helpers that make fetches,
 * selections and representation trees and answer what a subgraph gives
 * at a position.
 */
#ifndef GQL_GATEWAY_PLAN_SEARCH_H
#define GQL_GATEWAY_PLAN_SEARCH_H

#include "plan_internal.h"

#include <stdlib.h>

#define INF 1000000000
/* Costs: fetches first (FETCH each), then the fields entity fetches carry
 * (1 each): of two plans with as many fetches, the one that asks less of
 * the subgraphs through _entities (e.g. using a subgraph's @provides). */
#define FETCH 65536
#define MAX_GROUPS 24
#define MAX_CANDIDATES 64
#define MAX_NEST 160
#define ESTIMATE_BUDGET 4000000u

enum {
  HOW_REAL,  /* a fetch exists (emission) */
  HOW_ROOT,  /* a root fetch of the subgraph */
  HOW_JUMP,  /* an entity fetch at this position */
  HOW_FIELD, /* the field placed in a group of the parent position */
  HOW_FRAG,  /* `... on type` below a group of the abstract position */
  HOW_SAME   /* the group of the abstract position itself */
};

typedef struct pos pos;

/* The fetches that give a key's or requires' fields (emission). */
typedef struct deps {
  gql_gw_fetch **items;
  uint32_t n, cap;
} deps;

typedef struct group {
  uint32_t graph;
  const gql_gw_type *view;    /* this position's type in the subgraph */
  const gql_gw_sel *provided; /* @provides below this place */
  gql_gw_fetch *fetch;        /* materialised */
  gql_gw_sel *dst;            /* materialised: where fields go */
  bool real;                  /* materialised (or taken, in estimates) */
  bool entity;                /* an entity fetch rooted here */
  bool in_entity;             /* inside an entity fetch's selection */
  uint8_t how;
  int activation;           /* fetches added by materialising */
  const gql_gw_type *etype; /* entity fetches: the type asked */
  const gql_gw_key *key;    /* HOW_JUMP */
  bool busy;                /* being materialised: not a candidate */
  pos *ppos;                /* HOW_FIELD / FRAG / SAME: the parent */
  uint32_t pg;              /* ... and its group */
  const gql_gw_sel *pfield; /* HOW_FIELD: the field */
  gql_str ptree_key;        /* HOW_FIELD: its tree key */
  const gql_gw_field_graph *pfg;
  const gql_gw_defer *dl; /* @defer: the payload its fetch's fields are for */
} group;

struct pos {
  const gql_gw_type *type; /* object, the abstract type, or the interface */
  bool pseudo;   /* objects of interface `type`, concrete type unknown */
  bool abstract; /* an abstract position (before per-type placement) */
  bool root;
  bool serial;              /* mutation root: one fetch per field run */
  const gql_gw_sel *client; /* the client selection whose fields are here */
  uint32_t path_len;        /* this position's depth in p->path */
  struct deps *deps;        /* emission of gateway fields: their fetches */
  group g[MAX_GROUPS];
  uint32_t n;
};

struct gw_tkey {
  uint64_t path;
  const gql_gw_sel *field; /* name and arguments */
  gql_str key;
  gw_tkey *next;
};

struct gw_memo {
  uint32_t graph;
  bool in_entity;
  const gql_gw_sel *provided;
  int cost;
  gw_memo *next;
};

static const gql_str PL_AT = {"@", 1};
static const gql_str PL_TYPENAME = {"__typename", 10};
static const gql_gw_sel PL_TYPENAME_SEL = {.key = {"__typename", 10},
                                           .name = {"__typename", 10}};

enum { OPT_NONE, OPT_LOCAL, OPT_JUMP, OPT_REQ, OPT_SPLIT };

typedef struct opt {
  int cost;
  uint8_t kind;
  uint32_t gi;    /* LOCAL: the group; REQ: an entity group or UINT32_MAX */
  uint32_t graph; /* JUMP, REQ */
  const gql_gw_type *etype;
  const gql_gw_key *key;
  const gql_gw_field_graph *fg;
  const gql_gw_sel *prov; /* the provided child (LOCAL) */
  const gql_gw_type *view;
} opt;

typedef struct cand {
  uint32_t graph;
  const gql_gw_type *etype; /* the entity type there */
  const gql_gw_field_graph *fg;
  const gql_gw_type *view; /* the field's type there */
} cand;

static inline bool is_typename(const gql_gw_sel *c) {
  return gql_str_eq(c->name, PL_TYPENAME);
}

/* Whether subgraph `graph` sees `t` as an object (@interfaceObject). */
static inline bool is_iobj(const gql_gw_type *t, uint32_t graph) {
  const gql_gw_type_graph *tg = t ? gql_supergraph_type_graph(t, graph) : NULL;
  return tg && tg->interface_object;
}

/* A view whose objects' __typename is a real type of the supergraph. */
static inline bool typed_view(const group *g) {
  return !is_iobj(g->view, g->graph);
}

/* @defer: a field joins the fetches of its own payload (c->dl); the
 * gateway's own fields (keys, @requires inputs) join any (DL_ANY). */
extern const gql_gw_defer gw_dl_any;
#define DL_ANY (&gw_dl_any)
static inline const gql_gw_defer *
pl_want_dl(const gw_planner *p, const gql_gw_sel *c, bool internal) {
  return internal || p->defer_relaxed || !p->plan->ndefers ? DL_ANY : c->dl;
}
static inline bool pl_dl_fits(const group *g, const gql_gw_defer *dl) {
  return dl == DL_ANY || g->dl == dl;
}

static inline int add_cost(int a, int b) {
  return a >= INF || b >= INF || a + b >= INF ? INF : a + b;
}

/* What is left of bound `limit` once `spent` is spent (INF: no bound). */
static inline int sub_limit(int limit, int spent) {
  return limit >= INF ? INF : limit > spent ? limit - spent : 0;
}

bool pl_label_on(gw_planner *p, int32_t i);
bool pl_usable(gw_planner *p, const gql_gw_field_graph *fg, bool internal);
const gql_gw_sel *pl_provided_child(const gql_gw_sel *prov,
                                    const gql_gw_type *t, gql_str name);
bool pl_args_equal(const gql_ast_selection *a, const gql_ast_selection *b);
bool pl_same_field(const gql_gw_sel *a, const gql_gw_sel *b);
uint64_t pl_path_hash(const gw_planner *p, uint32_t len);
int pl_gateway_key(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                   gql_str *out);
int pl_path_push(gw_planner *p, gql_str key, uint32_t lists);
bool pl_guarded(const gw_planner *p, const void *what, uint32_t graph);
bool pl_guard_push(gw_planner *p, const void *what, uint32_t graph);
int pl_add_dep(gw_planner *p, pos *ps, gql_gw_fetch *f);
int pl_fetch_depend(gw_planner *p, gql_gw_fetch *f, gql_gw_fetch *dep);
bool pl_depends_on(gw_planner *p, gql_gw_fetch *f, gql_gw_fetch *g);
gql_gw_sel *pl_new_sel(gw_planner *p);
void pl_append(gql_gw_sel *parent, gql_gw_sel *s);
int pl_new_fetch(gw_planner *p, uint32_t graph, uint32_t path_len,
                 gql_gw_fetch **out);
gql_gw_sel *pl_tree_child(gql_gw_sel *dst, gql_str tk);
gql_gw_sel *pl_add_field(gw_planner *p, gql_gw_fetch *f, gql_gw_sel *dst,
                         const gql_gw_sel *c, gql_str tk,
                         const gql_gw_field_graph *fg);
gql_gw_sel *pl_add_typename(gw_planner *p, gql_gw_sel *dst);
gql_gw_sel *pl_fragment_node(gw_planner *p, gql_gw_sel *dst,
                             const gql_gw_type *t);
gql_gw_sel *pl_rep_child(gw_planner *p, gql_gw_sel *rep, const gql_gw_sel *c,
                         gql_str tk, bool key);
int pl_add_group(gw_planner *p, pos *ps, const group *g, uint32_t *gi);
uint32_t pl_entity_group(const pos *ps, uint32_t graph, const gql_gw_type *e,
                         const gql_gw_defer *dl);
gql_gw_fetch *pl_root_fetch(gw_planner *p, uint32_t graph,
                            const gql_gw_defer *dl);
void pl_mark_key(gql_gw_sel *rep);
const gql_gw_type *pl_owner_type(const pos *ps, const group *g);
const gql_gw_type *pl_field_view(const gql_gw_field_graph *fg,
                                 const gql_gw_field *f);
bool pl_local_src(gw_planner *p, const pos *ps, const group *g,
                  const gql_gw_sel *c, bool internal,
                  const gql_gw_field_graph **fg_out,
                  const gql_gw_sel **prov_out, const gql_gw_type **view_out);
uint32_t pl_jump_cands(gw_planner *p, const pos *ps, const gql_gw_sel *c,
                       bool internal, cand *out);
void pl_child_init(gw_planner *p, pos *ch, const pos *ps, const gql_gw_sel *c,
                   bool internal);
gw_memo *pl_memo_get(gw_planner *p, const gql_gw_sel *c, uint32_t graph,
                     const gql_gw_sel *prov, bool in_entity);
void pl_note_fail(gw_planner *p, const pos *ps, const gql_gw_sel *c);
group pl_jump_group(const pos *ps, uint32_t graph, const gql_gw_type *e,
                    const gql_gw_key *key, int activation,
                    const gql_gw_defer *dl);
void pl_rep_merge(gql_gw_sel *dst, gql_gw_sel *src);
bool pl_common(const gw_planner *p, const gql_gw_type *x, const gql_gw_sel *c);
const gql_gw_type_graph *pl_view_types(const group *g);
bool pl_knows(const group *g, const gql_gw_type *r);
uint32_t pl_add_type(const gql_gw_type **order, uint32_t n,
                     const gql_gw_type *t);

#endif
