/*
 * graphql-js 16 validateSchema: the type-system checks, with its messages,
 * the nodes it reports and its order (root types, directives, then each type
 * in type-map order).
 */
#include "internal.h"

typedef struct vctx {
  const gql_schema *s;
  gql_error_list *errors;
  gql_arena *scratch;
  int rc;
} vctx;

#define MAX_NODES 32

/* A pointer into the source text inside the node, to find its source. */
static const char *node_ptr(const gql_ast_node *n) {
  switch (n->kind) {
  case GQL_AST_NAMED_TYPE:
    return ((const gql_ast_type *)n)->name.ptr;
  case GQL_AST_LIST_TYPE:
  case GQL_AST_NON_NULL_TYPE:
    return node_ptr(&((const gql_ast_type *)n)->of->h);
  case GQL_AST_FIELD_DEFINITION:
    return ((const gql_ast_field_def *)n)->name.ptr;
  case GQL_AST_INPUT_VALUE_DEFINITION:
    return ((const gql_ast_input_value_def *)n)->name.ptr;
  case GQL_AST_ENUM_VALUE_DEFINITION:
    return ((const gql_ast_enum_value_def *)n)->name.ptr;
  case GQL_AST_DIRECTIVE:
    return ((const gql_ast_directive *)n)->name.ptr;
  case GQL_AST_DIRECTIVE_DEFINITION:
    return ((const gql_ast_directive_def *)n)->name.ptr;
  case GQL_AST_SCHEMA_DEFINITION:
  case GQL_AST_SCHEMA_EXTENSION: {
    const gql_ast_schema_def *d = (const gql_ast_schema_def *)n;
    if (d->operation_types.count)
      return node_ptr(&d->operation_types.items[0]->type->h);
    if (d->directives.count)
      return d->directives.items[0]->name.ptr;
    return NULL;
  }
  default:
    if (gql_ast_is_type_definition(n->kind) ||
        gql_ast_is_type_extension(n->kind))
      return ((const gql_ast_type_def *)n)->name.ptr;
    return NULL;
  }
}

/* Reports `msg` at the nodes (NULLs skipped). */
static void report(vctx *c, const char *msg, const gql_ast_node *const *nodes,
                   uint32_t n) {
  if (!msg) {
    c->rc = GQL_ENOMEM;
    return;
  }
  gql_location locs[MAX_NODES];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n && k < MAX_NODES; i++) {
    if (!nodes[i])
      continue;
    const char *p = node_ptr(nodes[i]);
    gql_str src = p ? gql_schema_source_of(c->s, p) : (gql_str){0};
    if (!src.ptr)
      continue;
    locs[k++] = gql_location_of(src.ptr, src.len, nodes[i]->start);
  }
  if (gql_error_list_push(c->errors, msg, locs, k) == GQL_ENOMEM)
    c->rc = GQL_ENOMEM;
}

#define MSG(c, ...) gql_arena_sprintf((c)->errors->arena, __VA_ARGS__)
#define S(x) (int)(x).len, (x).ptr

static const gql_ast_node *node1(const void *p) {
  return (const gql_ast_node *)p;
}

static const char *ref_str(vctx *c, gql_type_ref r) {
  const char *s = gql_type_ref_str(c->s, r, c->scratch);
  if (!s) {
    c->rc = GQL_ENOMEM;
    return "";
  }
  return s;
}

/* The definition node and the extension nodes of a type. */
static uint32_t type_nodes(const gql_type *t, const gql_ast_node **out) {
  uint32_t n = 0;
  if (t->ast)
    out[n++] = &t->ast->h;
  for (uint32_t i = 0; i < t->nextensions && n < MAX_NODES; i++)
    out[n++] = &t->extensions[i]->h;
  return n;
}

static void validate_name(vctx *c, gql_str name, const gql_ast_node *node) {
  if (name.len >= 2 && name.ptr[0] == '_' && name.ptr[1] == '_') {
    const gql_ast_node *nodes[1] = {node};
    report(c,
           MSG(c,
               "Name \"%.*s\" must not begin with \"__\", which is reserved "
               "by GraphQL introspection.",
               S(name)),
           nodes, 1);
  }
}

