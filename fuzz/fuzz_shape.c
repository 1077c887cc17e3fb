/* libFuzzer target: the bytes are an operation document, prepared against
 * a small schema with fragments and recursion; gql_prepared_shape measures
 * it (the operation limits' input: depth, height, aliases, root fields,
 * introspection). It must never crash, and its measures must be coherent:
 * a non-empty operation has depth >= 1, at most as many root fields as
 * height... and __schema / __type found iff the text names them. */
#include "gql.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "type User { id: ID! name: String friends: [User!] best: User }\n"
    "type Query { me: User users(first: Int): [User] n: Int }\n";

static gql_schema *schema;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!schema &&
      gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) < 0)
    abort();
  if (size > 4096)
    return 0;
  gql_prepared *p = NULL;
  if (gql_prepare(schema, (const char *)data, size, NULL, NULL, &p, NULL) < 0)
    return 0;
  gql_operation_shape sh;
  if (gql_prepared_shape(p, &sh) < 0)
    abort();
  if (sh.root_fields && !sh.depth)
    abort();
  if (sh.introspection && !memmem(data, size, "__schema", 8) &&
      !memmem(data, size, "__type", 6))
    abort();
  gql_prepared_free(p);
  return 0;
}
