#include "ast.h"

static const char *const kind_names[] = {
#define X(e, n) #n,
    GQL_AST_KINDS(X)
#undef X
};

const char *gql_ast_kind_name(gql_ast_kind kind) {
  return (unsigned)kind < GQL_AST_KIND_COUNT ? kind_names[kind] : "Unknown";
}

const gql_ast_directive *gql_ast_find_directive(const gql_ast_directives *dirs,
                                                const char *name) {
  for (uint32_t i = 0; i < dirs->count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(dirs->items[i]->name), name))
      return dirs->items[i];
  return NULL;
}

const gql_ast_argument *gql_ast_find_argument(const gql_ast_arguments *args,
                                              const char *name) {
  for (uint32_t i = 0; i < args->count; i++)
    if (gql_str_eq_cstr(gql_ast_name_str(args->items[i]->name), name))
      return args->items[i];
  return NULL;
}
