/*
 * SDL → schema, as graphql-js 16's buildASTSchema / extendSchema do.
 *
 * A schema is built from a list of documents: the built-in SDL, then the
 * SDL texts in order (an extended schema is its base's texts followed by the
 * extension). Types first get temporary indices (built-ins first, then
 * definitions in document order); once every reference is resolved they
 * are put in graphql-js's type-map order (see schema.h) and renumbered.
 */
#include "internal.h"

typedef struct builder {
  gql_schema *s;
  gql_error_list *errors;
  gql_type *types; /* temporary indices */
  uint32_t ntypes, cap;
  uint32_t *ext_cap;       /* per type: capacity of extensions */
  uint8_t *in_config;      /* per type: already in config */
  uint32_t nbuiltin_types; /* temporary indices [0, nbuiltin_types) */
  gql_strmap tmap;         /* name → temporary index */
  uint32_t *config;        /* config.types order (temporary indices) */
  uint32_t nconfig, config_cap;
  const gql_ast_type_def **exts; /* type extensions in document order */
  uint32_t nexts, exts_cap;
  const gql_ast_directive_def **dirdefs; /* user directive definitions */
  uint32_t ndirdefs, dirdefs_cap;
  uint32_t first_doc_dirdefs;
  const gql_ast_directive_def *std_dirdefs[8];
  uint32_t nstd_dirdefs;
  /* added after all others unless defined (@defer, @stream) */
  const gql_ast_directive_def *late_dirdefs[2];
  uint32_t nlate_dirdefs;
  const gql_ast_type_def *meta;
  bool first_doc_has_schema_def;
  uint32_t schema_ext_cap;
  int rc;
} builder;

gql_str gql_schema_intern(gql_schema *s, gql_str name) {
  uint32_t idx;
  if (gql_strmap_get(&s->names, name, &idx)) {
    /* The map's keys are the interned copies; find it again by lookup of
     * the stored pointer, kept in the value's slot array. */
    return s->name_list[idx];
  }
  char *copy = gql_arena_strndup(s->arena, name.ptr ? name.ptr : "", name.len);
  if (!copy)
    return (gql_str){NULL, 0};
  if (s->nnames == s->names_cap) {
    uint32_t ncap = s->names_cap ? s->names_cap * 2 : 64;
    gql_str *l =
        gql_arena_grow(s->arena, s->name_list, s->names_cap, ncap, sizeof *l);
    if (!l)
      return (gql_str){NULL, 0};
    s->name_list = l;
    s->names_cap = ncap;
  }
  gql_str interned = {copy, name.len};
  if (gql_strmap_put(&s->names, interned, s->nnames) < 0)
    return (gql_str){NULL, 0};
  s->name_list[s->nnames++] = interned;
  return interned;
}

static gql_str intern(builder *b, gql_str name) {
  gql_str r = gql_schema_intern(b->s, name);
  if (!r.ptr)
    b->rc = GQL_ENOMEM;
  return r;
}

static gql_str desc_of(const gql_ast_value *d) {
  return d ? d->u.string.value : (gql_str){NULL, 0};
}

/* getDirectiveValues for a directive with one String argument `arg`:
 * *present says whether the directive is there; the result is the string
 * (default `dflt` when the argument is absent; ptr NULL when null or not a
 * string). */
static gql_str directive_string(const gql_ast_directives *dirs,
                                const char *dname, const char *arg,
                                const char *dflt, bool *present) {
  const gql_ast_directive *d = gql_ast_find_directive(dirs, dname);
  *present = d != NULL;
  if (!d)
    return (gql_str){NULL, 0};
  const gql_ast_argument *a = gql_ast_find_argument(&d->args, arg);
  if (!a)
    return dflt ? gql_cstr(dflt) : (gql_str){NULL, 0};
  if (a->value->h.kind == GQL_AST_STRING_VALUE)
    return a->value->u.string.value;
  return (gql_str){NULL, 0};
}

static gql_str deprecation_of(const gql_ast_directives *dirs) {
  bool present;
  return directive_string(dirs, "deprecated", "reason", "No longer supported",
                          &present);
}

/* ---- registration */

