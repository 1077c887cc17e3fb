/* JWT verification against JWKS (src/auth), with keys made in the test. */
#include "jwt_sign.h"

#include <criterion/criterion.h>
#include <time.h>

static const int64_t NOW = 1700000000;

static char *payload(const char *extra) {
  char *p = malloc(512);
  snprintf(p, 512, "{\"sub\":\"u1\",\"exp\":%lld%s%s}", (long long)(NOW + 600),
           extra ? "," : "", extra ? extra : "");
  return p;
}

static char *set_of(const char *jwk) {
  char *s = malloc(strlen(jwk) + 16);
  sprintf(s, "{\"keys\":[%s]}", jwk);
  return s;
}

static int verify(gql_jwt_verifier *v, gql_jwt_cache *c, const char *tok,
                  int64_t now, gql_jwt_result *r) {
  gql_arena *a = gql_arena_new(NULL);
  gql_jwt_verify(v, c, tok, strlen(tok), now, a, r);
  int st = r->status;
  if (st == GQL_JWT_OK) { /* the claims came through */
    const gql_json_value *sub = gql_json_get(r->claims, GQL_STR("sub"));
    cr_assert(sub && gql_str_eq_cstr(sub->string, "u1"));
  }
  gql_arena_free(a);
  return st;
}

/* Each algorithm: a good token verifies; a flipped signature byte, a
 * changed payload, or the other family's key do not. */
static void round_trip(const char *alg) {
  EVP_PKEY *k = ts_key_for(alg);
  const char *secret = "a-secret-of-thirty-two-bytes-or-more!!";
  char *jwk = k ? ts_jwk(k, "k1", NULL) : ts_jwk_oct(secret, "k1");
  char *set = set_of(jwk);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 0);
  cr_assert(v, "%s: the key set loads", alg);
  char *p = payload(NULL);
  char *tok = ts_sign(alg, "k1", NULL, p, k, secret);
  gql_jwt_result r;
  cr_assert_eq(verify(v, NULL, tok, NOW, &r), GQL_JWT_OK, "%s: %s", alg,
               gql_jwt_status_text(r.status));
  char *dot = strrchr(tok, '.');
  dot[3] = dot[3] == 'A' ? 'B' : 'A';
  cr_assert_eq(verify(v, NULL, tok, NOW, &r), GQL_JWT_BAD_SIGNATURE, "%s", alg);
  free(tok);
  tok = ts_sign(alg, "k1", NULL, "{\"sub\":\"u1\",\"admin\":true}", k,
                "another secret");
  char *good = ts_sign(alg, "k1", NULL, p, k, secret);
  /* the payload of one, the signature of the other */
  char *mix = malloc(strlen(tok) + strlen(good));
  char *d1 = strchr(tok, '.'), *d2 = strrchr(tok, '.');
  char *g2 = strrchr(good, '.');
  sprintf(mix, "%.*s%s", (int)(d2 - tok), tok, g2);
  (void)d1;
  cr_assert_eq(verify(v, NULL, mix, NOW, &r), GQL_JWT_BAD_SIGNATURE, "%s", alg);
  free(mix);
  free(good);
  free(tok);
  free(p);
  free(set);
  free(jwk);
  gql_jwt_verifier_free(v);
  EVP_PKEY_free(k);
}

Test(jwt, every_algorithm_verifies_good_tokens_and_refuses_forged_ones,
     .timeout = 60) {
  static const char *const algs[] = {"HS256", "HS384", "HS512", "RS256",
                                     "RS384", "RS512", "PS256", "PS384",
                                     "PS512", "ES256", "ES384"};
  for (size_t i = 0; i < sizeof algs / sizeof *algs; i++)
    round_trip(algs[i]);
}

Test(jwt, kid_selects_the_key_and_a_token_without_kid_tries_each) {
  EVP_PKEY *k1 = EVP_EC_gen("P-256"), *k2 = EVP_EC_gen("P-256");
  char *j1 = ts_jwk(k1, "one", "ES256"), *j2 = ts_jwk(k2, "two", NULL);
  char set[8192];
  snprintf(set, sizeof set, "{\"keys\":[%s,%s]}", j1, j2);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 0);
  char *p = payload(NULL);
  gql_jwt_result r;
  char *t = ts_sign("ES256", "two", NULL, p, k2, NULL);
  cr_assert_eq(verify(v, NULL, t, NOW, &r), GQL_JWT_OK);
  free(t);
  t = ts_sign("ES256", "three", NULL, p, k2, NULL);
  cr_assert_eq(verify(v, NULL, t, NOW, &r), GQL_JWT_UNKNOWN_KID);
  free(t);
  t = ts_sign("ES256", NULL, NULL, p, k2, NULL); /* no kid: both tried */
  cr_assert_eq(verify(v, NULL, t, NOW, &r), GQL_JWT_OK);
  free(t);
  t = ts_sign("ES256", "one", NULL, p, k2, NULL); /* kid of the other key */
  cr_assert_eq(verify(v, NULL, t, NOW, &r), GQL_JWT_BAD_SIGNATURE);
  free(t);
  free(p);
  free(j1);
  free(j2);
  gql_jwt_verifier_free(v);
  EVP_PKEY_free(k1);
  EVP_PKEY_free(k2);
}

