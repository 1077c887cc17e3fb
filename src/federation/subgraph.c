/* gql as a federation subgraph: SDL in, _service and _entities out (see
 * subgraph.h for the contract). */
#include "federation/subgraph.h"

#include "language/ast.h"
#include "schema/schema.h"
#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entity {
  gql_str name; /* in sg->arena */
  uint32_t type;
  gql_ast_selection_set **keys; /* the field sets of its resolvable @keys */
  uint32_t nkeys, capkeys;
  gql_entity_fn fn;
  void *data;
  bool pends; /* fn may write gql_out_pending */
} entity;

struct gql_subgraph {
  const gql_allocator *alc;
  gql_arena *arena; /* SDL copy, entity table, key field sets */
  gql_str sdl;      /* as given, for _service { sdl } */
  gql_schema *schema;
  entity *entities; /* room for one per definition of the SDL */
  uint32_t nentities;
  gql_strmap entity_index; /* name -> index in entities */
  const gql_json_value *json;
  const char *root; /* the query root's name, NUL-terminated */
};

/* Federation definitions, each added unless the SDL defines that name. */
typedef struct fed_def {
  const char *name; /* "@key" for a directive, "Type" for a type */
  const char *text;
} fed_def;

static const fed_def fed_defs[] = {
    {"_FieldSet", "scalar _FieldSet"},
    {"FieldSet", "scalar FieldSet"},
    {"federation__FieldSet", "scalar federation__FieldSet"},
    {"link__Import", "scalar link__Import"},
    {"link__Purpose", "enum link__Purpose { SECURITY EXECUTION }"},
    {"@link", "directive @link(url: String!, as: String, for: link__Purpose, "
              "import: [link__Import]) repeatable on SCHEMA"},
    {"@key", "directive @key(fields: _FieldSet!, resolvable: Boolean = true) "
             "repeatable on OBJECT | INTERFACE"},
    {"@requires", "directive @requires(fields: _FieldSet!) on "
                  "FIELD_DEFINITION"},
    {"@provides", "directive @provides(fields: _FieldSet!) on "
                  "FIELD_DEFINITION"},
    {"@external", "directive @external(reason: String) on OBJECT | "
                  "FIELD_DEFINITION"},
    {"@shareable", "directive @shareable repeatable on OBJECT | "
                   "FIELD_DEFINITION"},
    {"@extends", "directive @extends on OBJECT | INTERFACE"},
    {"@inaccessible",
     "directive @inaccessible on FIELD_DEFINITION | OBJECT | INTERFACE | "
     "UNION | ARGUMENT_DEFINITION | SCALAR | ENUM | ENUM_VALUE | "
     "INPUT_OBJECT | INPUT_FIELD_DEFINITION"},
    {"@tag", "directive @tag(name: String!) repeatable on FIELD_DEFINITION | "
             "OBJECT | INTERFACE | UNION | ARGUMENT_DEFINITION | SCALAR | "
             "ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION | "
             "SCHEMA"},
    {"@override", "directive @override(from: String!, label: String) on "
                  "FIELD_DEFINITION"},
    {"@composeDirective", "directive @composeDirective(name: String!) "
                          "repeatable on SCHEMA"},
    {"@interfaceObject", "directive @interfaceObject on OBJECT"},
    {"@authenticated", "directive @authenticated on FIELD_DEFINITION | OBJECT "
                       "| INTERFACE | SCALAR | ENUM"},
    {"_Any", "scalar _Any"},
    {"_Service", "type _Service { sdl: String }"},
};

/* ---------------------------------------------------------- SDL analysis */

static const gql_ast_value *arg_named(const gql_ast_directive *d,
                                      const char *n) {
  for (uint32_t i = 0; i < d->args.count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(d->args.items[i]->name), n))
      return d->args.items[i]->value;
  return NULL;
}

static entity *find_entity(const gql_subgraph *sg, gql_str name) {
  uint32_t i;
  return gql_strmap_get(&sg->entity_index, name, &i) ? &sg->entities[i] : NULL;
}

/* Parses a @key's `fields` as the selection set "{ fields }". */
static gql_ast_selection_set *parse_field_set(gql_arena *a, gql_str fields) {
  char *text = gql_arena_alloc(a, fields.len + 3);
  if (!text)
    return NULL;
  text[0] = '{';
  memcpy(text + 1, fields.ptr, fields.len);
  text[fields.len + 1] = '}';
  text[fields.len + 2] = 0;
  gql_document *doc = NULL;
  gql_syntax_error err;
  if (gql_parse_syntax(a, text, fields.len + 2, NULL, &doc, &err) < 0 ||
      doc->definitions.count != 1 ||
      doc->definitions.items[0]->kind != GQL_AST_OPERATION_DEFINITION)
    return NULL;
  return ((gql_ast_operation *)doc->definitions.items[0])->selection_set;
}