static uint32_t new_type(builder *b, const gql_ast_type_def *def,
                         bool builtin) {
  gql_str name = intern(b, gql_ast_name_str(def->name));
  if (b->rc)
    return GQL_NO_TYPE;
  if (b->ntypes == b->cap) {
    uint32_t ncap = b->cap ? b->cap * 2 : 32;
    gql_type *t =
        gql_arena_grow(b->s->arena, b->types, b->cap, ncap, sizeof *t);
    uint32_t *e =
        gql_arena_grow(b->s->arena, b->ext_cap, b->cap, ncap, sizeof *e);
    uint8_t *ic =
        gql_arena_grow(b->s->arena, b->in_config, b->cap, ncap, sizeof *ic);
    if (!t || !e || !ic) {
      b->rc = GQL_ENOMEM;
      return GQL_NO_TYPE;
    }
    b->types = t;
    b->ext_cap = e;
    b->in_config = ic;
    b->cap = ncap;
  }
  uint32_t id = b->ntypes++;
  gql_type *t = &b->types[id];
  memset(t, 0, sizeof *t);
  b->ext_cap[id] = 0;
  b->in_config[id] = 0;
  switch (def->h.kind) {
  case GQL_AST_SCALAR_TYPE_DEFINITION:
    t->kind = GQL_TYPE_SCALAR;
    break;
  case GQL_AST_OBJECT_TYPE_DEFINITION:
    t->kind = GQL_TYPE_OBJECT;
    break;
  case GQL_AST_INTERFACE_TYPE_DEFINITION:
    t->kind = GQL_TYPE_INTERFACE;
    break;
  case GQL_AST_UNION_TYPE_DEFINITION:
    t->kind = GQL_TYPE_UNION;
    break;
  case GQL_AST_ENUM_TYPE_DEFINITION:
    t->kind = GQL_TYPE_ENUM;
    break;
  default:
    t->kind = GQL_TYPE_INPUT_OBJECT;
    break;
  }
  t->name = name;
  t->builtin = builtin;
  t->ast = builtin ? NULL : def;
  t->description = desc_of(def->description);
  t->exec_data = (void *)def; /* the definition, until the build is done */
  if (gql_strmap_put(&b->tmap, name, id) < 0)
    b->rc = GQL_ENOMEM;
  return id;
}

static void push_config(builder *b, uint32_t id) {
  if (b->in_config[id])
    return;
  b->in_config[id] = 1;
  if (!GQL_ARRAY_PUSH(b->s->arena, b->config, b->nconfig, b->config_cap, id)) {
    b->rc = GQL_ENOMEM;
    return;
  }
}

static void register_builtins(builder *b, const gql_document *doc) {
  for (uint32_t i = 0; i < doc->definitions.count && !b->rc; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (n->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      if (b->nstd_dirdefs < GQL_ARRAY_LEN(b->std_dirdefs))
        b->std_dirdefs[b->nstd_dirdefs++] = (const gql_ast_directive_def *)n;
    } else if (gql_ast_is_type_definition(n->kind)) {
      const gql_ast_type_def *def = (const gql_ast_type_def *)n;
      if (gql_str_eq_cstr(gql_ast_name_str(def->name), "__Meta"))
        b->meta = def;
      else
        new_type(b, def, true);
    }
  }
  b->nbuiltin_types = b->ntypes;
}

static void register_doc(builder *b, const gql_document *doc, bool first) {
  gql_schema *s = b->s;
  for (uint32_t i = 0; i < doc->definitions.count && !b->rc; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (gql_ast_is_type_definition(n->kind)) {
      const gql_ast_type_def *def = (const gql_ast_type_def *)n;
      uint32_t id;
      if (gql_strmap_get(&b->tmap, gql_ast_name_str(def->name), &id)) {
        if (id < b->nbuiltin_types)
          push_config(b, id);
        continue; /* a second definition: an SDL error, ignored here */
      }
      id = new_type(b, def, false);
      if (!b->rc)
        push_config(b, id);
    } else if (gql_ast_is_type_extension(n->kind)) {
      if (!GQL_ARRAY_PUSH(b->s->arena, b->exts, b->nexts, b->exts_cap,
                          (const gql_ast_type_def *)n)) {
        b->rc = GQL_ENOMEM;
        return;
      }
    } else if (n->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      if (!GQL_ARRAY_PUSH(b->s->arena, b->dirdefs, b->ndirdefs, b->dirdefs_cap,
                          (const gql_ast_directive_def *)n)) {
        b->rc = GQL_ENOMEM;
        return;
      }
    } else if (n->kind == GQL_AST_SCHEMA_DEFINITION) {
      s->ast = (const gql_ast_schema_def *)n;
      if (first)
        b->first_doc_has_schema_def = true;
    } else if (n->kind == GQL_AST_SCHEMA_EXTENSION) {
      const gql_ast_schema_def **e = (const gql_ast_schema_def **)s->extensions;
      if (!GQL_ARRAY_PUSH(b->s->arena, e, s->nextensions, b->schema_ext_cap,
                          (const gql_ast_schema_def *)n)) {
        b->rc = GQL_ENOMEM;
        return;
      }
      s->extensions = e;
    }
  }
  if (first) {
    b->first_doc_dirdefs = b->ndirdefs;
  }
}

