/*
 * gql_validate_document: graphql-js validate() — one walk of the document
 * with a TypeInfo, every rule visiting each node in rule order
 * (visitInParallel), stopping once the error limit is reached.
 */
#include "internal.h"

#define GQL_VRULE_PTR_(name) &gql_rule_##name,
static const gql_vrule *const specified[] = {
    GQL_VALIDATION_RULES(GQL_VRULE_PTR_)};
#undef GQL_VRULE_PTR_

const gql_vrule *const *gql_specified_rules(uint32_t *count) {
  *count = (uint32_t)GQL_ARRAY_LEN(specified);
  return specified;
}

static const gql_vrule *const optional[] = {
    &gql_rule_NoDeprecatedCustomRule,
    &gql_rule_NoSchemaIntrospectionCustomRule,
};

static bool rule_named(const gql_vrule *r, const char *name, size_t len) {
  size_t nlen = strlen(r->name);
  /* "ScalarLeafs" for "ScalarLeafsRule" */
  return (len == nlen ||
          (len + 4 == nlen && memcmp(r->name + len, "Rule", 4) == 0)) &&
         memcmp(r->name, name, len) == 0;
}

const gql_vrule *gql_find_rule(const char *name, size_t len) {
  for (size_t i = 0; i < GQL_ARRAY_LEN(specified); i++)
    if (rule_named(specified[i], name, len))
      return specified[i];
  for (size_t i = 0; i < GQL_ARRAY_LEN(optional); i++)
    if (rule_named(optional[i], name, len))
      return optional[i];
  return NULL;
}

/* Node kinds each rule acts on, so that the walk calls a rule only for
 * the kinds it looks at (graphql-js rules are objects keyed by kind; ours
 * are one function that returns at once for the others). A rule not in
 * this table is called for every kind. Keep in step with the rule files:
 * a kind left out here is a kind the rule's enter() returns true for (and
 * leave() ignores) without doing anything. */
#define K_(k) ((uint64_t)1 << GQL_AST_##k)
#define K_ALL UINT64_MAX
#define K_TYPE_DEFS                                                            \
  (K_(SCALAR_TYPE_DEFINITION) | K_(OBJECT_TYPE_DEFINITION) |                   \
   K_(INTERFACE_TYPE_DEFINITION) | K_(UNION_TYPE_DEFINITION) |                 \
   K_(ENUM_TYPE_DEFINITION) | K_(INPUT_OBJECT_TYPE_DEFINITION))
#define K_TYPE_EXTS                                                            \
  (K_(SCALAR_TYPE_EXTENSION) | K_(OBJECT_TYPE_EXTENSION) |                     \
   K_(INTERFACE_TYPE_EXTENSION) | K_(UNION_TYPE_EXTENSION) |                   \
   K_(ENUM_TYPE_EXTENSION) | K_(INPUT_OBJECT_TYPE_EXTENSION))
/* Nodes that carry directives. */
#define K_DIRECTED                                                             \
  (K_(OPERATION_DEFINITION) | K_(VARIABLE_DEFINITION) | K_(FIELD) |            \
   K_(FRAGMENT_SPREAD) | K_(INLINE_FRAGMENT) | K_(FRAGMENT_DEFINITION) |       \
   K_(SCHEMA_DEFINITION) | K_(SCHEMA_EXTENSION) | K_(FIELD_DEFINITION) |       \
   K_(INPUT_VALUE_DEFINITION) | K_(ENUM_VALUE_DEFINITION) | K_TYPE_DEFS |      \
   K_TYPE_EXTS)
#define K_DEFS (K_(OPERATION_DEFINITION) | K_(FRAGMENT_DEFINITION))

typedef struct rule_kinds {
  const gql_vrule *rule;
  uint64_t enter, leave;
} rule_kinds;

/* Per rule of specifiedRules (in order): the kinds of enter and leave. */
#define SPEC_E0 (K_(DOCUMENT)) /* ExecutableDefinitionsRule */
#define SPEC_L0 (0)
#define SPEC_E1 (K_DEFS) /* UniqueOperationNamesRule */
#define SPEC_L1 (0)
#define SPEC_E2                                                                \
  (K_(DOCUMENT) | K_(OPERATION_DEFINITION)) /* LoneAnonymousOperationRule */
#define SPEC_L2 (0)
#define SPEC_E3 (K_(OPERATION_DEFINITION)) /* SingleFieldSubscriptionsRule */
#define SPEC_L3 (0)
#define SPEC_E4                                                                \
  (K_DEFS | K_(SCHEMA_DEFINITION) | K_(SCHEMA_EXTENSION) |                     \
   K_(DIRECTIVE_DEFINITION) | K_TYPE_DEFS | K_TYPE_EXTS |                      \
   K_(NAMED_TYPE)) /* KnownTypeNamesRule */