static const gql_ast_node *deprecated_node(const gql_ast_input_value_def *d) {
  if (!d)
    return NULL;
  const gql_ast_directive *dir =
      gql_ast_find_directive(&d->directives, "deprecated");
  return dir ? &dir->h : NULL;
}

static bool is_required(const gql_input_value *v) {
  return gql_type_ref_is_non_null(v->type) && !v->default_value;
}

/* ---- roots */

static const gql_ast_node *op_type_node(const gql_schema *s,
                                        gql_operation_type op) {
  for (uint32_t i = 0; i <= s->nextensions; i++) {
    const gql_ast_schema_def *node = i == 0 ? s->ast : s->extensions[i - 1];
    for (uint32_t j = 0; node && j < node->operation_types.count; j++)
      if (node->operation_types.items[j]->operation == op)
        return &node->operation_types.items[j]->type->h;
  }
  return NULL;
}

static void validate_roots(vctx *c) {
  const gql_schema *s = c->s;
  static const char *const names[] = {"Query", "Mutation", "Subscription"};
  uint32_t roots[] = {s->query, s->mutation, s->subscription};
  for (int i = 0; i < 3; i++) {
    uint32_t r = roots[i];
    if (r == GQL_NO_TYPE) {
      if (i == 0) {
        const gql_ast_node *nodes[1] = {node1(s->ast)};
        report(c, MSG(c, "Query root type must be provided."), nodes, 1);
      }
      continue;
    }
    const gql_type *t = &s->types[r];
    if (t->kind == GQL_TYPE_OBJECT)
      continue;
    const gql_ast_node *node = op_type_node(s, (gql_operation_type)i);
    const gql_ast_node *nodes[1] = {node ? node : node1(t->ast)};
    report(c,
           MSG(c, "%s root type must be Object type%s, it cannot be %.*s.",
               names[i], i ? " if provided" : "", S(t->name)),
           nodes, 1);
  }
}

/* ---- directives */

static void validate_directives(vctx *c) {
  const gql_schema *s = c->s;
  for (uint32_t i = 0; i < s->ndirectives && !c->rc; i++) {
    const gql_directive *d = &s->directives[i];
    validate_name(c, d->name, node1(d->ast));
    for (uint32_t j = 0; j < d->nargs; j++) {
      const gql_input_value *a = &d->args[j];
      validate_name(c, a->name, node1(a->ast));
      if (!gql_schema_is_input(s, a->type.type)) {
        const gql_ast_node *nodes[1] = {node1(a->ast)};
        report(c,
               MSG(c,
                   "The type of @%.*s(%.*s:) must be Input Type but got: %s.",
                   S(d->name), S(a->name), ref_str(c, a->type)),
               nodes, 1);
      }
      if (is_required(a) && a->deprecation_reason.ptr) {
        const gql_ast_node *nodes[2] = {deprecated_node(a->ast),
                                        a->ast ? &a->ast->type->h : NULL};
        report(c,
               MSG(c, "Required argument @%.*s(%.*s:) cannot be deprecated.",
                   S(d->name), S(a->name)),
               nodes, 2);
      }
    }
  }
}

/* ---- objects and interfaces */

static void validate_fields(vctx *c, const gql_type *t) {
  const gql_schema *s = c->s;
  if (!t->nfields) {
    const gql_ast_node *nodes[MAX_NODES];
    uint32_t n = type_nodes(t, nodes);
    report(c, MSG(c, "Type %.*s must define one or more fields.", S(t->name)),
           nodes, n);
  }
  for (uint32_t i = 0; i < t->nfields && !c->rc; i++) {
    const gql_field *f = &t->fields[i];
    validate_name(c, f->name, node1(f->ast));
    if (!gql_schema_is_output(s, f->type.type)) {
      const gql_ast_node *nodes[1] = {f->ast ? &f->ast->type->h : NULL};
      report(c,
             MSG(c, "The type of %.*s.%.*s must be Output Type but got: %s.",
                 S(t->name), S(f->name), ref_str(c, f->type)),
             nodes, 1);
    }
    for (uint32_t j = 0; j < f->nargs; j++) {
      const gql_input_value *a = &f->args[j];
      validate_name(c, a->name, node1(a->ast));
      if (!gql_schema_is_input(s, a->type.type)) {
        const gql_ast_node *nodes[1] = {a->ast ? &a->ast->type->h : NULL};
        report(c,
               MSG(c,
                   "The type of %.*s.%.*s(%.*s:) must be Input Type but got: "
                   "%s.",
                   S(t->name), S(f->name), S(a->name), ref_str(c, a->type)),
               nodes, 1);
      }
      if (is_required(a) && a->deprecation_reason.ptr) {
        const gql_ast_node *nodes[2] = {deprecated_node(a->ast),
                                        a->ast ? &a->ast->type->h : NULL};
        report(c,
               MSG(c,
                   "Required argument %.*s.%.*s(%.*s:) cannot be deprecated.",
                   S(t->name), S(f->name), S(a->name)),
               nodes, 2);
      }
    }
  }
}

