/*
 * Reading a Federation v2 supergraph (join v0.3 to v0.5): the subgraphs of
 * `enum join__Graph`, and a model of each subgraph's own schema as the
 * join directives describe it (Apollo's extractSubgraphsFromSupergraph
 * reads them the same way):
 *  - @join__type(graph, key, resolvable, isInterfaceObject): the type is in
 *    that subgraph, with its keys; an interface may be an object there;
 *  - @join__field(graph, requires, provides, type, external, override,
 *    overrideLabel, usedOverridden): the field is in that subgraph; a field
 *    with no @join__field is in every subgraph of its type, one whose only
 *    @join__field has no graph is in none (an @interfaceObject's);
 *  - @join__implements, @join__unionMember, @join__enumValue: interfaces,
 *    union members and enum values per subgraph (all, when a type has none).
 * Field sets are parsed as GraphQL and checked against the types. Errors
 * point into the supergraph text, field sets included: "LINE:COLUMN: ".
 */
#include "supergraph_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct loader {
  gql_supergraph *sg;
  gql_arena *err_arena;
  const char **err;
} loader;

static int fail_at(loader *l, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An error at byte `offset` of the supergraph: "LINE:COLUMN: message". */
static int fail_at(loader *l, int code, size_t offset, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!l->err_arena) {
    *l->err = code == GQL_ENOMEM ? "out of memory" : "invalid supergraph";
    return code;
  }
  gql_location loc =
      gql_location_of(l->sg->source, l->sg->source_len,
                      offset > l->sg->source_len ? l->sg->source_len : offset);
  *l->err =
      gql_arena_sprintf(l->err_arena, "%u:%u: %s", loc.line, loc.column, msg);
  if (!*l->err)
    *l->err = "invalid supergraph";
  return code;
}

#define OOM(l) fail_at((l), GQL_ENOMEM, 0, "out of memory")

static gql_str arg_str(const gql_ast_directive *d, const char *name) {
  const gql_ast_value *v = gw_arg(d, name);
  if (v && v->h.kind == GQL_AST_STRING_VALUE)
    return v->u.string.value;
  if (v && v->h.kind == GQL_AST_ENUM_VALUE)
    return v->u.raw;
  return (gql_str){NULL, 0};
}

static bool arg_bool(const gql_ast_directive *d, const char *name, bool dflt) {
  const gql_ast_value *v = gw_arg(d, name);
  return v && v->h.kind == GQL_AST_BOOLEAN_VALUE ? v->u.boolean : dflt;
}

/* ------------------------------------------------------------- reading */

static int graph_of(loader *l, const gql_ast_directive *d, uint32_t *out) {
  const gql_ast_value *v = gw_arg(d, "graph");
  gql_str g = v && v->h.kind == GQL_AST_ENUM_VALUE ? v->u.raw : (gql_str){0};
  if (g.ptr && gql_strmap_get(&l->sg->graph_index, g, out))
    return 0;
  return fail_at(l, GQL_ESCHEMA, v ? v->h.start : d->h.start,
                 "@%.*s names no graph of enum join__Graph", (int)d->name.len,
                 d->name.ptr);
}

static int read_graphs(loader *l, const gql_ast_type_def *def) {
  gql_supergraph *sg = l->sg;
  /* a second enum would be read into an array of its own size at the
   * first one's count (fuzz_supergraph found the overflow) */
  if (sg->graphs)
    return fail_at(l, GQL_ESCHEMA, def->h.start,
                   "enum join__Graph is defined twice");
  sg->graphs =
      gql_arena_alloc(sg->arena, (def->values.count + 1) * sizeof *sg->graphs);
  if (!sg->graphs)
    return OOM(l);
  for (uint32_t i = 0; i < def->values.count; i++) {
    const gql_ast_enum_value_def *v = def->values.items[i];
    for (uint32_t j = 0; j < v->directives.count; j++) {
      const gql_ast_directive *d = v->directives.items[j];
      if (!gw_dir_is(d, "join__graph"))
        continue;
      gql_gw_graph *g = &sg->graphs[sg->ngraphs];
      g->enum_value = gql_ast_name_str(v->name);
      g->name = arg_str(d, "name");
      g->url = arg_str(d, "url");
      if (!g->name.ptr)
        return fail_at(l, GQL_ESCHEMA, d->h.start,
                       "@join__graph without a name argument");
      if (!g->url.ptr)
        return fail_at(l, GQL_ESCHEMA, d->h.start,
                       "@join__graph without a url argument");
      if (gql_supergraph_graph_by_name(sg, g->name) >= 0)
        return fail_at(l, GQL_ESCHEMA, d->h.start,
                       "two subgraphs are named \"%.*s\"", (int)g->name.len,
                       g->name.ptr);
      if (gql_strmap_put(&sg->graph_index, g->enum_value, sg->ngraphs) < 0)
        return OOM(l);
      sg->ngraphs++;
      break;
    }
  }
  if (sg->ngraphs > 65000)
    return fail_at(l, GQL_ELIMIT, def->h.start, "too many subgraphs");
  return 0;
}