/* Records the resolvable @keys of an object type definition or extension. */
static int add_keys(gql_subgraph *sg, const gql_ast_type_def *t) {
  for (uint32_t at = 0; at < t->directives.count; at++) {
    const gql_ast_directive *d = t->directives.items[at];
    gql_str dn = gql_ast_name_str(d->name);
    if (!gql_str_eq_cstr(dn, "key") && !gql_str_eq_cstr(dn, "federation__key"))
      continue;
    const gql_ast_value *res = arg_named(d, "resolvable");
    if (res && res->h.kind == GQL_AST_BOOLEAN_VALUE && !res->u.boolean)
      continue;
    const gql_ast_value *f = arg_named(d, "fields");
    if (!f || f->h.kind != GQL_AST_STRING_VALUE)
      continue; /* the schema build reports the missing argument */
    gql_str name = gql_ast_name_str(t->name);
    entity *e = find_entity(sg, name);
    if (!e) { /* sg->entities has room for one per definition */
      if (gql_strmap_put(&sg->entity_index, name, sg->nentities) < 0)
        return GQL_ENOMEM;
      e = &sg->entities[sg->nentities++];
      *e = (entity){.name = name};
    }
    gql_ast_selection_set *set = parse_field_set(sg->arena, f->u.string.value);
    if (!set)
      continue; /* not a selection: no lookup by it */
    if (!GQL_ARRAY_RESERVE_FIRST(sg->arena, e->keys, e->capkeys, e->nkeys + 1,
                                 2))
      return GQL_ENOMEM;
    e->keys[e->nkeys++] = set;
  }
  return 0;
}

/* The name of the query root: "Query" unless a schema definition or
 * extension names another. */
static gql_str query_root(const gql_document *doc) {
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind != GQL_AST_SCHEMA_DEFINITION &&
        d->kind != GQL_AST_SCHEMA_EXTENSION)
      continue;
    const gql_ast_schema_def *sd = (const gql_ast_schema_def *)d;
    for (uint32_t j = 0; j < sd->operation_types.count; j++)
      if (sd->operation_types.items[j]->operation == GQL_OP_QUERY)
        return gql_ast_name_str(sd->operation_types.items[j]->type->name);
  }
  return gql_cstr("Query");
}

/* The text to build: the SDL with "extend" blanked on the first extension
 * of each type the SDL never defines (offsets stay those of the SDL, so
 * error positions do too), then the federation definitions it lacks and
 * the subgraph's own types and root fields. */