#define SPEC_L4 (0)
#define SPEC_E5                                                                \
  (K_(INLINE_FRAGMENT) |                                                       \
   K_(FRAGMENT_DEFINITION)) /* FragmentsOnCompositeTypesRule */
#define SPEC_L5 (0)
#define SPEC_E6 (K_(VARIABLE_DEFINITION)) /* VariablesAreInputTypesRule */
#define SPEC_L6 (0)
#define SPEC_E7 (K_(FIELD)) /* ScalarLeafsRule */
#define SPEC_L7 (0)
#define SPEC_E8 (K_(FIELD)) /* FieldsOnCorrectTypeRule */
#define SPEC_L8 (0)
#define SPEC_E9 (K_DEFS) /* UniqueFragmentNamesRule */
#define SPEC_L9 (0)
#define SPEC_E10 (K_(FRAGMENT_SPREAD)) /* KnownFragmentNamesRule */
#define SPEC_L10 (0)
#define SPEC_E11 (K_DEFS) /* NoUnusedFragmentsRule */
#define SPEC_L11 (K_(DOCUMENT))
#define SPEC_E12                                                               \
  (K_(INLINE_FRAGMENT) | K_(FRAGMENT_SPREAD)) /* PossibleFragmentSpreadsRule   \
                                               */
#define SPEC_L12 (0)
#define SPEC_E13 (K_DEFS) /* NoFragmentCyclesRule */
#define SPEC_L13 (0)
#define SPEC_E14 (K_(OPERATION_DEFINITION)) /* UniqueVariableNamesRule */
#define SPEC_L14 (0)
#define SPEC_E15 (0) /* NoUndefinedVariablesRule */
#define SPEC_L15 (K_(OPERATION_DEFINITION))
#define SPEC_E16 (0) /* NoUnusedVariablesRule */
#define SPEC_L16 (K_(OPERATION_DEFINITION))
/* its stack of ancestors needs the nodes a directive can be on (and
 * directive definitions, for arguments of input objects) */
#define SPEC_E17                                                               \
  (K_(DIRECTIVE) | K_DIRECTED |                                                \
   K_(DIRECTIVE_DEFINITION)) /* KnownDirectivesRule */
#define SPEC_L17 (K_(DIRECTIVE) | K_DIRECTED | K_(DIRECTIVE_DEFINITION))
#define SPEC_E18 (K_DIRECTED) /* UniqueDirectivesPerLocationRule */
#define SPEC_L18 (0)
#define SPEC_E19 (K_(DIRECTIVE) | K_(ARGUMENT)) /* KnownArgumentNamesRule */
#define SPEC_L19 (0)
#define SPEC_E20 (K_(FIELD) | K_(DIRECTIVE)) /* UniqueArgumentNamesRule */
#define SPEC_L20 (0)
#define SPEC_E21                                                               \
  (K_(LIST_VALUE) | K_(OBJECT_VALUE) | K_(OBJECT_FIELD) | K_(NULL_VALUE) |     \
   K_(ENUM_VALUE) | K_(INT_VALUE) | K_(FLOAT_VALUE) | K_(STRING_VALUE) |       \
   K_(BOOLEAN_VALUE)) /* ValuesOfCorrectTypeRule */
#define SPEC_L21 (0)
#define SPEC_E22 (0) /* ProvidedRequiredArgumentsRule */
#define SPEC_L22 (K_(FIELD) | K_(DIRECTIVE))
#define SPEC_E23 (0) /* VariablesInAllowedPositionRule */
#define SPEC_L23 (K_(OPERATION_DEFINITION))
#define SPEC_E24 (K_(SELECTION_SET)) /* OverlappingFieldsCanBeMergedRule */
#define SPEC_L24 (0)
#define SPEC_E25                                                               \
  (K_(OBJECT_VALUE) | K_(OBJECT_FIELD)) /* UniqueInputFieldNamesRule */
