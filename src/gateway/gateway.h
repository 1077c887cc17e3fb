/*
 * The federation gateway's core: the supergraph (Apollo Federation v2, join
 * v0.3 to v0.5) read into the API schema plus a model of every subgraph's
 * own schema (which types, fields, keys, interfaces, union members and
 * enum values each subgraph has), and the query planner that turns a
 * client operation into subgraph fetches in waves.
 *
 * Everything of a supergraph lives in its own arena and the supergraph's
 * SDL copy; a plan lives in the arena it was built in.
 */
#ifndef GQL_GATEWAY_H
#define GQL_GATEWAY_H

#include "core/core.h"
#include "language/ast.h"

/* ------------------------------------------------------------ supergraph */

struct gql_gw_type;
struct gql_gw_field;

/* A selection tree node, used for four trees:
 *  - field sets (@key, @requires, @provides) and the client operation,
 *    both normalised: fragments gone, fields merged by response key and
 *    type condition, in order; a field under a fragment on another type
 *    keeps that type as `cond` (and the enclosing one as `cond2`);
 *  - a fetch's selection (the subgraph query): fields and inline
 *    fragments (`fragment`: `... on name`), sent under `key`;
 *  - an entity fetch's representation: fields written under `name`, read
 *    from the merged tree at `tree_key`. */
typedef struct gql_gw_sel gql_gw_sel;
typedef struct gql_gw_defer gql_gw_defer;
struct gql_gw_sel {
  gql_str key;      /* response key (alias or name) */
  gql_str key_json; /* `"key":` as written in JSON (empty: not made) */
  gql_str name;     /* field name; the type condition of a fragment */
  /* fetch trees: where the merged tree keeps the value (a type-conflict
   * alias sent as `key` is renamed back to this on merge); representation
   * trees: where to read it. Empty: `key`. */
  gql_str tree_key;
  const gql_ast_selection *field; /* arguments (client or field-set AST) */
  const struct gql_gw_field *def; /* the field in its parent (client tree,
                                     field sets; NULL: __typename) */
  gql_gw_sel *first, *last;       /* children; NULL for a leaf */
  gql_gw_sel *next;
  /* client tree, field sets, representations: applies only to objects of
   * this type (and of cond2 when set); NULL: always */
  const struct gql_gw_type *cond, *cond2;
  uint32_t id;       /* client tree: the node's number (planner memos) */
  bool has_children; /* the field has a selection set (maybe empty) */
  bool fragment;     /* fetch trees: an inline fragment */
  bool has_cond;     /* some child has a condition */
  bool renamed;      /* fetch trees: this node or one below is renamed */
  bool verbatim;     /* client tree: answered by the gateway itself
                        (introspection), written as merged */
  bool key_field;    /* representations: part of the entity key (a null
                        value means no entity: no representation sent) */
  bool denied;       /* client tree: a field the plan's request may not
                        see (@authenticated / @requiresScopes on every
                        type it can be asked on): never fetched, its
                        selection not normalised; the projection answers
                        null with the error */
  /* client tree: the deferred fragment whose payload delivers this field
   * (NULL: the initial result), and the deferred fragments on this
   * node's objects (a list by `next_at`) */
  const gql_gw_defer *dl;
  const gql_gw_defer *defers;
};

/* A deferred fragment (@defer) of the client operation, on the objects
 * of client node `at` (the root selection for the root) that satisfy
 * cond / cond2; announced by the payload of `parent` (NULL: the
 * initial result). */
struct gql_gw_defer {
  uint32_t index;
  gql_str label; /* ptr NULL: none */
  const gql_gw_defer *parent;
  const gql_gw_sel *at;
  const struct gql_gw_type *cond, *cond2;
  const gql_ast_selection *node; /* the fragment */
  const gql_gw_defer *next_at;
  /* the fetches its fields are in, and the last of their waves: its
   * payload can go once that wave is merged */
  struct gql_gw_fetch **fetches;
  uint32_t nfetches, fetches_cap;
  uint32_t level;
};

/* Whether fragment d is `outer` or within it (every fragment is within
 * the initial result, NULL). */
static inline bool gql_gw_defer_within(const gql_gw_defer *outer,
                                       const gql_gw_defer *d) {
  for (; d; d = d->parent)
    if (d == outer)
      return true;
  return outer == NULL;
}

