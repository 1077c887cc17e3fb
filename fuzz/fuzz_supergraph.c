/* libFuzzer target: the bytes as a supergraph. A bad one must be refused
 * with an error message, never a crash or unbounded memory; one that loads
 * must give an API schema that prints, and simple operations over its
 * query type must validate and plan (or be refused with a message).
 * Seeds: scripts/fuzz.sh gathers the gateway benchmark's supergraph and
 * the audit's (when composed) at fuzz time; fuzz/seeds/fuzz_supergraph/
 * keeps small cases and what the fuzzer found. */
#include "gateway/gateway.h"
#include "schema/schema.h"
#include "validation/validation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Plans `{ f }` or `{ f { __typename } }` for the first fields of the query
 * type that take no required argument. */
static void plan_simple(const gql_supergraph *sg) {
  const gql_schema *s = sg->api;
  if (s->query == GQL_NO_TYPE)
    return;
  const gql_type *q = gql_schema_type_at(s, s->query);
  for (uint32_t i = 0; i < q->nfields && i < 8; i++) {
    const gql_field *f = &q->fields[i];
    bool required = false;
    for (uint32_t a = 0; a < f->nargs; a++)
      required |= gql_type_ref_is_non_null(f->args[a].type) &&
                  !f->args[a].default_value;
    if (required)
      continue;
    gql_arena *arena = gql_arena_new(NULL);
    gql_arena_set_limit(arena, 64u << 20);
    char *text = gql_arena_sprintf(
        arena, "{ %.*s%s }", (int)f->name.len, f->name.ptr,
        gql_schema_is_composite(s, f->type.type) ? " { __typename }" : "");
    gql_document *doc = NULL;
    gql_syntax_error se;
    if (text &&
        gql_parse_syntax(arena, text, strlen(text), NULL, &doc, &se) == 0) {
      gql_error_list errors;
      gql_error_list_init(&errors, arena, 0);
      int rc = gql_validate_document(s, doc, NULL, 0, NULL, &errors);
      if (rc == 0 && errors.count == 0) {
        gql_gw_plan *plan = NULL;
        const char *err = NULL;
        rc = gql_gw_plan_build(sg, doc, NULL, arena, &plan, &err);
        if (rc == 0) {
          gql_buf b;
          gql_buf_init(&b, NULL);
          gql_gw_plan_print(plan, &b);
          gql_buf_free(&b);
        } else if (rc != GQL_ENOMEM && (!err || !*err)) {
          __builtin_trap(); /* a refusal says why */
        }
      }
    }
    gql_arena_free(arena);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gql_arena *err_arena = gql_arena_new(NULL);
  if (!err_arena)
    return 0;
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  int rc = gql_supergraph_load((const char *)data, size, &sg, err_arena, &err);
  if (rc) {
    if (sg || !err || !*err)
      __builtin_trap(); /* refused: no supergraph, and a message */
  } else {
    const char *text;
    size_t len;
    gql_arena *a = gql_arena_new(NULL);
    if (gql_schema_print(sg->api, a, &text, &len) == 0 && len == 0)
      __builtin_trap();
    gql_arena_free(a);
    plan_simple(sg);
    gql_supergraph_free(sg);
  }
  gql_arena_free(err_arena);
  return 0;
}
