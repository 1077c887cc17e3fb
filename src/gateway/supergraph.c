/*
 * Reading a Federation v2 supergraph (join v0.3): the subgraphs of
 * `enum join__Graph`, per type its @join__type applications and per field
 * its @join__field applications; and the API schema, which is the
 * supergraph without the join / link machinery and without @inaccessible
 * elements, printed back to SDL and built as a gql_schema.
 */
#include "gateway.h"

#include <stdlib.h>

#define DIE(code, msg)                                                         \
  do {                                                                         \
    *err = (msg);                                                              \
    return (code);                                                             \
  } while (0)

static bool has_prefix(gql_str s, const char *p) {
  size_t n = strlen(p);
  return s.len >= n && memcmp(s.ptr, p, n) == 0;
}

static const gql_ast_value *arg_of(const gql_ast_directive *d,
                                   const char *name) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(d->args.items[i]->name), name))
      return d->args.items[i]->value;
  return NULL;
}

static gql_str arg_str(const gql_ast_directive *d, const char *name) {
  const gql_ast_value *v = arg_of(d, name);
  if (v && v->h.kind == GQL_AST_STRING_VALUE)
    return v->u.string.value;
  if (v && v->h.kind == GQL_AST_ENUM_VALUE)
    return v->u.raw;
  return (gql_str){NULL, 0};
}

static bool arg_bool(const gql_ast_directive *d, const char *name, bool dflt) {
  const gql_ast_value *v = arg_of(d, name);
  return v && v->h.kind == GQL_AST_BOOLEAN_VALUE ? v->u.boolean : dflt;
}

static bool dir_is(const gql_ast_directive *d, const char *name) {
  return gql_str_eq_cstr(gql_ast_name_str(d->name), name);
}

static bool has_dir(const gql_ast_directives *ds, const char *name) {
  for (uint32_t i = 0; i < ds->count; i++)
    if (dir_is(ds->items[i], name))
      return true;
  return false;
}

/* Directives of the federation machinery, absent from the API schema. */
static bool is_machinery_directive(gql_str name) {
  return has_prefix(name, "join__") || gql_str_eq_cstr(name, "link") ||
         gql_str_eq_cstr(name, "inaccessible") || gql_str_eq_cstr(name, "tag");
}

/* ---------------------------------------------------------- field sets */

static bool fs_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}
static bool fs_name_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

/* Parses names and nested braces; *pos advances. Depth bounded by 64. */
static int fs_parse(gql_arena *arena, const char *s, size_t n, size_t *pos,
                    gql_gw_sel *parent, unsigned depth) {
  if (depth > 64)
    return GQL_ELIMIT;
  for (;;) {
    while (*pos < n && fs_ws(s[*pos]))
      (*pos)++;
    if (*pos >= n || s[*pos] == '}')
      return 0;
    if (s[*pos] == '{')
      return GQL_ESYNTAX;
    size_t start = *pos;
    while (*pos < n && fs_name_char(s[*pos]))
      (*pos)++;
    if (*pos == start)
      return GQL_ESYNTAX; /* fragments and args: not here */
    gql_gw_sel *sel = gql_arena_alloc(arena, sizeof *sel);
    if (!sel)
      return GQL_ENOMEM;
    memset(sel, 0, sizeof *sel);
    sel->key = sel->name = (gql_str){s + start, *pos - start};
    if (parent->last)
      parent->last->next = sel;
    else
      parent->first = sel;
    parent->last = sel;
    parent->has_children = true;
    while (*pos < n && fs_ws(s[*pos]))
      (*pos)++;
    if (*pos < n && s[*pos] == '{') {
      (*pos)++;
      int rc = fs_parse(arena, s, n, pos, sel, depth + 1);
      if (rc)
        return rc;
      if (*pos >= n || s[*pos] != '}')
        return GQL_ESYNTAX;
      (*pos)++;
    }
  }
}

int gql_gw_parse_field_set(gql_arena *arena, gql_str text, gql_gw_sel **out) {
  gql_gw_sel *root = gql_arena_alloc(arena, sizeof *root);
  if (!root)
    return GQL_ENOMEM;
  memset(root, 0, sizeof *root);
  size_t pos = 0;
  int rc = fs_parse(arena, text.ptr, text.len, &pos, root, 0);
  if (rc)
    return rc;
  if (pos != text.len)
    return GQL_ESYNTAX;
  *out = root;
  return 0;
}

