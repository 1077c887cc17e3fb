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

/* Per rule of specifiedRules: the kinds of enter (E_) and leave (L_). */
#define E_ExecutableDefinitionsRule (K_(DOCUMENT))
#define L_ExecutableDefinitionsRule (0)
#define E_UniqueOperationNamesRule (K_DEFS)
#define L_UniqueOperationNamesRule (0)
#define E_LoneAnonymousOperationRule (K_(DOCUMENT) | K_(OPERATION_DEFINITION))
#define L_LoneAnonymousOperationRule (0)
#define E_SingleFieldSubscriptionsRule (K_(OPERATION_DEFINITION))
#define L_SingleFieldSubscriptionsRule (0)
#define E_KnownTypeNamesRule                                                   \
  (K_DEFS | K_(SCHEMA_DEFINITION) | K_(SCHEMA_EXTENSION) |                     \
   K_(DIRECTIVE_DEFINITION) | K_TYPE_DEFS | K_TYPE_EXTS | K_(NAMED_TYPE))
#define L_KnownTypeNamesRule (0)
#define E_FragmentsOnCompositeTypesRule                                        \
  (K_(INLINE_FRAGMENT) | K_(FRAGMENT_DEFINITION))
#define L_FragmentsOnCompositeTypesRule (0)
#define E_VariablesAreInputTypesRule (K_(VARIABLE_DEFINITION))
#define L_VariablesAreInputTypesRule (0)
#define E_ScalarLeafsRule (K_(FIELD))
#define L_ScalarLeafsRule (0)
#define E_FieldsOnCorrectTypeRule (K_(FIELD))
#define L_FieldsOnCorrectTypeRule (0)
#define E_UniqueFragmentNamesRule (K_DEFS)
#define L_UniqueFragmentNamesRule (0)
#define E_KnownFragmentNamesRule (K_(FRAGMENT_SPREAD))
#define L_KnownFragmentNamesRule (0)
#define E_NoUnusedFragmentsRule (K_DEFS)
#define L_NoUnusedFragmentsRule (K_(DOCUMENT))
#define E_PossibleFragmentSpreadsRule                                          \
  (K_(INLINE_FRAGMENT) | K_(FRAGMENT_SPREAD))
#define L_PossibleFragmentSpreadsRule (0)
#define E_NoFragmentCyclesRule (K_DEFS)
#define L_NoFragmentCyclesRule (0)
#define E_UniqueVariableNamesRule (K_(OPERATION_DEFINITION))
#define L_UniqueVariableNamesRule (0)
#define E_NoUndefinedVariablesRule (0)
#define L_NoUndefinedVariablesRule (K_(OPERATION_DEFINITION))
#define E_NoUnusedVariablesRule (0)
#define L_NoUnusedVariablesRule (K_(OPERATION_DEFINITION))
/* its stack of ancestors needs the nodes a directive can be on (and
 * directive definitions, for arguments of input objects) */
#define E_KnownDirectivesRule                                                  \
  (K_(DIRECTIVE) | K_DIRECTED | K_(DIRECTIVE_DEFINITION))
#define L_KnownDirectivesRule                                                  \
  (K_(DIRECTIVE) | K_DIRECTED | K_(DIRECTIVE_DEFINITION))
#define E_UniqueDirectivesPerLocationRule (K_DIRECTED)
#define L_UniqueDirectivesPerLocationRule (0)
#define E_DeferStreamDirectiveOnRootFieldRule (K_(OPERATION_DEFINITION))
#define L_DeferStreamDirectiveOnRootFieldRule (0)
#define E_DeferStreamDirectiveOnValidOperationsRule (K_(OPERATION_DEFINITION))
#define L_DeferStreamDirectiveOnValidOperationsRule (0)
#define E_DeferStreamDirectiveLabelRule (K_(DIRECTIVE))
#define L_DeferStreamDirectiveLabelRule (0)
#define E_StreamDirectiveOnListFieldRule (K_(DIRECTIVE))
#define L_StreamDirectiveOnListFieldRule (0)
#define E_KnownArgumentNamesRule (K_(DIRECTIVE) | K_(ARGUMENT))
#define L_KnownArgumentNamesRule (0)
#define E_UniqueArgumentNamesRule (K_(FIELD) | K_(DIRECTIVE))
#define L_UniqueArgumentNamesRule (0)
#define E_ValuesOfCorrectTypeRule                                              \
  (K_(LIST_VALUE) | K_(OBJECT_VALUE) | K_(OBJECT_FIELD) | K_(NULL_VALUE) |     \
   K_(ENUM_VALUE) | K_(INT_VALUE) | K_(FLOAT_VALUE) | K_(STRING_VALUE) |       \
   K_(BOOLEAN_VALUE))
#define L_ValuesOfCorrectTypeRule (0)
#define E_ProvidedRequiredArgumentsRule (0)
#define L_ProvidedRequiredArgumentsRule (K_(FIELD) | K_(DIRECTIVE))
#define E_VariablesInAllowedPositionRule (0)
#define L_VariablesInAllowedPositionRule (K_(OPERATION_DEFINITION))
#define E_OverlappingFieldsCanBeMergedRule (K_(SELECTION_SET))
#define L_OverlappingFieldsCanBeMergedRule (0)
#define E_UniqueInputFieldNamesRule (K_(OBJECT_VALUE) | K_(OBJECT_FIELD))
#define L_UniqueInputFieldNamesRule (K_(OBJECT_VALUE))
#define E_MaxIntrospectionDepthRule (K_(FIELD))
#define L_MaxIntrospectionDepthRule (0)

/* The position of each specified rule (its bit in the sets below). */
#define SPEC_INDEX_(name) SPEC_AT_##name,
enum { GQL_VALIDATION_RULES(SPEC_INDEX_) SPEC_COUNT };
#undef SPEC_INDEX_
_Static_assert(SPEC_COUNT <= 64, "the specified rules fit a uint64_t");
#define SPEC_BIT_E_(name, k)                                                   \
  ((((uint64_t)(E_##name) >> (k)) & 1) << SPEC_AT_##name) |
#define SPEC_BIT_L_(name, k)                                                   \
  ((((uint64_t)(L_##name) >> (k)) & 1) << SPEC_AT_##name) |
/* Per node kind: the specified rules (bit i: specified[i]) to call. */
#define SPEC_ROW_E_(e, n)                                                      \
  (GQL_VALIDATION_RULES_WITH(SPEC_BIT_E_, GQL_AST_##e) 0),
#define SPEC_ROW_L_(e, n)                                                      \
  (GQL_VALIDATION_RULES_WITH(SPEC_BIT_L_, GQL_AST_##e) 0),
static const uint64_t spec_on_enter[GQL_AST_KIND_COUNT] = {
    GQL_AST_KINDS(SPEC_ROW_E_)};
static const uint64_t spec_on_leave[GQL_AST_KIND_COUNT] = {
    GQL_AST_KINDS(SPEC_ROW_L_)};
#undef SPEC_ROW_E_
#undef SPEC_ROW_L_

/* Every rule with known kinds, for other lists of rules. */
#define SPEC_KINDS_(name) {&gql_rule_##name, E_##name, L_##name},
static const rule_kinds kinds_table[] = {
    GQL_VALIDATION_RULES(SPEC_KINDS_){
        &gql_rule_NoDeprecatedCustomRule,
        K_(FIELD) | K_(ARGUMENT) | K_(OBJECT_FIELD) | K_(ENUM_VALUE), 0},
    {&gql_rule_NoSchemaIntrospectionCustomRule, K_(FIELD), 0},
};
#undef SPEC_KINDS_

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
