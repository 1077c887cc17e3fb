/* @skip and @include whose `if` has no boolean value. The plan keeps their
 * conditions on variables (plan_cond) and reads a variable without a value
 * as false; graphql-js's collectFields instead throws from
 * getArgumentValues when it meets one: "Argument "if" of non-null type
 * "Boolean!" must not be null." for an explicit null (a variable with a
 * default may be given null), the runtime-value error for a variable
 * without one (unvalidated). The collection of that selection set stops
 * there: at the root, the response is that error and no data; below, the
 * field (or list item) whose object it is becomes null with the error at
 * its path. So when an execution has such a variable (exec_ctx.conds_bad),
 * each set that uses one (plan_set.check_conds) is walked here first, in
 * collectFields's order: a selection's @skip before its @include, a
 * fragment's conditions before its type condition, a spread already met not
 * looked at again. */
#include "executor.h"

/* Whether fragment type condition `cond` (NULL: none) applies to object
 * type `type` (graphql-js doesFragmentConditionMatch). */
static bool type_matches(const gql_schema *s, const gql_ast_type *cond,
                         uint32_t type) {
  if (!cond)
    return true;
  uint32_t t = gql_schema_type_index(s, gql_ast_name_str(cond->name));
  if (t == GQL_NO_TYPE)
    return false;
  return t == type ||
         (gql_schema_is_abstract(s, t) && gql_schema_is_sub_type(s, t, type));
}

/* The `if` of directive `name` on a selection: 1 true, 0 false, 2 no such
 * directive or (unvalidated) a variable holding another kind of value,
 * which graphql-js takes as it is (neither `=== true` nor `=== false`),
 * -1 when it has no value (the error is added, at `path`). */
static int condition(exec_ctx *ctx, const gql_ast_directives *dirs,
                     const char *name, const path_frame *path) {
  const gql_ast_directive *d = gql_ast_find_directive(dirs, name);
  if (!d)
    return 2;
  const gql_ast_argument *a = gql_ast_find_argument(&d->args, "if");
  const gql_ast_value *v = a ? a->value : NULL;
  const gql_json_value *value = NULL;
  const char *msg = NULL;
  if (!v) {
    msg = "Argument \"if\" of required type \"Boolean!\" was not provided.";
    gql_exec_add_error(ctx, msg, NULL, d->h.start, path);
    return -1;
  }
  if (v->h.kind == GQL_AST_BOOLEAN_VALUE)
    return v->u.boolean;
  if (v->h.kind == GQL_AST_VARIABLE) {
    const gql_prepared *p = ctx->p;
    uint32_t i = 0;
    gql_str vname = gql_ast_name_str(v->u.name);
    while (i < p->nvars && !gql_str_eq(p->vars[i].name, vname))
      i++;
    value = i < p->nvars ? ctx->vars[i] : NULL;
    if (value && value->kind == GQL_JSON_BOOL)
      return value->boolean;
    if (value && value->kind != GQL_JSON_NULL)
      return 2;
    if (!value) {
      msg = gql_arena_sprintf(
          ctx->arena,
          "Argument \"if\" of required type \"Boolean!\" was provided the "
          "variable \"$%.*s\" which was not provided a runtime value.",
          (int)vname.len, vname.ptr);
    }
  }
  if (!msg && (v->h.kind == GQL_AST_NULL_VALUE ||
               (value && value->kind == GQL_JSON_NULL))) {
    msg = "Argument \"if\" of non-null type \"Boolean!\" must not be null.";
  } else if (!msg) { /* a literal or a variable of another type */
    gql_buf b;
    gql_buf_init(&b, NULL);
    gql_print_value(&b, v);
    const char *printed = gql_buf_cstr(&b);
    msg = gql_arena_sprintf(ctx->arena, "Argument \"if\" has invalid value %s.",
                            printed ? printed : "");
    gql_buf_free(&b);
  }
  gql_exec_add_error(ctx, msg ? msg : "Out of memory.", NULL, v->h.start, path);
  return -1;
}