/* ------------------------------------------------------------- lookups */

const gql_gw_type *gql_supergraph_type(const gql_supergraph *sg, gql_str name) {
  uint32_t i;
  return gql_strmap_get(&sg->type_index, name, &i) ? &sg->types[i] : NULL;
}

const gql_gw_field *gql_supergraph_field(const gql_gw_type *t, gql_str name) {
  for (uint32_t i = 0; i < t->nfields; i++)
    if (gql_str_eq(t->fields[i].name, name))
      return &t->fields[i];
  return NULL;
}

int64_t gql_supergraph_graph_by_name(const gql_supergraph *sg, gql_str name) {
  for (uint32_t i = 0; i < sg->ngraphs; i++)
    if (gql_str_eq(sg->graphs[i].name, name))
      return i;
  return -1;
}

const gql_gw_type_graph *gql_supergraph_type_graph(const gql_gw_type *t,
                                                   uint32_t graph) {
  for (uint32_t i = 0; i < t->ngraphs; i++)
    if (t->graphs[i].graph == graph)
      return &t->graphs[i];
  return NULL;
}

bool gql_supergraph_satisfies(const gql_gw_type *t, const gql_gw_type *cond) {
  if (t == cond || gql_str_eq(t->name, cond->name))
    return true;
  if (cond->kind == GQL_AST_UNION_TYPE_DEFINITION) {
    for (uint32_t i = 0; i < cond->nmembers; i++)
      if (gql_str_eq(cond->members[i].name, t->name))
        return true;
    return false;
  }
  for (uint32_t i = 0; i < t->nimplements; i++)
    if (gql_str_eq(t->implements[i].name, cond->name))
      return true;
  return false;
}

bool gql_supergraph_resolves(const gql_gw_type *t, const gql_gw_field *f,
                             uint32_t graph) {
  if (!gql_supergraph_type_graph(t, graph))
    return false;
  if (f->ngraphs == 0)
    return true;
  for (uint32_t i = 0; i < f->ngraphs; i++)
    if (f->graphs[i].graph == graph)
      return !f->graphs[i].external && !f->graphs[i].used_overridden;
  return false;
}

/* ------------------------------------------------------------- reading */

static int graph_of(const gql_supergraph *sg, const gql_ast_directive *d,
                    uint32_t *out) {
  gql_str g = arg_str(d, "graph");
  for (uint32_t i = 0; i < sg->ngraphs; i++)
    if (gql_str_eq(sg->graphs[i].enum_value, g)) {
      *out = i;
      return 0;
    }
  return GQL_ESCHEMA;
}

static void named_type(const gql_ast_type *t, gql_str *name, uint32_t *lists) {
  *lists = 0;
  while (t->h.kind != GQL_AST_NAMED_TYPE) {
    if (t->h.kind == GQL_AST_LIST_TYPE)
      (*lists)++;
    t = t->of;
  }
  *name = gql_ast_name_str(t->name);
}

static int read_graphs(gql_supergraph *sg, const gql_ast_type_def *def,
                       const char **err) {
  /* a second enum would be read into an array of its own size at the
   * first one's count (fuzz_supergraph found the overflow) */
  if (sg->graphs)
    DIE(GQL_ESCHEMA, "enum join__Graph is defined twice");
  sg->graphs =
      gql_arena_alloc(sg->arena, (def->values.count + 1) * sizeof *sg->graphs);
  if (!sg->graphs)
    DIE(GQL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < def->values.count; i++) {
    const gql_ast_enum_value_def *v = def->values.items[i];
    for (uint32_t j = 0; j < v->directives.count; j++) {
      const gql_ast_directive *d = v->directives.items[j];
      if (!dir_is(d, "join__graph"))
        continue;
      gql_gw_graph *g = &sg->graphs[sg->ngraphs++];
      g->enum_value = gql_ast_name_str(v->name);
      g->name = arg_str(d, "name");
      g->url = arg_str(d, "url");
      if (!g->name.ptr)
        DIE(GQL_ESCHEMA, "@join__graph without a name argument");
      break;
    }
  }
  return 0;
}