#define SPEC_L25 (K_(OBJECT_VALUE))
#define SPEC_E26 (K_(FIELD)) /* MaxIntrospectionDepthRule */
#define SPEC_L26 (0)
#define SPEC_ROW_E(k)                                                          \
  (((((uint64_t)(SPEC_E0) >> (k)) & 1) << 0) |                                 \
   ((((uint64_t)(SPEC_E1) >> (k)) & 1) << 1) |                                 \
   ((((uint64_t)(SPEC_E2) >> (k)) & 1) << 2) |                                 \
   ((((uint64_t)(SPEC_E3) >> (k)) & 1) << 3) |                                 \
   ((((uint64_t)(SPEC_E4) >> (k)) & 1) << 4) |                                 \
   ((((uint64_t)(SPEC_E5) >> (k)) & 1) << 5) |                                 \
   ((((uint64_t)(SPEC_E6) >> (k)) & 1) << 6) |                                 \
   ((((uint64_t)(SPEC_E7) >> (k)) & 1) << 7) |                                 \
   ((((uint64_t)(SPEC_E8) >> (k)) & 1) << 8) |                                 \
   ((((uint64_t)(SPEC_E9) >> (k)) & 1) << 9) |                                 \
   ((((uint64_t)(SPEC_E10) >> (k)) & 1) << 10) |                               \
   ((((uint64_t)(SPEC_E11) >> (k)) & 1) << 11) |                               \
   ((((uint64_t)(SPEC_E12) >> (k)) & 1) << 12) |                               \
   ((((uint64_t)(SPEC_E13) >> (k)) & 1) << 13) |                               \
   ((((uint64_t)(SPEC_E14) >> (k)) & 1) << 14) |                               \
   ((((uint64_t)(SPEC_E15) >> (k)) & 1) << 15) |                               \
   ((((uint64_t)(SPEC_E16) >> (k)) & 1) << 16) |                               \
   ((((uint64_t)(SPEC_E17) >> (k)) & 1) << 17) |                               \
   ((((uint64_t)(SPEC_E18) >> (k)) & 1) << 18) |                               \
   ((((uint64_t)(SPEC_E19) >> (k)) & 1) << 19) |                               \
   ((((uint64_t)(SPEC_E20) >> (k)) & 1) << 20) |                               \
   ((((uint64_t)(SPEC_E21) >> (k)) & 1) << 21) |                               \
   ((((uint64_t)(SPEC_E22) >> (k)) & 1) << 22) |                               \
   ((((uint64_t)(SPEC_E23) >> (k)) & 1) << 23) |                               \
   ((((uint64_t)(SPEC_E24) >> (k)) & 1) << 24) |                               \
   ((((uint64_t)(SPEC_E25) >> (k)) & 1) << 25) |                               \
   ((((uint64_t)(SPEC_E26) >> (k)) & 1) << 26))
#define SPEC_ROW_L(k)                                                          \
  (((((uint64_t)(SPEC_L0) >> (k)) & 1) << 0) |                                 \
   ((((uint64_t)(SPEC_L1) >> (k)) & 1) << 1) |                                 \
   ((((uint64_t)(SPEC_L2) >> (k)) & 1) << 2) |                                 \
   ((((uint64_t)(SPEC_L3) >> (k)) & 1) << 3) |                                 \
   ((((uint64_t)(SPEC_L4) >> (k)) & 1) << 4) |                                 \
   ((((uint64_t)(SPEC_L5) >> (k)) & 1) << 5) |                                 \
   ((((uint64_t)(SPEC_L6) >> (k)) & 1) << 6) |                                 \
   ((((uint64_t)(SPEC_L7) >> (k)) & 1) << 7) |                                 \
   ((((uint64_t)(SPEC_L8) >> (k)) & 1) << 8) |                                 \
   ((((uint64_t)(SPEC_L9) >> (k)) & 1) << 9) |                                 \
   ((((uint64_t)(SPEC_L10) >> (k)) & 1) << 10) |                               \
   ((((uint64_t)(SPEC_L11) >> (k)) & 1) << 11) |                               \
   ((((uint64_t)(SPEC_L12) >> (k)) & 1) << 12) |                               \
   ((((uint64_t)(SPEC_L13) >> (k)) & 1) << 13) |                               \
   ((((uint64_t)(SPEC_L14) >> (k)) & 1) << 14) |                               \
   ((((uint64_t)(SPEC_L15) >> (k)) & 1) << 15) |                               \
   ((((uint64_t)(SPEC_L16) >> (k)) & 1) << 16) |                               \
   ((((uint64_t)(SPEC_L17) >> (k)) & 1) << 17) |                               \
   ((((uint64_t)(SPEC_L18) >> (k)) & 1) << 18) |                               \
   ((((uint64_t)(SPEC_L19) >> (k)) & 1) << 19) |                               \
   ((((uint64_t)(SPEC_L20) >> (k)) & 1) << 20) |                               \
   ((((uint64_t)(SPEC_L21) >> (k)) & 1) << 21) |                               \
   ((((uint64_t)(SPEC_L22) >> (k)) & 1) << 22) |                               \
   ((((uint64_t)(SPEC_L23) >> (k)) & 1) << 23) |                               \
   ((((uint64_t)(SPEC_L24) >> (k)) & 1) << 24) |                               \
   ((((uint64_t)(SPEC_L25) >> (k)) & 1) << 25) |                               \
   ((((uint64_t)(SPEC_L26) >> (k)) & 1) << 26))
