/*
 * graphql-js 16 validateSDL: the SDL rules, run together in one walk of the
 * document so that errors come out in graphql-js's order (node by node,
 * rule by rule at each node), or one rule alone by name.
 */
#include "internal.h"

#include <stdio.h>

/* X(ID, graphql-js name), in specifiedSDLRules order. */
#define SDL_RULES(X)                                                           \
  X(LONE_SCHEMA, LoneSchemaDefinitionRule)                                     \
  X(UNIQUE_OP_TYPES, UniqueOperationTypesRule)                                 \
  X(UNIQUE_TYPE_NAMES, UniqueTypeNamesRule)                                    \
  X(UNIQUE_ENUM_VALUES, UniqueEnumValueNamesRule)                              \
  X(UNIQUE_FIELD_DEFS, UniqueFieldDefinitionNamesRule)                         \
  X(UNIQUE_ARG_DEFS, UniqueArgumentDefinitionNamesRule)                        \
  X(UNIQUE_DIRECTIVE_NAMES, UniqueDirectiveNamesRule)                          \
  X(KNOWN_TYPE_NAMES, KnownTypeNamesRule)                                      \
  X(KNOWN_DIRECTIVES, KnownDirectivesRule)                                     \
  X(UNIQUE_DIRECTIVES_PER_LOC, UniqueDirectivesPerLocationRule)                \
  X(POSSIBLE_TYPE_EXTENSIONS, PossibleTypeExtensionsRule)                      \
  X(KNOWN_ARG_NAMES_ON_DIRECTIVES, KnownArgumentNamesOnDirectivesRule)         \
  X(UNIQUE_ARG_NAMES, UniqueArgumentNamesRule)                                 \
  X(UNIQUE_INPUT_FIELD_NAMES, UniqueInputFieldNamesRule)                       \
  X(PROVIDED_REQUIRED_ARGS_ON_DIRECTIVES,                                      \
    ProvidedRequiredArgumentsOnDirectivesRule)

enum {
#define RULE_ENUM_(id, name) R_##id,
  SDL_RULES(RULE_ENUM_)
#undef RULE_ENUM_
      R_COUNT
};

static const char *const rule_names[] = {
#define RULE_NAME_(id, name) #name,
    SDL_RULES(RULE_NAME_)
#undef RULE_NAME_
};

/* What a directive name stands for, from the schema or the document. */
typedef struct dir_info {
  gql_str name;
  uint32_t location_mask;
  bool repeatable;
  const gql_directive *schema_dir;      /* from the schema being extended */
  const gql_ast_directive_def *ast_dir; /* from the document (wins) */
} dir_info;

typedef struct ctx {
  const gql_document *doc;
  gql_str src;
  const gql_schema *schema;     /* being extended, or NULL */
  const gql_schema *dir_schema; /* where known directives come from */
  gql_error_list *errors;
  gql_arena *arena; /* scratch */
  const gql_allocator *alc;
  uint32_t rules; /* bit per rule */
  int rc;
  /* directives known to the rules (schema's or the specified ones, then
   * the document's definitions) */
  dir_info *dirs;
  uint32_t ndirs;
  gql_strmap dir_map; /* name → dirs index */
  /* rule state */
  uint32_t schema_defs;
  uint32_t op_defined[3]; /* offset + 1 of the first definition */
  gql_strmap type_names;  /* UniqueTypeNames: name → name offset */
  gql_strmap enum_values; /* "Type.value" → name offset */
  gql_strmap field_defs;  /* "Type.field" → name offset */
  gql_strmap directive_names;
  gql_strmap defined_types;   /* KnownTypeNames: names defined in the doc */
  gql_strmap last_defs;       /* name → index of its last definition */
  gql_strmap type_dirs;       /* "Type@dir" → directive offset */
  gql_strmap schema_dirs;     /* dir → offset */
  gql_str *type_name_options; /* suggestions for KnownTypeNames */
  uint32_t ntype_name_options;
} ctx;

static bool on(const ctx *c, int rule) {
  return (c->rules >> rule) & 1u;
}

