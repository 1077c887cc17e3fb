/*
 * The federation gateway's core: the supergraph (Apollo Federation v2, join
 * v0.3) read into the API schema plus per type and field the subgraphs
 * that resolve it, and the query planner that turns a client operation
 * into subgraph fetches in waves.
 *
 * Everything of a supergraph lives in its own arena and the supergraph's
 * SDL copy; a plan lives in the arena it was built in.
 */
#ifndef GQL_GATEWAY_H
#define GQL_GATEWAY_H

#include "core/core.h"
#include "language/ast.h"

/* ------------------------------------------------------------ supergraph */

/* A selection of a field set (key, requires, provides) or of a fetch: a
 * tree of fields in order. `key` is the response key (alias or name). */
typedef struct gql_gw_sel gql_gw_sel;
struct gql_gw_sel {
  gql_str key;
  gql_str key_json; /* `"key":` as written in JSON (empty: not made) */
  gql_str name;
  const gql_ast_selection *field; /* client field (arguments); may be NULL */
  const struct gql_gw_field *def; /* client tree: the field in its parent
                                     type as planned (NULL: __typename) */
  gql_gw_sel *first, *last;       /* children; NULL for a leaf */
  gql_gw_sel *next;
  bool has_children; /* the field has a selection set (maybe empty) */
  /* fetch selections: an inline fragment `... on name { children }` */
  bool fragment;
  /* client tree: the field applies only to objects of this type (a
   * fragment's type condition below an abstract type); NULL: always */
  const struct gql_gw_type *cond;
  bool has_cond; /* client tree: some child has a condition */
};

typedef struct gql_gw_graph {
  gql_str enum_value; /* ACCOUNTS */
  gql_str name;       /* accounts */
  gql_str url;
} gql_gw_graph;

/* One @join__type application. */
typedef struct gql_gw_type_graph {
  uint32_t graph;
  gql_gw_sel *key; /* NULL without key */
  gql_str key_text;
  bool resolvable, extension;
} gql_gw_type_graph;

/* One @join__field application. */
typedef struct gql_gw_field_graph {
  uint32_t graph;
  gql_gw_sel *requires, *provides; /* NULL when absent */
  gql_str requires_text, provides_text;
  bool external;
  bool used_overridden; /* kept for keys / requires, resolved elsewhere */
  gql_str override;
} gql_gw_field_graph;

/* @join__implements(graph, interface), @join__unionMember(graph, member)
 * and @join__enumValue(graph): a name as one subgraph knows it. */
typedef struct gql_gw_type_ref {
  uint32_t graph;
  gql_str name;
} gql_gw_type_ref;

typedef struct gql_gw_type gql_gw_type;

typedef struct gql_gw_field {
  gql_str name;
  const gql_gw_type *named; /* the named type; NULL for built-in scalars */
  gql_str type_name;        /* the named type, wrappers removed */
  uint32_t list_depth;
  const gql_ast_type *type;   /* the full type (non-null and list wrappers) */
  gql_gw_field_graph *graphs; /* @join__field applications */
  uint32_t ngraphs;
  bool inaccessible;
} gql_gw_field;

struct gql_gw_type {
  gql_str name;
  uint8_t kind;              /* gql_ast_kind of its definition */
  gql_gw_type_graph *graphs; /* @join__type applications */
  uint32_t ngraphs;
  gql_gw_field *fields;
  uint32_t nfields;
  gql_gw_type_ref *implements; /* interfaces, per subgraph */
  uint32_t nimplements;
  gql_gw_type_ref *members; /* union members, per subgraph */
  uint32_t nmembers;
  gql_gw_type_ref *enum_values; /* enum values, per subgraph */
  uint32_t nenum_values;
  bool inaccessible;
};

typedef struct gql_supergraph {
  gql_arena *arena;
  char *source; /* the SDL copy the AST points into */
  size_t source_len;
  gql_document *doc;
  gql_gw_graph *graphs;
  uint32_t ngraphs;
  gql_gw_type *types;
  uint32_t ntypes;
  gql_strmap type_index;
  gql_str query_type, mutation_type;
  gql_str api_sdl; /* the API schema as SDL (input to gql_schema) */
  gql_schema *api; /* built from api_sdl */
} gql_supergraph;