/* Per node kind: the specified rules (bit i: specified[i]) to call. */
#define SPEC_ROW_E_(e, n) SPEC_ROW_E(GQL_AST_##e),
#define SPEC_ROW_L_(e, n) SPEC_ROW_L(GQL_AST_##e),
static const uint64_t spec_on_enter[GQL_AST_KIND_COUNT] = {
    GQL_AST_KINDS(SPEC_ROW_E_)};
static const uint64_t spec_on_leave[GQL_AST_KIND_COUNT] = {
    GQL_AST_KINDS(SPEC_ROW_L_)};
#undef SPEC_ROW_E_
#undef SPEC_ROW_L_

/* Every rule with known kinds, for other lists of rules. */
static const rule_kinds kinds_table[] = {
    {&gql_rule_ExecutableDefinitionsRule, SPEC_E0, SPEC_L0},
    {&gql_rule_UniqueOperationNamesRule, SPEC_E1, SPEC_L1},
    {&gql_rule_LoneAnonymousOperationRule, SPEC_E2, SPEC_L2},
    {&gql_rule_SingleFieldSubscriptionsRule, SPEC_E3, SPEC_L3},
    {&gql_rule_KnownTypeNamesRule, SPEC_E4, SPEC_L4},
    {&gql_rule_FragmentsOnCompositeTypesRule, SPEC_E5, SPEC_L5},
    {&gql_rule_VariablesAreInputTypesRule, SPEC_E6, SPEC_L6},
    {&gql_rule_ScalarLeafsRule, SPEC_E7, SPEC_L7},
    {&gql_rule_FieldsOnCorrectTypeRule, SPEC_E8, SPEC_L8},
    {&gql_rule_UniqueFragmentNamesRule, SPEC_E9, SPEC_L9},
    {&gql_rule_KnownFragmentNamesRule, SPEC_E10, SPEC_L10},
    {&gql_rule_NoUnusedFragmentsRule, SPEC_E11, SPEC_L11},
    {&gql_rule_PossibleFragmentSpreadsRule, SPEC_E12, SPEC_L12},
    {&gql_rule_NoFragmentCyclesRule, SPEC_E13, SPEC_L13},
    {&gql_rule_UniqueVariableNamesRule, SPEC_E14, SPEC_L14},
    {&gql_rule_NoUndefinedVariablesRule, SPEC_E15, SPEC_L15},
    {&gql_rule_NoUnusedVariablesRule, SPEC_E16, SPEC_L16},
    {&gql_rule_KnownDirectivesRule, SPEC_E17, SPEC_L17},
    {&gql_rule_UniqueDirectivesPerLocationRule, SPEC_E18, SPEC_L18},
    {&gql_rule_KnownArgumentNamesRule, SPEC_E19, SPEC_L19},
    {&gql_rule_UniqueArgumentNamesRule, SPEC_E20, SPEC_L20},
    {&gql_rule_ValuesOfCorrectTypeRule, SPEC_E21, SPEC_L21},
    {&gql_rule_ProvidedRequiredArgumentsRule, SPEC_E22, SPEC_L22},
    {&gql_rule_VariablesInAllowedPositionRule, SPEC_E23, SPEC_L23},
    {&gql_rule_OverlappingFieldsCanBeMergedRule, SPEC_E24, SPEC_L24},
    {&gql_rule_UniqueInputFieldNamesRule, SPEC_E25, SPEC_L25},
    {&gql_rule_MaxIntrospectionDepthRule, SPEC_E26, SPEC_L26},
    {&gql_rule_NoDeprecatedCustomRule,
     K_(FIELD) | K_(ARGUMENT) | K_(OBJECT_FIELD) | K_(ENUM_VALUE), 0},
    {&gql_rule_NoSchemaIntrospectionCustomRule, K_(FIELD), 0},
};

/* `hint`: where to look first (the table is in specifiedRules order). */
static void kinds_of(const gql_vrule *r, uint32_t hint, uint64_t *enter,
                     uint64_t *leave) {
  *enter = r->enter ? K_ALL : 0;
  *leave = r->leave ? K_ALL : 0;
  if (hint < GQL_ARRAY_LEN(kinds_table) && kinds_table[hint].rule == r) {
    *enter &= kinds_table[hint].enter;
    *leave &= kinds_table[hint].leave;
    return;
  }
  for (size_t i = 0; i < GQL_ARRAY_LEN(kinds_table); i++)
    if (kinds_table[i].rule == r) {
      *enter &= kinds_table[i].enter;
      *leave &= kinds_table[i].leave;
      return;
    }
}