/* The type's entry for `graph`, made when absent. */
static gql_gw_type_graph *type_graph_get(gql_gw_type *t, uint32_t graph) {
  for (uint32_t i = 0; i < t->ngraphs; i++)
    if (t->graphs[i].graph == graph)
      return &t->graphs[i];
  gql_gw_type_graph *tg = &t->graphs[t->ngraphs++];
  memset(tg, 0, sizeof *tg);
  tg->graph = graph;
  return tg;
}

static int label_index(loader *l, gql_str name, int32_t *out) {
  gql_supergraph *sg = l->sg;
  for (uint32_t i = 0; i < sg->nlabels; i++)
    if (gql_str_eq(sg->labels[i].name, name)) {
      *out = (int32_t)i;
      return 0;
    }
  if (sg->nlabels >= 64)
    return fail_at(l, GQL_ELIMIT, 0, "more than 64 override labels");
  gql_gw_label *ls = gql_arena_grow(sg->arena, sg->labels, sg->nlabels,
                                    sg->nlabels + 1, sizeof *ls);
  if (!ls)
    return OOM(l);
  sg->labels = ls;
  gql_gw_label *lb = &ls[sg->nlabels];
  lb->name = name;
  lb->percent = -1;
  if (gw_has_prefix(name, "percent(") && name.len > 9 &&
      name.ptr[name.len - 1] == ')') {
    char num[32];
    size_t n = name.len - 9;
    if (n < sizeof num) {
      memcpy(num, name.ptr + 8, n);
      num[n] = 0;
      char *end;
      double p = strtod(num, &end);
      if (end != num && *end == 0 && p >= 0 && p <= 100)
        lb->percent = p;
    }
  }
  *out = (int32_t)sg->nlabels++;
  return 0;
}

/* @authenticated and @requiresScopes(scopes: [[String!]!]!) of `ds`. */
static int read_access(loader *l, const gql_ast_directives *ds,
                       gql_gw_access *a) {
  a->authenticated = gw_has_dir(ds, "authenticated");
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_value *v = gw_dir_is(ds->items[i], "requiresScopes")
                                 ? gw_arg(ds->items[i], "scopes")
                                 : NULL;
    if (!v || v->h.kind != GQL_AST_LIST_VALUE)
      continue;
    uint32_t n = v->u.list.count;
    gql_str **sets = gql_arena_alloc(l->sg->arena, (n + 1) * sizeof *sets);
    uint32_t *sizes = gql_arena_alloc(l->sg->arena, (n + 1) * sizeof *sizes);
    if (!sets || !sizes)
      return OOM(l);
    uint32_t k = 0;
    for (uint32_t j = 0; j < n; j++) {
      const gql_ast_value *set = v->u.list.items[j];
      uint32_t m = set->h.kind == GQL_AST_LIST_VALUE ? set->u.list.count : 1;
      gql_str *items = gql_arena_alloc(l->sg->arena, (m + 1) * sizeof *items);
      if (!items)
        return OOM(l);
      uint32_t c = 0;
      for (uint32_t q = 0; q < m; q++) {
        const gql_ast_value *s =
            set->h.kind == GQL_AST_LIST_VALUE ? set->u.list.items[q] : set;
        if (s->h.kind == GQL_AST_STRING_VALUE)
          items[c++] = s->u.string.value;
      }
      sets[k] = items;
      sizes[k++] = c;
    }
    a->scope_sets = (const gql_str *const *)sets;
    a->scope_set_sizes = sizes;
    a->nscope_sets = k;
  }
  return 0;
}

