/* A schema from SDL, its life: copy and parse the SDL, validate it
 * (validate_sdl.c), build it (build.c), check it (validate_schema.c), free
 * it; and the public lookups and printing. (Named after what it starts
 * from: schema.h, the structures, is below every file here.) */
#include "internal.h"

int gql_schema_build_docs(gql_schema *s, const gql_schema *base,
                          gql_error_list *errors);

static gql_schema *schema_new(const gql_allocator *alc) {
  alc = gql_alc_or_default(alc);
  gql_arena *arena = gql_arena_new(alc);
  if (!arena)
    return NULL;
  gql_schema *s = gql_arena_alloc(arena, sizeof *s);
  if (!s) {
    gql_arena_free(arena);
    return NULL;
  }
  memset(s, 0, sizeof *s);
  s->arena = arena;
  s->alc = *alc;
  s->query = s->mutation = s->subscription = GQL_NO_TYPE;
  gql_strmap_init(&s->type_map, &s->alc);
  gql_strmap_init(&s->directive_map, &s->alc);
  gql_strmap_init(&s->names, &s->alc);
  return s;
}

void gql_schema_free(gql_schema *s) {
  if (!s)
    return;
  gql_strmap_free(&s->type_map);
  gql_strmap_free(&s->directive_map);
  gql_strmap_free(&s->names);
  gql_arena_free(s->arena);
}

/* Copies `text` into the schema and parses it; a syntax error goes to
 * `errors` with its location. */
static int add_source(gql_schema *s, gql_str text, gql_error_list *errors) {
  uint32_t cap = s->nsources;
  gql_schema_source *src =
      gql_arena_grow(s->arena, s->sources, cap, cap + 1, sizeof *src);
  char *copy = gql_arena_strndup(s->arena, text.ptr ? text.ptr : "", text.len);
  if (!src || !copy)
    return GQL_ENOMEM;
  s->sources = src;
  gql_schema_source *ns = &src[s->nsources];
  ns->text = (gql_str){copy, text.len};
  gql_syntax_error err = {0};
  /* SDL comes from the service, not from clients: big schemas are fine */
  gql_parse_options po = {.max_tokens = UINT32_MAX,
                          .max_size = (size_t)1 << 30};
  int rc = gql_parse_syntax(s->arena, copy, text.len, &po, &ns->doc, &err);
  if (rc == GQL_ESYNTAX || rc == GQL_ELIMIT) {
    if (errors && err.message)
      gql_error_list_push(
          errors,
          gql_arena_strndup(errors->arena, err.message, strlen(err.message)),
          &err.location, 1);
    return rc;
  }
  if (rc)
    return rc;
  s->nsources++;
  return 0;
}

/* True when errors were added to `l` since (count, truncated) was taken. */
static bool grew(const gql_error_list *l, uint32_t count, bool truncated) {
  return l->count > count || (l->truncated && !truncated);
}

/* The September 2025 spec's introspection where graphql-js 16.15 differs:
 * DIRECTIVE_DEFINITION leaves __DirectiveLocation and every directive's
 * locations, includeDeprecated arguments are Boolean! = false and
 * @deprecated's reason is String! = "No longer supported". */
static void spec_introspection(gql_schema *s) {
  for (uint32_t i = 0; i < s->ntypes; i++) {
    gql_type *t = &s->types[i];
    if (!t->builtin || !gql_schema_is_introspection_name(t->name))
      continue;
    for (uint32_t f = 0; f < t->nfields; f++)
      for (uint32_t a = 0; a < t->fields[f].nargs; a++) {
        gql_input_value *arg = &t->fields[f].args[a];
        if (gql_str_eq_cstr(arg->name, "includeDeprecated") &&
            arg->type.nmods == 0)
          arg->type = (gql_type_ref){arg->type.type, 1, "!"};
      }
  }
  const gql_directive_location dd = GQL_DIRLOC_DIRECTIVE_DEFINITION;
  for (uint32_t i = 0; i < s->ndirectives; i++) {
    gql_directive *d = &s->directives[i];
    if (d->builtin && gql_str_eq_cstr(d->name, "deprecated"))
      for (uint32_t a = 0; a < d->nargs; a++)
        if (gql_str_eq_cstr(d->args[a].name, "reason") &&
            d->args[a].type.nmods == 0)
          d->args[a].type = (gql_type_ref){d->args[a].type.type, 1, "!"};
    d->location_mask &= ~(1u << dd);
    uint32_t n = 0;
    for (uint32_t j = 0; j < d->nlocations; j++)
      if (d->locations[j] != dd)
        d->locations[n++] = d->locations[j];
    d->nlocations = n;
  }
  uint32_t t = gql_schema_type_index(s, GQL_STR("__DirectiveLocation"));
  if (t == GQL_NO_TYPE)
    return;
  gql_type *e = &s->types[t];
  uint32_t n = 0;
  for (uint32_t j = 0; j < e->nvalues; j++)
    if (!gql_str_eq_cstr(e->values[j].name, "DIRECTIVE_DEFINITION"))
      e->values[n++] = e->values[j];
  e->nvalues = n;
}

/* The SDL rules over `doc`; without a base, the specified directives come
 * from a schema of the built-ins alone, built here. */
static int sdl_validate(const gql_document *doc, gql_str source,
                        const gql_schema *base, const char *rule,
                        gql_error_list *errors, const gql_allocator *alc) {
  gql_schema *std = NULL;
  if (!base) {
    gql_schema_build_options o = {.skip_sdl_validation = true,
                                  .skip_type_validation = true};
    int rc = gql_schema_build(NULL, 0, alc, &o, &std, NULL);
    if (rc)
      return rc;
  }
  int rc = gql_sdl_validate_alc(doc, source, base, std, rule, errors, alc);
  gql_schema_free(std);
  return rc;
}