static void attach_extensions(builder *b) {
  for (uint32_t i = 0; i < b->nexts && !b->rc; i++) {
    const gql_ast_type_def *e = b->exts[i];
    uint32_t id;
    if (!gql_strmap_get(&b->tmap, gql_ast_name_str(e->name), &id) ||
        id < b->nbuiltin_types)
      continue; /* unknown (an SDL error) or built-in (ignored) */
    gql_type *t = &b->types[id];
    const gql_ast_type_def **arr = (const gql_ast_type_def **)t->extensions;
    if (!GQL_ARRAY_PUSH(b->s->arena, arr, t->nextensions, b->ext_cap[id], e)) {
      b->rc = GQL_ENOMEM;
      return;
    }
    t->extensions = arr;
  }
}

/* ---- contents */

static void resolve_ref(builder *b, const gql_ast_type *at, gql_type_ref *out) {
  char small[32];
  char *mods = small;
  uint32_t n = 0;
  for (const gql_ast_type *t = at; t->h.kind != GQL_AST_NAMED_TYPE; t = t->of)
    n++;
  if (n > sizeof small && !(mods = gql_arena_alloc(b->s->arena, n))) {
    b->rc = GQL_ENOMEM;
    return;
  }
  n = 0;
  while (at->h.kind != GQL_AST_NAMED_TYPE) {
    mods[n++] = at->h.kind == GQL_AST_LIST_TYPE ? 'L' : '!';
    at = at->of;
  }
  uint32_t id;
  if (!gql_strmap_get(&b->tmap, gql_ast_name_str(at->name), &id)) {
    if (b->errors)
      gql_error_list_addf(b->errors, (gql_str){0}, NULL, 0,
                          "Unknown type: \"%.*s\".", (int)at->name.len,
                          at->name.ptr);
    b->rc = GQL_ESCHEMA;
    return;
  }
  gql_str m = intern(b, (gql_str){mods, n});
  *out = (gql_type_ref){id, n, m.ptr};
}

static void build_input_values(builder *b, const gql_ast_input_value_defs *defs,
                               gql_input_value **out, uint32_t *nout) {
  *nout = 0;
  if (!defs->count)
    return;
  gql_input_value *v =
      gql_arena_alloc(b->s->arena, (size_t)defs->count * sizeof *v);
  if (!v) {
    b->rc = GQL_ENOMEM;
    return;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < defs->count && !b->rc; i++) {
    const gql_ast_input_value_def *d = defs->items[i];
    gql_str name = intern(b, gql_ast_name_str(d->name));
    bool dup = false;
    for (uint32_t j = 0; j < n; j++)
      dup |= v[j].name.ptr == name.ptr;
    if (dup)
      continue;
    gql_input_value *iv = &v[n++];
    memset(iv, 0, sizeof *iv);
    iv->name = name;
    iv->description = desc_of(d->description);
    iv->default_value = d->default_value;
    iv->deprecation_reason = deprecation_of(&d->directives);
    iv->ast = d;
    resolve_ref(b, d->type, &iv->type);
  }
  *out = v;
  *nout = n;
}

/* Whether t has a field of interned name `name` already. Every field name
 * is interned (one copy per name), so the pointers tell: a root type of
 * thousands of fields (a federated supergraph's Query) was checked with a
 * string compare against every earlier field, quadratic in memcmp. */
static bool has_interned_field(const gql_type *t, gql_str name) {
  for (uint32_t i = 0; i < t->nfields; i++)
    if (t->fields[i].name.ptr == name.ptr)
      return true;
  return false;
}