static int subgraph_text(gql_subgraph *sg, const gql_document *doc,
                         gql_buf *out) {
  uint32_t n = doc->definitions.count;
  sg->entities = gql_arena_alloc(sg->arena, (n + 1) * sizeof *sg->entities);
  if (!sg->entities)
    return GQL_ENOMEM;
  gql_strmap defined; /* type names and "@directive" names */
  gql_strmap_init(&defined, sg->alc);
  int rc = 0;
  for (uint32_t i = 0; i < n && rc >= 0; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (gql_ast_is_type_definition(d->kind)) {
      rc = gql_strmap_put(&defined,
                          gql_ast_name_str(((gql_ast_type_def *)d)->name), 0);
    } else if (d->kind == GQL_AST_DIRECTIVE_DEFINITION) {
      gql_ast_name nm = ((gql_ast_directive_def *)d)->name;
      char *s = gql_arena_alloc(sg->arena, nm.len + 1);
      if (!s) {
        rc = GQL_ENOMEM;
        break;
      }
      s[0] = '@';
      memcpy(s + 1, nm.ptr, nm.len);
      rc = gql_strmap_put(&defined, gql_str_from(s, nm.len + 1), 0);
    }
  }
  /* Federation definitions the SDL lacks (decided before extensions turn
   * into definitions below). */
  bool add_fed[sizeof fed_defs / sizeof fed_defs[0]];
  bool add_ns[sizeof fed_defs / sizeof fed_defs[0]]; /* @federation__X */
  uint32_t v;
  for (size_t i = 0; i < sizeof fed_defs / sizeof fed_defs[0]; i++) {
    const char *nm = fed_defs[i].name;
    add_fed[i] = !gql_strmap_get(&defined, gql_cstr(nm), &v);
    char ns[64];
    snprintf(ns, sizeof ns, "@federation__%s", nm + 1);
    add_ns[i] = nm[0] == '@' && strcmp(nm, "@link") != 0 &&
                !gql_strmap_get(&defined, gql_cstr(ns), &v);
  }
  gql_buf_put_str(out, sg->sdl);
  char *text = out->data;
  for (uint32_t i = 0; i < n && rc >= 0 && !out->failed; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (!gql_ast_is_type_extension(d->kind))
      continue;
    gql_str name = gql_ast_name_str(((const gql_ast_type_def *)d)->name);
    rc = gql_strmap_put(&defined, name, 0);
    if (rc == 1 && d->start + 6 <= sg->sdl.len &&
        memcmp(text + d->start, "extend", 6) == 0)
      memset(text + d->start, ' ', 6); /* now the type's definition */
  }
  gql_str root = query_root(doc);
  bool has_query = gql_strmap_get(&defined, root, &v);
  gql_strmap_free(&defined);
  if (rc < 0 || out->failed)
    return GQL_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (d->kind == GQL_AST_OBJECT_TYPE_DEFINITION ||
        d->kind == GQL_AST_OBJECT_TYPE_EXTENSION) {
      if ((rc = add_keys(sg, (const gql_ast_type_def *)d)) < 0)
        return rc;
    }
  }
  gql_buf_puts(out, "\n");
  for (size_t i = 0; i < sizeof fed_defs / sizeof fed_defs[0]; i++) {
    if (add_fed[i]) {
      gql_buf_puts(out, fed_defs[i].text);
      gql_buf_puts(out, "\n");
    }
    if (add_ns[i]) { /* Federation 2's namespaced name of the directive */
      gql_buf_puts(out, "directive @federation__");
      gql_buf_puts(out, fed_defs[i].text + strlen("directive @"));
      gql_buf_puts(out, "\n");
    }
  }
  if (sg->nentities) {
    gql_buf_puts(out, "union _Entity =");
    for (uint32_t i = 0; i < sg->nentities; i++) {
      gql_buf_puts(out, i ? " | " : " ");
      gql_buf_put_str(out, sg->entities[i].name);
    }
    gql_buf_puts(out, "\n");
  }
  if (!(sg->root = gql_arena_strndup(sg->arena, root.ptr, root.len)))
    return GQL_ENOMEM;
  gql_buf_puts(out, has_query ? "extend type " : "type ");
  gql_buf_put_str(out, root);
  gql_buf_puts(out, " {\n");
  if (sg->nentities)
    gql_buf_puts(out, "  _entities(representations: [_Any!]!): [_Entity]!\n");
  gql_buf_puts(out, "  _service: _Service!\n}\n");
  return out->failed ? GQL_ENOMEM : 0;
}

/* ------------------------------------------------------------- resolvers */

static void resolve_service(const gql_resolve_info *info, const void *parent,
                            gql_out *out) {
  gql_subgraph *sg = gql_info_data(info);
  gql_out_object(out, sg,
                 (uint32_t)gql_schema_type_by_name(sg->schema, "_Service", 8));
}

static void resolve_sdl(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  const gql_subgraph *sg = parent;
  gql_out_string(out, sg->sdl.ptr, sg->sdl.len);
}

typedef struct entities_call {
  gql_subgraph *sg;
  const gql_json_value *reps;
  void *context;
  gql_arena *arena;
} entities_call;

/* Key values compare as JSON, except that an integer in the document
 * matches its decimal string in the representation (an ID key arrives as a
 * string whichever way the document wrote it). */
static bool key_equal(const gql_json_value *a, const gql_json_value *b) {
  if (gql_json_equal(a, b))
    return true;
  if (a->kind == GQL_JSON_NUMBER && b->kind == GQL_JSON_STRING) {
    const gql_json_value *t = a;
    a = b;
    b = t;
  }
  if (a->kind != GQL_JSON_STRING || b->kind != GQL_JSON_NUMBER || !b->is_int)
    return false;
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%lld", (long long)b->number.i);
  return n > 0 && a->string.len == (size_t)n &&
         memcmp(a->string.ptr, digits, (size_t)n) == 0;
}

/* True when `data` equals `rep` on every field of `set` (nested selections
 * compare the sub-objects the same way). */
static bool matches_key(const gql_json_value *rep, const gql_json_value *data,
                        const gql_ast_selection_set *set) {
  if (!rep || !data || rep->kind != GQL_JSON_OBJECT ||
      data->kind != GQL_JSON_OBJECT)
    return false;
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *s = set->selections.items[i];
    if (s->h.kind != GQL_AST_FIELD)
      return false;
    gql_str name = gql_ast_name_str(s->name);
    const gql_json_value *a = gql_json_get(rep, name);
    const gql_json_value *b = gql_json_get(data, name);
    if (!a || !b)
      return false;
    if (s->selection_set ? !matches_key(a, b, s->selection_set)
                         : !key_equal(a, b))
      return false;
  }
  return true;
}

