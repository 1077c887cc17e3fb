/*
 * The API schema of a supergraph, as Apollo's toAPISchema makes it: the
 * supergraph without the features it @link's (every element of their
 * namespace and every name they import: join, link, tag, inaccessible and
 * the custom directives composition kept) and without @inaccessible
 * elements, printed back to SDL (the input of gql_schema_from_sdl).
 */
#include "supergraph_read.h"

/* ------------------------------------------------------------ features */

static int add_feature(gql_supergraph *sg, gql_str name) {
  if (name.len && name.ptr[0] == '@') {
    name.ptr++;
    name.len--;
  }
  gql_str *f = gql_arena_grow(sg->arena, sg->features, sg->nfeatures,
                              sg->nfeatures + 1, sizeof *f);
  if (!f)
    return GQL_ENOMEM;
  sg->features = f;
  f[sg->nfeatures++] = name;
  return 0;
}

/* The namespace of a @link(url:): the path segment before the version
 * (".../join/v0.3" -> join), or the last one. */
static gql_str link_name(gql_str url) {
  if (!url.ptr)
    return url; /* no url: argument (fuzz_supergraph: no offset on NULL) */
  size_t end = url.len;
  while (end && url.ptr[end - 1] == '/')
    end--;
  size_t start = end;
  while (start && url.ptr[start - 1] != '/')
    start--;
  gql_str last = {url.ptr + start, end - start};
  if (last.len > 1 && last.ptr[0] == 'v' && last.ptr[1] >= '0' &&
      last.ptr[1] <= '9' && start) {
    end = start - 1;
    start = end;
    while (start && url.ptr[start - 1] != '/')
      start--;
    return (gql_str){url.ptr + start, end - start};
  }
  return last;
}

static gql_str value_str(const gql_ast_value *v) {
  return v && v->h.kind == GQL_AST_STRING_VALUE ? v->u.string.value
                                                : (gql_str){NULL, 0};
}

/* Reads the schema's @link applications into sg->features. */
static int read_features(gql_supergraph *sg) {
  const gql_document *doc = sg->doc;
  int rc = 0;
  for (uint32_t i = 0; i < doc->definitions.count && !rc; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (n->kind != GQL_AST_SCHEMA_DEFINITION &&
        n->kind != GQL_AST_SCHEMA_EXTENSION)
      continue;
    const gql_ast_schema_def *s = (const gql_ast_schema_def *)n;
    for (uint32_t j = 0; j < s->directives.count && !rc; j++) {
      const gql_ast_directive *d = s->directives.items[j];
      if (!gw_dir_is(d, "link"))
        continue;
      gql_str as = value_str(gw_arg(d, "as"));
      gql_str url = value_str(gw_arg(d, "url"));
      gql_str ns = as.ptr ? as : link_name(url);
      if (ns.len) /* no namespace (no url:): no feature, nothing hidden */
        rc = add_feature(sg, ns);
      const gql_ast_value *imp = gw_arg(d, "import");
      for (uint32_t k = 0; !rc && imp && imp->h.kind == GQL_AST_LIST_VALUE &&
                           k < imp->u.list.count;
           k++) {
        const gql_ast_value *it = imp->u.list.items[k];
        gql_str name = value_str(it);
        for (uint32_t m = 0;
             it->h.kind == GQL_AST_OBJECT_VALUE && m < it->u.fields.count; m++)
          if (gql_str_eq_cstr(gql_ast_name_str(it->u.fields.items[m]->name),
                              "as") ||
              (!name.ptr &&
               gql_str_eq_cstr(gql_ast_name_str(it->u.fields.items[m]->name),
                               "name")))
            name = value_str(it->u.fields.items[m]->value);
        if (name.ptr)
          rc = add_feature(sg, name);
      }
    }
  }
  if (!rc && sg->nfeatures == 0) /* no @link: the join spec's own names */
    for (const char *const *f =
             (const char *const[]){"join", "link", "tag", "inaccessible", NULL};
         *f && !rc; f++)
      rc = add_feature(sg, gql_cstr(*f));
  return rc;
}

/* Whether a directive or type named `name` belongs to a linked feature. */
static bool machinery(const gql_supergraph *sg, gql_str name) {
  for (uint32_t i = 0; i < sg->nfeatures; i++) {
    gql_str f = sg->features[i];
    if (gql_str_eq(name, f))
      return true;
    if (name.len > f.len + 2 && memcmp(name.ptr, f.ptr, f.len) == 0 &&
        name.ptr[f.len] == '_' && name.ptr[f.len + 1] == '_')
      return true;
  }
  return false;
}