static void add_fields(builder *b, gql_type *t, const gql_ast_type_def *def,
                       uint32_t *cap) {
  /* room for the definition's fields at once: grown by doubling, the
   * arrays left behind in the arena were 31 MB of a large supergraph's
   * API schema (bench/gateway-scale) */
  if (t->nfields + def->fields.count > *cap) {
    uint32_t ncap = t->nfields + def->fields.count;
    gql_field *f =
        gql_arena_grow(b->s->arena, t->fields, t->nfields, ncap, sizeof *f);
    if (!f) {
      b->rc = GQL_ENOMEM;
      return;
    }
    t->fields = f;
    *cap = ncap;
  }
  for (uint32_t i = 0; i < def->fields.count && !b->rc; i++) {
    const gql_ast_field_def *fd = def->fields.items[i];
    gql_str name = intern(b, gql_ast_name_str(fd->name));
    if (b->rc || has_interned_field(t, name))
      continue;
    gql_field f = {0};
    f.name = name;
    f.description = desc_of(fd->description);
    f.deprecation_reason = deprecation_of(&fd->directives);
    f.ast = fd;
    resolve_ref(b, fd->type, &f.type);
    build_input_values(b, &fd->args, &f.args, &f.nargs);
    if (!GQL_ARRAY_PUSH(b->s->arena, t->fields, t->nfields, *cap, f)) {
      b->rc = GQL_ENOMEM;
      return;
    }
  }
}

static void add_named(builder *b, uint32_t **arr, uint32_t *count,
                      uint32_t *cap, const gql_ast_type *const *items,
                      uint32_t n) {
  for (uint32_t i = 0; i < n && !b->rc; i++) {
    gql_type_ref r;
    resolve_ref(b, items[i], &r);
    if (b->rc)
      return;
    if (!GQL_ARRAY_PUSH(b->s->arena, *arr, *count, *cap, r.type)) {
      b->rc = GQL_ENOMEM;
      return;
    }
  }
}

static void add_values(builder *b, gql_type *t, const gql_ast_type_def *def,
                       uint32_t *cap) {
  for (uint32_t i = 0; i < def->values.count && !b->rc; i++) {
    const gql_ast_enum_value_def *vd = def->values.items[i];
    gql_str name = intern(b, gql_ast_name_str(vd->name));
    if (b->rc || gql_type_enum_value(t, name))
      continue;
    gql_enum_value v = {name, desc_of(vd->description),
                        deprecation_of(&vd->directives), vd};
    if (!GQL_ARRAY_PUSH(b->s->arena, t->values, t->nvalues, *cap, v)) {
      b->rc = GQL_ENOMEM;
      return;
    }
  }
}

static void add_input_fields(builder *b, gql_type *t,
                             const gql_ast_type_def *def, uint32_t *cap) {
  gql_input_value *v;
  uint32_t n;
  build_input_values(b, &def->input_fields, &v, &n);
  for (uint32_t i = 0; i < n && !b->rc; i++) {
    if (gql_type_input_field(t, v[i].name))
      continue;
    if (!GQL_ARRAY_PUSH(b->s->arena, t->input_fields, t->ninput_fields, *cap,
                        v[i])) {
      b->rc = GQL_ENOMEM;
      return;
    }
  }
}

/* Which source a name (a pointer into its text) comes from. */
static uint32_t doc_index(const gql_schema *s, const char *ptr) {
  for (uint32_t i = 0; i < s->nsources; i++) {
    gql_str t = s->sources[i].text;
    if (ptr >= t.ptr && ptr <= t.ptr + t.len)
      return i;
  }
  return UINT32_MAX;
}

static void build_type(builder *b, uint32_t id) {
  gql_type *t = &b->types[id];
  const gql_ast_type_def *def = t->exec_data;
  t->exec_data = NULL;
  uint32_t c1 = 0, c2 = 0;
  for (uint32_t k = 0; k <= t->nextensions && !b->rc; k++) {
    const gql_ast_type_def *d = k == 0 ? def : t->extensions[k - 1];
    switch (t->kind) {
    case GQL_TYPE_OBJECT:
    case GQL_TYPE_INTERFACE:
      add_named(b, &t->interfaces, &t->ninterfaces, &c1,
                (const gql_ast_type *const *)d->interfaces.items,
                d->interfaces.count);
      add_fields(b, t, d, &c2);
      break;
    case GQL_TYPE_UNION:
      add_named(b, &t->members, &t->nmembers, &c1,
                (const gql_ast_type *const *)d->members.items,
                d->members.count);
      break;
    case GQL_TYPE_ENUM:
      add_values(b, t, d, &c1);
      break;
    case GQL_TYPE_INPUT_OBJECT:
      add_input_fields(b, t, d, &c1);
      break;
    case GQL_TYPE_SCALAR:
      break;
    }
  }
  if (t->kind == GQL_TYPE_SCALAR) {
    bool present;
    t->specified_by_url = directive_string(&def->directives, "specifiedBy",
                                           "url", NULL, &present);
    /* extendSchema (a later document) takes @specifiedBy from extensions;
     * buildASTSchema (the same document) does not */
    uint32_t def_doc = doc_index(b->s, def->name.ptr);
    for (uint32_t k = 0; k < t->nextensions; k++) {
      const gql_ast_type_def *e = t->extensions[k];
      if (doc_index(b->s, e->name.ptr) <= def_doc)
        continue;
      gql_str url = directive_string(&e->directives, "specifiedBy", "url", NULL,
                                     &present);
      if (url.ptr)
        t->specified_by_url = url;
    }
  }
  if (t->kind == GQL_TYPE_INPUT_OBJECT)
    t->one_of = gql_ast_find_directive(&def->directives, "oneOf") != NULL;
}

