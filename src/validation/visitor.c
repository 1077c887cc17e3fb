/*
 * The walk over a document and graphql-js's TypeInfo.
 *
 * gql_walk visits every node of a subtree in graphql-js QueryDocumentKeys
 * order (Name nodes are not visited), calling TypeInfo's enter before the
 * visitor's enter and TypeInfo's leave after the visitor's leave, as
 * visitWithTypeInfo does. Recursion depth follows the document's nesting,
 * which the parser caps.
 */
#include "internal.h"

/* ---- stacks */

/* Pushes on a TypeInfo stack (GQL_ARRAY_RESERVE, first room 16); counted
 * even when out of memory, so pops stay balanced (TOP then answers
 * unknown). */
#define PUSH(ti, arr, n, cap, v)                                               \
  do {                                                                         \
    if (GQL_ARRAY_RESERVE_FIRST((ti)->arena, (ti)->arr, (ti)->cap,             \
                                (ti)->n + 1, 16))                              \
      (ti)->arr[(ti)->n] = (v);                                                \
    else                                                                       \
      (ti)->nomem = true;                                                      \
    (ti)->n++;                                                                 \
  } while (0)

#define POP(ti, n)                                                             \
  do {                                                                         \
    if ((ti)->n)                                                               \
      (ti)->n--;                                                               \
  } while (0)

/* Top of a stack whose pushes may have failed (then: unknown). */
#define TOP(ti, arr, n, cap, none)                                             \
  ((ti)->n && (ti)->n <= (ti)->cap ? (ti)->arr[(ti)->n - 1] : (none))

static const gql_opt_type no_type = {false, {GQL_NO_TYPE, 0, ""}};
static const gql_opt_default no_default = {false, NULL};

void gql_type_info_init(gql_type_info *ti, const gql_schema *s,
                        gql_arena *arena) {
  *ti = (gql_type_info){.schema = s, .arena = arena};
}

uint32_t gql_ti_type_index(gql_type_info *ti, gql_str name) {
  if (!name.len)
    return gql_schema_type_index(ti->schema, name);
  uint32_t h = (uint32_t)name.len * 31u + (unsigned char)name.ptr[0] * 7u +
               (unsigned char)name.ptr[name.len / 2] * 3u +
               (unsigned char)name.ptr[name.len - 1];
  struct gql_type_memo *m = &ti->type_memo[h % GQL_ARRAY_LEN(ti->type_memo)];
  if (m->ptr && m->len == name.len &&
      (m->ptr == name.ptr || memcmp(m->ptr, name.ptr, name.len) == 0))
    return m->index;
  uint32_t i = gql_schema_type_index(ti->schema, name);
  *m = (struct gql_type_memo){name.ptr, (uint32_t)name.len, i};
  return i;
}

const gql_directive *gql_ti_directive(gql_type_info *ti, gql_str name) {
  if (!name.len)
    return gql_schema_directive(ti->schema, name);
  uint32_t h = (uint32_t)name.len * 31u + (unsigned char)name.ptr[0] * 7u +
               (unsigned char)name.ptr[name.len - 1];
  struct gql_directive_memo *m =
      &ti->directive_memo[h % GQL_ARRAY_LEN(ti->directive_memo)];
  if (m->ptr && m->len == name.len &&
      (m->ptr == name.ptr || memcmp(m->ptr, name.ptr, name.len) == 0))
    return m->def;
  const gql_directive *d = gql_schema_directive(ti->schema, name);
  *m = (struct gql_directive_memo){name.ptr, (uint32_t)name.len, d};
  return d;
}

const gql_directive *gql_vctx_directive_named(gql_vctx *ctx, gql_str name) {
  return gql_ti_directive(&ctx->impl->ti, name);
}

uint32_t gql_vctx_type_index(gql_vctx *ctx, gql_str name) {
  return gql_ti_type_index(&ctx->impl->ti, name);
}

static gql_opt_type some(gql_type_ref r) {
  return (gql_opt_type){true, r};
}

static gql_opt_type cur_type(const gql_type_info *ti) {
  return TOP(ti, types, ntypes, ctypes, no_type);
}
static gql_opt_type cur_input_type(const gql_type_info *ti) {
  return TOP(ti, input_types, ninput_types, cinput_types, no_type);
}
static const gql_field *cur_field_def(const gql_type_info *ti) {
  return TOP(ti, field_defs, nfield_defs, cfield_defs, NULL);
}
static uint32_t cur_parent_type(const gql_type_info *ti) {
  return TOP(ti, parent_types, nparent_types, cparent_types, GQL_NO_TYPE);
}

