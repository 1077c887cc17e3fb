/* KnownTypeNamesRule: every named type exists in the schema or is defined
 * by the document (type-system definitions in the document included, where
 * the standard scalars and introspection types are always known). */
#include "../schema/internal.h"
#include "internal.h"

static const char *const standard_names[] = {
    "String",    "Int",      "Float",        "Boolean",
    "ID",        "__Schema", "__Directive",  "__DirectiveLocation",
    "__Type",    "__Field",  "__InputValue", "__EnumValue",
    "__TypeKind"};

typedef struct state {
  bool sdl;          /* the current definition is a type-system one */
  bool defined_done; /* `defined` was built */
  gql_namemap defined;
  gql_str *defined_names; /* in document order, each once */
  uint32_t ndefined;
} state;

static bool build_defined(gql_vctx *ctx, state *s) {
  s->defined_done = true;
  const gql_document *doc = ctx->doc;
  s->defined_names = gql_arena_alloc(ctx->arena, (doc->definitions.count + 1) *
                                                     sizeof *s->defined_names);
  if (!s->defined_names)
    return false;
  for (uint32_t i = 0; i < doc->definitions.count; i++) {
    const gql_ast_node *d = doc->definitions.items[i];
    if (!gql_ast_is_type_definition(d->kind))
      continue;
    gql_str name = gql_ast_name_str(((const gql_ast_type_def *)d)->name);
    int rc = gql_namemap_put(&s->defined, ctx->arena, name, 0);
    if (rc < 0)
      return false;
    if (rc)
      s->defined_names[s->ndefined++] = name;
  }
  return true;
}

static bool is_standard(gql_str name) {
  for (size_t i = 0; i < GQL_ARRAY_LEN(standard_names); i++)
    if (gql_str_eq_cstr(name, standard_names[i]))
      return true;
  return false;
}

static void report(gql_vctx *ctx, state *s, const gql_ast_type *node) {
  const gql_schema *schema = ctx->schema;
  gql_str name = gql_ast_name_str(node->name);
  uint32_t nstd = s->sdl ? (uint32_t)GQL_ARRAY_LEN(standard_names) : 0;
  uint32_t n = nstd + schema->ntypes + s->ndefined;
  gql_str *options = gql_arena_alloc(ctx->arena, n * sizeof *options);
  gql_str best[5];
  if (!options) {
    ctx->errors->nomem = true;
    return;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < nstd; i++)
    options[k++] = gql_cstr(standard_names[i]);
  for (uint32_t i = 0; i < schema->ntypes; i++)
    options[k++] = schema->types[i].name;
  for (uint32_t i = 0; i < s->ndefined; i++)
    options[k++] = s->defined_names[i];
  uint32_t nbest = gql_suggestion_list(name, options, k, best, 5, ctx->arena);
  gql_buf b;
  gql_allocator b_alc = gql_arena_allocator(ctx->arena);
  gql_buf_init(&b, &b_alc);
  gql_did_you_mean(&b, NULL, best, nbest);
  const char *dym = gql_buf_cstr(&b);
  uint32_t at = node->h.start;
  if (dym)
    gql_vctx_report(ctx, &at, 1, "Unknown type \"%.*s\".%s", (int)name.len,
                    name.ptr, dym);
  else
    ctx->errors->nomem = true;
  gql_buf_free(&b);
}

static bool enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  state *s = st;
  int k = node->kind;
  if (k == GQL_AST_OPERATION_DEFINITION || k == GQL_AST_FRAGMENT_DEFINITION) {
    s->sdl = false;
    return true;
  }
  if (k == GQL_AST_SCHEMA_DEFINITION || k == GQL_AST_SCHEMA_EXTENSION ||
      k == GQL_AST_DIRECTIVE_DEFINITION || gql_ast_is_type_definition(k) ||
      gql_ast_is_type_extension(k)) {
    s->sdl = true;
    return true;
  }
  if (k != GQL_AST_NAMED_TYPE)
    return true;
  if (!s->defined_done && !build_defined(ctx, s)) {
    ctx->errors->nomem = true;
    return true;
  }
  const gql_ast_type *t = (const gql_ast_type *)node;
  gql_str name = gql_ast_name_str(t->name);
  uint32_t unused;
  if (gql_vctx_type_index(ctx, name) != GQL_NO_TYPE ||
      gql_namemap_get(&s->defined, name, &unused))
    return true;
  if (s->sdl && is_standard(name))
    return true;
  report(ctx, s, t);
  return true;
}

const gql_vrule gql_rule_KnownTypeNamesRule = {
    "KnownTypeNamesRule", sizeof(state), NULL, enter, NULL};