static gql_directive build_directive(builder *b, const gql_ast_directive_def *d,
                                     bool builtin) {
  gql_directive r = {0};
  r.name = intern(b, gql_ast_name_str(d->name));
  r.description = desc_of(d->description);
  r.repeatable = d->repeatable;
  r.builtin = builtin;
  r.ast = builtin ? NULL : d;
  build_input_values(b, &d->args, &r.args, &r.nargs);
  if (d->locations.count) {
    r.locations = gql_arena_alloc(b->s->arena, d->locations.count);
    if (!r.locations) {
      b->rc = GQL_ENOMEM;
      return r;
    }
  }
  for (uint32_t i = 0; i < d->locations.count; i++) {
    gql_directive_location loc;
    if (!gql_directive_location_from_name(
            gql_ast_name_str(*d->locations.items[i]), &loc))
      continue; /* the parser rejects unknown locations */
    r.locations[r.nlocations++] = (uint8_t)loc;
    r.location_mask |= 1u << loc;
  }
  return r;
}

static void build_directives(builder *b) {
  gql_schema *s = b->s;
  uint32_t cap = b->ndirdefs + b->nstd_dirdefs + b->nlate_dirdefs;
  s->directives = gql_arena_alloc(s->arena, (size_t)(cap ? cap : 1) *
                                                sizeof *s->directives);
  if (!s->directives) {
    b->rc = GQL_ENOMEM;
    return;
  }
  gql_strmap seen;
  gql_strmap_init(&seen, &s->alc);
  for (uint32_t i = 0; i <= b->ndirdefs && !b->rc; i++) {
    if (i == b->first_doc_dirdefs) {
      /* buildASTSchema adds the specified directives not redefined */
      for (uint32_t k = 0; k < b->nstd_dirdefs && !b->rc; k++) {
        const gql_ast_directive_def *sd = b->std_dirdefs[k];
        bool redefined = false;
        for (uint32_t j = 0; j < b->first_doc_dirdefs; j++)
          redefined |= gql_str_eq(gql_ast_name_str(b->dirdefs[j]->name),
                                  gql_ast_name_str(sd->name));
        if (redefined)
          continue;
        s->directives[s->ndirectives] = build_directive(b, sd, true);
        if (gql_strmap_put(&seen, s->directives[s->ndirectives].name,
                           s->ndirectives) < 0)
          b->rc = GQL_ENOMEM;
        s->ndirectives++;
      }
    }
    if (i == b->ndirdefs)
      break;
    gql_str name = gql_ast_name_str(b->dirdefs[i]->name);
    uint32_t dummy;
    if (gql_strmap_get(&seen, name, &dummy))
      continue; /* a duplicate: an SDL error */
    s->directives[s->ndirectives] = build_directive(b, b->dirdefs[i], false);
    if (gql_strmap_put(&seen, s->directives[s->ndirectives].name,
                       s->ndirectives) < 0)
      b->rc = GQL_ENOMEM;
    s->ndirectives++;
  }
  /* as new GraphQLSchema({directives: [...built, Defer, Stream]}) */
  for (uint32_t k = 0; k < b->nlate_dirdefs && !b->rc; k++) {
    uint32_t dummy;
    if (gql_strmap_get(&seen, gql_ast_name_str(b->late_dirdefs[k]->name),
                       &dummy))
      continue;
    s->directives[s->ndirectives++] =
        build_directive(b, b->late_dirdefs[k], false);
  }
  gql_strmap_free(&seen);
}