/* Reads a supergraph. On failure returns GQL_ESYNTAX / GQL_ESCHEMA /
 * GQL_ENOMEM and a message in *err (static or in err_arena). */
int gql_supergraph_load(const char *sdl, size_t len, gql_supergraph **out,
                        gql_arena *err_arena, const char **err);
void gql_supergraph_free(gql_supergraph *sg);

const gql_gw_type *gql_supergraph_type(const gql_supergraph *sg, gql_str name);
const gql_gw_field *gql_supergraph_field(const gql_gw_type *t, gql_str name);
/* The index of the subgraph named `name` (lower case), or -1. */
int64_t gql_supergraph_graph_by_name(const gql_supergraph *sg, gql_str name);
/* The @join__type of `t` for `graph`, or NULL when that graph lacks it. */
const gql_gw_type_graph *gql_supergraph_type_graph(const gql_gw_type *t,
                                                   uint32_t graph);
/* Whether an object of type t is a `cond` (the same type, a member of
 * union cond, or implementing interface cond). */
bool gql_supergraph_satisfies(const gql_gw_type *t, const gql_gw_type *cond);
/* Whether `graph` resolves t.f outside any @provides. */
bool gql_supergraph_resolves(const gql_gw_type *t, const gql_gw_field *f,
                             uint32_t graph);

/* Parses a field set ("id", "upc price", "a { b c }") into the arena. */
int gql_gw_parse_field_set(gql_arena *arena, gql_str text, gql_gw_sel **out);

/* --------------------------------------------------------------- planner */

/* An entity or root fetch before batching. */
typedef struct gql_gw_fetch gql_gw_fetch;
struct gql_gw_fetch {
  uint32_t id;
  uint32_t graph;
  gql_gw_fetch *parent; /* the fetch whose result holds the path */
  gql_gw_fetch **deps;  /* more fetches that must come first (@requires) */
  uint32_t ndeps, deps_cap;
  gql_str *path; /* response keys from the root, "@" for lists */
  uint32_t path_len;
  gql_str type_name;    /* entity type (empty for a root fetch) */
  gql_gw_sel root;      /* the selection sent (under `... on T` for
                           entities) */
  gql_gw_sel *requires; /* representation: __typename + key + requires */
  uint32_t level;       /* wave, 1-based */
  bool has_dependents;
  bool visiting; /* level computation */
};

/* The fetches of one subgraph in one wave: one request. Entity fetches
 * of the same type asking the same selection with the same
 * representation shape share one `_entities` field (their objects'
 * representations are de-duplicated together); the fields are aliased
 * _0, _1, ... (variables $r0, $r1, ...) when there is more than one, else
 * plain `_entities` with `$representations`. */
typedef struct gql_gw_batch {
  uint32_t graph;
  uint32_t level;
  gql_gw_fetch **fetches;
  uint32_t nfetches;
  uint32_t *field;    /* per fetch: its `_entities` field (UINT32_MAX: root) */
  uint32_t nfields;   /* `_entities` fields */
  gql_str operation;  /* the GraphQL text sent to the subgraph */
  gql_str *variables; /* client variables the operation declares */
  uint32_t nvariables;
} gql_gw_batch;

typedef struct gql_gw_plan {
  const gql_supergraph *sg;
  const gql_ast_operation *op;
  const gql_gw_type *root; /* the operation's root type */
  gql_gw_sel client;       /* the normalised client selection (no fragments) */
  gql_gw_fetch **fetches;
  uint32_t nfetches;
  gql_gw_batch *batches; /* ordered by level, then graph */
  uint32_t nbatches;
  uint32_t nlevels;
} gql_gw_plan;

/* Plans operation `operation_name` (NULL: the only one) of `doc`, which
 * must be valid against sg->api. Returns 0, GQL_EINVAL (no such operation),
 * GQL_EUNSUPPORTED (with a message in *err) or GQL_ENOMEM. */
int gql_gw_plan_build(const gql_supergraph *sg, const gql_document *doc,
                      const char *operation_name, gql_arena *arena,
                      gql_gw_plan **out, const char **err);

