/*
 * JWT verification against JSON Web Key Sets, with OpenSSL 3 (EVP; keys
 * built from the JWK fields with OSSL_PARAM / EVP_PKEY_fromdata; no crypto
 * of our own). RS256/384/512, PS256/384/512, ES256/384 and HS256/384/512.
 *
 * A verifier holds key sets, each with the issuers, audiences and
 * algorithms it accepts (authentication.router.jwt.jwks), and is immutable
 * once built: worker threads share it. A cache of verified tokens is per
 * thread (no locks): a repeated token costs a hash, a compare and the
 * claims' parse instead of a signature check.
 *
 * Every failure is a status with a reason, never a crash and never a log
 * line: the caller decides what to say (401 + WWW-Authenticate).
 */
#ifndef GQL_AUTH_H
#define GQL_AUTH_H

#include "core/core.h"
#include "json/json.h"

/* X(NAME, text): the algorithms, in JWS names. */
#define GQL_JWT_ALG_MAP(X)                                                     \
  X(HS256)                                                                     \
  X(HS384)                                                                     \
  X(HS512)                                                                     \
  X(RS256) X(RS384) X(RS512) X(PS256) X(PS384) X(PS512) X(ES256) X(ES384)

typedef enum gql_jwt_alg {
#define GQL_JWT_ALG_ENUM_(name) GQL_JWT_##name,
  GQL_JWT_ALG_MAP(GQL_JWT_ALG_ENUM_)
#undef GQL_JWT_ALG_ENUM_
      GQL_JWT_NALGS
} gql_jwt_alg;

/* X(NAME, reason): why a token was refused. */
#define GQL_JWT_STATUS_MAP(X)                                                  \
  X(OK, "valid")                                                               \
  X(MALFORMED, "malformed")                                                    \
  X(UNSUPPORTED_ALG, "unsupported algorithm")                                  \
  X(UNKNOWN_KID, "unknown kid")                                                \
  X(NO_KEY, "no key for its algorithm")                                        \
  X(BAD_SIGNATURE, "bad signature")                                            \
  X(EXPIRED, "expired")                                                        \
  X(NOT_YET_VALID, "not yet valid")                                            \
  X(BAD_ISSUER, "issuer not accepted")                                         \
  X(BAD_AUDIENCE, "audience not accepted")                                     \
  X(NOMEM, "out of memory")

typedef enum gql_jwt_status {
#define GQL_JWT_STATUS_ENUM_(name, text) GQL_JWT_##name,
  GQL_JWT_STATUS_MAP(GQL_JWT_STATUS_ENUM_)
#undef GQL_JWT_STATUS_ENUM_
} gql_jwt_status;

/* "bad signature", "expired"... never NULL. */
const char *gql_jwt_status_text(int status);
/* The algorithm named `name` ("RS256"), or -1. */
int gql_jwt_alg_from_name(gql_str name);
const char *gql_jwt_alg_name(gql_jwt_alg alg);

/* ---------------------------------------------------------------- JWKS */

#define GQL_JWKS_MAX_BYTES ((size_t)1 << 20)
#define GQL_JWKS_MAX_KEYS 100u
#define GQL_JWT_MAX_BYTES 16384u /* a longer token is malformed */

typedef struct gql_jwks gql_jwks;

/* Parses a JWK Set ({"keys": [...]}) or a single JWK. Keys whose kty is
 * unknown, or meant for encryption (use "enc"), are skipped; an RSA key
 * under 2048 bits or a broken key is an error. 0, or GQL_EINVAL with a
 * reason in why[0..n), or GQL_ENOMEM. */
int gql_jwks_parse(const char *json, size_t len, gql_jwks **out, char *why,
                   size_t n);
/* Usable keys in the set. */
uint32_t gql_jwks_count(const gql_jwks *jwks);
void gql_jwks_free(gql_jwks *jwks);

/* ------------------------------------------------------------- verifier */

typedef struct gql_jwt_verifier gql_jwt_verifier;

/* What a key set accepts (NULL / 0: anything). The strings are copied. */
typedef struct gql_jwt_accept {
  const char *const *issuers;
  uint32_t nissuers;
  const char *const *audiences;
  uint32_t naudiences;
  uint32_t algorithms; /* bit (1 << gql_jwt_alg) per accepted one; 0: all */
} gql_jwt_accept;

/* `leeway_s` seconds of clock skew for exp, nbf and iat (negative: 60, as
 * Apollo Router's). NULL on no memory. */
gql_jwt_verifier *gql_jwt_verifier_new(int64_t leeway_s);
/* Adds a key set (the verifier takes it, also on failure). Sets are tried
 * in the order added. 0 or GQL_ENOMEM. */
int gql_jwt_verifier_add(gql_jwt_verifier *v, gql_jwks *jwks,
                         const gql_jwt_accept *accept);
void gql_jwt_verifier_free(gql_jwt_verifier *v);

/* ---------------------------------------------------------------- cache */

typedef struct gql_jwt_cache gql_jwt_cache;

/* A cache of tokens verified by one verifier, holding at most `max_bytes`
 * (0: 1 MiB) of tokens and claims; least recently used out first. A token
 * stays until its exp (+ leeway). One thread at a time. NULL on no memory. */
gql_jwt_cache *gql_jwt_cache_new(size_t max_bytes);
void gql_jwt_cache_free(gql_jwt_cache *cache);
/* Entries held (for tests). */
uint32_t gql_jwt_cache_count(const gql_jwt_cache *cache);

/* -------------------------------------------------------------- verify */

typedef struct gql_jwt_result {
  int status;                   /* gql_jwt_status */
  const gql_json_value *claims; /* OK: the payload, in the caller's arena */
  gql_str claims_json;          /* OK: its text, in the caller's arena */
  bool cached;                  /* answered from the cache */
} gql_jwt_result;

/* Verifies a compact JWS (header.payload.signature), `now` in seconds since
 * the epoch. `cache` may be NULL. The result's claims live in `arena`. */
void gql_jwt_verify(const gql_jwt_verifier *v, gql_jwt_cache *cache,
                    const char *token, size_t len, int64_t now,
                    gql_arena *arena, gql_jwt_result *r);

/* The token in a header value, as Router reads it: `prefix` ("Bearer"),
 * whitespace, the token. An empty prefix takes the whole value. Returns 1
 * with *token set, 0 when the value has another prefix (ignore it when
 * ignore_other_prefixes), -1 when it has the prefix but no token. */
int gql_jwt_from_header(gql_str value, const char *prefix, gql_str *token);

/* Strict base64url without padding (RFC 7515 §2): returns the decoded
 * length, or -1 on any other character, padding, or a length that cannot
 * be base64 (out needs (len * 3) / 4 + 1 bytes). */
long gql_base64url_decode(const char *in, size_t len, unsigned char *out);

#endif
