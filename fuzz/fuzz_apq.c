/* The persisted-operation decision on arbitrary requests: the first byte
 * picks the configuration (APQ on or off, a manifest or none, the safelist
 * mode), the rest is a JSON request body whose query, documentId and
 * extensions are handed over as the HTTP layer would. Whatever the input:
 * a registration's key is the query's SHA-256, a lookup's key is 64
 * lowercase hex digits, a run has text, an error has a code, a status and
 * a message, and its JSON parses. */
#include "pubsub/persisted.h"

#include <stdint.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static const char manifest_json[] =
    "{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,"
    "\"operations\":[{\"id\":\"hero\",\"body\":\"query Hero { hero { name } "
    "}\"},{\"id\":"
    "\"ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38\","
    "\"body\":\"{__typename}\"}]}";

static gql_pq_manifest *manifest;

static bool hex_lower(const char *k) {
  for (int i = 0; i < 64; i++)
    if (!((k[i] >= '0' && k[i] <= '9') || (k[i] >= 'a' && k[i] <= 'f')))
      return false;
  return k[64] == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!manifest) {
    char err[128];
    CHECK(gql_pq_manifest_parse(manifest_json, sizeof manifest_json - 1, NULL,
                                &manifest, err, sizeof err) == 0);
  }
  if (size < 1)
    return 0;
  uint8_t c = data[0];
  gql_pq_config cfg = {.apq = c & 1,
                       .manifest = (c & 2) ? manifest : NULL,
                       .safelist = (gql_pq_safelist)((c >> 2) % 3)};
  gql_arena *a = gql_arena_new(NULL);
  CHECK(a != NULL);
  gql_arena_set_limit(a, (size_t)64 << 20);
  gql_json_value *body = NULL;
  gql_pq_request req = {0};
  if (gql_json_parse(a, (const char *)data + 1, size - 1, NULL, &body, NULL) ==
          0 &&
      body->kind == GQL_JSON_OBJECT) {
    const gql_json_value *q = gql_json_get(body, GQL_STR("query"));
    const gql_json_value *id = gql_json_get(body, GQL_STR("documentId"));
    const gql_json_value *ext = gql_json_get(body, GQL_STR("extensions"));
    if (q && q->kind == GQL_JSON_STRING) {
      req.has_query = true;
      req.query = q->string;
    }
    if (id && id->kind == GQL_JSON_STRING) {
      req.has_document_id = true;
      req.document_id = id->string;
    }
    req.extensions = ext;
  }
  gql_pq_decision d;
  if (gql_pq_decide(&cfg, &req, a, &d) == 0) {
    if (d.action == GQL_PQ_LOOKUP) {
      CHECK(hex_lower(d.key));
      /* Either answer leaves a final decision. */
      gql_pq_decision miss = d;
      gql_pq_found(&miss, false, (gql_str){0}, a);
      CHECK(miss.action == GQL_PQ_ERROR);
      gql_pq_found(&d, true, GQL_STR("{ a }"), a);
      CHECK(d.action == GQL_PQ_RUN);
    }
    if (d.action == GQL_PQ_RUN) {
      CHECK(d.query.ptr != NULL || d.query.len == 0);
      if (d.register_apq) {
        char h[65];
        gql_pq_sha256_hex(d.query.ptr, d.query.len, h);
        CHECK(memcmp(h, d.key, 65) == 0);
        CHECK(req.has_query && cfg.apq);
      }
      if (!d.from_manifest && cfg.safelist == GQL_PQ_SAFELIST_REQUIRE_ID &&
          !d.register_apq)
        CHECK(!req.has_query || d.query.ptr != req.query.ptr);
    }
    if (d.action == GQL_PQ_ERROR) {
      CHECK(d.error != GQL_PQ_ENONE && d.message);
      CHECK(gql_pq_error_code(d.error)[0] != 0);
      int st = gql_pq_error_status(d.error);
      CHECK(st == 200 || (st >= 400 && st < 500));
      gql_buf b;
      gql_buf_init(&b, NULL);
      gql_pq_error_json(&d, &b);
      gql_json_value *back = NULL;
      CHECK(!b.failed);
      CHECK(gql_json_parse(a, b.data, b.len, NULL, &back, NULL) == 0);
      gql_buf_free(&b);
    }
  }
  gql_arena_free(a);
  return 0;
}
