/* libFuzzer target: the bytes as a document, a value (const and not), a
 * type and a schema coordinate, with small limits so that deep or long
 * inputs hit them quickly. Every parse runs in an arena freed at the end. */
#include "language/ast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *src = (const char *)data;
  gql_parse_options o = {
      .max_tokens = 2000, .max_depth = 64, .max_size = 1 << 16};
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return 0;
  gql_arena_set_limit(arena, 64u << 20);
  gql_syntax_error err;
  gql_document *doc = NULL;
  if (gql_parse_syntax(arena, src, size, &o, &doc, &err) == 0) {
    /* Spans must lie inside the source. */
    for (uint32_t i = 0; i < doc->definitions.count; i++) {
      const gql_ast_node *d = doc->definitions.items[i];
      if (d->start > d->end || d->end > size)
        __builtin_trap();
    }
  } else if (err.message && err.offset > size) {
    __builtin_trap();
  }
  gql_arena_reset(arena);
  gql_ast_value *v;
  gql_parse_value(arena, src, size, &o, false, &v, &err);
  gql_parse_value(arena, src, size, &o, true, &v, &err);
  gql_arena_reset(arena);
  gql_ast_type *t;
  gql_parse_type(arena, src, size, &o, &t, &err);
  gql_ast_schema_coordinate *c;
  gql_parse_schema_coordinate(arena, src, size, &c, &err);
  gql_arena_free(arena);
  return 0;
}