/* graphql-js shouldIncludeNode: 1 included, 0 not, -1 an error (added). */
static int included(exec_ctx *ctx, const gql_ast_directives *dirs,
                    const path_frame *path) {
  int skip = condition(ctx, dirs, "skip", path);
  if (skip < 0 || skip == 1)
    return skip < 0 ? -1 : 0;
  int include = condition(ctx, dirs, "include", path);
  return include < 0 ? -1 : include != 0;
}

/* The fragment definition named `name` (the last of that name, as
 * graphql-js's map keeps it), or NULL. */
static const gql_ast_fragment *fragment(const gql_document *doc, gql_str name) {
  const gql_ast_fragment *f = NULL;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (n->kind == GQL_AST_FRAGMENT_DEFINITION &&
        gql_str_eq(gql_ast_name_str(((const gql_ast_fragment *)n)->name), name))
      f = (const gql_ast_fragment *)n;
  }
  return f;
}

typedef struct walk {
  exec_ctx *ctx;
  uint32_t type;
  const path_frame *path;
  const gql_ast_fragment **seen; /* spreads met (visitedFragmentNames) */
  uint32_t nseen, cap;
} walk;

/* graphql-js collectFields over one selection set: true at the first
 * condition without a value (its error added). */
static bool collect(walk *w, const gql_ast_selection_set *ss, uint32_t depth) {
  const gql_schema *s = w->ctx->s;
  for (uint32_t i = 0; ss && i < ss->selections.count; i++) {
    const gql_ast_selection *sel = ss->selections.items[i];
    const gql_ast_fragment *f = NULL;
    if (sel->h.kind == GQL_AST_FRAGMENT_SPREAD) {
      /* a spread met before is not looked at again, conditions included */
      f = fragment(w->ctx->p->doc, gql_ast_name_str(sel->name));
      bool seen = false;
      for (uint32_t j = 0; j < w->nseen; j++)
        seen |= gql_str_eq(gql_ast_name_str(w->seen[j]->name),
                           gql_ast_name_str(sel->name));
      if (seen)
        continue;
    }
    int inc = included(w->ctx, &sel->directives, w->path);
    if (inc < 0)
      return true;
    if (!inc || sel->h.kind == GQL_AST_FIELD)
      continue;
    if (sel->h.kind == GQL_AST_INLINE_FRAGMENT) {
      if (type_matches(s, sel->type_condition, w->type) &&
          collect(w, sel->selection_set, depth + 1))
        return true;
      continue;
    }
    if (!f || depth >= 256) /* unvalidated: unknown, or spreads in a cycle */
      continue;
    if (!GQL_ARRAY_RESERVE(w->ctx->arena, w->seen, w->cap, w->nseen + 1))
      return false;
    w->seen[w->nseen++] = f;
    if (type_matches(s, f->type_condition, w->type) &&
        collect(w, f->selection_set, depth + 1))
      return true;
  }
  return false;
}

bool gql_exec_conditions_fail(exec_ctx *ctx, uint32_t type,
                              const path_frame *path) {
  walk w = {.ctx = ctx, .type = type, .path = path};
  if (!path) /* the operation's selection set */
    return collect(&w, ctx->p->op->selection_set, 0);
  /* collectSubfields: the selection sets of the field's occurrences that
   * were collected (the frames of list items lead up to the field's) */
  const path_frame *f = path;
  while (f && !f->key)
    f = f->parent;
  assert(f); /* an object below the root is a field's value or item */
  const plan_field *pf = gql_container_of(f->key, plan_field, key);
  for (uint32_t i = 0; i < pf->nocc; i++)
    if (occ_included(ctx, &pf->occs[i]) &&
        collect(&w, pf->occs[i].node->selection_set, 0))
      return true;
  return false;
}