int gql_sdl_validate(const gql_document *doc, gql_str source,
                     const gql_schema *base, const char *rule,
                     gql_error_list *errors) {
  return sdl_validate(doc, source, base, rule, errors,
                      base ? &base->alc : NULL);
}

int gql_schema_build(const char *sdl, size_t len, const gql_allocator *alc,
                     const gql_schema_build_options *opts, gql_schema **out,
                     gql_error_list *errors) {
  gql_schema_build_options o = {0};
  if (opts)
    o = *opts;
  *out = NULL;
  /* without a list from the caller, errors still need somewhere to go */
  gql_error_list scratch;
  gql_arena *tmp = NULL;
  if (!errors) {
    tmp = gql_arena_new(alc);
    if (!tmp)
      return GQL_ENOMEM;
    gql_error_list_init(&scratch, tmp, 1);
    errors = &scratch;
  }
  uint32_t count0 = errors->count;
  bool trunc0 = errors->truncated;
  gql_schema *s = schema_new(alc);
  int rc = s ? 0 : GQL_ENOMEM;
  if (rc)
    goto fail;
  gql_syntax_error err = {0};
  gql_str builtin = gql_schema_builtin_sdl();
  rc = gql_parse_syntax(s->arena, builtin.ptr, builtin.len, NULL,
                        &s->builtin_doc, &err);
  s->defer_stream = o.defer_stream || (o.base && o.base->defer_stream);
  if (!rc && s->defer_stream) {
    gql_str ds = gql_schema_defer_stream_sdl();
    rc = gql_parse_syntax(s->arena, ds.ptr, ds.len, NULL, &s->defer_stream_doc,
                          &err);
  }
  for (uint32_t i = 0; o.base && i < o.base->nsources && !rc; i++)
    rc = add_source(s, o.base->sources[i].text, NULL);
  if (!rc && sdl)
    rc = add_source(s, (gql_str){sdl, len}, errors);
  if (rc)
    goto fail;
  if (sdl && !o.skip_sdl_validation) {
    const gql_schema_source *src = &s->sources[s->nsources - 1];
    rc = sdl_validate(src->doc, src->text, o.base, NULL, errors, &s->alc);
    if (!rc && grew(errors, count0, trunc0))
      rc = GQL_ESCHEMA;
    if (rc)
      goto fail;
  }
  rc = gql_schema_build_docs(s, o.base, errors);
  if (!rc && o.spec_introspection)
    spec_introspection(s);
  if (!rc && !o.skip_type_validation) {
    rc = gql_schema_validate(s, errors);
    if (!rc && grew(errors, count0, trunc0))
      rc = GQL_ESCHEMA;
  }
  if (rc)
    goto fail;
  gql_arena_free(tmp);
  *out = s;
  return 0;
fail:
  if (errors->nomem)
    rc = GQL_ENOMEM;
  gql_arena_free(tmp);
  gql_schema_free(s);
  return rc;
}

/* ---- public API */

static int public_build(const gql_schema *base, const char *sdl, size_t len,
                        const gql_allocator *alc, gql_schema **out,
                        gql_errors *errors) {
  gql_error_list list;
  gql_error_list *l = gql_errors_begin(&list, errors, 100);
  if (!out || (!sdl && len))
    return GQL_EINVAL;
  gql_schema_build_options o = {.base = base};
  int rc = gql_schema_build(sdl ? sdl : "", len, alc, &o, out, l);
  gql_errors_end(l, errors);
  return rc;
}

int gql_schema_from_sdl(const char *sdl, size_t len, const gql_allocator *alc,
                        gql_schema **out, gql_errors *errors) {
  return public_build(NULL, sdl, len, alc, out, errors);
}

int gql_schema_extend(const gql_schema *base, const char *sdl, size_t len,
                      const gql_allocator *alc, gql_schema **out,
                      gql_errors *errors) {
  if (!base) {
    if (out)
      *out = NULL;
    if (errors)
      errors->items = NULL, errors->count = 0;
    return GQL_EINVAL;
  }
  return public_build(base, sdl, len, alc, out, errors);
}

uint32_t gql_schema_type_count(const gql_schema *s) {
  return s->ntypes;
}

int64_t gql_schema_type_by_name(const gql_schema *s, const char *name,
                                size_t len) {
  uint32_t id = gql_schema_type_index(s, (gql_str){name, len});
  return id == GQL_NO_TYPE ? -1 : (int64_t)id;
}

gql_str gql_schema_type_name(const gql_schema *s, uint32_t index) {
  return index < s->ntypes ? s->types[index].name : (gql_str){NULL, 0};
}

int64_t gql_schema_field_index(const gql_schema *s, uint32_t type_index,
                               const char *name, size_t len) {
  if (type_index >= s->ntypes)
    return -1;
  const gql_type *t = &s->types[type_index];
  const gql_field *f = gql_type_field(t, (gql_str){name, len});
  return f ? (int64_t)(f - t->fields) : -1;
}

int gql_schema_print(const gql_schema *s, gql_arena *arena, const char **out,
                     size_t *len) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_schema_print_sdl(s, &b);
  const char *c = gql_buf_cstr(&b);
  char *copy = c ? gql_arena_strndup(arena, c, b.len) : NULL;
  size_t n = b.len;
  gql_buf_free(&b);
  if (!copy)
    return GQL_ENOMEM;
  *out = copy;
  if (len)
    *len = n;
  return 0;
}