static bool has_key_fields(const gql_json_value *rep,
                           const gql_ast_selection_set *set) {
  for (uint32_t i = 0; i < set->selections.count; i++) {
    const gql_ast_selection *s = set->selections.items[i];
    if (s->h.kind != GQL_AST_FIELD ||
        !gql_json_get(rep, gql_ast_name_str(s->name)))
      return false;
  }
  return true;
}

/* The representation's members, then the data object's: the default
 * resolver reads the last duplicate, so the data wins where both have a
 * field and the representation supplies the rest (@requires fields). */
static const gql_json_value *merge(gql_arena *a, const gql_json_value *rep,
                                   const gql_json_value *data) {
  size_t n = rep->object.count + data->object.count;
  gql_json_value *v = gql_arena_alloc(a, sizeof *v);
  gql_json_member *m = gql_arena_alloc(a, (n ? n : 1) * sizeof *m);
  if (!v || !m)
    return NULL;
  memcpy(m, rep->object.members, rep->object.count * sizeof *m);
  memcpy(m + rep->object.count, data->object.members,
         data->object.count * sizeof *m);
  *v = (gql_json_value){.kind = GQL_JSON_OBJECT};
  v->object.members = m;
  v->object.count = n;
  return v;
}

static void json_entity(const entities_call *c, const entity *e,
                        const gql_json_value *rep, gql_out *out) {
  const gql_json_value *list =
      c->sg->json && c->sg->json->kind == GQL_JSON_OBJECT
          ? gql_json_get(c->sg->json, e->name)
          : NULL;
  if (!list || list->kind != GQL_JSON_ARRAY) {
    gql_out_json(out, rep); /* no data for the type: the representation */
    return;
  }
  for (uint32_t k = 0; k < e->nkeys; k++) {
    if (!has_key_fields(rep, e->keys[k]))
      continue;
    for (size_t i = 0; i < list->array.count; i++) {
      const gql_json_value *item = &list->array.items[i];
      if (matches_key(rep, item, e->keys[k])) {
        const gql_json_value *v = merge(c->arena, rep, item);
        if (!v)
          gql_out_error(out, "out of memory");
        else
          gql_out_object(out, v, e->type);
        return;
      }
    }
  }
  gql_out_null(out);
}

static void entity_item(const void *list, size_t i, gql_out *out) {
  const entities_call *c = list;
  const gql_json_value *rep = &c->reps->array.items[i];
  const gql_json_value *tn = rep->kind == GQL_JSON_OBJECT
                                 ? gql_json_get(rep, gql_cstr("__typename"))
                                 : NULL;
  if (!tn || tn->kind != GQL_JSON_STRING) {
    gql_out_error(out, "The representation must be an object with a "
                       "\"__typename\" string.");
    return;
  }
  entity *e = find_entity(c->sg, tn->string);
  if (!e) {
    char msg[256];
    int len = (int)(tn->string.len > 100 ? 100 : tn->string.len);
    snprintf(msg, sizeof msg,
             "The _entities resolver tried to load an entity for type "
             "\"%.*s\", but no object type of that name was found in the "
             "schema",
             len, tn->string.ptr);
    gql_out_error(out, msg);
    return;
  }
  if (e->fn) {
    gql_entity_call call = {.representation = rep,
                            .type = e->type,
                            .index = i,
                            .data = e->data,
                            .context = c->context,
                            .arena = c->arena};
    e->fn(&call, out);
    return;
  }
  json_entity(c, e, rep, out);
}

static void resolve_entities(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  const gql_json_value *reps = gql_arg(info, "representations");
  entities_call *c = gql_arena_alloc(gql_info_arena(info), sizeof *c);
  if (!c) {
    gql_out_error(out, "out of memory");
    return;
  }
  *c = (entities_call){.sg = gql_info_data(info),
                       .reps = reps,
                       .context = gql_info_context(info),
                       .arena = gql_info_arena(info)};
  size_t n = reps && reps->kind == GQL_JSON_ARRAY ? reps->array.count : 0;
  gql_out_list(out, c, n, entity_item);
}

/* _entities is declared synchronous (so the query root can be proven
 * synchronous) unless an entity resolver may pend. */