Test(jwt, exp_nbf_and_iat_hold_with_the_leeway_only) {
  const char *secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t";
  char *jwk = ts_jwk_oct(secret, NULL), *set = set_of(jwk);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 30);
  gql_jwt_result r;
  char p[256];
  struct {
    const char *fmt;
    long long at;
    int want;
  } cases[] = {
      {"{\"sub\":\"u1\",\"exp\":%lld}", NOW - 20, GQL_JWT_OK},
      {"{\"sub\":\"u1\",\"exp\":%lld}", NOW - 31, GQL_JWT_EXPIRED},
      {"{\"sub\":\"u1\",\"nbf\":%lld}", NOW + 20, GQL_JWT_OK},
      {"{\"sub\":\"u1\",\"nbf\":%lld}", NOW + 31, GQL_JWT_NOT_YET_VALID},
      {"{\"sub\":\"u1\",\"iat\":%lld}", NOW + 31, GQL_JWT_NOT_YET_VALID},
      {"{\"sub\":\"u1\",\"exp\":\"%lld\"}", NOW + 100, GQL_JWT_MALFORMED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(p, sizeof p, cases[i].fmt, cases[i].at);
    char *t = ts_sign("HS256", NULL, NULL, p, NULL, secret);
    cr_assert_eq(verify(v, NULL, t, NOW, &r), cases[i].want, "case %zu: %s", i,
                 gql_jwt_status_text(r.status));
    free(t);
  }
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
}

Test(jwt, issuer_and_audience_string_or_array) {
  const char *secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t";
  char *jwk = ts_jwk_oct(secret, NULL), *set = set_of(jwk);
  const char *iss[] = {"https://issuer"}, *aud[] = {"api", "other"};
  gql_jwt_accept acc = {iss, 1, aud, 2, 0};
  gql_jwt_verifier *v = ts_verifier(set, &acc, 0);
  gql_jwt_result r;
  struct {
    const char *p;
    int want;
  } cases[] = {
      {"{\"sub\":\"u1\",\"iss\":\"https://issuer\",\"aud\":\"api\"}",
       GQL_JWT_OK},
      {"{\"sub\":\"u1\",\"iss\":\"https://issuer\",\"aud\":[\"x\",\"other\"]}",
       GQL_JWT_OK},
      {"{\"sub\":\"u1\",\"iss\":\"https://evil\",\"aud\":\"api\"}",
       GQL_JWT_BAD_ISSUER},
      {"{\"sub\":\"u1\",\"aud\":\"api\"}", GQL_JWT_BAD_ISSUER},
      {"{\"sub\":\"u1\",\"iss\":\"https://issuer\",\"aud\":[\"x\"]}",
       GQL_JWT_BAD_AUDIENCE},
      {"{\"sub\":\"u1\",\"iss\":\"https://issuer\"}", GQL_JWT_BAD_AUDIENCE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *t = ts_sign("HS256", NULL, NULL, cases[i].p, NULL, secret);
    cr_assert_eq(verify(v, NULL, t, NOW, &r), cases[i].want, "case %zu", i);
    free(t);
  }
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
}

Test(jwt, malformed_tokens_and_alg_none_are_refused_with_a_reason) {
  const char *secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t";
  char *jwk = ts_jwk_oct(secret, NULL), *set = set_of(jwk);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 0);
  gql_jwt_result r;
  char *good = ts_sign("HS256", NULL, NULL, "{\"sub\":\"u1\"}", NULL, secret);
  char buf[2048];
  snprintf(buf, sizeof buf, "%s=", good); /* padding is not base64url */
  cr_assert_eq(verify(v, NULL, buf, NOW, &r), GQL_JWT_MALFORMED);
  snprintf(buf, sizeof buf, "%s.x", good); /* four parts */
  cr_assert_eq(verify(v, NULL, buf, NOW, &r), GQL_JWT_MALFORMED);
  cr_assert_eq(verify(v, NULL, "abc", NOW, &r), GQL_JWT_MALFORMED);
  cr_assert_eq(verify(v, NULL, "..", NOW, &r), GQL_JWT_MALFORMED);
  cr_assert_eq(verify(v, NULL, "e30.e30.", NOW, &r), GQL_JWT_MALFORMED);
  char *h = ts_b64url_str("{\"alg\":\"none\"}");
  char *pl = ts_b64url_str("{\"sub\":\"u1\"}");
  char *none = malloc(strlen(h) + strlen(pl) + 8); /* room for ".AA" */
  sprintf(none, "%s.%s.", h, pl); /* an unsigned token: header.payload. */
  free(h);
  free(pl);
  cr_assert_eq(verify(v, NULL, none, NOW, &r), GQL_JWT_MALFORMED,
               "an empty signature is no signature");
  none[strlen(none) - 1] = 0;
  strcat(none, ".AA");
  cr_assert_eq(verify(v, NULL, none, NOW, &r), GQL_JWT_UNSUPPORTED_ALG);
  free(none);
  char *crit = ts_sign("HS256", NULL, "{\"alg\":\"HS256\",\"crit\":[\"x\"]}",
                       "{\"sub\":\"u1\"}", NULL, secret);
  cr_assert_eq(verify(v, NULL, crit, NOW, &r), GQL_JWT_UNSUPPORTED_ALG);
  free(crit);
  char *notjson = ts_sign("HS256", NULL, NULL, "[1]", NULL, secret);
  cr_assert_eq(verify(v, NULL, notjson, NOW, &r), GQL_JWT_MALFORMED);
  free(notjson);
  free(good);
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
}