/* The plan as readable text (Apollo QueryPlan style). */
void gql_gw_plan_print(const gql_gw_plan *plan, gql_buf *out);

/* A cache of plans by operation text and operation name, least recently
 * used out once the plans' bytes pass the budget (0: 64 MiB); a plan
 * larger than a quarter of the budget is made for its request and not
 * kept. Plans are not validated here: validate the operation against
 * sg->api first. */
typedef struct gql_gw_plan_cache gql_gw_plan_cache;
/* A plan handed out by the cache, valid until released. */
typedef struct gql_gw_plan_ref gql_gw_plan_ref;
gql_gw_plan_cache *gql_gw_plan_cache_new(const gql_supergraph *sg,
                                         size_t max_bytes);
/* Frees the cache; plans still held stay valid until released. */
void gql_gw_plan_cache_free(gql_gw_plan_cache *c);
/* The plan for `query`: from the cache, or planned (and cached). *ref
 * holds it until gql_gw_plan_cache_release(*ref). Errors as
 * gql_gw_plan_build, plus GQL_ESYNTAX; *err is valid until the next call. */
int gql_gw_plan_cache_get(gql_gw_plan_cache *c, const char *query, size_t len,
                          const char *operation_name, const gql_gw_plan **out,
                          gql_gw_plan_ref **ref, const char **err);
void gql_gw_plan_cache_release(gql_gw_plan_ref *ref);
typedef struct gql_gw_plan_cache_info {
  uint64_t hits, misses, evictions; /* lookups answered / planned; evicted */
  size_t plans, bytes, budget;      /* kept now, their bytes, the budget */
} gql_gw_plan_cache_info;
void gql_gw_plan_cache_stats(const gql_gw_plan_cache *c,
                             gql_gw_plan_cache_info *out);

/* ------------------------------------------------------------- execute */

/* One client request being executed along a plan: the merged data tree
 * (arena JSON), per entity fetch the objects it feeds and their
 * de-duplicated representations, and the errors so far. Drive it wave by
 * wave: for each batch of a wave build the body, send it, merge the
 * answer; then write the response. */
typedef struct gql_gw_request gql_gw_request;

/* `variables` (may be NULL) are the client's coerced variables. */
int gql_gw_request_new(const gql_gw_plan *plan, const gql_value *variables,
                       gql_arena *arena, gql_gw_request **out);
/* The JSON body {"query":...,"variables":{...}} of batch `i` (its wave's
 * predecessors merged). Returns 0, 1 when the batch has nothing to ask
 * (no object needs it: send nothing), or GQL_ENOMEM. */
int gql_gw_request_body(gql_gw_request *r, uint32_t i, gql_buf *body);
/* Merges the subgraph's answer to batch `i` (root fields into the data,
 * `_entities` items into every object that produced the representation)
 * and re-paths its errors. A malformed answer becomes an error. */
int gql_gw_request_merge(gql_gw_request *r, uint32_t i, const char *json,
                         size_t len);
/* Records that batch `i` failed (transport), as a GraphQL error. */
void gql_gw_request_fail(gql_gw_request *r, uint32_t i, const char *why);
/* Writes the client response: the client's selection projected over the
 * merged data (query order, aliases, __typename, null propagation), with
 * "errors" first when there are any, as graphql-js orders them. */
int gql_gw_request_response(gql_gw_request *r, gql_buf *out);
/* Subgraph requests made so far, and representations sent / before
 * de-duplication. */
void gql_gw_request_stats(const gql_gw_request *r, uint32_t *requests,
                          uint32_t *reps_sent, uint32_t *reps_seen);

/* Sends `body` to the batch's subgraph; the answer goes to *response (in
 * the arena or kept alive by the callee until the request ends). */
typedef int (*gql_gw_send_fn)(void *ud, const gql_gw_batch *b, const char *body,
                              size_t len, gql_str *response);

/* Runs a whole plan with a synchronous transport (tests, tools). */
int gql_gw_execute(const gql_gw_plan *plan, const gql_value *variables,
                   gql_arena *arena, gql_gw_send_fn send, void *ud,
                   gql_buf *out, gql_gw_request **req_out);

#endif