static int read_field(gql_supergraph *sg, const gql_ast_field_def *def,
                      gql_gw_field *f, const char **err) {
  memset(f, 0, sizeof *f);
  f->name = gql_ast_name_str(def->name);
  named_type(def->type, &f->type_name, &f->list_depth);
  f->type = def->type;
  f->inaccessible = has_dir(&def->directives, "inaccessible");
  f->graphs = gql_arena_alloc(sg->arena,
                              (def->directives.count + 1) * sizeof *f->graphs);
  if (!f->graphs)
    DIE(GQL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < def->directives.count; i++) {
    const gql_ast_directive *d = def->directives.items[i];
    if (!dir_is(d, "join__field"))
      continue;
    gql_gw_field_graph *fg = &f->graphs[f->ngraphs];
    memset(fg, 0, sizeof *fg);
    if (!arg_of(d, "graph"))
      continue; /* @join__field with no graph */
    if (graph_of(sg, d, &fg->graph))
      DIE(GQL_ESCHEMA, "@join__field names an unknown graph");
    fg->external = arg_bool(d, "external", false);
    fg->used_overridden = arg_bool(d, "usedOverridden", false);
    fg->override = arg_str(d, "override");
    fg->requires_text = arg_str(d, "requires");
    fg->provides_text = arg_str(d, "provides");
    if (fg->requires_text.ptr &&
        gql_gw_parse_field_set(sg->arena, fg->requires_text, &fg->requires))
      DIE(GQL_ESCHEMA, "a @join__field requires argument is not a field set");
    if (fg->provides_text.ptr &&
        gql_gw_parse_field_set(sg->arena, fg->provides_text, &fg->provides))
      DIE(GQL_ESCHEMA, "a @join__field provides argument is not a field set");
    f->ngraphs++;
  }
  return 0;
}

/* Applications of `dname` (graph: G, `arg`: "Name") into *out. */
static int read_refs(gql_supergraph *sg, const gql_ast_directives *ds,
                     const char *dname, const char *arg, gql_gw_type_ref **out,
                     uint32_t *n, const char **err) {
  *out = gql_arena_alloc(sg->arena, (ds->count + 1) * sizeof **out);
  if (!*out)
    DIE(GQL_ENOMEM, "out of memory");
  *n = 0;
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    if (!dir_is(d, dname))
      continue;
    gql_gw_type_ref *ref = &(*out)[(*n)++];
    ref->name = arg_str(d, arg);
    if (graph_of(sg, d, &ref->graph) || !ref->name.ptr)
      DIE(GQL_ESCHEMA, "a @join__implements or @join__unionMember names an "
                       "unknown graph or no type");
  }
  return 0;
}