/* HS256 signed with the RSA key's public bytes must not pass: an oct
 * secret is never taken from an RSA JWK (the classic alg confusion). */
Test(jwt, algorithm_restrictions_and_key_types_are_kept) {
  EVP_PKEY *k = EVP_RSA_gen(2048);
  char *jwk = ts_jwk(k, NULL, NULL), *set = set_of(jwk);
  gql_jwt_accept only_ps = {.algorithms = 1u << GQL_JWT_PS256};
  gql_jwt_verifier *v = ts_verifier(set, &only_ps, 0);
  gql_jwt_result r;
  char *p = payload(NULL);
  char *rs = ts_sign("RS256", NULL, NULL, p, k, NULL);
  cr_assert_eq(verify(v, NULL, rs, NOW, &r), GQL_JWT_NO_KEY);
  char *ps = ts_sign("PS256", NULL, NULL, p, k, NULL);
  cr_assert_eq(verify(v, NULL, ps, NOW, &r), GQL_JWT_OK);
  char *hs = ts_sign("HS256", NULL, NULL, p, NULL, jwk);
  cr_assert_eq(verify(v, NULL, hs, NOW, &r), GQL_JWT_NO_KEY);
  free(rs);
  free(ps);
  free(hs);
  free(p);
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
  EVP_PKEY_free(k);
}

Test(jwt, the_cache_answers_repeats_and_forgets_expired_tokens) {
  const char *secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t";
  char *jwk = ts_jwk_oct(secret, NULL), *set = set_of(jwk);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 0);
  gql_jwt_cache *c = gql_jwt_cache_new(0);
  gql_jwt_result r;
  char *p = payload(NULL); /* exp NOW + 600 */
  char *t = ts_sign("HS256", NULL, NULL, p, NULL, secret);
  cr_assert_eq(verify(v, c, t, NOW, &r), GQL_JWT_OK);
  cr_assert_not(r.cached);
  cr_assert_eq(verify(v, c, t, NOW + 1, &r), GQL_JWT_OK);
  cr_assert(r.cached);
  cr_assert_eq(verify(v, c, t, NOW + 601, &r), GQL_JWT_EXPIRED);
  cr_assert_not(r.cached);
  cr_assert_eq(gql_jwt_cache_count(c), 0);
  /* a forged token never hits the cache of the good one */
  t[strlen(t) - 2] ^= 1;
  cr_assert_neq(verify(v, c, t, NOW, &r), GQL_JWT_OK);
  /* another verifier (a reload) does not see this one's entries */
  t[strlen(t) - 2] ^= 1;
  cr_assert_eq(verify(v, c, t, NOW, &r), GQL_JWT_OK);
  gql_jwt_verifier *v2 = ts_verifier(set, NULL, 0);
  cr_assert_eq(verify(v2, c, t, NOW, &r), GQL_JWT_OK);
  cr_assert_not(r.cached);
  gql_jwt_verifier_free(v2);
  free(t);
  free(p);
  gql_jwt_cache_free(c);
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
}