static void report(ctx *c, const uint32_t *offs, uint32_t n, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
static void report(ctx *c, const uint32_t *offs, uint32_t n, const char *fmt,
                   ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = gql_arena_vsprintf(c->errors->arena, fmt, ap);
  va_end(ap);
  if (!msg) {
    c->rc = GQL_ENOMEM;
    return;
  }
  gql_location locs[8];
  if (n > GQL_ARRAY_LEN(locs))
    n = GQL_ARRAY_LEN(locs);
  for (uint32_t i = 0; i < n; i++)
    locs[i] = gql_location_of(c->src.ptr, c->src.len, offs[i]);
  int rc = gql_error_list_push(c->errors, msg, locs, n);
  if (rc == GQL_ENOMEM)
    c->rc = rc;
}

#define NAMEF(n) (int)(n).len, (n).ptr

static void map_put(ctx *c, gql_strmap *m, gql_str k, uint32_t v) {
  if (gql_strmap_put(m, k, v) < 0)
    c->rc = GQL_ENOMEM;
}

/* "a<sep>b" in the arena. Copied, not formatted: a schema makes one per
 * field and argument, and vsnprintf was a third of loading a 10 MB
 * supergraph's API schema (bench/gateway-scale). */
static gql_str key2(ctx *c, gql_str a, char sep, gql_str b) {
  char *k = gql_arena_alloc(c->arena, a.len + 1 + b.len + 1);
  if (!k) {
    c->rc = GQL_ENOMEM;
    return (gql_str){"", 0};
  }
  if (a.len)
    memcpy(k, a.ptr, a.len);
  k[a.len] = sep;
  if (b.len)
    memcpy(k + a.len + 1, b.ptr, b.len);
  k[a.len + 1 + b.len] = 0;
  return (gql_str){k, a.len + 1 + b.len};
}

static gql_str msg_buf_str(ctx *c, gql_buf *b) {
  const char *s = gql_buf_cstr(b);
  char *copy = s ? gql_arena_strndup(c->arena, s, b->len) : NULL;
  gql_buf_free(b);
  if (!copy) {
    c->rc = GQL_ENOMEM;
    return (gql_str){"", 0};
  }
  return (gql_str){copy, strlen(copy)};
}

/* ---- setup */

static void add_dir(ctx *c, dir_info d) {
  uint32_t idx;
  if (gql_strmap_get(&c->dir_map, d.name, &idx)) {
    c->dirs[idx] = d; /* a later definition replaces (graphql-js maps) */
    return;
  }
  c->dirs[c->ndirs] = d;
  map_put(c, &c->dir_map, d.name, c->ndirs);
  c->ndirs++;
}

static dir_info ast_dir_info(const gql_ast_directive_def *d) {
  dir_info r = {gql_ast_name_str(d->name), 0, d->repeatable, NULL, d};
  for (uint32_t i = 0; i < d->locations.count; i++) {
    gql_directive_location loc;
    if (gql_directive_location_from_name(
            gql_ast_name_str(*d->locations.items[i]), &loc))
      r.location_mask |= 1u << loc;
  }
  return r;
}

static int setup(ctx *c, const gql_schema *std) {
  const gql_schema *ds = c->schema ? c->schema : std;
  c->dir_schema = ds;
  uint32_t n = ds->ndirectives;
  for (uint32_t i = 0; i < c->doc->definitions.count; i++)
    n += c->doc->definitions.items[i]->kind == GQL_AST_DIRECTIVE_DEFINITION;
  c->dirs = gql_arena_alloc(c->arena, (size_t)(n + 1) * sizeof *c->dirs);
  if (!c->dirs)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < ds->ndirectives; i++) {
    const gql_directive *d = &ds->directives[i];
    if (!c->schema && !d->builtin)
      continue;
    add_dir(c, (dir_info){d->name, d->location_mask, d->repeatable, d, NULL});
  }
  /* type names for suggestions: the schema's (or nothing), then the
   * document's definitions */
  uint32_t nt = (c->schema ? c->schema->ntypes : 0) + c->doc->definitions.count;
  c->type_name_options =
      gql_arena_alloc(c->arena, (size_t)(nt + 16) * sizeof(gql_str));
  if (!c->type_name_options)
    return GQL_ENOMEM;
  if (c->schema)
    for (uint32_t i = 0; i < c->schema->ntypes; i++)
      c->type_name_options[c->ntype_name_options++] = c->schema->types[i].name;
  for (uint32_t i = 0; i < c->doc->definitions.count && !c->rc; i++) {
    const gql_ast_node *d = c->doc->definitions.items[i];
    if (d->kind == GQL_AST_DIRECTIVE_DEFINITION)
      add_dir(c, ast_dir_info((const gql_ast_directive_def *)d));
    if (gql_ast_is_type_definition(d->kind)) {
      gql_str name = gql_ast_name_str(((const gql_ast_type_def *)d)->name);
      uint32_t dummy;
      if (!gql_strmap_get(&c->defined_types, name, &dummy))
        c->type_name_options[c->ntype_name_options++] = name;
      map_put(c, &c->defined_types, name, i);
    }
  }
  /* the first put wins, so walk backwards to keep the last definition */
  for (uint32_t i = c->doc->definitions.count; i-- > 0 && !c->rc;) {
    const gql_ast_node *d = c->doc->definitions.items[i];
    if (gql_ast_is_type_definition(d->kind))
      map_put(c, &c->last_defs,
              gql_ast_name_str(((const gql_ast_type_def *)d)->name), i);
  }
  return c->rc;
}

/* The last definition in the document of type `name`, or NULL. */
static const gql_ast_type_def *last_def(ctx *c, gql_str name) {
  uint32_t i;
  if (!gql_strmap_get(&c->last_defs, name, &i))
    return NULL;
  return (const gql_ast_type_def *)c->doc->definitions.items[i];
}

/* ---- rules on definitions */

static void lone_schema(ctx *c, const gql_ast_schema_def *n) {
  const gql_schema *s = c->schema;
  if (s && (s->ast || s->query != GQL_NO_TYPE || s->mutation != GQL_NO_TYPE ||
            s->subscription != GQL_NO_TYPE)) {
    report(c, &n->h.start, 1,
           "Cannot define a new schema within a schema extension.");
    return;
  }
  if (c->schema_defs > 0)
    report(c, &n->h.start, 1, "Must provide only one schema definition.");
  c->schema_defs++;
}

static void unique_op_types(ctx *c, const gql_ast_schema_def *n) {
  static const char *const names[] = {"query", "mutation", "subscription"};
  for (uint32_t i = 0; i < n->operation_types.count; i++) {
    const gql_ast_operation_type_def *ot = n->operation_types.items[i];
    int op = (int)ot->operation;
    if (c->schema &&
        gql_schema_root_type(c->schema, ot->operation) != GQL_NO_TYPE) {
      report(c, &ot->h.start, 1,
             "Type for %s already defined in the schema. It cannot be "
             "redefined.",
             names[op]);
    } else if (c->op_defined[op]) {
      uint32_t offs[2] = {c->op_defined[op] - 1, ot->h.start};
      report(c, offs, 2, "There can be only one %s type in schema.", names[op]);
    } else {
      c->op_defined[op] = ot->h.start + 1;
    }
  }
}