static uint32_t type_named(builder *b, const char *name) {
  uint32_t id;
  return gql_strmap_get(&b->tmap, gql_cstr(name), &id) ? id : GQL_NO_TYPE;
}

static void set_roots(builder *b) {
  gql_schema *s = b->s;
  s->query = s->mutation = s->subscription = GQL_NO_TYPE;
  for (uint32_t i = 0; i <= s->nextensions && !b->rc; i++) {
    const gql_ast_schema_def *node = i == 0 ? s->ast : s->extensions[i - 1];
    if (!node)
      continue;
    for (uint32_t j = 0; j < node->operation_types.count && !b->rc; j++) {
      const gql_ast_operation_type_def *ot = node->operation_types.items[j];
      gql_type_ref r;
      resolve_ref(b, ot->type, &r);
      if (b->rc)
        return;
      if (ot->operation == GQL_OP_QUERY)
        s->query = r.type;
      else if (ot->operation == GQL_OP_MUTATION)
        s->mutation = r.type;
      else
        s->subscription = r.type;
    }
  }
  if (!b->first_doc_has_schema_def && s->nsources) {
    /* buildASTSchema: the types named Query, Mutation, Subscription among
     * the first document's definitions */
    const gql_document *doc = s->sources[0].doc;
    for (uint32_t i = 0; i < doc->definitions.count; i++) {
      const gql_ast_node *n = doc->definitions.items[i];
      if (!gql_ast_is_type_definition(n->kind))
        continue;
      gql_str name = gql_ast_name_str(((const gql_ast_type_def *)n)->name);
      uint32_t id;
      if (!gql_strmap_get(&b->tmap, name, &id))
        continue;
      if (gql_str_eq_cstr(name, "Query"))
        s->query = id;
      else if (gql_str_eq_cstr(name, "Mutation"))
        s->mutation = id;
      else if (gql_str_eq_cstr(name, "Subscription"))
        s->subscription = id;
    }
  }
  if (s->ast)
    s->description = desc_of(s->ast->description);
}

/* ---- graphql-js type-map order */

typedef struct order_state {
  builder *b;
  bool *in_set;
  uint32_t *order;
  uint32_t n;
} order_state;

static void collect(order_state *o, uint32_t id);

static void collect_ref(order_state *o, gql_type_ref r) {
  collect(o, r.type);
}

static void collect(order_state *o, uint32_t id) {
  if (o->in_set[id])
    return;
  o->in_set[id] = true;
  o->order[o->n++] = id;
  const gql_type *t = &o->b->types[id];
  for (uint32_t i = 0; i < t->nmembers; i++)
    collect(o, t->members[i]);
  for (uint32_t i = 0; i < t->ninterfaces; i++)
    collect(o, t->interfaces[i]);
  for (uint32_t i = 0; i < t->nfields; i++) {
    collect_ref(o, t->fields[i].type);
    for (uint32_t j = 0; j < t->fields[i].nargs; j++)
      collect_ref(o, t->fields[i].args[j].type);
  }
  for (uint32_t i = 0; i < t->ninput_fields; i++)
    collect_ref(o, t->input_fields[i].type);
}

/* Visits the referenced types of config type `id` without re-adding it. */
static void collect_config(order_state *o, uint32_t id) {
  o->order[o->n++] = id;
  const gql_type *t = &o->b->types[id];
  for (uint32_t i = 0; i < t->nmembers; i++)
    collect(o, t->members[i]);
  for (uint32_t i = 0; i < t->ninterfaces; i++)
    collect(o, t->interfaces[i]);
  for (uint32_t i = 0; i < t->nfields; i++) {
    collect_ref(o, t->fields[i].type);
    for (uint32_t j = 0; j < t->fields[i].nargs; j++)
      collect_ref(o, t->fields[i].args[j].type);
  }
  for (uint32_t i = 0; i < t->ninput_fields; i++)
    collect_ref(o, t->input_fields[i].type);
}

static void remap_ref(const uint32_t *map, gql_type_ref *r) {
  r->type = map[r->type];
}

static void remap_values(const uint32_t *map, gql_input_value *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    remap_ref(map, &v[i].type);
}

static void remap_fields(const uint32_t *map, gql_field *f, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    remap_ref(map, &f[i].type);
    remap_values(map, f[i].args, f[i].nargs);
  }
}