static bool is_kind(const gql_schema *s, uint32_t t, gql_type_kind k) {
  return t != GQL_NO_TYPE && s->types[t].kind == k;
}

/* graphql-js typeFromAST; unknown when the named type is not in the schema. */
static gql_opt_type type_from_ast(gql_type_info *ti, const gql_ast_type *t) {
  if (!t)
    return no_type;
  if (t->h.kind == GQL_AST_NAMED_TYPE) {
    uint32_t i = gql_ti_type_index(ti, gql_ast_name_str(t->name));
    return i == GQL_NO_TYPE ? no_type : some(gql_type_ref_named(i));
  }
  gql_type_ref r;
  if (!gql_schema_type_ref_from_ast(ti->schema, t, ti->arena, &r)) {
    if (!r.mods)
      ti->nomem = true;
    return no_type;
  }
  return some(r);
}

static gql_opt_type output_or_none(const gql_schema *s, gql_opt_type t) {
  return t.has && gql_schema_is_output(s, t.ref.type) ? t : no_type;
}
static gql_opt_type input_or_none(const gql_schema *s, gql_opt_type t) {
  return t.has && gql_schema_is_input(s, t.ref.type) ? t : no_type;
}

void gql_type_info_enter(gql_type_info *ti, const gql_ast_node *node) {
  const gql_schema *s = ti->schema;
  switch ((gql_ast_kind)node->kind) {
  case GQL_AST_SELECTION_SET: {
    gql_opt_type t = cur_type(ti);
    uint32_t named = t.has && gql_schema_is_composite(s, t.ref.type)
                         ? t.ref.type
                         : GQL_NO_TYPE;
    PUSH(ti, parent_types, nparent_types, cparent_types, named);
    break;
  }
  case GQL_AST_FIELD: {
    const gql_ast_selection *f = (const gql_ast_selection *)node;
    uint32_t parent = cur_parent_type(ti);
    const gql_field *def = NULL;
    gql_opt_type t = no_type;
    if (parent != GQL_NO_TYPE) {
      def = gql_schema_field_def(s, parent, gql_ast_name_str(f->name));
      if (def)
        t = some(def->type);
    }
    PUSH(ti, field_defs, nfield_defs, cfield_defs, def);
    PUSH(ti, types, ntypes, ctypes, output_or_none(s, t));
    break;
  }
  case GQL_AST_DIRECTIVE: {
    const gql_ast_directive *d = (const gql_ast_directive *)node;
    ti->directive = gql_ti_directive(ti, gql_ast_name_str(d->name));
    break;
  }
  case GQL_AST_OPERATION_DEFINITION: {
    const gql_ast_operation *op = (const gql_ast_operation *)node;
    uint32_t root = gql_schema_root_type(s, op->operation);
    gql_opt_type t = is_kind(s, root, GQL_TYPE_OBJECT)
                         ? some(gql_type_ref_named(root))
                         : no_type;
    PUSH(ti, types, ntypes, ctypes, t);
    break;
  }
  case GQL_AST_INLINE_FRAGMENT:
  case GQL_AST_FRAGMENT_DEFINITION: {
    const gql_ast_type *cond =
        node->kind == GQL_AST_INLINE_FRAGMENT
            ? ((const gql_ast_selection *)node)->type_condition
            : ((const gql_ast_fragment *)node)->type_condition;
    gql_opt_type t;
    if (cond) {
      t = type_from_ast(ti, cond);
    } else {
      t = cur_type(ti);
      if (t.has)
        t = some(gql_type_ref_named(t.ref.type));
    }
    PUSH(ti, types, ntypes, ctypes, output_or_none(s, t));
    break;
  }
  case GQL_AST_VARIABLE_DEFINITION: {
    const gql_ast_variable_definition *v =
        (const gql_ast_variable_definition *)node;
    gql_opt_type t = input_or_none(s, type_from_ast(ti, v->type));
    PUSH(ti, input_types, ninput_types, cinput_types, t);
    break;
  }
  case GQL_AST_ARGUMENT: {
    const gql_ast_argument *a = (const gql_ast_argument *)node;
    const gql_input_value *def = NULL;
    gql_str name = gql_ast_name_str(a->name);
    if (ti->directive) {
      def = gql_directive_arg(ti->directive, name);
    } else {
      const gql_field *f = cur_field_def(ti);
      if (f)
        def = gql_field_arg(f, name);
    }
    ti->argument = def;
    gql_opt_default d = def && def->default_value
                            ? (gql_opt_default){true, def->default_value}
                            : no_default;
    PUSH(ti, defaults, ndefaults, cdefaults, d);
    gql_opt_type t = def ? input_or_none(s, some(def->type)) : no_type;
    PUSH(ti, input_types, ninput_types, cinput_types, t);
    break;
  }
  case GQL_AST_LIST_VALUE: {
    gql_opt_type t = cur_input_type(ti);
    if (t.has) {
      t.ref = gql_type_ref_nullable(t.ref);
      if (gql_type_ref_is_list(t.ref))
        t.ref = gql_type_ref_unwrap(t.ref);
    }
    PUSH(ti, defaults, ndefaults, cdefaults, no_default);
    PUSH(ti, input_types, ninput_types, cinput_types, input_or_none(s, t));
    break;
  }
  case GQL_AST_OBJECT_FIELD: {
    const gql_ast_argument *a = (const gql_ast_argument *)node;
    gql_opt_type obj = cur_input_type(ti);
    const gql_input_value *field = NULL;
    if (obj.has && is_kind(s, obj.ref.type, GQL_TYPE_INPUT_OBJECT))
      field = gql_type_input_field(&s->types[obj.ref.type],
                                   gql_ast_name_str(a->name));
    gql_opt_default d = field && field->default_value
                            ? (gql_opt_default){true, field->default_value}
                            : no_default;
    PUSH(ti, defaults, ndefaults, cdefaults, d);
    gql_opt_type t = field ? input_or_none(s, some(field->type)) : no_type;
    PUSH(ti, input_types, ninput_types, cinput_types, t);
    break;
  }
  case GQL_AST_ENUM_VALUE: {
    const gql_ast_value *v = (const gql_ast_value *)node;
    gql_opt_type t = cur_input_type(ti);
    ti->enum_value = t.has && is_kind(s, t.ref.type, GQL_TYPE_ENUM)
                         ? gql_type_enum_value(&s->types[t.ref.type], v->u.raw)
                         : NULL;
    break;
  }
  default:
    break;
  }
}