/* The `implements` nodes of `t` naming `iface`. */
static uint32_t implements_nodes(const gql_type *t, gql_str iface,
                                 const gql_ast_node **out, uint32_t n) {
  const gql_ast_type_def *defs[MAX_NODES];
  uint32_t nd = 0;
  if (t->ast)
    defs[nd++] = t->ast;
  for (uint32_t i = 0; i < t->nextensions && nd < MAX_NODES; i++)
    defs[nd++] = t->extensions[i];
  for (uint32_t i = 0; i < nd; i++)
    for (uint32_t j = 0; j < defs[i]->interfaces.count && n < MAX_NODES; j++)
      if (gql_str_eq(gql_ast_name_str(defs[i]->interfaces.items[j]->name),
                     iface))
        out[n++] = &defs[i]->interfaces.items[j]->h;
  return n;
}

static bool has_interface(const gql_type *t, uint32_t iface) {
  for (uint32_t i = 0; i < t->ninterfaces; i++)
    if (t->interfaces[i] == iface)
      return true;
  return false;
}

static void implements_ancestors(vctx *c, uint32_t tid, const gql_type *t,
                                 const gql_type *iface) {
  const gql_schema *s = c->s;
  for (uint32_t i = 0; i < iface->ninterfaces && !c->rc; i++) {
    uint32_t tr = iface->interfaces[i];
    if (has_interface(t, tr))
      continue;
    const gql_type *transitive = &s->types[tr];
    const char *msg =
        tr == tid
            ? MSG(c,
                  "Type %.*s cannot implement %.*s because it would create a "
                  "circular reference.",
                  S(t->name), S(iface->name))
            : MSG(c,
                  "Type %.*s must implement %.*s because it is implemented by "
                  "%.*s.",
                  S(t->name), S(transitive->name), S(iface->name));
    const gql_ast_node *nodes[MAX_NODES];
    uint32_t n = implements_nodes(iface, transitive->name, nodes, 0);
    n = implements_nodes(t, iface->name, nodes, n);
    report(c, msg, nodes, n);
  }
}

static const gql_input_value *find_arg(const gql_field *f, gql_str name) {
  return gql_field_arg(f, name);
}

