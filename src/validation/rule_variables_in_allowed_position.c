/* VariablesInAllowedPositionRule (graphql-js 16.11): every variable usage
 * of an operation (its fragments included) is of a type allowed where it is
 * used, with the default-value allowance for non-null positions, and a
 * variable used as a field of a @oneOf input object is non-null. Checked
 * when leaving the operation. */
#include "values.h"

/* graphql-js allowedVariableUsage. */
static bool allowed(const gql_schema *s, gql_type_ref var_type,
                    const gql_ast_value *var_default, gql_type_ref loc_type,
                    bool loc_has_default) {
  if (gql_type_ref_is_non_null(loc_type) &&
      !gql_type_ref_is_non_null(var_type)) {
    bool var_default_non_null =
        var_default && var_default->h.kind != GQL_AST_NULL_VALUE;
    if (!var_default_non_null && !loc_has_default)
      return false;
    return gql_schema_is_type_sub_type_of(s, var_type,
                                          gql_type_ref_unwrap(loc_type));
  }
  return gql_schema_is_type_sub_type_of(s, var_type, loc_type);
}

/* ---- the @oneOf input object a variable usage sits in. The usage only
 * says that there is one, so the rare error path walks the definitions the
 * usage may come from again, with the types graphql-js's TypeInfo would
 * have: the parent input type of a variable that is an object field's value
 * is the type of the object literal's position. */

typedef struct finder {
  const gql_schema *s;
  const gql_ast_value *target;
  bool found;
  uint32_t parent; /* the oneOf type, or GQL_NO_TYPE */
} finder;

static void find_value(finder *f, bool has, gql_type_ref t,
                       const gql_ast_value *v) {
  if (f->found)
    return;
  if (v->h.kind == GQL_AST_LIST_VALUE) {
    gql_type_ref item = has ? gql_type_ref_nullable(t) : t;
    if (has && gql_type_ref_is_list(item))
      item = gql_type_ref_unwrap(item);
    bool ihas = has && gql_schema_is_input(f->s, item.type);
    for (uint32_t i = 0; i < v->u.list.count && !f->found; i++)
      find_value(f, ihas, item, v->u.list.items[i]);
    return;
  }
  if (v->h.kind != GQL_AST_OBJECT_VALUE)
    return;
  const gql_type *ot = has ? gql_schema_type_at(f->s, t.type) : NULL;
  if (ot && ot->kind != GQL_TYPE_INPUT_OBJECT)
    ot = NULL;
  for (uint32_t i = 0; i < v->u.fields.count && !f->found; i++) {
    const gql_ast_argument *fld = v->u.fields.items[i];
    const gql_input_value *def =
        ot ? gql_type_input_field(ot, gql_ast_name_str(fld->name)) : NULL;
    if (fld->value == f->target) {
      f->found = true;
      if (ot && ot->one_of && t.nmods == 0)
        f->parent = t.type;
      return;
    }
    find_value(f, def != NULL, def ? def->type : t, fld->value);
  }
}

static void find_args(finder *f, const gql_ast_arguments *args,
                      const gql_input_value *defs, uint32_t ndefs) {
  for (uint32_t i = 0; i < args->count && !f->found; i++) {
    const gql_input_value *def = NULL;
    for (uint32_t j = 0; j < ndefs && !def; j++)
      if (gql_str_eq(defs[j].name, gql_ast_name_str(args->items[i]->name)))
        def = &defs[j];
    find_value(f, def != NULL, def ? def->type : gql_type_ref_named(0),
               args->items[i]->value);
  }
}

static void find_directives(finder *f, const gql_ast_directives *ds) {
  for (uint32_t i = 0; i < ds->count && !f->found; i++) {
    const gql_directive *d =
        gql_schema_directive(f->s, gql_ast_name_str(ds->items[i]->name));
    find_args(f, &ds->items[i]->args, d ? d->args : NULL, d ? d->nargs : 0);
  }
}

static uint32_t type_of(const gql_schema *s, const gql_ast_type *t) {
  return t ? gql_schema_type_index(s, gql_ast_name_str(t->name)) : GQL_NO_TYPE;
}

static void find_set(finder *f, uint32_t parent,
                     const gql_ast_selection_set *set) {
  for (uint32_t i = 0; set && i < set->selections.count && !f->found; i++) {
    const gql_ast_selection *sel = set->selections.items[i];
    find_directives(f, &sel->directives);
    if (sel->h.kind == GQL_AST_FIELD) {
      const gql_field *fd =
          parent == GQL_NO_TYPE
              ? NULL
              : gql_schema_field_def(f->s, parent, gql_ast_name_str(sel->name));
      find_args(f, &sel->args, fd ? fd->args : NULL, fd ? fd->nargs : 0);
      uint32_t sub = fd && gql_schema_is_composite(f->s, fd->type.type)
                         ? fd->type.type
                         : GQL_NO_TYPE;
      find_set(f, sub, sel->selection_set);
    } else if (sel->h.kind == GQL_AST_INLINE_FRAGMENT) {
      uint32_t t =
          sel->type_condition ? type_of(f->s, sel->type_condition) : parent;
      if (t != GQL_NO_TYPE && !gql_schema_is_composite(f->s, t))
        t = GQL_NO_TYPE;
      find_set(f, t, sel->selection_set);
    }
  }
}