static int read_field(loader *l, const gql_ast_field_def *def, gql_gw_type *t,
                      gql_gw_field *f) {
  gql_supergraph *sg = l->sg;
  memset(f, 0, sizeof *f);
  f->name = gql_ast_name_str(def->name);
  f->parent = t;
  gw_named_type(def->type, &f->type_name, &f->list_depth);
  f->type = def->type;
  f->inaccessible = gw_has_dir(&def->directives, "inaccessible");
  int arc = read_access(l, &def->directives, &f->access);
  if (arc < 0)
    return arc;
  uint32_t nfg = 0; /* entries: the @join__field applications with a graph */
  for (uint32_t i = 0; i < def->directives.count; i++)
    nfg += gw_dir_is(def->directives.items[i], "join__field") &&
           gw_arg(def->directives.items[i], "graph");
  f->graphs = gql_arena_alloc(sg->arena, (nfg + 1) * sizeof *f->graphs);
  if (!f->graphs)
    return OOM(l);
  bool any = false;
  for (uint32_t i = 0; i < def->directives.count; i++) {
    const gql_ast_directive *d = def->directives.items[i];
    if (!gw_dir_is(d, "join__field"))
      continue;
    any = true;
    if (!gw_arg(d, "graph"))
      continue; /* in no subgraph itself (an @interfaceObject's field) */
    gql_gw_field_graph *fg = &f->graphs[f->ngraphs];
    memset(fg, 0, sizeof *fg);
    fg->label = -1;
    int rc = graph_of(l, d, &fg->graph);
    if (rc)
      return rc;
    for (uint32_t j = 0; j < f->ngraphs; j++)
      if (f->graphs[j].graph == fg->graph)
        return fail_at(l, GQL_ESCHEMA, d->h.start,
                       "two @join__field for one subgraph on %.*s.%.*s",
                       (int)t->name.len, t->name.ptr, (int)f->name.len,
                       f->name.ptr);
    fg->external = arg_bool(d, "external", false);
    fg->used_overridden = arg_bool(d, "usedOverridden", false);
    fg->override = arg_str(d, "override");
    fg->requires_text = arg_str(d, "requires");
    fg->provides_text = arg_str(d, "provides");
    gql_str label = arg_str(d, "overrideLabel");
    if (label.ptr && fg->override.ptr) {
      rc = label_index(l, label, &fg->label);
      if (rc)
        return rc;
      fg->label_on = true;
    }
    gql_str type = arg_str(d, "type");
    if (type.ptr) {
      gql_ast_type *ty;
      gql_syntax_error se;
      if (gql_parse_type(sg->arena, type.ptr, type.len, NULL, &ty, &se))
        return fail_at(l, GQL_ESCHEMA, gw_arg(d, "type")->h.start,
                       "@join__field type \"%.*s\" is not a type",
                       (int)type.len, type.ptr);
      fg->type = ty;
    }
    f->ngraphs++;
  }
  f->all_graphs = !any;
  return 0;
}

/* Applications of `dname` (graph: G, `arg`: "Name") into *out. */
static int read_refs(loader *l, const gql_ast_directives *ds, const char *dname,
                     const char *arg, gql_gw_type_ref **out, uint32_t *n) {
  *out = gql_arena_alloc(l->sg->arena, (ds->count + 1) * sizeof **out);
  if (!*out)
    return OOM(l);
  *n = 0;
  for (uint32_t i = 0; i < ds->count; i++) {
    const gql_ast_directive *d = ds->items[i];
    if (!gw_dir_is(d, dname))
      continue;
    gql_gw_type_ref *ref = &(*out)[(*n)++];
    ref->name = arg_str(d, arg);
    int rc = graph_of(l, d, &ref->graph);
    if (rc)
      return rc;
    if (!ref->name.ptr)
      return fail_at(l, GQL_ESCHEMA, d->h.start, "@%s without %s", dname, arg);
  }
  return 0;
}

/* The definition's own list (names), for every graph. */
static int refs_from_names(loader *l, gql_ast_type **items, uint32_t count,
                           gql_gw_type_ref **out, uint32_t *n) {
  *out = gql_arena_alloc(l->sg->arena, (count + 1) * sizeof **out);
  if (!*out)
    return OOM(l);
  for (uint32_t i = 0; i < count; i++)
    (*out)[i] = (gql_gw_type_ref){UINT32_MAX, gql_ast_name_str(items[i]->name)};
  *n = count;
  return 0;
}