static void finish_order(builder *b) {
  gql_schema *s = b->s;
  uint32_t n = b->ntypes;
  /* scratch in the schema arena: a few bytes per type */
  bool *in_set = gql_arena_alloc(s->arena, (size_t)n * sizeof *in_set);
  uint32_t *order = gql_arena_alloc(s->arena, (size_t)n * sizeof *order);
  uint32_t *map = gql_arena_alloc(s->arena, (size_t)n * sizeof *map);
  gql_type *types = gql_arena_alloc(s->arena, (size_t)n * sizeof *types);
  if (!in_set || !order || !map || !types) {
    b->rc = GQL_ENOMEM;
    return;
  }
  memset(in_set, 0, (size_t)n * sizeof *in_set);
  order_state o = {b, in_set, order, 0};
  for (uint32_t i = 0; i < b->nconfig; i++)
    in_set[b->config[i]] = true;
  for (uint32_t i = 0; i < b->nconfig; i++)
    collect_config(&o, b->config[i]);
  for (uint32_t i = 0; i < s->ndirectives; i++)
    for (uint32_t j = 0; j < s->directives[i].nargs; j++)
      collect_ref(&o, s->directives[i].args[j].type);
  collect(&o, type_named(b, "__Schema"));
  for (uint32_t i = 0; i < n; i++)
    map[i] = GQL_NO_TYPE;
  for (uint32_t i = 0; i < o.n; i++) {
    map[order[i]] = i;
    types[i] = b->types[order[i]];
  }
  for (uint32_t i = 0; i < o.n; i++) {
    gql_type *t = &types[i];
    remap_fields(map, t->fields, t->nfields);
    remap_values(map, t->input_fields, t->ninput_fields);
    for (uint32_t j = 0; j < t->ninterfaces; j++)
      t->interfaces[j] = map[t->interfaces[j]];
    for (uint32_t j = 0; j < t->nmembers; j++)
      t->members[j] = map[t->members[j]];
  }
  for (uint32_t i = 0; i < s->ndirectives; i++)
    remap_values(map, s->directives[i].args, s->directives[i].nargs);
  gql_field *meta[] = {&s->meta_schema, &s->meta_type, &s->meta_typename};
  for (size_t i = 0; i < GQL_ARRAY_LEN(meta); i++)
    remap_fields(map, meta[i], 1);
  uint32_t *roots[] = {&s->query, &s->mutation, &s->subscription};
  for (size_t i = 0; i < GQL_ARRAY_LEN(roots); i++)
    if (*roots[i] != GQL_NO_TYPE)
      *roots[i] = map[*roots[i]];
  s->types = types;
  s->ntypes = o.n;
}

/* Possible types of abstract types, implementing interfaces, name maps. */
static void finish_indexes(builder *b) {
  gql_schema *s = b->s;
  for (uint32_t i = 0; i < s->ntypes && !b->rc; i++) {
    gql_type *t = &s->types[i];
    if (gql_strmap_put(&s->type_map, t->name, i) < 0 ||
        gql_type_build_member_index(t, s->arena) < 0)
      b->rc = GQL_ENOMEM;
    if (t->kind == GQL_TYPE_UNION) {
      t->possible = t->members;
      t->npossible = t->nmembers;
    }
  }
  /* implementations of each interface: count, allocate, fill (objects
   * into possible, interfaces into implementing_interfaces, type order) */
  for (int pass = 0; pass < 2 && !b->rc; pass++) {
    for (uint32_t i = 0; i < s->ntypes; i++) {
      gql_type *t = &s->types[i];
      if (t->kind != GQL_TYPE_OBJECT && t->kind != GQL_TYPE_INTERFACE)
        continue;
      for (uint32_t j = 0; j < t->ninterfaces; j++) {
        gql_type *iface = &s->types[t->interfaces[j]];
        if (iface->kind != GQL_TYPE_INTERFACE)
          continue;
        bool obj = t->kind == GQL_TYPE_OBJECT;
        uint32_t *cnt =
            obj ? &iface->npossible : &iface->nimplementing_interfaces;
        uint32_t *arr = obj ? iface->possible : iface->implementing_interfaces;
        if (pass == 0) {
          (*cnt)++;
        } else if (*cnt == 0 || arr[*cnt - 1] != i) {
          arr[(*cnt)++] = i;
        }
      }
    }
    for (uint32_t i = 0; pass == 0 && i < s->ntypes && !b->rc; i++) {
      gql_type *t = &s->types[i];
      if (t->kind != GQL_TYPE_INTERFACE)
        continue;
      size_t n1 = t->npossible, n2 = t->nimplementing_interfaces;
      t->possible = gql_arena_alloc(s->arena, (n1 ? n1 : 1) * sizeof(uint32_t));
      t->implementing_interfaces =
          gql_arena_alloc(s->arena, (n2 ? n2 : 1) * sizeof(uint32_t));
      if (!t->possible || !t->implementing_interfaces)
        b->rc = GQL_ENOMEM;
      t->npossible = t->nimplementing_interfaces = 0;
    }
  }
  for (uint32_t i = 0; i < s->ndirectives && !b->rc; i++)
    if (gql_strmap_put(&s->directive_map, s->directives[i].name, i) < 0)
      b->rc = GQL_ENOMEM;
  s->t_string = gql_schema_type_index(s, GQL_STR("String"));
  s->t_int = gql_schema_type_index(s, GQL_STR("Int"));
  s->t_float = gql_schema_type_index(s, GQL_STR("Float"));
  s->t_boolean = gql_schema_type_index(s, GQL_STR("Boolean"));
  s->t_id = gql_schema_type_index(s, GQL_STR("ID"));
}