void gql_type_info_leave(gql_type_info *ti, const gql_ast_node *node) {
  switch ((gql_ast_kind)node->kind) {
  case GQL_AST_SELECTION_SET:
    POP(ti, nparent_types);
    break;
  case GQL_AST_FIELD:
    POP(ti, nfield_defs);
    POP(ti, ntypes);
    break;
  case GQL_AST_DIRECTIVE:
    ti->directive = NULL;
    break;
  case GQL_AST_OPERATION_DEFINITION:
  case GQL_AST_INLINE_FRAGMENT:
  case GQL_AST_FRAGMENT_DEFINITION:
    POP(ti, ntypes);
    break;
  case GQL_AST_VARIABLE_DEFINITION:
    POP(ti, ninput_types);
    break;
  case GQL_AST_ARGUMENT:
    ti->argument = NULL;
    POP(ti, ndefaults);
    POP(ti, ninput_types);
    break;
  case GQL_AST_LIST_VALUE:
  case GQL_AST_OBJECT_FIELD:
    POP(ti, ndefaults);
    POP(ti, ninput_types);
    break;
  case GQL_AST_ENUM_VALUE:
    ti->enum_value = NULL;
    break;
  default:
    break;
  }
}

/* ---- TypeInfo getters for rules */

bool gql_vctx_type(const gql_vctx *ctx, gql_type_ref *out) {
  gql_opt_type t = cur_type(&ctx->impl->ti);
  if (t.has)
    *out = t.ref;
  return t.has;
}

uint32_t gql_vctx_parent_type(const gql_vctx *ctx) {
  return cur_parent_type(&ctx->impl->ti);
}

bool gql_vctx_input_type(const gql_vctx *ctx, gql_type_ref *out) {
  gql_opt_type t = cur_input_type(&ctx->impl->ti);
  if (t.has)
    *out = t.ref;
  return t.has;
}

static gql_opt_type parent_input_type(const gql_type_info *ti) {
  if (ti->ninput_types < 2 || ti->ninput_types > ti->cinput_types)
    return no_type;
  return ti->input_types[ti->ninput_types - 2];
}

