/* libFuzzer target: the bytes as a document validated with every rule
 * against a small schema with interfaces, unions, input objects, enums,
 * directives (graphql-js 17's @defer and @stream among them) and a
 * subscription type. Errors must carry sane locations. */
#include "validation/validation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "schema { query: Query mutation: Query subscription: Sub }\n"
    "directive @d(a: Int, b: [In!]) repeatable on FIELD | QUERY | "
    "FRAGMENT_SPREAD | INLINE_FRAGMENT | VARIABLE_DEFINITION\n"
    "directive @once on FIELD | FRAGMENT_DEFINITION\n"
    "interface Node { id: ID! }\n"
    "interface Pet implements Node { id: ID! name(x: Int = 1): String }\n"
    "type Dog implements Pet & Node { id: ID! name(x: Int = 1): String "
    "friends(first: Int!, in: In): [Dog!]! kind: Kind }\n"
    "type Cat implements Pet & Node { id: ID! name(x: Int = 1): String "
    "lives: Int }\n"
    "union Any = Dog | Cat\n"
    "enum Kind { A B C }\n"
    "input In { k: Kind = A, n: In, l: [Int!], s: String! }\n"
    "input One @oneOf { a: Int b: String }\n"
    "type Query { node(id: ID!): Node pets: [Pet] any: Any dog: Dog "
    "one(o: One): Int in(i: In): Int }\n"
    "type Sub { a: Int b: Dog }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* built once: a fuzzing process, like main, may keep it */
  static gql_schema *schema;
  if (!schema) {
    gql_arena *a = gql_arena_new(NULL);
    gql_error_list errors;
    gql_error_list_init(&errors, a, 0);
    gql_schema_build_options bo = {.defer_stream = true};
    if (gql_schema_build(sdl, sizeof sdl - 1, NULL, &bo, &schema, &errors))
      __builtin_trap();
    gql_arena_free(a);
  }
  const char *src = (const char *)data;
  gql_parse_options o = {
      .max_tokens = 4000, .max_depth = 64, .max_size = 1 << 16};
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return 0;
  gql_arena_set_limit(arena, 256u << 20);
  gql_syntax_error err;
  gql_document *doc = NULL;
  if (gql_parse_syntax(arena, src, size, &o, &doc, &err) == 0) {
    gql_error_list errors;
    gql_error_list_init(&errors, arena, 0);
    int rc = gql_validate_document(schema, doc, NULL, 0, NULL, &errors);
    if (rc != 0 && rc != GQL_ENOMEM)
      __builtin_trap();
    if (errors.count > 101)
      __builtin_trap();
    for (uint32_t i = 0; i < errors.count; i++)
      for (uint32_t j = 0; j < errors.items[i].nlocations; j++)
        if (errors.items[i].locations[j].line == 0 ||
            errors.items[i].locations[j].column == 0)
          __builtin_trap();
  }
  gql_arena_free(arena);
  return 0;
}