static int read_type(gql_supergraph *sg, const gql_ast_type_def *def,
                     const char **err) {
  gql_gw_type *t = &sg->types[sg->ntypes];
  memset(t, 0, sizeof *t);
  t->name = gql_ast_name_str(def->name);
  t->kind = def->h.kind;
  t->inaccessible = has_dir(&def->directives, "inaccessible");
  t->graphs = gql_arena_alloc(sg->arena,
                              (def->directives.count + 1) * sizeof *t->graphs);
  t->fields =
      gql_arena_alloc(sg->arena, (def->fields.count + 1) * sizeof *t->fields);
  if (!t->graphs || !t->fields)
    DIE(GQL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < def->directives.count; i++) {
    const gql_ast_directive *d = def->directives.items[i];
    if (!dir_is(d, "join__type"))
      continue;
    gql_gw_type_graph *tg = &t->graphs[t->ngraphs++];
    memset(tg, 0, sizeof *tg);
    if (graph_of(sg, d, &tg->graph))
      DIE(GQL_ESCHEMA, "@join__type names an unknown graph");
    tg->resolvable = arg_bool(d, "resolvable", true);
    tg->extension = arg_bool(d, "extension", false);
    tg->key_text = arg_str(d, "key");
    if (tg->key_text.ptr &&
        gql_gw_parse_field_set(sg->arena, tg->key_text, &tg->key))
      DIE(GQL_ESCHEMA, "a @join__type key is not a field set");
  }
  for (uint32_t i = 0; i < def->fields.count; i++) {
    int rc =
        read_field(sg, def->fields.items[i], &t->fields[t->nfields++], err);
    if (rc)
      return rc;
  }
  int rc = read_refs(sg, &def->directives, "join__implements", "interface",
                     &t->implements, &t->nimplements, err);
  if (!rc)
    rc = read_refs(sg, &def->directives, "join__unionMember", "member",
                   &t->members, &t->nmembers, err);
  /* without join applications, the definition's own lists (any graph) */
  if (!rc && t->nimplements == 0 && def->interfaces.count) {
    t->implements = gql_arena_alloc(sg->arena, def->interfaces.count *
                                                   sizeof *t->implements);
    if (!t->implements)
      DIE(GQL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < def->interfaces.count; i++)
      t->implements[t->nimplements++] = (gql_gw_type_ref){
          UINT32_MAX, gql_ast_name_str(def->interfaces.items[i]->name)};
  }
  if (!rc && t->nmembers == 0 && def->members.count) {
    t->members =
        gql_arena_alloc(sg->arena, def->members.count * sizeof *t->members);
    if (!t->members)
      DIE(GQL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < def->members.count; i++)
      t->members[t->nmembers++] = (gql_gw_type_ref){
          UINT32_MAX, gql_ast_name_str(def->members.items[i]->name)};
  }
  for (uint32_t i = 0; i < def->values.count && !rc; i++) {
    const gql_ast_enum_value_def *v = def->values.items[i];
    for (uint32_t j = 0; j < v->directives.count; j++) {
      const gql_ast_directive *d = v->directives.items[j];
      if (!dir_is(d, "join__enumValue"))
        continue;
      gql_gw_type_ref *refs =
          gql_arena_grow(sg->arena, t->enum_values, t->nenum_values,
                         t->nenum_values + 1, sizeof *refs);
      if (!refs)
        DIE(GQL_ENOMEM, "out of memory");
      t->enum_values = refs;
      gql_gw_type_ref *ref = &refs[t->nenum_values++];
      ref->name = gql_ast_name_str(v->name);
      if (graph_of(sg, d, &ref->graph))
        DIE(GQL_ESCHEMA, "@join__enumValue names an unknown graph");
    }
  }
  if (rc)
    return rc;
  rc = gql_strmap_put(&sg->type_index, t->name, sg->ntypes);
  if (rc < 0)
    DIE(GQL_ENOMEM, "out of memory");
  if (rc == 0)
    DIE(GQL_ESCHEMA, "a type is defined twice in the supergraph");
  sg->ntypes++;
  return 0;
}

/* ------------------------------------------------------------ API schema */

static bool removed_type(const gql_supergraph *sg, gql_str name) {
  if (has_prefix(name, "join__") || has_prefix(name, "link__"))
    return true;
  const gql_gw_type *t = gql_supergraph_type(sg, name);
  return t && t->inaccessible;
}

static void *arena_array(gql_arena *a, uint32_t n, size_t elem) {
  return gql_arena_alloc(a, (n ? n : 1) * elem);
}

#define FILTER(arena, arr, keep_expr)                                          \
  do {                                                                         \
    __typeof__((arr).items) items_ =                                           \
        arena_array((arena), (arr).count, sizeof *(arr).items);                \
    if (!items_)                                                               \
      return GQL_ENOMEM;                                                       \
    uint32_t n_ = 0;                                                           \
    for (uint32_t i_ = 0; i_ < (arr).count; i_++) {                            \
      __typeof__(*(arr).items) it = (arr).items[i_];                           \
      if (keep_expr)                                                           \
        items_[n_++] = it;                                                     \
    }                                                                          \
    (arr).items = items_;                                                      \
    (arr).count = n_;                                                          \
  } while (0)

static int api_directives(gql_arena *a, gql_ast_directives *ds) {
  FILTER(a, *ds, !is_machinery_directive(gql_ast_name_str(it->name)));
  return 0;
}

static bool keep_input(const gql_supergraph *sg,
                       const gql_ast_input_value_def *iv) {
  gql_str name;
  uint32_t lists;
  named_type(iv->type, &name, &lists);
  return !has_dir(&iv->directives, "inaccessible") && !removed_type(sg, name);
}