static int read_type(loader *l, const gql_ast_type_def *def) {
  gql_supergraph *sg = l->sg;
  gql_gw_type *t = &sg->types[sg->ntypes];
  memset(t, 0, sizeof *t);
  t->name = gql_ast_name_str(def->name);
  t->kind = def->h.kind;
  t->index = sg->ntypes;
  t->is_abstract = t->kind == GQL_AST_INTERFACE_TYPE_DEFINITION ||
                   t->kind == GQL_AST_UNION_TYPE_DEFINITION;
  t->inaccessible = gw_has_dir(&def->directives, "inaccessible");
  int arc = read_access(l, &def->directives, &t->access);
  if (arc < 0)
    return arc;
  /* one entry per subgraph that has the type: at most its @join__type
   * applications (every subgraph when it has none) */
  uint32_t ntg = 0;
  for (uint32_t i = 0; i < def->directives.count; i++)
    ntg += gw_dir_is(def->directives.items[i], "join__type");
  if (ntg == 0 || ntg > sg->ngraphs)
    ntg = sg->ngraphs;
  t->graphs = gql_arena_alloc(sg->arena, (ntg + 1) * sizeof *t->graphs);
  t->fields =
      gql_arena_alloc(sg->arena, (def->fields.count + 1) * sizeof *t->fields);
  if (!t->graphs || !t->fields)
    return OOM(l);
  bool any = false;
  for (uint32_t i = 0; i < def->directives.count; i++) {
    const gql_ast_directive *d = def->directives.items[i];
    if (!gw_dir_is(d, "join__type"))
      continue;
    any = true;
    uint32_t g;
    int rc = graph_of(l, d, &g);
    if (rc)
      return rc;
    gql_gw_type_graph *tg = type_graph_get(t, g);
    tg->extension |= arg_bool(d, "extension", false);
    tg->interface_object |= arg_bool(d, "isInterfaceObject", false);
    if (tg->interface_object && t->kind != GQL_AST_INTERFACE_TYPE_DEFINITION)
      return fail_at(l, GQL_ESCHEMA, d->h.start,
                     "isInterfaceObject on %.*s, which is no interface",
                     (int)t->name.len, t->name.ptr);
    const gql_ast_value *key = gw_arg(d, "key");
    if (!key)
      continue;
    if (key->h.kind != GQL_AST_STRING_VALUE) /* (link_field_sets reads it) */
      return fail_at(l, GQL_ESCHEMA, key->h.start,
                     "the key of @join__type on %.*s is not a string",
                     (int)t->name.len, t->name.ptr);
    gql_gw_key *keys = gql_arena_grow(sg->arena, tg->keys, tg->nkeys,
                                      tg->nkeys + 1, sizeof *keys);
    if (!keys)
      return OOM(l);
    tg->keys = keys;
    gql_gw_key *k = &keys[tg->nkeys++];
    memset(k, 0, sizeof *k);
    k->text = key->u.string.value;
    k->resolvable = arg_bool(d, "resolvable", true);
    tg->resolvable_key |= k->resolvable;
  }
  if (!any && !gw_has_prefix(t->name, "join__") &&
      !gw_has_prefix(t->name, "link__"))
    for (uint32_t g = 0; g < sg->ngraphs; g++)
      type_graph_get(t, g); /* no @join__type: in every subgraph */
  for (uint32_t i = 0; i < def->fields.count; i++) {
    int rc = read_field(l, def->fields.items[i], t, &t->fields[t->nfields++]);
    if (rc)
      return rc;
  }
  int rc = read_refs(l, &def->directives, "join__implements", "interface",
                     &t->implements, &t->nimplements);
  if (!rc)
    rc = read_refs(l, &def->directives, "join__unionMember", "member",
                   &t->members, &t->nmembers);
  if (!rc && t->nimplements == 0 && def->interfaces.count)
    rc = refs_from_names(l, def->interfaces.items, def->interfaces.count,
                         &t->implements, &t->nimplements);
  if (!rc && t->nmembers == 0 && def->members.count)
    rc = refs_from_names(l, def->members.items, def->members.count, &t->members,
                         &t->nmembers);
  if (rc)
    return rc;
  /* counted first: grown one by one, an enum of many values in many
   * subgraphs took memory quadratic in them (155 MB of 458 MB on
   * bench/gateway-scale) */
  uint32_t nrefs = 0;
  for (uint32_t i = 0; i < def->values.count; i++) {
    const gql_ast_directives *ds = &def->values.items[i]->directives;
    for (uint32_t j = 0; j < ds->count; j++)
      nrefs += gw_dir_is(ds->items[j], "join__enumValue");
  }
  if (nrefs) {
    t->enum_values =
        gql_arena_alloc(sg->arena, (size_t)nrefs * sizeof *t->enum_values);
    if (!t->enum_values)
      return OOM(l);
  }
  for (uint32_t i = 0; i < def->values.count; i++) {
    const gql_ast_enum_value_def *v = def->values.items[i];
    for (uint32_t j = 0; j < v->directives.count; j++) {
      const gql_ast_directive *d = v->directives.items[j];
      if (!gw_dir_is(d, "join__enumValue"))
        continue;
      gql_gw_type_ref *ref = &t->enum_values[t->nenum_values++];
      ref->name = gql_ast_name_str(v->name);
      rc = graph_of(l, d, &ref->graph);
      if (rc)
        return rc;
    }
  }
  if (def->values.count) {
    t->api_values =
        gql_arena_alloc(sg->arena, def->values.count * sizeof *t->api_values);
    if (!t->api_values)
      return OOM(l);
    for (uint32_t i = 0; i < def->values.count; i++)
      if (!gw_has_dir(&def->values.items[i]->directives, "inaccessible"))
        t->api_values[t->napi_values++] =
            gql_ast_name_str(def->values.items[i]->name);
  }
  rc = gql_strmap_put(&sg->type_index, t->name, sg->ntypes);
  if (rc < 0)
    return OOM(l);
  if (rc == 0)
    return fail_at(l, GQL_ESCHEMA, def->h.start,
                   "type %.*s is defined twice in the supergraph",
                   (int)t->name.len, t->name.ptr);
  sg->ntypes++;
  return 0;
}