static void unique_type_names(ctx *c, const gql_ast_type_def *n) {
  gql_str name = gql_ast_name_str(n->name);
  if (c->schema && gql_schema_type(c->schema, name)) {
    report(c, &n->name.start, 1,
           "Type \"%.*s\" already exists in the schema. It cannot also be "
           "defined in this type definition.",
           NAMEF(name));
    return;
  }
  uint32_t prev;
  if (gql_strmap_get(&c->type_names, name, &prev)) {
    uint32_t offs[2] = {prev, n->name.start};
    report(c, offs, 2, "There can be only one type named \"%.*s\".",
           NAMEF(name));
  } else {
    map_put(c, &c->type_names, name, n->name.start);
  }
}

static const gql_type *existing_type(ctx *c, gql_str name) {
  return c->schema ? gql_schema_type(c->schema, name) : NULL;
}

static void unique_enum_values(ctx *c, const gql_ast_type_def *n) {
  gql_str tname = gql_ast_name_str(n->name);
  const gql_type *et = existing_type(c, tname);
  for (uint32_t i = 0; i < n->values.count && !c->rc; i++) {
    const gql_ast_enum_value_def *v = n->values.items[i];
    gql_str vname = gql_ast_name_str(v->name);
    gql_str key = key2(c, tname, '.', vname);
    uint32_t prev;
    if (et && et->kind == GQL_TYPE_ENUM && gql_type_enum_value(et, vname)) {
      report(c, &v->name.start, 1,
             "Enum value \"%.*s.%.*s\" already exists in the schema. It "
             "cannot also be defined in this type extension.",
             NAMEF(tname), NAMEF(vname));
    } else if (gql_strmap_get(&c->enum_values, key, &prev)) {
      uint32_t offs[2] = {prev, v->name.start};
      report(c, offs, 2, "Enum value \"%.*s.%.*s\" can only be defined once.",
             NAMEF(tname), NAMEF(vname));
    } else {
      map_put(c, &c->enum_values, key, v->name.start);
    }
  }
}

static void check_field_name(ctx *c, gql_str tname, const gql_type *et,
                             gql_ast_name fname_node) {
  gql_str fname = gql_ast_name_str(fname_node);
  gql_str key = key2(c, tname, '.', fname);
  bool exists = false;
  if (et && (et->kind == GQL_TYPE_OBJECT || et->kind == GQL_TYPE_INTERFACE))
    exists = gql_type_field(et, fname) != NULL;
  else if (et && et->kind == GQL_TYPE_INPUT_OBJECT)
    exists = gql_type_input_field(et, fname) != NULL;
  uint32_t prev;
  if (exists) {
    report(c, &fname_node.start, 1,
           "Field \"%.*s.%.*s\" already exists in the schema. It cannot also "
           "be defined in this type extension.",
           NAMEF(tname), NAMEF(fname));
  } else if (gql_strmap_get(&c->field_defs, key, &prev)) {
    uint32_t offs[2] = {prev, fname_node.start};
    report(c, offs, 2, "Field \"%.*s.%.*s\" can only be defined once.",
           NAMEF(tname), NAMEF(fname));
  } else {
    map_put(c, &c->field_defs, key, fname_node.start);
  }
}

static void unique_field_defs(ctx *c, const gql_ast_type_def *n) {
  gql_str tname = gql_ast_name_str(n->name);
  const gql_type *et = existing_type(c, tname);
  for (uint32_t i = 0; i < n->fields.count && !c->rc; i++)
    check_field_name(c, tname, et, n->fields.items[i]->name);
  for (uint32_t i = 0; i < n->input_fields.count && !c->rc; i++)
    check_field_name(c, tname, et, n->input_fields.items[i]->name);
}

static void check_arg_defs(ctx *c, gql_str parent,
                           const gql_ast_input_value_defs *args) {
  for (uint32_t i = 0; i < args->count && !c->rc; i++) {
    gql_str name = gql_ast_name_str(args->items[i]->name);
    bool seen_before = false;
    for (uint32_t j = 0; j < i && !seen_before; j++)
      seen_before = gql_str_eq(gql_ast_name_str(args->items[j]->name), name);
    if (seen_before)
      continue;
    uint32_t offs[8], n = 0, total = 0;
    for (uint32_t j = i; j < args->count; j++)
      if (gql_str_eq(gql_ast_name_str(args->items[j]->name), name)) {
        if (n < GQL_ARRAY_LEN(offs))
          offs[n++] = args->items[j]->name.start;
        total++;
      }
    if (total > 1)
      report(c, offs, n, "Argument \"%.*s(%.*s:)\" can only be defined once.",
             NAMEF(parent), NAMEF(name));
  }
}

static void unique_arg_defs_type(ctx *c, const gql_ast_type_def *n) {
  gql_str tname = gql_ast_name_str(n->name);
  for (uint32_t i = 0; i < n->fields.count && !c->rc; i++) {
    const gql_ast_field_def *f = n->fields.items[i];
    check_arg_defs(c, key2(c, tname, '.', gql_ast_name_str(f->name)), &f->args);
  }
}

