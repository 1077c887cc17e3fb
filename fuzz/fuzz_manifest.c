/* Reads arbitrary bytes as a persisted-document manifest (Apollo's format
 * or a plain map). A rejection must carry a message; an accepted manifest
 * must find every operation by its id and allow every body it lists (the
 * safelist normalizes both sides the same way). The first byte, when the
 * input is long enough, picks small limits for a second read. */
#include "pubsub/persisted.h"

#include <stdint.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static void check(const char *json, size_t len,
                  const gql_pq_manifest_options *o) {
  gql_pq_manifest *m = NULL;
  char err[256];
  err[0] = 0;
  int rc = gql_pq_manifest_parse(json, len, o, &m, err, sizeof err);
  if (rc < 0) {
    CHECK(m == NULL);
    CHECK(err[0] != 0);
    CHECK(rc == GQL_EJSON || rc == GQL_EINVAL || rc == GQL_ELIMIT ||
          rc == GQL_ENOMEM);
    return;
  }
  CHECK(m != NULL);
  gql_arena *scratch = gql_arena_new(NULL);
  CHECK(scratch != NULL);
  for (uint32_t i = 0; i < gql_pq_manifest_count(m); i++) {
    gql_str id, body, found;
    gql_pq_manifest_op(m, i, &id, &body);
    CHECK(id.len > 0);
    CHECK(gql_pq_manifest_get(m, id, &found));
    CHECK(gql_str_eq(found, body));
    CHECK(gql_pq_manifest_allows(m, body, scratch));
    gql_arena_reset(scratch);
  }
  gql_arena_free(scratch);
  gql_pq_manifest_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check((const char *)data, size, NULL);
  if (size > 1) {
    gql_pq_manifest_options o = {.max_operations = 1u + (data[0] & 7),
                                 .max_document_bytes = 16u << (data[0] >> 5),
                                 .max_bytes = 4096};
    check((const char *)data + 1, size - 1, &o);
  }
  return 0;
}