/* ------------------------------------------------------- linking types */

static bool refs_have(const gql_gw_type_ref *refs, uint32_t n, gql_str name,
                      uint32_t graph) {
  for (uint32_t i = 0; i < n; i++)
    if (gql_str_eq(refs[i].name, name) &&
        (graph == UINT32_MAX || refs[i].graph == UINT32_MAX ||
         refs[i].graph == graph))
      return true;
  return false;
}

static int push_type(gql_arena *a, const gql_gw_type ***arr, uint32_t *n,
                     const gql_gw_type *t) {
  for (uint32_t i = 0; i < *n; i++)
    if ((*arr)[i] == t)
      return 0;
  const gql_gw_type **x = gql_arena_grow(a, *arr, *n, *n + 1, sizeof *x);
  if (!x)
    return GQL_ENOMEM;
  *arr = x;
  x[(*n)++] = t;
  return 0;
}

/* Interfaces, possible types (supergraph and per subgraph), field types. */
static int link_types(loader *l) {
  gql_supergraph *sg = l->sg;
  gql_arena *a = sg->arena;
  for (uint32_t i = 0; i < sg->ntypes; i++) {
    gql_gw_type *t = &sg->types[i];
    t->graph_slot = gql_arena_alloc(a, (sg->ngraphs + 1) * sizeof(uint16_t));
    if (!t->graph_slot)
      return OOM(l);
    memset(t->graph_slot, 0, (sg->ngraphs + 1) * sizeof(uint16_t));
    for (uint32_t g = 0; g < t->ngraphs; g++)
      t->graph_slot[t->graphs[g].graph] = (uint16_t)(g + 1);
    for (uint32_t j = 0; j < t->nfields; j++) {
      gql_gw_field *f = &t->fields[j];
      f->named = gql_supergraph_type(sg, f->type_name);
      f->guarded = f->access.authenticated || f->access.nscope_sets ||
                   (f->named && (f->named->access.authenticated ||
                                 f->named->access.nscope_sets)) ||
                   t->access.authenticated || t->access.nscope_sets;
      for (uint32_t k = 0; k < f->ngraphs; k++) {
        gql_gw_field_graph *fg = &f->graphs[k];
        if (!fg->type) {
          fg->named = f->named;
          continue;
        }
        gql_str n;
        uint32_t lists;
        gw_named_type(fg->type, &n, &lists);
        fg->named = gql_supergraph_type(sg, n);
        gql_buf x, y;
        gql_buf_init(&x, NULL);
        gql_buf_init(&y, NULL);
        gql_print_type(&x, fg->type);
        gql_print_type(&y, f->type);
        fg->type_differs = x.len != y.len || memcmp(x.data, y.data, x.len);
        bool failed = x.failed || y.failed;
        gql_buf_free(&x);
        gql_buf_free(&y);
        if (failed)
          return OOM(l);
      }
    }
    for (uint32_t j = 0; j < t->nimplements; j++) {
      const gql_gw_type *it = gql_supergraph_type(sg, t->implements[j].name);
      if (!it || it->kind != GQL_AST_INTERFACE_TYPE_DEFINITION)
        return fail_at(
            l, GQL_ESCHEMA, 0, "%.*s implements %.*s, which is no interface",
            (int)t->name.len, t->name.ptr, (int)t->implements[j].name.len,
            t->implements[j].name.ptr);
      if (push_type(a, &t->interfaces, &t->ninterfaces, it))
        return OOM(l);
    }
  }
  for (uint32_t i = 0; i < sg->ntypes; i++) {
    gql_gw_type *t = &sg->types[i];
    if (t->kind == GQL_AST_OBJECT_TYPE_DEFINITION) {
      if (push_type(a, &t->possible, &t->npossible, t))
        return OOM(l);
      for (uint32_t j = 0; j < t->ninterfaces; j++) {
        gql_gw_type *it = &sg->types[t->interfaces[j]->index];
        if (push_type(a, &it->possible, &it->npossible, t))
          return OOM(l);
      }
    } else if (t->kind == GQL_AST_UNION_TYPE_DEFINITION) {
      for (uint32_t j = 0; j < t->nmembers; j++) {
        const gql_gw_type *m = gql_supergraph_type(sg, t->members[j].name);
        if (!m || m->kind != GQL_AST_OBJECT_TYPE_DEFINITION)
          return fail_at(l, GQL_ESCHEMA, 0,
                         "union %.*s has %.*s, which is no object type",
                         (int)t->name.len, t->name.ptr,
                         (int)t->members[j].name.len, t->members[j].name.ptr);
        if (push_type(a, &t->possible, &t->npossible, m))
          return OOM(l);
      }
    }
  }
  /* per subgraph: the object types an abstract type has there */
  for (uint32_t i = 0; i < sg->ntypes; i++) {
    gql_gw_type *t = &sg->types[i];
    for (uint32_t g = 0; g < t->ngraphs; g++) {
      gql_gw_type_graph *tg = &t->graphs[g];
      if (t->kind == GQL_AST_OBJECT_TYPE_DEFINITION) {
        if (push_type(a, &tg->possible, &tg->npossible, t))
          return OOM(l);
        continue;
      }
      if (!t->is_abstract || tg->interface_object)
        continue;
      for (uint32_t p = 0; p < t->npossible; p++) {
        const gql_gw_type *r = t->possible[p];
        if (!gql_supergraph_type_graph(r, tg->graph))
          continue;
        bool in =
            t->kind == GQL_AST_UNION_TYPE_DEFINITION
                ? refs_have(t->members, t->nmembers, r->name, tg->graph)
                : refs_have(r->implements, r->nimplements, t->name, tg->graph);
        if (in && push_type(a, &tg->possible, &tg->npossible, r))
          return OOM(l);
      }
    }
  }
  return 0;
}