static void unique_directive_names(ctx *c, const gql_ast_directive_def *n) {
  gql_str name = gql_ast_name_str(n->name);
  if (c->schema && gql_schema_directive(c->schema, name)) {
    report(c, &n->name.start, 1,
           "Directive \"@%.*s\" already exists in the schema. It cannot be "
           "redefined.",
           NAMEF(name));
    return;
  }
  uint32_t prev;
  if (gql_strmap_get(&c->directive_names, name, &prev)) {
    uint32_t offs[2] = {prev, n->name.start};
    report(c, offs, 2, "There can be only one directive named \"@%.*s\".",
           NAMEF(name));
  } else {
    map_put(c, &c->directive_names, name, n->name.start);
  }
}

static const char *ext_kind_name(int kind) {
  switch (kind) {
  case GQL_AST_SCALAR_TYPE_EXTENSION:
    return "scalar";
  case GQL_AST_OBJECT_TYPE_EXTENSION:
    return "object";
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
    return "interface";
  case GQL_AST_UNION_TYPE_EXTENSION:
    return "union";
  case GQL_AST_ENUM_TYPE_EXTENSION:
    return "enum";
  default:
    return "input object";
  }
}

static int def_to_ext(int def_kind) {
  return GQL_AST_SCALAR_TYPE_EXTENSION +
         (def_kind == GQL_AST_SCALAR_TYPE_DEFINITION      ? 0
          : def_kind == GQL_AST_OBJECT_TYPE_DEFINITION    ? 1
          : def_kind == GQL_AST_INTERFACE_TYPE_DEFINITION ? 2
          : def_kind == GQL_AST_UNION_TYPE_DEFINITION     ? 3
          : def_kind == GQL_AST_ENUM_TYPE_DEFINITION      ? 4
                                                          : 5);
}

static int type_to_ext(gql_type_kind k) {
  static const int map[] = {
      GQL_AST_SCALAR_TYPE_EXTENSION,    GQL_AST_OBJECT_TYPE_EXTENSION,
      GQL_AST_INTERFACE_TYPE_EXTENSION, GQL_AST_UNION_TYPE_EXTENSION,
      GQL_AST_ENUM_TYPE_EXTENSION,      GQL_AST_INPUT_OBJECT_TYPE_EXTENSION};
  return map[k];
}

static void possible_type_extensions(ctx *c, const gql_ast_type_def *n) {
  if (gql_error_list_full(c->errors))
    return; /* no suggestions to compute for an error dropped anyway */
  gql_str name = gql_ast_name_str(n->name);
  const gql_ast_type_def *def = last_def(c, name);
  const gql_type *et = existing_type(c, name);
  int expected = -1;
  if (def)
    expected = def_to_ext(def->h.kind);
  else if (et)
    expected = type_to_ext(et->kind);
  if (expected >= 0) {
    if (expected != n->h.kind) {
      uint32_t offs[2] = {def ? def->h.start : n->h.start, n->h.start};
      report(c, def ? offs : offs + 1, def ? 2 : 1,
             "Cannot extend non-%s type \"%.*s\".", ext_kind_name(n->h.kind),
             NAMEF(name));
    }
    return;
  }
  /* suggestions: the document's definitions, then the schema's types */
  uint32_t nopt = 0;
  gql_str *opts = gql_arena_alloc(
      c->arena, (size_t)(c->ntype_name_options + 1) * sizeof *opts);
  if (!opts) {
    c->rc = GQL_ENOMEM;
    return;
  }
  for (uint32_t i = 0; i < c->doc->definitions.count; i++) {
    const gql_ast_node *d = c->doc->definitions.items[i];
    if (gql_ast_is_type_definition(d->kind))
      opts[nopt++] = gql_ast_name_str(((const gql_ast_type_def *)d)->name);
  }
  if (c->schema)
    for (uint32_t i = 0; i < c->schema->ntypes && nopt < c->ntype_name_options;
         i++)
      opts[nopt++] = c->schema->types[i].name;
  gql_str sugg[5];
  uint32_t ns = gql_suggestion_list(name, opts, nopt, sugg, 5, c->arena);
  gql_buf b;
  gql_buf_init(&b, c->alc);
  gql_did_you_mean(&b, NULL, sugg, ns);
  gql_str dym = msg_buf_str(c, &b);
  report(c, &n->name.start, 1,
         "Cannot extend type \"%.*s\" because it is not defined.%.*s",
         NAMEF(name), NAMEF(dym));
}

/* ---- rules on types, directives, values */

static bool is_std_type_name(gql_str name) {
  return gql_schema_is_std_scalar_name(name) ||
         gql_schema_is_introspection_name(name);
}

static void known_type_name(ctx *c, const gql_ast_type *t, bool sdl) {
  if (gql_error_list_full(c->errors))
    return; /* no suggestions to compute for an error dropped anyway */
  gql_str name = gql_ast_name_str(t->name);
  uint32_t dummy;
  if ((c->schema && gql_schema_type(c->schema, name)) ||
      gql_strmap_get(&c->defined_types, name, &dummy))
    return;
  if (sdl && is_std_type_name(name))
    return;
  static const char *const std[] = {"String",
                                    "Int",
                                    "Float",
                                    "Boolean",
                                    "ID",
                                    "__Schema",
                                    "__Type",
                                    "__TypeKind",
                                    "__Field",
                                    "__InputValue",
                                    "__EnumValue",
                                    "__Directive",
                                    "__DirectiveLocation"};
  uint32_t n = 0;
  gql_str *opts = gql_arena_alloc(
      c->arena, (size_t)(c->ntype_name_options + 16) * sizeof *opts);
  if (!opts) {
    c->rc = GQL_ENOMEM;
    return;
  }
  if (sdl)
    for (size_t i = 0; i < GQL_ARRAY_LEN(std); i++)
      opts[n++] = gql_cstr(std[i]);
  for (uint32_t i = 0; i < c->ntype_name_options; i++)
    opts[n++] = c->type_name_options[i];
  gql_str sugg[5];
  uint32_t ns = gql_suggestion_list(name, opts, n, sugg, 5, c->arena);
  gql_buf b;
  gql_buf_init(&b, c->alc);
  gql_did_you_mean(&b, NULL, sugg, ns);
  gql_str dym = msg_buf_str(c, &b);
  report(c, &t->h.start, 1, "Unknown type \"%.*s\".%.*s", NAMEF(name),
         NAMEF(dym));
}