/* ------------------------------------------------------------ API schema */

static bool removed_type(const gql_supergraph *sg, gql_str name) {
  if (machinery(sg, name))
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

static int api_directives(const gql_supergraph *sg, gql_ast_directives *ds) {
  FILTER(sg->arena, *ds, !machinery(sg, gql_ast_name_str(it->name)));
  return 0;
}

static bool keep_input(const gql_supergraph *sg,
                       const gql_ast_input_value_def *iv) {
  gql_str name;
  uint32_t lists;
  gw_named_type(iv->type, &name, &lists);
  return !gw_has_dir(&iv->directives, "inaccessible") &&
         !removed_type(sg, name);
}

static int api_inputs(const gql_supergraph *sg, gql_ast_input_value_defs *ivs) {
  FILTER(sg->arena, *ivs, keep_input(sg, it));
  for (uint32_t i = 0; i < ivs->count; i++) {
    gql_ast_input_value_def *c = gql_arena_alloc(sg->arena, sizeof *c);
    if (!c)
      return GQL_ENOMEM;
    *c = *ivs->items[i];
    if (api_directives(sg, &c->directives))
      return GQL_ENOMEM;
    ivs->items[i] = c;
  }
  return 0;
}

static bool keep_field(const gql_supergraph *sg, const gql_ast_field_def *f) {
  gql_str name;
  uint32_t lists;
  gw_named_type(f->type, &name, &lists);
  return !gw_has_dir(&f->directives, "inaccessible") && !removed_type(sg, name);
}

static int api_type(const gql_supergraph *sg, const gql_ast_type_def *def,
                    gql_buf *out) {
  gql_arena *a = sg->arena;
  gql_ast_type_def c = *def;
  if (api_directives(sg, &c.directives))
    return GQL_ENOMEM;
  FILTER(a, c.interfaces, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.members, !removed_type(sg, gql_ast_name_str(it->name)));
  FILTER(a, c.values, !gw_has_dir(&it->directives, "inaccessible"));
  FILTER(a, c.fields, keep_field(sg, it));
  for (uint32_t i = 0; i < c.values.count; i++) {
    gql_ast_enum_value_def *v = gql_arena_alloc(a, sizeof *v);
    if (!v)
      return GQL_ENOMEM;
    *v = *c.values.items[i];
    if (api_directives(sg, &v->directives))
      return GQL_ENOMEM;
    c.values.items[i] = v;
  }
  for (uint32_t i = 0; i < c.fields.count; i++) {
    gql_ast_field_def *f = gql_arena_alloc(a, sizeof *f);
    if (!f)
      return GQL_ENOMEM;
    *f = *c.fields.items[i];
    if (api_directives(sg, &f->directives) || api_inputs(sg, &f->args))
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

int gql_gw_api_sdl(gql_supergraph *sg, gql_buf *out) {
  const gql_document *doc = sg->doc;
  if (read_features(sg))
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    int rc = 0;
    if (n->kind == GQL_AST_SCHEMA_DEFINITION ||
        n->kind == GQL_AST_SCHEMA_EXTENSION) {
      gql_ast_schema_def c = *(const gql_ast_schema_def *)n;
      if (api_directives(sg, &c.directives))
        return GQL_ENOMEM;
      if (c.operation_types.count == 0 && c.directives.count == 0)
        continue;
      gql_print_node(out, &c.h);
      gql_buf_puts(out, "\n\n");
    } else if (n->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      const gql_ast_directive_def *d = (const gql_ast_directive_def *)n;
      gql_str dn = gql_ast_name_str(d->name);
      if (machinery(sg, dn) ||
          ((gql_str_eq_cstr(dn, "defer") || gql_str_eq_cstr(dn, "stream"))))
        continue; /* a custom @defer / @stream: Apollo drops them too */
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
  /* the gateway defers (defer.c), as Apollo Router's API schema says */
  gql_buf_puts(out, "directive @defer(label: String, if: Boolean! = true) on "
                    "FRAGMENT_SPREAD | INLINE_FRAGMENT\n\n");
  return out->failed ? GQL_ENOMEM : 0;
}
