/* Internals shared by the framework files of src/validation: the walk with
 * its TypeInfo (visitor.c), the context (context.c) and validate.c. */
#ifndef GQL_VALIDATION_INTERNAL_H
#define GQL_VALIDATION_INTERNAL_H

#include "validation.h"

/* An input or output type that may be unknown (graphql-js `undefined`). */
typedef struct gql_opt_type {
  bool has;
  gql_type_ref ref;
} gql_opt_type;

typedef struct gql_opt_default {
  bool has;
  const gql_ast_value *value;
} gql_opt_default;

/* graphql-js TypeInfo: stacks grown in the arena. */
typedef struct gql_type_info {
  const gql_schema *schema;
  gql_arena *arena;
  bool nomem;
  gql_opt_type *types;
  uint32_t ntypes, ctypes;
  uint32_t *parent_types;
  uint32_t nparent_types, cparent_types;
  gql_opt_type *input_types;
  uint32_t ninput_types, cinput_types;
  const gql_field **field_defs;
  uint32_t nfield_defs, cfield_defs;
  gql_opt_default *defaults;
  uint32_t ndefaults, cdefaults;
  const gql_directive *directive;
  const gql_input_value *argument;
  const gql_enum_value *enum_value;
  /* type names looked up, by a hash of their text (see gql_ti_type_index) */
  struct gql_type_memo {
    const char *ptr;
    uint32_t len, index;
  } type_memo[64];
  struct gql_directive_memo { /* the same for directive names */
    const char *ptr;
    uint32_t len;
    const gql_directive *def;
  } directive_memo[16];
} gql_type_info;

/* gql_schema_type_index, remembered: the validation looks the same few type
 * names up many times. */
uint32_t gql_ti_type_index(gql_type_info *ti, gql_str name);
/* gql_schema_directive, remembered the same way. */
const gql_directive *gql_ti_directive(gql_type_info *ti, gql_str name);

void gql_type_info_init(gql_type_info *ti, const gql_schema *s,
                        gql_arena *arena);
void gql_type_info_enter(gql_type_info *ti, const gql_ast_node *node);
void gql_type_info_leave(gql_type_info *ti, const gql_ast_node *node);

/* A visitor over the walk (graphql-js visit with visitWithTypeInfo):
 * enter() returning false skips the node's children; leave() is called for
 * every node enter() was called for. `stop` ends the walk. */
typedef struct gql_walker gql_walker;
struct gql_walker {
  gql_type_info *ti;
  bool (*enter)(gql_walker *w, const gql_ast_node *node);
  void (*leave)(gql_walker *w, const gql_ast_node *node);
  /* optional: false leaves the node out of the walk (no TypeInfo, no
   * enter or leave, no children) */
  bool (*visit)(gql_walker *w, const gql_ast_node *node);
  bool stop;
};

/* Walks `node` and its subtree in graphql-js QueryDocumentKeys order. */
void gql_walk(gql_walker *w, const gql_ast_node *node);

/* A map from node pointers to values (caches of the context). */
typedef struct gql_ptrmap {
  const void **keys;
  void **values;
  uint32_t cap, count;
} gql_ptrmap;

void *gql_ptrmap_get(const gql_ptrmap *m, const void *key);
bool gql_ptrmap_put(gql_ptrmap *m, gql_arena *arena, const void *key,
                    void *value);

/* A map from names to uint32 values in the arena (nothing to free), for
 * rules. Zero-initialised is empty. */
typedef struct gql_namemap {
  gql_str *keys;
  uint32_t *values;
  uint32_t cap, count;
  uint64_t seed;
} gql_namemap;

bool gql_namemap_get(const gql_namemap *m, gql_str key, uint32_t *value);
/* Inserts key → value unless present: 1 inserted, 0 present (value kept),
 * -1 out of memory. */
int gql_namemap_put(gql_namemap *m, gql_arena *arena, gql_str key,
                    uint32_t value);
/* Inserts or overwrites; false when out of memory. */
bool gql_namemap_set(gql_namemap *m, gql_arena *arena, gql_str key,
                     uint32_t value);