typedef struct gql_gw_graph {
  gql_str enum_value; /* ACCOUNTS */
  gql_str name;       /* accounts */
  gql_str url;
} gql_gw_graph;

/* One @key of a type in a subgraph. */
typedef struct gql_gw_key {
  gql_gw_sel *fields; /* normalised, on the type */
  gql_str text;
  bool resolvable;
} gql_gw_key;

/* A type as one subgraph has it (its @join__type applications there). */
typedef struct gql_gw_type_graph {
  uint32_t graph;
  gql_gw_key *keys;
  uint32_t nkeys;
  bool resolvable_key;   /* some key is resolvable: entity fetches work */
  bool interface_object; /* an interface of the supergraph that this
                            subgraph sees as an object type */
  bool extension;
  /* the object types an abstract type has in this subgraph (its
   * implementations or union members there) */
  const struct gql_gw_type **possible;
  uint32_t npossible;
  gql_str key_text; /* the first key's text (tests) */
  gql_gw_sel *key;  /* the first key's fields (tests) */
} gql_gw_type_graph;

/* A field as one subgraph has it (its @join__field there). */
typedef struct gql_gw_field_graph {
  uint32_t graph;
  gql_gw_sel *requires, *provides; /* normalised; NULL when absent */
  gql_str requires_text, provides_text;
  const gql_ast_type *type;        /* its type there (NULL: the API's) */
  const struct gql_gw_type *named; /* named type of `type` */
  bool external;
  bool used_overridden; /* overridden, kept for keys / requires only */
  bool type_differs;    /* `type` is not the supergraph field's type */
  gql_str override;     /* the subgraph name it overrides */
  /* progressive override: with label >= 0, this subgraph resolves the
   * field only when sg->labels[label] is on (label_on) or off */
  int32_t label;
  bool label_on;
} gql_gw_field_graph;

/* @join__implements(graph, interface), @join__unionMember(graph, member)
 * and @join__enumValue(graph): a name as one subgraph knows it. */
typedef struct gql_gw_type_ref {
  uint32_t graph;
  gql_str name;
} gql_gw_type_ref;

typedef struct gql_gw_type gql_gw_type;

/* What @authenticated and @requiresScopes ask of a field or type (the
 * Federation authorization directives, enforced by the gateway):
 * authentication, and scopes as sets of which one must be held whole. */
typedef struct gql_gw_access {
  bool authenticated;
  const gql_str *const *scope_sets; /* each set: its scopes */
  const uint32_t *scope_set_sizes;
  uint32_t nscope_sets; /* 0: no scopes asked */
} gql_gw_access;

/* Who asks: authenticated or not, and the scopes the token grants (its
 * "scope" claim, space-separated). */
typedef struct gql_gw_who {
  bool authenticated;
  gql_str scopes;
} gql_gw_who;

typedef struct gql_gw_field {
  gql_str name;
  const gql_gw_type *named; /* the named type; NULL for built-in scalars */
  gql_str type_name;        /* the named type, wrappers removed */
  uint32_t list_depth;
  const gql_ast_type *type; /* the full type (non-null and list wrappers) */
  /* @join__field applications with a graph; with none, the field is in
   * every subgraph of its type (all_graphs) */
  gql_gw_field_graph *graphs;
  uint32_t ngraphs;
  bool all_graphs;
  bool inaccessible;
  bool guarded; /* access (its own, its type's or its parent type's) asks
                   for something */
  gql_gw_access access;
  const gql_gw_type *parent;
} gql_gw_field;

struct gql_gw_type {
  gql_str name;
  uint8_t kind;              /* gql_ast_kind of its definition */
  uint32_t index;            /* in sg->types */
  gql_gw_type_graph *graphs; /* per subgraph that has it */
  uint32_t ngraphs;
  uint16_t *graph_slot; /* per subgraph: 1 + its index in graphs, or 0 */
  gql_gw_field *fields;
  uint32_t nfields;
  gql_gw_type_ref *implements; /* interfaces, per subgraph */
  uint32_t nimplements;
  gql_gw_type_ref *members; /* union members, per subgraph */
  uint32_t nmembers;
  gql_gw_type_ref *enum_values; /* enum values, per subgraph */
  uint32_t nenum_values;
  const gql_gw_type **interfaces; /* supergraph: interfaces implemented */
  uint32_t ninterfaces;
  /* supergraph: the object types of an abstract type (an object: itself) */
  const gql_gw_type **possible;
  uint32_t npossible;
  gql_str *api_values; /* enum: the values of the API schema */
  uint32_t napi_values;
  bool inaccessible;
  bool is_abstract;     /* interface or union */
  gql_gw_access access; /* @authenticated / @requiresScopes on the type */
};