static void visit_type(ctx *c, const gql_ast_type *t, bool sdl) {
  while (t->h.kind != GQL_AST_NAMED_TYPE)
    t = t->of;
  if (on(c, R_KNOWN_TYPE_NAMES))
    known_type_name(c, t, sdl);
}

static const dir_info *find_dir(ctx *c, gql_str name) {
  uint32_t idx;
  return gql_strmap_get(&c->dir_map, name, &idx) ? &c->dirs[idx] : NULL;
}

static void unique_args(ctx *c, const gql_ast_arguments *args) {
  for (uint32_t i = 0; i < args->count && !c->rc; i++) {
    gql_str name = gql_ast_name_str(args->items[i]->name);
    bool seen_before = false;
    for (uint32_t j = 0; j < i && !seen_before; j++)
      seen_before = gql_str_eq(gql_ast_name_str(args->items[j]->name), name);
    if (seen_before)
      continue;
    uint32_t offs[8], n = 0, total = 0;
    for (uint32_t j = i; j < args->count; j++)
      if (gql_str_eq(gql_ast_name_str(args->items[j]->name), name)) {
        if (n < GQL_ARRAY_LEN(offs))
          offs[n++] = args->items[j]->name.start;
        total++;
      }
    if (total > 1)
      report(c, offs, n, "There can be only one argument named \"%.*s\".",
             NAMEF(name));
  }
}

static void visit_value(ctx *c, const gql_ast_value *v, int depth) {
  if (!v || depth > 512)
    return;
  if (v->h.kind == GQL_AST_LIST_VALUE) {
    for (uint32_t i = 0; i < v->u.list.count; i++)
      visit_value(c, v->u.list.items[i], depth + 1);
  } else if (v->h.kind == GQL_AST_OBJECT_VALUE) {
    const gql_ast_arguments *f = &v->u.fields;
    for (uint32_t i = 0; i < f->count && !c->rc; i++) {
      if (on(c, R_UNIQUE_INPUT_FIELD_NAMES)) {
        gql_str name = gql_ast_name_str(f->items[i]->name);
        for (uint32_t j = 0; j < i; j++)
          if (gql_str_eq(gql_ast_name_str(f->items[j]->name), name)) {
            /* the first earlier one (graphql-js keeps the first) */
            uint32_t offs[2] = {f->items[j]->name.start,
                                f->items[i]->name.start};
            report(c, offs, 2,
                   "There can be only one input field named \"%.*s\".",
                   NAMEF(name));
            break;
          }
      }
      visit_value(c, f->items[i]->value, depth + 1);
    }
  }
}

static void known_arg_names(ctx *c, const gql_ast_directive *d,
                            const dir_info *di) {
  if (gql_error_list_full(c->errors))
    return; /* no suggestions to compute for an error dropped anyway */
  gql_str dname = gql_ast_name_str(d->name);
  uint32_t nknown = 0;
  gql_str known[64];
  if (di->ast_dir) {
    for (uint32_t i = 0; i < di->ast_dir->args.count && nknown < 64; i++)
      known[nknown++] = gql_ast_name_str(di->ast_dir->args.items[i]->name);
  } else {
    for (uint32_t i = 0; i < di->schema_dir->nargs && nknown < 64; i++)
      known[nknown++] = di->schema_dir->args[i].name;
  }
  for (uint32_t i = 0; i < d->args.count && !c->rc; i++) {
    const gql_ast_argument *a = d->args.items[i];
    gql_str an = gql_ast_name_str(a->name);
    bool found = false;
    for (uint32_t k = 0; k < nknown && !found; k++)
      found = gql_str_eq(known[k], an);
    if (found)
      continue;
    gql_str sugg[5];
    uint32_t ns = gql_suggestion_list(an, known, nknown, sugg, 5, c->arena);
    gql_buf b;
    gql_buf_init(&b, c->alc);
    gql_did_you_mean(&b, NULL, sugg, ns);
    gql_str dym = msg_buf_str(c, &b);
    report(c, &a->h.start, 1,
           "Unknown argument \"%.*s\" on directive \"@%.*s\".%.*s", NAMEF(an),
           NAMEF(dname), NAMEF(dym));
  }
}

static void print_ast_type(gql_buf *b, const gql_ast_type *t) {
  if (t->h.kind == GQL_AST_NAMED_TYPE) {
    gql_buf_put_str(b, gql_ast_name_str(t->name));
  } else if (t->h.kind == GQL_AST_LIST_TYPE) {
    gql_buf_putc(b, '[');
    print_ast_type(b, t->of);
    gql_buf_putc(b, ']');
  } else {
    print_ast_type(b, t->of);
    gql_buf_putc(b, '!');
  }
}

static bool arg_given(const gql_ast_directive *d, gql_str name) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (gql_str_eq(gql_ast_name_str(d->args.items[i]->name), name))
      return true;
  return false;
}