/* Progressive overrides: the subgraph overridden resolves the field when
 * the label is off. */
static int link_overrides(loader *l) {
  gql_supergraph *sg = l->sg;
  for (uint32_t i = 0; i < sg->ntypes; i++)
    for (uint32_t j = 0; j < sg->types[i].nfields; j++) {
      gql_gw_field *f = &sg->types[i].fields[j];
      for (uint32_t k = 0; k < f->ngraphs; k++) {
        gql_gw_field_graph *to = &f->graphs[k];
        if (to->label < 0)
          continue;
        int64_t from = gql_supergraph_graph_by_name(sg, to->override);
        for (uint32_t m = 0; from >= 0 && m < f->ngraphs; m++)
          if (f->graphs[m].graph == (uint32_t)from) {
            f->graphs[m].label = to->label;
            f->graphs[m].label_on = false;
            f->graphs[m].used_overridden = false;
          }
      }
    }
  return 0;
}

/* The UTF-8 bytes of a \u escape of code unit `cp` (a surrogate pair: 4 in
 * all). */
static size_t utf8_len(unsigned cp) {
  if (cp >= 0xDC00 && cp < 0xE000)
    return 0;
  if (cp >= 0xD800 && cp < 0xDC00)
    return 4;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
}

/* The offset in the supergraph text of byte `k` of string value v's
 * decoded text (escapes undone as the lexer does). */
static size_t string_offset(const gql_supergraph *sg, const gql_ast_value *v,
                            size_t k) {
  size_t p = v->h.start;
  if (p + 3 <= sg->source_len && memcmp(sg->source + p, "\"\"\"", 3) == 0)
    return p + 3; /* block string: its start */
  p++;
  size_t decoded = 0;
  while (p < sg->source_len && decoded < k && sg->source[p] != '"') {
    if (sg->source[p] == '\\' && p + 1 < sg->source_len) {
      if (sg->source[p + 1] == 'u' && p + 5 < sg->source_len) {
        char hex[5] = {sg->source[p + 2], sg->source[p + 3], sg->source[p + 4],
                       sg->source[p + 5], 0};
        decoded += utf8_len((unsigned)strtoul(hex, NULL, 16));
        p += 6;
      } else {
        decoded++;
        p += 2;
      }
      continue;
    }
    decoded++;
    p++;
  }
  return p;
}