struct gql_vctx_impl {
  gql_type_info ti;
  uint32_t max_errors;
  uint32_t reported; /* errors this validation reported */
  bool aborted;      /* the error limit was reached */
  bool fragments_built;
  /* name → definition index (last one wins): up to 16
   * fragments the indices in few_fragments (searched by name), else the
   * map */
  gql_strmap fragments;
  const gql_allocator *fragments_alc; /* of the map */
  uint32_t nfew_fragments;
  bool many_fragments;
  uint32_t few_fragments[16];
  bool directive_defs_built;
  gql_namemap directive_defs; /* the document's directive definitions */
  struct gql_frag_memo {      /* fragments found by a name's pointer */
    const char *ptr;
    const gql_ast_fragment *def;
  } frag_memo[8];
  gql_ptrmap spreads;   /* selection set → gql_spread_list* */
  gql_ptrmap rec_frags; /* definition → gql_fragment_list* */
  gql_ptrmap resolved;  /* selection set → uint32_t[] definition index of
                         * each spread's fragment (NO_FRAGMENT: unknown) */
  uint32_t *stamps;     /* per definition: generation last reached in */
  uint32_t generation;
  /* per definition index, for fragments: resolved spreads of the
   * selection set and variable usages (NULL until computed) */
  const uint32_t **def_resolved;
  uint32_t *def_nspreads;
  const gql_variable_usages **def_usages;
  uint32_t *walk_stack; /* reused by every walk of the fragment graph */
  uint32_t walk_cap;
  bool frag_defs_known, has_frag_defs; /* any FRAGMENT_DEFINITION */
  bool dollar_known, no_dollar; /* the source has no '$' (no variables) */
  gql_ptrmap usages;            /* node → gql_variable_usages* */
  gql_ptrmap rec_usages;
  /* For locations in long documents: where lines start, and UTF-16 units
   * before every 64-byte block (built on the first error). */
  bool lines_built;
  uint32_t *line_starts;
  uint32_t nlines;
  uint32_t *block_units;
};

/* Variable usages being collected (graphql-js getVariableUsages). */
typedef struct gql_usage_vec {
  gql_variable_usage *items;
  uint32_t count, cap;
} gql_usage_vec;

/* Appends the usage of VARIABLE `node` as TypeInfo `ti` sees it; false when
 * out of memory (recorded). */
bool gql_usage_push(gql_vctx *ctx, const gql_type_info *ti, gql_usage_vec *v,
                    const gql_ast_node *node);
/* False when the document can use no variable (its text has no '$'). */
bool gql_vctx_may_use_variables(gql_vctx *ctx);
/* The first directive named `name` in `ds` (graphql-js's
 * directives.find(d => d.name.value === name)), or NULL. */
const gql_ast_directive *gql_vfind_directive(const gql_ast_directives *ds,
                                             const char *name);
/* A depth-first walk over selections with an explicit stack (a chain of
 * fragments can be as long as the document), in the order of a recursive
 * walk that descends into each pushed set at once: push a selection set
 * (with the fragment spread that led to it, or NULL), then take selections
 * one by one; a set pushed is walked before the rest of the one below. */
typedef struct gql_vsel_frame {
  const gql_ast_selection_set *set;
  const gql_ast_selection *via; /* the spread that led here, or NULL */
  uint32_t next;
} gql_vsel_frame;

typedef struct gql_vsel_walk {
  gql_arena *arena;
  gql_vsel_frame *stack; /* `first` until it is outgrown */
  uint32_t n, cap;
  bool nomem;
  gql_vsel_frame first[8];
} gql_vsel_walk;

/* An empty walk drawing on `arena` once it is deeper than 8 sets. */
void gql_vsel_init(gql_vsel_walk *w, gql_arena *arena);

void gql_vsel_push(gql_vsel_walk *w, const gql_ast_selection_set *set,
                   const gql_ast_selection *via);
/* The next selection, or NULL at the end (or when out of memory). */
const gql_ast_selection *gql_vsel_next(gql_vsel_walk *w);

/* The `if` or `label` argument, as above (first of that name), or NULL. */
const gql_ast_argument *gql_vfind_argument(const gql_ast_directive *d,
                                           const char *name);
/* Keeps `v` as the variable usages of top-level definition `def` (as
 * gql_vctx_variable_usages would find them) unless already known: the
 * validation's walk collects them as it goes, sparing a walk per
 * definition. */
void gql_vctx_keep_usages(gql_vctx *ctx, const gql_ast_node *def,
                          const gql_usage_vec *v);

/* Marks every fragment reachable from any operation of the document (one
 * walk over the fragment graph); then gql_vctx_fragment_used tells by
 * name. False
 * when out of memory. */
bool gql_vctx_mark_used_fragments(gql_vctx *ctx);
bool gql_vctx_fragment_used(gql_vctx *ctx, gql_str name);

#endif