static void implements_interface(vctx *c, const gql_type *t,
                                 const gql_type *iface) {
  const gql_schema *s = c->s;
  for (uint32_t i = 0; i < iface->nfields && !c->rc; i++) {
    const gql_field *ifield = &iface->fields[i];
    const gql_field *tfield = gql_type_field(t, ifield->name);
    if (!tfield) {
      const gql_ast_node *nodes[MAX_NODES];
      nodes[0] = node1(ifield->ast);
      uint32_t n = 1 + type_nodes(t, nodes + 1);
      report(c,
             MSG(c,
                 "Interface field %.*s.%.*s expected but %.*s does not "
                 "provide it.",
                 S(iface->name), S(ifield->name), S(t->name)),
             nodes, n);
      continue;
    }
    if (!gql_schema_is_type_sub_type_of(s, tfield->type, ifield->type)) {
      const gql_ast_node *nodes[2] = {
          ifield->ast ? &ifield->ast->type->h : NULL,
          tfield->ast ? &tfield->ast->type->h : NULL};
      report(c,
             MSG(c,
                 "Interface field %.*s.%.*s expects type %s but %.*s.%.*s is "
                 "type %s.",
                 S(iface->name), S(ifield->name), ref_str(c, ifield->type),
                 S(t->name), S(tfield->name), ref_str(c, tfield->type)),
             nodes, 2);
    }
    for (uint32_t j = 0; j < ifield->nargs && !c->rc; j++) {
      const gql_input_value *iarg = &ifield->args[j];
      const gql_input_value *targ = find_arg(tfield, iarg->name);
      if (!targ) {
        const gql_ast_node *nodes[2] = {node1(iarg->ast), node1(tfield->ast)};
        report(c,
               MSG(c,
                   "Interface field argument %.*s.%.*s(%.*s:) expected but "
                   "%.*s.%.*s does not provide it.",
                   S(iface->name), S(ifield->name), S(iarg->name), S(t->name),
                   S(tfield->name)),
               nodes, 2);
        continue;
      }
      if (!gql_type_ref_equal(iarg->type, targ->type)) {
        const gql_ast_node *nodes[2] = {iarg->ast ? &iarg->ast->type->h : NULL,
                                        targ->ast ? &targ->ast->type->h : NULL};
        report(c,
               MSG(c,
                   "Interface field argument %.*s.%.*s(%.*s:) expects type %s "
                   "but %.*s.%.*s(%.*s:) is type %s.",
                   S(iface->name), S(ifield->name), S(iarg->name),
                   ref_str(c, iarg->type), S(t->name), S(tfield->name),
                   S(targ->name), ref_str(c, targ->type)),
               nodes, 2);
      }
    }
    for (uint32_t j = 0; j < tfield->nargs && !c->rc; j++) {
      const gql_input_value *targ = &tfield->args[j];
      if (find_arg(ifield, targ->name) || !is_required(targ))
        continue;
      const gql_ast_node *nodes[2] = {node1(targ->ast), node1(ifield->ast)};
      report(c,
             MSG(c,
                 "Object field %.*s.%.*s includes required argument %.*s that "
                 "is missing from the Interface field %.*s.%.*s.",
                 S(t->name), S(tfield->name), S(targ->name), S(iface->name),
                 S(ifield->name)),
             nodes, 2);
    }
  }
}

static void validate_interfaces(vctx *c, uint32_t tid) {
  const gql_schema *s = c->s;
  const gql_type *t = &s->types[tid];
  for (uint32_t i = 0; i < t->ninterfaces && !c->rc; i++) {
    uint32_t iid = t->interfaces[i];
    const gql_type *iface = &s->types[iid];
    const gql_ast_node *nodes[MAX_NODES];
    if (iface->kind != GQL_TYPE_INTERFACE) {
      uint32_t n = implements_nodes(t, iface->name, nodes, 0);
      report(c,
             MSG(c,
                 "Type %.*s must only implement Interface types, it cannot "
                 "implement %.*s.",
                 S(t->name), S(iface->name)),
             nodes, n);
      continue;
    }
    if (iid == tid) {
      uint32_t n = implements_nodes(t, iface->name, nodes, 0);
      report(c,
             MSG(c,
                 "Type %.*s cannot implement itself because it would create a "
                 "circular reference.",
                 S(t->name)),
             nodes, n);
      continue;
    }
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = t->interfaces[j] == iid;
    if (seen) {
      uint32_t n = implements_nodes(t, iface->name, nodes, 0);
      report(c,
             MSG(c, "Type %.*s can only implement %.*s once.", S(t->name),
                 S(iface->name)),
             nodes, n);
      continue;
    }
    implements_ancestors(c, tid, t, iface);
    implements_interface(c, t, iface);
  }
}

/* ---- unions, enums, input objects */

static uint32_t member_nodes(const gql_type *u, gql_str name,
                             const gql_ast_node **out) {
  const gql_ast_type_def *defs[MAX_NODES];
  uint32_t nd = 0, n = 0;
  if (u->ast)
    defs[nd++] = u->ast;
  for (uint32_t i = 0; i < u->nextensions && nd < MAX_NODES; i++)
    defs[nd++] = u->extensions[i];
  for (uint32_t i = 0; i < nd; i++)
    for (uint32_t j = 0; j < defs[i]->members.count && n < MAX_NODES; j++)
      if (gql_str_eq(gql_ast_name_str(defs[i]->members.items[j]->name), name))
        out[n++] = &defs[i]->members.items[j]->h;
  return n;
}

