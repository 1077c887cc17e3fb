/*
 * Validation of executable documents (spec section 5), as graphql-js 16's
 * validate() does it: one depth-first walk of the document carrying a
 * TypeInfo, with every rule visiting each node in turn ("visitInParallel"),
 * so that errors come out in graphql-js's order.
 *
 * A rule is a pair of callbacks and a state size. enter() is called for
 * every node the rule has not skipped, leave() after its children; enter()
 * returning false skips the node's subtree for that rule only (graphql-js
 * `return false`), while the TypeInfo and the other rules go on.
 */
#ifndef GQL_VALIDATION_H
#define GQL_VALIDATION_H

#include "../core/errors.h"
#include "../schema/schema.h"

typedef struct gql_vctx gql_vctx;

typedef struct gql_vrule {
  const char *name;  /* graphql-js name: "ScalarLeafsRule" */
  size_t state_size; /* bytes of zeroed per-validation state (may be 0) */
  /* Called once before the walk (may be NULL). */
  void (*init)(gql_vctx *ctx, void *state);
  /* Node callbacks (either may be NULL). Cast `node` by node->kind:
   * DOCUMENT: gql_document; OPERATION_DEFINITION: gql_ast_operation;
   * FRAGMENT_DEFINITION: gql_ast_fragment; VARIABLE_DEFINITION:
   * gql_ast_variable_definition; SELECTION_SET: gql_ast_selection_set;
   * FIELD, FRAGMENT_SPREAD, INLINE_FRAGMENT: gql_ast_selection; ARGUMENT,
   * OBJECT_FIELD: gql_ast_argument; DIRECTIVE: gql_ast_directive; values
   * (VARIABLE, INT_VALUE, ..., OBJECT_VALUE): gql_ast_value; NAMED_TYPE,
   * LIST_TYPE, NON_NULL_TYPE: gql_ast_type; type-system nodes: their
   * structs in ast.h. Name nodes are not visited. */
  bool (*enter)(gql_vctx *ctx, void *state, const gql_ast_node *node);
  void (*leave)(gql_vctx *ctx, void *state, const gql_ast_node *node);
} gql_vrule;

/* The rules, one symbol each: gql_rule_ScalarLeafsRule, ... */
#define GQL_VRULE_DECL_(name) extern const gql_vrule gql_rule_##name;
#include "rules_list.h"
GQL_VALIDATION_RULES(GQL_VRULE_DECL_)
#undef GQL_VRULE_DECL_

/* graphql-js's optional rules, outside specifiedRules: a server may add
 * them (found by gql_find_rule too). */
extern const gql_vrule gql_rule_NoDeprecatedCustomRule;
extern const gql_vrule gql_rule_NoSchemaIntrospectionCustomRule;

/* graphql-js specifiedRules, in order; *count set to their number. */
const gql_vrule *const *gql_specified_rules(uint32_t *count);
/* The specified or optional rule named `name` ("ScalarLeafsRule"; the
 * "Rule" suffix may be left out), or NULL. */
const gql_vrule *gql_find_rule(const char *name, size_t len);

typedef struct gql_validate_options {
  uint32_t max_errors; /* 0: 100, as graphql-js's maxErrors */
} gql_validate_options;

/* Validates `doc` against `schema` with `rules` (NULL: the specified rules).
 * Errors go to `errors` (whose arena also holds the walk's scratch). After
 * max_errors errors, validation stops and adds graphql-js's "Too many
 * validation errors, error limit reached. Validation aborted." Returns 0
 * (look at errors->count), or GQL_ENOMEM. */
int gql_validate_document(const gql_schema *schema, const gql_document *doc,
                          const gql_vrule *const *rules, uint32_t nrules,
                          const gql_validate_options *options,
                          gql_error_list *errors);

/* True when `doc` is a simple operation (no fragments, variables,
 * directives or arguments, distinct response keys, no __schema or __type)
 * that the specified rules accept: then validating it finds no error.
 * False says nothing. gql_validate_document with the specified rules
 * (rules NULL) tries this first. */
bool gql_validate_fast(const gql_schema *schema, const gql_document *doc);

/* ---- what rules see */

/* A variable used somewhere, with the input type expected where it is used
 * (graphql-js getVariableUsages). */
typedef struct gql_variable_usage {
  const gql_ast_value *node; /* the VARIABLE node */
  bool has_type;             /* false when the position's type is unknown */
  gql_type_ref type;         /* the expected input type */
  /* The default value of the argument or input field the variable is in,
   * and whether it has one (graphql-js's usage.defaultValue !== undefined). */
  bool has_default;
  const gql_ast_value *default_value;
  /* For VariablesInAllowedPosition's oneOf check: the parent input type is
   * a @oneOf input object. */
  bool parent_is_one_of;
} gql_variable_usage;