bool gql_vctx_parent_input_type(const gql_vctx *ctx, gql_type_ref *out) {
  gql_opt_type t = parent_input_type(&ctx->impl->ti);
  if (t.has)
    *out = t.ref;
  return t.has;
}

const gql_field *gql_vctx_field_def(const gql_vctx *ctx) {
  return cur_field_def(&ctx->impl->ti);
}

const gql_directive *gql_vctx_directive(const gql_vctx *ctx) {
  return ctx->impl->ti.directive;
}

const gql_input_value *gql_vctx_argument(const gql_vctx *ctx) {
  return ctx->impl->ti.argument;
}

const gql_ast_value *gql_vctx_default_value(const gql_vctx *ctx, bool *has) {
  const gql_type_info *ti = &ctx->impl->ti;
  gql_opt_default d = TOP(ti, defaults, ndefaults, cdefaults, no_default);
  *has = d.has;
  return d.value;
}

const gql_enum_value *gql_vctx_enum_value(const gql_vctx *ctx) {
  return ctx->impl->ti.enum_value;
}

/* ---- the walk */

static void walk_type(gql_walker *w, const gql_ast_type *t) {
  gql_walk(w, (const gql_ast_node *)t);
}

static void walk_directives(gql_walker *w, const gql_ast_directives *ds) {
  for (uint32_t i = 0; i < ds->count && !w->stop; i++)
    gql_walk(w, &ds->items[i]->h);
}

static void walk_args(gql_walker *w, const gql_ast_arguments *as) {
  for (uint32_t i = 0; i < as->count && !w->stop; i++)
    gql_walk(w, &as->items[i]->h);
}

static void walk_value(gql_walker *w, const gql_ast_value *v) {
  gql_walk(w, (const gql_ast_node *)v);
}

static void walk_input_values(gql_walker *w,
                              const gql_ast_input_value_defs *ivs) {
  for (uint32_t i = 0; i < ivs->count && !w->stop; i++)
    gql_walk(w, &ivs->items[i]->h);
}