static int api_inputs(const gql_supergraph *sg, gql_ast_input_value_defs *ivs) {
  FILTER(sg->arena, *ivs, keep_input(sg, it));
  for (uint32_t i = 0; i < ivs->count; i++) {
    gql_ast_input_value_def *c = gql_arena_alloc(sg->arena, sizeof *c);
    if (!c)
      return GQL_ENOMEM;
    *c = *ivs->items[i];
    if (api_directives(sg->arena, &c->directives))
      return GQL_ENOMEM;
    ivs->items[i] = c;
  }
  return 0;
}

static bool keep_field(const gql_supergraph *sg, const gql_ast_field_def *f) {
  gql_str name;
  uint32_t lists;
  named_type(f->type, &name, &lists);
  return !has_dir(&f->directives, "inaccessible") && !removed_type(sg, name);
}

static int api_type(const gql_supergraph *sg, const gql_ast_type_def *def,
                    gql_buf *out) {
  gql_arena *a = sg->arena;
  gql_ast_type_def c = *def;
  if (api_directives(a, &c.directives))
    return GQL_ENOMEM;
  FILTER(a, c.interfaces, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.members, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.values, !has_dir(&it->directives, "inaccessible"));
  FILTER(a, c.fields, keep_field(sg, it));
  for (uint32_t i = 0; i < c.values.count; i++) {
    gql_ast_enum_value_def *v = gql_arena_alloc(a, sizeof *v);
    if (!v)
      return GQL_ENOMEM;
    *v = *c.values.items[i];
    if (api_directives(a, &v->directives))
      return GQL_ENOMEM;
    c.values.items[i] = v;
  }
  for (uint32_t i = 0; i < c.fields.count; i++) {
    gql_ast_field_def *f = gql_arena_alloc(a, sizeof *f);
    if (!f)
      return GQL_ENOMEM;
    *f = *c.fields.items[i];
    if (api_directives(a, &f->directives) || api_inputs(sg, &f->args))
      return GQL_ENOMEM;
    c.fields.items[i] = f;
  }
  if (api_inputs(sg, &c.input_fields))
    return GQL_ENOMEM;
  gql_print_node(out, &c.h);
  gql_buf_puts(out, "\n\n");
  return 0;
}

static int api_directive_def(const gql_supergraph *sg,
                             const gql_ast_directive_def *def, gql_buf *out) {
  gql_ast_directive_def c = *def;
  if (api_inputs(sg, &c.args))
    return GQL_ENOMEM;
  gql_print_node(out, &c.h);
  gql_buf_puts(out, "\n\n");
  return 0;
}

static int api_sdl(gql_supergraph *sg, gql_buf *out) {
  const gql_document *doc = sg->doc;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    int rc = 0;
    if (n->kind == GQL_AST_SCHEMA_DEFINITION ||
        n->kind == GQL_AST_SCHEMA_EXTENSION) {
      gql_ast_schema_def c = *(const gql_ast_schema_def *)n;
      if (api_directives(sg->arena, &c.directives))
        return GQL_ENOMEM;
      if (c.operation_types.count == 0 && c.directives.count == 0)
        continue;
      gql_print_node(out, &c.h);
      gql_buf_puts(out, "\n\n");
    } else if (n->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      const gql_ast_directive_def *d = (const gql_ast_directive_def *)n;
      if (is_machinery_directive(gql_ast_name_str(d->name)))
        continue;
      rc = api_directive_def(sg, d, out);
    } else if (gql_ast_is_type_definition(n->kind) ||
               gql_ast_is_type_extension(n->kind)) {
      const gql_ast_type_def *t = (const gql_ast_type_def *)n;
      if (removed_type(sg, gql_ast_name_str(t->name)))
        continue;
      rc = api_type(sg, t, out);
    }
    if (rc)
      return rc;
  }
  return out->failed ? GQL_ENOMEM : 0;
}

/* ---------------------------------------------------------------- load */

