/*
 * SingleFieldSubscriptionsRule: a subscription selects one top-level field,
 * and not an introspection one. Fields are collected as graphql-js 16's
 * collectFields does with no variable values: fragments followed once,
 * inline fragments and fragments whose type condition does not apply to the
 * subscription type left out, @skip(if: true) / @include(if: false) obeyed.
 */
#include "internal.h"

/* One response key and its fields, in order of first appearance. */
typedef struct group {
  gql_str key;
  const gql_ast_selection **fields;
  uint32_t count, cap;
} group;

typedef struct collector {
  gql_vctx *ctx;
  uint32_t root;
  gql_namemap keys;    /* response key → group index */
  gql_namemap visited; /* fragment names */
  group *groups;
  uint32_t ngroups, cgroups;
  bool nomem;
} collector;

/* The literal boolean value of argument `if` of directive `name`, when the
 * directive is there with a literal. A variable has no value here; graphql-js
 * would fail on it, we include the node. */
static int directive_if(const gql_ast_directives *ds, const char *name) {
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    if (!gql_str_eq_cstr(gql_ast_name_str(d->name), name))
      continue;
    for (uint32_t j = 0; j < d->args.count; j++) {
      const gql_ast_argument *a = d->args.items[j];
      if (gql_str_eq_cstr(gql_ast_name_str(a->name), "if") &&
          a->value->h.kind == GQL_AST_BOOLEAN_VALUE)
        return a->value->u.boolean;
    }
    return -1;
  }
  return -1;
}

static bool should_include(const gql_ast_directives *ds) {
  return directive_if(ds, "skip") != 1 && directive_if(ds, "include") != 0;
}

/* graphql-js doesFragmentConditionMatch. */
static bool condition_matches(collector *c, const gql_ast_type *cond) {
  if (!cond)
    return true;
  const gql_schema *s = c->ctx->schema;
  uint32_t t = gql_schema_type_index(s, gql_ast_name_str(cond->name));
  if (t == GQL_NO_TYPE)
    return false;
  if (t == c->root)
    return true;
  return gql_schema_is_abstract(s, t) && gql_schema_is_sub_type(s, t, c->root);
}

static void add_field(collector *c, const gql_ast_selection *f) {
  gql_arena *arena = c->ctx->arena;
  gql_str key = gql_ast_name_str(f->alias.ptr ? f->alias : f->name);
  uint32_t g;
  if (!gql_namemap_get(&c->keys, key, &g)) {
    if (!GQL_ARRAY_RESERVE(arena, c->groups, c->cgroups, c->ngroups + 1)) {
      c->nomem = true;
      return;
    }
    g = c->ngroups++;
    c->groups[g] = (group){.key = key};
    if (gql_namemap_put(&c->keys, arena, key, g) < 0) {
      c->nomem = true;
      return;
    }
  }
  group *gr = &c->groups[g];
  if (!GQL_ARRAY_RESERVE_FIRST(arena, gr->fields, gr->cap, gr->count + 1, 4)) {
    c->nomem = true;
    return;
  }
  gr->fields[gr->count++] = f;
}

/* A selection set being collected and the next selection in it. */
typedef struct cursor {
  const gql_ast_selection_set *set;
  uint32_t next;
} cursor;

/* Depth-first like graphql-js's recursive collectFieldsImpl, with an
 * explicit stack: a chain of fragments can be as long as the document. */
static void collect(collector *c, const gql_ast_selection_set *root) {
  cursor *stack = NULL;
  uint32_t n = 0, cap = 0;
  const gql_ast_selection_set *push = root;
  while (!c->nomem) {
    if (push) {
      if (!GQL_ARRAY_RESERVE_FIRST(c->ctx->arena, stack, cap, n + 1, 16)) {
        c->nomem = true;
        return;
      }
      stack[n++] = (cursor){push, 0};
      push = NULL;
    }
    if (!n)
      return;
    cursor *top = &stack[n - 1];
    if (top->next == top->set->selections.count) {
      n--;
      continue;
    }
    const gql_ast_selection *sel = top->set->selections.items[top->next++];
    if (!should_include(&sel->directives))
      continue;
    switch (sel->h.kind) {
    case GQL_AST_FIELD:
      add_field(c, sel);
      break;
    case GQL_AST_INLINE_FRAGMENT:
      if (condition_matches(c, sel->type_condition))
        push = sel->selection_set;
      break;
    case GQL_AST_FRAGMENT_SPREAD: {
      gql_str name = gql_ast_name_str(sel->name);
      int rc = gql_namemap_put(&c->visited, c->ctx->arena, name, 0);
      if (rc < 0)
        c->nomem = true;
      if (rc <= 0)
        break;
      const gql_ast_fragment *f = gql_vctx_fragment(c->ctx, name);
      if (f && condition_matches(c, f->type_condition))
        push = f->selection_set;
      break;
    }
    default:
      break;
    }
  }
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return true;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  if (op->operation != GQL_OP_SUBSCRIPTION ||
      ctx->schema->subscription == GQL_NO_TYPE)
    return true;
  collector c = {.ctx = ctx, .root = ctx->schema->subscription};
  collect(&c, op->selection_set);
  if (c.nomem) {
    ctx->errors->nomem = true;
    return true;
  }
  gql_ast_name name = op->name;
  if (c.ngroups > 1) {
    uint32_t n = 0;
    for (uint32_t g = 1; g < c.ngroups; g++)
      n += c.groups[g].count;
    uint32_t *at = gql_arena_alloc(ctx->arena, n * sizeof *at);
    if (!at) {
      ctx->errors->nomem = true;
      return true;
    }
    n = 0;
    for (uint32_t g = 1; g < c.ngroups; g++)
      for (uint32_t k = 0; k < c.groups[g].count; k++)
        at[n++] = c.groups[g].fields[k]->h.start;
    if (name.ptr)
      gql_vctx_report(ctx, at, n,
                      "Subscription \"%.*s\" must select only one top level "
                      "field.",
                      (int)name.len, name.ptr);
    else
      gql_vctx_report(ctx, at, n,
                      "Anonymous Subscription must select only one top level "
                      "field.");
  }
  for (uint32_t g = 0; g < c.ngroups; g++) {
    const group *gr = &c.groups[g];
    gql_ast_name field = gr->fields[0]->name;
    if (field.len < 2 || field.ptr[0] != '_' || field.ptr[1] != '_')
      continue;
    uint32_t *at = gql_arena_alloc(ctx->arena, gr->count * sizeof *at);
    if (!at) {
      ctx->errors->nomem = true;
      return true;
    }
    for (uint32_t k = 0; k < gr->count; k++)
      at[k] = gr->fields[k]->h.start;
    if (name.ptr)
      gql_vctx_report(ctx, at, gr->count,
                      "Subscription \"%.*s\" must not select an introspection "
                      "top level field.",
                      (int)name.len, name.ptr);
    else
      gql_vctx_report(ctx, at, gr->count,
                      "Anonymous Subscription must not select an "
                      "introspection top level field.");
  }
  return true;
}

const gql_vrule gql_rule_SingleFieldSubscriptionsRule = {
    "SingleFieldSubscriptionsRule", 0, NULL, enter, NULL};