static void validate_union(vctx *c, const gql_type *u) {
  const gql_schema *s = c->s;
  const gql_ast_node *nodes[MAX_NODES];
  if (!u->nmembers) {
    uint32_t n = type_nodes(u, nodes);
    report(c,
           MSG(c, "Union type %.*s must define one or more member types.",
               S(u->name)),
           nodes, n);
  }
  for (uint32_t i = 0; i < u->nmembers && !c->rc; i++) {
    const gql_type *m = &s->types[u->members[i]];
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = u->members[j] == u->members[i];
    if (seen) {
      uint32_t n = member_nodes(u, m->name, nodes);
      report(c,
             MSG(c, "Union type %.*s can only include type %.*s once.",
                 S(u->name), S(m->name)),
             nodes, n);
      continue;
    }
    if (m->kind != GQL_TYPE_OBJECT) {
      uint32_t n = member_nodes(u, m->name, nodes);
      report(c,
             MSG(c,
                 "Union type %.*s can only include Object types, it cannot "
                 "include %.*s.",
                 S(u->name), S(m->name)),
             nodes, n);
    }
  }
}

static void validate_enum(vctx *c, const gql_type *e) {
  if (!e->nvalues) {
    const gql_ast_node *nodes[MAX_NODES];
    uint32_t n = type_nodes(e, nodes);
    report(c,
           MSG(c, "Enum type %.*s must define one or more values.", S(e->name)),
           nodes, n);
  }
  for (uint32_t i = 0; i < e->nvalues && !c->rc; i++)
    validate_name(c, e->values[i].name, node1(e->values[i].ast));
}

static void validate_input_fields(vctx *c, const gql_type *t) {
  const gql_schema *s = c->s;
  if (!t->ninput_fields) {
    const gql_ast_node *nodes[MAX_NODES];
    uint32_t n = type_nodes(t, nodes);
    report(c,
           MSG(c, "Input Object type %.*s must define one or more fields.",
               S(t->name)),
           nodes, n);
  }
  for (uint32_t i = 0; i < t->ninput_fields && !c->rc; i++) {
    const gql_input_value *f = &t->input_fields[i];
    const gql_ast_node *type_node = f->ast ? &f->ast->type->h : NULL;
    validate_name(c, f->name, node1(f->ast));
    if (!gql_schema_is_input(s, f->type.type)) {
      report(c,
             MSG(c, "The type of %.*s.%.*s must be Input Type but got: %s.",
                 S(t->name), S(f->name), ref_str(c, f->type)),
             &type_node, 1);
    }
    if (is_required(f) && f->deprecation_reason.ptr) {
      const gql_ast_node *nodes[2] = {deprecated_node(f->ast), type_node};
      report(c,
             MSG(c, "Required input field %.*s.%.*s cannot be deprecated.",
                 S(t->name), S(f->name)),
             nodes, 2);
    }
    if (t->one_of) {
      if (gql_type_ref_is_non_null(f->type))
        report(c,
               MSG(c, "OneOf input field %.*s.%.*s must be nullable.",
                   S(t->name), S(f->name)),
               &type_node, 1);
      if (f->default_value) {
        const gql_ast_node *nodes[1] = {node1(f->ast)};
        report(c,
               MSG(c,
                   "OneOf input field %.*s.%.*s cannot have a default "
                   "value.",
                   S(t->name), S(f->name)),
               nodes, 1);
      }
    }
  }
}

/* Input object cycles through non-null fields (graphql-js
 * createInputObjectCircularRefsValidator), iterative to bound the stack. */
typedef struct cycle_frame {
  uint32_t type;
  uint32_t next_field;
} cycle_frame;

typedef struct cycle_state {
  cycle_frame *stack; /* one frame per type at most */
  bool *visited;
  int32_t *path_index; /* per type: index in path, or -1 */
  const gql_input_value **path;
  uint32_t npath;
} cycle_state;