/* visitInParallel: skipping[i] is the node whose subtree rule i skips.
 * With at most 64 rules, the rules to call for each node kind on enter and
 * on leave are bit sets (bit i: rules[i]). */
enum { MASKED_MAX = 64 };
_Static_assert(GQL_AST_KIND_COUNT <= 64, "node kinds fit a uint64_t");
_Static_assert(GQL_ARRAY_LEN(specified) == 27,
               "spec_on_enter and spec_on_leave list 27 rules");

typedef struct parallel {
  gql_walker w;
  gql_vctx *ctx;
  const gql_vrule *const *rules;
  void **states;
  const gql_ast_node **skipping;
  uint32_t nrules;
  uint32_t nskipping; /* rules currently skipping */
  bool masked;        /* nrules <= MASKED_MAX: the sets below are used */
  uint64_t skip_bits; /* rules currently skipping */
  uint64_t has_enter, has_leave;       /* rules with the callback */
  const uint64_t *on_enter, *on_leave; /* per node kind: rules to call */
  /* the nodes rules skip from, outermost first, and the rules of each */
  const gql_ast_node **stack_nodes;
  uint64_t *stack_bits;
  uint32_t nstack;
  /* the variable usages of the current operation or fragment, collected
   * on the way (see gql_vctx_keep_usages) */
  bool collect;            /* the document may use variables */
  bool pruned;             /* the walk skipped part of `def` */
  const gql_ast_node *def; /* the definition being walked, or NULL */
  uint32_t in_vardef;      /* inside a variable definition */
  gql_usage_vec usages;
  /* Rules with nothing to do at some nodes of the executable kinds, left
   * out of the calls there (bits as the sets above): */
  uint64_t no_dirs;  /* at a node without directives (KnownDirectives
                      * keeps only the nodes directives are on, and
                      * UniqueDirectivesPerLocation compares them) */
  uint64_t one_dir;  /* with one directive (UniqueDirectivesPerLocation) */
  uint64_t few_args; /* at a field with fewer than two arguments
                      * (UniqueArgumentNames) */
  uint64_t no_intro; /* at a field not named __... (MaxIntrospectionDepth
                      * starts at __schema and __type) */
  uint64_t refined;  /* all of the above */
} parallel;

/* The rules of p->refined that have nothing to do at `node`. */
static uint64_t idle_at(const parallel *p, const gql_ast_node *node) {
  const gql_ast_directives *ds;
  uint64_t idle = 0;
  switch (node->kind) {
  case GQL_AST_FIELD: {
    const gql_ast_selection *f = (const gql_ast_selection *)node;
    if (f->args.count < 2)
      idle |= p->few_args;
    if (f->name.len < 2 || f->name.ptr[0] != '_' || f->name.ptr[1] != '_')
      idle |= p->no_intro;
    ds = &f->directives;
    break;
  }
  case GQL_AST_FRAGMENT_SPREAD:
  case GQL_AST_INLINE_FRAGMENT:
    ds = &((const gql_ast_selection *)node)->directives;
    break;
  case GQL_AST_OPERATION_DEFINITION:
    ds = &((const gql_ast_operation *)node)->directives;
    break;
  case GQL_AST_FRAGMENT_DEFINITION:
    ds = &((const gql_ast_fragment *)node)->directives;
    break;
  case GQL_AST_VARIABLE_DEFINITION:
    ds = &((const gql_ast_variable_definition *)node)->directives;
    break;
  default:
    return 0;
  }
  if (ds->count == 0)
    idle |= p->no_dirs | p->one_dir;
  else if (ds->count == 1)
    idle |= p->one_dir;
  return idle;
}

/* Collects the usages of the definition being walked, as a walk of its own
 * with a fresh TypeInfo would (TypeInfo's stacks are at the document's
 * level between definitions). */
static void note_enter(parallel *p, const gql_ast_node *node) {
  switch (node->kind) {
  case GQL_AST_OPERATION_DEFINITION:
  case GQL_AST_FRAGMENT_DEFINITION:
    p->def = node;
    p->pruned = false;
    p->in_vardef = 0;
    p->usages = (gql_usage_vec){0};
    break;
  case GQL_AST_VARIABLE_DEFINITION:
    p->in_vardef++;
    break;
  case GQL_AST_VARIABLE:
    if (p->def && !p->in_vardef &&
        !gql_usage_push(p->ctx, p->w.ti, &p->usages, node))
      p->def = NULL;
    break;
  default:
    break;
  }
}

