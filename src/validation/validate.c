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

/* visitInParallel: skipping[i] is the node whose subtree rule i skips. */
typedef struct parallel {
  gql_walker w;
  gql_vctx *ctx;
  const gql_vrule *const *rules;
  void **states;
  const gql_ast_node **skipping;
  uint32_t nrules;
  uint32_t nskipping; /* rules currently skipping */
} parallel;

static bool par_enter(gql_walker *w, const gql_ast_node *node) {
  parallel *p = (parallel *)w;
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
  return p->nskipping < p->nrules;
}

static void par_leave(gql_walker *w, const gql_ast_node *node) {
  parallel *p = (parallel *)w;
  for (uint32_t i = 0; i < p->nrules; i++) {
    if (p->skipping[i]) {
      if (p->skipping[i] == node) {
        p->skipping[i] = NULL;
        p->nskipping--;
      }
      continue;
    }
    const gql_vrule *r = p->rules[i];
    if (r->leave)
      r->leave(p->ctx, p->states[i], node);
    if (p->ctx->impl->aborted) {
      w->stop = true;
      return;
    }
  }
}

int gql_validate_document(const gql_schema *schema, const gql_document *doc,
                          const gql_vrule *const *rules, uint32_t nrules,
                          const gql_validate_options *options,
                          gql_error_list *errors) {
  if (!rules)
    rules = gql_specified_rules(&nrules);
  gql_arena *arena = errors->arena;
  struct gql_vctx_impl impl = {
      .max_errors = options && options->max_errors ? options->max_errors : 100};
  gql_type_info_init(&impl.ti, schema, arena);
  gql_strmap_init(&impl.fragments, NULL);
  gql_vctx ctx = {.schema = schema,
                  .doc = doc,
                  .source = doc->source,
                  .arena = arena,
                  .errors = errors,
                  .impl = &impl};
  int rc = 0;
  void **states =
      nrules ? gql_arena_alloc(arena, nrules * sizeof *states) : NULL;
  const gql_ast_node **skipping =
      nrules ? gql_arena_alloc(arena, nrules * sizeof *skipping) : NULL;
  if (nrules && (!states || !skipping)) {
    rc = GQL_ENOMEM;
    goto done;
  }
  for (uint32_t i = 0; i < nrules; i++) {
    skipping[i] = NULL;
    states[i] = NULL;
    size_t size = rules[i]->state_size;
    if (size) {
      states[i] = gql_arena_alloc(arena, size);
      if (!states[i]) {
        rc = GQL_ENOMEM;
        goto done;
      }
      memset(states[i], 0, size);
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
                .nrules = nrules};
  if (!impl.aborted)
    gql_walk(&p.w, &doc->h);
  if (impl.ti.nomem || errors->nomem)
    rc = GQL_ENOMEM;
done:
  gql_strmap_free(&impl.fragments);
  return rc;
}