static void provided_required_args(ctx *c, const gql_ast_directive *d,
                                   const dir_info *di) {
  gql_str dname = gql_ast_name_str(d->name);
  if (di->ast_dir) {
    const gql_ast_input_value_defs *args = &di->ast_dir->args;
    for (uint32_t i = 0; i < args->count && !c->rc; i++) {
      const gql_ast_input_value_def *a = args->items[i];
      if (a->type->h.kind != GQL_AST_NON_NULL_TYPE || a->default_value)
        continue;
      gql_str an = gql_ast_name_str(a->name);
      bool dup = false; /* keyMap keeps the last of equal names */
      for (uint32_t j = i + 1; j < args->count; j++)
        dup |= gql_str_eq(gql_ast_name_str(args->items[j]->name), an);
      if (dup || arg_given(d, an))
        continue;
      gql_buf b;
      gql_buf_init(&b, c->alc);
      print_ast_type(&b, a->type);
      gql_str ts = msg_buf_str(c, &b);
      report(c, &d->h.start, 1,
             "Directive \"@%.*s\" argument \"%.*s\" of type \"%.*s\" is "
             "required, but it was not provided.",
             NAMEF(dname), NAMEF(an), NAMEF(ts));
    }
    return;
  }
  const gql_directive *sd = di->schema_dir;
  const gql_schema *s = c->dir_schema;
  for (uint32_t i = 0; i < sd->nargs && !c->rc; i++) {
    const gql_input_value *a = &sd->args[i];
    if (!gql_type_ref_is_non_null(a->type) || a->default_value)
      continue;
    if (arg_given(d, a->name))
      continue;
    gql_buf b;
    gql_buf_init(&b, c->alc);
    if (s)
      gql_type_ref_print(s, a->type, &b);
    else if (a->ast)
      print_ast_type(&b, a->ast->type);
    gql_str ts = msg_buf_str(c, &b);
    report(c, &d->h.start, 1,
           "Directive \"@%.*s\" argument \"%.*s\" of type \"%.*s\" is "
           "required, but it was not provided.",
           NAMEF(dname), NAMEF(a->name), NAMEF(ts));
  }
}

/* UniqueDirectivesPerLocation at a node holding directives. `seen_key` is
 * the type name for type definitions / extensions, "" + schema for the
 * schema, ptr NULL for any other node. */
static void unique_dirs_per_loc(ctx *c, const gql_ast_directives *dirs,
                                int scope, gql_str type_name) {
  for (uint32_t i = 0; i < dirs->count && !c->rc; i++) {
    const gql_ast_directive *d = dirs->items[i];
    gql_str name = gql_ast_name_str(d->name);
    const dir_info *di = find_dir(c, name);
    if (!di || di->repeatable)
      continue;
    uint32_t prev = UINT32_MAX;
    if (scope == 0) {
      for (uint32_t j = 0; j < i && prev == UINT32_MAX; j++)
        if (gql_str_eq(gql_ast_name_str(dirs->items[j]->name), name))
          prev = dirs->items[j]->h.start;
    } else {
      gql_strmap *m = scope == 1 ? &c->schema_dirs : &c->type_dirs;
      gql_str key = scope == 1 ? name : key2(c, type_name, '@', name);
      if (!gql_strmap_get(m, key, &prev)) {
        prev = UINT32_MAX;
        map_put(c, m, key, d->h.start);
      }
    }
    if (prev != UINT32_MAX) {
      uint32_t offs[2] = {prev, d->h.start};
      report(c, offs, 2,
             "The directive \"@%.*s\" can only be used once at this "
             "location.",
             NAMEF(name));
    }
  }
}

static void visit_directives(ctx *c, const gql_ast_directives *dirs,
                             gql_directive_location loc) {
  for (uint32_t i = 0; i < dirs->count && !c->rc; i++) {
    const gql_ast_directive *d = dirs->items[i];
    gql_str name = gql_ast_name_str(d->name);
    const dir_info *di = find_dir(c, name);
    if (on(c, R_KNOWN_DIRECTIVES)) {
      if (!di)
        report(c, &d->h.start, 1, "Unknown directive \"@%.*s\".", NAMEF(name));
      else if (!((di->location_mask >> loc) & 1u))
        report(c, &d->h.start, 1, "Directive \"@%.*s\" may not be used on %s.",
               NAMEF(name), gql_directive_location_name(loc));
    }
    if (on(c, R_KNOWN_ARG_NAMES_ON_DIRECTIVES) && di)
      known_arg_names(c, d, di);
    if (on(c, R_UNIQUE_ARG_NAMES))
      unique_args(c, &d->args);
    for (uint32_t j = 0; j < d->args.count; j++)
      visit_value(c, d->args.items[j]->value, 0);
    if (on(c, R_PROVIDED_REQUIRED_ARGS_ON_DIRECTIVES) && di)
      provided_required_args(c, d, di);
  }
}

/* A node holding directives: UniqueDirectivesPerLocation, then the
 * directives themselves are visited by the caller at the right time. */
static void holder(ctx *c, const gql_ast_directives *dirs, int scope,
                   gql_str type_name) {
  if (on(c, R_UNIQUE_DIRECTIVES_PER_LOC))
    unique_dirs_per_loc(c, dirs, scope, type_name);
}

static void visit_input_value(ctx *c, const gql_ast_input_value_def *v,
                              gql_directive_location loc) {
  holder(c, &v->directives, 0, (gql_str){0});
  visit_type(c, v->type, true);
  visit_value(c, v->default_value, 0);
  visit_directives(c, &v->directives, loc);
}

