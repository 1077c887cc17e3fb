#include "ast.h"

static const char *const kind_names[] = {
#define X(e, n) #n,
    GQL_AST_KINDS(X)
#undef X
};

const char *gql_ast_kind_name(gql_ast_kind kind) {
  return (unsigned)kind < GQL_AST_KIND_COUNT ? kind_names[kind] : "Unknown";
}
