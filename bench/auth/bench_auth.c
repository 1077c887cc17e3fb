/* JWT verification cost per token, for each algorithm: cold (no cache: the
 * signature is checked every time) and cached (a repeated token answered
 * by the per-thread cache: a hash, a compare and the claims' parse).
 * Usage: bench_auth [SECONDS_PER_CASE] */
#include "../../tests/auth/jwt_sign.h"

#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Nanoseconds per verification over about `secs` seconds. */
static double measure(gql_jwt_verifier *v, gql_jwt_cache *c, const char *tok,
                      int64_t at, double secs) {
  gql_arena *a = gql_arena_new(NULL);
  size_t len = strlen(tok);
  gql_jwt_result r;
  long n = 0, batch = 16;
  double start = now_s(), t;
  do {
    for (long i = 0; i < batch; i++) {
      gql_arena_reset(a);
      gql_jwt_verify(v, c, tok, len, at, a, &r);
      if (r.status != GQL_JWT_OK) {
        fprintf(stderr, "bench_auth: %s\n", gql_jwt_status_text(r.status));
        exit(1);
      }
    }
    n += batch;
    if (batch < 4096)
      batch *= 2;
  } while ((t = now_s() - start) < secs);
  gql_arena_free(a);
  return t * 1e9 / (double)n;
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 0.5;
  static const char *const algs[] = {"HS256", "HS384", "HS512", "RS256",
                                     "RS384", "RS512", "PS256", "PS384",
                                     "PS512", "ES256", "ES384"};
  const char *secret = "a-secret-of-thirty-two-bytes-or-more!!";
  int64_t at = (int64_t)time(NULL);
  char payload[256];
  snprintf(
      payload, sizeof payload,
      "{\"sub\":\"user-1234\",\"iss\":\"https://issuer.example\","
      "\"aud\":\"api\",\"scope\":\"read write\",\"iat\":%lld,\"exp\":%lld}",
      (long long)at, (long long)at + 3600);
  printf("%-6s %14s %14s %8s\n", "alg", "cold ns/token", "cached ns/token",
         "token B");
  for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
    EVP_PKEY *k = ts_key_for(algs[i]);
    char *jwk = k ? ts_jwk(k, "k1", NULL) : ts_jwk_oct(secret, "k1");
    char set[8192];
    snprintf(set, sizeof set, "{\"keys\":[%s]}", jwk);
    const char *iss[] = {"https://issuer.example"}, *aud[] = {"api"};
    gql_jwt_accept acc = {iss, 1, aud, 1, 0};
    gql_jwt_verifier *v = ts_verifier(set, &acc, 60);
    char *tok = ts_sign(algs[i], "k1", NULL, payload, k, secret);
    gql_jwt_cache *c = gql_jwt_cache_new(0);
    double cold = measure(v, NULL, tok, at, secs);
    double cached = measure(v, c, tok, at, secs);
    printf("%-6s %14.0f %14.0f %8zu\n", algs[i], cold, cached, strlen(tok));
    gql_jwt_cache_free(c);
    free(tok);
    free(jwk);
    gql_jwt_verifier_free(v);
    EVP_PKEY_free(k);
  }
  return 0;
}