static int set_entities_resolver(gql_subgraph *sg) {
  if (!sg->nentities)
    return 0;
  unsigned flags = GQL_RESOLVER_SYNC;
  for (uint32_t i = 0; i < sg->nentities; i++)
    if (sg->entities[i].pends)
      flags = 0;
  return gql_schema_set_resolver(sg->schema, sg->root, "_entities",
                                 resolve_entities, sg, flags);
}

/* ------------------------------------------------------------------ API */

int gql_subgraph_build(const char *sdl, size_t len, const gql_allocator *alc,
                       gql_subgraph **out, gql_error_list *errors) {
  *out = NULL;
  gql_subgraph *sg = calloc(1, sizeof *sg);
  gql_arena *arena = gql_arena_new(alc);
  char *copy = arena ? gql_arena_alloc(arena, len + 1) : NULL;
  if (!sg || !copy) {
    free(sg);
    gql_arena_free(arena);
    return GQL_ENOMEM;
  }
  memcpy(copy, sdl, len);
  copy[len] = 0;
  sg->alc = alc;
  sg->arena = arena;
  sg->sdl = gql_str_from(copy, len);
  gql_strmap_init(&sg->entity_index, alc);
  gql_buf text;
  gql_buf_init(&text, alc);
  gql_document *doc = NULL;
  gql_syntax_error serr;
  /* The limits of gql_schema_build: SDL comes from the service. */
  gql_parse_options po = {.max_tokens = UINT32_MAX,
                          .max_size = (size_t)1 << 30};
  int rc = gql_parse_syntax(arena, copy, len, &po, &doc, &serr);
  if (rc < 0) {
    /* The schema build reports the syntax error with its position. */
    int brc = gql_schema_build(copy, len, alc, NULL, &sg->schema, errors);
    if (brc < 0 && brc != GQL_ESCHEMA)
      rc = brc;
    goto fail;
  }
  if ((rc = subgraph_text(sg, doc, &text)) < 0)
    goto fail;
  if ((rc = gql_schema_build(text.data, text.len, alc, NULL, &sg->schema,
                             errors)) < 0)
    goto fail;
  for (uint32_t i = 0; i < sg->nentities; i++) {
    entity *e = &sg->entities[i];
    e->type =
        (uint32_t)gql_schema_type_by_name(sg->schema, e->name.ptr, e->name.len);
  }
  if ((rc = gql_schema_set_resolver(sg->schema, sg->root, "_service",
                                    resolve_service, sg, GQL_RESOLVER_SYNC)) <
          0 ||
      (rc = gql_schema_set_resolver(sg->schema, "_Service", "sdl", resolve_sdl,
                                    sg, GQL_RESOLVER_SYNC)) < 0)
    goto fail;
  if ((rc = set_entities_resolver(sg)) < 0)
    goto fail;
  gql_buf_free(&text);
  *out = sg;
  return 0;
fail:
  gql_buf_free(&text);
  gql_subgraph_free(sg);
  return rc;
}

void gql_subgraph_free(gql_subgraph *sg) {
  if (!sg)
    return;
  gql_schema_free(sg->schema);
  gql_strmap_free(&sg->entity_index);
  gql_arena_free(sg->arena);
  free(sg);
}

gql_schema *gql_subgraph_schema(const gql_subgraph *sg) {
  return sg->schema;
}

uint32_t gql_subgraph_entity_count(const gql_subgraph *sg) {
  return sg->nentities;
}

gql_str gql_subgraph_entity_name(const gql_subgraph *sg, uint32_t i) {
  return i < sg->nentities ? sg->entities[i].name : (gql_str){NULL, 0};
}

int gql_subgraph_set_entity(gql_subgraph *sg, const char *type,
                            gql_entity_fn fn, void *data, unsigned flags) {
  entity *e = find_entity(sg, gql_cstr(type));
  if (!e)
    return GQL_ENOTFOUND;
  e->fn = fn;
  e->data = data;
  e->pends = fn && !(flags & GQL_RESOLVER_SYNC);
  return set_entities_resolver(sg);
}

void gql_subgraph_set_json(gql_subgraph *sg, const gql_value *data) {
  sg->json = data;
}

int gql_subgraph_new(const char *sdl, size_t len, const gql_allocator *alc,
                     gql_subgraph **out, gql_errors *errors) {
  gql_error_list list;
  gql_error_list *l = gql_errors_begin(&list, errors, 100);
  if (!out || (!sdl && len))
    return GQL_EINVAL;
  int rc = gql_subgraph_build(sdl ? sdl : "", len, alc, out, l);
  gql_errors_end(l, errors);
  return rc;
}