static const char *one_of_parent(gql_vctx *ctx, const gql_ast_operation *op,
                                 const gql_ast_value *var) {
  finder f = {ctx->schema, var, false, GQL_NO_TYPE};
  find_directives(&f, &op->directives);
  find_set(&f, gql_schema_root_type(ctx->schema, op->operation),
           op->selection_set);
  gql_fragment_list frags =
      gql_vctx_recursive_fragments(ctx, (const gql_ast_node *)op);
  for (uint32_t i = 0; i < frags.count && !f.found; i++) {
    uint32_t t = type_of(ctx->schema, frags.items[i]->type_condition);
    if (t != GQL_NO_TYPE && !gql_schema_is_composite(ctx->schema, t))
      t = GQL_NO_TYPE;
    find_directives(&f, &frags.items[i]->directives);
    find_set(&f, t, frags.items[i]->selection_set);
  }
  return f.parent == GQL_NO_TYPE
             ? NULL
             : gql_schema_type_at(ctx->schema, f.parent)->name.ptr;
}

/* ---- the definitions of an operation's variables, by name (the last
 * definition of a name wins, as graphql-js's map assignment). Few
 * variables are scanned; many are interned. Types are made on first use. */

#define FEW_VARIABLES 16

typedef struct defs {
  const gql_ast_operation *op;
  gql_vintern names; /* many: name → id (ids < ndefined are defined) */
  uint32_t ndefined;
  const gql_ast_variable_definition **by_id;
  gql_type_ref *types; /* per id (many) or definition index (few) */
  uint8_t *state;      /* 0 not made, 1 unknown type, 2 made */
  gql_type_ref few_types[FEW_VARIABLES];
  uint8_t few_state[FEW_VARIABLES];
} defs;

static bool defs_init(gql_vctx *ctx, defs *d, const gql_ast_operation *op) {
  uint32_t n = op->variables.count;
  d->op = op;
  if (n <= FEW_VARIABLES) {
    d->types = d->few_types;
    d->state = d->few_state;
    memset(d->few_state, 0, sizeof d->few_state);
    return true;
  }
  gql_vintern_init(&d->names, ctx->arena);
  d->by_id = gql_arena_alloc(ctx->arena, n * sizeof *d->by_id);
  d->types = gql_arena_alloc(ctx->arena, n * sizeof *d->types);
  d->state = gql_arena_alloc(ctx->arena, n);
  if (!d->by_id || !d->types || !d->state) {
    gql_vnomem(ctx);
    return false;
  }
  memset(d->state, 0, n);
  for (uint32_t i = 0; i < n; i++) {
    const gql_ast_variable_definition *vd = op->variables.items[i];
    uint32_t id =
        gql_vintern_id(&d->names, gql_ast_name_str(vd->variable->u.name));
    if (id == UINT32_MAX)
      return false;
    d->by_id[id] = vd;
  }
  d->ndefined = d->names.count;
  return true;
}

/* The definition of variable `name` and its type; false when it is not
 * defined or its type is unknown. */
static bool defs_find(gql_vctx *ctx, defs *d, gql_str name,
                      const gql_ast_variable_definition **vd,
                      gql_type_ref *type) {
  uint32_t k;
  uint32_t n = d->op->variables.count;
  if (n <= FEW_VARIABLES) {
    for (k = n; k-- > 0;)
      if (gql_str_eq(
              gql_ast_name_str(d->op->variables.items[k]->variable->u.name),
              name))
        break;
    if (k == UINT32_MAX)
      return false;
    *vd = d->op->variables.items[k];
  } else {
    k = gql_vintern_id(&d->names, name);
    if (k >= d->ndefined)
      return false;
    *vd = d->by_id[k];
  }
  if (!d->state[k])
    d->state[k] = gql_schema_type_ref_from_ast(ctx->schema, (*vd)->type,
                                               ctx->arena, &d->types[k])
                      ? 2
                      : 1;
  *type = d->types[k];
  return d->state[k] == 2;
}

static void leave(gql_vctx *ctx, void *state, const gql_ast_node *node) {
  (void)state;
  if (node->kind != GQL_AST_OPERATION_DEFINITION)
    return;
  const gql_ast_operation *op = (const gql_ast_operation *)node;
  uint32_t nvars = op->variables.count;
  gql_variable_usages usages = gql_vctx_recursive_variable_usages(ctx, op);
  if (!usages.count || !nvars)
    return;
  defs d;
  if (!defs_init(ctx, &d, op))
    return;
  for (uint32_t i = 0; i < usages.count; i++) {
    const gql_variable_usage *u = &usages.items[i];
    gql_str name = gql_ast_name_str(u->node->u.name);
    const gql_ast_variable_definition *vd;
    gql_type_ref vt;
    if (!u->has_type || !defs_find(ctx, &d, name, &vd, &vt))
      continue; /* undefined variable, unknown position or unknown type */
    uint32_t offs[2] = {vd->h.start, u->node->h.start};
    if (!allowed(ctx->schema, vt, vd->default_value, u->type, u->has_default))
      gql_vctx_report(ctx, offs, 2,
                      "Variable \"$%.*s\" of type \"%s\" used in position "
                      "expecting type \"%s\".",
                      (int)name.len, name.ptr,
                      gql_vtype_str(ctx->schema, vt, ctx->arena),
                      gql_vtype_str(ctx->schema, u->type, ctx->arena));
    const char *parent;
    if (u->parent_is_one_of && !gql_type_ref_is_non_null(vt) &&
        (parent = one_of_parent(ctx, op, u->node)))
      gql_vctx_report(
          ctx, offs, 2,
          "Variable \"$%.*s\" is of type \"%s\" but must be non-nullable to "
          "be used for OneOf Input Object \"%s\".",
          (int)name.len, name.ptr, gql_vtype_str(ctx->schema, vt, ctx->arena),
          parent);
  }
}

const gql_vrule gql_rule_VariablesInAllowedPositionRule = {
    "VariablesInAllowedPositionRule", 0, NULL, NULL, leave};