static int field_set(loader *l, const gql_ast_directive *d, const char *arg,
                     const gql_gw_type *on, gql_gw_sel **out,
                     const char *what) {
  const gql_ast_value *v = gw_arg(d, arg);
  if (!v)
    return 0;
  if (v->h.kind != GQL_AST_STRING_VALUE)
    return fail_at(l, GQL_ESCHEMA, v->h.start, "%s is not a string", what);
  const char *msg = NULL;
  size_t off = 0;
  int rc = gql_gw_parse_field_set(l->sg, l->sg->arena, on, v->u.string.value,
                                  out, &msg, &off);
  if (rc == GQL_ENOMEM)
    return OOM(l);
  if (rc)
    return fail_at(l, GQL_ESCHEMA, string_offset(l->sg, v, off),
                   "%s \"%.*s\" on %.*s: %s", what, (int)v->u.string.value.len,
                   v->u.string.value.ptr, (int)on->name.len, on->name.ptr,
                   msg ? msg : "invalid");
  return 0;
}

/* Parses every key, requires and provides (the types are all known). */
static int link_field_sets(loader *l) {
  gql_supergraph *sg = l->sg;
  const gql_document *doc = sg->doc;
  /* keys, in the order of the @join__type applications per graph: one
   * count per subgraph, zeroed for each type's own subgraphs */
  uint32_t *seen = gql_arena_alloc(sg->arena, (sg->ngraphs + 1) * sizeof *seen);
  if (!seen)
    return OOM(l);
  memset(seen, 0, (sg->ngraphs + 1) * sizeof *seen);
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (!gql_ast_is_type_definition(n->kind))
      continue;
    const gql_ast_type_def *def = (const gql_ast_type_def *)n;
    gql_gw_type *t =
        (gql_gw_type *)gql_supergraph_type(sg, gql_ast_name_str(def->name));
    for (uint32_t g = 0; g < t->ngraphs; g++)
      seen[t->graphs[g].graph] = 0;
    for (uint32_t j = 0; j < def->directives.count; j++) {
      const gql_ast_directive *d = def->directives.items[j];
      if (!gw_dir_is(d, "join__type") || !gw_arg(d, "key"))
        continue;
      uint32_t g;
      int rc = graph_of(l, d, &g);
      if (rc)
        return rc;
      gql_gw_type_graph *tg =
          (gql_gw_type_graph *)gql_supergraph_type_graph(t, g);
      gql_gw_key *k = &tg->keys[seen[g]++];
      rc = field_set(l, d, "key", t, &k->fields, "@join__type key");
      if (rc)
        return rc;
      if (seen[g] == 1) {
        tg->key = k->fields;
        tg->key_text = k->text;
      }
    }
    for (uint32_t j = 0; j < def->fields.count; j++) {
      const gql_ast_field_def *fd = def->fields.items[j];
      gql_gw_field *f = &t->fields[j];
      uint32_t k = 0;
      for (uint32_t m = 0; m < fd->directives.count; m++) {
        const gql_ast_directive *d = fd->directives.items[m];
        if (!gw_dir_is(d, "join__field") || !gw_arg(d, "graph"))
          continue;
        gql_gw_field_graph *fg = &f->graphs[k++];
        int rc = field_set(l, d, "requires", t, &fg->requires,
                           "@join__field requires");
        if (!rc && gw_arg(d, "provides")) {
          const gql_gw_type *ft = fg->named ? fg->named : f->named;
          if (!ft ||
              !(ft->kind == GQL_AST_OBJECT_TYPE_DEFINITION || ft->is_abstract))
            return fail_at(l, GQL_ESCHEMA, d->h.start,
                           "provides on %.*s.%.*s, which returns no object",
                           (int)t->name.len, t->name.ptr, (int)f->name.len,
                           f->name.ptr);
          rc = field_set(l, d, "provides", ft, &fg->provides,
                         "@join__field provides");
        }
        if (rc)
          return rc;
      }
    }
  }
  return 0;
}