/* A progressive override label (join v0.4+ overrideLabel). */
typedef struct gql_gw_label {
  gql_str name;
  double percent; /* percent(N): on for N% of the requests; -1: other */
} gql_gw_label;

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
  gql_strmap field_index; /* "Type.field" -> fields[] */
  gql_strmap graph_index; /* join__Graph enum value -> graphs[] */
  const gql_gw_field **field_list;
  gql_str query_type, mutation_type, subscription_type;
  gql_gw_label *labels;
  uint32_t nlabels;
  /* the features the supergraph @link's (join, link, tag, inaccessible,
   * and any composed custom directive's): their namespaces and imported
   * names, whose definitions and applications the API schema omits */
  gql_str *features;
  uint32_t nfeatures;
  gql_str api_sdl; /* the API schema as SDL (input to gql_schema) */
  gql_schema *api; /* built from api_sdl */
} gql_supergraph;

/* Reads a supergraph. On failure returns GQL_ESYNTAX / GQL_ESCHEMA /
 * GQL_ENOMEM / GQL_ELIMIT and in *err a message starting with the place
 * in the supergraph it is about, "LINE:COLUMN: " (in err_arena; without
 * one a message with no place). Nothing is kept of a refused supergraph. */
int gql_supergraph_load(const char *sdl, size_t len, gql_supergraph **out,
                        gql_arena *err_arena, const char **err);
void gql_supergraph_free(gql_supergraph *sg);

const gql_gw_type *gql_supergraph_type(const gql_supergraph *sg, gql_str name);
const gql_gw_field *gql_supergraph_field(const gql_gw_type *t, gql_str name);
/* The field `name` of t through the supergraph's index (large types). */
const gql_gw_field *gql_supergraph_field_of(const gql_supergraph *sg,
                                            const gql_gw_type *t, gql_str name);
/* The index of the subgraph named `name` (lower case), or -1. */
int64_t gql_supergraph_graph_by_name(const gql_supergraph *sg, gql_str name);
/* The type as `graph` has it, or NULL when that graph lacks it. */
const gql_gw_type_graph *gql_supergraph_type_graph(const gql_gw_type *t,
                                                   uint32_t graph);
/* The field as `graph` has it (for a field without @join__field, a shared
 * plain entry), or NULL when that graph lacks it. */
const gql_gw_field_graph *gql_supergraph_field_graph(const gql_gw_type *t,
                                                     const gql_gw_field *f,
                                                     uint32_t graph);
/* Whether an object of type t is a `cond` (the same type, a member of
 * union cond, or implementing interface cond). */
bool gql_supergraph_satisfies(const gql_gw_type *t, const gql_gw_type *cond);
/* Whether some object type could be both a and b. */
bool gql_supergraph_overlap(const gql_gw_type *a, const gql_gw_type *b);
/* Whether `graph` resolves t.f outside any @provides (labels off). */
bool gql_supergraph_resolves(const gql_gw_type *t, const gql_gw_field *f,
                             uint32_t graph);
/* Whether `value` is a value of enum t in the API schema. */
bool gql_supergraph_enum_has(const gql_gw_type *t, gql_str value);

/* Parses and normalises a field set ("id", "upc price", "a { b c }",
 * "f(x: 1) { ... on T { g } }") on type `on`. Returns 0, GQL_ESYNTAX or
 * GQL_ESCHEMA (*err: a message, *err_offset: its byte offset in `text`),
 * GQL_ENOMEM. */
int gql_gw_parse_field_set(const gql_supergraph *sg, gql_arena *arena,
                           const gql_gw_type *on, gql_str text,
                           gql_gw_sel **out, const char **err,
                           size_t *err_offset);

/* --------------------------------------------------------------- planner */