typedef struct gql_variable_usages {
  gql_variable_usage *items;
  uint32_t count;
} gql_variable_usages;

typedef struct gql_fragment_list {
  const gql_ast_fragment **items;
  uint32_t count;
} gql_fragment_list;

typedef struct gql_spread_list {
  const gql_ast_selection **items; /* FRAGMENT_SPREAD nodes */
  uint32_t count;
} gql_spread_list;

struct gql_vctx {
  const gql_schema *schema;
  const gql_document *doc;
  gql_str source;   /* doc->source, for locations */
  gql_arena *arena; /* scratch that lives as long as the validation */
  gql_error_list *errors;
  struct gql_vctx_impl *impl; /* TypeInfo stacks, caches: visitor.c only */
};

/* ---- reporting */

/* Reports an error whose locations are the given byte offsets (node
 * h.start values) in the document. printf-style message. */
void gql_vctx_report(gql_vctx *ctx, const uint32_t *offsets, uint32_t n,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- TypeInfo (graphql-js TypeInfo, at the node being visited) */

/* gql_schema_type_index(ctx->schema, name), remembered for the validation:
 * rules look the same few type names up many times. */
uint32_t gql_vctx_type_index(gql_vctx *ctx, gql_str name);
/* gql_schema_directive(ctx->schema, name), remembered the same way. */
const gql_directive *gql_vctx_directive_named(gql_vctx *ctx, gql_str name);

/* The output type of the current field or operation/fragment (getType);
 * false when unknown. */
bool gql_vctx_type(const gql_vctx *ctx, gql_type_ref *out);
/* The named composite type whose selection set is being visited
 * (getParentType), or GQL_NO_TYPE. */
uint32_t gql_vctx_parent_type(const gql_vctx *ctx);
/* The expected input type at this position (getInputType); false when
 * unknown. */
bool gql_vctx_input_type(const gql_vctx *ctx, gql_type_ref *out);
/* The input type of the enclosing list / input object (getParentInputType);
 * false when unknown. */
bool gql_vctx_parent_input_type(const gql_vctx *ctx, gql_type_ref *out);
/* The definition of the current field (getFieldDef), or NULL. */
const gql_field *gql_vctx_field_def(const gql_vctx *ctx);
/* The current directive definition (getDirective), or NULL. */
const gql_directive *gql_vctx_directive(const gql_vctx *ctx);
/* The current argument or input field definition (getArgument), or NULL. */
const gql_input_value *gql_vctx_argument(const gql_vctx *ctx);
/* The default value at this position (getDefaultValue): *has is false when
 * there is none. */
const gql_ast_value *gql_vctx_default_value(const gql_vctx *ctx, bool *has);
/* The enum value being visited (getEnumValue), or NULL. */
const gql_enum_value *gql_vctx_enum_value(const gql_vctx *ctx);

/* ---- document helpers (computed once per validation and cached) */

/* The document's own directive definition named `name` (the last one with
 * that name, as graphql-js), or NULL; built once per validation. */
/* True when the document defines directives of its own (indexed once). */
bool gql_vctx_defines_directives(gql_vctx *ctx);
const gql_ast_directive_def *gql_vctx_directive_def(gql_vctx *ctx,
                                                    gql_str name);
/* The fragment definition named `name`, or NULL. With duplicate names the
 * last definition wins, as in graphql-js's getFragment. */
const gql_ast_fragment *gql_vctx_fragment(gql_vctx *ctx, gql_str name);
/* The fragment spreads directly inside a selection set, nested inline
 * fragments included, fragments not followed (getFragmentSpreads). */
gql_spread_list gql_vctx_fragment_spreads(gql_vctx *ctx,
                                          const gql_ast_selection_set *set);
/* The fragments an operation (or fragment) uses, transitively, each once, in
 * graphql-js's order (getRecursivelyReferencedFragments). */
gql_fragment_list gql_vctx_recursive_fragments(gql_vctx *ctx,
                                               const gql_ast_node *def);
/* The variables used in a node's subtree with their expected types
 * (getVariableUsages), fragments not followed. */
gql_variable_usages gql_vctx_variable_usages(gql_vctx *ctx,
                                             const gql_ast_node *node);
/* The variable usages of an operation including those of the fragments it
 * uses transitively (getRecursiveVariableUsages). */
gql_variable_usages
gql_vctx_recursive_variable_usages(gql_vctx *ctx, const gql_ast_operation *op);

#endif