static int index_fields(loader *l) {
  gql_supergraph *sg = l->sg;
  uint32_t total = 0;
  for (uint32_t i = 0; i < sg->ntypes; i++)
    total += sg->types[i].nfields;
  sg->field_list =
      gql_arena_alloc(sg->arena, (total + 1) * sizeof *sg->field_list);
  if (!sg->field_list)
    return OOM(l);
  uint32_t n = 0;
  for (uint32_t i = 0; i < sg->ntypes; i++) {
    const gql_gw_type *t = &sg->types[i];
    if (t->nfields <= 16)
      continue;
    for (uint32_t j = 0; j < t->nfields; j++) {
      const gql_gw_field *f = &t->fields[j];
      /* "Type.field", copied (not formatted: sprintf was 11% of the
       * load of bench/gateway-scale) */
      size_t len = t->name.len + 1 + f->name.len;
      char *k = gql_arena_alloc(sg->arena, len);
      if (!k)
        return OOM(l);
      memcpy(k, t->name.ptr, t->name.len);
      k[t->name.len] = '.';
      memcpy(k + t->name.len + 1, f->name.ptr, f->name.len);
      sg->field_list[n] = f;
      if (gql_strmap_put(&sg->field_index, (gql_str){k, len}, n++) < 0)
        return OOM(l);
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- load */

static int load(loader *l) {
  gql_supergraph *sg = l->sg;
  gql_syntax_error se;
  gql_parse_options po = {.max_tokens = UINT32_MAX,
                          .max_size = (size_t)1 << 30};
  int rc = gql_parse_syntax(sg->arena, sg->source, sg->source_len, &po,
                            &sg->doc, &se);
  if (rc == GQL_ENOMEM)
    return OOM(l);
  if (rc)
    return fail_at(l, rc, se.offset, "%s",
                   se.message ? se.message : "Syntax Error");
  const gql_document *doc = sg->doc;
  sg->query_type = GQL_STR("Query");
  sg->mutation_type = GQL_STR("Mutation");
  sg->subscription_type = GQL_STR("Subscription");
  uint32_t ntypes = 0;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (gql_ast_is_type_definition(n->kind))
      ntypes++;
    if (n->kind == GQL_AST_ENUM_TYPE_DEFINITION &&
        gql_str_eq_cstr(gql_ast_name_str(((const gql_ast_type_def *)n)->name),
                        "join__Graph")) {
      rc = read_graphs(l, (const gql_ast_type_def *)n);
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
        if (o->operation == GQL_OP_SUBSCRIPTION)
          sg->subscription_type = name;
      }
    }
  }
  if (sg->ngraphs == 0)
    return fail_at(l, GQL_ESCHEMA, 0,
                   "not a supergraph: no enum join__Graph with @join__graph");
  sg->types = gql_arena_alloc(sg->arena, (ntypes + 1) * sizeof *sg->types);
  if (!sg->types)
    return OOM(l);
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *n = doc->definitions.items[i];
    if (!gql_ast_is_type_definition(n->kind))
      continue;
    rc = read_type(l, (const gql_ast_type_def *)n);
    if (rc)
      return rc;
  }
  if (!gql_supergraph_type(sg, sg->query_type))
    return fail_at(l, GQL_ESCHEMA, 0, "the supergraph has no type %.*s",
                   (int)sg->query_type.len, sg->query_type.ptr);
  rc = index_fields(l);
  if (!rc)
    rc = link_types(l);
  if (!rc)
    rc = link_overrides(l);
  if (!rc)
    rc = link_field_sets(l);
  if (rc)
    return rc;
  gql_buf out;
  gql_buf_init(&out, NULL);
  rc = gql_gw_api_sdl(sg, &out);
  if (rc) {
    gql_buf_free(&out);
    return OOM(l);
  }
  char *copy = gql_arena_strndup(sg->arena, out.data ? out.data : "", out.len);
  sg->api_sdl = (gql_str){copy, out.len};
  gql_buf_free(&out);
  if (!copy)
    return OOM(l);
  gql_errors errors = {.arena = l->err_arena ? l->err_arena : sg->arena};
  rc = gql_schema_from_sdl(sg->api_sdl.ptr, sg->api_sdl.len, NULL, &sg->api,
                           &errors);
  if (rc)
    return fail_at(l, GQL_ESCHEMA, 0, "the API schema does not build: %s",
                   errors.count && errors.items[0].message
                       ? errors.items[0].message
                       : gql_strerror(rc));
  return 0;
}

int gql_supergraph_load(const char *sdl, size_t len, gql_supergraph **out,
                        gql_arena *err_arena, const char **err) {
  const char *dummy;
  if (!err)
    err = &dummy;
  *err = NULL;
  *out = NULL;
  gql_supergraph *sg = calloc(1, sizeof *sg);
  if (!sg) {
    *err = "out of memory";
    return GQL_ENOMEM;
  }
  sg->arena = gql_arena_new(NULL);
  gql_strmap_init(&sg->type_index, NULL);
  gql_strmap_init(&sg->field_index, NULL);
  gql_strmap_init(&sg->graph_index, NULL);
  sg->source = sg->arena ? gql_arena_strndup(sg->arena, sdl, len) : NULL;
  sg->source_len = len;
  if (!sg->source) {
    gql_supergraph_free(sg);
    *err = "out of memory";
    return GQL_ENOMEM;
  }
  loader l = {sg, err_arena, err};
  int rc = load(&l);
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
  gql_strmap_free(&sg->field_index);
  gql_strmap_free(&sg->graph_index);
  gql_arena_free(sg->arena);
  free(sg);
}