/* An entity or root fetch before batching. */
typedef struct gql_gw_fetch gql_gw_fetch;
struct gql_gw_fetch {
  uint32_t id;
  uint32_t graph;
  gql_gw_fetch *parent; /* a fetch the objects at the path come from */
  gql_gw_fetch **deps;  /* fetches that must come first (keys, @requires) */
  uint32_t ndeps, deps_cap;
  gql_str *path; /* tree keys from the root, "@" for lists */
  uint32_t path_len;
  /* entity fetches: the type asked for (`... on type_name`) and the
   * objects taken (those of type `filter`, or all when NULL); the
   * representations' __typename is `rep_typename` when set (an
   * @interfaceObject), else the object's own */
  gql_str type_name;
  const gql_gw_type *filter;
  gql_str rep_typename;
  gql_gw_sel root;      /* the selection sent (under `... on T` for
                           entities) */
  gql_gw_sel *requires; /* representation: __typename + key + requires */
  uint32_t level;       /* wave, 1-based */
  bool has_dependents;
  bool visiting; /* level computation */
  bool mutation; /* a root fetch of mutation fields */
  uint32_t mark; /* planner: dependency walks */
  bool renames;  /* the answer has keys to rename (root.renamed) */
  bool primary;  /* needed by the initial result (operations with @defer) */
  const gql_gw_defer *dl; /* planner: the payload its fields are for */
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

/* What a plan was made for: the values of the condition variables
 * (@skip / @include) and progressive override labels it depends on. Bit i
 * of cond_mask: variable i of the operation decided something; of
 * label_mask: sg->labels[i] did. And the guarded fields (@authenticated,
 * @requiresScopes) whose verdict for the request decided what is fetched. */
typedef struct gql_gw_verdict {
  const struct gql_gw_field *field;
  bool allowed;
} gql_gw_verdict;

typedef struct gql_gw_plan_key {
  uint64_t cond_mask, cond_vals;
  uint64_t label_mask, label_vals;
  gql_gw_verdict *access;
  uint32_t naccess, access_cap;
} gql_gw_plan_key;

typedef struct gql_gw_plan_set gql_gw_plan_set;

typedef struct gql_gw_plan {
  const gql_supergraph *sg;
  const gql_document *doc;
  const gql_ast_operation *op;
  const gql_gw_type *root; /* the operation's root type */
  gql_gw_sel client;       /* the normalised client selection (no fragments) */
  gql_gw_fetch **fetches;
  uint32_t nfetches;
  gql_gw_batch *batches; /* ordered by level, then graph */
  uint32_t nbatches;
  uint32_t nlevels;
  gql_gw_plan_key key;
  gql_gw_plan_set *set; /* the operation's other variants (plan_for) */
  /* root introspection fields (__schema, __type), answered by the
   * gateway: an operation with only those (and their fragments), run
   * over sg->api; empty when there are none */
  gql_str introspection;
  /* @defer: the deferred fragments; the waves up to primary_levels give
   * the initial result, the later ones the deferred fields (0: nothing
   * deferred) */
  gql_gw_defer **defers;
  uint32_t ndefers;
  uint32_t primary_levels;
} gql_gw_plan;

/* Plans operation `operation_name` (NULL: the only one) of `doc`, which
 * must be valid against sg->api, for the default values of the condition
 * variables (or false), every override label off and an anonymous
 * request (its guarded fields not fetched). Returns 0,
 * GQL_EINVAL (no such operation), GQL_EUNSUPPORTED (no plan exists: a
 * message in *err) or GQL_ENOMEM. */
int gql_gw_plan_build(const gql_supergraph *sg, const gql_document *doc,
                      const char *operation_name, gql_arena *arena,
                      gql_gw_plan **out, const char **err);

/* The plan of `plan`'s operation for a request: `variables` (the coerced
 * client variables, may be NULL) decide the @skip / @include conditions,
 * `labels` (bit i: sg->labels[i] is on) the progressive overrides, `who`
 * (NULL: anonymous) which guarded fields are fetched (as Apollo Router,
 * a field the request may not see is never asked of a subgraph). The
 * plan itself when it fits; else a variant made once and kept with it
 * (at most 64), or made in `arena` when those are taken. */
int gql_gw_plan_for(const gql_gw_plan *plan, const gql_value *variables,
                    uint64_t labels, const gql_gw_who *who, gql_arena *arena,
                    const gql_gw_plan **out, const char **err);

/* Whether `who` (NULL: anonymous) may see field f: its @authenticated /
 * @requiresScopes, its type's and its parent type's (a field of a guarded
 * type is guarded, as Router filters fragments on such a type and a root
 * type's fields when the root type is guarded) (access.c). */
bool gql_gw_allowed(const gql_gw_who *who, const struct gql_gw_field *f);

/* Draws the override labels of one request (percent(N): on with
 * probability N%, from the xorshift state *rng). */
uint64_t gql_gw_draw_labels(const gql_supergraph *sg, uint64_t *rng);

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
/* Plans into `to` the `n` operations `from` used most recently (least
 * recent first, so that the order stays), those `valid` accepts (NULL:
 * all): a new supergraph's cache warmed with the old one's hot operations
 * before it serves. Returns how many were planned. */
unsigned gql_gw_plan_cache_warm(gql_gw_plan_cache *to,
                                const gql_gw_plan_cache *from, unsigned n,
                                bool (*valid)(void *ud, const char *query,
                                              size_t len, const char *op),
                                void *ud);
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
/* Who asks (copied; the scopes' bytes must outlive the request). A field
 * whose @authenticated or @requiresScopes (its own, its type's or its
 * parent type's) the request does not satisfy is null with an
 * UNAUTHORIZED_FIELD_OR_TYPE error; the rest stands. Anonymous until set. */
void gql_gw_request_set_access(gql_gw_request *r, const gql_gw_who *who);
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
/* Merges the gateway's own answer to the plan's introspection operation
 * (gql's executor over sg->api: {"data":...,"errors":...}). */
int gql_gw_request_merge_local(gql_gw_request *r, const char *json, size_t len);
/* Runs the plan's introspection operation (plan->introspection) over the
 * API schema: the response JSON in *json (in `arena`). */
int gql_gw_introspect(const gql_gw_plan *plan, const gql_value *variables,
                      gql_arena *arena, gql_str *json);
/* Writes the client response: the client's selection projected over the
 * merged data (query order, aliases, __typename, null propagation), with
 * "errors" first when there are any, as graphql-js orders them. */
int gql_gw_request_response(gql_gw_request *r, gql_buf *out);
/* @defer (plan->defers): after the waves up to plan->primary_levels are
 * merged, the initial payload: the fields not deferred, "pending" with
 * the deferred fragments it announces, "hasNext":true. When it announces
 * none, *plain is set and `out` holds the plain response instead (the
 * later waves need not run). Then after each later wave (its level), the
 * payload delivering the fragments whose fetches are all merged (and
 * those they announce that are ready too), written only when some are;
 * *more: fragments remain ("hasNext"). Level UINT32_MAX delivers all and
 * always writes a payload. graphql-js 17's format (defer.c). */
int gql_gw_defer_initial(gql_gw_request *r, gql_buf *out, bool *plain);
int gql_gw_defer_next(gql_gw_request *r, uint32_t level, gql_buf *out,
                      bool *more);

/* Subgraph requests made so far, and representations sent / before
 * de-duplication. */
void gql_gw_request_stats(const gql_gw_request *r, uint32_t *requests,
                          uint32_t *reps_sent, uint32_t *reps_seen);

/* Sends `body` to the batch's subgraph; the answer goes to *response (in
 * the arena or kept alive by the callee until the request ends). */
typedef int (*gql_gw_send_fn)(void *ud, const gql_gw_batch *b, const char *body,
                              size_t len, gql_str *response);

/* Runs a whole plan with a synchronous transport (tests, tools),
 * introspection fields included. */
int gql_gw_execute(const gql_gw_plan *plan, const gql_value *variables,
                   gql_arena *arena, gql_gw_send_fn send, void *ud,
                   gql_buf *out, gql_gw_request **req_out);
/* The same with incremental delivery: each payload a line of `out` (a
 * plan without @defer: its one response), the waves after
 * plan->primary_levels sent once the initial payload is written. */
int gql_gw_execute_incremental(const gql_gw_plan *plan,
                               const gql_value *variables, gql_arena *arena,
                               gql_gw_send_fn send, void *ud, gql_buf *out);

#endif