Test(jwt, the_cache_keeps_to_its_byte_budget) {
  const char *secret = "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t";
  char *jwk = ts_jwk_oct(secret, NULL), *set = set_of(jwk);
  gql_jwt_verifier *v = ts_verifier(set, NULL, 0);
  gql_jwt_cache *c = gql_jwt_cache_new(8192);
  gql_jwt_result r;
  char p[128];
  char *first = NULL;
  for (int i = 0; i < 200; i++) {
    snprintf(p, sizeof p, "{\"sub\":\"u1\",\"n\":%d,\"exp\":%lld}", i,
             (long long)NOW + 600);
    char *t = ts_sign("HS256", NULL, NULL, p, NULL, secret);
    cr_assert_eq(verify(v, c, t, NOW, &r), GQL_JWT_OK);
    if (i == 0)
      first = t;
    else
      free(t);
  }
  cr_assert_lt(gql_jwt_cache_count(c), 200);
  cr_assert_gt(gql_jwt_cache_count(c), 10);
  cr_assert_eq(verify(v, c, first, NOW, &r), GQL_JWT_OK);
  cr_assert_not(r.cached, "the oldest entry was evicted");
  free(first);
  gql_jwt_cache_free(c);
  free(jwk);
  free(set);
  gql_jwt_verifier_free(v);
}

Test(jwks, skips_foreign_keys_and_refuses_weak_or_broken_ones) {
  gql_jwks *s = NULL;
  char why[200];
  const char *enc =
      "{\"keys\":[{\"kty\":\"oct\",\"use\":\"enc\",\"k\":\"AAAA\"},"
      "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"AAAA\"},"
      "{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}";
  cr_assert_eq(gql_jwks_parse(enc, strlen(enc), &s, why, sizeof why), 0, "%s",
               why);
  cr_assert_eq(gql_jwks_count(s), 1);
  gql_jwks_free(s);
  EVP_PKEY *weak = EVP_RSA_gen(1024);
  char *j = ts_jwk(weak, NULL, NULL), *set = set_of(j);
  cr_assert_eq(gql_jwks_parse(set, strlen(set), &s, why, sizeof why),
               GQL_EINVAL);
  cr_assert(strstr(why, "2048"), "%s", why);
  free(j);
  free(set);
  EVP_PKEY_free(weak);
  const char *offcurve =
      "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":"
      "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"y\":"
      "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE\"}]}";
  cr_assert_eq(gql_jwks_parse(offcurve, strlen(offcurve), &s, why, sizeof why),
               GQL_EINVAL);
  const char *bad[] = {"{", "[]", "{\"keys\":{}}", "{\"keys\":[]}",
                       "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\"}]}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert_eq(gql_jwks_parse(bad[i], strlen(bad[i]), &s, why, sizeof why),
                 GQL_EINVAL, "%s", bad[i]);
}

Test(base64url, is_strict) {
  unsigned char out[16];
  cr_assert_eq(gql_base64url_decode("YWJj", 4, out), 3);
  cr_assert_eq(memcmp(out, "abc", 3), 0);
  cr_assert_eq(gql_base64url_decode("YWI", 3, out), 2);
  cr_assert_eq(gql_base64url_decode("YWJ", 3, out), -1); /* stray bits */
  cr_assert_eq(gql_base64url_decode("YW=", 3, out), -1);
  cr_assert_eq(gql_base64url_decode("YW+/", 4, out), -1);
  cr_assert_eq(gql_base64url_decode("Y", 1, out), -1);
  cr_assert_eq(gql_base64url_decode("-_-_", 4, out), 3);
}

Test(jwt, the_token_comes_from_the_configured_prefix) {
  gql_str t;
  cr_assert_eq(gql_jwt_from_header(GQL_STR("Bearer abc.def.ghi"), "Bearer", &t),
               1);
  cr_assert(gql_str_eq_cstr(t, "abc.def.ghi"));
  cr_assert_eq(gql_jwt_from_header(GQL_STR("bearer  x "), "Bearer", &t), 1);
  cr_assert(gql_str_eq_cstr(t, "x"));
  cr_assert_eq(gql_jwt_from_header(GQL_STR("Basic dXNlcg=="), "Bearer", &t), 0);
  cr_assert_eq(gql_jwt_from_header(GQL_STR("Bearerx"), "Bearer", &t), 0);
  cr_assert_eq(gql_jwt_from_header(GQL_STR("Bearer "), "Bearer", &t), -1);
  cr_assert_eq(gql_jwt_from_header(GQL_STR("tok"), "", &t), 1);
}
