/* Demand control's estimate on arbitrary documents (validated or not)
 * against a schema with @cost and @listSize everywhere: the input is the
 * document, then optionally a NUL byte and the variables as JSON. Every
 * operation is estimated: an estimate is finite and not negative (every
 * weight in the schema is), a failure carries a message, and nothing runs
 * unbounded (fragment cycles, fragment bombs). */
#include "language/ast.h"
#include "validation/cost.h"
#include "json/json.h"

#include <math.h>
#include <stdint.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static const char sdl[] =
    "directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | "
    "FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR\n"
    "directive @listSize(assumedSize: Int, slicingArguments: [String!], "
    "sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on "
    "FIELD_DEFINITION\n"
    "type Query { hero: Character heroes(first: Int = 5, f: Filter): "
    "[Character] @listSize(slicingArguments: [\"first\", \"f.n\"], "
    "requireOneSlicingArgument: false) page(first: Int): Page "
    "@listSize(slicingArguments: [\"first\"], sizedFields: [\"items\"]) "
    "kind(k: Kind @cost(weight: \"3\")): Kind money: Money }\n"
    "type Mutation { like(ids: [ID!]): [Character] @listSize(slicingArguments:"
    " [\"ids\"]) }\n"
    "interface Character { id: ID friends(first: Int): [Character] "
    "@listSize(slicingArguments: [\"first\"], assumedSize: 7) }\n"
    "type Human implements Character @cost(weight: \"2\") { id: ID friends("
    "first: Int): [Character] name: String @cost(weight: \"1.5\") }\n"
    "type Droid implements Character { id: ID friends(first: Int): "
    "[Character] }\n"
    "union Any = Human | Droid\n"
    "type Page { items: [Any] total: Int }\n"
    "enum Kind @cost(weight: \"4\") { A B }\n"
    "scalar Money @cost(weight: \"6\")\n"
    "input Filter { n: Int @cost(weight: \"8\") next: Filter }\n";

static gql_schema *schema;
static gql_cost_schema *cs;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!schema) {
    CHECK(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) == 0);
    char err[128];
    gql_cost_options o = {.list_size = 10, .max_work = 200000};
    CHECK(gql_cost_schema_new(schema, &o, &cs, err, sizeof err) == 0);
  }
  const char *text = (const char *)data;
  size_t qlen = 0;
  while (qlen < size && data[qlen])
    qlen++;
  gql_arena *a = gql_arena_new(NULL);
  CHECK(a != NULL);
  gql_arena_set_limit(a, (size_t)256 << 20);
  gql_json_value *vars = NULL;
  if (qlen + 1 < size && gql_json_parse(a, text + qlen + 1, size - qlen - 1,
                                        NULL, &vars, NULL) != 0)
    vars = NULL;
  gql_document *doc = NULL;
  gql_syntax_error serr;
  if (gql_parse_syntax(a, text, qlen, NULL, &doc, &serr) == 0) {
    for (uint32_t i = 0; i < doc->definitions.count; i++) {
      const gql_ast_node *d = doc->definitions.items[i];
      if (d->kind != GQL_AST_OPERATION_DEFINITION)
        continue;
      double cost = -1;
      const char *error = NULL;
      int rc = gql_cost_estimate(cs, doc, (const gql_ast_operation *)d, vars, a,
                                 &cost, &error);
      if (rc == 0) {
        CHECK(isfinite(cost) || isinf(cost));
        CHECK(!(cost < 0));
      } else {
        CHECK(error && error[0]);
        CHECK(rc == GQL_EINVAL || rc == GQL_ELIMIT || rc == GQL_ENOMEM);
      }
    }
  }
  gql_arena_free(a);
  return 0;
}