static void visit_fields(ctx *c, const gql_ast_type_def *n) {
  for (uint32_t i = 0; i < n->fields.count && !c->rc; i++) {
    const gql_ast_field_def *f = n->fields.items[i];
    holder(c, &f->directives, 0, (gql_str){0});
    for (uint32_t j = 0; j < f->args.count; j++)
      visit_input_value(c, f->args.items[j], GQL_DIRLOC_ARGUMENT_DEFINITION);
    visit_type(c, f->type, true);
    visit_directives(c, &f->directives, GQL_DIRLOC_FIELD_DEFINITION);
  }
}

static gql_directive_location type_location(int kind) {
  switch (kind) {
  case GQL_AST_SCALAR_TYPE_DEFINITION:
  case GQL_AST_SCALAR_TYPE_EXTENSION:
    return GQL_DIRLOC_SCALAR;
  case GQL_AST_OBJECT_TYPE_DEFINITION:
  case GQL_AST_OBJECT_TYPE_EXTENSION:
    return GQL_DIRLOC_OBJECT;
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
  case GQL_AST_INTERFACE_TYPE_EXTENSION:
    return GQL_DIRLOC_INTERFACE;
  case GQL_AST_UNION_TYPE_DEFINITION:
  case GQL_AST_UNION_TYPE_EXTENSION:
    return GQL_DIRLOC_UNION;
  case GQL_AST_ENUM_TYPE_DEFINITION:
  case GQL_AST_ENUM_TYPE_EXTENSION:
    return GQL_DIRLOC_ENUM;
  default:
    return GQL_DIRLOC_INPUT_OBJECT;
  }
}

static void visit_type_def(ctx *c, const gql_ast_type_def *n) {
  int k = n->h.kind;
  bool ext = gql_ast_is_type_extension(k);
  bool is_enum =
      k == GQL_AST_ENUM_TYPE_DEFINITION || k == GQL_AST_ENUM_TYPE_EXTENSION;
  bool has_fields = k == GQL_AST_OBJECT_TYPE_DEFINITION ||
                    k == GQL_AST_OBJECT_TYPE_EXTENSION ||
                    k == GQL_AST_INTERFACE_TYPE_DEFINITION ||
                    k == GQL_AST_INTERFACE_TYPE_EXTENSION;
  bool is_input = k == GQL_AST_INPUT_OBJECT_TYPE_DEFINITION ||
                  k == GQL_AST_INPUT_OBJECT_TYPE_EXTENSION;
  if (!ext && on(c, R_UNIQUE_TYPE_NAMES))
    unique_type_names(c, n);
  if (is_enum && on(c, R_UNIQUE_ENUM_VALUES))
    unique_enum_values(c, n);
  if ((has_fields || is_input) && on(c, R_UNIQUE_FIELD_DEFS))
    unique_field_defs(c, n);
  if (has_fields && on(c, R_UNIQUE_ARG_DEFS))
    unique_arg_defs_type(c, n);
  holder(c, &n->directives, 2, gql_ast_name_str(n->name));
  if (ext && on(c, R_POSSIBLE_TYPE_EXTENSIONS))
    possible_type_extensions(c, n);
  for (uint32_t i = 0; i < n->interfaces.count; i++)
    visit_type(c, n->interfaces.items[i], true);
  visit_directives(c, &n->directives, type_location(k));
  if (has_fields)
    visit_fields(c, n);
  for (uint32_t i = 0; i < n->members.count; i++)
    visit_type(c, n->members.items[i], true);
  for (uint32_t i = 0; i < n->values.count && !c->rc; i++) {
    const gql_ast_enum_value_def *v = n->values.items[i];
    holder(c, &v->directives, 0, (gql_str){0});
    visit_directives(c, &v->directives, GQL_DIRLOC_ENUM_VALUE);
  }
  /* graphql-js 16 calls input values of an input object *extension*
   * argument definitions */
  gql_directive_location loc = k == GQL_AST_INPUT_OBJECT_TYPE_DEFINITION
                                   ? GQL_DIRLOC_INPUT_FIELD_DEFINITION
                                   : GQL_DIRLOC_ARGUMENT_DEFINITION;
  for (uint32_t i = 0; i < n->input_fields.count; i++)
    visit_input_value(c, n->input_fields.items[i], loc);
}

static void visit_schema_def(ctx *c, const gql_ast_schema_def *n) {
  if (n->h.kind == GQL_AST_SCHEMA_DEFINITION && on(c, R_LONE_SCHEMA))
    lone_schema(c, n);
  if (on(c, R_UNIQUE_OP_TYPES))
    unique_op_types(c, n);
  holder(c, &n->directives, 1, (gql_str){0});
  visit_directives(c, &n->directives, GQL_DIRLOC_SCHEMA);
  for (uint32_t i = 0; i < n->operation_types.count; i++)
    visit_type(c, n->operation_types.items[i]->type, true);
}

static void visit_directive_def(ctx *c, const gql_ast_directive_def *n) {
  if (on(c, R_UNIQUE_ARG_DEFS)) {
    gql_str parent = key2(c, (gql_str){"", 0}, '@', gql_ast_name_str(n->name));
    check_arg_defs(c, parent, &n->args);
  }
  if (on(c, R_UNIQUE_DIRECTIVE_NAMES))
    unique_directive_names(c, n);
  for (uint32_t i = 0; i < n->args.count; i++)
    visit_input_value(c, n->args.items[i], GQL_DIRLOC_ARGUMENT_DEFINITION);
}

/* ---- executable definitions inside an SDL document */

static void visit_selection_set(ctx *c, const gql_ast_selection_set *ss,
                                int depth);