static void detect_cycles(vctx *c, cycle_state *st, uint32_t root) {
  typedef cycle_frame frame;
  const gql_schema *s = c->s;
  if (st->visited[root])
    return;
  frame *stack = st->stack;
  uint32_t depth = 0;
  st->visited[root] = true;
  st->path_index[root] = (int32_t)st->npath;
  stack[depth++] = (frame){root, 0};
  while (depth && !c->rc) {
    frame *fr = &stack[depth - 1];
    const gql_type *t = &s->types[fr->type];
    if (fr->next_field == t->ninput_fields) {
      st->path_index[fr->type] = -1;
      depth--;
      if (depth)
        st->npath--; /* pop the field that led here */
      continue;
    }
    const gql_input_value *f = &t->input_fields[fr->next_field++];
    if (!gql_type_ref_is_non_null(f->type) || f->type.nmods != 1 ||
        s->types[f->type.type].kind != GQL_TYPE_INPUT_OBJECT)
      continue;
    uint32_t ft = f->type.type;
    int32_t cycle = st->path_index[ft];
    st->path[st->npath++] = f;
    if (cycle < 0) {
      if (st->visited[ft]) {
        st->npath--;
        continue;
      }
      st->visited[ft] = true;
      st->path_index[ft] = (int32_t)st->npath;
      stack[depth++] = (frame){ft, 0};
      continue;
    }
    gql_buf b;
    gql_buf_init(&b, NULL);
    const gql_ast_node *nodes[MAX_NODES];
    uint32_t n = 0;
    for (uint32_t i = (uint32_t)cycle; i < st->npath; i++) {
      if (i > (uint32_t)cycle)
        gql_buf_putc(&b, '.');
      gql_buf_put_str(&b, st->path[i]->name);
      if (n < MAX_NODES)
        nodes[n++] = node1(st->path[i]->ast);
    }
    const char *p = gql_buf_cstr(&b);
    report(c,
           p ? MSG(c,
                   "Cannot reference Input Object \"%.*s\" within itself "
                   "through a series of non-null fields: \"%s\".",
                   S(s->types[ft].name), p)
             : NULL,
           nodes, n);
    gql_buf_free(&b);
    st->npath--;
  }
}

int gql_schema_validate(const gql_schema *s, gql_error_list *errors) {
  vctx c = {s, errors, gql_arena_new(&s->alc), 0};
  if (!c.scratch)
    return GQL_ENOMEM;
  cycle_state st = {0};
  size_t n = s->ntypes ? s->ntypes : 1;
  st.visited = gql_arena_alloc(c.scratch, n * sizeof *st.visited);
  st.path_index = gql_arena_alloc(c.scratch, n * sizeof *st.path_index);
  st.path = gql_arena_alloc(c.scratch, n * sizeof *st.path);
  st.stack = gql_arena_alloc(c.scratch, n * sizeof *st.stack);
  if (!st.visited || !st.path_index || !st.path || !st.stack) {
    c.rc = GQL_ENOMEM;
    goto done;
  }
  memset(st.visited, 0, n * sizeof *st.visited);
  for (uint32_t i = 0; i < s->ntypes; i++)
    st.path_index[i] = -1;
  validate_roots(&c);
  validate_directives(&c);
  for (uint32_t i = 0; i < s->ntypes && !c.rc; i++) {
    const gql_type *t = &s->types[i];
    if (!gql_schema_is_introspection_name(t->name))
      validate_name(&c, t->name, node1(t->ast));
    switch (t->kind) {
    case GQL_TYPE_OBJECT:
    case GQL_TYPE_INTERFACE:
      validate_fields(&c, t);
      validate_interfaces(&c, i);
      break;
    case GQL_TYPE_UNION:
      validate_union(&c, t);
      break;
    case GQL_TYPE_ENUM:
      validate_enum(&c, t);
      break;
    case GQL_TYPE_INPUT_OBJECT:
      validate_input_fields(&c, t);
      detect_cycles(&c, &st, i);
      break;
    case GQL_TYPE_SCALAR:
      break;
    }
  }
done:
  gql_arena_free(c.scratch);
  return c.rc;
}
