/* Inside the auth part: keys, key sets, the verifier. */
#ifndef GQL_AUTH_INTERNAL_H
#define GQL_AUTH_INTERNAL_H

#include "auth.h"

#include <openssl/evp.h>

typedef enum jwk_kty { KTY_RSA, KTY_EC_P256, KTY_EC_P384, KTY_OCT } jwk_kty;

typedef struct jwk {
  uint8_t kty;           /* jwk_kty */
  int alg;               /* the JWK's "alg", or -1 */
  char *kid;             /* NULL: none */
  EVP_PKEY *pkey;        /* RSA and EC */
  unsigned char *secret; /* oct */
  size_t secret_len;
} jwk;

struct gql_jwks {
  jwk *keys;
  uint32_t count;
};

typedef struct jwt_source {
  gql_jwks *jwks;
  char **issuers;
  uint32_t nissuers;
  char **audiences;
  uint32_t naudiences;
  uint32_t algorithms;
} jwt_source;

struct gql_jwt_verifier {
  jwt_source *sources;
  uint32_t count;
  int64_t leeway;
  uint64_t id; /* tells caches apart: an entry is only for its verifier */
};

/* The cache's side of gql_jwt_verify (cache.c). */
bool gql_jwt_cache_get(gql_jwt_cache *c, uint64_t verifier, const char *token,
                       size_t len, int64_t now, gql_arena *arena,
                       gql_str *claims_json);
void gql_jwt_cache_put(gql_jwt_cache *c, uint64_t verifier, const char *token,
                       size_t len, gql_str claims_json, int64_t expires);

#endif