static void visit_selection(ctx *c, const gql_ast_selection *sel, int depth) {
  switch (sel->h.kind) {
  case GQL_AST_FIELD:
    holder(c, &sel->directives, 0, (gql_str){0});
    if (on(c, R_UNIQUE_ARG_NAMES))
      unique_args(c, &sel->args);
    for (uint32_t i = 0; i < sel->args.count; i++)
      visit_value(c, sel->args.items[i]->value, 0);
    visit_directives(c, &sel->directives, GQL_DIRLOC_FIELD);
    break;
  case GQL_AST_FRAGMENT_SPREAD:
    holder(c, &sel->directives, 0, (gql_str){0});
    visit_directives(c, &sel->directives, GQL_DIRLOC_FRAGMENT_SPREAD);
    break;
  default:
    holder(c, &sel->directives, 0, (gql_str){0});
    if (sel->type_condition)
      visit_type(c, sel->type_condition, false);
    visit_directives(c, &sel->directives, GQL_DIRLOC_INLINE_FRAGMENT);
    break;
  }
  if (sel->selection_set)
    visit_selection_set(c, sel->selection_set, depth + 1);
}

static void visit_selection_set(ctx *c, const gql_ast_selection_set *ss,
                                int depth) {
  if (depth > 512)
    return;
  for (uint32_t i = 0; i < ss->selections.count && !c->rc; i++)
    visit_selection(c, ss->selections.items[i], depth);
}

static void visit_variables(ctx *c, const gql_ast_variable_definitions *vars) {
  for (uint32_t i = 0; i < vars->count; i++) {
    const gql_ast_variable_definition *v = vars->items[i];
    holder(c, &v->directives, 0, (gql_str){0});
    visit_type(c, v->type, false);
    visit_value(c, v->default_value, 0);
    visit_directives(c, &v->directives, GQL_DIRLOC_VARIABLE_DEFINITION);
  }
}

static void visit_executable(ctx *c, const gql_ast_node *n) {
  if (n->kind == GQL_AST_OPERATION_DEFINITION) {
    const gql_ast_operation *op = (const gql_ast_operation *)n;
    holder(c, &op->directives, 0, (gql_str){0});
    visit_variables(c, &op->variables);
    visit_directives(c, &op->directives,
                     op->operation == GQL_OP_QUERY ? GQL_DIRLOC_QUERY
                     : op->operation == GQL_OP_MUTATION
                         ? GQL_DIRLOC_MUTATION
                         : GQL_DIRLOC_SUBSCRIPTION);
    if (op->selection_set)
      visit_selection_set(c, op->selection_set, 0);
  } else {
    const gql_ast_fragment *f = (const gql_ast_fragment *)n;
    holder(c, &f->directives, 0, (gql_str){0});
    if (f->type_condition)
      visit_type(c, f->type_condition, false);
    visit_directives(c, &f->directives, GQL_DIRLOC_FRAGMENT_DEFINITION);
    if (f->selection_set)
      visit_selection_set(c, f->selection_set, 0);
  }
}

/* ---- entry */

static int rule_mask(const char *rule, uint32_t *mask) {
  if (!rule) {
    *mask = (1u << R_COUNT) - 1;
    return 0;
  }
  for (int i = 0; i < R_COUNT; i++)
    if (strcmp(rule, rule_names[i]) == 0) {
      *mask = 1u << i;
      return 0;
    }
  return GQL_ENOTFOUND;
}

bool gql_sdl_rule_exists(const char *rule) {
  uint32_t m;
  return rule_mask(rule, &m) == 0;
}

int gql_sdl_validate_alc(const gql_document *doc, gql_str source,
                         const gql_schema *base, const gql_schema *std,
                         const char *rule, gql_error_list *errors,
                         const gql_allocator *alc) {
  ctx c = {.doc = doc, .src = source, .schema = base, .errors = errors};
  if (rule_mask(rule, &c.rules))
    return GQL_ENOTFOUND;
  c.alc = alc;
  c.arena = gql_arena_new(alc);
  if (!c.arena)
    return GQL_ENOMEM;
  gql_strmap *maps[] = {&c.dir_map,    &c.type_names,      &c.enum_values,
                        &c.field_defs, &c.directive_names, &c.defined_types,
                        &c.type_dirs,  &c.schema_dirs,     &c.last_defs};
  for (size_t i = 0; i < GQL_ARRAY_LEN(maps); i++)
    gql_strmap_init(maps[i], alc);
  assert(base || std); /* the specified directives come from somewhere */
  int rc = setup(&c, std);
  for (uint32_t i = 0; i < doc->definitions.count && !rc && !c.rc &&
                       !gql_error_list_full(errors);
       i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (gql_ast_is_type_definition(n->kind) ||
        gql_ast_is_type_extension(n->kind))
      visit_type_def(&c, (const gql_ast_type_def *)n);
    else if (n->kind == GQL_AST_SCHEMA_DEFINITION ||
             n->kind == GQL_AST_SCHEMA_EXTENSION)
      visit_schema_def(&c, (const gql_ast_schema_def *)n);
    else if (n->kind == GQL_AST_DIRECTIVE_DEFINITION)
      visit_directive_def(&c, (const gql_ast_directive_def *)n);
    else if (gql_ast_is_executable_definition(n->kind))
      visit_executable(&c, n);
  }
  if (!rc)
    rc = c.rc;
  for (size_t i = 0; i < GQL_ARRAY_LEN(maps); i++)
    gql_strmap_free(maps[i]);
  gql_arena_free(c.arena);
  return rc;
}