/* Before the rules leave `node`: a definition's usages are complete. */
static void note_leave(parallel *p, const gql_ast_node *node) {
  if (node->kind == GQL_AST_VARIABLE_DEFINITION) {
    if (p->in_vardef)
      p->in_vardef--;
  } else if (node == p->def) {
    if (!p->pruned && !p->w.ti->nomem)
      gql_vctx_keep_usages(p->ctx, node, &p->usages);
    p->def = NULL;
  }
}

static bool par_enter_masked(parallel *p, const gql_ast_node *node) {
  unsigned k = node->kind;
  if (p->collect)
    note_enter(p, node);
  uint64_t bits = (k < GQL_AST_KIND_COUNT ? p->on_enter[k] : UINT64_MAX) &
                  p->has_enter & ~p->skip_bits;
  if (bits & p->refined)
    bits &= ~idle_at(p, node);
  while (bits) {
    uint32_t i = (uint32_t)__builtin_ctzll(bits);
    bits &= bits - 1;
    if (!p->rules[i]->enter(p->ctx, p->states[i], node)) {
      uint64_t bit = (uint64_t)1 << i;
      p->skipping[i] = node;
      p->skip_bits |= bit;
      p->nskipping++;
      /* skip nodes lie on the current path: a stack, deepest on top */
      if (p->nstack && p->stack_nodes[p->nstack - 1] == node) {
        p->stack_bits[p->nstack - 1] |= bit;
      } else {
        p->stack_nodes[p->nstack] = node;
        p->stack_bits[p->nstack++] = bit;
      }
    }
    if (p->ctx->impl->aborted) {
      p->w.stop = true;
      return false;
    }
  }
  /* when every rule skips the subtree, nobody looks at it */
  if (p->nskipping < p->nrules)
    return true;
  p->pruned = true;
  return false;
}

static bool par_enter(gql_walker *w, const gql_ast_node *node) {
  parallel *p = (parallel *)w;
  if (p->masked)
    return par_enter_masked(p, node);
  if (p->collect)
    note_enter(p, node);
  for (uint32_t i = 0; i < p->nrules; i++) {
    if (p->skipping[i])
      continue;
    const gql_vrule *r = p->rules[i];
    if (r->enter && !r->enter(p->ctx, p->states[i], node)) {
      p->skipping[i] = node;
      p->nskipping++;
    }
    if (p->ctx->impl->aborted) {
      w->stop = true;
      return false;
    }
  }
  /* when every rule skips the subtree, nobody looks at it */
  if (p->nskipping < p->nrules)
    return true;
  p->pruned = true;
  return false;
}

static void par_leave_masked(parallel *p, const gql_ast_node *node) {
  unsigned k = node->kind;
  if (p->collect)
    note_leave(p, node);
  uint64_t before = p->skip_bits;
  /* the rules that skip from this node on see it no more: when it is a
   * skip node, it is the deepest one */
  if (p->nstack && p->stack_nodes[p->nstack - 1] == node) {
    uint64_t done = p->stack_bits[--p->nstack];
    p->skip_bits &= ~done;
    while (done) {
      uint32_t i = (uint32_t)__builtin_ctzll(done);
      done &= done - 1;
      p->skipping[i] = NULL;
      p->nskipping--;
    }
  }
  uint64_t bits = (k < GQL_AST_KIND_COUNT ? p->on_leave[k] : UINT64_MAX) &
                  p->has_leave & ~before;
  if (bits & p->refined)
    bits &= ~idle_at(p, node);
  while (bits) {
    uint32_t i = (uint32_t)__builtin_ctzll(bits);
    bits &= bits - 1;
    p->rules[i]->leave(p->ctx, p->states[i], node);
    if (p->ctx->impl->aborted) {
      p->w.stop = true;
      return;
    }
  }
}

static void par_leave(gql_walker *w, const gql_ast_node *node) {
  parallel *p = (parallel *)w;
  if (p->masked) {
    par_leave_masked(p, node);
    return;
  }
  if (p->collect)
    note_leave(p, node);
  for (uint32_t i = 0; i < p->nrules; i++) {
    if (p->skipping[i]) {
      if (p->skipping[i] == node) {
        p->skipping[i] = NULL;
        p->nskipping--;
      }
      continue;
    }
    p->rules[i]->leave(p->ctx, p->states[i], node);
    if (p->ctx->impl->aborted) {
      w->stop = true;
      return;
    }
  }
}