static void walk_children(gql_walker *w, const gql_ast_node *node) {
  switch ((gql_ast_kind)node->kind) {
  case GQL_AST_DOCUMENT: {
    const gql_document *d = (const gql_document *)node;
    for (uint32_t i = 0; i < d->definitions.count && !w->stop; i++)
      gql_walk(w, d->definitions.items[i]);
    break;
  }
  case GQL_AST_OPERATION_DEFINITION: {
    const gql_ast_operation *op = (const gql_ast_operation *)node;
    walk_value(w, op->description);
    for (uint32_t i = 0; i < op->variables.count && !w->stop; i++)
      gql_walk(w, &op->variables.items[i]->h);
    walk_directives(w, &op->directives);
    gql_walk(w, (const gql_ast_node *)op->selection_set);
    break;
  }
  case GQL_AST_VARIABLE_DEFINITION: {
    const gql_ast_variable_definition *v =
        (const gql_ast_variable_definition *)node;
    walk_value(w, v->description);
    walk_value(w, v->variable);
    walk_type(w, v->type);
    walk_value(w, v->default_value);
    walk_directives(w, &v->directives);
    break;
  }
  case GQL_AST_SELECTION_SET: {
    const gql_ast_selection_set *s = (const gql_ast_selection_set *)node;
    for (uint32_t i = 0; i < s->selections.count && !w->stop; i++)
      gql_walk(w, &s->selections.items[i]->h);
    break;
  }
  case GQL_AST_FIELD:
  case GQL_AST_FRAGMENT_SPREAD:
  case GQL_AST_INLINE_FRAGMENT: {
    const gql_ast_selection *s = (const gql_ast_selection *)node;
    if (node->kind == GQL_AST_FIELD)
      walk_args(w, &s->args);
    if (node->kind == GQL_AST_INLINE_FRAGMENT)
      walk_type(w, s->type_condition);
    walk_directives(w, &s->directives);
    gql_walk(w, (const gql_ast_node *)s->selection_set);
    break;
  }
  case GQL_AST_ARGUMENT:
  case GQL_AST_OBJECT_FIELD:
    walk_value(w, ((const gql_ast_argument *)node)->value);
    break;
  case GQL_AST_FRAGMENT_DEFINITION: {
    const gql_ast_fragment *f = (const gql_ast_fragment *)node;
    walk_value(w, f->description);
    walk_type(w, f->type_condition);
    walk_directives(w, &f->directives);
    gql_walk(w, (const gql_ast_node *)f->selection_set);
    break;
  }
  case GQL_AST_LIST_VALUE: {
    const gql_ast_value *v = (const gql_ast_value *)node;
    for (uint32_t i = 0; i < v->u.list.count && !w->stop; i++)
      gql_walk(w, &v->u.list.items[i]->h);
    break;
  }
  case GQL_AST_OBJECT_VALUE:
    walk_args(w, &((const gql_ast_value *)node)->u.fields);
    break;
  case GQL_AST_DIRECTIVE:
    walk_args(w, &((const gql_ast_directive *)node)->args);
    break;
  case GQL_AST_LIST_TYPE:
  case GQL_AST_NON_NULL_TYPE:
    walk_type(w, ((const gql_ast_type *)node)->of);
    break;
  case GQL_AST_SCHEMA_DEFINITION:
  case GQL_AST_SCHEMA_EXTENSION: {
    const gql_ast_schema_def *s = (const gql_ast_schema_def *)node;
    walk_value(w, s->description);
    walk_directives(w, &s->directives);
    for (uint32_t i = 0; i < s->operation_types.count && !w->stop; i++)
      gql_walk(w, &s->operation_types.items[i]->h);
    break;
  }
  case GQL_AST_OPERATION_TYPE_DEFINITION:
    walk_type(w, ((const gql_ast_operation_type_def *)node)->type);
    break;
  case GQL_AST_FIELD_DEFINITION: {
    const gql_ast_field_def *f = (const gql_ast_field_def *)node;
    walk_value(w, f->description);
    walk_input_values(w, &f->args);
    walk_type(w, f->type);
    walk_directives(w, &f->directives);
    break;
  }
  case GQL_AST_INPUT_VALUE_DEFINITION: {
    const gql_ast_input_value_def *iv = (const gql_ast_input_value_def *)node;
    walk_value(w, iv->description);
    walk_type(w, iv->type);
    walk_value(w, iv->default_value);
    walk_directives(w, &iv->directives);
    break;
  }
  case GQL_AST_ENUM_VALUE_DEFINITION: {
    const gql_ast_enum_value_def *ev = (const gql_ast_enum_value_def *)node;
    walk_value(w, ev->description);
    walk_directives(w, &ev->directives);
    break;
  }
  case GQL_AST_DIRECTIVE_DEFINITION: {
    const gql_ast_directive_def *d = (const gql_ast_directive_def *)node;
    walk_value(w, d->description);
    walk_input_values(w, &d->args);
    break;
  }
  case GQL_AST_SCALAR_TYPE_DEFINITION:
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
  case GQL_AST_UNION_TYPE_DEFINITION:
  case GQL_AST_ENUM_TYPE_DEFINITION:
  case GQL_AST_INPUT_OBJECT_TYPE_DEFINITION:
  case GQL_AST_SCALAR_TYPE_EXTENSION:
  case GQL_AST_OBJECT_TYPE_EXTENSION:
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
  case GQL_AST_UNION_TYPE_EXTENSION:
  case GQL_AST_ENUM_TYPE_EXTENSION:
  case GQL_AST_INPUT_OBJECT_TYPE_EXTENSION: {
    const gql_ast_type_def *t = (const gql_ast_type_def *)node;
    walk_value(w, t->description);
    for (uint32_t i = 0; i < t->interfaces.count && !w->stop; i++)
      walk_type(w, t->interfaces.items[i]);
    walk_directives(w, &t->directives);
    for (uint32_t i = 0; i < t->fields.count && !w->stop; i++)
      gql_walk(w, &t->fields.items[i]->h);
    for (uint32_t i = 0; i < t->members.count && !w->stop; i++)
      walk_type(w, t->members.items[i]);
    for (uint32_t i = 0; i < t->values.count && !w->stop; i++)
      gql_walk(w, &t->values.items[i]->h);
    walk_input_values(w, &t->input_fields);
    break;
  }
  default: /* leaves: variables, scalars, named types, coordinates */
    break;
  }
}

void gql_walk(gql_walker *w, const gql_ast_node *node) {
  if (!node || w->stop || (w->visit && !w->visit(w, node)))
    return;
  gql_type_info_enter(w->ti, node);
  if (w->enter(w, node) && !w->stop)
    walk_children(w, node);
  if (!w->stop)
    w->leave(w, node);
  gql_type_info_leave(w->ti, node);
}