static int load(gql_supergraph *sg, gql_arena *err_arena, const char **err) {
  gql_syntax_error se;
  /* the operator's file, not a client's: large supergraphs are fine (as
   * the schema builder takes large SDL) */
  gql_parse_options po = {.max_tokens = UINT32_MAX,
                          .max_size = (size_t)1 << 30};
  int rc = gql_parse(sg->arena, sg->source, sg->source_len, &po, &sg->doc, &se);
  if (rc) {
    *err = err_arena
               ? gql_arena_sprintf(err_arena, "%u:%u: %s", se.location.line,
                                   se.location.column, se.message)
               : "syntax error in the supergraph";
    return rc;
  }
  const gql_document *doc = sg->doc;
  sg->query_type = GQL_STR("Query");
  sg->mutation_type = GQL_STR("Mutation");
  uint32_t ntypes = 0;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (gql_ast_is_type_definition(n->kind))
      ntypes++;
    if (n->kind == GQL_AST_ENUM_TYPE_DEFINITION &&
        gql_str_eq_cstr(gql_ast_name_str(((const gql_ast_type_def *)n)->name),
                        "join__Graph")) {
      rc = read_graphs(sg, (const gql_ast_type_def *)n, err);
      if (rc)
        return rc;
    }
    if (n->kind == GQL_AST_SCHEMA_DEFINITION) {
      const gql_ast_schema_def *s = (const gql_ast_schema_def *)n;
      for (uint32_t j = 0; j < s->operation_types.count; j++) {
        const gql_ast_operation_type_def *o = s->operation_types.items[j];
        gql_str name = gql_ast_name_str(o->type->name);
        if (o->operation == GQL_OP_QUERY)
          sg->query_type = name;
        if (o->operation == GQL_OP_MUTATION)
          sg->mutation_type = name;
      }
    }
  }
  if (sg->ngraphs == 0)
    DIE(GQL_ESCHEMA, "not a supergraph: no enum join__Graph with @join__graph");
  sg->types = gql_arena_alloc(sg->arena, (ntypes + 1) * sizeof *sg->types);
  if (!sg->types)
    DIE(GQL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (!gql_ast_is_type_definition(n->kind))
      continue;
    rc = read_type(sg, (const gql_ast_type_def *)n, err);
    if (rc)
      return rc;
  }
  /* field types by pointer: no name lookups when planning or merging */
  for (uint32_t i = 0; i < sg->ntypes; i++)
    for (uint32_t j = 0; j < sg->types[i].nfields; j++) {
      gql_gw_field *f = &sg->types[i].fields[j];
      f->named = gql_supergraph_type(sg, f->type_name);
    }
  gql_buf out;
  gql_buf_init(&out, NULL);
  rc = api_sdl(sg, &out);
  if (rc) {
    gql_buf_free(&out);
    DIE(rc, "out of memory");
  }
  char *copy = gql_arena_strndup(sg->arena, out.data ? out.data : "", out.len);
  sg->api_sdl = (gql_str){copy, out.len};
  gql_buf_free(&out);
  if (!copy)
    DIE(GQL_ENOMEM, "out of memory");
  const gql_error *errors = NULL;
  uint32_t nerrors = 0;
  rc = gql_schema_from_sdl(sg->api_sdl.ptr, sg->api_sdl.len, NULL, &sg->api,
                           err_arena, &errors, &nerrors);
  if (rc) {
    *err = nerrors && errors[0].message ? errors[0].message
                                        : "the API schema does not build";
    return GQL_ESCHEMA;
  }
  return 0;
}

int gql_supergraph_load(const char *sdl, size_t len, gql_supergraph **out,
                        gql_arena *err_arena, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  *out = NULL;
  gql_supergraph *sg = calloc(1, sizeof *sg);
  if (!sg)
    DIE(GQL_ENOMEM, "out of memory");
  sg->arena = gql_arena_new(NULL);
  gql_strmap_init(&sg->type_index, NULL);
  sg->source = sg->arena ? gql_arena_strndup(sg->arena, sdl, len) : NULL;
  sg->source_len = len;
  if (!sg->source) {
    gql_supergraph_free(sg);
    DIE(GQL_ENOMEM, "out of memory");
  }
  int rc = load(sg, err_arena, err);
  if (rc) {
    gql_supergraph_free(sg);
    return rc;
  }
  *out = sg;
  return 0;
}

void gql_supergraph_free(gql_supergraph *sg) {
  if (!sg)
    return;
  gql_schema_free(sg->api);
  gql_strmap_free(&sg->type_index);
  gql_arena_free(sg->arena);
  free(sg);
}