static void build_meta(builder *b) {
  gql_type tmp = {0};
  uint32_t cap = 0;
  add_fields(b, &tmp, b->meta, &cap);
  if (b->rc || tmp.nfields != 3) {
    if (!b->rc)
      b->rc = GQL_ESCHEMA;
    return;
  }
  b->s->meta_schema = tmp.fields[0];
  b->s->meta_type = tmp.fields[1];
  b->s->meta_typename = tmp.fields[2];
  b->s->meta_schema.ast = b->s->meta_type.ast = b->s->meta_typename.ast = NULL;
}

/* extendSchema keeps the base's whole type map (built-ins and introspection
 * types included) in its order, then adds the new definitions. */
static void base_config(builder *b, const gql_schema *base, uint32_t start) {
  uint32_t nnew = b->nconfig - start;
  uint32_t *fresh =
      gql_arena_alloc(b->s->arena, (size_t)(nnew ? nnew : 1) * sizeof *fresh);
  if (!fresh) {
    b->rc = GQL_ENOMEM;
    return;
  }
  memcpy(fresh, b->config + start, (size_t)nnew * sizeof *fresh);
  b->nconfig = 0;
  memset(b->in_config, 0, b->ntypes);
  for (uint32_t i = 0; i < base->ntypes && !b->rc; i++) {
    uint32_t id;
    if (gql_strmap_get(&b->tmap, base->types[i].name, &id))
      push_config(b, id);
  }
  for (uint32_t i = 0; i < nnew && !b->rc; i++)
    push_config(b, fresh[i]);
}

int gql_schema_build_docs(gql_schema *s, const gql_schema *base,
                          gql_error_list *errors) {
  builder b = {.s = s, .errors = errors};
  gql_strmap_init(&b.tmap, &s->alc);
  register_builtins(&b, s->builtin_doc);
  const gql_document *late = s->defer_stream_doc;
  for (uint32_t i = 0; late && i < late->definitions.count; i++)
    if (late->definitions.items[i]->kind == GQL_AST_DIRECTIVE_DEFINITION &&
        b.nlate_dirdefs < GQL_ARRAY_LEN(b.late_dirdefs))
      b.late_dirdefs[b.nlate_dirdefs++] =
          (const gql_ast_directive_def *)late->definitions.items[i];
  uint32_t last_start = 0;
  for (uint32_t i = 0; i < s->nsources && !b.rc; i++) {
    last_start = b.nconfig;
    register_doc(&b, s->sources[i].doc, i == 0);
  }
  if (!b.rc && base)
    base_config(&b, base, last_start);
  if (!b.rc)
    attach_extensions(&b);
  for (uint32_t i = 0; i < b.ntypes && !b.rc; i++)
    build_type(&b, i);
  for (uint32_t i = 0; i < b.ntypes; i++)
    b.types[i].exec_data = NULL;
  if (!b.rc)
    build_meta(&b);
  if (!b.rc)
    build_directives(&b);
  if (!b.rc)
    set_roots(&b);
  if (!b.rc)
    finish_order(&b);
  if (!b.rc)
    finish_indexes(&b);
  gql_strmap_free(&b.tmap);
  return b.rc;
}