/* ---- the fast path: documents the specified rules are known to accept
 *
 * One query or mutation without variables, directives, arguments or
 * fragments, whose fields all exist, need no argument, are leaves exactly
 * when they have no selection and have distinct response keys within each
 * selection set, and without __schema or __type (MaxIntrospectionDepthRule
 * looks there). Each specified rule finds nothing to report on such a
 * document: there are no fragments, variables, directives, arguments,
 * values or named types for 18 of them, and the others (executable
 * definitions, operation names, lone anonymous operation, single-field
 * subscriptions, fields on correct type, scalar leafs, provided required
 * arguments, overlapping fields, introspection depth) check exactly what
 * is required here. Anything else, valid or not, takes the full walk, which
 * then writes the errors in graphql-js's order. */
enum { FAST_MAX_SET = 32 }; /* fields per set compared pairwise */

static bool fast_set(const gql_schema *s, const gql_ast_selection_set *set,
                     uint32_t parent) {
  uint32_t n = set->selections.count;
  if (n > FAST_MAX_SET)
    return false;
  for (uint32_t i = 0; i < n; i++) {
    const gql_ast_selection *f = set->selections.items[i];
    if (f->h.kind != GQL_AST_FIELD || f->args.count || f->directives.count)
      return false;
    gql_str name = gql_ast_name_str(f->name);
    bool meta = name.len > 2 && name.ptr[0] == '_' && name.ptr[1] == '_';
    if (meta &&
        (gql_str_eq_cstr(name, "__schema") || gql_str_eq_cstr(name, "__type")))
      return false;
    /* gql_schema_field_def's answer: a name without "__" on an object or
     * interface is one of its own fields */
    gql_type_kind pk = s->types[parent].kind;
    const gql_field *def =
        !meta && (pk == GQL_TYPE_OBJECT || pk == GQL_TYPE_INTERFACE)
            ? gql_type_field(&s->types[parent], name)
            : gql_schema_field_def(s, parent, name);
    if (!def)
      return false;
    for (uint32_t a = 0; a < def->nargs; a++)
      if (gql_type_ref_is_non_null(def->args[a].type) &&
          !def->args[a].default_value)
        return false;
    uint32_t t = def->type.type;
    if (t >= s->ntypes) /* the checks of gql_schema_is_output and _is_leaf */
      return false;
    gql_type_kind kind = s->types[t].kind;
    bool leaf = kind == GQL_TYPE_SCALAR || kind == GQL_TYPE_ENUM;
    if (kind == GQL_TYPE_INPUT_OBJECT || leaf == (f->selection_set != NULL))
      return false;
    gql_str key = f->alias.ptr ? gql_ast_name_str(f->alias) : name;
    for (uint32_t j = 0; j < i; j++) {
      const gql_ast_selection *g = set->selections.items[j];
      gql_str k =
          g->alias.ptr ? gql_ast_name_str(g->alias) : gql_ast_name_str(g->name);
      if (gql_str_eq(k, key))
        return false;
    }
    if (f->selection_set && !fast_set(s, f->selection_set, t))
      return false;
  }
  return true;
}

bool gql_validate_fast(const gql_schema *schema, const gql_document *doc) {
  if (doc->definitions.count != 1 ||
      doc->definitions.items[0]->kind != GQL_AST_OPERATION_DEFINITION)
    return false;
  const gql_ast_operation *op =
      (const gql_ast_operation *)doc->definitions.items[0];
  if (op->operation == GQL_OP_SUBSCRIPTION || op->description ||
      op->variables.count || op->directives.count || !op->selection_set)
    return false;
  uint32_t root = op->operation == GQL_OP_QUERY
                      ? schema->query
                      : gql_schema_root_type(schema, op->operation);
  if (root == GQL_NO_TYPE || schema->types[root].kind != GQL_TYPE_OBJECT)
    return false;
  return fast_set(schema, op->selection_set, root);
}

/* The walk of every rule (kept out of gql_validate_document, so that the
 * fast path does not pay for its frame). */
