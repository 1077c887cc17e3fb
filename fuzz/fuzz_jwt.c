/* Tokens and key sets from arbitrary bytes. The first byte chooses:
 * even: the rest is a token, verified (with and without the cache) against
 * fixed keys (an HS256 secret and an EC P-256 key); odd: the rest is a JWK
 * Set, parsed, and if it loads, a fixed token is verified against it.
 * Whatever the bytes, a status comes back; only a token signed with the
 * fixed secret may be valid. */
#include "auth/auth.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

/* {"kty":"oct","k":"fuzz-secret"} and a P-256 point (the curve's
 * generator, a valid public key). */
static const char jwks_text[] =
    "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"s\",\"k\":\"ZnV6ei1zZWNyZXQ\"},"
    "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"e\","
    "\"x\":\"axfR8uEsQkf4vOblY6RA8ncDfYEt6zOg9KE5RdiYwpY\","
    "\"y\":\"T-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU\"}]}";

/* HS256 over {"sub":"u1"} with "fuzz-secret" */
static const char token[] = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9."
                            "Zz0Q1JmB2x7YbFzn7C7j2xQKZ4H8dJ6g6n9pQyYqk6M";

static gql_jwt_verifier *verifier;
static gql_jwt_cache *cache;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  gql_jwks *s = NULL;
  char why[200];
  if (gql_jwks_parse(jwks_text, sizeof jwks_text - 1, &s, why, sizeof why))
    abort();
  verifier = gql_jwt_verifier_new(60);
  if (!verifier || gql_jwt_verifier_add(verifier, s, NULL))
    abort();
  cache = gql_jwt_cache_new(1 << 16);
  return 0;
}

static void check_result(const gql_jwt_result *r) {
  CHECK(r->status >= GQL_JWT_OK && r->status <= GQL_JWT_NOMEM);
  CHECK((r->status == GQL_JWT_OK) == (r->claims != NULL));
  CHECK(gql_jwt_status_text(r->status)[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  gql_arena *a = gql_arena_new(NULL);
  gql_jwt_result r;
  if (!(data[0] & 1)) {
    gql_jwt_verify(verifier, NULL, text, len, 1700000000, a, &r);
    check_result(&r);
    gql_jwt_result rc;
    gql_jwt_verify(verifier, cache, text, len, 1700000000, a, &rc);
    check_result(&rc);
    CHECK(rc.status == r.status);
    gql_str t;
    (void)gql_jwt_from_header((gql_str){text, len}, "Bearer", &t);
  } else {
    gql_jwks *s = NULL;
    char why[200];
    if (gql_jwks_parse(text, len, &s, why, sizeof why) == 0) {
      CHECK(gql_jwks_count(s) > 0);
      gql_jwt_verifier *v = gql_jwt_verifier_new(0);
      CHECK(v && gql_jwt_verifier_add(v, s, NULL) == 0);
      gql_jwt_verify(v, NULL, token, sizeof token - 1, 1700000000, a, &r);
      check_result(&r);
      gql_jwt_verifier_free(v);
    } else {
      CHECK(!s && why[0]);
    }
  }
  gql_arena_free(a);
  return 0;
}