static __attribute__((noinline)) int
validate_walk(const gql_schema *schema, const gql_document *doc,
              const gql_vrule *const *rules, uint32_t nrules,
              const gql_validate_options *options, gql_error_list *errors) {
  gql_arena *arena = errors->arena;
  struct gql_vctx_impl impl = {
      .max_errors = options && options->max_errors ? options->max_errors : 100};
  gql_type_info_init(&impl.ti, schema, arena);
  /* the fragment-name map (made above 16 fragments) lives in the request
   * arena too */
  gql_allocator frag_alc = gql_arena_allocator(arena);
  impl.fragments_alc = &frag_alc;
  gql_vctx ctx = {.schema = schema,
                  .doc = doc,
                  .source = doc->source,
                  .arena = arena,
                  .errors = errors,
                  .impl = &impl};
  int rc = 0;
  /* One zeroed block: the skip stack's rule sets, the state pointers, the
   * skipping nodes, the skip stack's nodes and every rule's state (each at
   * a 16-byte boundary). */
  size_t head =
      ((size_t)nrules * (sizeof(uint64_t) + 3 * sizeof(void *)) + 15) &
      ~(size_t)15;
  size_t total = head;
  for (uint32_t i = 0; i < nrules; i++)
    total += (rules[i]->state_size + 15) & ~(size_t)15;
  char *block = nrules ? gql_arena_alloc(arena, total) : NULL;
  if (nrules && !block) {
    rc = GQL_ENOMEM;
    goto done;
  }
  if (block)
    memset(block, 0, total);
  uint64_t *stack_bits = (uint64_t *)block;
  void **states = block ? (void **)(stack_bits + nrules) : NULL;
  const gql_ast_node **skipping =
      block ? (const gql_ast_node **)(states + nrules) : NULL;
  const gql_ast_node **stack_nodes = block ? skipping + nrules : NULL;
  uint64_t has_enter = 0, has_leave = 0;
  for (size_t i = 0, off = head; i < nrules; i++) {
    size_t size = rules[i]->state_size;
    if (size) {
      states[i] = block + off;
      off += (size + 15) & ~(size_t)15;
    }
    if (i < MASKED_MAX) {
      has_enter |= (uint64_t)(rules[i]->enter != NULL) << i;
      has_leave |= (uint64_t)(rules[i]->leave != NULL) << i;
    }
  }
  for (uint32_t i = 0; i < nrules; i++)
    if (rules[i]->init)
      rules[i]->init(&ctx, states[i]);
  parallel p = {.w = {.ti = &impl.ti, .enter = par_enter, .leave = par_leave},
                .ctx = &ctx,
                .rules = rules,
                .states = states,
                .skipping = skipping,
                .nrules = nrules,
                .masked = nrules <= MASKED_MAX,
                .has_enter = has_enter,
                .has_leave = has_leave,
                .stack_nodes = stack_nodes,
                .stack_bits = stack_bits};
  if (p.masked && rules == specified) {
    p.on_enter = spec_on_enter;
    p.on_leave = spec_on_leave;
  } else if (p.masked) {
    uint64_t *sets =
        gql_arena_alloc(arena, 2 * GQL_AST_KIND_COUNT * sizeof *sets);
    if (!sets) {
      rc = GQL_ENOMEM;
      goto done;
    }
    memset(sets, 0, 2 * GQL_AST_KIND_COUNT * sizeof *sets);
    for (uint32_t i = 0; i < nrules; i++) {
      uint64_t e, l;
      kinds_of(rules[i], i, &e, &l);
      for (unsigned k = 0; k < GQL_AST_KIND_COUNT; k++) {
        sets[k] |= ((e >> k) & 1) << i;
        sets[GQL_AST_KIND_COUNT + k] |= ((l >> k) & 1) << i;
      }
    }
    p.on_enter = sets;
    p.on_leave = sets + GQL_AST_KIND_COUNT;
  }
  for (uint32_t i = 0; p.masked && i < nrules; i++) {
    uint64_t bit = (uint64_t)1 << i;
    if (rules[i] == &gql_rule_KnownDirectivesRule)
      p.no_dirs |= bit;
    else if (rules[i] == &gql_rule_UniqueDirectivesPerLocationRule)
      p.one_dir |= bit;
    else if (rules[i] == &gql_rule_UniqueArgumentNamesRule)
      p.few_args |= bit;
    else if (rules[i] == &gql_rule_MaxIntrospectionDepthRule)
      p.no_intro |= bit;
  }
  p.refined = p.no_dirs | p.one_dir | p.few_args | p.no_intro;
  p.collect = gql_vctx_may_use_variables(&ctx);
  if (!impl.aborted)
    gql_walk(&p.w, &doc->h);
  if (impl.ti.nomem || errors->nomem)
    rc = GQL_ENOMEM;
done:
  if (impl.many_fragments)
    gql_strmap_free(&impl.fragments);
  return rc;
}

int gql_validate_document(const gql_schema *schema, const gql_document *doc,
                          const gql_vrule *const *rules, uint32_t nrules,
                          const gql_validate_options *options,
                          gql_error_list *errors) {
  if (!rules) {
    if (gql_validate_fast(schema, doc))
      return 0;
    rules = gql_specified_rules(&nrules);
  }
  return validate_walk(schema, doc, rules, nrules, options, errors);
}
